// Attention forward with the log-sum-exp: the expert of the mha_fwd corpus.
// O = softmax(Q K^T / sqrt(D)) V and LSE = log(sum_j exp(Q K^T / sqrt(D))), bf16 Q, K, V, O
// [B, H, S, D], fp32 LSE [B, H, S], D in {64, 128, 256} and CAUSAL (top-left aligned) read at run
// time. On the H200, all 20 workloads of the four mha_fwd tasks pass: d128 0.92-1.06 of cuDNN's
// fused SDPA (B2 S8192 0.88 with our samples under the power cap, 1.00 at full clock), causal
// 0.91-1.03, d64 0.93-1.05, d256 0.70-0.84 (docs/performance.md). The simpler non-persistent
// kernel it grew from is wgmma_tma.cu beside it; math, tiles, shared-memory layouts and fragments
// are wgmma_tma.cu's (see its header, and utils/emulate-mha-fwd.py for their model).
//
// Why persistent. wgmma_tma.cu launches one CTA per (128 query rows, h, b) at one CTA per SM;
// with S = 512 or 1024 a CTA has only 4 or 8 K/V tiles, so its serial parts (Q and first K load
// latency, the first Q K^T and softmax, the last P V, the O stores, CTA start and teardown) are a
// large share of its time and nothing overlaps them. Here min(132, items) CTAs (one per H200 SM)
// each loop over work items (query tile, h, b), and the producer keeps running ahead across
// items, so the next item's Q and first K/V tiles land while the consumers finish the current
// one. Every stage use is released; under the causal mask with BN = 64 the warpgroup that skips
// the final tile still waits for it to land and then arrives on its empty barrier.
//
// Data flow. 384 threads = 3 warpgroups. Warpgroup 0 is the producer (setmaxnreg.dec 40, one
// elected thread issues TMA: 4-D maps, 128B swizzle, Q in two 64-row halves per item, K and V
// tiles of BN keys into an NST-stage ring on transaction-count mbarriers fullK/fullV, empty[s]
// collects 256 consumer arrivals). Warpgroups 1 and 2 (setmaxnreg.inc 232) take 64 query rows
// each: S = Q K^T (wgmma, both operands from shared memory), online softmax in registers (log2
// domain), O += P V (wgmma, P from registers, V MN-major), the next tile's Q K^T overlapping this
// tile's P V. Ring positions count K/V tiles across items: stage = k % NST, parity = (k / NST) & 1.
// NST = 3 for D <= 128 (2 for D = 256, which has no room), so the producer runs up to two tiles
// ahead.
//
// Dynamic schedule. Each CTA's first item is blockIdx.x and every later one is gridDim.x +
// atomicAdd(tiles, 1) on a zeroed 4-byte workspace counter, so a CTA that finishes early takes
// more items: under the causal mask an item's work is 1 to S/128 K/V tiles, and a static
// round-robin deal left the tail of the grid on a few SMs. The producer thread claims the next
// item as soon as it starts the current one (the atomic's latency hides behind the current
// item's loads) and hands it to the consumers through a per-warpgroup shared slot, decoded
// (q0, h, b, n_tiles), so the consumers spend no integer divisions at the item switch.
// Item order: non-causal, head-major (CTAs in flight share K/V in L2). Causal, longest first, in
// L2 sections: the heads are cut into sections of G consecutive heads whose K and V fit in 16 MiB
// (L2_SECTION_BYTES; G = 16 MiB / (S * D * 4 bytes), at least 1, at most B*H); sections run one
// after the other, and inside a section the longest tile of each of its G heads comes first. So
// the CTAs in flight share the K/V of G heads in L2 and each section's short items fill the gaps
// left by its long ones. Longest first over all heads at once keeps ~132 heads in flight and
// streams nearly all K/V from HBM; 32 MiB sections still re-read 177 MB at causal B32 S512
// (Nsight Compute: 781 MB read from DRAM against cuDNN's 604 MB, Q + K + V once); 16 MiB keeps
// long S and gains 1.5-4% at S <= 1024, 8 MiB loses 4% at S8192 (2 heads per section).
//
// Ping-pong (D <= 128). Named barriers 1 and 2 (256 threads each) pass a turn between the
// consumer warpgroups: warpgroup c waits on barrier 1 + c before issuing its wgmmas of one step
// and then arrives on the other's, so the tensor cores alternate between them and one
// warpgroup's softmax overlaps the other's products. All of a CTA's items run as one software
// pipeline: the last turn of an item is also the first of the next (Q K^T(0) of item i+1 is
// issued together with P V(n-1) of item i, item i+1's first softmax runs while that P V is on the
// tensor cores, and item i's O is stored after it, where a steady step rescales O;
// consume_pipelined()). That is n turns per item of n tiles, plus one at the start and one at the
// end, where a per-item pipeline takes n + 1, whose first and last carry half a tile of tensor
// work but a whole turn of latency. For that, Q comes in two 64-row halves, one per consumer
// warpgroup, each on its own barriers qfull[c] / qempty[c]: half c of the next item is loaded as
// soon as warpgroup c has done its last Q K^T of the current one, and the producer issues the
// next item's first K/V tile before its Q halves (produce()). The turn that ends an item is an
// ordinary pipeline step: m = -inf and l = 0 before the next item's first softmax make corr = 0,
// and the step's rescale zeroes O after the store (zeroing O with moves in a separate block made
// ptxas serialize the wgmmas, C7513). LSE is stored before the last P V, and 1/l waits in 512
// bytes of static shared memory for the O store (fewer live registers there). A Q half wholly
// past S (ragged S) is loaded from row S - 1: its rows are never stored but must be finite, since
// NaN * 0 would carry into the next item's O. D = 256 (O is 128 registers; the turn logic made
// ptxas spill) runs each item as its own pipeline without ping-pong, with the same Q halves and
// slots.
//
// Few instructions per K/V tile. The consumers' steady-state loop is 512 SASS instructions per
// unmasked tile at D = 128 (448 at D = 64, 468 at D = 256, one warp), against 703 / 560 / 612 for
// the same math written plainly:
//  - the softmax scale is folded into the exponent: max on raw scores, p = 2^fma(s, c, -m) (one
//    FFMA instead of FMUL + FADD per score); masking only on diagonal and ragged tiles;
//  - S is not zeroed per tile: the first k-step of Q K^T runs with scale-d = 0 and "=f" outputs;
//  - descriptors are a 32-bit low word plus a constant high word, one add per k-step, and the
//    stage and Q addresses are made provably warp-uniform (shfl from lane 0) so ptxas computes
//    them on the uniform datapath.
// At D = 128 the online softmax keeps its row maxima and row sums in 4 independent partial values
// per row, combined at the end (SOFTMAX_CHAINS<D>): one chain is a dependent sequence of 32 FMNMX
// and 32 FADD per row and tile, and Nsight Compute at causal d128 B32 S512 put the warps at 1.79
// cycles of `wait` stall per issued instruction against cuDNN's 0.93. Four chains gain 1-2% at
// S <= 1024 and are level at long S; at D = 64 they were 1% slower at long S and at D = 256 level,
// so both keep one chain. Only the order of the sum's fp32 additions changes (the maxima are
// exact).
//
// Tile sizes. BM = 128, BN = 128 keys for D <= 128 and 64 for D = 256. Shared memory: Q 128*D*2 +
// NST x (K + V) BN*D*2 bytes + 1 KiB alignment slack, NST = 3 - D/256: 113 KiB (D = 64), 225 KiB
// (D = 128, of the 227 KiB an H200 CTA may have), 193 KiB (D = 256).
//
// @ptxbench kernel mha_fwd_wgmma_tma grid=(min(132, ceildiv(S, 128)*H*B)) block=384 smem=256*D+(12-4*(D/256))*min(128*D, 16384)+1024
// @ptxbench   args tmQ, tmK, tmV, O, LSE, B, H, S, D, CAUSAL, tiles
// @ptxbench tensormap tmQ tensor=Q box=(1, 1, 64, 64) swizzle=128B
// @ptxbench tensormap tmK tensor=K box=(1, 1, min(128, 16384/D), 64) swizzle=128B
// @ptxbench tensormap tmV tensor=V box=(1, 1, min(128, 16384/D), 64) swizzle=128B
// @ptxbench workspace tiles bytes=4 zero
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
//
// Built as a 32-bit low word plus a constant high word, so a k-step's descriptor is one integer
// add of an immediate to the tile's low word (rebuilding every descriptor from the byte address
// takes an add, mask, shift, or, and a re-materialized high word, ~8 instructions per wgmma).
// Low word: start address >> 4 in bits 0-13, LBO (16-byte units) in bits 16-29. Adding a k-step's
// offset >> 4 cannot carry out of the 14-bit field: every operand lies in the CTA's shared window,
// below 228 KiB < 2^18 bytes. High word: SBO = 1024 B (64 units, bits 32-45), 128B swizzle (bit 62).
#define DESC_HI 0x40000040u

// K-major operand with 128-byte rows: LBO unused (1), SBO = 8 rows * 128 B.
__device__ __forceinline__ uint32_t desc_lo_kmajor_sw128(uint32_t smem_addr) {
  return ((smem_addr & 0x3FFFF) >> 4) | (1u << 16);
}

// MN-major operand: LBO = bytes between 64-element atoms along N, SBO = 8 K-rows * 128 B.
__device__ __forceinline__ uint32_t desc_lo_mnmajor_sw128(uint32_t smem_addr, uint32_t lbo_bytes) {
  return ((smem_addr & 0x3FFFF) >> 4) | (((lbo_bytes >> 4) & 0x3FFF) << 16);
}

// The descriptor whose low word is lo plus the byte offset off (a multiple of 16) of a k-step.
__device__ __forceinline__ uint64_t desc_at(uint32_t lo, uint32_t off) {
  return ((uint64_t)DESC_HI << 32) | (uint64_t)(lo + (off >> 4));
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

// The first k-step of a product that starts from zero: scale-d = 0 (D = A * B) and the
// accumulator registers are outputs only ("=f"), so the compiler need not zero them first.
// (This saves zeroing S with 64 moves per tile; "+f" on undefined registers instead made
// ptxas 13.0 serialize the wgmmas, C7514.)
__device__ __forceinline__ void wgmma_ss_m64n64_first(float (&d)[32], uint64_t da, uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, "
      "%10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, "
      "%29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
      :
        "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]), "=f"(d[6]), "=f"(d[7]),
        "=f"(d[8]), "=f"(d[9]), "=f"(d[10]), "=f"(d[11]), "=f"(d[12]), "=f"(d[13]), "=f"(d[14]), "=f"(d[15]),
        "=f"(d[16]), "=f"(d[17]), "=f"(d[18]), "=f"(d[19]), "=f"(d[20]), "=f"(d[21]), "=f"(d[22]), "=f"(d[23]),
        "=f"(d[24]), "=f"(d[25]), "=f"(d[26]), "=f"(d[27]), "=f"(d[28]), "=f"(d[29]), "=f"(d[30]), "=f"(d[31])
      : "l"(da), "l"(db), "n"(0));
}

__device__ __forceinline__ void wgmma_ss_m64n128_first(float (&d)[64], uint64_t da, uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, "
      "%10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, "
      "%29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, "
      "1, 0, 0;\n}\n"
      :
        "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]), "=f"(d[6]), "=f"(d[7]),
        "=f"(d[8]), "=f"(d[9]), "=f"(d[10]), "=f"(d[11]), "=f"(d[12]), "=f"(d[13]), "=f"(d[14]), "=f"(d[15]),
        "=f"(d[16]), "=f"(d[17]), "=f"(d[18]), "=f"(d[19]), "=f"(d[20]), "=f"(d[21]), "=f"(d[22]), "=f"(d[23]),
        "=f"(d[24]), "=f"(d[25]), "=f"(d[26]), "=f"(d[27]), "=f"(d[28]), "=f"(d[29]), "=f"(d[30]), "=f"(d[31]),
        "=f"(d[32]), "=f"(d[33]), "=f"(d[34]), "=f"(d[35]), "=f"(d[36]), "=f"(d[37]), "=f"(d[38]), "=f"(d[39]),
        "=f"(d[40]), "=f"(d[41]), "=f"(d[42]), "=f"(d[43]), "=f"(d[44]), "=f"(d[45]), "=f"(d[46]), "=f"(d[47]),
        "=f"(d[48]), "=f"(d[49]), "=f"(d[50]), "=f"(d[51]), "=f"(d[52]), "=f"(d[53]), "=f"(d[54]), "=f"(d[55]),
        "=f"(d[56]), "=f"(d[57]), "=f"(d[58]), "=f"(d[59]), "=f"(d[60]), "=f"(d[61]), "=f"(d[62]), "=f"(d[63])
      : "l"(da), "l"(db), "n"(0));
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
  // Not unrolled: the producer runs in 40 registers (setmaxnreg), and with D = 256 the unrolled
  // four boxes of K and of V made ptxas spill there once the dynamic scheduler's state was added.
#pragma unroll 1
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
// Tile configuration per head dimension.
#define MAX_NST 3 // most K/V stages any D uses (sizes the barrier array)
template <int D> struct Tiles {
  static constexpr int BN = D <= 128 ? 128 : 64;          // keys per KV tile
  static constexpr int NST = D <= 128 ? 3 : 2; // K/V ring stages (the plan's smem size follows)
  static constexpr uint32_t Q_BYTES = BM * D * 2;         // the Q tile
  static constexpr uint32_t KV_BYTES = BN * D * 2;        // one K (or V) tile
  static constexpr uint32_t STAGE_BYTES = 2 * KV_BYTES;   // K then V
};

// S = Q K^T for this warpgroup's 64 rows: s[BN/2] per thread (wgmma accumulator layout). S starts
// from zero (the first k-step has scale-d = 0), so s needs no definition before the call.
template <int D>
__device__ __forceinline__ void qk_wgmma(float (&s)[Tiles<D>::BN / 2], uint32_t sQ, uint32_t sK) {
  constexpr int BN = Tiles<D>::BN;
  const uint32_t qa = desc_lo_kmajor_sw128(sQ), kb = desc_lo_kmajor_sw128(sK);
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
    // k16 step kk: column block kk/4, 32 bytes per step inside the 128-byte row.
    const uint64_t da = desc_at(qa, (kk / 4) * (BM * 128) + (kk % 4) * 32);
    const uint64_t db = desc_at(kb, (kk / 4) * (BN * 128) + (kk % 4) * 32);
    if constexpr (BN == 128) {
      if (kk == 0)
        wgmma_ss_m64n128_first(s, da, db);
      else
        wgmma_ss_m64n128(s, da, db);
    } else {
      if (kk == 0)
        wgmma_ss_m64n64_first(s, da, db);
      else
        wgmma_ss_m64n64(s, da, db);
    }
  }
}

// O += P V: o[D/2] per thread, P as bf16 A fragments p[BN/16][4], V MN-major.
template <int D>
__device__ __forceinline__ void pv_wgmma(float (&o)[D / 2], const uint32_t (&p)[Tiles<D>::BN / 16][4],
                                         uint32_t sV) {
  constexpr int BN = Tiles<D>::BN;
  const uint32_t vb = desc_lo_mnmajor_sw128(sV, BN * 128);
#pragma unroll
  for (int kk = 0; kk < BN / 16; ++kk) {
    const uint64_t db = desc_at(vb, kk * 16 * 128);
    if constexpr (D == 64)
      wgmma_rs_m64n64_tb(o, p[kk], db);
    else if constexpr (D == 128)
      wgmma_rs_m64n128_tb(o, p[kk], db);
    else
      wgmma_rs_m64n256_tb(o, p[kk], db);
  }
}

// ---------------------------------------------------------------------------------------------
// Dynamic schedule. A work item is (query tile, h, b), numbered
//  - causal: in sections of G consecutive heads bh = b * H + h (G heads' K and V fit in 16 MiB of
//    L2): section sec holds heads [sec * G, sec * G + hs), hs = min(G, B*H - sec * G), and its
//    item sec * G * n_qt + rank * hs + (bh - sec * G) is query tile n_qt - 1 - rank of head bh:
//    inside a section, every head's longest tile first, the one-tile items last;
//  - otherwise head-major, i = (b * H + h) * n_qt + q_tile, so the ~132 CTAs in flight at any
//    time work on a few heads and share their K/V in L2.
// A CTA's first item is blockIdx.x, each later one gridDim.x + atomicAdd(tiles, 1) (see produce()).
struct Item {
  int q0, h, b, n_tiles;
};

#define L2_SECTION_BYTES (16u << 20) // K + V bytes of one causal section's heads

template <int D>
__device__ __forceinline__ Item item_of(int i, int B, int H, int S, bool causal) {
  constexpr int BN = Tiles<D>::BN;
  const int n_qt = (S + BM - 1) / BM;
  int bh, q_tile;
  if (causal) {
    const int n_bh = B * H;
    // g = 16 MiB / (S * 4D bytes of K and V per head), divided in two steps so nothing overflows.
    const int g = min(n_bh, max(1, (int)(L2_SECTION_BYTES / (4 * D) / (uint32_t)S)));
    const int sec = i / (g * n_qt), r = i - sec * (g * n_qt); // all earlier sections are full
    const int hs = min(g, n_bh - sec * g);                      // heads in this section
    bh = sec * g + r % hs;
    q_tile = n_qt - 1 - r / hs;
  } else {
    bh = i / n_qt;
    q_tile = i % n_qt;
  }
  Item it;
  it.q0 = q_tile * BM;
  it.h = bh % H;
  it.b = bh / H;
  const int kv_end = causal ? min(S, it.q0 + BM) : S; // keys this item needs: [0, kv_end)
  it.n_tiles = (kv_end + BN - 1) / BN;
  return it;
}

// Ring position of the k-th K/V tile this CTA handles (counted across items).
template <int D> __device__ __forceinline__ uint32_t ring_stage(uint32_t k) {
  return k % Tiles<D>::NST;
}
template <int D> __device__ __forceinline__ uint32_t ring_parity(uint32_t k) {
  return (k / Tiles<D>::NST) & 1u;
}


// ---------------------------------------------------------------------------------------------
// Producer: one elected thread of warpgroup 0, for all of this CTA's items.
//
// Q in two 64-row halves, one per consumer warpgroup, each on its own barriers: qfull[c]
// (1 arrival + the half's bytes) and qempty[c] (128 arrivals, warpgroup c's threads right after
// their last Q K^T of an item completed). Half c of the next item's Q is loaded as soon as
// warpgroup c is done with its half, without waiting for the other warpgroup.
// Per item the order is: first K/V tile, Q half 0, Q half 1, the other K/V tiles. The first tile's
// stage was last used NST tiles earlier and is free long before the Q halves are, and the
// consumers need that tile together with their Q half at the turn that starts the item (see
// consume_pipelined()); the later tiles wait for stages the current item still reads.
//
// Hand-off, per warpgroup (one slot per warpgroup): slot[c] holds the item
// (q0, h, b, n_tiles, decoded here so the consumers spend no integer divisions between items)
// whose Q half the current phase of qfull[c] delivers. It is written after phase n - 1 of
// qempty[c] completed (every thread of warpgroup c read the previous contents before arriving)
// and before the arrive on qfull[c] (release; the consumers' wait on qfull[c] acquires). No more
// work: n_tiles = 0 and an arrive without a transaction, in both slots in the same phase, so
// both warpgroups leave after the same item (see consume()).
template <int D>
__device__ __forceinline__ void load_q_half(uint32_t dst, const TensorMap *map, int s0, int h,
                                            int b, uint32_t bar) {
  // Column block cb of half c lands at base + cb * (BM * 128) + c * (64 * 128): the bytes a
  // 128-row box puts there, since the half's offset is a multiple of 1024 and the 128B swizzle
  // depends only on the address bits 4-9. Not unrolled, as in tma_load_tile.
#pragma unroll 1
  for (int cb = 0; cb < D / 64; ++cb)
    tma_load_box(dst + cb * (BM * 128), map, cb * 64, s0, h, b, bar);
}

template <int D>
__device__ __forceinline__ void produce(const TensorMap *tmQ, const TensorMap *tmK,
                                        const TensorMap *tmV, uint32_t base, uint32_t qfull,
                                        uint32_t qempty, uint32_t fullk, uint32_t fullv,
                                        uint32_t empty, volatile int (*slot)[4], unsigned *tiles,
                                        int B, int H, int S, bool causal, int n_items) {
  using T = Tiles<D>;
  uint32_t k = 0;     // K/V tiles issued so far
  int i = blockIdx.x; // gridDim.x <= n_items, so every CTA has a first item
  for (uint32_t n = 0;; ++n) {
    const bool more = i < n_items;
    Item it = {0, 0, 0, 0}; // n_tiles = 0: "no more work"
    int next = 0;
    if (more) {
      // Claim the next item now; its number is needed only after this item's loads are issued.
      next = (int)gridDim.x + (int)atomicAdd(tiles, 1u);
      it = item_of<D>(i, B, H, S, causal);
    }
    auto load_kv = [&](int j) {
      const uint32_t kj = k + j, st = ring_stage<D>(kj);
      mbar_wait(empty + 8 * st, ring_parity<D>(kj) ^ 1u);
      const uint32_t sK = base + T::Q_BYTES + st * T::STAGE_BYTES, sV = sK + T::KV_BYTES;
      mbar_expect_tx(fullk + 8 * st, T::KV_BYTES);
      tma_load_tile<D, T::BN>(sK, tmK, j * T::BN, it.h, it.b, fullk + 8 * st);
      mbar_expect_tx(fullv + 8 * st, T::KV_BYTES);
      tma_load_tile<D, T::BN>(sV, tmV, j * T::BN, it.h, it.b, fullv + 8 * st);
    };
    if (more)
      load_kv(0);
#pragma unroll 1
    for (int c = 0; c < 2; ++c) {
      // Parity (n & 1) ^ 1 passes at once for the first item.
      mbar_wait(qempty + 8 * c, (n & 1u) ^ 1u);
      slot[c][0] = it.q0;
      slot[c][1] = it.h;
      slot[c][2] = it.b;
      slot[c][3] = it.n_tiles;
      if (!more) {
        mbar_arrive(qfull + 8 * c); // phase n completes without a load
        continue;
      }
      // A half wholly past S (ragged S, last query tile) is still loaded, from row S - 1 on: its
      // rows are never stored, but they must hold finite values. O is zeroed between items by
      // the rescale o *= corr with corr = 0 (consume_pipelined()), which a NaN from stale or
      // never-written shared memory would survive. Starting at S - 1 keeps every box's first
      // row < S (at most partly out of bounds, the rest zero-filled).
      mbar_expect_tx(qfull + 8 * c, T::Q_BYTES / 2);
      load_q_half<D>(base + c * (64 * 128), tmQ, min(it.q0 + 64 * c, S - 1), it.h, it.b,
                     qfull + 8 * c);
    }
    if (!more)
      break;
    for (int j = 1; j < it.n_tiles; ++j)
      load_kv(j);
    k += it.n_tiles;
    i = next;
  }
}

// ---------------------------------------------------------------------------------------------
// Online softmax of one S tile, in place on the accumulator fragment (see the layout notes above).
// In: s = raw scores Q K^T of keys [k0, k0 + BN). Out: m and lsum updated, corr = 2^(m_old - m_new)
// per row (the factor O must be scaled by before P V of this tile), p = P as bf16 A fragments.
//
// The scale is folded into the exponent. m is the running max of x = s * scale_log2, found on
// the raw scores (scale_log2 > 0 and rounding is monotone, so round(max(s) * c) =
// max(round(s * c)): the same m as scaling first), and each probability is 2^fma(s, c, -m): one
// FFMA instead of an FMUL (s *= c) and an FADD (s - m). Masked keys hold -inf: fma(-inf, c, -m) =
// -inf for finite m, 2^-inf = 0. A row with no unmasked key so far (m = -inf) subtracts 0, so
// p = 0 and corr = 0 on its first tile.
// Independent max and sum chains per row in softmax_tile: 4 at D = 128; 1 at D = 64, where 4
// measured 1% slower at long S, and at D = 256, where they made no difference.
template <int D> constexpr int SOFTMAX_CHAINS = D == 128 ? 4 : 1;

template <int BN, int NCH>
__device__ __forceinline__ void softmax_tile(float (&s)[BN / 2], float (&m)[2], float (&lsum)[2],
                                             float (&corr)[2], uint32_t (&p)[BN / 16][4], int k0,
                                             int S, int q_lo, int row0, int quad_lane, bool causal,
                                             float scale_log2) {
  constexpr int NS = BN / 2;
  static_assert(NCH == 1 || NCH == 2 || NCH == 4, "the chains are combined pairwise");
  // Mask keys past S (zero-filled by TMA, so they would score 0) and, when causal, keys after the
  // row. Only tiles that reach past S or the diagonal need it.
  const bool need_mask = (k0 + BN > S) || (causal && k0 + BN - 1 > q_lo);
  // Raw row maxima. Each path finds them itself: with the max after a shared join, ptxas
  // if-converted the masking into 64 predicated compares and selects on every tile.
  // NCH independent partial maxima (and sums, below) per row, combined at the end: one
  // accumulator per row made a dependent chain of NS / 2 FMNMX (32 at BN = 128), whose latency
  // showed as `wait` stalls in Nsight Compute. Group g of four fragment values (i >> 2 = g) goes
  // to chain g % NCH.
  float mc[2][NCH];
#pragma unroll
  for (int r = 0; r < 2; ++r)
#pragma unroll
    for (int j = 0; j < NCH; ++j)
      mc[r][j] = NEG_INF;
  if (need_mask) {
    // Row r of this thread (row0 + 8r) may see keys [0, lim[r]).
    const int lim[2] = {causal ? min(S, row0 + 1) : S, causal ? min(S, row0 + 9) : S};
#pragma unroll
    for (int i = 0; i < NS; ++i) {
      const int key = k0 + 8 * (i >> 2) + 2 * quad_lane + (i & 1);
      s[i] = key < lim[(i >> 1) & 1] ? s[i] : NEG_INF;
      mc[(i >> 1) & 1][(i >> 2) % NCH] = fmaxf(mc[(i >> 1) & 1][(i >> 2) % NCH], s[i]);
    }
  } else {
#pragma unroll
    for (int i = 0; i < NS; ++i)
      mc[(i >> 1) & 1][(i >> 2) % NCH] = fmaxf(mc[(i >> 1) & 1][(i >> 2) % NCH], s[i]);
  }
  float mx[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
#pragma unroll
    for (int w = 1; w < NCH; w *= 2) // pairwise: (c0, c1), (c2, c3), then the two results
#pragma unroll
      for (int j = 0; j + w < NCH; j += 2 * w)
        mc[r][j] = fmaxf(mc[r][j], mc[r][j + w]);
    mx[r] = mc[r][0];
  }
  float neg_m[2]; // -m_use: the FFMA's addend
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    // A row lives in the 4 lanes of a quad.
    mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));
    mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
    const float m_new = fmaxf(m[r], mx[r] * scale_log2);
    // A row with no unmasked key so far keeps m = -inf; subtract 0 then (p = 0, no NaN).
    const float m_use = m_new == NEG_INF ? 0.f : m_new;
    corr[r] = fast_exp2(m[r] - m_use); // 0 on the first tile (m = -inf)
    m[r] = m_new;
    neg_m[r] = -m_use;
  }
  float pc[2][NCH]; // partial row sums, NCH chains per row as for the maxima
#pragma unroll
  for (int i = 0; i < NS; ++i) {
    s[i] = fast_exp2(fmaf(s[i], scale_log2, neg_m[(i >> 1) & 1]));
    float &acc = pc[(i >> 1) & 1][(i >> 2) % NCH];
    acc = ((i >> 2) < NCH && !(i & 1)) ? s[i] : acc + s[i]; // the first value of a chain starts it
  }
  float psum[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
#pragma unroll
    for (int w = 1; w < NCH; w *= 2) // the same pairing as the maxima
#pragma unroll
      for (int j = 0; j + w < NCH; j += 2 * w)
        pc[r][j] += pc[r][j + w];
    psum[r] = pc[r][0];
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

// FA3 ping-pong between the two consumer warpgroups: named barrier 1 + c is "warpgroup c may issue
// its wgmmas". A warpgroup syncs on its own barrier before issuing (the wgmmas of one issue point)
// and then arrives on the other's, so the two alternate on the tensor cores and one's softmax runs
// while the other's products do. Both count 256 threads: 128 arrive (bar.arrive) + 128 wait.
// Only for D <= 128: with D = 256 (O is 128 registers per thread) the turn logic made ptxas spill,
// so D = 256 runs without ping-pong (consume_item()).
template <int D> __device__ __forceinline__ void turn_wait(int c) {
  if constexpr (D <= 128)
    asm volatile("bar.sync %0, 256;" ::"r"(1 + c) : "memory");
}
template <int D> __device__ __forceinline__ void turn_pass(int c) {
  if constexpr (D <= 128)
    asm volatile("bar.arrive %0, 256;" ::"r"(2 - c) : "memory");
}

// The decoded item in warpgroup c's slot (see produce()). n_tiles is broadcast from lane 0 so
// ptxas sees it is warp-uniform: the ring positions derived from it stay in uniform registers.
__device__ __forceinline__ Item read_slot(const volatile int *slot) {
  Item it;
  it.q0 = slot[0];
  it.h = slot[1];
  it.b = slot[2];
  it.n_tiles = __shfl_sync(0xffffffffu, slot[3], 0);
  return it;
}

// Row sums across the quad and the LSE store; returns 1/l per row for O. m and lsum are final
// once an item's last softmax has run (P V does not change them), so this runs before the last
// P V is issued.
__device__ __forceinline__ void finish_rows(float (&lsum)[2], const float (&m)[2], float (&inv)[2],
                                            float *LSE, size_t bh, int S, int row0, int l) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    lsum[r] += __shfl_xor_sync(0xffffffffu, lsum[r], 1);
    lsum[r] += __shfl_xor_sync(0xffffffffu, lsum[r], 2);
    inv[r] = lsum[r] > 0.f ? 1.f / lsum[r] : 0.f;
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

// O = o / l as bf16, straight from the accumulator layout.
template <int D>
__device__ __forceinline__ void store_o(const float (&o)[D / 2], const float (&inv)[2],
                                        __nv_bfloat16 *O, size_t bh, int S, int row0, int l) {
#pragma unroll
  for (int i = 0; i < D / 2; i += 2) {
    const int r = (i >> 1) & 1, row = row0 + 8 * r;
    if (row < S) {
      const int col = 8 * (i >> 2) + 2 * (l % 4);
      *reinterpret_cast<__nv_bfloat162 *>(O + (bh * S + row) * D + col) =
          __floats2bfloat162_rn(o[i] * inv[r], o[i + 1] * inv[r]);
    }
  }
}

// store_o for consume_pipelined(): 1/l from shared memory (written by lane 0 of the quad before
// the turn; the turn's named barrier orders it), the row's address precomputed.
template <int D>
__device__ __forceinline__ void store_o_rows(const float (&o)[D / 2], const float *my_inv,
                                             __nv_bfloat16 *o_row, const bool (&row_ok)[2]) {
  __syncwarp();
  const float inv[2] = {my_inv[0], my_inv[8]};
#pragma unroll
  for (int i = 0; i < D / 2; i += 2) {
    const int r = (i >> 1) & 1;
    if (row_ok[r])
      *reinterpret_cast<__nv_bfloat162 *>(o_row + 8 * r * D + 8 * (i >> 2)) =
          __floats2bfloat162_rn(o[i] * inv[r], o[i + 1] * inv[r]);
  }
}

// One step of the software pipeline (FA3's intra-warpgroup overlap), ring positions kc (the tile
// whose P is in p) and kc + 1: issue S(kc+1) = Q K(kc+1)^T and O += P(kc) V(kc) as two commit
// groups, wait for the first (wait_group 1) and run the softmax of tile kc+1 (keys [key0, key0 +
// BN) of its item) while P V is still on the tensor cores, then wait for the second, free stage
// kc and rescale O for tile kc+1. No wgmma is in flight when it returns.
template <int D>
__device__ __forceinline__ void pipeline_step(float (&o)[D / 2], uint32_t (&p)[Tiles<D>::BN / 16][4],
                                              float (&m)[2], float (&lsum)[2], uint32_t base,
                                              uint32_t sQ, uint32_t fullk, uint32_t fullv,
                                              uint32_t empty, uint32_t qempty, bool last_qk,
                                              uint32_t kc, int key0, int S, int q_lo, int row0,
                                              int quad_lane, int c, bool causal, float scale_log2,
                                              bool store_first = false,
                                              const float *my_inv = nullptr,
                                              __nv_bfloat16 *o_row = nullptr,
                                              const bool (&row_ok)[2] = {false, false}) {
  using T = Tiles<D>;
  constexpr int BN = T::BN, NS = BN / 2, NO = D / 2, KSTEPS = BN / 16;
  const uint32_t kn = kc + 1;
  const uint32_t sKc = base + T::Q_BYTES + ring_stage<D>(kc) * T::STAGE_BYTES;
  const uint32_t sKn = base + T::Q_BYTES + ring_stage<D>(kn) * T::STAGE_BYTES;
  // S starts from zero: the first k-step of qk_wgmma has scale-d = 0 and writes s ("=f").
  float s[NS];
  // Both waits come before the wgmma.fence: a spin loop between the fence and a wgmma makes
  // ptxas inject another warpgroup.arrive (C7519). V(kc) landed with K(kc), long ago.
  mbar_wait(fullk + 8 * ring_stage<D>(kn), ring_parity<D>(kn));
  mbar_wait(fullv + 8 * ring_stage<D>(kc), ring_parity<D>(kc));
  // o and p were written by ordinary instructions: pin those writes above the wgmma.fence.
  reg_fence(o);
  reg_fence(p);
  turn_wait<D>(c);
  wgmma_fence();
  qk_wgmma<D>(s, sQ, sKn);
  wgmma_commit();
  pv_wgmma<D>(o, p, sKc + T::KV_BYTES);
  wgmma_commit();
  turn_pass<D>(c);
  // Groups complete in order: after wait_group 1, S(kn) is done; P(kc) V(kc) may still run.
  wgmma_wait<1>();
  reg_fence(s);
  if (last_qk)
    mbar_arrive(qempty); // S(kn) was this warpgroup's last Q K^T of the item
  uint32_t p_next[KSTEPS][4];
  float corr_next[2];
  softmax_tile<BN, SOFTMAX_CHAINS<D>>(s, m, lsum, corr_next, p_next, key0, S, q_lo, row0,
                                       quad_lane, causal, scale_log2);
  wgmma_wait<0>();
  reg_fence(o);
  reg_fence(p);
  // K(kc) and V(kc) are no longer read by this warpgroup: free the stage for a later tile.
  mbar_arrive(empty + 8 * ring_stage<D>(kc));
  // Tile kc was its item's last (consume_pipelined()): O is final, store it. The softmax
  // of the next item's first tile started from m = -inf, so corr_next = 0 and the rescale below
  // starts the next item's O from zero.
  if (store_first)
    store_o_rows<D>(o, my_inv, o_row, row_ok);
#pragma unroll
  for (int i = 0; i < NO; ++i)
    o[i] *= corr_next[(i >> 1) & 1];
#pragma unroll
  for (int kk = 0; kk < KSTEPS; ++kk)
#pragma unroll
    for (int r = 0; r < 4; ++r)
      p[kk][r] = p_next[kk][r];
}

// D <= 128: all of this CTA's items as one software pipeline. Run as its own pipeline, an item
// takes turns Q K^T(0) | Q K^T(1) + P V(0) | ... | P V(n-1), n + 1 turns per warpgroup and item,
// the first and the last carrying half a tile of tensor work each but a whole turn's latency (the
// first softmax, then the last P V's wait, the O stores and the item switch). Here the last turn
// of an item is also the first of the next one: Q K^T(0) of item i+1 is issued together with
// P V(n-1) of item i, the softmax of item i+1's first tile runs while that P V is on the tensor
// cores, and item i's O is stored after it, where a steady step rescales O. That is n turns per
// item (plus one at the very start and one at the very end), like a steady-state tile.
//
// What it needs: item i+1's Q half and first K tile when item i's last tile is still being
// finished. The Q half is loaded once this warpgroup's last Q K^T of item i has completed (its
// own barriers, see produce()), about one softmax before it is needed; the first K tile's stage
// is free NST tiles ahead. The LSE and 1/l of item i are computed before that turn (m and l are
// final after its last softmax); 1/l waits in shared memory for the O store.
//
// The turn that ends an item is an ordinary pipeline_step(): before it, m = -inf and l = 0 for
// the next item, so its first softmax yields corr = 0 and the step's unconditional rescale zeroes
// O right after the store (a separate boundary block with O zeroed by moves made ptxas serialize
// every wgmma, C7513; this form keeps O's data flow that of a single item).
//
// BN = BM = 128 here, so both warpgroups take every tile of an item (no skipped causal tiles).
template <int D>
__device__ __forceinline__ void consume_pipelined(uint32_t base, uint32_t qfull, uint32_t qempty,
                                                  uint32_t fullk, uint32_t fullv, uint32_t empty,
                                                  const volatile int *slot, float *inv_rows,
                                                  __nv_bfloat16 *O, float *LSE, int H, int S, int c,
                                                  bool causal) {
  using T = Tiles<D>;
  constexpr int BN = T::BN;
  constexpr int NS = BN / 2, NO = D / 2, KSTEPS = BN / 16;
  static_assert(BN == BM, "one K/V tile per item row block: no warpgroup skips a tile");
  const float scale_log2 = 1.4426950408889634f / sqrtf((float)D); // log2(e) / sqrt(D)
  const int t = threadIdx.x % 128, w = t / 32, l = t % 32;
  // c is the same in every lane; broadcast, it is provably warp-uniform.
  const uint32_t sQ = base + __shfl_sync(0xffffffffu, c, 0) * (64 * 128);
  auto stage_k = [&](uint32_t k) { return base + T::Q_BYTES + ring_stage<D>(k) * T::STAGE_BYTES; };

  uint32_t n = 0; // items started: the phase of qfull
  mbar_wait(qfull, 0);
  Item it = read_slot(slot);
  if (it.n_tiles == 0)
    return;
  float o[NO];
#pragma unroll
  for (int i = 0; i < NO; ++i)
    o[i] = 0.f;
  float m[2] = {NEG_INF, NEG_INF}; // running row max of x = s * scale * log2(e)
  float lsum[2] = {0.f, 0.f};      // this thread's part of the running row sum
  uint32_t p[KSTEPS][4];           // P of the tile whose P V comes next
  {
    // Prologue of the whole pipeline: S(0) of the first item and its softmax.
    float s[NS];
    float corr[2];
    mbar_wait(fullk, 0); // ring position 0: stage 0, parity 0
    turn_wait<D>(c);
    wgmma_fence();
    qk_wgmma<D>(s, sQ, stage_k(0));
    wgmma_commit();
    turn_pass<D>(c);
    wgmma_wait<0>();
    reg_fence(s);
    if (it.n_tiles == 1)
      mbar_arrive(qempty); // this warpgroup's last read of its Q half is done
    const int q_lo = it.q0 + 64 * c;
    softmax_tile<BN, SOFTMAX_CHAINS<D>>(s, m, lsum, corr, p, 0, S, q_lo, q_lo + 16 * w + l / 4,
                                         l % 4, causal, scale_log2);
  }
  // What the store of an item's O needs, set when its last softmax has run.
  __nv_bfloat16 *o_row = O; // this thread's first O element of row row0
  bool row_ok[2] = {false, false}; // rows row0 and row0 + 8 are < S
  // 1/l of this thread's two rows, parked in shared memory across the turn that ends an item
  // (fewer registers live across it; ptxas is at its 168).
  float *const my_inv = inv_rows + 64 * c + 16 * w + l / 4;
  uint32_t kc = 0;        // ring position of the tile whose P is in p (warp-uniform)
  int left = it.n_tiles - 1; // tiles of the current item after kc
  for (;;) {
    const bool ends = left == 0; // kc is the item's last tile: the next Q K^T is the next item's
    int key0 = (it.n_tiles - left) * BN; // first key of tile kc + 1 in its item
    if (ends) {
      // The item's last softmax has run: LSE now, 1/l parked for its O store.
      const int row0 = it.q0 + 64 * c + 16 * w + l / 4;
      const size_t bh = (size_t)it.b * H + it.h;
      float inv[2];
      finish_rows(lsum, m, inv, LSE, bh, S, row0, l);
      if (l % 4 == 0) {
        my_inv[0] = inv[0];
        my_inv[8] = inv[1];
      }
      o_row = O + (bh * S + row0) * D + 2 * (l % 4);
      row_ok[0] = row0 < S;
      row_ok[1] = row0 + 8 < S;
      ++n;
      mbar_wait(qfull, n & 1u); // the next item's Q half (or "no more work")
      it = read_slot(slot);
      if (it.n_tiles == 0)
        break; // the pipeline ends with the last P V, after the loop
      // The next item's softmax starts from scratch: with m = -inf its first tile gives
      // corr = 0, so the step's rescale zeroes O after the store.
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        m[r] = NEG_INF;
        lsum[r] = 0.f;
      }
      key0 = 0;
      left = it.n_tiles;
    }
    const int q_lo = it.q0 + 64 * c; // rows of the item tile kc + 1 belongs to
    pipeline_step<D>(o, p, m, lsum, base, sQ, fullk, fullv, empty, qempty, left == 1, kc, key0, S,
                     q_lo, q_lo + 16 * w + l / 4, l % 4, c, causal, scale_log2, ends, my_inv,
                     o_row, row_ok);
    ++kc;
    --left;
  }
  const uint32_t kl = kc;
  // End of the pipeline: P V of the last item's last tile alone, then free its stage.
  mbar_wait(fullv + 8 * ring_stage<D>(kl), ring_parity<D>(kl));
  reg_fence(o);
  reg_fence(p);
  turn_wait<D>(c);
  wgmma_fence();
  pv_wgmma<D>(o, p, stage_k(kl) + T::KV_BYTES);
  wgmma_commit();
  turn_pass<D>(c);
  wgmma_wait<0>();
  reg_fence(o);
  mbar_arrive(empty + 8 * ring_stage<D>(kl));
  store_o_rows<D>(o, my_inv, o_row, row_ok);
}

// D = 256: one warpgroup, 64 query rows [q0 + 64c, q0 + 64c + 64) of one item whose Q half has
// landed (consume() waited on qfull). k0 is the ring position of the item's first K/V tile.
// Each item is its own pipeline, with its Q barriers per warpgroup; no ping-pong (see turn_wait), so
// nothing is gained by merging items' turns, and O's 128 registers leave no room for it.
template <int D>
__device__ __forceinline__ void consume_item(uint32_t base, uint32_t qempty, uint32_t fullk,
                                             uint32_t fullv, uint32_t empty, __nv_bfloat16 *O,
                                             float *LSE, const Item &it, int H, int S, int c,
                                             bool causal, uint32_t k0) {
  using T = Tiles<D>;
  constexpr int BN = T::BN;
  constexpr int NS = BN / 2, NO = D / 2, KSTEPS = BN / 16;
  const float scale_log2 = 1.4426950408889634f / sqrtf((float)D); // log2(e) / sqrt(D)
  const int t = threadIdx.x % 128, w = t / 32, l = t % 32;
  const int n_tiles = it.n_tiles;
  const int q_lo = it.q0 + 64 * c;        // this warpgroup's first row
  const int row0 = q_lo + 16 * w + l / 4; // this thread's rows: row0 and row0 + 8
  // Causal: tiles past this warpgroup's last row are all masked; skip their math (only the final
  // tile can be skipped, and only when BN = 64).
  const int my_tiles = causal ? min(n_tiles, (min(S, q_lo + 64) + BN - 1) / BN) : n_tiles;
  const uint32_t k0u = __shfl_sync(0xffffffffu, k0, 0);
  const uint32_t sQ = base + __shfl_sync(0xffffffffu, c, 0) * (64 * 128);
  auto stage_k = [&](int j) { return base + T::Q_BYTES + ring_stage<D>(k0u + j) * T::STAGE_BYTES; };
  auto stage = [&](int j) { return ring_stage<D>(k0u + j); };
  auto parity = [&](int j) { return ring_parity<D>(k0u + j); };

  float o[NO];
#pragma unroll
  for (int i = 0; i < NO; ++i)
    o[i] = 0.f;
  float m[2] = {NEG_INF, NEG_INF};
  float lsum[2] = {0.f, 0.f};
  float corr[2];
  uint32_t p[KSTEPS][4];
  {
    float s[NS];
    mbar_wait(fullk + 8 * stage(0), parity(0));
    turn_wait<D>(c);
    wgmma_fence();
    qk_wgmma<D>(s, sQ, stage_k(0));
    wgmma_commit();
    turn_pass<D>(c);
    wgmma_wait<0>();
    reg_fence(s);
    if (my_tiles == 1)
      mbar_arrive(qempty);
    softmax_tile<BN, SOFTMAX_CHAINS<D>>(s, m, lsum, corr, p, 0, S, q_lo, row0, l % 4, causal,
                                         scale_log2);
  }
  // The loop is written out here rather than through pipeline_step(): through the shared
  // function ptxas computed this loop's descriptors per thread (51 R2UR per tile instead of 14).
  for (int j = 0; j + 1 < my_tiles; ++j) {
    float s[NS];
    mbar_wait(fullk + 8 * stage(j + 1), parity(j + 1));
    mbar_wait(fullv + 8 * stage(j), parity(j));
    reg_fence(o);
    reg_fence(p);
    turn_wait<D>(c);
    wgmma_fence();
    qk_wgmma<D>(s, sQ, stage_k(j + 1));
    wgmma_commit();
    pv_wgmma<D>(o, p, stage_k(j) + T::KV_BYTES);
    wgmma_commit();
    turn_pass<D>(c);
    wgmma_wait<1>();
    reg_fence(s);
    if (j + 2 == my_tiles)
      mbar_arrive(qempty);
    uint32_t p_next[KSTEPS][4];
    float corr_next[2];
    softmax_tile<BN, SOFTMAX_CHAINS<D>>(s, m, lsum, corr_next, p_next, (j + 1) * BN, S, q_lo,
                                         row0, l % 4, causal, scale_log2);
    wgmma_wait<0>();
    reg_fence(o);
    reg_fence(p);
    mbar_arrive(empty + 8 * stage(j));
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
    const int j = my_tiles - 1;
    mbar_wait(fullv + 8 * stage(j), parity(j));
    reg_fence(o);
    reg_fence(p);
    turn_wait<D>(c);
    wgmma_fence();
    pv_wgmma<D>(o, p, stage_k(j) + T::KV_BYTES);
    wgmma_commit();
    turn_pass<D>(c);
    wgmma_wait<0>();
    reg_fence(o);
    mbar_arrive(empty + 8 * stage(j));
  }
  // A tile this warpgroup skipped (causal, BN = 64) still needs its arrival on the stage's empty
  // barrier, after it landed (so the arrival counts towards this use of the stage).
  for (int j = my_tiles; j < n_tiles; ++j) {
    turn_wait<D>(c);
    turn_pass<D>(c);
    mbar_wait(fullk + 8 * stage(j), parity(j));
    mbar_wait(fullv + 8 * stage(j), parity(j));
    mbar_arrive(empty + 8 * stage(j));
  }
  const size_t bh = (size_t)it.b * H + it.h;
  float inv[2];
  finish_rows(lsum, m, inv, LSE, bh, S, row0, l);
  store_o<D>(o, inv, O, bh, S, row0, l);
}

// All of this CTA's items, in the producer's order. Termination: both warpgroups find
// n_tiles = 0 in their slots in the same phase (the producer writes both), so they leave after
// the same item, having taken the same number of turns.
template <int D>
__device__ __forceinline__ void consume(uint32_t base, uint32_t qfull, uint32_t qempty,
                                        uint32_t fullk, uint32_t fullv, uint32_t empty,
                                        const volatile int *slot, float *inv_rows,
                                        __nv_bfloat16 *O, float *LSE, int H, int S, int c,
                                        bool causal) {
  // Warpgroup 0 goes first: warpgroup 1 hands it the first turn.
  if (c == 1)
    turn_pass<D>(c);
  if constexpr (D <= 128) {
    consume_pipelined<D>(base, qfull, qempty, fullk, fullv, empty, slot, inv_rows, O, LSE, H, S,
                         c, causal);
  } else {
    uint32_t k = 0;
    for (uint32_t n = 0;; ++n) {
      mbar_wait(qfull, n & 1u);
      const Item it = read_slot(slot);
      if (it.n_tiles == 0)
        break;
      consume_item<D>(base, qempty, fullk, fullv, empty, O, LSE, it, H, S, c, causal, k);
      k += it.n_tiles;
    }
  }
  // Warpgroup 1 took the last turn and passed it on: consume that pass so no named barrier is
  // left half-arrived at exit.
  if (c == 0)
    turn_wait<D>(c);
}

// ---------------------------------------------------------------------------------------------

extern "C" __global__ void __launch_bounds__(384, 1)
mha_fwd_wgmma_tma(const __grid_constant__ TensorMap tmQ, const __grid_constant__ TensorMap tmK,
                  const __grid_constant__ TensorMap tmV, __nv_bfloat16 *__restrict__ O,
                  float *__restrict__ LSE, int B, int H, int S, int D, int CAUSAL,
                  unsigned *__restrict__ tiles) {
  extern __shared__ unsigned char smem_raw[];
  // qfull[2], qempty[2], fullK[MAX_NST], fullV[MAX_NST], empty[MAX_NST]
  __shared__ alignas(8) uint64_t bars[4 + 3 * MAX_NST];
  // Per consumer warpgroup: the item whose Q half the current phase of qfull[c] delivers.
  __shared__ int item_slot[2][4];
  __shared__ float inv_rows[BM]; // 1/l per query row between an item's last softmax and its O store
  if (D != 64 && D != 128 && D != 256)
    return; // the launch plan sized shared memory for these three only
  // Swizzled tiles must start on a 1024-byte boundary.
  const uint32_t base = ((uint32_t)__cvta_generic_to_shared(smem_raw) + 1023u) & ~1023u;
  const uint32_t qfull = (uint32_t)__cvta_generic_to_shared(&bars[0]);
  const uint32_t qempty = qfull + 16;
  const uint32_t fullk = qfull + 32, fullv = fullk + 8 * MAX_NST, empty = fullv + 8 * MAX_NST;
  const int tid = threadIdx.x, wg = tid / 128;
  const bool causal = CAUSAL != 0;
  const int n_items = ((S + BM - 1) / BM) * H * B;

  if (tid == 0) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmQ) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmK) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmV) : "memory");
    for (int c = 0; c < 2; ++c) {
      mbar_init(qfull + 8 * c, 1);
      mbar_init(qempty + 8 * c, CONSUMER_THREADS / 2);
    }
    for (int s = 0; s < MAX_NST; ++s) {
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
        produce<64>(&tmQ, &tmK, &tmV, base, qfull, qempty, fullk, fullv, empty, item_slot, tiles,
                    B, H, S, causal, n_items);
      else if (D == 128)
        produce<128>(&tmQ, &tmK, &tmV, base, qfull, qempty, fullk, fullv, empty, item_slot, tiles,
                     B, H, S, causal, n_items);
      else
        produce<256>(&tmQ, &tmK, &tmV, base, qfull, qempty, fullk, fullv, empty, item_slot, tiles,
                     B, H, S, causal, n_items);
    }
    return;
  }

  // Consumer warpgroups: 128 * 40 + 2 * 128 * 232 = 64512 registers of 65536.
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;" ::: "memory");
  const int c = wg - 1;
  const uint32_t my_qfull = qfull + 8 * c, my_qempty = qempty + 8 * c;
  if (D == 64)
    consume<64>(base, my_qfull, my_qempty, fullk, fullv, empty, item_slot[c], inv_rows, O, LSE, H, S, c,
                causal);
  else if (D == 128)
    consume<128>(base, my_qfull, my_qempty, fullk, fullv, empty, item_slot[c], inv_rows, O, LSE, H, S, c,
                 causal);
  else
    consume<256>(base, my_qfull, my_qempty, fullk, fullv, empty, item_slot[c], inv_rows, O, LSE, H, S, c,
                 causal);
}
