// Attention forward with the log-sum-exp on Blackwell's own path (sm_100a): O = softmax(Q K^T /
// sqrt(D)) V and LSE = ln(sum_j exp(Q K^T / sqrt(D))), bf16 Q, K, V, O [B, H, S, D], fp32 LSE
// [B, H, S], D in {64, 128, 256} and CAUSAL (top-left aligned, key j <= query i) read at run
// time: one kernel serves every mha_fwd_lse_h48_* task. Both matrix products run on tcgen05.mma
// with their accumulators in tensor memory. Statically checked only (not yet run on a B200): written
// to be correct by construction; the reasoning is in the comments. Simple rather than fast.
//
// One CTA per (128 query rows, h, b); 192 threads in three roles.
//  - warp 4, lane 0, the TMA producer: the Q tile once (q_full), then K and V tiles of BN keys
//    into a 2-stage ring (k_full[s], v_full[s]: transaction-count mbarriers armed with
//    mbarrier.arrive.expect_tx); a stage is refilled after kv_empty[s] completes. 4-D maps,
//    coordinates innermost first (d, s, h, b); rows past S are zero-filled (the map's S extent is
//    S, so a box never reads the next head, and every box starts at a row < S).
//  - warp 5, lane 0, the MMA issuer, per KV tile j:
//      S = Q K^T    D/16 tcgen05.mma kind::f16 M128 N=BN K16, A = Q and B = K both K-major,
//                   into TMEM columns [S_COL, S_COL + BN); commit -> s_full.
//      wait p_full  (the softmax warps have read S, written P to shared memory, rescaled O)
//      O += P V     BN/16 MMAs M128 N=D K16, A = P (K-major, shared memory), B = V MN-major,
//                   into TMEM columns [0, D); commit -> kv_empty[s] (K and V of the stage are
//                   read) and -> pv_done.
//    The next tile's S = Q K^T is issued right after this tile's P V. tcgen05.commit tracks all
//    of the thread's earlier MMAs, so s_full of tile j + 1 also waits for P V of tile j: the
//    products run back to back on the tensor core, but the softmax does not overlap them (that
//    needs a second S buffer in TMEM and S(j + 1) issued before P V(j), as FA4 does).
//  - warps 0-3, softmax and epilogue: thread t owns tile row t = TMEM lane t (warp w may only
//    touch lanes 32w..32w+31), so a row's max and sum need no shuffles. Per tile j: wait s_full;
//    pass 1 reads the S row (tcgen05.ld.32x32b.x32, 32 columns at a time) for the masked row
//    max; then wait pv_done of tile j - 1 (P's buffer and O are free again); pass 2 re-reads S,
//    forms p = 2^(x - m) and the row sum, and writes P as bf16 into the 128B-swizzled K-major
//    layout the MMA's descriptor describes; if any row of the warp has a new max, O is rescaled
//    in TMEM (tcgen05.ld, multiply, tcgen05.st, wait::st). Then fence.proxy.async (P was written
//    by the generic proxy, the MMA reads through the async proxy), tcgen05.fence::
//    before_thread_sync, arrive on p_full. Epilogue: wait pv_done of the last tile, read O, scale
//    by 1/l, store bf16 (16-byte stores, one row per thread), LSE = (m + log2 l) * ln 2.
//  Softmax in the log2 domain: x = s * log2(e)/sqrt(D), masked to -inf for keys >= S and (causal)
//  keys > row; m_new = max(m, rowmax x), corr = 2^(m - m_new), l = l * corr + rowsum p.
//
// Tile sizes and memory (BM = 128 query rows; BN = 128 keys for D <= 128, 64 for D = 256):
//   shared: Q 256*D B, 2 stages x (K + V) of BN*D*2 B each, P 128*BN*2 B, 1024-byte aligned:
//           113 KiB (D 64), 193 KiB (D 128), 209 KiB (D 256), as the plan's smem expression says.
//   TMEM:   O in columns [0, D), S in [S_COL, S_COL + BN) with S_COL = max(D, 128); 256 columns
//           allocated for D <= 128, 512 for D = 256 (one CTA per SM there, by shared memory too).
// Every tile is stored as column blocks of 64 elements (128-byte rows, the 128B swizzle span):
// block cb of an R-row tile starts at cb * R * 128 bytes; 16-byte chunk c of row r sits at chunk
// c ^ (r % 8) (address bits 4-6 ^= bits 7-9 of a 1024-byte aligned block), as TMA writes it.
//  - K-major operand (Q, K, P): start = block + 32 bytes per k16 step inside the row, LBO unused
//    (1), SBO = 1024 (8 rows x 128 B).
//  - MN-major operand (V as B of P V: K = keys, N = head dim, contiguous): canonical layout
//    ((64 N-elements, n blocks), (8 K-rows, k groups)) : ((1, LBO), (128 B, SBO)) with
//    LBO = BN * 128 (next 64-column block), SBO = 1024 (next 8 keys); a k16 step advances the
//    start by 16 keys x 128 B = 2048 B.
//
// Causal: CTAs take query tiles from the last (longest) to the first; a CTA loads keys [0,
// min(S, q0 + 128)) only. Not done (next steps for speed): FA4's ping-pong of two query tiles,
// P kept in TMEM (A operand from TMEM) instead of shared memory, conditional rescaling with a
// threshold, a correction warpgroup, a TMA store of O, persistent scheduling.
//
// @ptxbench kernel mha_fwd_tcgen05_tma grid=(ceildiv(S, 128), H, B) block=192 smem=256*D+8*min(128*D, 16384)+256*min(128, 16384/D)+1024
// @ptxbench   args tmQ, tmK, tmV, O, LSE, B, H, S, D, CAUSAL
// @ptxbench tensormap tmQ tensor=Q box=(1, 1, 128, 64) swizzle=128B
// @ptxbench tensormap tmK tensor=K box=(1, 1, min(128, 16384/D), 64) swizzle=128B
// @ptxbench tensormap tmV tensor=V box=(1, 1, min(128, 16384/D), 64) swizzle=128B
#include <cuda_bf16.h>
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

// The driver's CUtensorMap (cuda.h), declared here so the file needs no host headers.
struct alignas(64) TensorMap { unsigned long long opaque[16]; };

#define BM 128 // query rows per CTA = TMEM lanes = softmax threads
#define SOFTMAX_THREADS 128
#define PRODUCER_WARP 4
#define MMA_WARP 5
#define NEG_INF __int_as_float(0xff800000) // -inf (NVRTC has no <math.h> INFINITY)

// Barrier slots in the static mbarrier array.
enum { Q_FULL = 0, K_FULL = 1, V_FULL = 3, KV_EMPTY = 5, S_FULL = 7, P_FULL = 8, PV_DONE = 9,
       NUM_BARS = 10 };

// Tile configuration per head dimension.
template <int D> struct Cfg {
  static constexpr int BN = D <= 128 ? 128 : 64;           // keys per KV tile
  static constexpr uint32_t Q_BYTES = BM * D * 2;
  static constexpr uint32_t KV_BYTES = BN * D * 2;         // one K (or V) tile
  static constexpr uint32_t STAGE_BYTES = 2 * KV_BYTES;    // K then V
  static constexpr uint32_t P_OFF = Q_BYTES + 2 * STAGE_BYTES;
  static constexpr uint32_t O_COL = 0;
  static constexpr uint32_t S_COL = D > 128 ? D : 128;
  static constexpr uint32_t TMEM_COLS = D > 128 ? 512 : 256; // power of 2 >= S_COL + BN
  // kind::f16 instruction descriptors: D f32 (bits 4-5 = 1), A and B bf16 (bits 7-9, 10-12 = 1),
  // N >> 3 in bits 17-22, M >> 4 in bits 24-28. S = Q K^T: both K-major. O += P V: B (= V) is
  // MN-major (bit 16).
  static constexpr uint32_t IDESC_S = (1u << 4) | (1u << 7) | (1u << 10) |
                                      ((uint32_t)(BN >> 3) << 17) | ((uint32_t)(BM >> 4) << 24);
  static constexpr uint32_t IDESC_O = (1u << 4) | (1u << 7) | (1u << 10) | (1u << 16) |
                                      ((uint32_t)(D >> 3) << 17) | ((uint32_t)(BM >> 4) << 24);
};

// ---------------------------------------------------------------------------------------------
// Shared-memory matrix descriptors (sm_100 layout: the fixed 0b001 in bits 46-48, 128B swizzle
// = 2 in bits 61-63; tiles are 1024-byte aligned so the base-offset field stays 0).

__device__ __forceinline__ uint64_t desc_sw128(uint32_t smem_addr, uint32_t lbo_bytes) {
  uint64_t d = (uint64_t)((smem_addr & 0x3FFFF) >> 4);
  d |= (uint64_t)((lbo_bytes >> 4) & 0x3FFF) << 16;
  d |= (uint64_t)(1024 >> 4) << 32; // SBO: 8 rows x 128 B
  d |= (uint64_t)1 << 46;
  d |= (uint64_t)2 << 61;
  return d;
}
// K-major, 128-byte rows: LBO unused (1 by convention).
__device__ __forceinline__ uint64_t desc_kmajor(uint32_t smem_addr) {
  return desc_sw128(smem_addr, 16);
}

// ---------------------------------------------------------------------------------------------
// mbarriers, TMA, tcgen05.

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  asm volatile("{\n.reg .pred done;\nWAIT_%=:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra WAIT_%=;\n}\n" ::"r"(bar),
               "r"(parity)
               : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}

// An [ROWS x D] tile as D/64 boxes of ROWS x 64 elements (the plan's boxes), one column block
// each. The transaction count is the full box even where TMA zero-fills rows past S.
template <int D, int ROWS>
__device__ __forceinline__ void tma_load_tile(uint32_t dst, const TensorMap *map, int s0, int h,
                                              int b, uint32_t bar) {
#pragma unroll
  for (int cb = 0; cb < D / 64; ++cb)
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4, %5}], [%6];" ::"r"(dst + cb * (ROWS * 128)),
                 "l"(map), "r"(cb * 64), "r"(s0), "r"(h), "r"(b), "r"(bar)
                 : "memory");
}

__device__ __forceinline__ void tc_fence_before() {
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
}
__device__ __forceinline__ void tc_fence_after() {
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
}
// One arrival on the mbarrier once every tcgen05 operation this thread issued so far is done.
__device__ __forceinline__ void tc_commit(uint32_t bar) {
  asm volatile(
      "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(bar)
      : "memory");
}
// D (+)= A * B, kind::f16, A and B from shared-memory descriptors; accumulate = 0 overwrites D.
__device__ __forceinline__ void mma_f16(uint32_t d_tmem, uint64_t da, uint64_t db, uint32_t idesc,
                                        uint32_t accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
               "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}\n" ::"r"(d_tmem),
               "l"(da), "l"(db), "r"(idesc), "r"(accumulate)
               : "memory");
}

#define REGS32(p, r)                                                                              \
  p(r[0]), p(r[1]), p(r[2]), p(r[3]), p(r[4]), p(r[5]), p(r[6]), p(r[7]), p(r[8]), p(r[9]),       \
      p(r[10]), p(r[11]), p(r[12]), p(r[13]), p(r[14]), p(r[15]), p(r[16]), p(r[17]), p(r[18]),   \
      p(r[19]), p(r[20]), p(r[21]), p(r[22]), p(r[23]), p(r[24]), p(r[25]), p(r[26]), p(r[27]),   \
      p(r[28]), p(r[29]), p(r[30]), p(r[31])
#define OUT_R(x) "=r"(x)
#define IN_R(x) "r"(x)
#define LIST32                                                                                    \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, "   \
  "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"

// 32 consecutive fp32 columns of this warp's 32 lanes (thread l <-> lane base + l), waited for.
__device__ __forceinline__ void tmem_load32(uint32_t taddr, uint32_t (&r)[32]) {
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x32.b32 " LIST32 ", [%32];"
               : REGS32(OUT_R, r)
               : "r"(taddr)
               : "memory");
  asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
}
// The reverse; the caller waits (tcgen05.wait::st) before anything else may read the columns.
__device__ __forceinline__ void tmem_store32(uint32_t taddr, const uint32_t (&r)[32]) {
  asm volatile("tcgen05.st.sync.aligned.32x32b.x32.b32 [%32], " LIST32 ";" ::REGS32(IN_R, r),
               "r"(taddr)
               : "memory");
}

__device__ __forceinline__ float fast_exp2(float x) { // 2^x; 2^-inf = +0
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) { // lo -> bits 0-15
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t *>(&v);
}

// ---------------------------------------------------------------------------------------------
// Roles.

template <int D>
__device__ __forceinline__ void produce(const TensorMap *tmQ, const TensorMap *tmK,
                                        const TensorMap *tmV, uint32_t base, uint32_t bars,
                                        int q0, int h, int b, int n_tiles) {
  using C = Cfg<D>;
  mbar_expect_tx(bars + 8 * Q_FULL, C::Q_BYTES);
  tma_load_tile<D, BM>(base, tmQ, q0, h, b, bars + 8 * Q_FULL);
  for (int j = 0; j < n_tiles; ++j) {
    const int st = j & 1;
    // The stage held tile j - 2: wait until P V of that tile (the last reader) has completed.
    if (j >= 2)
      mbar_wait(bars + 8 * (KV_EMPTY + st), ((j >> 1) - 1) & 1);
    const uint32_t sK = base + C::Q_BYTES + st * C::STAGE_BYTES, sV = sK + C::KV_BYTES;
    mbar_expect_tx(bars + 8 * (K_FULL + st), C::KV_BYTES);
    tma_load_tile<D, C::BN>(sK, tmK, j * C::BN, h, b, bars + 8 * (K_FULL + st));
    mbar_expect_tx(bars + 8 * (V_FULL + st), C::KV_BYTES);
    tma_load_tile<D, C::BN>(sV, tmV, j * C::BN, h, b, bars + 8 * (V_FULL + st));
  }
}

template <int D>
__device__ __forceinline__ void issue_mmas(uint32_t base, uint32_t bars, uint32_t tmem,
                                           int n_tiles) {
  using C = Cfg<D>;
  constexpr int BN = C::BN;
  const uint32_t sQ = base, sP = base + C::P_OFF;
  mbar_wait(bars + 8 * Q_FULL, 0);
  for (int j = 0; j < n_tiles; ++j) {
    const int st = j & 1;
    const uint32_t ph = (uint32_t)(j >> 1) & 1u;
    const uint32_t sK = base + C::Q_BYTES + st * C::STAGE_BYTES, sV = sK + C::KV_BYTES;

    // S = Q K^T. The S columns are free: the softmax read S(j - 1) before arriving on p_full,
    // which this thread waited for in the previous iteration.
    mbar_wait(bars + 8 * (K_FULL + st), ph);
    tc_fence_after();
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk)
      mma_f16(tmem + C::S_COL, desc_kmajor(sQ + (kk / 4) * (BM * 128) + (kk % 4) * 32),
              desc_kmajor(sK + (kk / 4) * (BN * 128) + (kk % 4) * 32), C::IDESC_S, kk > 0);
    tc_commit(bars + 8 * S_FULL);

    // O += P V once P is in shared memory and O has been rescaled.
    mbar_wait(bars + 8 * P_FULL, (uint32_t)j & 1u);
    mbar_wait(bars + 8 * (V_FULL + st), ph);
    tc_fence_after();
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk)
      mma_f16(tmem + C::O_COL, desc_kmajor(sP + (kk / 4) * (BM * 128) + (kk % 4) * 32),
              desc_sw128(sV + kk * 16 * 128, BN * 128), C::IDESC_O, (j > 0 || kk > 0));
    tc_commit(bars + 8 * (KV_EMPTY + st)); // K(j) and V(j) are read: the stage may be refilled
    tc_commit(bars + 8 * PV_DONE);         // O holds tiles 0..j; P's buffer is free
  }
}

// Softmax and epilogue, thread t = tile row t = TMEM lane t.
template <int D>
__device__ __forceinline__ void softmax_rows(uint32_t base, uint32_t bars, uint32_t tmem,
                                             __nv_bfloat16 *O, float *LSE, size_t bh, int S,
                                             int q0, bool causal, int n_tiles) {
  using C = Cfg<D>;
  constexpr int BN = C::BN;
  const int t = threadIdx.x, warp = t / 32;
  const int row = q0 + t;
  // This row may see keys [0, lim).
  const int lim = causal ? min(S, row + 1) : S;
  const float scale_log2 = 1.4426950408889634f / sqrtf((float)D); // log2(e) / sqrt(D)
  const uint32_t lane_base = (uint32_t)(32 * warp) << 16;          // this warp's lane quarter
  const uint32_t tS = tmem + lane_base + C::S_COL, tO = tmem + lane_base + C::O_COL;
  const uint32_t sP = base + C::P_OFF;
  float m = NEG_INF; // running max of x = s * scale * log2(e)
  float l = 0.f;     // running sum of 2^(x - m)

  for (int j = 0; j < n_tiles; ++j) {
    const int k0 = j * BN;
    mbar_wait(bars + 8 * S_FULL, (uint32_t)j & 1u);
    tc_fence_after();

    // Pass 1: the masked row max.
    float mx = NEG_INF;
#pragma unroll 1
    for (int c = 0; c < BN; c += 32) {
      uint32_t r[32];
      tmem_load32(tS + c, r);
#pragma unroll
      for (int i = 0; i < 32; ++i)
        if (k0 + c + i < lim)
          mx = fmaxf(mx, __uint_as_float(r[i]) * scale_log2);
    }
    const float m_new = fmaxf(m, mx);
    // A row with no visible key so far keeps m = -inf; subtract 0 then (p = 0, no NaN).
    const float m_use = m_new == NEG_INF ? 0.f : m_new;
    const float corr = fast_exp2(m - m_use); // 0 on the first tile (m = -inf)

    // P's buffer and O belong to P V of tile j - 1 until it completes.
    if (j > 0) {
      mbar_wait(bars + 8 * PV_DONE, (uint32_t)(j - 1) & 1u);
      tc_fence_after();
    }

    // Pass 2: p = 2^(x - m), the row sum, P as bf16 into the swizzled K-major tile:
    // keys c..c+31 of row t are 4 16-byte chunks of column block c / 64.
    float psum = 0.f;
#pragma unroll 1
    for (int c = 0; c < BN; c += 32) {
      uint32_t r[32], p[16];
      tmem_load32(tS + c, r);
#pragma unroll
      for (int i = 0; i < 32; i += 2) {
        const float p0 =
            k0 + c + i < lim ? fast_exp2(__uint_as_float(r[i]) * scale_log2 - m_use) : 0.f;
        const float p1 =
            k0 + c + i + 1 < lim ? fast_exp2(__uint_as_float(r[i + 1]) * scale_log2 - m_use)
                                 : 0.f;
        psum += p0 + p1;
        p[i / 2] = pack_bf16x2(p0, p1);
      }
      const uint32_t row_addr = sP + (c / 64) * (BM * 128) + t * 128;
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const uint32_t chunk = (uint32_t)((c % 64) / 8 + q) ^ (uint32_t)(t % 8);
        asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(row_addr + chunk * 16),
                     "r"(p[4 * q]), "r"(p[4 * q + 1]), "r"(p[4 * q + 2]), "r"(p[4 * q + 3])
                     : "memory");
      }
    }
    l = l * corr + psum;
    m = m_new;

    // Rescale O (tiles 0..j-1) by corr. Warp-uniform test: tcgen05.ld/st are .sync.aligned.
    if (j > 0 && __any_sync(0xffffffffu, corr != 1.f)) {
#pragma unroll 1
      for (int c = 0; c < D; c += 32) {
        uint32_t r[32];
        tmem_load32(tO + c, r);
#pragma unroll
        for (int i = 0; i < 32; ++i)
          r[i] = __float_as_uint(__uint_as_float(r[i]) * corr);
        tmem_store32(tO + c, r);
      }
      asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
    }
    // P was written by the generic proxy; the MMA reads it through the async proxy.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    tc_fence_before();
    mbar_arrive(bars + 8 * P_FULL);
  }

  // Epilogue: O / l and LSE.
  mbar_wait(bars + 8 * PV_DONE, (uint32_t)(n_tiles - 1) & 1u);
  tc_fence_after();
  const float inv = l > 0.f ? 1.f / l : 0.f;
  __nv_bfloat16 *orow = O + (bh * S + row) * D;
#pragma unroll 1
  for (int c = 0; c < D; c += 32) {
    uint32_t r[32];
    tmem_load32(tO + c, r);
    if (row < S) {
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        uint4 v;
        v.x = pack_bf16x2(__uint_as_float(r[8 * q + 0]) * inv, __uint_as_float(r[8 * q + 1]) * inv);
        v.y = pack_bf16x2(__uint_as_float(r[8 * q + 2]) * inv, __uint_as_float(r[8 * q + 3]) * inv);
        v.z = pack_bf16x2(__uint_as_float(r[8 * q + 4]) * inv, __uint_as_float(r[8 * q + 5]) * inv);
        v.w = pack_bf16x2(__uint_as_float(r[8 * q + 6]) * inv, __uint_as_float(r[8 * q + 7]) * inv);
        *reinterpret_cast<uint4 *>(orow + c + 8 * q) = v;
      }
    }
  }
  // ln(sum_j e^(scale s_j)) = ln 2 * (m + log2(sum_j 2^(x_j - m))).
  if (row < S)
    LSE[bh * S + row] = (m + log2f(l)) * 0.69314718055994531f;
}

template <int D>
__device__ __forceinline__ void run(const TensorMap *tmQ, const TensorMap *tmK,
                                    const TensorMap *tmV, __nv_bfloat16 *O, float *LSE, int H,
                                    int S, bool causal) {
  using C = Cfg<D>;
  extern __shared__ unsigned char smem_raw[];
  __shared__ alignas(8) uint64_t bar_mem[NUM_BARS];
  __shared__ uint32_t tmem_slot;
  // Swizzled tiles must start on a 1024-byte boundary.
  const uint32_t base = ((uint32_t)__cvta_generic_to_shared(smem_raw) + 1023u) & ~1023u;
  const uint32_t bars = (uint32_t)__cvta_generic_to_shared(&bar_mem[0]);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // Causal: the last query tiles have the most keys; start them first.
  const int qt = causal ? (int)(gridDim.x - 1 - blockIdx.x) : (int)blockIdx.x;
  const int q0 = qt * BM, h = blockIdx.y, b = blockIdx.z;
  const int kv_end = causal ? min(S, q0 + BM) : S; // keys this CTA needs: [0, kv_end)
  const int n_tiles = (kv_end + C::BN - 1) / C::BN;

  if (warp == 0) {
    // Whole warp (.sync.aligned): the base address lands in tmem_slot.
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(
                     (uint32_t)__cvta_generic_to_shared(&tmem_slot)),
                 "n"(C::TMEM_COLS)
                 : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
  if (warp == PRODUCER_WARP && lane == 0) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(tmQ) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(tmK) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(tmV) : "memory");
    for (int i = 0; i < NUM_BARS; ++i)
      mbar_init(bars + 8 * i, i == P_FULL ? SOFTMAX_THREADS : 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  // The allocation is published through shared memory: fence the tcgen05 side of the barrier.
  tc_fence_before();
  __syncthreads();
  tc_fence_after();
  const uint32_t tmem = tmem_slot;

  if (warp == PRODUCER_WARP) {
    if (lane == 0)
      produce<D>(tmQ, tmK, tmV, base, bars, q0, h, b, n_tiles);
    __syncwarp();
  } else if (warp == MMA_WARP) {
    if (lane == 0)
      issue_mmas<D>(base, bars, tmem, n_tiles);
    __syncwarp();
  } else {
    softmax_rows<D>(base, bars, tmem, O, LSE, (size_t)b * H + h, S, q0, causal, n_tiles);
  }

  // All MMAs completed before the last pv_done; all tcgen05.ld/st were waited for. Free TMEM.
  tc_fence_before();
  __syncthreads();
  if (warp == 0) {
    tc_fence_after();
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(tmem),
                 "n"(C::TMEM_COLS)
                 : "memory");
  }
}

extern "C" __global__ void __launch_bounds__(192, 1)
mha_fwd_tcgen05_tma(const __grid_constant__ TensorMap tmQ, const __grid_constant__ TensorMap tmK,
                    const __grid_constant__ TensorMap tmV, __nv_bfloat16 *__restrict__ O,
                    float *__restrict__ LSE, int B, int H, int S, int D, int CAUSAL) {
  // The launch plan sizes shared memory and the TMA boxes for these three only; D is uniform
  // over the grid, so the early return happens before any barrier or TMEM allocation.
  if (D == 64)
    run<64>(&tmQ, &tmK, &tmV, O, LSE, H, S, CAUSAL != 0);
  else if (D == 128)
    run<128>(&tmQ, &tmK, &tmV, O, LSE, H, S, CAUSAL != 0);
  else if (D == 256)
    run<256>(&tmQ, &tmK, &tmV, O, LSE, H, S, CAUSAL != 0);
}
