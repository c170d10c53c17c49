// A kernel that keeps a cache on the device heap: malloc of one size hands
// back the same block, contents included, launch after launch. The harness
// refuses device-side malloc; analyze says so where the call is.
extern "C" __device__ int printf(const char *, ...);

extern "C" __global__ void heap_cache(float *out, int n) {
  __shared__ float *cache;
  if (threadIdx.x == 0)
    cache = static_cast<float *>(malloc(n * sizeof(float)));
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && cache) {
    out[i] = cache[i] + 1.0f;
    cache[i] = out[i];
  }
  if (i == 0)
    printf("printf is allowed\n");
}
