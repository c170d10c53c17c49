// Hostile: executes a trap instruction. Expected status: RUNTIME_ERROR.
// @ptxbench kernel boom grid=1 block=32
// @ptxbench args C
extern "C" __global__ void boom(unsigned short *C) {
  if (threadIdx.x == 0)
    asm volatile("trap;");
  C[threadIdx.x] = 0;
}
