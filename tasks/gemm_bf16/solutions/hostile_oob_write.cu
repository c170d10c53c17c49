// Hostile: writes far outside its output. Expected status: RUNTIME_ERROR
// (CUDA_ERROR_ILLEGAL_ADDRESS), and the next workload still runs.
// @ptxbench kernel oob grid=(ceildiv(N,128), ceildiv(M,128)) block=128
// @ptxbench args C, M, N
extern "C" __global__ void oob(unsigned short *C, int M, int N) {
  size_t far = (size_t)1 << 42;
  C[far + blockIdx.x * 128 + threadIdx.x] = 0x3f80;
}
