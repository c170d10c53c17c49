//===- CudnnSdpaFp8.cpp - cuDNN fp8 fused attention through the frontend --===//
//
// Builds cuDNN's fp8 SDPA forward graph (Graph::sdpa_fp8) with the cuDNN
// C++ frontend in its dynamic-loading mode; CudnnSdpa::load() opens the
// libraries and sets the frontend's handle. Errors and the frontend's
// exceptions become llvm::Error; like CudnnSdpa.cpp this file is compiled
// with exceptions on. Without the frontend every request answers with the
// error CudnnSdpa::load() gives.
//
//===----------------------------------------------------------------------===//

#include "CudnnSdpaFp8.h"

#include "CudnnFrontend.h"

#include "llvm/Support/FormatVariadic.h"

#ifdef PTXBENCH_HAVE_CUDNN_FRONTEND
#include <cudnn_frontend.h>

#include <algorithm>
#include <exception>
#include <unordered_map>
#include <vector>
#endif

using namespace llvm;
using namespace ptxbench::runtime;

static Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// "cuDNN fp8 SDPA forward (B=...)", for messages.
static std::string subject(const SdpaShape &s) {
  return "cuDNN fp8 SDPA forward (" + describeSdpaShape(s) + ")";
}

#ifdef PTXBENCH_HAVE_CUDNN_FRONTEND
namespace fe = cudnn_frontend;
#endif

struct CudnnSdpaFp8::Impl
#ifdef PTXBENCH_HAVE_CUDNN_FRONTEND
    : cudnn::GraphState
#endif
{
  SdpaShape shape;
  size_t workspace = 0;
  std::string planName;
};

CudnnSdpaFp8::CudnnSdpaFp8(std::unique_ptr<Impl> impl)
    : impl(std::move(impl)) {}
CudnnSdpaFp8::~CudnnSdpaFp8() = default;
const SdpaShape &CudnnSdpaFp8::shape() const { return impl->shape; }
size_t CudnnSdpaFp8::workspaceBytes() const { return impl->workspace; }
const std::string &CudnnSdpaFp8::planName() const { return impl->planName; }

#ifndef PTXBENCH_HAVE_CUDNN_FRONTEND

Expected<std::unique_ptr<CudnnSdpaFp8>>
CudnnSdpaFp8::forward(const SdpaShape &shape, void *) {
  if (Error e = validateSdpaShape(shape))
    return std::move(e);
  if (Error e = CudnnSdpa::load())
    return makeError(subject(shape) + ": " + toString(std::move(e)));
  return makeError(subject(shape) + ": built without the cuDNN frontend");
}

Error CudnnSdpaFp8::run(const SdpaFp8Buffers &, uint64_t) {
  return CudnnSdpa::load();
}

#else

namespace {

/// The uids of the graph's tensors, the keys of the variant pack.
enum Uid : int64_t {
  Q = 1,
  K,
  V,
  DescaleQ,
  DescaleK,
  DescaleV,
  DescaleS,
  ScaleS,
  ScaleO,
  O,
  Stats,
  AmaxS,
  AmaxO
};

using TensorPtr = std::shared_ptr<fe::graph::Tensor_attributes>;

template <size_t N> std::vector<int64_t> vec(const std::array<int64_t, N> &a) {
  return {a.begin(), a.end()};
}

std::vector<int64_t> dims(const SdpaShape &s) {
  return {s.batch, s.heads, s.seq, s.headDim};
}

const std::vector<int64_t> one = {1, 1, 1, 1};

/// An e4m3 [B, H, S, D] input.
TensorPtr fp8Input(fe::graph::Graph &g, const char *name, Uid uid,
                   const SdpaShape &s) {
  return g.tensor(fe::graph::Tensor_attributes()
                      .set_name(name)
                      .set_uid(uid)
                      .set_dim(dims(s))
                      .set_stride(vec(sdpaTensorStrides(s)))
                      .set_data_type(fe::DataType_t::FP8_E4M3));
}

/// A one-element fp32 scale input.
TensorPtr scaleInput(fe::graph::Graph &g, const char *name, Uid uid) {
  return g.tensor(fe::graph::Tensor_attributes()
                      .set_name(name)
                      .set_uid(uid)
                      .set_dim(one)
                      .set_stride(one)
                      .set_data_type(fe::DataType_t::FLOAT));
}

/// O (e4m3), the natural-log LSE and both amax values from Q, K, V and the
/// scales; s = descale_q * descale_k * attn_scale * Q K^T.
std::shared_ptr<fe::graph::Graph> forwardGraph(const SdpaShape &s) {
  auto g = std::make_shared<fe::graph::Graph>();
  g->set_io_data_type(fe::DataType_t::FP8_E4M3)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  TensorPtr q = fp8Input(*g, "Q", Q, s), k = fp8Input(*g, "K", K, s),
            v = fp8Input(*g, "V", V, s);
  TensorPtr dq = scaleInput(*g, "descale_q", DescaleQ),
            dk = scaleInput(*g, "descale_k", DescaleK),
            dv = scaleInput(*g, "descale_v", DescaleV),
            ds = scaleInput(*g, "descale_s", DescaleS),
            ss = scaleInput(*g, "scale_s", ScaleS),
            so = scaleInput(*g, "scale_o", ScaleO);
  auto options = fe::graph::SDPA_fp8_attributes()
                     .set_name("ptxbench_sdpa_fp8_fwd")
                     .set_generate_stats(true)
                     .set_attn_scale(s.scale);
  if (s.causal)
    options.set_diagonal_alignment(fe::DiagonalAlignment_t::TOP_LEFT)
        .set_diagonal_band_right_bound(0);
  auto [o, stats, amaxS, amaxO] =
      g->sdpa_fp8(q, k, v, dq, dk, dv, ds, ss, so, options);
  o->set_output(true)
      .set_uid(O)
      .set_dim(dims(s))
      .set_stride(vec(sdpaTensorStrides(s)))
      .set_data_type(fe::DataType_t::FP8_E4M3);
  stats->set_output(true)
      .set_uid(Stats)
      .set_dim({s.batch, s.heads, s.seq, 1})
      .set_stride(vec(sdpaStatsStrides(s)))
      .set_data_type(fe::DataType_t::FLOAT);
  for (auto [t, uid] : {std::pair{amaxS, AmaxS}, std::pair{amaxO, AmaxO}})
    t->set_output(true)
        .set_uid(uid)
        .set_dim(one)
        .set_stride(one)
        .set_data_type(fe::DataType_t::FLOAT);
  return g;
}

std::string describeStatus(cudnnStatus_t status) {
  std::string s = fe::detail::get_error_string(status);
  std::string last = fe::detail::get_last_error_string_();
  if (!last.empty())
    s += ": " + last;
  return s;
}

Expected<std::unique_ptr<CudnnSdpaFp8::Impl>> buildImpl(const SdpaShape &shape,
                                                        void *stream) {
  auto impl = std::make_unique<CudnnSdpaFp8::Impl>();
  impl->shape = shape;
  std::string what = subject(shape);
  if (cudnnStatus_t st = fe::detail::create_handle(&impl->handle)) {
    impl->handle = nullptr;
    return makeError(what + ": cudnnCreate failed: " + describeStatus(st));
  }
  if (cudnnStatus_t st = fe::detail::set_stream(
          impl->handle, reinterpret_cast<cudaStream_t>(stream)))
    return makeError(what + ": cudnnSetStream failed: " + describeStatus(st));
  impl->graph = forwardGraph(shape);
  fe::graph::Graph &g = *impl->graph;
  auto check = [&](const char *step, fe::error_t result) -> Error {
    if (result.is_good())
      return Error::success();
    return makeError(what + ": " + step + ": " + result.get_message());
  };
  if (Error e = check("invalid graph", g.validate()))
    return std::move(e);
  if (Error e = check("building the operation graph",
                      g.build_operation_graph(impl->handle)))
    return std::move(e);
  if (Error e = check("querying heuristics",
                      g.create_execution_plans(
                          {fe::HeurMode_t::A, fe::HeurMode_t::FALLBACK})))
    return std::move(e);
  if (Error e =
          check("not supported by this cuDNN on this GPU", g.check_support()))
    return std::move(e);
  if (Error e = check("building the plan",
                      g.build_plans(fe::BuildPlanPolicy_t::HEURISTICS_CHOICE)))
    return std::move(e);
  int64_t workspace = 0;
  if (Error e =
          check("querying the workspace size", g.get_workspace_size(workspace)))
    return std::move(e);
  impl->workspace = size_t(std::max<int64_t>(workspace, 0));
  if (!g.get_plan_name(impl->planName).is_good())
    impl->planName.clear();
  return std::move(impl);
}

} // namespace

Expected<std::unique_ptr<CudnnSdpaFp8>>
CudnnSdpaFp8::forward(const SdpaShape &shape, void *cuStream) {
  if (Error e = validateSdpaShape(shape))
    return std::move(e);
  if (Error e = CudnnSdpa::load())
    return makeError(subject(shape) + ": " + toString(std::move(e)));
  try {
    auto impl = buildImpl(shape, cuStream);
    if (!impl)
      return impl.takeError();
    return std::unique_ptr<CudnnSdpaFp8>(new CudnnSdpaFp8(std::move(*impl)));
  } catch (const std::exception &e) {
    return makeError(subject(shape) + ": the cuDNN frontend failed: " +
                     e.what());
  } catch (...) {
    return makeError(subject(shape) +
                     ": the cuDNN frontend failed with an unknown exception");
  }
}

Error CudnnSdpaFp8::run(const SdpaFp8Buffers &b, uint64_t ws) {
  if (impl->workspace && !ws)
    return makeError(subject(impl->shape) + ": needs a workspace of " +
                     Twine(impl->workspace) + " bytes, none given");
  for (auto [uid, address] : std::initializer_list<std::pair<Uid, uint64_t>>{
           {Q, b.q},
           {K, b.k},
                              {V, b.v},
                              {DescaleQ, b.descaleQ},
                              {DescaleK, b.descaleK},
                              {DescaleV, b.descaleV},
                              {DescaleS, b.descaleS},
                              {ScaleS, b.scaleS},
                              {ScaleO, b.scaleO},
                              {O, b.o},
                              {Stats, b.lse},
                              {AmaxS, b.amaxS},
                              {AmaxO, b.amaxO}})
    impl->pack[uid] = reinterpret_cast<void *>(uintptr_t(address));
  try {
    fe::error_t r = impl->graph->execute(
        impl->handle, impl->pack, reinterpret_cast<void *>(uintptr_t(ws)));
    if (r.is_bad())
      return makeError(subject(impl->shape) +
                       ": execution failed: " + r.get_message());
  } catch (const std::exception &e) {
    return makeError(subject(impl->shape) +
                     ": execution failed in the cuDNN frontend: " + e.what());
  } catch (...) {
    return makeError(subject(impl->shape) +
                     ": execution failed with an unknown exception");
  }
  return Error::success();
}

#endif // PTXBENCH_HAVE_CUDNN_FRONTEND
