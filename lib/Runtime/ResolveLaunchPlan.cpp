//===- ResolveLaunchPlan.cpp - A launch plan for one workload -------------===//
//
// Resolution of a parsed launch plan against a task and one workload's
// parameters: every expression evaluated, every name bound to a task
// tensor, workspace, tensor map or scalar, and the results checked against
// the limits the hardware and the tensor-map encoder set (grid, block and
// cluster sizes, dynamic shared memory, box sizes and swizzle spans, the
// range of each scalar's type), each error at the plan's own line.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/LaunchPlan.h"
#include "ptxbench/Runtime/Task.h"

#include "llvm/ADT/StringMap.h"

using namespace llvm;
using namespace ptxbench::runtime;

static Expected<uint32_t> evalDim(const Expr &e, const Bindings &params,
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

Expected<ResolvedPlan>
ptxbench::runtime::resolveLaunchPlan(const LaunchPlan &plan, const Task &task,
                                     const Bindings &params) {
  ResolvedPlan out;
  StringMap<unsigned> workspaceIndex, mapIndex;
  for (const WorkspaceDecl &w : plan.workspaces) {
    if (task.tensorIndex(w.name) >= 0 || params.count(w.name))
      return makeError(w.loc, "workspace '" + w.name +
                                  "' hides a task tensor or parameter");
    auto bytes = w.bytes.evaluate(params);
    if (!bytes)
      return bytes.takeError();
    if (*bytes < 0 || *bytes > (int64_t(1) << 40))
      return makeError(w.bytes.loc(), "workspace size '" + w.bytes.text() +
                                          "' is " + Twine(*bytes) +
                                          " bytes here");
    workspaceIndex[w.name] = out.workspaces.size();
    out.workspaces.push_back({w.name, uint64_t(*bytes), w.zero});
  }
  for (const TensorMapDecl &m : plan.tensorMaps) {
    if (task.tensorIndex(m.name) >= 0 || params.count(m.name))
      return makeError(m.loc, "tensor map '" + m.name +
                                  "' hides a task tensor or parameter");
    int t = task.tensorIndex(m.tensor);
    if (t < 0) {
      std::string known;
      for (const TensorSpec &s : task.tensors)
        known += (known.empty() ? "" : ", ") + s.name;
      return makeError(m.tensorLoc, "unknown tensor '" + m.tensor +
                                        "' (task tensors: " + known + ")");
    }
    const TensorSpec &spec = task.tensors[t];
    if (m.box.size() != spec.shape.size())
      return makeError(m.loc, "box has " + Twine(m.box.size()) +
                                  " sizes but tensor '" + spec.name +
                                  "' has rank " + Twine(spec.shape.size()));
    if (m.box.size() > 5)
      return makeError(m.loc, "tensor maps have rank at most 5");
    ResolvedTensorMap r{m.name,       unsigned(t), {},   m.swizzle,
                        m.interleave, m.l2,        m.oob};
    for (const Expr &b : m.box) {
      auto v = evalDim(b, params, "box size", 256);
      if (!v)
        return v.takeError();
      r.box.push_back(*v);
    }
    if (m.interleave == Interleave::None) {
      uint64_t innerBytes = uint64_t(r.box.back()) * dtypeSize(spec.dtype);
      if (innerBytes % 16)
        return makeError(m.box.back().loc(),
                         "the innermost box size times the element size (" +
                             Twine(innerBytes) +
                             " bytes) must be a multiple of 16");
      unsigned swz = m.swizzle == Swizzle::B32    ? 32
                     : m.swizzle == Swizzle::B64  ? 64
                     : m.swizzle == Swizzle::B128 ? 128
                                                  : 0;
      if (swz && innerBytes > swz)
        return makeError(m.box.back().loc(),
                         "the innermost box is " + Twine(innerBytes) +
                             " bytes, more than the " + Twine(swz) +
                             "-byte swizzle span");
    }
    mapIndex[m.name] = out.tensorMaps.size();
    out.tensorMaps.push_back(std::move(r));
  }
  for (const KernelDecl &k : plan.kernels) {
    ResolvedKernel r;
    r.name = k.name;
    r.hasCluster = k.hasCluster;
    static const int64_t gridMax[3] = {(int64_t(1) << 31) - 1, 65535, 65535};
    static const int64_t blockMax[3] = {1024, 1024, 64};
    for (unsigned i = 0; i < 3; ++i) {
      auto g = evalDim(k.grid[i], params, "grid dimension", gridMax[i]);
      if (!g)
        return g.takeError();
      auto b = evalDim(k.block[i], params, "block dimension", blockMax[i]);
      if (!b)
        return b.takeError();
      auto c = evalDim(k.cluster[i], params, "cluster dimension", 16);
      if (!c)
        return c.takeError();
      r.grid[i] = *g;
      r.block[i] = *b;
      r.cluster[i] = *c;
      if (r.grid[i] % r.cluster[i])
        return makeError(k.cluster[i].loc(),
                         "grid dimension " + Twine(r.grid[i]) +
                             " is not a multiple of the cluster dimension " +
                             Twine(r.cluster[i]));
    }
    uint64_t threads = uint64_t(r.block[0]) * r.block[1] * r.block[2];
    if (threads > 1024)
      return makeError(k.block[0].loc(), "block has " + Twine(threads) +
                                             " threads; at most 1024");
    auto smem = k.smem.evaluate(params);
    if (!smem)
      return smem.takeError();
    if (*smem < 0 || *smem > 227 * 1024)
      return makeError(k.smem.loc(), "dynamic shared memory '" + k.smem.text() +
                                         "' is " + Twine(*smem) +
                                         " bytes here; at most 232448");
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
            return makeError(a.loc, "'" + n + "' is not a scalar; drop the ':" +
                                        scalarTypeName(*a.type) + "'");
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
        std::string msg = toString(v.takeError());
        std::string known;
        for (const TensorSpec &s : task.tensors)
          known += (known.empty() ? "" : ", ") + s.name;
        for (const auto &w : plan.workspaces)
          known += ", " + w.name;
        for (const auto &m : plan.tensorMaps)
          known += ", " + m.name;
        return createStringError(inconvertibleErrorCode(),
                                 msg + "; buffers: " + known);
      }
      int64_t value = *v;
      bool fits = true;
      switch (ra.type) {
      case ScalarType::I32:
        fits = value >= INT32_MIN && value <= INT32_MAX;
        break;
      case ScalarType::U32:
        fits = value >= 0 && value <= int64_t(UINT32_MAX);
        break;
      case ScalarType::I64:
        break;
      case ScalarType::U64:
        fits = value >= 0;
        break;
      }
      if (!fits)
        return makeError(a.loc, "value " + Twine(value) + " of '" +
                                    a.value.text() + "' does not fit " +
                                    scalarTypeName(ra.type));
      ra.value = value;
      r.args.push_back(ra);
    }
    out.kernels.push_back(std::move(r));
  }
  return out;
}
