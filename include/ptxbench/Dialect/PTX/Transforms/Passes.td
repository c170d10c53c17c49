//===- Passes.td - Passes over the ptx dialect -------------*- tablegen -*-===//
//
// The checker passes of ptxbench-opt (feature report, target check, fallback
// detection), which report through MLIR diagnostics, and the canonical form
// used to compare and deduplicate kernels. The analyses behind them live in
// include/ptxbench/Analysis, where the CLI reads them directly.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_DIALECT_PTX_TRANSFORMS_PASSES_TD
#define PTXBENCH_DIALECT_PTX_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FeatureReportPass : Pass<"ptx-feature-report", "ptxbench::ptx::ModuleOp"> {
  let summary = "Report the feature families each kernel uses";
  let description = [{
    Emits a remark per kernel listing the ISA feature families of its
    instructions (including the functions it calls) with counts, and how
    many can run. For each family in `requested`, a remark says whether it
    is `used`, `missing` or `unreachable` (only in dead code or in functions
    no kernel calls). Architecture-specific or requested families that only
    appear in dead code get a warning at their first instruction.
  }];
  let options = [
    ListOption<"requested", "requested", "std::string",
               "Feature families the kernels should use (comma separated)">
  ];
}

def CheckTargetsPass : Pass<"ptx-check-targets", "ptxbench::ptx::ModuleOp"> {
  let summary = "Check instructions against the module's .version and .target";
  let description = [{
    Emits an error for each instruction whose minimum PTX ISA version,
    minimum target or architecture-specific target (from the ISA table) the
    module's `.version`/`.target` does not meet, and fails.
  }];
}

def DetectFallbacksPass : Pass<"ptx-detect-fallbacks", "ptxbench::ptx::ModuleOp"> {
  let summary = "Name the generic patterns kernels fall back to";
  let description = [{
    Emits one warning per fallback, starting with its kind in brackets
    (`[cp-async-instead-of-tma]`), with a note at the related instruction
    where there is one. The kinds and their rules are in docs/analysis.md.
    `accumulate=f32` adds the `f16-accumulator` check (the task requires
    fp32 accumulation).
  }];
  let options = [
    ListOption<"requested", "requested", "std::string",
               "Feature families the kernels should use (comma separated)">,
    Option<"accumulate", "accumulate", "std::string", /*default=*/"\"any\"",
           "The accumulator precision the task requires: any or f32">
  ];
}

def CanonicalizePass : Pass<"ptx-canonicalize", "ptxbench::ptx::ModuleOp"> {
  let summary = "Rename registers and labels canonically, drop debug data";
  let description = [{
    Renumbers registers per declaration type in order of first use, renames
    labels `$L0`, `$L1`, ... in block order, and drops `.loc`, `.file`,
    `.section`, the kept source text and the module's source file, so two
    kernels that differ only in naming and debug information print the same.
  }];
}


def InstrumentFeaturesPass
    : Pass<"ptx-instrument-features", "ptxbench::ptx::ModuleOp"> {
  let summary = "Count at run time how often each feature family executes";
  let description = [{
    Rewrites every kernel so that each executed instruction of the families
    in `families` adds to a 64-bit counter: counter `i` (at byte offset
    `8*i`) counts the family `families[i]`. The counters' address is the
    first word of the control block, a module variable
    `.global .align 8 .u64 <control>[5]` the pass adds (layout in
    include/ptxbench/ISA/WorkCounters.h) and the caller fills before a
    launch; `control` names it and must be new to the module. The kernels'
    signatures do not change.

    Counts are exact per-thread counts (thread-instructions, as ncu's
    `thread_inst_executed`), aggregated per warp so that one atomic is
    issued per warp and instrumentation point: before each instrumented
    instruction the pass inserts

        activemask.b32      m;              // threads that reach it
        vote.sync.ballot.b32 b, [!]g, m;    // those whose guard g holds
        popc.b32            n, b;           // (b = m when unguarded)
        brev.b32 / bfind.shiftamt.u32  l;   // the lowest active lane
        mov.u32 lane, %laneid; setp.eq.u32 q, lane, l;
        cvt.u64.u32 n64, n;
        @q red.global.add.u64 [ctr+8*i], n64;

    so a predicated-off instruction is not counted. A warp-level count
    (ncu's `inst_executed`) is the thread count divided by the threads that
    execute it together (32 for a full warp). Each function loads the
    counters' address from the control block at entry; the registers it
    needs are new `.reg` declarations under a prefix (`%__pb`, or
    `%__pb1`, ...) no register of the module starts with.

    With `work=true`, nine weighted counters follow the family counters
    (WorkCounters.h, in this order): FLOPs of `wgmma.mma_async` (2*M*N*K of
    its shape per warpgroup, so 2*M*N*K/128 per thread), of `mma`/`mma.sp`
    and of `wmma.mma` (2*M*N*K/32 per thread), of `tcgen05.mma` (M and N
    decoded at run time from the instruction descriptor, bits 24-28 and
    17-22, K from the kind); the transaction bytes of every
    `mbarrier.*expect_tx` and of `mbarrier.complete_tx` (their last operand,
    added by every executing thread); the bytes of `ld`/`ldu` from global
    memory (vector width times type size, per thread; a generic load counts
    the threads whose address `isspacep.global` says is global); the
    cp-size of `cp.async`; and the CUDA cores' floating-point FLOPs
    (fma/mad 2, add/sub/mul 1, per lane of a packed type), counted once per
    run of such instructions with no control transfer between them.

    With `knockout=true`, every matrix instruction (wgmma.mma_async, mma,
    wmma.mma, tcgen05.mma) is guarded by its kind's bit of the control
    block's knockout mask (the second word): it runs only while the bit is
    clear (and its own guard holds). The harness switches a kind off to see
    whether its work reaches the outputs.
  }];
  let options = [
    ListOption<"families", "families", "std::string",
               "Feature families to count, in counter order (comma separated)">,
    Option<"work", "work", "bool", /*default=*/"false",
           "Also count matrix and CUDA-core FLOPs and global-load bytes "
           "(WorkCounters.h)">,
    Option<"control", "control", "std::string",
           /*default=*/"\"__ptxbench_control\"",
           "The name of the control block the pass adds (new to the module)">,
    Option<"knockout", "knockout", "bool", /*default=*/"false",
           "Guard matrix instructions by the control block's knockout "
           "mask (knockout runs)">
  ];
}

#endif // PTXBENCH_DIALECT_PTX_TRANSFORMS_PASSES_TD
