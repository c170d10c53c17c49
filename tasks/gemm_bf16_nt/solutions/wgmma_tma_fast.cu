// C[M,N] = A[M,K] * B[N,K]^T, bf16 in, fp32 accumulate, bf16 out, on Hopper's own path. The
// expert of the gemm_bf16_n*_k* tasks: 0.98-1.03 of cuBLASLt on the H200 on the 12 workloads
// with M >= 2048 and 0.93-1.00 at M = 1024 (docs/performance.md). Two tile configurations, one
// chosen per launch (t216_selected): 128x256 tiles with a stream-K tail, described first, and
// "T216", tiles of C^T of 128 x 216, for shapes where 128x256 tiles would pad M and leave a ragged
// last round (on the task suite: M = 3000 at N = 7168 and 14336).
//
// Structure: persistent, warp-specialized. Warpgroup 0 is the producer (setmaxnreg.dec; one
// elected thread issues TMA loads of 128x64 A and 256x64 B boxes, 128B swizzle, into a 4-stage
// ring of full/empty transaction-count mbarriers); warpgroups 1 and 2 are consumers
// (setmaxnreg.inc), each issuing m64n256k16 wgmmas from shared memory for its 64 rows of a
// 128x256 tile with one group in flight (wait_group 1).
// - Descriptors are built once as a 32-bit low word and advanced by adding offsets, the
//   warpgroup index broadcast from lane 0 so that ptxas keeps them in uniform registers.
// - Epilogue through shared memory and TMA: each consumer writes its 64x256 result in two halves
//   of 128 columns into a 16 KiB staging buffer (128B-swizzled 64x64 boxes), fence.proxy.async +
//   named barrier, and its thread 0 issues the TMA stores; the warpgroup goes on to the next tile
//   while the copy engine writes C (the register epilogue it replaces cost 7-10%).
// - Schedule: the full rounds of tiles are dealt round-robin (grouped 16 M-tiles at a time for L2
//   reuse); the last, partial round is shared out stream-K when it is at most 85% full (below).
//
// Stream-K tail. Round-robin alone walks tiles = ceil(M/128) * ceil(N/256) over G = min(132, tiles)
// persistent CTAs, so it takes ceil(tiles / G) tile-times even when the last round holds a few
// tiles (M=3000, N=7168: 672 tiles = 5 rounds + 12, the sixth round only 9% busy). So round-robin runs
// only the full rounds, and a stream-K region of the last tiles is shared out as one run of
// k-iterations cut into G contiguous, near-equal ranges:
//  - rem >= G/4: the region is the rem left-over tiles alone. All full rounds stay data-parallel,
//    so the staggered K positions of stream-K only touch the rem tiles' A and B panels, which fit
//    in L2. Ranges are rem/G of a tile long: a tile has about 1 + G/rem (<= 5 here) contributors.
//  - rem < G/4: the region is the last full round plus the rem tiles (G + rem tiles). Ranges are
//    at least a tile long, so a tile has at most two contributors; the ranges are staggered by
//    only rem/G of a tile, so neighbouring CTAs still share their panels in L2.
// (A CPU model with an LRU L2 showed the second form alone doubling DRAM traffic at
// rem/G = 0.4-0.8 on these shapes, to 3-4 TB/s in the stream-K phase.)
// A range reads [first piece of tile j0] [whole tiles ...] [head of tile j1]: the first piece
// (a tail [k, kTiles) or a middle [k, k')) is a partial sum for another CTA; the head [0, k) is
// the CTA's last unit and it owns the tile's result.
//
// Fix-up protocol. A first piece that does not start at k = 0: each consumer warpgroup writes
// its fp32 accumulators to the CTA's slot of `partials` (fragment order, coalesced 16-byte
// st.global.cg), its 128 threads meet on a named barrier and one of them raises flags[cta][wg]
// (fence.acq_rel.gpu + red.relaxed.gpu: the release). A head: after its mainloop each consumer
// thread spins with ld.acquire.gpu on flags[q][wg] for q = cta+1, cta+2, ... up to the CTA whose
// range reaches the tile's end, adds each slot to its accumulators and stores its tile through the
// epilogue above. (Loading a slot as the head's starting accumulators instead would save the add
// but makes ptxas serialize the wgmmas, C7515.) No deadlock: a CTA only ever
// waits on later CTAs' first stream-K units, and nothing before those units waits; all G <= 132
// CTAs are resident at once (one per SM, 193 KiB of shared memory each). If %nsmid says fewer
// SMs than G, the kernel keeps the round-robin schedule. Stream-K is used only when the last round
// is at most 85% full (rem*20 <= G*17): above that the fix-up (~5 us per CTA) costs about what the
// idle SMs lose. `flags` is a zero=once workspace (cleared once when the harness allocates it) and
// the kernel leaves it zeroed: a head warpgroup, once all its 128 threads have seen and consumed
// their contributors' flags (named barrier: a reset before that would leave late threads
// spinning), has one thread store 0 back into each of them; every raised flag has exactly one
// head. `partials` needs no initialisation (a slot is always written before its flag is raised).
// The consumer's next stream-K unit is made provably warp-uniform (a warp vote on it, lane-0
// broadcasts of its bounds): left as plain integer divisions, ptxas treated the unit loop as
// divergent and moved the stage index and descriptors out of the uniform registers (134 R2UR in
// the kernel against 91 now, 48 against 4 around the mainloop's wgmmas).
//
// Why T216: at M = 3000 the 128x256 tiles pad M to 3072 (2.4%) and leave 672 tiles = 5.09 rounds
// on 132 SMs, whose tail stream-K shares out at ~3% efficiency; cuBLASLt there solves the
// transposed problem with 128 (N) x 216 (M) tiles: 784 tiles = 5.94 rounds, M padded to 3024
// (0.8%), no stream-K. On the H200, T216 runs n7168 M3000 at 0.99-1.00 of cuBLASLt and n14336
// M3000 at 0.99, where the 128x256 tiles reach 0.94 and 0.96.
//
// T216: tiles of C^T, 128 N-rows x 216 M-columns. Same warp roles, ring, barriers and
// shared-memory layout as the 128x256 tiles; per k-step the producer loads a 128x64 box of B (16
// KiB, it becomes wgmma's A operand) and a 216x64 box of A (27 KiB, wgmma's B operand), both
// K-major and 128B-swizzled, into the first 43 KiB of the 48 KiB stage slot. Consumer warpgroup w
// computes N-rows [n0 + 64w, +64) x M-columns [m0, m0 + 216) with m64n216k16 (108 fp32 accumulators
// per thread), one group in flight, as the 128x256 tiles do. Both consumers stay busy on every tile
// (one warpgroup alone reaches only 57-69% of the tensor rate of two on the H200). Tiles are dealt
// round-robin in the same grouped order (16 N-tiles at a time); no stream-K, so no partials or
// flags.
// Epilogue: the fragment holds C transposed (rows n, columns m), so stmatrix .trans writes its bf16
// 8x8 blocks as rows of C (m) of 64 n-columns = 128 B, 128B-swizzled, into the consumer's 16 KiB
// staging buffer; in two passes of 112 rows (M-columns [0, 112) and [104, 216): the 8 rows [104,
// 112) are stored twice with the same values, so that one 112x64 box serves both passes and never
// reaches into the next tile), each followed by one TMA store. Rows >= M and columns >= N are
// clipped by the map.
// Shared memory is the 128x256 configuration's exactly: a T216 stage is 43 KiB of the 48 KiB slot
// and a staging pass 14 KiB of the 16 KiB buffer. (Separate 43 KiB stages + 2 x 27 KiB whole-tile
// staging would need 4*44032 + 2*27648 + 1024 alignment slack = 232448 B dynamic, the 227 KiB limit
// exactly, and the 64 B of static mbarriers push it over.)
// Every workload the rule does not pick runs the 128x256 code unchanged (producer and consumers
// branch once, before their loops). The choice is made in 32-bit integers: three 64-bit divisions
// (calls to __cuda_sm20_div_s64), evaluated by every thread before the first loads, cost 1-2% at
// M = 1024.
//
// @ptxbench kernel gemm_wgmma_tma_ws_sk grid=min(132, ceildiv(M,128)*ceildiv(N,256)) block=384 smem=4*(128*64+256*64)*2+2*64*128*2+1024
// @ptxbench   args tmA, tmB, tmC, tmA216, tmB128, tmC112, M, N, K, partials, flags
// @ptxbench tensormap tmA tensor=A box=(128, 64) swizzle=128B
// @ptxbench tensormap tmB tensor=B box=(256, 64) swizzle=128B
// @ptxbench tensormap tmC tensor=C box=(64, 64) swizzle=128B
// @ptxbench tensormap tmA216 tensor=A box=(216, 64) swizzle=128B
// @ptxbench tensormap tmB128 tensor=B box=(128, 64) swizzle=128B
// @ptxbench tensormap tmC112 tensor=C box=(112, 64) swizzle=128B
// @ptxbench workspace partials bytes=132*128*256*4
// @ptxbench workspace flags bytes=132*2*4 zero=once
#include <cuda_bf16.h>
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

struct alignas(64) TensorMap { unsigned long long opaque[16]; };

#define BM 128
#define BN 256
#define BK 64
#define STAGES 4
#define GROUP_M 16
#define NACC (BN / 2)
#define TILE_A_BYTES (BM * BK * 2)
#define TILE_B_BYTES (BN * BK * 2)
#define STAGE_BYTES (TILE_A_BYTES + TILE_B_BYTES)
#define STG_BOX_BYTES (64 * 64 * 2)      // one 64x64 bf16 box of C, 128-byte rows
#define STG_WG_BYTES (2 * STG_BOX_BYTES) // one consumer's half tile: 64 rows x 128 columns
// Stream-K for the last wave when rem / G <= SK_NUM / SK_DEN (SK_ON 0: round-robin only).
#define SK_ON 1
#define SK_NUM 17
#define SK_DEN 20
// Which stream-K region: the remainder alone when rem / G >= SK_REM_NUM / SK_REM_DEN, else the last
// full round plus the remainder.
#define SK_REM_NUM 1
#define SK_REM_DEN 4
#define SLOT_VEC (NACC / 4)  // float4s per consumer thread in a partial-sum slot
// T216 (header): tiles of 128 N-rows x 216 M-columns of C^T, in the expert's stage slots.
#define T216_ON 1
#define TN 128                          // N-rows of C^T per tile (64 per consumer warpgroup)
#define TM 216                          // M-columns of C^T per tile (wgmma's N)
#define NACC216 (TM / 2)                // fp32 accumulators per consumer thread
#define T216_B_BYTES (TN * BK * 2)      // 128x64 box of B: wgmma's A operand, 16 KiB
#define T216_A_BYTES (TM * BK * 2)      // 216x64 box of A: wgmma's B operand, 27 KiB
#define T216_STAGE_BYTES (T216_B_BYTES + T216_A_BYTES) // 43 KiB of the 48 KiB slot
#define T216_PASS_ROWS 112              // rows of C per staging pass (box of tmC112)
#define T216_PASS2_ROW0 104             // first row of the second pass (rows 104..111 twice)
static_assert(T216_PASS2_ROW0 % 8 == 0 && T216_PASS_ROWS % 16 == 0 &&
                  T216_PASS2_ROW0 + T216_PASS_ROWS == 216,
              "the epilogue's passes walk 8-row blocks, two per stmatrix, and end at row 216");
// Selection (t216_selected): a T216 tile is modelled at (TM + T216_OVH) / 256 of a 128x256 tile,
// and the stream-K fix-up at SK_FIXUP20 / 20 of a tile (0.15, fitted to H200 measurements).
#define T216_OVH 4
#define SK_FIXUP20 3

__device__ __forceinline__ uint64_t desc_sw128(uint32_t smem_addr) {
  uint64_t d = (uint64_t)((smem_addr & 0x3FFFF) >> 4);
  d |= (uint64_t)1 << 16;
  d |= (uint64_t)(1024 >> 4) << 32;
  d |= (uint64_t)1 << 62;
  return d;
}

// Descriptors built once: the low word of a 128B-swizzled K-major
// descriptor is (addr >> 4) | 1 << 16, the high word a constant; smem addresses stay below 2^18,
// so k offsets are added to the low word (no mask/shift chain and R2UR around every wgmma).
__device__ __forceinline__ uint32_t desc_lo(uint32_t smem_addr) { return (smem_addr >> 4) | (1u << 16); }
__device__ __forceinline__ uint64_t desc_of(uint32_t lo) { return (0x40000040ull << 32) | lo; }

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

// m64n216k16: 216 is a multiple of 8, so a valid wgmma N; 108 accumulators per thread, laid out as
// the m64n256 ones (d[i]: row 16w + l/4 + 8*((i>>1)&1), column 8*(i>>2) + 2*(l%4) + (i&1)).
#define ACC8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), \
                "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
__device__ __forceinline__ void wgmma_m64n216k16(float (&d)[NACC216], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %110, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n216k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107}, "
      "%108, %109, p, 1, 1, 0, 0;\n}\n"
      : ACC8(0), ACC8(8), ACC8(16), ACC8(24), ACC8(32), ACC8(40), ACC8(48), ACC8(56), ACC8(64),
        ACC8(72), ACC8(80), ACC8(88), ACC8(96), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107])
      : "l"(da), "l"(db), "r"(scale_d));
}
#undef ACC8

// Four bf16 8x8 matrices from the mma fragment layout (register j of lane l: row l/4, columns
// 2*(l%4), +1 of matrix j), stored transposed: the row address of lane 8j + r receives column r of
// matrix j, 16 bytes.
__device__ __forceinline__ void stmatrix_x4_trans(uint32_t addr, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t *>(&v);
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

// One producer k-step: wait until ring slot it % STAGES is free, announce `bytes` on its full
// barrier, and load two 128B-swizzled boxes into it, at +0 (map0 at row y0) and at +off1 (map1 at
// row y1), both at K offset k. Both configurations' producers run on this.
__device__ __forceinline__ void load_stage(int it, uint32_t base, uint32_t fbar, uint32_t ebar,
                                           uint32_t bytes, const TensorMap &map0, int y0,
                                           uint32_t off1, const TensorMap &map1, int y1, int k) {
  const int s = it % STAGES;
  const uint32_t ph = (uint32_t)(it / STAGES) & 1u;
  mbar_wait(ebar + 8 * s, ph ^ 1u);
  const uint32_t dst0 = base + s * STAGE_BYTES, dst1 = dst0 + off1;
  const uint32_t bar = fbar + 8 * s;
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst0),
               "l"(&map0), "r"(k), "r"(y0), "r"(bar)
               : "memory");
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst1),
               "l"(&map1), "r"(k), "r"(y1), "r"(bar)
               : "memory");
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

// This CTA's work: the data-parallel tiles blockIdx.x, +G, ... below dp_end (round-robin),
// then its stream-K range [sk_i, sk_e) of k-iterations, where iteration i is k-tile i % kTiles of
// tile dp_end + i / kTiles. CTA q's range is [q*per + min(q, extra), (q+1)*per + min(q+1, extra)).
// Producer and consumers build the same Work and walk it in step.
struct Work {
  int t, dp_end, kTiles;
  uint32_t sk_i, sk_e, per, extra;
};

// End of CTA q's stream-K range.
__device__ __forceinline__ uint32_t sk_end(const Work &w, uint32_t q) {
  return (q + 1) * w.per + min(q + 1, w.extra);
}

__device__ __forceinline__ Work make_work(int tiles, int kTiles) {
  const int G = gridDim.x, c = blockIdx.x;
  const int rounds = tiles / G, rem = tiles % G;
  uint32_t nsm;
  asm("mov.u32 %0, %%nsmid;" : "=r"(nsm));
  Work w;
  w.t = c;
  w.kTiles = kTiles;
  w.dp_end = tiles;
  w.sk_i = w.sk_e = w.per = w.extra = 0;
  if (SK_ON && rem > 0 && rounds > 0 && kTiles > 0 && rem * SK_DEN <= G * SK_NUM && (uint32_t)G <= nsm) {
    int sk_tiles;
    if (rem * SK_REM_DEN >= G * SK_REM_NUM && rem * kTiles >= G) {
      // Remainder only: all full rounds stay data-parallel and the rem tiles are shared out, so
      // the staggered stream-K phase touches only the rem tiles' A and B panels (which fit in L2);
      // ranges are about kTiles * rem / G >= kTiles / 4 long (at least 1: rem * kTiles >= G).
      w.dp_end = rounds * G;
      sk_tiles = rem;
    } else {
      // Last full round + remainder: every range is at least kTiles long, so a tile has at most
      // two contributors; the ranges are staggered by only rem/G of a tile.
      w.dp_end = (rounds - 1) * G;
      sk_tiles = G + rem;
    }
    const uint32_t iters = (uint32_t)sk_tiles * (uint32_t)kTiles;
    w.per = iters / G;
    w.extra = iters % G;
    w.sk_i = c * w.per + min((uint32_t)c, w.extra);
    w.sk_e = sk_end(w, c);
  }
  return w;
}

// Next unit: a tile and its k-tile range [k0, k1). Data-parallel tiles are whole (0, kTiles).
__device__ __forceinline__ bool next_unit(Work &w, int &tile, int &k0, int &k1) {
  if (w.t < w.dp_end) {
    tile = w.t;
    k0 = 0;
    k1 = w.kTiles;
    w.t += gridDim.x;
    return true;
  }
  if (w.sk_i < w.sk_e) {
    tile = w.dp_end + (int)(w.sk_i / (uint32_t)w.kTiles);
    k0 = (int)(w.sk_i % (uint32_t)w.kTiles);
    k1 = min(w.kTiles, k0 + (int)(w.sk_e - w.sk_i));
    w.sk_i += (uint32_t)(k1 - k0);
    return true;
  }
  return false;
}

__device__ __forceinline__ uint32_t ld_acquire_gpu(const uint32_t *p) {
  uint32_t v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// ---- T216 ----

// Which configuration this launch runs, from M, N, K, the grid (G = min(132, expert tiles)) and
// %nsmid; the same answer in every thread (parameters and gridDim only). Both estimates are in
// tile-times of one 128x256 tile, scaled by 20 * 256 to stay in integers:
//  - the expert: ceil(tiles / G) rounds when it runs round-robin alone; with the stream-K tail
//    (make_work's conditions), its full data-parallel rounds + the stream-K region / G + 0.15 for
//    the fix-up (fitted on the H200: n7168 M3000 took 5.24 tile-times for 5.09 of work);
//  - T216: ceil(tiles216 / G) rounds of tiles worth (216 + T216_OVH) / 256 of a 128x256 tile:
//    216/256 of the FLOPs, plus 4/256 for per-tile costs that do not shrink with the tile (the
//    wgmma pipe drained and refilled at every tile's epilogue, 17% more tiles) and the 6% more
//    shared-memory bytes per FLOP (43 KiB per 27648 outputs against 48 KiB per 32768).
// T216 runs when its estimate is strictly smaller. On the 15 workloads that is n7168 M3000
// (5.16 against 5.25) and n14336 M3000 (10.31 against 10.35) only (README.md has the table).
__device__ __forceinline__ bool t216_selected(int M, int N, int K) {
  // 32-bit unsigned, one division by G per estimate (64-bit divisions here cost ~2% at M = 1024);
  // no product overflows while tiles < 2^24 and K < 2^30.
  const uint32_t G = gridDim.x;
  const uint32_t kTiles = (K + BK - 1) / BK;
  const uint32_t tiles = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);
  if (!T216_ON || kTiles == 0 || tiles == 0)
    return false;
  const uint32_t rounds = tiles / G, rem = tiles - rounds * G;
  uint32_t nsm;
  asm("mov.u32 %0, %%nsmid;" : "=r"(nsm));
  uint32_t expert20;
  if (SK_ON && rem > 0 && rounds > 0 && rem * SK_DEN <= G * SK_NUM && G <= nsm) {
    // make_work's two stream-K regions: the rem tiles alone after all full rounds, or the last
    // full round plus the rem tiles after the others.
    const bool rem_only = rem * SK_REM_DEN >= G * SK_REM_NUM && rem * kTiles >= G;
    const uint32_t sk_tiles = rem_only ? rem : G + rem;
    expert20 = 20u * (rem_only ? rounds : rounds - 1) + (20u * sk_tiles + G - 1) / G + SK_FIXUP20;
  } else {
    expert20 = 20u * ((tiles + G - 1) / G);
  }
  const uint32_t tiles216 = ((N + TN - 1) / TN) * ((M + TM - 1) / TM);
  const uint32_t rounds216 = (tiles216 + G - 1) / G;
  return 20u * rounds216 * (TM + T216_OVH) < 256u * expert20;
}

// The producer's T216 loop: tile t = blockIdx.x, +G, ... in the grouped order of 16 N-tiles (the
// expert's tile_coords with N-tiles of 128 as its rows and M-tiles of 216 as its columns); each
// k-step fills a stage slot with B's 128x64 box at +0 and A's 216x64 box at +16 KiB.
__device__ __forceinline__ void produce_t216(const TensorMap &tmA216, const TensorMap &tmB128, int M, int N, int K,
                                             uint32_t base, uint32_t fbar, uint32_t ebar) {
  const int kTiles = (K + BK - 1) / BK;
  const int tiles_n = (N + TN - 1) / TN, tiles_m = (M + TM - 1) / TM;
  const int tiles = tiles_n * tiles_m;
  int it = 0;
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    int nt, mt;
    tile_coords(t, tiles_n, tiles_m, nt, mt);
    const int n0 = nt * TN, m0 = mt * TM;
    for (int kt = 0; kt < kTiles; ++kt, ++it)
      load_stage(it, base, fbar, ebar, T216_STAGE_BYTES, tmB128, n0, T216_B_BYTES, tmA216, m0,
                 kt * BK);
  }
}

// A consumer warpgroup's T216 loop (cw = 0 or 1: N-rows [n0 + 64cw, +64) of each tile).
__device__ __forceinline__ void consume_t216(const TensorMap &tmC112, int M, int N, int K, uint32_t base,
                                             uint32_t fbar, uint32_t ebar, int cw, int tid) {
  const int w = (tid % 128) / 32, l = tid % 32;
  const bool store_leader = (tid % 128) == 0;
  const uint32_t stg = base + STAGES * STAGE_BYTES + cw * STG_WG_BYTES;
  const int kTiles = (K + BK - 1) / BK; // > 0: t216_selected requires it
  const int tiles_n = (N + TN - 1) / TN, tiles_m = (M + TM - 1) / TM;
  const int tiles = tiles_n * tiles_m;
  // This lane's stmatrix row address in a pass, before the 2 KiB step per x4 (see the epilogue):
  // lane l gives row r = l % 8 of matrix j = l / 8, which holds n-columns 16w + 8*(j&1) + [0, 8)
  // (16-byte chunk 2w + (j&1) of the 128-byte row) of C row 8*(j>>1) + r; chunk ^ r is the 128B
  // swizzle (the staging buffer is 1024-byte aligned and every pass starts at its row 0).
  const int sj = l / 8, sr = l % 8;
  const uint32_t lane_off = (uint32_t)((8 * (sj >> 1) + sr) * 128 + (((2 * w + (sj & 1)) ^ sr) << 4));
  float d[NACC216];
#pragma unroll
  for (int i = 0; i < NACC216; ++i) // as the expert: no undefined values into the asm (scale-d 0 ignores them)
    d[i] = 0.f;
  int it = 0;
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    int nt, mt;
    tile_coords(t, tiles_n, tiles_m, nt, mt);
    const int n0 = nt * TN, m0 = mt * TM;
    // The 128x256 loop's k-steps, with m64n216. Written out rather than shared through a template:
    // one made ptxas address the barriers from regular instead of uniform registers (2-4 more
    // instructions around each wgmma cluster in the SASS).
    int prev_s = 0;
    for (int kt = 0; kt < kTiles; ++kt, ++it) {
      const int s = it % STAGES;
      const uint32_t ph = (uint32_t)(it / STAGES) & 1u;
      mbar_wait(fbar + 8 * s, ph);
      // wgmma A = this warpgroup's 64 rows of B's box, wgmma B = A's 216-row box; both K-major,
      // 128B-swizzled, 1024-byte aligned: the expert's descriptor words (SBO 1024 B, +32 B per k16).
      const uint32_t sA = base + s * STAGE_BYTES + cw * (64 * 128), sB = base + s * STAGE_BYTES + T216_B_BYTES;
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
      for (int k = 0; k < BK / 16; ++k)
        wgmma_m64n216k16(d, desc_of(desc_lo(sA) + 2 * k), desc_of(desc_lo(sB) + 2 * k), (kt > 0 || k > 0) ? 1 : 0);
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
      if (kt > 0)
        mbar_arrive(ebar + 8 * prev_s);
      prev_s = s;
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    mbar_arrive(ebar + 8 * prev_s);

    // Epilogue. d[i] is C^T row n0 + 64cw + 16w + l/4 + 8*((i>>1)&1), column m0 + 8*(i>>2) +
    // 2*(l%4) + (i&1): 8-column block b = i>>2 of the fragment is two 8x8 matrices (n-halves
    // d[4b], d[4b+1] and d[4b+2], d[4b+3]); stored transposed they are 8 rows of C (m) x 8
    // n-columns each. Pass p stages blocks [13p, 13p + 14) = C rows m0 + 104p + [0, 112) as
    // staging rows [0, 112), one x4 per pair of blocks, and stores them with one 112x64 TMA box.
    const int ncol0 = n0 + 64 * cw;
#pragma unroll
    for (int p = 0; p < 2; ++p) {
      if (store_leader)
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
      asm volatile("bar.sync %0, 128;" ::"r"(1 + cw) : "memory");
#pragma unroll
      for (int q = 0; q < T216_PASS_ROWS / 16; ++q) {
        const int b = (T216_PASS2_ROW0 / 8) * p + 2 * q; // 8-row blocks b, b + 1
        stmatrix_x4_trans(stg + lane_off + q * (16 * 128), pack_bf16x2(d[4 * b], d[4 * b + 1]),
                          pack_bf16x2(d[4 * b + 2], d[4 * b + 3]), pack_bf16x2(d[4 * b + 4], d[4 * b + 5]),
                          pack_bf16x2(d[4 * b + 6], d[4 * b + 7]));
      }
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      asm volatile("bar.sync %0, 128;" ::"r"(1 + cw) : "memory");
      const int row0 = m0 + T216_PASS2_ROW0 * p;
      if (store_leader && row0 < M && ncol0 < N) {
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], "
                     "[%3];" ::"l"(&tmC112),
                     "r"(ncol0), "r"(row0), "r"(stg)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      }
    }
  }
  // The staging buffer must stay allocated until the last TMA store has read it.
  if (store_leader)
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

extern "C" __global__ void __launch_bounds__(384, 1)
gemm_wgmma_tma_ws_sk(const __grid_constant__ TensorMap tmA,
                     const __grid_constant__ TensorMap tmB,
                     const __grid_constant__ TensorMap tmC,
                     const __grid_constant__ TensorMap tmA216,
                     const __grid_constant__ TensorMap tmB128,
                     const __grid_constant__ TensorMap tmC112, int M, int N, int K,
                     float4 *__restrict__ partials, uint32_t *flags) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ alignas(8) uint64_t full[STAGES];
  __shared__ alignas(8) uint64_t empty[STAGES];
  const uint32_t raw = (uint32_t)__cvta_generic_to_shared(smem_raw);
  const uint32_t base = (raw + 1023u) & ~1023u;
  const uint32_t fbar = (uint32_t)__cvta_generic_to_shared(&full[0]);
  const uint32_t ebar = (uint32_t)__cvta_generic_to_shared(&empty[0]);
  const int tid = threadIdx.x, wg = __shfl_sync(0xffffffffu, tid / 128, 0); // warp-uniform

  if (tid == 0) {
    // All six maps: a prefetch is a hint, cheaper than deciding here which three are used.
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmA) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmB) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmC) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmA216) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmB128) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmC112) : "memory");
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
    if (tid / 32 == 0 && leader && t216_selected(M, N, K)) {
      produce_t216(tmA216, tmB128, M, N, K, base, fbar, ebar);
    } else if (tid / 32 == 0 && leader) {
      // Tile counts are computed in each role, not before the role split: computed there, ptxas
      // kept them live across setmaxnreg and spilled 16 bytes.
      const int kTiles = (K + BK - 1) / BK;
      const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
      const int tiles = tiles_m * tiles_n;
      Work work = make_work(tiles, kTiles);
      int it = 0, tile, k0, k1;
      while (next_unit(work, tile, k0, k1)) {
        int mt, nt;
        tile_coords(tile, tiles_m, tiles_n, mt, nt);
        const int m0 = mt * BM, n0 = nt * BN;
        for (int kt = k0; kt < k1; ++kt, ++it)
          load_stage(it, base, fbar, ebar, STAGE_BYTES, tmA, m0, TILE_A_BYTES, tmB, n0, kt * BK);
      }
    }
    return;
  }

  // Consumer warpgroups.
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;" ::: "memory");
  const int cw = wg - 1;
  if (t216_selected(M, N, K)) {
    consume_t216(tmC112, M, N, K, base, fbar, ebar, cw, tid);
    return;
  }
  const int w = (tid % 128) / 32, l = tid % 32;
  const bool store_leader = (tid % 128) == 0; // issues and drains this warpgroup's TMA stores
  // This consumer's staging buffer, after the ring (1024-byte aligned for the 128B swizzle).
  const uint32_t stg = base + STAGES * STAGE_BYTES + cw * STG_WG_BYTES;
  const int kTiles = (K + BK - 1) / BK;
  const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
  const int tiles = tiles_m * tiles_n;
  float d[NACC];
#pragma unroll
  for (int i = 0; i < NACC; ++i)
    d[i] = 0.f;
  Work work = make_work(tiles, kTiles);
  int it = 0, tile, k0, k1;
  for (;;) {
    // Warp-uniform for ptxas (they are: all from blockIdx and the parameters), see the header.
    if (!__all_sync(0xffffffffu, next_unit(work, tile, k0, k1)))
      break;
    k0 = __shfl_sync(0xffffffffu, k0, 0);
    k1 = __shfl_sync(0xffffffffu, k1, 0);
    int mt, nt;
    tile_coords(tile, tiles_m, tiles_n, mt, nt);
    const int m0 = mt * BM, n0 = nt * BN;
    int prev_s = 0;
    for (int kt = k0; kt < k1; ++kt, ++it) {
      const int s = it % STAGES;
      const uint32_t ph = (uint32_t)(it / STAGES) & 1u;
      mbar_wait(fbar + 8 * s, ph);
      const uint32_t sA = base + s * STAGE_BYTES + cw * (64 * 128), sB = base + s * STAGE_BYTES + TILE_A_BYTES;
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
      for (int k = 0; k < BK / 16; ++k)
        wgmma_m64n256k16(d, desc_of(desc_lo(sA) + 2 * k), desc_of(desc_lo(sB) + 2 * k), (kt > k0 || k > 0) ? 1 : 0);
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
      if (kt > k0)
        mbar_arrive(ebar + 8 * prev_s);
      prev_s = s;
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    if (k1 > k0)
      mbar_arrive(ebar + 8 * prev_s);

    if (k0 > 0) {
      // Tail or middle piece of a stream-K tile (always this CTA's first stream-K unit): hand the
      // partial sum to the CTA that owns the tile's head. Slot = this CTA, this warpgroup.
      float4 *slot = partials + (size_t)(blockIdx.x * 2 + cw) * SLOT_VEC * 128 + tid % 128;
#pragma unroll
      for (int j = 0; j < SLOT_VEC; ++j)
        __stcg(slot + j * 128, make_float4(d[4 * j], d[4 * j + 1], d[4 * j + 2], d[4 * j + 3]));
      // All 128 threads' stores happen before the one release (the CUTLASS barrier pattern:
      // block-level barrier, then a gpu-scope fence and a relaxed add by one thread).
      asm volatile("bar.sync %0, 128;" ::"r"(1 + cw) : "memory");
      if (tid % 128 == 0)
        asm volatile("fence.acq_rel.gpu;\n"
                     "red.relaxed.gpu.global.add.u32 [%0], 1;" ::"l"(flags + blockIdx.x * 2 + cw)
                     : "memory");
      continue;
    }
    if (k1 < kTiles) {
      // Head of a stream-K tile (always this CTA's last unit): CTAs blockIdx.x+1, +2, ... computed
      // [k1, kTiles) first thing in their stream-K ranges, up to the one whose range reaches the
      // tile's end; wait for each one's slot and add it.
      const uint32_t tile_end = (uint32_t)(tile - work.dp_end + 1) * (uint32_t)kTiles;
      uint32_t q_last = blockIdx.x;
      for (uint32_t q = blockIdx.x + 1; q < gridDim.x; ++q) {
        q_last = q;
        const uint32_t *flag = flags + q * 2 + cw;
        while (ld_acquire_gpu(flag) == 0) {
        }
        const float4 *slot = partials + (size_t)(q * 2 + cw) * SLOT_VEC * 128 + tid % 128;
#pragma unroll
        for (int j = 0; j < SLOT_VEC; ++j) {
          const float4 p = __ldcg(slot + j * 128);
          d[4 * j] += p.x;
          d[4 * j + 1] += p.y;
          d[4 * j + 2] += p.z;
          d[4 * j + 3] += p.w;
        }
        if (sk_end(work, q) >= tile_end)
          break;
      }
      // Every thread of the warpgroup has seen its contributors' flags: reset them for the next
      // launch (zero=once workspace).
      asm volatile("bar.sync %0, 128;" ::"r"(1 + cw) : "memory");
      if (tid % 128 == 0)
        for (uint32_t q = blockIdx.x + 1; q <= q_last; ++q)
          asm volatile("st.relaxed.gpu.global.u32 [%0], 0;" ::"l"(flags + q * 2 + cw) : "memory");
    }
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
