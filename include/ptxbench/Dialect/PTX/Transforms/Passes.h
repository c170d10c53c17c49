//===- Passes.h - Passes over the ptx dialect -------------------*- C++ -*-===//
//
// Declarations and registration of the ptx dialect's passes (Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_DIALECT_PTX_TRANSFORMS_PASSES_H
#define PTXBENCH_DIALECT_PTX_TRANSFORMS_PASSES_H

#include "ptxbench/Dialect/PTX/PTX.h"

#include "mlir/Pass/Pass.h"

namespace ptxbench::ptx {

#define GEN_PASS_DECL
#include "ptxbench/Dialect/PTX/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ptxbench/Dialect/PTX/Transforms/Passes.h.inc"

} // namespace ptxbench::ptx

#endif // PTXBENCH_DIALECT_PTX_TRANSFORMS_PASSES_H
