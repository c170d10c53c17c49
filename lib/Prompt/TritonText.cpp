//===- TritonText.cpp - A task in the words a Triton answer needs ---------===//
//
// The Triton variants of the prompt's response format, ABI and launch-plan
// sections, and the brief context's map from requested families to the
// Triton constructs that reach them. The worked example is generated for
// the task's tensors and parameters and checked by the plan parser.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Prompt/TritonText.h"

#include "ptxbench/ISA/ISA.h"
#include "ptxbench/Prompt/ExtractCode.h"
#include "ptxbench/Prompt/TaskText.h"
#include "ptxbench/Task/LaunchPlan.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace ptxbench;
using namespace ptxbench::prompt;
using runtime::DType;
using runtime::Task;
using runtime::TensorSpec;

std::string prompt::renderTritonResponseFormat(StringRef arch) {
  std::string text;
  raw_string_ostream os(text);
  os << "## Response format\n\n"
     << "Answer with exactly one fenced code block tagged ```python holding "
        "the whole Triton submission for "
     << arch
     << ": its `# @ptxbench` launch-plan lines and every `@triton.jit` "
        "function. Explanations may come before the block; do not add other "
        "code blocks. "
     << answerContract << "\n";
  return text;
}

std::string prompt::renderTritonAbiSection(const Task &task, StringRef arch) {
  std::string text;
  raw_string_ostream os(text);
  os << "## Kernel ABI (Triton)\n\n"
     << "- The submission is kernels only: the harness allocates and fills "
        "the tensors, launches your kernel as your launch plan says, checks "
        "and times it. It holds imports of `triton` and `triton.language` "
        "only, numeric constants and `@triton.jit` functions: no launch "
        "code, no `kernel[grid](...)`, no torch, no tests, no "
        "`@triton.autotune` or `@triton.heuristics` (one configuration per "
        "answer, given in the plan). Anything else is refused before it "
        "runs.\n"
     << "- Triton 3.9 compiles it ahead of time for `" << arch
     << "`; the PTX it writes is what is analyzed and run.\n"
     << "- One kernel per answer: the `@triton.jit` function the plan names "
        "(it may call other `@triton.jit` functions). Its run-time "
        "parameters come in the order of the plan's `args`; its "
        "`tl.constexpr` parameters get the plan's `constexpr` values.\n"
     << "- A task tensor is a pointer to its elements (";
  std::vector<std::string> types;
  for (DType d : {DType::BF16, DType::F16, DType::F32, DType::I32,
                  DType::E4M3})
    if (any_of(task.tensors, [&](const TensorSpec &t) { return t.dtype == d; }))
      types.push_back("`" + runtime::dtypeName(d).str() + "`: `*" +
                      runtime::tritonTypeName(d).str() + "`");
  os << join(types, ", ")
     << "), 256-byte aligned, densely packed row-major. An integer argument "
        "is `i32` unless the plan gives it `:u32`, `:i64` or `:u64`; pass "
        "floats as constexprs. Pointers, and integers that are multiples of "
        "16 in every workload, are specialized as divisible by 16.\n"
     << "- A `tensormap` is a host-side tensor descriptor "
        "(`desc.load([i, j])`, `desc.store([i, j], tile)`) whose block shape "
        "is the plan's `box`; the harness encodes it as Triton's launcher "
        "would. `tl.make_tensor_descriptor` on a pointer works too (the "
        "harness gives it Triton's scratch memory).\n"
     << "- A program runs 32 * `num_warps` threads with the shared memory "
        "Triton allocates (up to 227 KiB); no clusters.\n";
  return text;
}

Expected<std::string> prompt::tritonExampleSubmission(const Task &task) {
  // A descriptor over the first input of rank 2 or more: one slice of the
  // outer dimensions, a 64x64 tile.
  const TensorSpec *described = nullptr;
  for (const TensorSpec &t : task.tensors)
    if (!described && t.role == runtime::Role::Input && t.shape.size() >= 2 &&
        t.shape.size() <= 5)
      described = &t;
  const TensorSpec *out = nullptr;
  for (const TensorSpec &t : task.tensors)
    if (t.role == runtime::Role::Output && !out)
      out = &t;
  std::string grid = "1";
  if (out && out->shape.size() >= 2)
    grid = "(ceildiv(" + out->shape[out->shape.size() - 2].text().str() +
           ", 64), ceildiv(" + out->shape.back().text().str() + ", 64))";
  else if (out && out->shape.size() == 1)
    grid = "ceildiv(" + out->shape.back().text().str() + ", 1024)";

  std::vector<std::string> args, params;
  for (const TensorSpec &t : task.tensors) {
    if (&t == described) {
      args.push_back(t.name + "_desc");
      params.push_back(t.name + "_desc");
    } else {
      args.push_back(t.name);
      params.push_back(t.name + "_ptr");
    }
  }
  for (const std::string &p : task.params) {
    args.push_back(p);
    params.push_back(p);
  }
  params.push_back("BLOCK: tl.constexpr");

  std::string text;
  raw_string_ostream os(text);
  os << "import triton\nimport triton.language as tl\n\n"
     << "# @ptxbench kernel " << task.name << "_kernel grid=" << grid
     << " num_warps=4 num_stages=3\n"
     << "# @ptxbench   args " << join(args, ", ") << "\n"
     << "# @ptxbench   constexpr BLOCK=64\n";
  if (described) {
    std::vector<std::string> box;
    for (size_t d = 0; d + 2 < described->shape.size(); ++d)
      box.push_back("1");
    box.push_back("64");
    box.push_back("64");
    os << "# @ptxbench tensormap " << described->name
       << "_desc tensor=" << described->name << " box=(" << join(box, ", ")
       << ")\n";
  }
  os << "@triton.jit\n"
     << "def " << task.name << "_kernel(" << join(params, ", ") << "):\n"
     << "    pid_m = tl.program_id(0)\n"
     << "    # ...\n";

  return checkedExample(std::move(text), "example.py", task);
}

Expected<std::string> prompt::renderTritonLaunchPlanSection(const Task &task) {
  auto example = tritonExampleSubmission(task);
  if (!example)
    return example.takeError();
  std::vector<std::string> names;
  for (const TensorSpec &t : task.tensors)
    names.push_back(t.name);
  std::string text;
  raw_string_ostream os(text);
  os << "## Launch plan\n\n"
     << "Declare how to launch your kernel in comment lines starting with "
        "`# @ptxbench` (where the task speaks of `// @ptxbench` lines), one "
        "statement per line. Spaces are allowed only inside parentheses.\n\n"
     << "- `kernel NAME grid=DIMS [num_warps=N] [num_stages=N]`: the "
        "`@triton.jit` function to launch; `DIMS` is one expression or "
        "`(x, y)` / `(x, y, z)` programs; `num_warps` a power of two up to "
        "32 (default 4), `num_stages` 1 to 8 (default 3). No `block=` or "
        "`smem=`: Triton decides them.\n"
     << "- `args ARG, ARG, ...`: the kernel's run-time parameters, in "
        "order: a task tensor ("
     << join(names, ", ")
     << "), a tensor map, a workspace, or an integer expression.\n"
     << "- `constexpr NAME=VALUE ...`: the values of its `tl.constexpr` "
        "parameters (constants: integers, floats, True/False).\n"
     << "- `tensormap NAME tensor=T box=(B0, ...) [oob=zero|nan]`: a "
        "host-side tensor descriptor over tensor `T` with block shape `box`, "
        "in the tensor's shape order, outermost first (constants). Out of "
        "bounds loads read zeros (or NaN), stores are clipped.\n"
     << "- `workspace NAME bytes=EXPR [zero|zero=once]`: a scratch buffer, "
        "passed as a pointer.\n\n"
     << renderPlanExpressions(task) << "```python\n"
     << *example << "```\n";
  return text;
}

/// How Triton reaches one family on `arch`; empty when there is no
/// construct for it.
static StringRef tritonHint(isa::Family family, StringRef arch) {
  switch (family) {
  case isa::Family::Wgmma:
    if (arch != "sm_90a")
      return "";
    return "`tl.dot` on tiles of at least 64 rows with `num_warps` 4 or "
           "more (a warpgroup); smaller tiles fall back to `mma.sync`";
  case isa::Family::Tcgen05:
  case isa::Family::Tmem:
    return "`tl.dot` on 128-row tiles fed by tensor descriptors: Triton "
           "keeps the accumulator in tensor memory";
  case isa::Family::Tma:
  case isa::Family::BulkCopy:
    return "tensor descriptors: a `tensormap` in the plan (`desc.load`, "
           "`desc.store`) or `tl.make_tensor_descriptor`; pointer loads are "
           "copied by threads instead";
  case isa::Family::MbarrierTx:
    return "comes with descriptor loads: each completes on a "
           "transaction-count mbarrier";
  case isa::Family::SetMaxNReg:
    return "`tl.range(..., warp_specialize=True)` on the main loop";
  default:
    return "";
  }
}

std::string prompt::renderTritonFeatureHints(ArrayRef<std::string> requested,
                                             StringRef arch) {
  std::string text;
  raw_string_ostream os(text);
  os << "## Reaching the requested families from Triton\n\n";
  bool any = false;
  for (const std::string &r : requested) {
    std::optional<SmallVector<isa::Family, 2>> families =
        isa::familiesOfRequirement(r);
    if (!families)
      continue;
    // Alternatives that Triton reaches the same way share one line.
    std::vector<std::pair<std::string, StringRef>> lines;
    for (isa::Family f : *families) {
      StringRef hint = tritonHint(f, arch);
      if (hint.empty())
        continue;
      std::string name = "`" + isa::familyName(f).str() + "`";
      auto same = find_if(lines, [&](const auto &l) { return l.second == hint; });
      if (same != lines.end())
        same->first += " or " + name;
      else
        lines.emplace_back(name, hint);
    }
    for (const auto &[names, hint] : lines) {
      any = true;
      os << "- " << names << ": " << hint << ".\n";
    }
  }
  if (!any)
    os << "Triton has no construct that asks for these families directly; "
          "the analysis reports which instructions its PTX uses.\n";
  return text;
}
