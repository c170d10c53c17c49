// Hostile: waits on an mbarrier that no thread ever arrives on, so the
// kernel never finishes. Expected status: TIMEOUT.
// @ptxbench kernel hang grid=(ceildiv(N,128), ceildiv(M,128)) block=128
// @ptxbench args C
extern "C" __global__ void hang(unsigned short *C) {
  __shared__ __align__(8) unsigned long long bar;
  unsigned addr = (unsigned)__cvta_generic_to_shared(&bar);
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;" ::"r"(addr));
  __syncthreads();
  asm volatile("{\n .reg .pred p;\n WAIT_%=:\n"
               " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
               " @!p bra WAIT_%=;\n}" ::"r"(addr)
               : "memory");
  C[threadIdx.x] = 0;
}
