// Attention forward with the log-sum-exp on Hopper's own path (FlashAttention-3 layout, not yet
// FA3 speed): O = softmax(Q K^T / sqrt(D)) V and LSE = log(sum_j exp(Q K^T / sqrt(D))), bf16
// Q, K, V, O [B, H, S, D] and fp32 LSE [B, H, S], D in {64, 128, 256} read at run time, CAUSAL
// (top-left aligned, key j <= query i) read at run time. One kernel serves all four
// mha_fwd_lse_h48_* tasks.
//
// Data flow. One CTA per (128 query rows, h, b); 384 threads = 3 warpgroups.
//  - Warpgroup 0 is the producer: setmaxnreg.dec to 40, one elected thread issues TMA
//    (cp.async.bulk.tensor.4d, 128B swizzle, boxes of 128 (Q) or BN (K, V) rows x 64 bf16,
//    coordinates innermost first: (d, s, h, b)). It loads the Q tile once (qbar), then K and V
//    tiles of BN keys into a 2-stage ring: fullK[s] / fullV[s] are transaction-count mbarriers
//    armed with mbarrier.arrive.expect_tx, empty[s] collects one arrival from each of the 256
//    consumer threads once both wgmma products of that stage have completed. Rows past S are
//    zero-filled by TMA (per head: the S dimension of the 4-D map is S, so a box never reads the
//    next head; every box starts at a row < S, so none lies wholly out of bounds).
//  - Warpgroups 1 and 2 are consumers (setmaxnreg.inc to 232), 64 query rows each. Per KV tile j:
//      S = Q K^T       wgmma m64nBNk16, A = Q and B = K both K-major (head dim contiguous) from
//                      shared-memory descriptors, D/16 k-steps in one commit group.
//      online softmax  on the fp32 accumulator in registers, in the log2 domain:
//                      x = s * (log2(e)/sqrt(D)), masked to -inf for keys >= S and (causal) key > row;
//                      m_new = max(m, rowmax x), corr = 2^(m - m_new), p = 2^(x - m_new),
//                      l = l * corr + rowsum p, O *= corr.
//      O += P V        wgmma m64nDk16 with A = P from REGISTERS (bf16) and B = V from shared memory,
//                      MN-major (imm-trans-b = 1), BN/16 k-steps in one commit group.
//    Software pipeline: iteration j issues S(j+1) and then P(j) V(j), waits for S(j+1) only
//    (wait_group 1), runs the softmax of tile j+1 while P(j) V(j) is on the tensor cores, then
//    waits for it (wait_group 0), frees stage j and rescales O. No wgmma is in flight across the
//    loop's back edge; the two consumer warpgroups also overlap each other naturally.
//    Epilogue: O / l to bf16 with bounds-checked stores, LSE = (m + log2 l) * ln 2 (natural log).
//  - Causal: CTAs take query tiles from the last (longest) to the first, the producer stops at the
//    tile holding the CTA's last row, and each consumer warpgroup stops at the tile holding its own
//    last row (only the final tile can be skipped, and no producer wait depends on its release).
//
// Tile sizes. BM = 128 query rows per CTA. BN = 128 keys for D <= 128, 64 keys for D = 256 (register
// budget: the O accumulator is D/2 fp32 per thread; D = 256 has O 128 + S 32 + 2 x P 16 registers),
// which is what the K/V boxes of the plan say: min(128, 16384/D) rows. Shared memory: Q 128*D*2 bytes
// + 2 stages x (K + V) of BN*D*2 bytes each, 1024-byte aligned: 80 KiB (D = 64), 160 KiB (D = 128),
// 192 KiB (D = 256), plus 1 KiB of alignment slack. ptxas: 168 registers at entry (384 threads),
// consumers raised to 232, no spills.
//
// Layouts (the part to get right; see docs/arch/sm_90a.md).
//  - Every tile is stored as column blocks of 64 head-dim elements (128 bytes per row, the 128B swizzle
//    span): block cb of a tile with R rows starts at cb * R * 128 bytes and holds R rows x 128 B, one
//    TMA box, 128B-swizzled (16-byte chunk c of row r at chunk c ^ (r % 8)). The swizzle is a function
//    of address bits 4-9, so any 1024-byte aligned sub-block (8 rows) is itself a swizzle atom.
//  - K-major operand (Q as A, K as B), 128B swizzle: descriptor start = block + 32 bytes per k16 step
//    inside the 128-byte row, LBO unused (1), SBO = 1024 (8 rows x 128 B). A warpgroup's 64 rows of
//    Q start 64 * 128 = 8 KiB into each Q column block.
//  - MN-major operand (V as B of P V: K = keys, N = head dim, N contiguous), 128B swizzle, canonical
//    layout ((64 N-elements, n atoms), (8 K-rows, k groups)) : ((1 elem, LBO), (128 B, SBO)):
//    SBO = 1024 (next 8 keys), LBO = R * 128 bytes (next 64 head-dim columns = next column block),
//    a k16 step (16 keys) advances the start address by 16 * 128 = 2048 bytes.
//  - wgmma accumulator m64nN (fp32), warp w of the warpgroup, lane l: d[i] is
//    row 16w + l/4 + 8*((i>>1)&1), column 8*(i>>2) + 2*(l%4) + (i&1). A row's N values are spread
//    over the 4 lanes of a quad, hence the row max / row sum shuffles with xor 1 and 2.
//  - wgmma A from registers (bf16, m64nNk16): 4 x b32 per thread; register r holds the pair
//    (row 16w + l/4 + 8*(r&1), columns 2*(l%4) + 8*(r>>1) + {0, 1}), low half = lower column. That is
//    the accumulator layout of a 64x16 block, so P's A fragment for keys 16kk..16kk+15 is
//    { pack(s[8kk], s[8kk+1]), pack(s[8kk+2], s[8kk+3]),
//      pack(s[8kk+4], s[8kk+5]), pack(s[8kk+6], s[8kk+7]) }.
//
// A numpy model of this kernel's registers and shared-memory addressing, checked against a float64
// reference: utils/emulate-mha-fwd.py (run it after changing the math or the layouts).
//
// Not done yet (next steps for speed): FA3 ping-pong scheduling of the two consumer warpgroups
// (named barriers so one's softmax runs while the other's wgmmas do), a TMA or stmatrix store of O,
// more stages for D = 64, persistent scheduling with causal load balancing, cluster multicast of K/V.
//
// @ptxbench kernel mha_fwd_wgmma_tma grid=(ceildiv(S, 128), H, B) block=384 smem=256*D+8*min(128*D, 16384)+1024
// @ptxbench   args tmQ, tmK, tmV, O, LSE, B, H, S, D, CAUSAL
// @ptxbench tensormap tmQ tensor=Q box=(1, 1, 128, 64) swizzle=128B
// @ptxbench tensormap tmK tensor=K box=(1, 1, min(128, 16384/D), 64) swizzle=128B
// @ptxbench tensormap tmV tensor=V box=(1, 1, min(128, 16384/D), 64) swizzle=128B
#include <cuda_bf16.h>
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

// The driver's CUtensorMap (cuda.h), declared here so the file needs no host headers.
struct alignas(64) TensorMap { unsigned long long opaque[16]; };

#define BM 128                 // query rows per CTA: two consumer warpgroups x 64 rows
#define CONSUMER_THREADS 256   // arrivals that free a stage

// ---------------------------------------------------------------------------------------------
// Shared-memory matrix descriptors (128B swizzle; tile bases are 1024-byte aligned so the
// descriptor's base-offset field stays 0).

// K-major operand with 128-byte rows: LBO unused (1), SBO = 8 rows * 128 B.
__device__ __forceinline__ uint64_t desc_kmajor_sw128(uint32_t smem_addr) {
  uint64_t d = (uint64_t)((smem_addr & 0x3FFFF) >> 4);
  d |= (uint64_t)1 << 16;
  d |= (uint64_t)(1024 >> 4) << 32;
  d |= (uint64_t)1 << 62;
  return d;
}

// MN-major operand: LBO = bytes between 64-element atoms along N, SBO = 8 K-rows * 128 B.
__device__ __forceinline__ uint64_t desc_mnmajor_sw128(uint32_t smem_addr, uint32_t lbo_bytes) {
  uint64_t d = (uint64_t)((smem_addr & 0x3FFFF) >> 4);
  d |= (uint64_t)((lbo_bytes >> 4) & 0x3FFF) << 16;
  d |= (uint64_t)(1024 >> 4) << 32;
  d |= (uint64_t)1 << 62;
  return d;
}

// ---------------------------------------------------------------------------------------------
// wgmma wrappers (all 128 threads of a warpgroup execute them).

// D[64x64] += A[64x16] * B[16x64]; A and B K-major in shared memory (descriptors).
__device__ __forceinline__ void wgmma_ss_m64n64(float (&d)[32], uint64_t da, uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, "
      "%10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, "
      "%29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
      :
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db), "n"(1));
}

// D[64x128] += A[64x16] * B[16x128]; A and B K-major in shared memory (descriptors).
__device__ __forceinline__ void wgmma_ss_m64n128(float (&d)[64], uint64_t da, uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, "
      "%10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, "
      "%29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, "
      "1, 0, 0;\n}\n"
      :
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(da), "l"(db), "n"(1));
}

// D[64x64] += A[64x16] * B[16x64]; A from registers (4 x bf16x2 per thread), B MN-major
// in shared memory (imm-trans-b = 1).
__device__ __forceinline__ void wgmma_rs_m64n64_tb(float (&d)[32], const uint32_t (&a)[4],
                                                   uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, "
      "%10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, "
      "%29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
      :
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "n"(1));
}

// D[64x128] += A[64x16] * B[16x128]; A from registers (4 x bf16x2 per thread), B MN-major
// in shared memory (imm-trans-b = 1).
__device__ __forceinline__ void wgmma_rs_m64n128_tb(float (&d)[64], const uint32_t (&a)[4],
                                                   uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, "
      "%10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, "
      "%29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, "
      "%67}, %68, p, 1, 1, 1;\n}\n"
      :
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "n"(1));
}

// D[64x256] += A[64x16] * B[16x256]; A from registers (4 x bf16x2 per thread), B MN-major
// in shared memory (imm-trans-b = 1).
__device__ __forceinline__ void wgmma_rs_m64n256_tb(float (&d)[128], const uint32_t (&a)[4],
                                                   uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, "
      "%10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, "
      "%29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, "
      "%67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, "
      "%86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, "
      "%104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, "
      "%120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, p, 1, 1, "
      "1;\n}\n"
      :
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
        "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
        "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "n"(1));
}

__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
// Waits until at most N committed groups of this warpgroup are pending.
template <int N> __device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

// Pins registers to this point of the asm-volatile order. wgmma reads and writes its registers
// asynchronously, but the compiler sees only the asm statement that issued it. After a wait_group,
// reg_fence on the accumulator keeps its reads from moving above the wait; on the A registers it
// keeps them live until the wait, so no new value (the next tile's P) is put in them while the
// wgmma still reads them (ptxas would then serialize: C7513).
template <int N> __device__ __forceinline__ void reg_fence(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i)
    asm volatile("" : "+f"(r[i])::"memory");
}
template <int N> __device__ __forceinline__ void reg_fence(uint32_t (&r)[N][4]) {
#pragma unroll
  for (int i = 0; i < N; ++i)
#pragma unroll
    for (int k = 0; k < 4; ++k)
      asm volatile("" : "+r"(r[i][k])::"memory");
}

// ---------------------------------------------------------------------------------------------
// mbarriers and TMA.

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
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

__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}

// One box (ROWS rows x 64 columns, as the plan's tensormap declares) of a [B, H, S, D] tensor;
// coordinates innermost first.
__device__ __forceinline__ void tma_load_box(uint32_t dst, const TensorMap *map, int d0, int s0,
                                             int h, int b, uint32_t bar) {
  asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%2, %3, %4, %5}], [%6];" ::"r"(dst),
               "l"(map), "r"(d0), "r"(s0), "r"(h), "r"(b), "r"(bar)
               : "memory");
}

// A [ROWS x D] tile as D/64 column blocks of ROWS x 128 B, one box each. A box's first row is
// always < S, so a box is at most partly out of bounds (the rest zero-filled; the transaction
// count is the full box either way).
template <int D, int ROWS>
__device__ __forceinline__ void tma_load_tile(uint32_t dst, const TensorMap *map, int s0, int h,
                                              int b, uint32_t bar) {
#pragma unroll
  for (int cb = 0; cb < D / 64; ++cb)
    tma_load_box(dst + cb * (ROWS * 128), map, cb * 64, s0, h, b, bar);
}

// ---------------------------------------------------------------------------------------------
// Small math helpers.

#define NEG_INF __int_as_float(0xff800000) // -inf (NVRTC has no <math.h> INFINITY)

__device__ __forceinline__ float fast_exp2(float x) { // 2^x; 2^-inf = +0
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) { // lo -> bits 0-15
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t *>(&v);
}

// Tile configuration per head dimension.
template <int D> struct Tiles {
  static constexpr int BN = D <= 128 ? 128 : 64;          // keys per KV tile
  static constexpr uint32_t Q_BYTES = BM * D * 2;         // the Q tile
  static constexpr uint32_t KV_BYTES = BN * D * 2;        // one K (or V) tile
  static constexpr uint32_t STAGE_BYTES = 2 * KV_BYTES;   // K then V
};

// S = Q K^T for this warpgroup's 64 rows: s[BN/2] per thread (wgmma accumulator layout).
template <int D>
__device__ __forceinline__ void qk_wgmma(float (&s)[Tiles<D>::BN / 2], uint32_t sQ, uint32_t sK) {
  constexpr int BN = Tiles<D>::BN;
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
    // k16 step kk: column block kk/4, 32 bytes per step inside the 128-byte row.
    const uint64_t da = desc_kmajor_sw128(sQ + (kk / 4) * (BM * 128) + (kk % 4) * 32);
    const uint64_t db = desc_kmajor_sw128(sK + (kk / 4) * (BN * 128) + (kk % 4) * 32);
    if constexpr (BN == 128)
      wgmma_ss_m64n128(s, da, db);
    else
      wgmma_ss_m64n64(s, da, db);
  }
}

// O += P V: o[D/2] per thread, P as bf16 A fragments p[BN/16][4], V MN-major.
template <int D>
__device__ __forceinline__ void pv_wgmma(float (&o)[D / 2], const uint32_t (&p)[Tiles<D>::BN / 16][4],
                                         uint32_t sV) {
  constexpr int BN = Tiles<D>::BN;
#pragma unroll
  for (int kk = 0; kk < BN / 16; ++kk) {
    const uint64_t db = desc_mnmajor_sw128(sV + kk * 16 * 128, BN * 128);
    if constexpr (D == 64)
      wgmma_rs_m64n64_tb(o, p[kk], db);
    else if constexpr (D == 128)
      wgmma_rs_m64n128_tb(o, p[kk], db);
    else
      wgmma_rs_m64n256_tb(o, p[kk], db);
  }
}

// ---------------------------------------------------------------------------------------------
// Producer: one elected thread of warpgroup 0.

template <int D>
__device__ __forceinline__ void produce(const TensorMap *tmQ, const TensorMap *tmK,
                                        const TensorMap *tmV, uint32_t base, uint32_t qbar,
                                        uint32_t fullk, uint32_t fullv, uint32_t empty, int q0,
                                        int h, int b, int n_tiles) {
  using T = Tiles<D>;
  mbar_expect_tx(qbar, T::Q_BYTES);
  tma_load_tile<D, BM>(base, tmQ, q0, h, b, qbar);
  for (int j = 0; j < n_tiles; ++j) {
    const int st = j & 1;
    const uint32_t phase = (uint32_t)(j >> 1) & 1u;
    // Parity phase^1 passes at once on the first trip (the "previous" phase counts as done).
    mbar_wait(empty + 8 * st, phase ^ 1u);
    const uint32_t sK = base + T::Q_BYTES + st * T::STAGE_BYTES, sV = sK + T::KV_BYTES;
    mbar_expect_tx(fullk + 8 * st, T::KV_BYTES);
    tma_load_tile<D, T::BN>(sK, tmK, j * T::BN, h, b, fullk + 8 * st);
    mbar_expect_tx(fullv + 8 * st, T::KV_BYTES);
    tma_load_tile<D, T::BN>(sV, tmV, j * T::BN, h, b, fullv + 8 * st);
  }
}

// ---------------------------------------------------------------------------------------------
// Online softmax of one S tile, in place on the accumulator fragment (see the layout notes above).
// In: s = raw scores Q K^T of keys [k0, k0 + BN). Out: m and lsum updated, corr = 2^(m_old - m_new)
// per row (the factor O must be scaled by before P V of this tile), p = P as bf16 A fragments.
template <int BN>
__device__ __forceinline__ void softmax_tile(float (&s)[BN / 2], float (&m)[2], float (&lsum)[2],
                                             float (&corr)[2], uint32_t (&p)[BN / 16][4], int k0,
                                             int S, int q_lo, int row0, int quad_lane, bool causal,
                                             float scale_log2) {
  constexpr int NS = BN / 2;
  // Scale into the log2 domain and mask: keys past S (zero-filled by TMA, so they would score 0)
  // and, when causal, keys after the row. Only tiles that reach past S or the diagonal need it.
  const bool need_mask = (k0 + BN > S) || (causal && k0 + BN - 1 > q_lo);
  float mx[2] = {NEG_INF, NEG_INF};
  if (need_mask) {
    // Row r of this thread (row0 + 8r) may see keys [0, lim[r]).
    const int lim[2] = {causal ? min(S, row0 + 1) : S, causal ? min(S, row0 + 9) : S};
#pragma unroll
    for (int i = 0; i < NS; ++i) {
      const int key = k0 + 8 * (i >> 2) + 2 * quad_lane + (i & 1);
      s[i] = key < lim[(i >> 1) & 1] ? s[i] * scale_log2 : NEG_INF;
      mx[(i >> 1) & 1] = fmaxf(mx[(i >> 1) & 1], s[i]);
    }
  } else {
#pragma unroll
    for (int i = 0; i < NS; ++i) {
      s[i] *= scale_log2;
      mx[(i >> 1) & 1] = fmaxf(mx[(i >> 1) & 1], s[i]);
    }
  }
  float m_use[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    // A row lives in the 4 lanes of a quad.
    mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));
    mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
    const float m_new = fmaxf(m[r], mx[r]);
    // A row with no unmasked key so far keeps m = -inf; subtract 0 then (p = 0, no NaN).
    m_use[r] = m_new == NEG_INF ? 0.f : m_new;
    corr[r] = fast_exp2(m[r] - m_use[r]); // 0 on the first tile (m = -inf)
    m[r] = m_new;
  }
  float psum[2] = {0.f, 0.f};
#pragma unroll
  for (int i = 0; i < NS; ++i) {
    s[i] = fast_exp2(s[i] - m_use[(i >> 1) & 1]);
    psum[(i >> 1) & 1] += s[i];
  }
  // lsum stays this thread's partial row sum (its 2 columns of every 8); the quad adds them up
  // once, in the epilogue.
#pragma unroll
  for (int r = 0; r < 2; ++r)
    lsum[r] = lsum[r] * corr[r] + psum[r];
  // P as bf16 A fragments: the accumulator layout of keys 16kk..16kk+15 is the A layout.
#pragma unroll
  for (int kk = 0; kk < BN / 16; ++kk)
#pragma unroll
    for (int r = 0; r < 4; ++r)
      p[kk][r] = pack_bf16x2(s[8 * kk + 2 * r], s[8 * kk + 2 * r + 1]);
}

// Consumer: one warpgroup, 64 query rows [q0 + 64c, q0 + 64c + 64).
//
// Software pipeline (FA3's intra-warpgroup overlap): iteration j issues S(j+1) = Q K(j+1)^T and
// then O += P(j) V(j) as two commit groups, waits for the first (wait_group 1) and runs the softmax
// of tile j+1 while P(j) V(j) is still on the tensor cores, then waits for the second, frees stage
// j and rescales O for tile j+1. No wgmma is in flight across the loop's back edge.
template <int D>
__device__ __forceinline__ void consume(uint32_t base, uint32_t qbar, uint32_t fullk,
                                        uint32_t fullv, uint32_t empty, __nv_bfloat16 *O,
                                        float *LSE, size_t bh, int S, int q0, int c, bool causal,
                                        int n_tiles) {
  using T = Tiles<D>;
  constexpr int BN = T::BN;
  constexpr int NS = BN / 2, NO = D / 2, KSTEPS = BN / 16;
  const float scale_log2 = 1.4426950408889634f / sqrtf((float)D); // log2(e) / sqrt(D)
  const int t = threadIdx.x % 128, w = t / 32, l = t % 32;
  const int q_lo = q0 + 64 * c;           // this warpgroup's first row
  const int row0 = q_lo + 16 * w + l / 4; // this thread's rows: row0 and row0 + 8
  // Causal: tiles past this warpgroup's last row are all masked; stop before them.
  const int my_tiles = causal ? min(n_tiles, (min(S, q_lo + 64) + BN - 1) / BN) : n_tiles;
  const uint32_t sQ = base + c * (64 * 128);
  auto stage_k = [&](int j) { return base + T::Q_BYTES + (j & 1) * T::STAGE_BYTES; };
  auto parity = [](int j) { return (uint32_t)(j >> 1) & 1u; };

  float o[NO];
#pragma unroll
  for (int i = 0; i < NO; ++i)
    o[i] = 0.f;
  float m[2] = {NEG_INF, NEG_INF}; // running row max of x = s * scale * log2(e)
  float lsum[2] = {0.f, 0.f};      // this thread's part of the running row sum
  float corr[2];
  uint32_t p[KSTEPS][4];           // P of the tile whose P V comes next

  mbar_wait(qbar, 0);
  {
    // Prologue: S(0) and its softmax.
    float s[NS];
#pragma unroll
    for (int i = 0; i < NS; ++i)
      s[i] = 0.f;
    mbar_wait(fullk, 0);
    reg_fence(s); // keep the zeroing above the wgmma.fence
    wgmma_fence();
    qk_wgmma<D>(s, sQ, stage_k(0));
    wgmma_commit();
    wgmma_wait<0>();
    reg_fence(s);
    softmax_tile<BN>(s, m, lsum, corr, p, 0, S, q_lo, row0, l % 4, causal, scale_log2);
  }
  for (int j = 0; j + 1 < my_tiles; ++j) {
    // S accumulates from zero. (With scale-d false on the first k-step and no definition of s
    // here instead, ptxas 13.0 serialized the wgmmas of this kernel: C7514.)
    float s[NS];
#pragma unroll
    for (int i = 0; i < NS; ++i)
      s[i] = 0.f;
    // Both waits come before the wgmma.fence: a spin loop between the fence and a wgmma makes
    // ptxas inject another warpgroup.arrive (C7519). V(j) landed with K(j), long ago.
    mbar_wait(fullk + 8 * ((j + 1) & 1), parity(j + 1));
    mbar_wait(fullv + 8 * (j & 1), parity(j));
    // s, o and p were written by ordinary instructions: pin those writes above the wgmma.fence.
    reg_fence(s);
    reg_fence(o);
    reg_fence(p);
    wgmma_fence();
    qk_wgmma<D>(s, sQ, stage_k(j + 1));
    wgmma_commit();
    pv_wgmma<D>(o, p, stage_k(j) + T::KV_BYTES);
    wgmma_commit();
    // Groups complete in order: after wait_group 1, S(j+1) is done; P(j) V(j) may still run.
    wgmma_wait<1>();
    reg_fence(s);
    uint32_t p_next[KSTEPS][4];
    float corr_next[2];
    softmax_tile<BN>(s, m, lsum, corr_next, p_next, (j + 1) * BN, S, q_lo, row0, l % 4, causal,
                     scale_log2);
    wgmma_wait<0>();
    reg_fence(o);
    reg_fence(p);
    // K(j) and V(j) are no longer read by this warpgroup: free stage j for tile j + 2.
    mbar_arrive(empty + 8 * (j & 1));
#pragma unroll
    for (int i = 0; i < NO; ++i)
      o[i] *= corr_next[(i >> 1) & 1];
#pragma unroll
    for (int kk = 0; kk < KSTEPS; ++kk)
#pragma unroll
      for (int r = 0; r < 4; ++r)
        p[kk][r] = p_next[kk][r];
  }
  {
    // Epilogue of the pipeline: P V of the last tile. (Its stage needs no release: the producer
    // loads nothing more.)
    const int j = my_tiles - 1;
    mbar_wait(fullv + 8 * (j & 1), parity(j));
    reg_fence(o);
    reg_fence(p);
    wgmma_fence();
    pv_wgmma<D>(o, p, stage_k(j) + T::KV_BYTES);
    wgmma_commit();
    wgmma_wait<0>();
    reg_fence(o);
  }

  // Finish the row sums across the quad, normalize, store O and LSE.
  float inv[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    lsum[r] += __shfl_xor_sync(0xffffffffu, lsum[r], 1);
    lsum[r] += __shfl_xor_sync(0xffffffffu, lsum[r], 2);
    inv[r] = lsum[r] > 0.f ? 1.f / lsum[r] : 0.f;
  }
#pragma unroll
  for (int i = 0; i < NO; i += 2) {
    const int r = (i >> 1) & 1, row = row0 + 8 * r;
    if (row < S) {
      const int col = 8 * (i >> 2) + 2 * (l % 4);
      *reinterpret_cast<__nv_bfloat162 *>(O + (bh * S + row) * D + col) =
          __floats2bfloat162_rn(o[i] * inv[r], o[i + 1] * inv[r]);
    }
  }
  if (l % 4 == 0) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int row = row0 + 8 * r;
      // ln(sum_j e^(scale s_j)) = ln 2 * (m + log2(sum_j 2^(x_j - m))).
      if (row < S)
        LSE[bh * S + row] = (m[r] + log2f(lsum[r])) * 0.69314718055994531f;
    }
  }
}

// ---------------------------------------------------------------------------------------------

extern "C" __global__ void __launch_bounds__(384, 1)
mha_fwd_wgmma_tma(const __grid_constant__ TensorMap tmQ, const __grid_constant__ TensorMap tmK,
                  const __grid_constant__ TensorMap tmV, __nv_bfloat16 *__restrict__ O,
                  float *__restrict__ LSE, int B, int H, int S, int D, int CAUSAL) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ alignas(8) uint64_t bars[7]; // qbar, fullK[2], fullV[2], empty[2]
  if (D != 64 && D != 128 && D != 256)
    return; // the launch plan sized shared memory for these three only
  // Swizzled tiles must start on a 1024-byte boundary.
  const uint32_t base = ((uint32_t)__cvta_generic_to_shared(smem_raw) + 1023u) & ~1023u;
  const uint32_t qbar = (uint32_t)__cvta_generic_to_shared(&bars[0]);
  const uint32_t fullk = qbar + 8, fullv = qbar + 24, empty = qbar + 40;
  const int tid = threadIdx.x, wg = tid / 128;
  const bool causal = CAUSAL != 0;
  // Causal: the last query tiles have the most keys; start them first.
  const int qt = causal ? (int)(gridDim.x - 1 - blockIdx.x) : (int)blockIdx.x;
  const int q0 = qt * BM, h = blockIdx.y, b = blockIdx.z;
  const int BN = D <= 128 ? 128 : 64;
  const int kv_end = causal ? min(S, q0 + BM) : S; // keys this CTA needs: [0, kv_end)
  const int n_tiles = (kv_end + BN - 1) / BN;

  if (tid == 0) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmQ) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmK) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmV) : "memory");
    mbar_init(qbar, 1);
    for (int s = 0; s < 2; ++s) {
      mbar_init(fullk + 8 * s, 1);
      mbar_init(fullv + 8 * s, 1);
      mbar_init(empty + 8 * s, CONSUMER_THREADS);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();

  if (wg == 0) {
    // Producer warpgroup: hand registers to the consumers, one elected thread drives TMA.
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;" ::: "memory");
    uint32_t leader;
    asm volatile("{\n.reg .pred p;\nelect.sync _|p, 0xffffffff;\nselp.u32 %0, 1, 0, p;\n}"
                 : "=r"(leader));
    if (tid / 32 == 0 && leader) {
      if (D == 64)
        produce<64>(&tmQ, &tmK, &tmV, base, qbar, fullk, fullv, empty, q0, h, b, n_tiles);
      else if (D == 128)
        produce<128>(&tmQ, &tmK, &tmV, base, qbar, fullk, fullv, empty, q0, h, b, n_tiles);
      else
        produce<256>(&tmQ, &tmK, &tmV, base, qbar, fullk, fullv, empty, q0, h, b, n_tiles);
    }
    return;
  }

  // Consumer warpgroups: 128 * 40 + 2 * 128 * 232 = 64512 registers of 65536.
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;" ::: "memory");
  const size_t bh = (size_t)b * H + h;
  if (D == 64)
    consume<64>(base, qbar, fullk, fullv, empty, O, LSE, bh, S, q0, wg - 1, causal, n_tiles);
  else if (D == 128)
    consume<128>(base, qbar, fullk, fullv, empty, O, LSE, bh, S, q0, wg - 1, causal, n_tiles);
  else
    consume<256>(base, qbar, fullk, fullv, empty, O, LSE, bh, S, q0, wg - 1, causal, n_tiles);
}
