// corpus-archs: sm_80 sm_90a
// Memory-model and cache features: cuda::atomic_ref with scopes and orders
// (ld.acquire/st.release/atom.acq_rel.gpu/.sys/.cta), fences (fence.sc,
// fence.acq_rel, membar), volatile loads/stores, __nanosleep spin loops,
// __ldcg/__ldca/__ldlu/__stwt/__stcg cache operators, prefetch, L2 eviction
// policies (createpolicy + ld.global.L2::cache_hint), discard, and
// special registers (%clock64, %globaltimer, %smid, %warpid, %laneid, %nsmid).
#include <cstdint>
#include <cuda/atomic>

extern "C" __global__ void atomic_refs(int* flag, int* data, unsigned long long* ctr, float* fl) {
  cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_system> c(*ctr);
  cuda::atomic_ref<float, cuda::thread_scope_block> a(*fl);
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    data[0] = 42;
    f.store(1, cuda::memory_order_release);
  } else if (threadIdx.x == 0) {
    while (f.load(cuda::memory_order_acquire) == 0) __nanosleep(100);
    data[blockIdx.x] = data[0] + 1;
  }
  c.fetch_add(1, cuda::memory_order_relaxed);
  a.fetch_add(0.5f, cuda::memory_order_acq_rel);
  int expected = 1;
  f.compare_exchange_strong(expected, 2, cuda::memory_order_seq_cst);
  cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_system);
  cuda::atomic_thread_fence(cuda::memory_order_acq_rel, cuda::thread_scope_block);
  __threadfence();
  __threadfence_block();
  __threadfence_system();
}

extern "C" __global__ void cache_ops(const float* in, float* out, volatile int* vflag) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float a = __ldcg(&in[t]) + __ldca(&in[t + 1]) + __ldlu(&in[t + 2]) + __ldcv(&in[t + 3]);
  asm volatile("prefetch.global.L2 [%0];" ::"l"(in + t + 256));
  asm volatile("prefetch.global.L1 [%0];" ::"l"(in + t + 512));
  uint64_t pol;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
  float b;
  asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(b) : "l"(in + t + 4), "l"(pol));
  float c;
  asm volatile("ld.global.nc.L1::no_allocate.f32 %0, [%1];" : "=f"(c) : "l"(in + t + 5));
  __stwt(&out[t], a + b + c);
  __stcg(&out[t + 4096], a - b);
  while (*vflag == 0) { }
  *vflag = 2;
  asm volatile("discard.global.L2 [%0], 128;" ::"l"(out + 8192 + (t & ~31)));
}

extern "C" __global__ void special_regs(unsigned long long* out) {
  unsigned long long c0 = clock64();
  unsigned smid, warpid, laneid, nsmid;
  unsigned long long gt;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(warpid));
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(laneid));
  asm volatile("mov.u32 %0, %%nsmid;" : "=r"(nsmid));
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt));
  unsigned dyn;
  asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dyn));
  unsigned c32 = clock();
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = (clock64() - c0) + smid + warpid + laneid + nsmid + gt + dyn + c32 + gridDim.y + blockDim.z + threadIdx.z;
}
