// Hostile: returns without writing C. Expected status: INCORRECT
// (every element unwritten).
// @ptxbench kernel nothing grid=(ceildiv(N,128), ceildiv(M,128)) block=256
// @ptxbench args A, B, C, M, N, K
extern "C" __global__ void nothing(const unsigned short *A,
                                   const unsigned short *B, unsigned short *C,
                                   int M, int N, int K) {}
