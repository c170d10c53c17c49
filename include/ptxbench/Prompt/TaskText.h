//===- TaskText.h - A task in the words a model reads -----------*- C++ -*-===//
//
// The task-dependent parts of a prompt, each a Markdown section: what to
// compute with the tensors and development workloads (never the held-out
// ones), how the submission is checked and timed, the kernel ABI, the
// launch-plan syntax with a worked example generated for the task (and
// checked against it, so it cannot drift from the plan parser), the
// requested feature families and the response format.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_PROMPT_TASKTEXT_H
#define PTXBENCH_PROMPT_TASKTEXT_H

#include "ptxbench/Task/Task.h"

#include "llvm/Support/Error.h"

#include <string>

namespace ptxbench::prompt {

/// The GPU an architecture name stands for ("NVIDIA H100/H200 (Hopper)").
llvm::StringRef deviceName(llvm::StringRef arch);

/// The C++ type of a tensor element in a CUDA submission (`__nv_bfloat16`).
llvm::StringRef cudaElementType(runtime::DType dtype);

/// The task: description, tensors, development workloads, checks, speed.
std::string renderTaskSection(const runtime::Task &task);

/// How the harness compiles and calls the submission's kernels on `arch`.
std::string renderAbiSection(const runtime::Task &task, llvm::StringRef arch);

/// A launch plan for `task` that uses tensor maps (when the task has a 2-D
/// or higher input), with a kernel signature that matches it. Checked with
/// parseLaunchPlan/resolveLaunchPlan against the first development
/// workload; an error means the example generator and the plan syntax
/// disagree.
llvm::Expected<std::string> exampleSubmission(const runtime::Task &task);

/// `text`, a worked example named `fileName`, once its launch plan parses
/// and resolves against the first development workload of `task` (an error
/// means the example generator and the plan syntax disagree).
llvm::Expected<std::string> checkedExample(std::string text,
                                           llvm::StringRef fileName,
                                           const runtime::Task &task);

/// What a plan's expressions may hold, and the line that introduces the
/// worked example.
std::string renderPlanExpressions(const runtime::Task &task);

/// The launch-plan statements, expressions and the worked example.
llvm::Expected<std::string> renderLaunchPlanSection(const runtime::Task &task);

/// The requested families on `arch`, from task.features.
std::string renderFeaturesSection(const runtime::Task &task,
                                  llvm::StringRef arch);

/// One fenced code block holding the whole submission.
std::string renderResponseFormat(llvm::StringRef arch);

} // namespace ptxbench::prompt

#endif // PTXBENCH_PROMPT_TASKTEXT_H
