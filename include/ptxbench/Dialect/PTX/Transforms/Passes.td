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
  }];
  let options = [
    ListOption<"requested", "requested", "std::string",
               "Feature families the kernels should use (comma separated)">
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

#endif // PTXBENCH_DIALECT_PTX_TRANSFORMS_PASSES_TD
