//===- CanonicalForm.h - Naming- and debug-free module form -*- C++ -*-===//
//
// The canonical form of a ptx module: registers renumbered per declaration
// type by first use, labels renamed $L0, $L1, ... in block order, debug
// directives (.loc, .file, .section) and kept source text dropped. Two
// kernels that differ only in naming and debug information print the same,
// so the hash of the canonical PTX deduplicates samples.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_DIALECT_PTX_TRANSFORMS_CANONICALFORM_H
#define PTXBENCH_DIALECT_PTX_TRANSFORMS_CANONICALFORM_H

#include "ptxbench/Dialect/PTX/PTX.h"

#include <string>

namespace ptxbench::ptx {

/// Rewrites `module` into its canonical form (in place).
void canonicalize(ModuleOp module);

/// Rewrites one function body: registers and labels.
void canonicalizeFunction(FuncOp func);

/// The SHA-256, in lower-case hex, of the PTX of `module`'s canonical form.
/// `module` itself is not changed.
std::string canonicalHash(ModuleOp module);

} // namespace ptxbench::ptx

#endif // PTXBENCH_DIALECT_PTX_TRANSFORMS_CANONICALFORM_H
