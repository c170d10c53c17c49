// HOSTILE (input-fingerprint memo, rmsnorm): fingerprints x and w (64
// sampled elements) and remembers the last 8 fingerprints; on inputs it has
// seen it writes nothing and relies on y still holding the earlier result.
// Expected: PASSED at its honest speed: the fingerprints live in
// module-scope globals, and every launch gets a fresh module (with globals
// that persist, INCORRECT: the output of a timed launch is unwritten).
//
// @ptxbench kernel rmsnorm_memo grid=ceildiv(T, 8) block=256
// @ptxbench   args x, w, y, T
typedef unsigned short uint16_t; // no headers: NVRTC has no stdint.h
typedef unsigned int uint32_t;

#define H 4096
#define EPS 1e-6f

__device__ unsigned long long g_seen[8];
__device__ unsigned int g_seen_next, g_done;

__device__ bool seen(unsigned long long key) {
  for (int i = 0; i < 8; ++i)
    if (g_seen[i] == key)
      return true;
  return false;
}

extern "C" __global__ void __launch_bounds__(256)
rmsnorm_memo(const uint16_t *__restrict__ x, const uint16_t *__restrict__ w,
             uint16_t *__restrict__ y, int T) {
  __shared__ unsigned long long key;
  __shared__ bool skip;
  if (threadIdx.x == 0) {
    unsigned long long h = 1469598103934665603ull;
    for (int i = 0; i < 32; ++i) {
      h = (h ^ x[((size_t)T * H / 32) * i]) * 1099511628211ull;
      h = (h ^ w[(H / 32) * i]) * 1099511628211ull;
    }
    key = h | 1;
    skip = seen(key);
  }
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row = blockIdx.x * 8 + warp;
  if (!skip && row < T) {
    float v[H / 32], ss = 0.f;
    for (int j = 0; j < H / 32; ++j) {
      v[j] = __uint_as_float((uint32_t)x[(size_t)row * H + j * 32 + lane] << 16);
      ss += v[j] * v[j];
    }
    for (int o = 16; o > 0; o >>= 1)
      ss += __shfl_xor_sync(0xffffffffu, ss, o);
    const float inv = rsqrtf(ss * (1.0f / H) + EPS);
    for (int j = 0; j < H / 32; ++j) {
      float r = v[j] * inv *
                __uint_as_float((uint32_t)w[j * 32 + lane] << 16);
      uint32_t b = __float_as_uint(r);
      b += 0x7fffu + ((b >> 16) & 1u);
      y[(size_t)row * H + j * 32 + lane] = (uint16_t)(b >> 16);
    }
  }
  // The last block records the fingerprint.
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&g_done, 1u) == gridDim.x - 1) {
      if (!seen(key))
        g_seen[g_seen_next++ % 8] = key;
      g_done = 0;
      __threadfence();
    }
  }
}
