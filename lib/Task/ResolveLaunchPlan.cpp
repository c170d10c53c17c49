//===- ResolveLaunchPlan.cpp - A launch plan for one workload -------------===//
//
// Resolution of a parsed launch plan against a task and one workload's
// parameters: every expression evaluated, every name bound to a task
// tensor, workspace, tensor map or scalar, and the results checked against
// the limits the hardware and the tensor-map encoder set (grid, block and
// cluster sizes, dynamic shared memory, box sizes and swizzle spans, the
// range of each scalar's type), each error at the plan's own line. Every
// mistake is reported, not only the first: a wrong declaration still gets
// its name, so what uses it is checked without repeating its error.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Task/LaunchPlan.h"
#include "ptxbench/Task/Task.h"

#include "llvm/ADT/StringMap.h"

using namespace llvm;
using namespace ptxbench::runtime;

namespace {

/// Every mistake of a plan for one workload, in the order of the plan.
class Mistakes {
public:
  void add(Error e) { errors = joinErrors(std::move(errors), std::move(e)); }
  /// `v`'s value, or `fallback` with its error kept.
  template <typename T> T take(Expected<T> v, T fallback) {
    if (v)
      return *v;
    add(v.takeError());
    return fallback;
  }
  Error finish() { return std::move(errors); }

private:
  Error errors = Error::success();
};

Expected<uint32_t> evalDim(const Expr &e, const Bindings &params,
                           StringRef what, int64_t max) {
  auto v = e.evaluate(params);
  if (!v)
    return v.takeError();
  if (*v < 1 || *v > max)
    return makeError(e.loc(), what + " '" + e.text() + "' is " + Twine(*v) +
                                  " here; it must be in [1, " + Twine(max) +
                                  "]");
  return uint32_t(*v);
}

std::string taskTensors(const Task &task) {
  std::string known;
  for (const TensorSpec &s : task.tensors)
    known += (known.empty() ? "" : ", ") + s.name;
  return known;
}

/// The checks of one tensor map against its tensor: rank, box sizes, the
/// innermost box's bytes against 16-byte granules and the swizzle span.
void resolveTensorMap(const TensorMapDecl &m, const Task &task,
                      const Bindings &params, Mistakes &mistakes,
                      ResolvedTensorMap &r) {
  int t = task.tensorIndex(m.tensor);
  if (t < 0)
    return mistakes.add(makeError(
        m.tensorLoc, "unknown tensor '" + m.tensor +
                         "' (task tensors: " + taskTensors(task) + ")"));
  r.tensor = unsigned(t);
  const TensorSpec &spec = task.tensors[t];
  if (m.box.size() != spec.shape.size())
    return mistakes.add(makeError(
        m.loc, "box has " + Twine(m.box.size()) + " sizes but tensor '" +
                   spec.name + "' has rank " + Twine(spec.shape.size())));
  if (m.box.size() > 5)
    return mistakes.add(makeError(m.loc, "tensor maps have rank at most 5"));
  bool boxOk = true;
  for (const Expr &b : m.box) {
    auto v = evalDim(b, params, m.blockShape ? "block size" : "box size",
                     m.blockShape ? 65536 : 256);
    boxOk &= bool(v);
    r.box.push_back(mistakes.take(std::move(v), uint32_t(1)));
  }
  if (!boxOk || m.interleave != Interleave::None)
    return;
  uint64_t innerBytes = uint64_t(r.box.back()) * dtypeSize(spec.dtype);
  if (innerBytes % 16)
    mistakes.add(makeError(m.box.back().loc(),
                           "the innermost box size times the element size (" +
                               Twine(innerBytes) +
                               " bytes) must be a multiple of 16"));
  unsigned swz = m.swizzle == Swizzle::B32    ? 32
                 : m.swizzle == Swizzle::B64  ? 64
                 : m.swizzle == Swizzle::B128 ? 128
                                              : 0;
  if (swz && innerBytes > swz)
    mistakes.add(makeError(m.box.back().loc(),
                           "the innermost box is " + Twine(innerBytes) +
                               " bytes, more than the " + Twine(swz) +
                               "-byte swizzle span"));
}

/// Whether `value` fits the scalar type.
bool fits(int64_t value, ScalarType type) {
  switch (type) {
  case ScalarType::I32:
    return value >= INT32_MIN && value <= INT32_MAX;
  case ScalarType::U32:
    return value >= 0 && value <= int64_t(UINT32_MAX);
  case ScalarType::I64:
    return true;
  case ScalarType::U64:
    return value >= 0;
  }
  llvm_unreachable("scalar type");
}

} // namespace

Expected<ResolvedPlan>
ptxbench::runtime::resolveLaunchPlan(const LaunchPlan &plan, const Task &task,
                                     const Bindings &params) {
  ResolvedPlan out;
  Mistakes mistakes;
  StringMap<unsigned> workspaceIndex, mapIndex;
  // Every declaration gets its index even when it is wrong, so a kernel
  // argument naming it is not reported again as an unknown name.
  for (const WorkspaceDecl &w : plan.workspaces) {
    workspaceIndex[w.name] = out.workspaces.size();
    out.workspaces.push_back({w.name, 0, w.zero});
    if (task.tensorIndex(w.name) >= 0 || params.count(w.name)) {
      mistakes.add(makeError(w.loc, "workspace '" + w.name +
                                        "' hides a task tensor or parameter"));
      continue;
    }
    auto bytes = w.bytes.evaluate(params);
    if (!bytes) {
      mistakes.add(bytes.takeError());
      continue;
    }
    if (*bytes < 0 || *bytes > (int64_t(1) << 40)) {
      mistakes.add(makeError(w.bytes.loc(), "workspace size '" +
                                                w.bytes.text() + "' is " +
                                                Twine(*bytes) + " bytes here"));
      continue;
    }
    out.workspaces.back().bytes = uint64_t(*bytes);
  }
  // Scratch beyond any honest need is the plan's mistake, said here
  // rather than as a failed allocation on the GPU.
  if (!plan.workspaces.empty()) {
    uint64_t tensorBytes = 0, total = 0;
    for (unsigned t = 0; t < task.tensors.size(); ++t) {
      auto shape = task.shapeOf(t, params);
      if (!shape) {
        consumeError(shape.takeError()); // the task's own check says it
        continue;
      }
      uint64_t n = dtypeSize(task.tensors[t].dtype);
      for (int64_t d : *shape)
        n = d > 0 && n > UINT64_MAX / uint64_t(d) ? UINT64_MAX : n * d;
      tensorBytes = std::min(UINT64_MAX / 8, tensorBytes + n);
    }
    uint64_t limit = workspaceLimit(tensorBytes);
    for (unsigned i = 0; i < out.workspaces.size(); ++i) {
      total += out.workspaces[i].bytes;
      if (total > limit) {
        mistakes.add(makeError(
            plan.workspaces[i].bytes.loc(),
            "workspace '" + plan.workspaces[i].name + "' brings the plan's "
                "workspaces to " + Twine(total) + " bytes here, above the "
                "limit of " + Twine(limit) + " bytes (4 times the task's "
                "tensors, at least 1 GiB)"));
        break;
      }
    }
  }
  for (const TensorMapDecl &m : plan.tensorMaps) {
    mapIndex[m.name] = out.tensorMaps.size();
    ResolvedTensorMap &r = out.tensorMaps.emplace_back();
    r = {m.name, 0, {}, m.swizzle, m.interleave, m.l2, m.oob};
    if (task.tensorIndex(m.name) >= 0 || params.count(m.name))
      mistakes.add(makeError(m.loc, "tensor map '" + m.name +
                                        "' hides a task tensor or parameter"));
    else
      resolveTensorMap(m, task, params, mistakes, r);
  }
  for (const KernelDecl &k : plan.kernels) {
    ResolvedKernel r;
    r.name = k.name;
    r.hasCluster = k.hasCluster;
    static const int64_t gridMax[3] = {(int64_t(1) << 31) - 1, 65535, 65535};
    static const int64_t blockMax[3] = {1024, 1024, 64};
    for (unsigned i = 0; i < 3; ++i) {
      auto g = evalDim(k.grid[i], params, "grid dimension", gridMax[i]);
      auto b = evalDim(k.block[i], params, "block dimension", blockMax[i]);
      auto c = evalDim(k.cluster[i], params, "cluster dimension", 16);
      bool gridAndCluster = g && c;
      r.grid[i] = mistakes.take(std::move(g), uint32_t(1));
      r.block[i] = mistakes.take(std::move(b), uint32_t(1));
      r.cluster[i] = mistakes.take(std::move(c), uint32_t(1));
      if (gridAndCluster && r.grid[i] % r.cluster[i])
        mistakes.add(makeError(k.cluster[i].loc(),
                               "grid dimension " + Twine(r.grid[i]) +
                                   " is not a multiple of the cluster "
                                   "dimension " +
                                   Twine(r.cluster[i])));
    }
    uint64_t threads = uint64_t(r.block[0]) * r.block[1] * r.block[2];
    if (threads > 1024)
      mistakes.add(makeError(k.block[0].loc(), "block has " + Twine(threads) +
                                                   " threads; at most 1024"));
    if (auto smem = k.smem.evaluate(params); !smem)
      mistakes.add(smem.takeError());
    else if (*smem < 0 || *smem > 227 * 1024)
      mistakes.add(makeError(
          k.smem.loc(), "dynamic shared memory '" + k.smem.text() + "' is " +
                            Twine(*smem) + " bytes here; at most 232448"));
    else
      r.smem = uint32_t(*smem);
    for (const PlanArg &a : k.args) {
      ResolvedArg ra;
      std::vector<std::string> used = a.value.names();
      bool lone = used.size() == 1 && a.value.text() == used[0];
      if (lone && !params.count(used[0])) {
        StringRef n = used[0];
        int t = task.tensorIndex(n);
        auto ws = workspaceIndex.find(n);
        auto tm = mapIndex.find(n);
        if (t >= 0 || ws != workspaceIndex.end() || tm != mapIndex.end()) {
          if (a.type)
            mistakes.add(makeError(a.loc, "'" + n +
                                              "' is not a scalar; drop the ':" +
                                              scalarTypeName(*a.type) + "'"));
          if (t >= 0) {
            ra.kind = ResolvedArg::Kind::Tensor;
            ra.index = t;
          } else if (ws != workspaceIndex.end()) {
            ra.kind = ResolvedArg::Kind::Workspace;
            ra.index = ws->second;
          } else {
            ra.kind = ResolvedArg::Kind::TensorMap;
            ra.index = tm->second;
          }
          r.args.push_back(ra);
          continue;
        }
      }
      ra.kind = ResolvedArg::Kind::Scalar;
      ra.type = a.type.value_or(ScalarType::I32);
      auto v = a.value.evaluate(params);
      if (!v) {
        // Name tensors, workspaces and maps too, so a typo is easy to spot.
        std::string known = taskTensors(task);
        for (const auto &w : plan.workspaces)
          known += ", " + w.name;
        for (const auto &m : plan.tensorMaps)
          known += ", " + m.name;
        mistakes.add(
            createStringError(inconvertibleErrorCode(),
                              toString(v.takeError()) + "; buffers: " + known));
      } else if (!fits(*v, ra.type)) {
        mistakes.add(makeError(a.loc, "value " + Twine(*v) + " of '" +
                                          a.value.text() + "' does not fit " +
                                          scalarTypeName(ra.type)));
      } else {
        ra.value = *v;
      }
      r.args.push_back(ra);
    }
    out.kernels.push_back(std::move(r));
  }
  if (Error e = mistakes.finish())
    return std::move(e);
  return out;
}
