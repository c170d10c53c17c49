// A kernel with a typo: `acc` is never declared. NVRTC's error is reported
// at this file's line 8 (the store).
extern "C" __global__ void broken(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.f;
  for (int k = 0; k < n; ++k)
    sum += in[k];
  out[i] = acc;
}
