//===- WorkCounters.h - What an instrumented run measures -------*- C++ -*-===//
//
// The protocol between `--ptx-instrument-features` and the harness that
// launches the instrumented module: the weighted counters that follow the
// per-family instruction counters (the FLOPs each kind of matrix
// instruction and the CUDA cores executed, the bytes each kind of
// global-memory load moved: docs/harness.md, "Credit for the work"), and
// the control block, a module variable the harness fills before every
// launch with the counters' address and the knockout settings. Header-only
// and free of MLIR: it sits with the ISA table, below both the dialect's
// passes and the runtime, which share the order and the layout.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_ISA_WORKCOUNTERS_H
#define PTXBENCH_ISA_WORKCOUNTERS_H

#include <cstdint>

namespace ptxbench::isa {

enum class WorkCounter : unsigned {
  /// 2*M*N*K per wgmma.mma_async of a warpgroup (2*M*N*K/128 per thread).
  WgmmaFlops,
  /// 2*M*N*K per mma / mma.sp of a warp (2*M*N*K/32 per thread).
  MmaSyncFlops,
  /// 2*M*N*K per wmma.mma of a warp.
  WmmaFlops,
  /// 2*M*N*K per tcgen05.mma, M and N read from its instruction descriptor
  /// at run time, K from its kind.
  Tcgen05Flops,
  /// Transaction bytes announced to mbarriers (the tx-count of every
  /// executed mbarrier.expect_tx / arrive.expect_tx / arrive_drop.expect_tx):
  /// the bytes asynchronous (TMA and bulk) copies must deliver.
  TxBytes,
  /// Transaction bytes completed by hand (mbarrier.complete_tx), which no
  /// copy delivered; subtracted from TxBytes.
  CompleteTxBytes,
  /// Bytes loaded by ld/ldu from global memory: .global loads, and generic
  /// loads whose address is global (isspacep.global at run time).
  GlobalLoadBytes,
  /// Bytes copied by cp.async (its cp-size operand).
  CpAsyncBytes,
  /// FLOPs of floating-point arithmetic on the CUDA cores, per thread:
  /// fma/mad 2, add/sub/mul 1, times the lanes of a packed type (f16x2,
  /// bf16x2, f32x2).
  ScalarFlops,
};

constexpr unsigned numWorkCounters = 9;

/// The counters' names, in counter order (the JSON keys of a run's `work`).
constexpr const char *workCounterNames[numWorkCounters] = {
    "wgmma_flops",       "mma_sync_flops", "wmma_flops",
    "tcgen05_flops",     "tx_bytes",       "complete_tx_bytes",
    "global_load_bytes", "cp_async_bytes", "scalar_flops"};

/// The control block: `.global .align 8 .u64 <control>[numControlWords]`,
/// added by the pass under a name the harness chooses (one the submission
/// cannot know), written by the harness before each launch. The kernels'
/// signatures stay as they were, so an instrumented launch passes exactly
/// the parameters of a timed one.
enum class ControlWord : unsigned {
  /// The address of the counters (global memory, zeroed by the harness).
  Counters,
  /// With `knockout`: a KnockoutBit mask; an instruction of a set bit's
  /// kind does not execute (its guard is false).
  KnockoutMask,
  /// With `work`: where each executed TMA load and bulk copy from global
  /// memory appends a CopyRecord (global memory), how many records fit,
  /// and the address of the u64 count of records appended (records past
  /// the capacity are counted, not written).
  CopyLog,
  CopyLogCapacity,
  CopyLogCount,
  /// With `work`: maxRangeTensors [begin, end) address ranges (the input
  /// tensors of the launch; an empty range matches nothing). The bytes each
  /// ld/ldu from global memory and each cp.async reads inside range i go to
  /// the counter numWorkCounters + i after the family counters.
  Ranges,
};

constexpr unsigned maxRangeTensors = 8;
constexpr unsigned numControlWords =
    unsigned(ControlWord::Ranges) + 2 * maxRangeTensors;

/// What the copy log holds for one executed copy, so the harness can say
/// which input tensor it read and how many of its bytes were in bounds.
struct CopyRecord {
  /// A TMA load: the hash (copyLogHash) of the 128 bytes of its tensor
  /// map; a bulk copy: its global source address.
  uint64_t key;
  /// A TMA load: its box coordinates (innermost first, as written);
  /// a bulk copy: coords[0] is its size in bytes.
  int32_t coords[5];
  /// A TMA load in tile mode: its dimensionality (1-5); im2col and other
  /// modes add copyLogOtherMode; 0 for a bulk copy.
  uint32_t rank;
};
static_assert(sizeof(CopyRecord) == 32, "the instrumentation writes 32 bytes");

constexpr uint32_t copyLogOtherMode = 0x100;

/// The hash the instrumentation computes over a tensor map's sixteen u64
/// words: h = (h ^ word) * 1099511628211, from 0.
constexpr uint64_t copyLogHashPrime = 1099511628211ull;
inline uint64_t copyLogHash(const uint64_t words[16]) {
  uint64_t h = 0;
  for (unsigned i = 0; i < 16; ++i)
    h = (h ^ words[i]) * copyLogHashPrime;
  return h;
}

/// The matrix-instruction kinds a knockout can switch off.
enum class KnockoutBit : unsigned {
  Wgmma,   // wgmma.mma_async
  MmaSync, // mma, mma.sp
  Wmma,    // wmma.mma
  Tcgen05, // tcgen05.mma (every form)
};

constexpr unsigned numKnockoutBits = 4;

constexpr uint64_t knockoutMask(KnockoutBit bit) {
  return uint64_t(1) << unsigned(bit);
}

} // namespace ptxbench::isa

#endif // PTXBENCH_ISA_WORKCOUNTERS_H
