//===- Repair.h - How a teacher's repair names the failure it fixes -*- C++ -*-===//
//
// `generate --repair-from STORE` asks a teacher model to fix each failed
// kernel of another model; its samples are recorded under context
// `repair` with a sample id made from the failed sample's key, so `fixit`
// finds the teacher's fix of a failure from the key alone, in the same
// store, without a table of its own.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_EVAL_REPAIR_H
#define PTXBENCH_EVAL_REPAIR_H

#include "ptxbench/Eval/Sample.h"

namespace ptxbench::eval {

/// The context of a teacher's repair samples.
constexpr llvm::StringLiteral repairContext = "repair";

/// The sample id of the repair of `failed`: `r` and the first 16 hex
/// digits of the SHA-256 of its key (SampleKey::str()).
std::string repairSampleId(const SampleKey &failed);

/// A kernel's identity: its canonical hash, or for code that never
/// imported `text:` and a SHA-256 of the text.
std::string kernelIdentity(const SampleRecord &record);

} // namespace ptxbench::eval

#endif // PTXBENCH_EVAL_REPAIR_H
