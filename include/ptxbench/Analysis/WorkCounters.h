//===- WorkCounters.h - The work an instrumented run measures ---*- C++ -*-===//
//
// `--ptx-instrument-features` with `work=true` appends these weighted
// counters after the per-family instruction counters: the FLOPs each kind
// of matrix instruction executed and the bytes each kind of global-memory
// load moved (docs/harness.md, "Credit for the work"). Header-only and free
// of MLIR, so the runtime that reads the counters shares the order.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_ANALYSIS_WORKCOUNTERS_H
#define PTXBENCH_ANALYSIS_WORKCOUNTERS_H

namespace ptxbench::analysis {

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
};

constexpr unsigned numWorkCounters = 8;

/// The counters' names, in counter order (the JSON keys of a run's `work`).
constexpr const char *workCounterNames[numWorkCounters] = {
    "wgmma_flops",     "mma_sync_flops",    "wmma_flops",
    "tcgen05_flops",   "tx_bytes",          "complete_tx_bytes",
    "global_load_bytes", "cp_async_bytes"};

} // namespace ptxbench::analysis

#endif // PTXBENCH_ANALYSIS_WORKCOUNTERS_H
