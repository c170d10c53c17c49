// corpus-archs: sm_90a sm_100a
// Thread-block clusters and distributed shared memory: __cluster_dims__
// (.reqnctapercluster/.explicitcluster), cooperative_groups cluster sync,
// barrier.cluster.arrive(.release/.relaxed)/wait(.acquire), mapa.shared::cluster,
// getctarank, ld/st/atom on shared::cluster, %cluster_ctarank/%clusterid/
// %cluster_nctaid special registers, st.async and red.async with remote
// mbarriers, mbarrier arrive on a remote CTA, cp.async.bulk shared::cta ->
// shared::cluster, multimem.ld_reduce/st/red, fence.acq_rel.cluster.
#include <cooperative_groups.h>
#include <cuda/ptx>
#include <cstdint>
namespace cg = cooperative_groups;
namespace ptx = cuda::ptx;

extern "C" __global__ void __cluster_dims__(2, 1, 1)
cluster_dsmem(const int* in, int* out) {
  __shared__ int buf[128];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  buf[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  cluster.sync();
  int* peer = cluster.map_shared_rank(buf, rank ^ 1);
  int v = peer[(threadIdx.x + 1) % blockDim.x];
  atomicAdd(&peer[0], 1);
  cluster.sync();
  unsigned r2 = ptx::getctarank(ptx::space_cluster, peer);
  unsigned cr, cid, cn;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(cr));
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(cid));
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(cn));
  out[blockIdx.x * blockDim.x + threadIdx.x] = v + buf[0] + (int)(r2 + cr + cid + cn + cluster.num_blocks());
}

extern "C" __global__ void cluster_barrier_asm(int* out) {
  __shared__ int val;
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x == 0) {
    val = (int)blockIdx.x;
    ptx::mbarrier_init(&bar, 1);
  }
  ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  ptx::barrier_cluster_arrive(ptx::sem_relaxed);
  ptx::barrier_cluster_wait();
  uint32_t local = static_cast<uint32_t>(__cvta_generic_to_shared(&val));
  uint32_t remote, rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank ^ 1));
  int rv;
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(rv) : "r"(remote));
  asm volatile("atom.shared::cluster.add.u32 %0, [%1], 1;" : "=r"(rv) : "r"(remote));
  uint64_t gp = reinterpret_cast<uint64_t>(&val), gremote;
  asm volatile("mapa.u64 %0, %1, %2;" : "=l"(gremote) : "l"(gp), "r"(rank ^ 1));
  uint32_t bremote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(bremote) : "r"((uint32_t)__cvta_generic_to_shared(&bar)), "r"(rank ^ 1));
  if (threadIdx.x == 0)
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(bremote) : "memory");
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
  asm volatile("fence.acq_rel.cluster;" ::: "memory");
  while (!ptx::mbarrier_try_wait_parity(ptx::sem_acquire, ptx::scope_cluster, &bar, 0u)) {
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = rv + *reinterpret_cast<int*>(gremote);
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
}

extern "C" __global__ void __cluster_dims__(4, 1, 1)
async_remote_stores(const uint32_t* in, uint32_t* out) {
  __shared__ alignas(16) uint32_t data[4];
  __shared__ alignas(16) uint64_t d64[2];
  __shared__ alignas(128) uint32_t bulk[256];
  __shared__ alignas(8) uint64_t bar;
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    data[0] = data[1] = data[2] = data[3] = 0;
  }
  bulk[threadIdx.x & 255] = in[threadIdx.x];
  ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  cluster.sync();
  unsigned peer = (rank + 1) % cluster.num_blocks();
  uint32_t* rdata = cluster.map_shared_rank(data, peer);
  uint64_t* rd64 = cluster.map_shared_rank(d64, peer);
  uint64_t* rbar = cluster.map_shared_rank(&bar, peer);
  uint32_t* rbulk = cluster.map_shared_rank(bulk, peer);
  if (threadIdx.x == 0) {
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cluster, ptx::space_shared, &bar, 16 + 16 + 8 + 4 * 3 + 1024);
    uint32_t v4[4] = {in[0], in[1], in[2], in[3]};
    ptx::st_async(rdata, v4, rbar);
    uint64_t v2[2] = {1ull, 2ull};
    ptx::st_async(rd64, v2, rbar);
    ptx::st_async(rd64, (uint64_t)7, rbar);
    ptx::red_async(ptx::op_add, rdata, 5u, rbar);
    ptx::red_async(ptx::op_inc, rdata + 1, 9u, rbar);
    ptx::red_async(ptx::op_max, reinterpret_cast<int32_t*>(rdata + 2), (int32_t)-3, rbar);
    ptx::cp_async_bulk(ptx::space_cluster, ptx::space_shared, rbulk, bulk, sizeof(bulk), rbar);
  }
  while (!ptx::mbarrier_try_wait_parity(&bar, 0u)) {
  }
  cluster.sync();
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[threadIdx.x & 3] + (uint32_t)d64[threadIdx.x & 1] + bulk[threadIdx.x & 255];
}

extern "C" __global__ void multimem_ops(float* mc_f, uint32_t* mc_u, float* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float r;
  asm volatile("multimem.ld_reduce.relaxed.sys.global.add.f32 %0, [%1];" : "=f"(r) : "l"(mc_f + t) : "memory");
  asm volatile("multimem.st.relaxed.sys.global.f32 [%0], %1;" ::"l"(mc_f + t + 1024), "f"(r) : "memory");
  asm volatile("multimem.red.relaxed.sys.global.add.u32 [%0], %1;" ::"l"(mc_u + t), "r"(1u) : "memory");
  float4 v;
  asm volatile("multimem.ld_reduce.relaxed.sys.global.add.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(mc_f + 4 * t) : "memory");
  ptx::multimem_red(ptx::sem_release, ptx::scope_gpu, ptx::op_max, mc_u + 2048 + t, (uint32_t)t);
  out[t] = r + v.x + v.y + v.z + v.w;
}
