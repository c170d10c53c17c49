//===- TaskText.cpp - A task in the words a model reads -------------------===//
//
// The task-dependent prompt sections. Everything is read from the Task; the
// worked launch-plan example is generated for the task's tensors and
// parameters and checked by the plan parser before it is shown.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Prompt/TaskText.h"

#include "ptxbench/ISA/ISA.h"
#include "ptxbench/Prompt/ExtractCode.h"
#include "ptxbench/Prompt/Feedback.h"
#include "ptxbench/Task/LaunchPlan.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace ptxbench;
using namespace ptxbench::prompt;
using runtime::DType;
using runtime::Task;
using runtime::TensorSpec;

StringRef prompt::deviceName(StringRef arch) {
  if (arch == "sm_90a")
    return "NVIDIA H100/H200 (Hopper)";
  if (arch == "sm_100a")
    return "NVIDIA B200 (Blackwell)";
  return "an NVIDIA GPU";
}

StringRef prompt::cudaElementType(DType dtype) {
  switch (dtype) {
  case DType::BF16:
    return "__nv_bfloat16";
  case DType::F16:
    return "__half";
  case DType::F32:
    return "float";
  case DType::I32:
    return "int";
  case DType::E4M3:
    // One byte per element: __nv_fp8_e4m3 with <cuda_fp8.h>, or raw bytes.
    return "unsigned char";
  }
  return "void";
}

static std::string num(double v) {
  std::string s;
  raw_string_ostream(s) << format("%g", v);
  return s;
}

static std::string shapeText(const TensorSpec &t) {
  std::vector<std::string> dims;
  for (const runtime::Expr &e : t.shape)
    dims.push_back(e.text().str());
  return "[" + join(dims, ", ") + "]";
}

static std::string distributionText(const runtime::Distribution &d) {
  using Kind = runtime::Distribution::Kind;
  switch (d.kind) {
  case Kind::Normal:
    return "normal(" + num(d.mean) + ", " + num(d.std) + ")";
  case Kind::Uniform:
    return "uniform[" + num(d.low) + ", " + num(d.high) + ")";
  case Kind::Ints:
    return "integers in [" + num(d.low) + ", " + num(d.high) + "]";
  case Kind::Spiky:
    return "normal(" + num(d.mean) + ", " + num(d.std) + ") with a fraction " +
           num(d.spikeProb) + " of values scaled by " + num(d.spikeScale);
  case Kind::Derived:
    return "computed by the harness from the other inputs (see the task)";
  case Kind::Permutation:
    return "a permutation of 0 .. n-1, n its element count: every index once, "
           "in a scrambled order";
  }
  return "";
}

std::string prompt::renderTaskSection(const Task &task) {
  std::string text;
  raw_string_ostream os(text);
  os << "## Task: " << task.name << "\n\n" << task.description << "\n\n";
  os << "Tensors (row-major: the last dimension is contiguous; shapes are "
        "over the parameters "
     << join(task.params, ", ") << "):\n\n";
  for (const TensorSpec &t : task.tensors) {
    os << "- `" << t.name << "`: " << runtime::dtypeName(t.dtype) << " "
       << shapeText(t) << ", "
       << (t.role == runtime::Role::Input ? "input" : "output");
    if (t.role == runtime::Role::Input)
      os << " (values " << distributionText(t.dist)
         << "; must not be modified)";
    else
      os << " (every element must be written)";
    os << "\n";
  }
  os << "\nDevelopment workloads:\n\n";
  for (const runtime::Workload &w : task.dev) {
    std::vector<std::string> values;
    for (const std::string &p : task.params)
      values.push_back(p + "=" + std::to_string(w.params.lookup(p)));
    os << "- " << w.name << ": " << join(values, ", ") << "\n";
  }
  if (!task.heldout.empty())
    os << "\nThe submission is also run on held-out workloads not listed "
          "here: handle every size, including sizes that are not multiples of "
          "your tile sizes.\n";
  os << "\nCorrectness: each output is compared with an fp32 reference";
  std::vector<std::string> checks;
  for (const auto &[dtype, tol] : task.tolerances)
    checks.push_back("per element |out - ref| <= " + num(tol.atol) + " + " +
                     num(tol.rtol) + "*|ref| for " +
                     runtime::dtypeName(dtype).str() + " outputs");
  if (task.relL2)
    checks.push_back("relative L2 error ||out - ref|| / ||ref|| <= " +
                     num(*task.relL2));
  if (!checks.empty())
    os << ": " << join(checks, "; ");
  os << ". Any unwritten, NaN or Inf element fails. The check runs "
     << task.trials << " time" << (task.trials == 1 ? "" : "s")
     << " with fresh inputs, and again after timing.\n";
  os << "\nSpeed: the median time of the whole launch plan (CUDA events, L2 "
        "flushed between samples), reported as TFLOP/s ("
     << task.flops.text() << " FLOP) and GB/s (" << task.bytes.text()
     << " bytes)";
  if (!task.baseline.empty() && task.baseline != "none")
    os << ", against " << baselineDisplayName(task.baseline)
       << " on the same inputs and against the hardware's speed of light. "
          "Aim: faster than "
       << baselineDisplayName(task.baseline);
  else
    os << ", against the hardware's speed of light";
  os << ".\n";
  return text;
}

std::string prompt::renderAbiSection(const Task &task, StringRef arch) {
  std::string text;
  raw_string_ostream os(text);
  std::string compute = "compute_" + arch.drop_front(3).str();
  os << "## Kernel ABI\n\n"
     << "- The submission is kernels only: the harness allocates and fills "
        "the tensors, launches your kernels as your launch plan says, checks "
        "and times them. No host code, no `main`, no library calls.\n"
     << "- Either CUDA C++ (`.cu`, compiled by NVRTC with `-std=c++17 "
        "--gpu-architecture="
     << compute
     << "`; the CUDA toolkit headers such as `<cuda_bf16.h>` and `<cuda.h>` "
        "are on the include path; inline PTX with `asm volatile`) or one PTX "
        "module (`.ptx` with `.target "
     << arch << "`, loaded by the driver's JIT).\n"
     << "- Kernels the plan names must have unmangled names: `extern \"C\" "
        "__global__` in CUDA, `.visible .entry` in PTX. Parameters come in "
        "the order of the plan's `args`.\n"
     << "- A task tensor is passed as a device pointer to its elements (";
  std::vector<std::string> types;
  for (DType d : {DType::BF16, DType::F16, DType::F32, DType::I32})
    if (any_of(task.tensors, [&](const TensorSpec &t) { return t.dtype == d; }))
      types.push_back("`" + runtime::dtypeName(d).str() + "`: `" +
                      cudaElementType(d).str() + " *`");
  os << join(types, ", ")
     << "; `.u64` in PTX), 256-byte aligned, densely packed row-major.\n"
     << "- An integer argument is `int` (`.s32`) unless the plan gives it "
        "`:u32`, `:i64` or `:u64`.\n"
     << "- A TMA tensor map is passed by value: `const __grid_constant__ "
        "CUtensorMap name` in CUDA (`#include <cuda.h>`), `.param .align 64 "
        ".b8 name[128]` in PTX. The harness encodes it with "
        "`cuTensorMapEncodeTiled`; in PTX, TMA coordinates are innermost "
        "first.\n"
     << "- Dynamic shared memory is the plan's `smem=` (up to 227 KiB; the "
        "harness raises the kernel's limit); static `__shared__` is limited "
        "to 48 KiB.\n";
  return text;
}

/// The kernel name, grid and signature of the example for `task`.
Expected<std::string> prompt::exampleSubmission(const Task &task) {
  // Tensor maps over up to two inputs of rank 2..5.
  struct Map {
    const TensorSpec *tensor;
    std::string name;
    std::vector<int64_t> box;
  };
  std::vector<Map> maps;
  for (const TensorSpec &t : task.tensors) {
    if (t.role != runtime::Role::Input || t.shape.size() < 2 ||
        t.shape.size() > 5 || maps.size() == 2)
      continue;
    Map m{&t, "tm" + t.name, {}};
    // One slice of the outer dimensions (a batch, a head), 64 rows.
    for (size_t d = 0; d + 2 < t.shape.size(); ++d)
      m.box.push_back(1);
    m.box.push_back(64);
    // The innermost box spans the 128-byte swizzle.
    m.box.push_back(128 / runtime::dtypeSize(t.dtype));
    maps.push_back(m);
  }
  // The grid covers the first output's last two dimensions in 128x128 tiles.
  const TensorSpec *out = nullptr;
  for (const TensorSpec &t : task.tensors)
    if (t.role == runtime::Role::Output && !out)
      out = &t;
  std::string grid = "1";
  if (out && out->shape.size() >= 2)
    grid = "(ceildiv(" + out->shape.back().text().str() + ", 128), ceildiv(" +
           out->shape[out->shape.size() - 2].text().str() + ", 128))";
  else if (out && out->shape.size() == 1)
    grid = "ceildiv(" + out->shape.back().text().str() + ", 256)";
  std::string smem = "0";
  if (!maps.empty()) {
    std::vector<std::string> tiles;
    for (const Map &m : maps) {
      std::vector<std::string> dims;
      for (int64_t b : m.box)
        dims.push_back(std::to_string(b));
      tiles.push_back(join(dims, "*") + "*" +
                      std::to_string(runtime::dtypeSize(m.tensor->dtype)));
    }
    smem = "3*(" + join(tiles, " + ") + ")"; // three pipeline stages
  }

  std::vector<std::string> args, params;
  for (const TensorSpec &t : task.tensors) {
    auto m = find_if(maps, [&](const Map &m) { return m.tensor == &t; });
    if (m != maps.end()) {
      args.push_back(m->name);
      params.push_back("const __grid_constant__ CUtensorMap " + m->name);
    } else {
      args.push_back(t.name);
      params.push_back(std::string(t.role == runtime::Role::Input ? "const "
                                                                  : "") +
                       cudaElementType(t.dtype).str() + " *" + t.name);
    }
  }
  for (const std::string &p : task.params) {
    args.push_back(p);
    params.push_back("int " + p);
  }

  std::string text;
  raw_string_ostream os(text);
  os << "// @ptxbench kernel " << task.name << "_kernel grid=" << grid
     << " block=384 smem=" << smem << "\n"
     << "// @ptxbench   args " << join(args, ", ") << "\n";
  for (const Map &m : maps) {
    std::vector<std::string> dims;
    for (int64_t b : m.box)
      dims.push_back(std::to_string(b));
    os << "// @ptxbench tensormap " << m.name << " tensor=" << m.tensor->name
       << " box=(" << join(dims, ", ") << ") swizzle=128B\n";
  }
  if (!maps.empty())
    os << "#include <cuda.h>\n";
  if (any_of(task.tensors,
             [](const TensorSpec &t) { return t.dtype == DType::BF16; }))
    os << "#include <cuda_bf16.h>\n";
  if (any_of(task.tensors,
             [](const TensorSpec &t) { return t.dtype == DType::F16; }))
    os << "#include <cuda_fp16.h>\n";
  os << "\nextern \"C\" __global__ void __launch_bounds__(384, 1)\n"
     << task.name << "_kernel(" << join(params, ", ") << ") {\n"
     << "  extern __shared__ __align__(1024) unsigned char smem[];\n"
     << "  // ...\n}\n";

  return checkedExample(std::move(text), "example.cu", task);
}

Expected<std::string> prompt::checkedExample(std::string text,
                                             StringRef fileName,
                                             const Task &task) {
  auto plan = runtime::parseLaunchPlan(text, fileName);
  if (!plan)
    return plan.takeError();
  if (!task.dev.empty())
    if (auto resolved =
            runtime::resolveLaunchPlan(*plan, task, task.dev.front().params);
        !resolved)
      return resolved.takeError();
  return text;
}

std::string prompt::renderPlanExpressions(const Task &task) {
  return "Expressions: 64-bit integers, the parameters " +
         join(task.params, ", ") +
         ", `+ - * / %` with C precedence (`/` truncates), parentheses, "
         "`ceildiv(a, b)`, `min(a, ...)`, `max(a, ...)`.\n\n"
         "Example (checked against this task; the kernel body is yours):\n\n";
}

Expected<std::string> prompt::renderLaunchPlanSection(const Task &task) {
  auto example = exampleSubmission(task);
  if (!example)
    return example.takeError();
  std::string text;
  raw_string_ostream os(text);
  os << "## Launch plan\n\n"
     << "Declare how to launch your kernels in comment lines starting with "
        "`// @ptxbench` (the same in `.cu` and `.ptx`), one statement per "
        "line; kernels run in the order written. Spaces are allowed only "
        "inside parentheses.\n\n"
     << "- `kernel NAME grid=DIMS block=DIMS [cluster=DIMS] [smem=EXPR]`: "
        "`DIMS` is one expression or `(x, y)` / `(x, y, z)`; grid dimensions "
        "must be multiples of the cluster's; at most 1024 threads per "
        "block.\n"
     << "- `args ARG, ARG, ...`: the arguments of the kernel above, in order "
        "(may continue over several `args` lines): a task tensor (";
  std::vector<std::string> names;
  for (const TensorSpec &t : task.tensors)
    names.push_back(t.name);
  os << join(names, ", ")
     << "), a workspace, a tensor map, or an integer expression (`i32`, or "
        "suffixed `:u32`, `:i64`, `:u64`).\n"
     << "- `tensormap NAME tensor=T box=(B0, ...) [swizzle=none|32B|64B|128B] "
        "[interleave=none|16B|32B] [l2=none|64B|128B|256B] [oob=zero|nan]`: a "
        "TMA descriptor over tensor `T`. `box` is in the tensor's shape "
        "order, outermost first; the innermost box must be a multiple of 16 "
        "bytes and fit the swizzle span.\n"
     << "- `workspace NAME bytes=EXPR [zero|zero=once]`: a scratch buffer; "
        "`zero` clears it before every launch (timed with the kernels), "
        "`zero=once` only when it is allocated (untimed: the kernels must "
        "leave it zeroed).\n\n"
     << renderPlanExpressions(task) << "```cuda\n"
     << *example << "```\n";
  return text;
}

std::string prompt::renderFeaturesSection(const Task &task, StringRef arch) {
  std::string text;
  raw_string_ostream os(text);
  os << "## Requested features on " << arch << "\n\n";
  auto it = task.features.find(arch.str());
  if (it == task.features.end() || it->second.empty()) {
    os << "None: any correct, fast kernel is welcome.\n";
    return text;
  }
  os << "Use these instruction families in the code the kernels actually "
        "run (code that cannot run does not count): ";
  std::vector<std::string> quoted;
  for (const std::string &f : it->second) {
    // Alternatives: "`bulk_copy` or `tma`" (the task loader checked them).
    // Held here: a range-for over `*familiesOfRequirement(f)` iterates an
    // optional destroyed before the loop starts.
    std::optional<SmallVector<ptxbench::isa::Family, 2>> families =
        ptxbench::isa::familiesOfRequirement(f);
    std::vector<std::string> each;
    for (ptxbench::isa::Family family : *families)
      each.push_back("`" + ptxbench::isa::familyName(family).str() + "`");
    quoted.push_back(join(each, " or "));
  }
  os << join(quoted, ", ")
     << ". The analysis reports each one as used, missing, unreachable or "
        "serialized, and names every generic fallback it finds.\n";
  return text;
}

std::string prompt::renderResponseFormat(StringRef arch) {
  std::string text;
  raw_string_ostream os(text);
  os << "## Response format\n\n"
     << "Answer with exactly one fenced code block, tagged ```cuda (CUDA C++ "
        "with inline PTX) or ```ptx (a PTX module for "
     << arch
     << "), holding the whole submission: its `// @ptxbench` launch-plan "
        "lines and every kernel. Explanations may come before the block; "
        "do not add other code blocks. "
     << answerContract << "\n";
  return text;
}
