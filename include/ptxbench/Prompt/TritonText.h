//===- TritonText.h - A task in the words a Triton answer needs -*- C++ -*-===//
//
// The prompt sections that change when the answer is to be written in
// Triton (docs/triton.md): the response format (one ```python block), the
// kernel ABI (what a plan argument becomes in the kernel's signature, what
// the harness decides), the `# @ptxbench` plan with a worked example
// generated for the task and checked by the plan parser, and, from the
// `brief` context on, how Triton reaches each requested family.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_PROMPT_TRITONTEXT_H
#define PTXBENCH_PROMPT_TRITONTEXT_H

#include "ptxbench/Task/Task.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace ptxbench::prompt {

/// One ```python block holding the whole Triton submission.
std::string renderTritonResponseFormat(llvm::StringRef arch);

/// What a Triton answer may hold and how its kernel is compiled and
/// called on `arch`.
std::string renderTritonAbiSection(const runtime::Task &task,
                                   llvm::StringRef arch);

/// A Triton submission for `task`: its plan (a host-side descriptor over
/// the first input of rank 2 or more) and a kernel signature that matches
/// it. Checked with parseLaunchPlan/resolveLaunchPlan against the first
/// development workload.
llvm::Expected<std::string> tritonExampleSubmission(const runtime::Task &task);

/// The `# @ptxbench` statements and the worked example.
llvm::Expected<std::string>
renderTritonLaunchPlanSection(const runtime::Task &task);

/// How Triton reaches each requested family on `arch` (ISA-table family
/// names, alternatives as `a|b`).
std::string renderTritonFeatureHints(llvm::ArrayRef<std::string> requested,
                                     llvm::StringRef arch);

} // namespace ptxbench::prompt

#endif // PTXBENCH_PROMPT_TRITONTEXT_H
