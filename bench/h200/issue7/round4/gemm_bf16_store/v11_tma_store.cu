// C[M,N] = A[M,K] * B[N,K]^T, bf16: issue 7 round 4, v11 = v10 (bench/h200/issue7/round4/desc/
// bf16_v10_uniform_desc.cu: the expert with descriptors built once) with a TMA-store epilogue.
// Mainloop, ring, tile walk and descriptors are v10's, unchanged.
//
// Why: on the fp8 GEMM the same epilogue change (round 4 v8 -> v9, 128x128 tiles) was worth +22%:
// the register epilogue's bf16x2 global stores touch 8 rows x 16 bytes per warp instruction, and
// while both consumer warpgroups store, the tensor cores idle. Here each consumer warpgroup writes
// its 64x256 result through a 16 KiB staging buffer in two halves of 128 columns: per half,
//   1. its thread 0 waits until the previous TMA store has finished reading the buffer
//      (cp.async.bulk.wait_group.read 0) and a named barrier (id 1 + cw, 128 threads) tells the
//      warpgroup;
//   2. every thread writes its part of the half, rounded to bf16, as two 64x64 boxes in the TMA
//      128B-swizzle layout (16-byte chunk j of row r at chunk j ^ (r % 8): conflict-free 4-byte
//      st.shared);
//   3. fence.proxy.async.shared::cta, the named barrier again, and thread 0 issues the two
//      cp.async.bulk.tensor stores and commits them;
// then the warpgroup goes on to the next tile while the TMA engine writes C. The second half's
// wait is the only one inside an epilogue (a 16 KiB smem read by the TMA engine); the first half's
// waits for a store issued a whole tile earlier. TMA clips rows >= M and columns >= N.
// Shared memory: 4 stages x 48 KiB + 2 x 16 KiB staging + 1024 alignment = 230400 bytes (limit
// 232448). The C tensor map needs N % 8 == 0 (16-byte row stride); every workload has it.
//
// @ptxbench kernel gemm_wgmma_tma_ws grid=min(132, ceildiv(M,128)*ceildiv(N,256)) block=384 smem=4*(128*64+256*64)*2+2*64*128*2+1024
// @ptxbench   args tmA, tmB, tmC, M, N, K
// @ptxbench tensormap tmA tensor=A box=(128, 64) swizzle=128B
// @ptxbench tensormap tmB tensor=B box=(256, 64) swizzle=128B
// @ptxbench tensormap tmC tensor=C box=(64, 64) swizzle=128B
#include <cuda_bf16.h>
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

struct alignas(64) TensorMap { unsigned long long opaque[16]; };

#define BM 128
#define BN 256
#define BK 64
#define STAGES 4
#define GROUP_M 16
#define WAIT1 1
#define NACC (BN / 2)
#define TILE_A_BYTES (BM * BK * 2)
#define TILE_B_BYTES (BN * BK * 2)
#define STAGE_BYTES (TILE_A_BYTES + TILE_B_BYTES)
#define STG_BOX_BYTES (64 * 64 * 2)      // one 64x64 bf16 box of C, 128-byte rows
#define STG_WG_BYTES (2 * STG_BOX_BYTES) // one consumer's half tile: 64 rows x 128 columns

// The descriptor of a 128B-swizzled K-major tile is (addr >> 4) | 1 << 16 in its low word (address
// and leading offset) and a constant high word (stride 1024 B, swizzle mode). Smem addresses stay
// below 2^18, so adding (offset >> 4) to the low word never carries into the leading offset: the
// consumers build each operand's low word once and add stage and k offsets, which ptxas keeps in
// uniform registers (one UIADD3 per wgmma operand instead of a mask/shift/or chain and an R2UR).
#define DESC_HI 0x40000040u
__device__ __forceinline__ uint32_t desc_lo(uint32_t smem_addr) { return (smem_addr >> 4) | (1u << 16); }
__device__ __forceinline__ uint64_t desc_of(uint32_t lo) { return ((uint64_t)DESC_HI << 32) | lo; }

__device__ __forceinline__ uint64_t desc_sw128(uint32_t smem_addr) {
  uint64_t d = (uint64_t)((smem_addr & 0x3FFFF) >> 4);
  d |= (uint64_t)1 << 16;
  d |= (uint64_t)(1024 >> 4) << 32;
  d |= (uint64_t)1 << 62;
  return d;
}

__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
      "%128, %129, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]),
        "+f"(d[1]),
        "+f"(d[2]),
        "+f"(d[3]),
        "+f"(d[4]),
        "+f"(d[5]),
        "+f"(d[6]),
        "+f"(d[7]),
        "+f"(d[8]),
        "+f"(d[9]),
        "+f"(d[10]),
        "+f"(d[11]),
        "+f"(d[12]),
        "+f"(d[13]),
        "+f"(d[14]),
        "+f"(d[15]),
        "+f"(d[16]),
        "+f"(d[17]),
        "+f"(d[18]),
        "+f"(d[19]),
        "+f"(d[20]),
        "+f"(d[21]),
        "+f"(d[22]),
        "+f"(d[23]),
        "+f"(d[24]),
        "+f"(d[25]),
        "+f"(d[26]),
        "+f"(d[27]),
        "+f"(d[28]),
        "+f"(d[29]),
        "+f"(d[30]),
        "+f"(d[31]),
        "+f"(d[32]),
        "+f"(d[33]),
        "+f"(d[34]),
        "+f"(d[35]),
        "+f"(d[36]),
        "+f"(d[37]),
        "+f"(d[38]),
        "+f"(d[39]),
        "+f"(d[40]),
        "+f"(d[41]),
        "+f"(d[42]),
        "+f"(d[43]),
        "+f"(d[44]),
        "+f"(d[45]),
        "+f"(d[46]),
        "+f"(d[47]),
        "+f"(d[48]),
        "+f"(d[49]),
        "+f"(d[50]),
        "+f"(d[51]),
        "+f"(d[52]),
        "+f"(d[53]),
        "+f"(d[54]),
        "+f"(d[55]),
        "+f"(d[56]),
        "+f"(d[57]),
        "+f"(d[58]),
        "+f"(d[59]),
        "+f"(d[60]),
        "+f"(d[61]),
        "+f"(d[62]),
        "+f"(d[63]),
        "+f"(d[64]),
        "+f"(d[65]),
        "+f"(d[66]),
        "+f"(d[67]),
        "+f"(d[68]),
        "+f"(d[69]),
        "+f"(d[70]),
        "+f"(d[71]),
        "+f"(d[72]),
        "+f"(d[73]),
        "+f"(d[74]),
        "+f"(d[75]),
        "+f"(d[76]),
        "+f"(d[77]),
        "+f"(d[78]),
        "+f"(d[79]),
        "+f"(d[80]),
        "+f"(d[81]),
        "+f"(d[82]),
        "+f"(d[83]),
        "+f"(d[84]),
        "+f"(d[85]),
        "+f"(d[86]),
        "+f"(d[87]),
        "+f"(d[88]),
        "+f"(d[89]),
        "+f"(d[90]),
        "+f"(d[91]),
        "+f"(d[92]),
        "+f"(d[93]),
        "+f"(d[94]),
        "+f"(d[95]),
        "+f"(d[96]),
        "+f"(d[97]),
        "+f"(d[98]),
        "+f"(d[99]),
        "+f"(d[100]),
        "+f"(d[101]),
        "+f"(d[102]),
        "+f"(d[103]),
        "+f"(d[104]),
        "+f"(d[105]),
        "+f"(d[106]),
        "+f"(d[107]),
        "+f"(d[108]),
        "+f"(d[109]),
        "+f"(d[110]),
        "+f"(d[111]),
        "+f"(d[112]),
        "+f"(d[113]),
        "+f"(d[114]),
        "+f"(d[115]),
        "+f"(d[116]),
        "+f"(d[117]),
        "+f"(d[118]),
        "+f"(d[119]),
        "+f"(d[120]),
        "+f"(d[121]),
        "+f"(d[122]),
        "+f"(d[123]),
        "+f"(d[124]),
        "+f"(d[125]),
        "+f"(d[126]),
        "+f"(d[127])
      : "l"(da), "l"(db), "r"(scale_d));
}


__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n.reg .pred done;\nWAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_%=;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}

__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

__device__ __forceinline__ void tile_coords(int t, int tiles_m, int tiles_n, int &mt, int &nt) {
  const int per_group = GROUP_M * tiles_n;
  const int group = t / per_group;
  const int first_m = group * GROUP_M;
  const int gsize = min(tiles_m - first_m, GROUP_M);
  const int r = t - group * per_group;
  mt = first_m + r % gsize;
  nt = r / gsize;
}

extern "C" __global__ void __launch_bounds__(384, 1)
gemm_wgmma_tma_ws(const __grid_constant__ TensorMap tmA,
                  const __grid_constant__ TensorMap tmB,
                  const __grid_constant__ TensorMap tmC, int M, int N, int K) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ alignas(8) uint64_t full[STAGES];
  __shared__ alignas(8) uint64_t empty[STAGES];
  const uint32_t raw = (uint32_t)__cvta_generic_to_shared(smem_raw);
  const uint32_t base = (raw + 1023u) & ~1023u;
  const uint32_t fbar = (uint32_t)__cvta_generic_to_shared(&full[0]);
  const uint32_t ebar = (uint32_t)__cvta_generic_to_shared(&empty[0]);
  const int tid = threadIdx.x, wg = tid / 128;
  const int kTiles = (K + BK - 1) / BK;
  const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
  const int tiles = tiles_m * tiles_n;

  if (tid == 0) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmA) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmB) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmC) : "memory");
    for (int s = 0; s < STAGES; ++s) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(fbar + 8 * s) : "memory");
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 256;" ::"r"(ebar + 8 * s) : "memory");
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();

  if (wg == 0) {
    // Producer warpgroup: give registers back, one elected thread drives TMA.
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;" ::: "memory");
    uint32_t leader;
    asm volatile("{\n.reg .pred p;\nelect.sync _|p, 0xffffffff;\nselp.u32 %0, 1, 0, p;\n}"
                 : "=r"(leader));
    if (tid / 32 == 0 && leader) {
      int it = 0;
      for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        int mt, nt;
        tile_coords(t, tiles_m, tiles_n, mt, nt);
        const int m0 = mt * BM, n0 = nt * BN;
        for (int kt = 0; kt < kTiles; ++kt, ++it) {
          const int s = it % STAGES;
          const uint32_t ph = (uint32_t)(it / STAGES) & 1u;
          mbar_wait(ebar + 8 * s, ph ^ 1u);
          const uint32_t sA = base + s * STAGE_BYTES, sB = sA + TILE_A_BYTES;
          const uint32_t bar = fbar + 8 * s;
          asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
                       "r"(STAGE_BYTES)
                       : "memory");
          asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
                       "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(sA),
                       "l"(&tmA), "r"(kt * BK), "r"(m0), "r"(bar)
                       : "memory");
          asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
                       "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(sB),
                       "l"(&tmB), "r"(kt * BK), "r"(n0), "r"(bar)
                       : "memory");
        }
      }
    }
    return;
  }

  // Consumer warpgroups.
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;" ::: "memory");
  // Broadcast from lane 0: the same value, but ptxas now knows it is warp-uniform.
  const int cw = __shfl_sync(0xffffffffu, wg, 0) - 1;
  // Low descriptor words of stage 0: this warpgroup's 64 rows of A, and B.
  const uint32_t dA0 = desc_lo(base + cw * (64 * 128)), dB0 = desc_lo(base + TILE_A_BYTES);
  const int w = (tid % 128) / 32, l = tid % 32;
  const bool store_leader = (tid % 128) == 0; // issues and drains this warpgroup's TMA stores
  // This consumer's staging buffer, after the ring (1024-byte aligned for the 128B swizzle).
  const uint32_t stg = base + STAGES * STAGE_BYTES + cw * STG_WG_BYTES;
  float d[NACC];
#pragma unroll
  for (int i = 0; i < NACC; ++i)
    d[i] = 0.f;
  int it = 0;
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    int mt, nt;
    tile_coords(t, tiles_m, tiles_n, mt, nt);
    const int m0 = mt * BM, n0 = nt * BN;
    int prev_s = 0;
    for (int kt = 0; kt < kTiles; ++kt, ++it) {
      const int s = it % STAGES;
      const uint32_t ph = (uint32_t)(it / STAGES) & 1u;
      mbar_wait(fbar + 8 * s, ph);
      const uint32_t dA = dA0 + s * (STAGE_BYTES >> 4), dB = dB0 + s * (STAGE_BYTES >> 4);
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
      for (int k = 0; k < BK / 16; ++k)
        wgmma_m64n256k16(d, desc_of(dA + 2 * k), desc_of(dB + 2 * k), (kt > 0 || k > 0) ? 1 : 0);
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#if WAIT1
      asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
      if (kt > 0)
        mbar_arrive(ebar + 8 * prev_s);
      prev_s = s;
#else
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      mbar_arrive(ebar + 8 * s);
#endif
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#if WAIT1
    if (kTiles > 0)
      mbar_arrive(ebar + 8 * prev_s);
#endif
    // Epilogue through shared memory and TMA, two halves of 128 columns (header). Accumulator
    // layout: d[i] is row 16w + l/4 + 8*((i>>1)&1), column 8*(i>>2) + 2*(l%4) + (i&1) of this
    // consumer's 64x256 block, so half h holds d[64h .. 64h + 63]; in it, d[i], d[i+1] (i even) are
    // one bf16x2 of box (i>>5)&1, 16-byte chunk (i>>2)&7, byte 4*(l%4).
    const int row0 = m0 + cw * 64;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      if (store_leader)
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
      asm volatile("bar.sync %0, 128;" ::"r"(1 + cw) : "memory");
#pragma unroll
      for (int i = 64 * h; i < 64 * h + 64; i += 2) {
        const int r = 16 * w + l / 4 + 8 * ((i >> 1) & 1);
        const int box = (i >> 5) & 1, chunk = (i >> 2) & 7;
        const uint32_t addr = stg + box * STG_BOX_BYTES + r * 128 + ((chunk ^ (r & 7)) << 4) +
                              4 * (l % 4);
        __nv_bfloat162 v = __floats2bfloat162_rn(d[i], d[i + 1]);
        asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(*reinterpret_cast<uint32_t *>(&v))
                     : "memory");
      }
      // Each writer makes its generic-proxy stores visible to the async proxy; the barrier then
      // orders all of them before the TMA store is issued.
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      asm volatile("bar.sync %0, 128;" ::"r"(1 + cw) : "memory");
      if (store_leader && row0 < M) {
#pragma unroll
        for (int box = 0; box < 2; ++box) {
          const int col0 = n0 + 128 * h + 64 * box;
          if (col0 < N) // coordinates innermost first: (column, row)
            asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], "
                         "[%3];" ::"l"(&tmC),
                         "r"(col0), "r"(row0), "r"(stg + box * STG_BOX_BYTES)
                         : "memory");
        }
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      }
    }
  }
  // The staging buffer must stay allocated until the last TMA store has read it.
  if (store_leader)
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
