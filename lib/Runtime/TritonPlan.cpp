//===- TritonPlan.cpp - A Triton submission's plan, compiled --------------===//
//
// From a Triton plan to the kernel's signature (tritonKernelSpec), from the
// compiled kernel's metadata to the plan the harness runs
// (lowerTritonPlan), and the two chained around the contained compile
// (buildTriton). The harness needs nothing Triton-specific: a lowered plan
// is an ordinary one, and the checks against the task and the module run on
// it unchanged.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/TritonPlan.h"

#include "ptxbench/Runtime/PlanCheck.h"
#include "ptxbench/Runtime/Result.h"
#include "ptxbench/Support/JSON.h"
#include "ptxbench/Task/Task.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;
using namespace ptxbench;
using namespace ptxbench::runtime;

namespace {

/// The name `e` is, when it is one name alone.
std::optional<std::string> loneName(const Expr &e) {
  std::vector<std::string> names = e.names();
  if (names.size() == 1 && e.text().trim() == names.front())
    return names.front();
  return std::nullopt;
}

const TensorMapDecl *findMap(const LaunchPlan &plan, StringRef name) {
  for (const TensorMapDecl &m : plan.tensorMaps)
    if (m.name == name)
      return &m;
  return nullptr;
}

bool isWorkspace(const LaunchPlan &plan, StringRef name) {
  return any_of(plan.workspaces,
                [&](const WorkspaceDecl &w) { return w.name == name; });
}

/// How one argument of the plan reaches the kernel.
enum class ArgKind { Tensor, Workspace, Descriptor, Scalar };

ArgKind kindOf(const PlanArg &arg, const LaunchPlan &plan, const Task &task,
               std::string &name) {
  std::optional<std::string> lone = loneName(arg.value);
  if (!lone || arg.type)
    return ArgKind::Scalar;
  name = *lone;
  if (task.tensorIndex(name) >= 0)
    return ArgKind::Tensor;
  if (isWorkspace(plan, name))
    return ArgKind::Workspace;
  if (findMap(plan, name))
    return ArgKind::Descriptor;
  return ArgKind::Scalar;
}

Expected<Expr> parseAt(const std::string &text, const SourceLoc &loc) {
  return Expr::parse(text, loc);
}

} // namespace

std::vector<Workload> ptxbench::runtime::allWorkloads(const Task &task) {
  std::vector<Workload> all = task.dev;
  all.insert(all.end(), task.heldout.begin(), task.heldout.end());
  return all;
}

Expected<toolchain::TritonKernelSpec>
ptxbench::runtime::tritonKernelSpec(const LaunchPlan &plan, const Task &task) {
  if (plan.kernels.size() != 1 || !plan.kernels.front().triton)
    return createStringError(plan.file + ": a Triton plan names one kernel");
  const KernelDecl &k = plan.kernels.front();
  toolchain::TritonKernelSpec spec;
  spec.name = k.name;
  spec.line = k.loc.line;
  spec.column = k.loc.col;
  spec.numWarps = k.triton->numWarps;
  spec.numStages = k.triton->numStages;
  for (const ConstexprDecl &c : k.triton->constexprs)
    spec.constexprs.push_back({c.name, c.value, c.loc.line, c.loc.col});
  std::vector<Workload> workloads = allWorkloads(task);
  for (const PlanArg &arg : k.args) {
    std::string name;
    unsigned index = spec.args.size();
    switch (kindOf(arg, plan, task, name)) {
    case ArgKind::Tensor:
      spec.args.push_back(
          ("*" + tritonTypeName(task.tensors[task.tensorIndex(name)].dtype))
              .str());
      // The harness aligns every buffer to 256 bytes.
      spec.aligned.push_back(index);
      break;
    case ArgKind::Workspace:
      spec.args.push_back("*i8");
      spec.aligned.push_back(index);
      break;
    case ArgKind::Descriptor: {
      const TensorMapDecl &m = *findMap(plan, name);
      int t = task.tensorIndex(m.tensor);
      if (t < 0)
        return makeError(m.tensorLoc, "unknown tensor '" + m.tensor + "'");
      std::vector<std::string> box;
      for (const Expr &b : m.box) {
        Expected<int64_t> v = b.evaluate({});
        if (!v)
          return v.takeError();
        box.push_back(std::to_string(*v));
      }
      spec.args.push_back(
          formatv("tensordesc<{0}[{1}]>", tritonTypeName(task.tensors[t].dtype),
                  join(box, ","))
              .str());
      break;
    }
    case ArgKind::Scalar: {
      ScalarType type = arg.type.value_or(ScalarType::I32);
      spec.args.push_back(scalarTypeName(type).str());
      // Specialized as Triton's launcher would for these values: a
      // multiple of 16 in every workload.
      bool divisible = !workloads.empty();
      for (const Workload &w : workloads) {
        Expected<int64_t> v = arg.value.evaluate(w.params);
        if (!v) {
          consumeError(v.takeError());
          divisible = false;
          break;
        }
        divisible &= *v % 16 == 0;
      }
      if (divisible)
        spec.aligned.push_back(index);
      break;
    }
    }
  }
  return spec;
}

Expected<LaunchPlan>
ptxbench::runtime::lowerTritonPlan(const LaunchPlan &plan, const Task &task,
                                   const toolchain::TritonKernelBuild &build) {
  if (plan.kernels.size() != 1 || !plan.kernels.front().triton)
    return createStringError(plan.file + ": a Triton plan names one kernel");
  LaunchPlan out = plan;
  KernelDecl &k = out.kernels.front();
  const SourceLoc &at = k.loc;
  if (build.numCtas != 1 || build.cooperativeGrid || build.pdl)
    return makeError(at, "the kernel was compiled for CTA clusters, a "
                         "cooperative grid or programmatic dependent "
                         "launch, which Triton answers may not use");
  if (build.numWarps < 1 || build.numWarps > 32)
    return makeError(at, "Triton compiled the kernel for " +
                             Twine(build.numWarps) +
                             " warps; a block holds at most 32");
  if (build.shared > uint64_t(INT32_MAX))
    return makeError(at, "Triton's shared memory of " + Twine(build.shared) +
                             " bytes is out of range");
  k.name = build.entry;
  k.block = {Expr::constant(32 * int64_t(build.numWarps)), Expr::constant(1),
             Expr::constant(1)};
  k.smem = Expr::constant(int64_t(build.shared));

  Error errors = Error::success();
  auto add = [&](Error e) { errors = joinErrors(std::move(errors), std::move(e)); };
  std::vector<PlanArg> args;
  std::vector<std::string> described;
  size_t descs = 0;
  for (const PlanArg &arg : plan.kernels.front().args) {
    std::string name;
    if (kindOf(arg, plan, task, name) != ArgKind::Descriptor) {
      args.push_back(arg);
      continue;
    }
    if (is_contained(described, name)) {
      add(makeError(arg.loc, "tensor map '" + name +
                                 "' is passed twice; declare one per "
                                 "descriptor parameter"));
      continue;
    }
    described.push_back(name);
    if (descs >= build.tensorDescs.size()) {
      add(makeError(arg.loc,
                    "Triton did not lower descriptor '" + name +
                        "' to a TMA tensor map for this target; the harness "
                        "passes host-side descriptors only as tensor maps"));
      continue;
    }
    const toolchain::TritonTensorDesc &meta = build.tensorDescs[descs++];
    TensorMapDecl *m = nullptr;
    for (TensorMapDecl &decl : out.tensorMaps)
      if (decl.name == name)
        m = &decl;
    int t = task.tensorIndex(m->tensor);
    const TensorSpec &spec = task.tensors[t];
    if (meta.im2col || meta.fp4Padded) {
      add(makeError(m->loc, "descriptor '" + name +
                                "' is im2col or fp4-padded, which the "
                                "harness does not encode"));
      continue;
    }
    if (meta.blockSize.size() != spec.shape.size() || meta.swizzle < 0 ||
        meta.swizzle > 3 || meta.elemSize != dtypeSize(spec.dtype)) {
      add(makeError(m->loc,
                    "Triton's descriptor '" + name + "' (" +
                        Twine(meta.blockSize.size()) + " dimensions, " +
                        Twine(meta.elemSize) +
                        "-byte elements) does not fit tensor '" + spec.name +
                        "'"));
      continue;
    }
    // Encoded as Triton's launcher encodes it: the block and swizzle its
    // compiler chose, 128-byte L2 promotion.
    m->box.clear();
    for (uint32_t b : meta.blockSize)
      m->box.push_back(Expr::constant(b));
    m->blockShape = false;
    m->swizzle = Swizzle(meta.swizzle);
    m->interleave = Interleave::None;
    m->l2 = L2Promotion::B128;
    args.push_back(arg);
    // Then the shape (i32) and the strides in elements (i64), outermost
    // first, as Triton passes them after the tensor map.
    size_t rank = spec.shape.size();
    for (size_t i = 0; i < rank; ++i) {
      Expected<Expr> dim = parseAt("(" + spec.shape[i].text().str() + ")",
                                   arg.loc);
      if (!dim) {
        add(dim.takeError());
        continue;
      }
      args.push_back({*dim, ScalarType::I32, arg.loc});
    }
    for (size_t i = 0; i < rank; ++i) {
      std::string stride = "1";
      for (size_t j = i + 1; j < rank; ++j)
        stride += "*(" + spec.shape[j].text().str() + ")";
      Expected<Expr> e = parseAt(stride, arg.loc);
      if (!e) {
        add(e.takeError());
        continue;
      }
      args.push_back({*e, ScalarType::I64, arg.loc});
    }
  }
  if (descs != build.tensorDescs.size())
    add(makeError(at, "Triton's kernel takes " +
                          Twine(build.tensorDescs.size()) +
                          " tensor descriptors, the plan passes " +
                          Twine(descs)));

  // Triton's launcher appends a global scratch pointer (device-made tensor
  // descriptors live there) and a profiler scratch pointer: a workspace of
  // size * programs bytes each, or null.
  std::string programs = "(" + k.grid[0].text().str() + ")*(" +
                         k.grid[1].text().str() + ")*(" +
                         k.grid[2].text().str() + ")";
  auto scratch = [&](StringRef name, uint64_t size, uint64_t align) {
    if (!size) {
      args.push_back({Expr::constant(0), ScalarType::U64, at});
      return;
    }
    if (align > 256) {
      add(makeError(at, "Triton's " + name + " wants " + Twine(align) +
                            "-byte alignment; the harness gives 256"));
      return;
    }
    Expected<Expr> bytes = parseAt(std::to_string(size) + "*" + programs, at);
    if (!bytes) {
      add(bytes.takeError());
      return;
    }
    WorkspaceDecl w;
    w.name = ("__triton_" + name).str();
    w.loc = at;
    w.bytes = *bytes;
    out.workspaces.push_back(w);
    Expected<Expr> ref = parseAt(w.name, at);
    if (ref)
      args.push_back({*ref, std::nullopt, at});
    else
      add(ref.takeError());
  };
  scratch("global_scratch", build.globalScratchSize, build.globalScratchAlign);
  scratch("profile_scratch", build.profileScratchSize,
          build.profileScratchAlign);
  k.args = std::move(args);
  if (errors)
    return std::move(errors);
  return out;
}

//===----------------------------------------------------------------------===//
// The whole chain
//===----------------------------------------------------------------------===//

namespace {
/// Every line of `error` sorted and joined, or the empty string.
std::string planErrors(Error error) {
  std::string out;
  handleAllErrors(std::move(error), [&](const ErrorInfoBase &e) {
    out += (out.empty() ? "" : "\n") + e.message();
  });
  return out;
}
} // namespace

TritonBuild ptxbench::runtime::buildTriton(
    StringRef source, StringRef fileName, StringRef arch, const Task &task,
    const toolchain::TritonLimits &limits) {
  TritonBuild result;
  Expected<LaunchPlan> plan = parseLaunchPlan(source, fileName);
  if (!plan) {
    result.planError = planErrors(plan.takeError());
    return result;
  }
  // The plan's names against the task, for every workload, before the
  // compile: a wrong plan costs no Triton compile.
  RunResult precheck;
  if (!checkPlanOffline(task, allWorkloads(task), source, fileName,
                        std::nullopt, precheck)) {
    for (const WorkloadResult &w : precheck.workloads)
      if (!w.message.empty()) {
        result.planError = w.message;
        break;
      }
    return result;
  }
  Expected<toolchain::TritonKernelSpec> spec = tritonKernelSpec(*plan, task);
  if (!spec) {
    result.planError = planErrors(spec.takeError());
    return result;
  }
  result.compiled =
      toolchain::compileTriton(source, fileName, arch, *spec, limits);
  if (result.compiled.stage == toolchain::TritonStage::Plan) {
    std::string out;
    for (const toolchain::CompilerMessage &m : result.compiled.messages) {
      SourceLoc loc{fileName.str(), m.line, m.column};
      out += (out.empty() ? "" : "\n") + loc.str() + ": error: " + m.text;
    }
    result.planError = out;
    return result;
  }
  if (!result.compiled.ok)
    return result;
  Expected<LaunchPlan> lowered =
      lowerTritonPlan(*plan, task, result.compiled.build);
  if (!lowered) {
    result.planError = planErrors(lowered.takeError());
    return result;
  }
  result.lowered = std::move(*lowered);
  return result;
}

Expected<LaunchPlan>
ptxbench::runtime::submissionPlan(StringRef source, StringRef fileName,
                                  const Task &task, StringRef buildJsonPath) {
  Expected<LaunchPlan> plan = parseLaunchPlan(source, fileName);
  if (!plan || buildJsonPath.empty())
    return plan;
  auto text = MemoryBuffer::getFile(buildJsonPath);
  if (!text)
    return createStringError("cannot read " + buildJsonPath + ": " +
                             text.getError().message());
  Expected<json::Value> value = parseJSON((*text)->getBuffer());
  if (!value)
    return value.takeError();
  toolchain::TritonKernelBuild build;
  json::Path::Root root;
  if (!fromJSON(*value, build, root))
    return root.getError();
  return lowerTritonPlan(*plan, task, build);
}
