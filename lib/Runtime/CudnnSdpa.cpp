//===- CudnnSdpa.cpp - cuDNN fused attention through the frontend ---------===//
//
// Builds cuDNN SDPA graphs with the cuDNN C++ frontend (header-only) in its
// dynamic-loading mode (NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING): every cuDNN
// call goes through dlsym on `cudnn_frontend::cudnn_dlhandle`, which load()
// sets, and the frontend dlopens the CUDA runtime by its soname. The
// frontend reports errors as values and sometimes throws (a missing symbol
// or library); both become llvm::Error here, and this is the only file
// compiled with exceptions on.
//
// Built without the frontend (PTXBENCH_HAVE_CUDNN_FRONTEND unset), the same
// interface answers every request with an error saying how to get it; the
// shape helpers work either way.
//
//===----------------------------------------------------------------------===//

#include "CudnnSdpa.h"
#include "CudnnFrontend.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

#ifdef PTXBENCH_HAVE_CUDNN_FRONTEND
#include <cudnn_frontend.h>

#include <dlfcn.h>

#include <climits>
#include <cstdlib>
#include <exception>
#include <unordered_map>
#include <vector>
#endif

using namespace llvm;
using namespace ptxbench::runtime;

static Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

//===----------------------------------------------------------------------===//
// Shape helpers
//===----------------------------------------------------------------------===//

float ptxbench::runtime::sdpaDefaultScale(int64_t headDim) {
  return headDim > 0 ? float(1.0 / std::sqrt(double(headDim))) : 0.0f;
}

std::string ptxbench::runtime::describeSdpaShape(const SdpaShape &s) {
  return formatv("B={0} H={1} S={2} D={3}{4}", s.batch, s.heads, s.seq,
                 s.headDim, s.causal ? " causal" : "")
      .str();
}

Error ptxbench::runtime::validateSdpaShape(const SdpaShape &s) {
  auto bad = [&](const Twine &why) {
    return makeError("cuDNN SDPA: unsupported shape " + describeSdpaShape(s) +
                     ": " + why);
  };
  if (s.batch < 1 || s.heads < 1 || s.seq < 1)
    return bad("batch, heads and sequence length must be at least 1");
  // cuDNN's bf16 attention takes head dimensions that are multiples of 8,
  // up to 256 (Hopper's limit, forward and backward).
  if (s.headDim < 8 || s.headDim > 256 || s.headDim % 8 != 0)
    return bad("the head dimension must be a multiple of 8 from 8 to 256");
  if (!std::isfinite(s.scale) || s.scale <= 0)
    return bad("the softmax scale must be finite and positive");
  // The largest buffer the caller may size from this shape is an fp32 copy
  // of a [B, H, S, D] tensor (a dQ accumulator): it must fit in int64 bytes.
  int64_t n = 0;
  if (MulOverflow(s.batch, s.heads, n) || MulOverflow(n, s.seq, n) ||
      MulOverflow(n, s.headDim, n) || MulOverflow(n, int64_t(4), n))
    return bad("the tensors are too large");
  return Error::success();
}

std::array<int64_t, 4>
ptxbench::runtime::sdpaTensorStrides(const SdpaShape &s) {
  return {s.heads * s.seq * s.headDim, s.seq * s.headDim, s.headDim, 1};
}

std::array<int64_t, 4> ptxbench::runtime::sdpaStatsStrides(const SdpaShape &s) {
  return {s.heads * s.seq, s.seq, 1, 1};
}

size_t ptxbench::runtime::sdpaTensorBytes(const SdpaShape &s) {
  return size_t(s.batch) * s.heads * s.seq * s.headDim * 2;
}

size_t ptxbench::runtime::sdpaStatsBytes(const SdpaShape &s) {
  return size_t(s.batch) * s.heads * s.seq * 4;
}

//===----------------------------------------------------------------------===//
// The parts that do not depend on the frontend
//===----------------------------------------------------------------------===//

#ifdef PTXBENCH_HAVE_CUDNN_FRONTEND
namespace fe = cudnn_frontend;
#endif

struct CudnnSdpa::Impl
#ifdef PTXBENCH_HAVE_CUDNN_FRONTEND
    : cudnn::GraphState
#endif
{
  SdpaShape shape;
  bool backward = false;
  size_t workspace = 0;
  std::string planName;
#ifdef PTXBENCH_HAVE_CUDNN_FRONTEND
  /// Enqueues the graph with these (uid, device address) tensors.
  Error execute(std::initializer_list<std::pair<int64_t, uint64_t>> tensors,
                uint64_t ws);
#endif
};

CudnnSdpa::CudnnSdpa(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
CudnnSdpa::~CudnnSdpa() = default;
const SdpaShape &CudnnSdpa::shape() const { return impl->shape; }
size_t CudnnSdpa::workspaceBytes() const { return impl->workspace; }
const std::string &CudnnSdpa::planName() const { return impl->planName; }

#ifndef PTXBENCH_HAVE_CUDNN_FRONTEND

//===----------------------------------------------------------------------===//
// Stub: built without the frontend
//===----------------------------------------------------------------------===//

Error CudnnSdpa::load() {
  return makeError("cuDNN SDPA baseline: ptxbench was built without the cuDNN "
                   "frontend (pip install nvidia-cudnn-frontend, then "
                   "reconfigure)");
}

std::string CudnnSdpa::version() { return ""; }

Expected<std::unique_ptr<CudnnSdpa>> CudnnSdpa::forward(const SdpaShape &shape,
                                                        void *) {
  if (Error e = validateSdpaShape(shape))
    return std::move(e);
  return load();
}

Expected<std::unique_ptr<CudnnSdpa>> CudnnSdpa::backward(const SdpaShape &shape,
                                                         void *) {
  if (Error e = validateSdpaShape(shape))
    return std::move(e);
  return load();
}

Error CudnnSdpa::runForward(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                            uint64_t) {
  return load();
}

Error CudnnSdpa::runBackward(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                             uint64_t, uint64_t, uint64_t, uint64_t, uint64_t) {
  return load();
}

#else

//===----------------------------------------------------------------------===//
// Loading libcudnn and the CUDA runtime
//===----------------------------------------------------------------------===//

namespace cudnn_frontend {
// The frontend's shim resolves each cuDNN entry point with dlsym on this
// handle and caches the result in a function-local static, so it must be
// set before the first frontend call: load() runs first on every path.
void *cudnn_dlhandle = nullptr;
} // namespace cudnn_frontend

namespace {

struct Libraries {
  void *cudnn = nullptr;
  void *cudart = nullptr;
  size_t cudnnVersion = 0;
  std::string error;
};

/// The directories tried after the plain names (which the loader resolves
/// through LD_LIBRARY_PATH and its cache): $CUDNN_PATH (PyPI's
/// nvidia/cudnn or a tarball), then the CUDA toolkit's.
std::vector<std::string> searchDirs(bool withCudnnPath) {
  std::vector<std::string> dirs;
  if (const char *p = getenv("CUDNN_PATH"); withCudnnPath && p && *p) {
    dirs.push_back(std::string(p) + "/lib");
    dirs.push_back(std::string(p) + "/lib64");
  }
  for (const char *dir : std::initializer_list<const char *>{
           getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"})
    if (dir && *dir && !llvm::is_contained(dirs, std::string(dir) + "/lib64"))
      dirs.push_back(std::string(dir) + "/lib64");
  return dirs;
}

/// Opens the first of `names` that loads, as is and then in each of
/// `dirs`, and sets `opened` to the name or path that did; on failure
/// `error` lists every attempt with dlerror's reason.
void *openFirst(std::initializer_list<const char *> names,
                const std::vector<std::string> &dirs, std::string &opened,
                std::string &error) {
  std::vector<std::string> candidates(names.begin(), names.end());
  for (const std::string &dir : dirs)
    for (const char *name : names)
      candidates.push_back(dir + "/" + name);
  std::string tried;
  for (const std::string &c : candidates) {
    if (void *h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      opened = c;
      return h;
    }
    const char *why = dlerror();
    tried += (tried.empty() ? "" : "; ") + std::string(why ? why : c);
  }
  error = tried;
  return nullptr;
}

Libraries openLibraries() {
  Libraries libs;
  std::string opened, tried;
  libs.cudnn = openFirst({"libcudnn.so.9", "libcudnn.so"}, searchDirs(true),
                         opened, tried);
  if (!libs.cudnn) {
    libs.error = "cannot load cuDNN 9 (put PyPI nvidia-cudnn-cu13's "
                 "nvidia/cudnn/lib on LD_LIBRARY_PATH or set CUDNN_PATH); "
                 "tried: " +
                 tried;
    return libs;
  }
  // libcudnn.so.9 is a thin front that dlopens libcudnn_graph.so.9 (from
  // the library path, then its own folder) on the first call, and aborts
  // the process when it cannot. Opening it first, from the same places,
  // turns an incomplete installation into an error.
  char folder[PATH_MAX] = "";
  std::vector<std::string> cudnnFolder;
  if (dlinfo(libs.cudnn, RTLD_DI_ORIGIN, folder) == 0 && *folder)
    cudnnFolder.push_back(folder);
  std::string graphOpened, graphTried;
  if (!openFirst({"libcudnn_graph.so.9"}, cudnnFolder, graphOpened,
                 graphTried)) {
    libs.error =
        "incomplete cuDNN: " + opened +
        " loaded but not its libcudnn_graph.so.9; tried: " + graphTried;
    return libs;
  }
  using GetVersion = size_t (*)();
  auto getVersion =
      reinterpret_cast<GetVersion>(dlsym(libs.cudnn, "cudnnGetVersion"));
  if (!getVersion) {
    libs.error = "the loaded libcudnn has no cudnnGetVersion";
    return libs;
  }
  libs.cudnnVersion = getVersion();
  if (libs.cudnnVersion < 90000) {
    libs.error = "cuDNN " + std::to_string(libs.cudnnVersion) +
                 " is too old: the SDPA baseline needs cuDNN 9";
    return libs;
  }
  // The frontend calls the CUDA runtime (device properties, stream queries)
  // and dlopens it itself. Opening it here turns a missing runtime into a
  // clear error instead of an exception in the middle of a build, and
  // naming it in CUDNN_FRONTEND_CUDART_LIB_NAME (unless the user did) makes
  // the frontend open this one, by path if need be, rather than warn when
  // both CUDA 12's and 13's are on the library path.
  libs.cudart = openFirst({"libcudart.so.13", "libcudart.so.12"},
                          searchDirs(false), opened, tried);
  if (!libs.cudart) {
    libs.error = "cannot load the CUDA runtime that the cuDNN frontend calls "
                 "(put PyPI nvidia-cuda-runtime's lib folder on "
                 "LD_LIBRARY_PATH); tried: " +
                 tried;
    return libs;
  }
  setenv("CUDNN_FRONTEND_CUDART_LIB_NAME", opened.c_str(), /*overwrite=*/0);
  fe::cudnn_dlhandle = libs.cudnn;
  return libs;
}

/// Opened once per process (thread-safe through the static's initializer);
/// the handles are never closed, as the frontend keeps symbols from them.
const Libraries &libraries() {
  static const Libraries libs = openLibraries();
  return libs;
}

/// The uids of the graphs' tensors, the keys of the variant pack.
enum Uid : int64_t { Q = 1, K, V, O, Stats, dO, dQ, dK, dV };

using TensorPtr = std::shared_ptr<fe::graph::Tensor_attributes>;

std::vector<int64_t> dims(const SdpaShape &s) {
  return {s.batch, s.heads, s.seq, s.headDim};
}

std::vector<int64_t> statsDims(const SdpaShape &s) {
  return {s.batch, s.heads, s.seq, 1};
}

template <size_t N> std::vector<int64_t> vec(const std::array<int64_t, N> &a) {
  return {a.begin(), a.end()};
}

/// A bf16 [B, H, S, D] graph input.
TensorPtr input(fe::graph::Graph &g, const char *name, Uid uid,
                const SdpaShape &s) {
  return g.tensor(fe::graph::Tensor_attributes()
                      .set_name(name)
                      .set_uid(uid)
                      .set_dim(dims(s))
                      .set_stride(vec(sdpaTensorStrides(s)))
                      .set_data_type(fe::DataType_t::BFLOAT16));
}

/// The fp32 LSE, cuDNN's stats tensor [B, H, S, 1].
fe::graph::Tensor_attributes &asStats(fe::graph::Tensor_attributes &t,
                                      const SdpaShape &s) {
  return t.set_uid(Stats)
      .set_dim(statsDims(s))
      .set_stride(vec(sdpaStatsStrides(s)))
      .set_data_type(fe::DataType_t::FLOAT);
}

void outputAs(const TensorPtr &t, Uid uid, const SdpaShape &s) {
  t->set_output(true)
      .set_uid(uid)
      .set_dim(dims(s))
      .set_stride(vec(sdpaTensorStrides(s)))
      .set_data_type(fe::DataType_t::BFLOAT16);
}

std::shared_ptr<fe::graph::Graph> newGraph() {
  auto g = std::make_shared<fe::graph::Graph>();
  g->set_io_data_type(fe::DataType_t::BFLOAT16)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  return g;
}

/// O and the LSE from Q, K, V. The stats are natural-log log-sum-exps of
/// the scaled scores, max_j(s_ij) + ln(sum_j exp(s_ij - max)), as the tasks
/// define LSE; set_stats_use_log2 (left off) would give base 2 instead.
std::shared_ptr<fe::graph::Graph> forwardGraph(const SdpaShape &s) {
  auto g = newGraph();
  TensorPtr q = input(*g, "Q", Q, s), k = input(*g, "K", K, s),
            v = input(*g, "V", V, s);
  auto options = fe::graph::SDPA_attributes()
                     .set_name("ptxbench_sdpa_fwd")
                     .set_generate_stats(true)
                     .set_attn_scale(s.scale);
  if (s.causal)
    options.set_diagonal_alignment(fe::DiagonalAlignment_t::TOP_LEFT)
        .set_diagonal_band_right_bound(0);
  auto [o, stats] = g->sdpa(q, k, v, options);
  outputAs(o, O, s);
  asStats(stats->set_output(true), s);
  return g;
}

/// dQ, dK, dV from Q, K, V, O, dO and the forward's LSE.
std::shared_ptr<fe::graph::Graph> backwardGraph(const SdpaShape &s) {
  auto g = newGraph();
  TensorPtr q = input(*g, "Q", Q, s), k = input(*g, "K", K, s),
            v = input(*g, "V", V, s), o = input(*g, "O", O, s),
            dout = input(*g, "dO", dO, s);
  fe::graph::Tensor_attributes statsAttrs;
  TensorPtr stats = g->tensor(asStats(statsAttrs.set_name("LSE"), s));
  auto options = fe::graph::SDPA_backward_attributes()
                     .set_name("ptxbench_sdpa_bwd")
                     .set_attn_scale(s.scale);
  if (s.causal)
    options.set_diagonal_alignment(fe::DiagonalAlignment_t::TOP_LEFT)
        .set_diagonal_band_right_bound(0);
  auto [dq, dk, dv] = g->sdpa_backward(q, k, v, o, dout, stats, options);
  outputAs(dq, dQ, s);
  outputAs(dk, dK, s);
  outputAs(dv, dV, s);
  return g;
}

/// Names what is being built for messages: "cuDNN SDPA forward (B=...)".
std::string subject(const SdpaShape &s, bool backward) {
  return std::string("cuDNN SDPA ") + (backward ? "backward" : "forward") +
         " (" + describeSdpaShape(s) + ")";
}

Expected<std::unique_ptr<CudnnSdpa::Impl>>
buildImpl(const SdpaShape &shape, bool backward, void *stream) {
  auto impl = std::make_unique<CudnnSdpa::Impl>();
  impl->shape = shape;
  impl->backward = backward;
  std::string what = subject(shape, backward);
  if (Error e = cudnn::createHandle(impl->handle, stream, what))
    return std::move(e);
  impl->graph = backward ? backwardGraph(shape) : forwardGraph(shape);
  if (Error e = cudnn::buildPlan(*impl->graph, impl->handle, what,
                                 impl->workspace, impl->planName))
    return std::move(e);
  return std::move(impl);
}

Expected<std::unique_ptr<CudnnSdpa::Impl>> create(const SdpaShape &shape,
                                                  bool backward, void *stream) {
  if (Error e = validateSdpaShape(shape))
    return std::move(e);
  if (Error e = CudnnSdpa::load())
    return makeError(subject(shape, backward) + ": " + toString(std::move(e)));
  try {
    return buildImpl(shape, backward, stream);
  } catch (const std::exception &e) {
    return makeError(subject(shape, backward) +
                     ": the cuDNN frontend failed: " + e.what());
  } catch (...) {
    return makeError(subject(shape, backward) +
                     ": the cuDNN frontend failed with an unknown exception");
  }
}

} // namespace

Error CudnnSdpa::Impl::execute(
    std::initializer_list<std::pair<int64_t, uint64_t>> tensors, uint64_t ws) {
  // The keys are the same on every run, so the map allocates only once.
  for (auto [uid, address] : tensors)
    pack[uid] = reinterpret_cast<void *>(uintptr_t(address));
  return cudnn::execute(*graph, handle, pack, ws, workspace,
                        [&] { return subject(shape, backward); });
}

//===----------------------------------------------------------------------===//
// The graph steps the cuDNN baselines share (CudnnFrontend.h)
//===----------------------------------------------------------------------===//

cudnn::GraphState::~GraphState() {
  try {
    graph.reset();
    if (handle)
      (void)fe::detail::destroy_handle(handle);
  } catch (...) {
  }
}

std::string cudnn::describeStatus(cudnnStatus_t status) {
  std::string s = fe::detail::get_error_string(status);
  std::string last = fe::detail::get_last_error_string_();
  if (!last.empty())
    s += ": " + last;
  return s;
}

Error cudnn::createHandle(cudnnHandle_t &handle, void *stream,
                          const std::string &what) {
  if (cudnnStatus_t st = fe::detail::create_handle(&handle)) {
    handle = nullptr;
    return makeError(what + ": cudnnCreate failed (no usable GPU, or no " +
                     "current CUDA context?): " + describeStatus(st));
  }
  if (cudnnStatus_t st = fe::detail::set_stream(
          handle, reinterpret_cast<cudaStream_t>(stream)))
    return makeError(what + ": cudnnSetStream failed: " + describeStatus(st));
  return Error::success();
}

Error cudnn::buildPlan(fe::graph::Graph &g, cudnnHandle_t handle,
                       const std::string &what, size_t &workspace,
                       std::string &planName) {
  // The steps of Graph::build, one by one so a failure names its step;
  // heuristics mode A, then cuDNN's fallback list, and the first plan of
  // that list that builds.
  auto check = [&](const char *step, fe::error_t result) -> Error {
    if (result.is_good())
      return Error::success();
    return makeError(what + ": " + step + ": " + result.get_message());
  };
  if (Error e = check("invalid graph", g.validate()))
    return e;
  if (Error e = check("building the operation graph",
                      g.build_operation_graph(handle)))
    return e;
  if (Error e = check("querying heuristics",
                      g.create_execution_plans(
                          {fe::HeurMode_t::A, fe::HeurMode_t::FALLBACK})))
    return e;
  if (Error e =
          check("not supported by this cuDNN on this GPU", g.check_support()))
    return e;
  if (Error e = check("building the plan",
                      g.build_plans(fe::BuildPlanPolicy_t::HEURISTICS_CHOICE)))
    return e;
  int64_t bytes = 0;
  if (Error e =
          check("querying the workspace size", g.get_workspace_size(bytes)))
    return e;
  workspace = size_t(std::max<int64_t>(bytes, 0));
  // Only for reports: a failure here costs nothing.
  if (!g.get_plan_name(planName).is_good())
    planName.clear();
  return Error::success();
}

Error cudnn::execute(fe::graph::Graph &graph, cudnnHandle_t handle,
                     std::unordered_map<int64_t, void *> &pack, uint64_t ws,
                     size_t workspace, function_ref<std::string()> what) {
  auto fail = [&](const Twine &why) { return makeError(what() + ": " + why); };
  if (workspace && !ws)
    return fail("needs a workspace of " + Twine(workspace) +
                " bytes, none given");
  try {
    fe::error_t r =
        graph.execute(handle, pack, reinterpret_cast<void *>(uintptr_t(ws)));
    if (r.is_bad())
      return fail("execution failed: " + r.get_message());
  } catch (const std::exception &e) {
    return fail(Twine("execution failed in the cuDNN frontend: ") + e.what());
  } catch (...) {
    return fail("execution failed with an unknown exception");
  }
  return Error::success();
}

Error CudnnSdpa::load() {
  const Libraries &libs = libraries();
  if (!libs.error.empty())
    return makeError(libs.error);
  return Error::success();
}

std::string CudnnSdpa::version() {
  const Libraries &libs = libraries();
  if (!libs.error.empty() && !libs.cudnnVersion)
    return "";
  // cuDNN 9 numbers versions major*10000 + minor*100 + patch.
  size_t v = libs.cudnnVersion;
  return formatv("{0}.{1}.{2}", v / 10000, v % 10000 / 100, v % 100).str();
}

Expected<std::unique_ptr<CudnnSdpa>> CudnnSdpa::forward(const SdpaShape &shape,
                                                        void *cuStream) {
  auto impl = create(shape, /*backward=*/false, cuStream);
  if (!impl)
    return impl.takeError();
  return std::unique_ptr<CudnnSdpa>(new CudnnSdpa(std::move(*impl)));
}

Expected<std::unique_ptr<CudnnSdpa>> CudnnSdpa::backward(const SdpaShape &shape,
                                                         void *cuStream) {
  auto impl = create(shape, /*backward=*/true, cuStream);
  if (!impl)
    return impl.takeError();
  return std::unique_ptr<CudnnSdpa>(new CudnnSdpa(std::move(*impl)));
}

Error CudnnSdpa::runForward(uint64_t q, uint64_t k, uint64_t v, uint64_t o,
                            uint64_t lse, uint64_t ws) {
  if (impl->backward)
    return makeError(subject(impl->shape, true) +
                     ": runForward called on the backward graph");
  return impl->execute({{Q, q}, {K, k}, {V, v}, {O, o}, {Stats, lse}}, ws);
}

Error CudnnSdpa::runBackward(uint64_t q, uint64_t k, uint64_t v, uint64_t o,
                             uint64_t dout, uint64_t lse, uint64_t dq,
                             uint64_t dk, uint64_t dv, uint64_t ws) {
  if (!impl->backward)
    return makeError(subject(impl->shape, false) +
                     ": runBackward called on the forward graph");
  return impl->execute({{Q, q},
                        {K, k},
                        {V, v},
                        {O, o},
                        {dO, dout},
                        {Stats, lse},
                        {dQ, dq},
                        {dK, dk},
                        {dV, dv}},
                       ws);
}

#endif // PTXBENCH_HAVE_CUDNN_FRONTEND
