// Attention backward on Hopper's own path (FlashAttention-2/3 structure):
// TMA loads on transaction-count mbarriers, wgmma from shared-memory
// descriptors and from registers, dQ through fp32 atomics. The expert of the
// mha_bwd corpus: 0.74-0.84 of cuDNN's fused SDPA backward non-causal and
// 0.77-0.89 causal on the H200 (docs/performance.md).
// Three kernels, launched in this order (the file defines the main one first):
//
//   1. mha_bwd_prep: per query row, Delta = sum_d dO*O and LSE*log2(e) into
//      workspaces padded to a multiple of 64 rows per head. Padding rows get
//      LSE = +inf, so P = exp2(s - inf) = 0 there without any bounds test,
//      and Delta = 0.
//   2. mha_bwd_wgmma: one CTA of two warpgroups per (128-key block, h, b).
//      Warpgroup g owns keys 64g..64g+63 of the block. Thread 0 loads K and V
//      once (TMA, one mbarrier), then streams 64-query tiles of Q and dO
//      plus their LSE/Delta rows (cp.async.bulk) through a 2-stage ring of
//      transaction-count mbarriers, refilling a stage as soon as both
//      warpgroups are done with it. Per query tile, each warpgroup:
//        a. S^T = K Q^T and dP^T = V dO^T (wgmma m64n64k16, both operands
//           K-major from 128B-swizzled tiles). Computing the transposes
//           puts keys on the accumulator's rows, so P^T and dS^T are already
//           in the register layout of a wgmma A operand: no shared-memory
//           round trip for dV and dK (the FlashAttention-3 trick).
//        b. P^T = ex2.approx(S^T * scale*log2e - LSE*log2e) (0 where
//           masked); as soon as P^T is packed to bf16, dV += P^T dO is
//           issued (wgmma m64n128k16, A = the packed accumulators, B = the
//           dO tile read N-major, imm-trans-b = 1, from the same smem the
//           dP^T step read K-major), so the tensor cores work while dP^T
//           finishes and while dS^T = P^T * (dP^T - Delta) is computed.
//        c. dK += dS^T Q, the same way.
//        d. dS is also stored to shared memory (bf16, [query][key], 128B
//           swizzle, the layout TMA would give; 4 stmatrix.x4.trans from
//           the packed dS^T fragments), both warpgroups sync, and warpgroup
//           g computes dQ[:, 64g..64g+63] = dS K over all 128 keys (wgmma
//           m64n64k16, A K-major, B = K read N-major) and adds it to the
//           fp32 dq_acc workspace with red.global.add.v2.f32: other key
//           blocks add to the same rows.
//      At the end, dV and scale*dK go out through TMA stores: 8 stmatrix.x4
//      per tensor per thread into the freed Q/dO stage buffers (128B-
//      swizzled 64x64 boxes), fence.proxy.async, a named barrier per
//      warpgroup, and one thread stores the four boxes (rows >= S clipped by
//      the tensor maps tmdK, tmdV).
//   3. mha_bwd_dq_convert: dQ = bf16(scale * dq_acc).
//
// The main loop is kept short: 429 instructions per query tile on the
// unmasked path (SASS of one warp; 818 with descriptors rebuilt per wgmma and
// the scalar variants of the steps below). Wgmma descriptors are built once as
// a 32-bit low word plus a constant high word and advanced by immediates (the
// warpgroup index broadcast from lane 0 so they stay in uniform registers),
// ex2.approx.ftz replaces exp2f (one MUFU without the denormal fix-ups),
// LSE/Delta are read as float2, dS is stored with stmatrix and the dq_acc row
// pointer advances per tile. dV is issued ahead of the dS math and dK/dV
// leave through a TMA-store epilogue. Together these are worth 3-14% on the
// H200, most at S = 512-1024.
//
// Fragment layouts (warp w of a warpgroup, lane l; m64nN f32 accumulator):
// register d[i] holds row 16w + l/4 + 8*((i>>1)&1), column 8*(i>>2) +
// 2*(l%4) + (i&1). A wgmma A operand from registers for k-step t (columns
// 16t..16t+15) is the mma.sync m16n8k16 A fragment of the warp's 16 rows:
// {a0,a1}=(row l/4, cols 2(l%4)+{0,1}), {a2,a3}=(row l/4+8, same cols),
// {a4,a5} and {a6,a7} the same 8 columns further on. With rows and columns
// aligned, that is exactly accumulator registers 8t..8t+7 in order, so
// A register k = bf16x2(d[2k], d[2k+1]).
//
// Shared-memory tiles are TMA boxes of 64 rows x 64 bf16 (128 B rows,
// 128B swizzle, 1024-aligned). K-major descriptors (S^T, dP^T, dQ's A):
// SBO = 1024 (8 rows), k-step = +32 B inside the row, +8 KiB per 64 columns.
// N-major descriptors (dV/dK's B = dO/Q, dQ's B = K): SBO = 1024 (8 k-rows),
// LBO = 8192 (the next 64 columns of N, the next box), k-step = +2048 B
// (16 rows). Out-of-range rows (>= S) arrive as zeros from TMA; P is 0 for
// them (queries: LSE = +inf padding; keys and the causal mask: explicit).
// D = 128 is compiled in; the scale is 1/sqrt(128). Not tuned: no warp
// specialization, no setmaxnreg; the m64n64 wgmmas with both operands in
// shared memory (S^T, dP^T, dQ) need 128 B/clk, Hopper's shared-memory
// bandwidth, by arithmetic (not profiled).
//
// @ptxbench kernel mha_bwd_prep grid=B*H*ceildiv(S,64)*8 block=256
// @ptxbench   args O, dO, LSE, lse2, delta, S, B*H*ceildiv(S,64)*64
// @ptxbench kernel mha_bwd_wgmma grid=(ceildiv(S,128), H, B) block=256 smem=149504
// @ptxbench   args tmQ, tmK, tmV, tmdO, lse2, delta, dq_acc, tmdK, tmdV, S, H, CAUSAL
// @ptxbench kernel mha_bwd_dq_convert grid=ceildiv(B*H*S*32, 256) block=256
// @ptxbench   args dq_acc, dQ, B*H*S*32
// @ptxbench tensormap tmQ tensor=Q box=(1, 1, 64, 64) swizzle=128B
// @ptxbench tensormap tmK tensor=K box=(1, 1, 64, 64) swizzle=128B
// @ptxbench tensormap tmV tensor=V box=(1, 1, 64, 64) swizzle=128B
// @ptxbench tensormap tmdO tensor=dO box=(1, 1, 64, 64) swizzle=128B
// @ptxbench tensormap tmdK tensor=dK box=(1, 1, 64, 64) swizzle=128B
// @ptxbench tensormap tmdV tensor=dV box=(1, 1, 64, 64) swizzle=128B
// @ptxbench workspace lse2 bytes=4*B*H*ceildiv(S,64)*64
// @ptxbench workspace delta bytes=4*B*H*ceildiv(S,64)*64
// @ptxbench workspace dq_acc bytes=4*B*H*S*D zero
#include <cuda_bf16.h>
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

// The driver's CUtensorMap (cuda.h), declared here so the file needs no
// host headers: 128 opaque bytes, 64-byte aligned.
struct alignas(64) TensorMap { unsigned long long opaque[16]; };

#define HEAD_DIM 128
#define BLOCK_KEYS 128  // keys per CTA, 64 per warpgroup
#define BLOCK_QUERIES 64 // queries per pipeline stage
#define THREADS 256
#define SOFTMAX_SCALE 0.08838834764831845f // 1/sqrt(HEAD_DIM)
#define LOG2E 1.4426950408889634f

#define BOX_BYTES (64 * 64 * 2) // one TMA box: 64 rows x 128 B
// Dynamic shared memory, offsets from a 1024-aligned base. K and V: four
// boxes each, box (key half kh, column half dh) at kh*16K + dh*8K. Stage s:
// Q (two column boxes), dO (two), then LSE*log2e and Delta (64 floats each).
// dS: two boxes [64 queries][64 keys], key half kh at kh*8K.
#define OFF_K 0
#define OFF_V (4 * BOX_BYTES)
#define OFF_STAGE (8 * BOX_BYTES)
#define STAGE_TILE_BYTES (4 * BOX_BYTES) // Q + dO
#define OFF_DS (OFF_STAGE + 2 * STAGE_TILE_BYTES)
#define OFF_ROWS (OFF_DS + 2 * BOX_BYTES) // per stage: 256 B LSE, 256 B Delta
#define ROW_BYTES (2 * BLOCK_QUERIES * 4)
#define SMEM_USED (OFF_ROWS + 2 * ROW_BYTES)
static_assert(SMEM_USED + 1024 == 149504, "update smem= in the launch plan");
#define STAGE_TX_BYTES (STAGE_TILE_BYTES + ROW_BYTES)

// Shared-memory matrix descriptors of 128B-swizzled operands (1024-aligned
// swizzle atoms, so the base-offset field is 0), as a 32-bit low word plus a
// constant high word. Low word: start address >> 4 (bits 0-13), LBO >> 4
// (bits 16-29). High word: SBO = 1024 B (64 in bits 0-13), 128B swizzle
// (bit 30). A k-step's descriptor is the tile's low word plus offset >> 4:
// every operand lies below 228 KiB < 2^18 bytes of the shared window, so the
// add never carries out of the 14-bit address field.
#define DESC_HI 0x40000040u
// K-major: rows of 128 B, 8-row groups 1024 B apart (SBO); LBO unused (1).
__device__ __forceinline__ uint32_t desc_lo_kmajor(uint32_t addr) {
  return ((addr & 0x3FFFF) >> 4) | (1u << 16);
}
// N-major (MN-major): rows are k, 64 N-elements per 128 B row; 8-k groups
// 1024 B apart (SBO), the next 64 N-elements one box (8 KiB) on (LBO).
__device__ __forceinline__ uint32_t desc_lo_nmajor(uint32_t addr) {
  return ((addr & 0x3FFFF) >> 4) | ((uint32_t)(BOX_BYTES >> 4) << 16);
}
// The descriptor of the operand `off` bytes (a multiple of 16) past `lo`'s.
__device__ __forceinline__ uint64_t desc_at(uint32_t lo, uint32_t off) {
  return (uint64_t)DESC_HI << 32 | (uint64_t)(lo + (off >> 4));
}

#define ACC32(d)                                                               \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),      \
      "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]),             \
      "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),         \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),         \
      "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),         \
      "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),         \
      "+f"(d[31])

// D[64x64] (+)= A[64x16] * B[16x64], A K-major, B K-major (TransB = 0) or
// N-major (TransB = 1), both from shared memory. accumulate == 0: D = A*B.
template <int TransB>
__device__ __forceinline__ void wgmma_m64n64k16_ss(float (&d)[32], uint64_t da,
                                                   uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1, 0, %35;\n}\n"
      : ACC32(d)
      : "l"(da), "l"(db), "r"(accumulate), "n"(TransB));
}

// D[64x128] += A[64x16] * B[16x128], A from registers (4 x bf16x2 per
// thread), B N-major from shared memory.
__device__ __forceinline__ void wgmma_m64n128k16_rs(float (&d)[64], uint32_t a0,
                                                    uint32_t a1, uint32_t a2,
                                                    uint32_t a3, uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n" // scale-d: D = A*B + D
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "{%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"
      : ACC32(d), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
        "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),
        "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]),
        "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]),
        "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]),
        "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(db), "n"(1));
}

__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N> __device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
// Pins accumulator registers in program order (emits nothing): the compiler
// may not move their reads above a wgmma.wait_group, nor their writes below
// a wgmma.fence, since it sees no other dependency between them.
template <int N> __device__ __forceinline__ void fence_regs(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i)
    asm volatile("" : "+f"(d[i])::"memory");
}
// The same for A fragments: keeps them live (unmodified) until the
// wgmma.wait_group that covers the wgmmas reading them.
template <int N> __device__ __forceinline__ void fence_regs(uint32_t (&a)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i)
    asm volatile("" : "+r"(a[i])::"memory");
}

__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n.reg .pred done;\nWAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_%=;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}

__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
               "r"(bytes)
               : "memory");
}

// One 64x64 box of a [B, H, S, D] tensor; coordinates innermost first.
__device__ __forceinline__ void tma_box(uint32_t dst, const TensorMap *map,
                                        int d0, int s0, int h, int b,
                                        uint32_t bar) {
  asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];" ::"r"(dst),
               "l"(map), "r"(d0), "r"(s0), "r"(h), "r"(b), "r"(bar)
               : "memory");
}

// A contiguous, 16-byte aligned run of global memory into shared memory.
__device__ __forceinline__ void bulk_copy(uint32_t dst, const void *src,
                                          uint32_t bytes, uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
               "[%0], [%1], %2, [%3];" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}

// Two adjacent fp32 partial sums (8-byte aligned) added to global memory in
// one reduction (sm_90 vector red): half the atomic instructions of two
// scalar atomicAdds, and each warp's 8 rows x 32 B become whole-sector ops.
__device__ __forceinline__ void red_add_v2(float *dst, float a, float b) {
  asm volatile("red.relaxed.gpu.global.add.v2.f32 [%0], {%1, %2};" ::"l"(dst), "f"(a),
               "f"(b)
               : "memory");
}

__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi); // .x (low half) = lo
  return *reinterpret_cast<uint32_t *>(&v);
}

// 2^x in one MUFU.EX2, subnormal results flushed to 0 (exp2f adds a
// compare and two predicated multiplies to produce them; a probability
// below 2^-126 contributes nothing at bf16 precision). ex2(-inf) = +0.
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// Four 8x8 bf16 matrices into shared memory (no transpose): lane 8k + r
// gives the address of row r of matrix k; register k holds the fragment
// (row l/4, columns 2(l%4), +1) of matrix k.
__device__ __forceinline__ void stmatrix_x4(uint32_t addr, uint32_t r0, uint32_t r1, uint32_t r2,
                                            uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

// One 64x64 box from shared memory to a [B, H, S, D] tensor (TMA store);
// rows past the tensor's extent are not written.
__device__ __forceinline__ void tma_store_box(const TensorMap *map, uint32_t src, int d0, int s0,
                                              int h, int b) {
  asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5}], "
               "[%1];" ::"l"(map),
               "r"(src), "r"(d0), "r"(s0), "r"(h), "r"(b)
               : "memory");
}

// Four 8x8 bf16 matrices, transposed on the way into shared memory: lane
// 8k + r gives the address of row r of matrix k; register k holds the
// mma-fragment (row l/4, columns 2(l%4), +1) of matrix k.
__device__ __forceinline__ void stmatrix_x4_trans(uint32_t addr, uint32_t r0, uint32_t r1,
                                                  uint32_t r2, uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

extern "C" __global__ void __launch_bounds__(THREADS, 1)
mha_bwd_wgmma(const __grid_constant__ TensorMap tmQ,
              const __grid_constant__ TensorMap tmK,
              const __grid_constant__ TensorMap tmV,
              const __grid_constant__ TensorMap tmdO,
              const float *__restrict__ lse2, const float *__restrict__ delta,
              float *__restrict__ dq_acc, const __grid_constant__ TensorMap tmdK,
              const __grid_constant__ TensorMap tmdV, int S, int H, int causal) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ alignas(8) uint64_t kv_bar, full_bar[2];
  // Swizzled tiles must start on a 1024-byte boundary.
  const uint32_t raw = (uint32_t)__cvta_generic_to_shared(smem_raw);
  const uint32_t base = (raw + 1023u) & ~1023u;
  unsigned char *gbase = smem_raw + (base - raw); // generic view of `base`
  const uint32_t kvBar = (uint32_t)__cvta_generic_to_shared(&kv_bar);
  const uint32_t fullBar = (uint32_t)__cvta_generic_to_shared(&full_bar[0]);

  const int tid = threadIdx.x, wg = tid / 128, warp = (tid % 128) / 32,
            lane = tid % 32;
  const int h = blockIdx.y, b = blockIdx.z, bh = b * H + h;
  const int k0 = blockIdx.x * BLOCK_KEYS;
  const int Spad = (S + BLOCK_QUERIES - 1) / BLOCK_QUERIES * BLOCK_QUERIES;
  // Causal: queries below k0 see none of these keys; start at the diagonal.
  const int firstTile = causal ? k0 / BLOCK_QUERIES : 0;
  const int numIters = Spad / BLOCK_QUERIES - firstTile; // >= 1 as k0 < S
  const float *lse2Head = lse2 + (size_t)bh * Spad;
  const float *deltaHead = delta + (size_t)bh * Spad;

  // Thread 0: arm stage s for query tile q0 and start its five copies.
  auto loadStage = [&](int s, int q0) {
    const uint32_t bar = fullBar + 8 * s;
    const uint32_t tiles = base + OFF_STAGE + s * STAGE_TILE_BYTES;
    const uint32_t rows = base + OFF_ROWS + s * ROW_BYTES;
    mbar_expect_tx(bar, STAGE_TX_BYTES);
#pragma unroll
    for (int dh = 0; dh < 2; ++dh) {
      tma_box(tiles + dh * BOX_BYTES, &tmQ, 64 * dh, q0, h, b, bar);
      tma_box(tiles + (2 + dh) * BOX_BYTES, &tmdO, 64 * dh, q0, h, b, bar);
    }
    bulk_copy(rows, lse2Head + q0, BLOCK_QUERIES * 4, bar);
    bulk_copy(rows + BLOCK_QUERIES * 4, deltaHead + q0, BLOCK_QUERIES * 4, bar);
  };

  if (tid == 0) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmQ) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmK) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmV) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmdO) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmdK) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmdV) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(kvBar) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(fullBar) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(fullBar + 8)
                 : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (tid == 0) {
    mbar_expect_tx(kvBar, 8 * BOX_BYTES);
#pragma unroll
    for (int kh = 0; kh < 2; ++kh)
#pragma unroll
      for (int dh = 0; dh < 2; ++dh) {
        const uint32_t box = (2 * kh + dh) * BOX_BYTES;
        tma_box(base + OFF_K + box, &tmK, 64 * dh, k0 + 64 * kh, h, b, kvBar);
        tma_box(base + OFF_V + box, &tmV, 64 * dh, k0 + 64 * kh, h, b, kvBar);
      }
    for (int s = 0; s < 2 && s < numIters; ++s)
      loadStage(s, (firstTile + s) * BLOCK_QUERIES);
  }

  float dv[64], dk[64];
#pragma unroll
  for (int i = 0; i < 64; ++i)
    dv[i] = dk[i] = 0.f;
  fence_regs(dv);
  fence_regs(dk);

  // The warpgroup index, broadcast from lane 0, is provably warp-uniform
  // (tid / 128 is too, but ptxas cannot see it), so every shared address and
  // descriptor word derived from it lives in uniform registers: HGMMA reads
  // its descriptors from there, and no R2UR is needed per wgmma.
  const uint32_t wgu = __shfl_sync(0xffffffffu, (uint32_t)wg, 0);
  // This warpgroup's 64 keys: rows 64*wg.. of the K and V tiles.
  const uint32_t myK = base + OFF_K + wgu * 2 * BOX_BYTES;
  const uint32_t myV = base + OFF_V + wgu * 2 * BOX_BYTES;
  const uint32_t sDS = base + OFF_DS;
  // Descriptor low words fixed for the whole kernel: S^T's and dP^T's A (K,
  // V, K-major), dQ's A (dS, K-major) and dQ's B (K columns 64*wg.., N-major).
  const uint32_t kLo = desc_lo_kmajor(myK), vLo = desc_lo_kmajor(myV);
  const uint32_t dsLo = desc_lo_kmajor(sDS);
  const uint32_t kColLo = desc_lo_nmajor(base + OFF_K + wgu * BOX_BYTES);
  // Stage 0's Q tile; stage s is STAGE_TILE_BYTES further on.
  const uint32_t stage0 = base + OFF_STAGE;
  const float scaleLog2 = SOFTMAX_SCALE * LOG2E;

  // dS^T goes to shared memory as dS[query][key] (box `wg`, 128B swizzle)
  // with stmatrix.x4.trans number n storing dsf[4n..4n+3]: lane 8j + r gives
  // row r of matrix j, i.e. query 8(2n + j/2) + r, key chunk 2*warp + (j&1)
  // (16 bytes, swizzled by query % 8 = r). Per n the query moves by 16 rows.
  const uint32_t dsStore =
      sDS + wgu * BOX_BYTES + (8 * ((lane / 8) >> 1) + lane % 8) * 128 +
      ((uint32_t)((2 * warp + ((lane / 8) & 1)) ^ (lane % 8)) << 4);
  // dq_acc row of this thread's first dQ row (query q0 + 16*warp + l/4) at
  // the first tile; advanced by 64 rows per tile.
  float *dqRow = dq_acc +
                 ((size_t)bh * S + firstTile * BLOCK_QUERIES + 16 * warp + lane / 4) * HEAD_DIM +
                 64 * wg + 2 * (lane % 4);
  mbar_wait(kvBar, 0);

  for (int it = 0; it < numIters; ++it, dqRow += BLOCK_QUERIES * HEAD_DIM) {
    const int s = it & 1;
    const int q0 = (firstTile + it) * BLOCK_QUERIES;
    const uint32_t sQ = stage0 + s * STAGE_TILE_BYTES;
    const uint32_t sdO = sQ + 2 * BOX_BYTES;
    const uint32_t qLo = desc_lo_kmajor(sQ), doLo = desc_lo_kmajor(sdO);
    const uint32_t qNLo = desc_lo_nmajor(sQ), doNLo = desc_lo_nmajor(sdO);
    // The LSE*log2e and Delta rows of the stage as float2: this thread's
    // query columns come in adjacent pairs 8j + 2(l%4), +1.
    const float2 *rowLse2 =
        reinterpret_cast<const float2 *>(gbase + OFF_ROWS + s * ROW_BYTES) + lane % 4;
    const float2 *rowDelta2 = rowLse2 + BLOCK_QUERIES / 2;
    mbar_wait(fullBar + 8 * s, (it >> 1) & 1);

    // a. S^T = K Q^T and dP^T = V dO^T: 64 keys x 64 queries, k = d (8 steps;
    // steps 4..7 are in the second column box).
    float sacc[32], pacc[32];
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < HEAD_DIM / 16; ++kk) {
      const uint32_t off = (kk / 4) * BOX_BYTES + 32 * (kk % 4);
      wgmma_m64n64k16_ss<0>(sacc, desc_at(kLo, off), desc_at(qLo, off), kk > 0);
    }
    wgmma_commit();
#pragma unroll
    for (int kk = 0; kk < HEAD_DIM / 16; ++kk) {
      const uint32_t off = (kk / 4) * BOX_BYTES + 32 * (kk % 4);
      wgmma_m64n64k16_ss<0>(pacc, desc_at(vLo, off), desc_at(doLo, off), kk > 0);
    }
    wgmma_commit();

    // b. P^T (in place of S^T) while dP^T is still running. Element i: key
    // 64*wg + 16*warp + l/4 + 8*((i>>1)&1), query q0 + 8*(i>>2) + 2*(l%4) + (i&1).
    wgmma_wait<1>();
    fence_regs(sacc);
    const bool needMask = (causal && q0 < k0 + BLOCK_KEYS) || k0 + BLOCK_KEYS > S;
    const int keyBase = k0 + 64 * wg + 16 * warp + lane / 4;
    if (!needMask) {
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const float2 l2 = rowLse2[4 * j];
#pragma unroll
        for (int e = 0; e < 4; ++e)
          sacc[4 * j + e] =
              fast_exp2(fmaf(sacc[4 * j + e], scaleLog2, -((e & 1) ? l2.y : l2.x)));
      }
    } else {
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const float2 l2 = rowLse2[4 * j];
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int i = 4 * j + e;
          const int key = keyBase + 8 * ((i >> 1) & 1);
          const int query = q0 + 8 * j + 2 * (lane % 4) + (e & 1);
          const float p = fast_exp2(fmaf(sacc[i], scaleLog2, -((e & 1) ? l2.y : l2.x)));
          sacc[i] = (key >= S || (causal && key > query)) ? 0.f : p;
        }
      }
    }
    // c. dV += P^T dO now, while dP^T may still be running: A = the
    // bf16 pairs of consecutive accumulator registers of P^T.
    uint32_t pf[16], dsf[16];
#pragma unroll
    for (int k = 0; k < 16; ++k)
      pf[k] = pack_bf16x2(sacc[2 * k], sacc[2 * k + 1]);
    wgmma_fence();
#pragma unroll
    for (int t = 0; t < BLOCK_QUERIES / 16; ++t)
      wgmma_m64n128k16_rs(dv, pf[4 * t], pf[4 * t + 1], pf[4 * t + 2], pf[4 * t + 3],
                          desc_at(doNLo, 2048 * t));
    wgmma_commit();

    // dP^T is done once at most the dV group is pending. dS^T from the fp32
    // P^T (sacc: the wgmmas read pf, not sacc, so sacc is free to read).
    wgmma_wait<1>();
    fence_regs(pacc);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const float2 d2 = rowDelta2[4 * j];
#pragma unroll
      for (int e = 0; e < 4; ++e) // dS^T
        pacc[4 * j + e] = sacc[4 * j + e] * (pacc[4 * j + e] - ((e & 1) ? d2.y : d2.x));
    }
#pragma unroll
    for (int k = 0; k < 16; ++k)
      dsf[k] = pack_bf16x2(pacc[2 * k], pacc[2 * k + 1]);
    // d (first half). dS[query][key] into box `wg` of the dS tile, from the
    // packed fragments (the same bf16 values the dK wgmma reads).
#pragma unroll
    for (int n = 0; n < 4; ++n)
      stmatrix_x4_trans(dsStore + n * 16 * 128, dsf[4 * n], dsf[4 * n + 1], dsf[4 * n + 2],
                        dsf[4 * n + 3]);
    // The dS stores are read by wgmma through the async proxy.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");

    // The stmatrix stores read dsf before the dK wgmmas are issued: reading
    // an A fragment of an in-flight wgmma is undefined behaviour (PTX ISA).
    wgmma_fence();
#pragma unroll
    for (int t = 0; t < BLOCK_QUERIES / 16; ++t)
      wgmma_m64n128k16_rs(dk, dsf[4 * t], dsf[4 * t + 1], dsf[4 * t + 2], dsf[4 * t + 3],
                          desc_at(qNLo, 2048 * t));
    wgmma_commit();

    // d. Both halves of dS are in shared memory after this barrier.
    __syncthreads();
    // No zeroing: the first k-step runs with scale-d = 0 (D = A*B). Zeroing
    // here would put register writes between the fence and the wgmma.
    float dq[32];
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BLOCK_KEYS / 16; ++kk) {
      // A = dS (K-major, key half kk/4); B = K rows 16kk.., columns 64*wg..
      const uint32_t a = (kk / 4) * BOX_BYTES + 32 * (kk % 4);
      const uint32_t bk = (kk / 4) * 2 * BOX_BYTES + 2048 * (kk % 4);
      wgmma_m64n64k16_ss<1>(dq, desc_at(dsLo, a), desc_at(kColLo, bk), kk > 0);
    }
    wgmma_commit();
    wgmma_wait<0>(); // dV, dK and dQ of this tile are done
    fence_regs(dq);
    fence_regs(dv);
    fence_regs(dk);
    fence_regs(pf);
    fence_regs(dsf);

    // dq[i]: query q0 + 16*warp + l/4 + 8*((i>>1)&1), column 64*wg + 8*(i>>2)
    // + 2*(l%4) + (i&1). Rows past S belong to the next head: skip them.
#pragma unroll
    for (int hr = 0; hr < 2; ++hr) {
      const int query = q0 + 16 * warp + lane / 4 + 8 * hr;
      if (query < S) {
        float *row = dqRow + 8 * hr * HEAD_DIM;
#pragma unroll
        for (int j = 0; j < 8; ++j)
          red_add_v2(row + 8 * j, dq[4 * j + 2 * hr], dq[4 * j + 2 * hr + 1]);
      }
    }

    // Both warpgroups are done with stage s and the dS tile: refill s.
    __syncthreads();
    if (tid == 0 && it + 2 < numIters)
      loadStage(s, (firstTile + it + 2) * BLOCK_QUERIES);
  }

  // Epilogue. After the last tile's closing __syncthreads every stage has
  // been consumed and no load is in flight (stages are refilled only for
  // it + 2 < numIters), so the Q/dO stage buffers (64 KiB) are free: dV of
  // warpgroup g goes to OFF_STAGE + 16K*g, scale*dK to OFF_STAGE + 32K +
  // 16K*g, each as two 64x64 boxes (column halves), 128B-swizzled.
  // Accumulator register pair (4j + 2hr, +1) of lane l holds row (key)
  // 16*warp + 8hr + l/4, columns 8j + 2(l%4), +1: the stmatrix fragment of the
  // 8x8 matrix (rows 16*warp + 8hr.., columns 8j..). stmatrix.x4 number m
  // stores matrices k = 0..3 = (hr = k&1, j = 2m + k/2); lane 8k + r gives the
  // address of row r of matrix k: box j/8, row 16*warp + 8(k&1) + r, 16-byte
  // chunk (j%8) ^ r (the swizzle XORs the chunk with row % 8 = r).
  {
    const int k = lane / 8, r = lane % 8;
    const uint32_t rowOff = (uint32_t)(16 * warp + 8 * (k & 1) + r) * 128;
    const uint32_t dvBase = base + OFF_STAGE + wgu * 2 * BOX_BYTES;
    const uint32_t dkBase = dvBase + 4 * BOX_BYTES;
#pragma unroll
    for (int m = 0; m < 8; ++m) {
      const int j = 2 * m + (k >> 1);
      const uint32_t off = (j / 8) * BOX_BYTES + rowOff + ((uint32_t)((j % 8) ^ r) << 4);
      // Register k = matrix k = (hr, j) = (k&1, 2m + k/2): accumulators
      // 4j + 2hr, +1 = 8m + 2k, +1.
      stmatrix_x4(dvBase + off, pack_bf16x2(dv[8 * m], dv[8 * m + 1]),
                  pack_bf16x2(dv[8 * m + 2], dv[8 * m + 3]),
                  pack_bf16x2(dv[8 * m + 4], dv[8 * m + 5]),
                  pack_bf16x2(dv[8 * m + 6], dv[8 * m + 7]));
      stmatrix_x4(dkBase + off,
                  pack_bf16x2(SOFTMAX_SCALE * dk[8 * m], SOFTMAX_SCALE * dk[8 * m + 1]),
                  pack_bf16x2(SOFTMAX_SCALE * dk[8 * m + 2], SOFTMAX_SCALE * dk[8 * m + 3]),
                  pack_bf16x2(SOFTMAX_SCALE * dk[8 * m + 4], SOFTMAX_SCALE * dk[8 * m + 5]),
                  pack_bf16x2(SOFTMAX_SCALE * dk[8 * m + 6], SOFTMAX_SCALE * dk[8 * m + 7]));
    }
  }
  // The TMA (async proxy) reads what these generic-proxy stores wrote.
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  // The warpgroup's 128 threads (named barrier 1 + wg; 0 is __syncthreads).
  asm volatile("bar.sync %0, 128;" ::"r"(1 + wg) : "memory");
  // One thread per warpgroup stores its 64 keys; boxes wholly past S (the
  // second warpgroup of a ragged last block) are skipped, partial ones are
  // clipped at S by the tensor map.
  const int key0 = k0 + 64 * wg;
  if (tid % 128 == 0 && key0 < S) {
    const uint32_t dvBase = base + OFF_STAGE + wgu * 2 * BOX_BYTES;
#pragma unroll
    for (int dh = 0; dh < 2; ++dh) {
      tma_store_box(&tmdV, dvBase + dh * BOX_BYTES, 64 * dh, key0, h, b);
      tma_store_box(&tmdK, dvBase + (4 + dh) * BOX_BYTES, 64 * dh, key0, h, b);
    }
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    // The shared memory must outlive the reads of the stores.
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}

// Per query row of the [B*H, Spad] padded layout (Spad = S rounded up to 64):
// Delta = dot(dO, O) and LSE * log2(e); padding rows: +inf and 0. One warp
// per row, 4 columns per lane.
extern "C" __global__ void __launch_bounds__(THREADS)
mha_bwd_prep(const __nv_bfloat16 *__restrict__ O,
             const __nv_bfloat16 *__restrict__ dO,
             const float *__restrict__ LSE, float *__restrict__ lse2,
             float *__restrict__ delta, int S, int paddedRows) {
  const int row = blockIdx.x * (THREADS / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= paddedRows)
    return;
  const int Spad = (S + BLOCK_QUERIES - 1) / BLOCK_QUERIES * BLOCK_QUERIES;
  const int bh = row / Spad, i = row % Spad;
  if (i >= S) {
    if (lane == 0) {
      lse2[row] = __int_as_float(0x7f800000); // +inf: P = 0 for this row
      delta[row] = 0.f;
    }
    return;
  }
  const size_t src = ((size_t)bh * S + i) * HEAD_DIM + 4 * lane;
  const uint2 o = *reinterpret_cast<const uint2 *>(O + src);
  const uint2 g = *reinterpret_cast<const uint2 *>(dO + src);
  const float2 o0 = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&o.x));
  const float2 o1 = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&o.y));
  const float2 g0 = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&g.x));
  const float2 g1 = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&g.y));
  float sum = o0.x * g0.x + o0.y * g0.y + o1.x * g1.x + o1.y * g1.y;
#pragma unroll
  for (int off = 16; off > 0; off /= 2)
    sum += __shfl_xor_sync(0xffffffffu, sum, off);
  if (lane == 0) {
    delta[row] = sum;
    lse2[row] = LSE[(size_t)bh * S + i] * LOG2E;
  }
}

// dQ = bf16(scale * acc), four elements per thread.
extern "C" __global__ void __launch_bounds__(THREADS)
mha_bwd_dq_convert(const float *__restrict__ acc, __nv_bfloat16 *__restrict__ dQ,
                   int quads) {
  const int i = blockIdx.x * THREADS + threadIdx.x;
  if (i >= quads)
    return;
  const float4 v = reinterpret_cast<const float4 *>(acc)[i];
  __nv_bfloat162 *out = reinterpret_cast<__nv_bfloat162 *>(dQ) + 2 * i;
  out[0] = __floats2bfloat162_rn(SOFTMAX_SCALE * v.x, SOFTMAX_SCALE * v.y);
  out[1] = __floats2bfloat162_rn(SOFTMAX_SCALE * v.z, SOFTMAX_SCALE * v.w);
}
