// corpus-archs: sm_90a sm_100a
// Assorted newer features: 128-bit integers (__int128 arithmetic, .b128
// ld/st/mov and atom.cas.b128 via inline asm), dynamic stack allocation
// (alloca -> alloca/stacksave/stackrestore), libcu++ cuda::barrier and
// cuda::memcpy_async (mbarrier-based, cp.async.bulk on sm_90), cooperative
// groups tiled_partition/reduce/labeled_partition, __builtin_assume/expect.
#include <cuda/barrier>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdint>
namespace cg = cooperative_groups;

extern "C" __global__ void int128_ops(const __int128* a, const unsigned __int128* b, __int128* o, unsigned __int128* cas) {
  int t = threadIdx.x;
  __int128 x = a[t];
  unsigned __int128 y = b[t];
  __int128 r = x * (__int128)y + (x >> 17) - (__int128)(y / 3u) + (x ^ (__int128)0x123456789abcdefLL);
  o[t] = r;
  unsigned __int128 v;
  asm volatile("ld.global.b128 %0, [%1];" : "=q"(v) : "l"(b + t + 64));
  unsigned __int128 old;
  asm volatile(
      "{\n"
      "  .reg .b128 cmp, nv;\n"
      "  mov.b128 cmp, %1;\n"
      "  mov.b128 nv, %2;\n"
      "  atom.global.cas.b128 %0, [%3], cmp, nv;\n"
      "}\n"
      : "=q"(old) : "q"(y), "q"(v), "l"(cas));
  asm volatile("st.global.b128 [%0], %1;" ::"l"(cas + 1 + t), "q"(old ^ v));
}

__device__ __noinline__ int use_alloca(int n, const int* in) {
  int* buf = static_cast<int*>(alloca(n * sizeof(int)));
  for (int i = 0; i < n; ++i) buf[i] = in[i] * 2;
  int s = 0;
  for (int i = n - 1; i >= 0; --i) s += buf[(i * 7) % n];
  return s;
}

extern "C" __global__ void dyn_stack(int n, const int* in, int* out) {
  __builtin_assume(n > 0 && n < 64);
  if (__builtin_expect(threadIdx.x < 32, 1)) out[threadIdx.x] = use_alloca(n, in + threadIdx.x);
}

extern "C" __global__ void libcu_barrier(const float* in, float* out) {
  __shared__ alignas(16) float buf[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, buf, in + blockIdx.x * 256, cuda::aligned_size_t<16>(sizeof(buf)), bar);
  bar.arrive_and_wait();
  auto tile = cg::tiled_partition<32>(block);
  float v = buf[block.thread_rank()];
  float s = cg::reduce(tile, v, cg::plus<float>());
  int mx = cg::reduce(tile, (int)v, cg::greater<int>());
  auto grp = cg::labeled_partition(tile, (int)v & 3);
  float g = cg::reduce(grp, v, cg::plus<float>());
  auto tile4 = cg::tiled_partition<4>(tile);
  float sh = tile4.shfl_down(v, 1);
  out[blockIdx.x * 256 + block.thread_rank()] = s + (float)mx + g + sh + (float)tile.meta_group_rank();
}
