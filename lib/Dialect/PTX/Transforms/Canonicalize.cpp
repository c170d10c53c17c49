//===- Canonicalize.cpp - Canonical register and label names --------------===//
//
// Rewrites the module into its canonical form (analysis::canonicalize) so
// two kernels that differ only in naming and debug information print the
// same PTX.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Dialect/PTX/Transforms/Passes.h"

#include "ptxbench/Dialect/PTX/Transforms/CanonicalForm.h"

namespace ptxbench::ptx {
#define GEN_PASS_DEF_CANONICALIZEPASS
#include "ptxbench/Dialect/PTX/Transforms/Passes.h.inc"
} // namespace ptxbench::ptx

using namespace mlir;
using namespace ptxbench;

namespace {
struct CanonicalizePass
    : public ptx::impl::CanonicalizePassBase<CanonicalizePass> {
  void runOnOperation() override { ptx::canonicalize(getOperation()); }
};
} // namespace
