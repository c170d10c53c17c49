//===- CudnnPagedDecode.cpp - cuDNN paged-KV decode through the frontend --===//
//
// One SDPA node of the cuDNN C++ frontend: Q [B, HQ, 1, D] against the
// paged K and V containers, each read through the same page table
// ({B, 1, P, 1} int32) with P = ceildiv(L, PS) columns, a padding mask
// with sequence lengths 1 (Q) and L (K/V), the maximum KV length set to L,
// GQA by HKV < HQ, and the stats (natural-log LSE) as a second output.
// Built, like CudnnSdpa.cpp, in the frontend's dynamic-loading mode with
// exceptions on (CudnnFrontend.h has the shared steps); without the
// frontend the factory answers with CudnnSdpa::load()'s "how to get it".
//
//===----------------------------------------------------------------------===//

#include "CudnnPagedDecode.h"
#include "CudnnFrontend.h"
#include "CudnnSdpa.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <climits>
#include <cmath>

#ifdef PTXBENCH_HAVE_CUDNN_FRONTEND
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

std::string
ptxbench::runtime::describePagedDecodeShape(const PagedDecodeShape &s) {
  return formatv("B={0} HQ={1} HKV={2} D={3} PS={4} L={5} pages={6}", s.batch,
                 s.qHeads, s.kvHeads, s.headDim, s.pageSize, s.seqLen, s.pages)
      .str();
}

Error ptxbench::runtime::validatePagedDecodeShape(const PagedDecodeShape &s) {
  auto bad = [&](const Twine &why) {
    return makeError("cuDNN paged decode: unsupported shape " +
                     describePagedDecodeShape(s) + ": " + why);
  };
  if (s.batch < 1 || s.qHeads < 1 || s.kvHeads < 1 || s.seqLen < 1 ||
      s.pages < 1)
    return bad("batch, heads, sequence length and pages must be at least 1");
  if (s.pageSize < 1)
    return bad("the page size must be at least 1");
  if (s.qHeads % s.kvHeads != 0)
    return bad("the query heads must be a multiple of the KV heads");
  if (s.headDim < 8 || s.headDim > 256 || s.headDim % 8 != 0)
    return bad("the head dimension must be a multiple of 8 from 8 to 256");
  if (!std::isfinite(s.scale) || s.scale <= 0)
    return bad("the softmax scale must be finite and positive");
  // cuDNN reads page indices and sequence lengths as int32.
  if (s.seqLen > INT32_MAX || s.pages > INT32_MAX)
    return bad("the sequence length and the page count must fit in int32");
  if (uint64_t(s.pagesPerSeq) !=
      divideCeil(uint64_t(s.seqLen), uint64_t(s.pageSize)))
    return bad("the page table has " + Twine(s.pagesPerSeq) +
               " columns; cuDNN wants ceildiv(L, PS) = " +
               Twine(divideCeil(uint64_t(s.seqLen), uint64_t(s.pageSize))));
  int64_t n = 0, t = 0;
  if (MulOverflow(s.pages, s.pageSize, n) || MulOverflow(n, s.kvHeads, n) ||
      MulOverflow(n, s.headDim, n) || MulOverflow(n, int64_t(2), n) ||
      MulOverflow(s.batch, s.qHeads, t) || MulOverflow(t, s.headDim, t) ||
      MulOverflow(t, int64_t(4), t) || MulOverflow(s.batch, s.pagesPerSeq, t))
    return bad("the tensors are too large");
  return Error::success();
}

CudnnTensorLayout
ptxbench::runtime::pagedCacheLayout(const PagedDecodeShape &s) {
  // Token-major pages: one token's HKV rows of D follow each other, so a
  // head's next token is HKV * D elements on.
  return {{s.pages, s.kvHeads, s.pageSize, s.headDim},
          {s.pageSize * s.kvHeads * s.headDim, s.headDim, s.kvHeads * s.headDim,
           1}};
}

CudnnTensorLayout
ptxbench::runtime::pageTableLayout(const PagedDecodeShape &s) {
  return {{s.batch, 1, s.pagesPerSeq, 1}, {s.pagesPerSeq, s.pagesPerSeq, 1, 1}};
}

CudnnTensorLayout
ptxbench::runtime::decodeQueryLayout(const PagedDecodeShape &s) {
  return {{s.batch, s.qHeads, 1, s.headDim},
          {s.qHeads * s.headDim, s.headDim, s.headDim, 1}};
}

CudnnTensorLayout
ptxbench::runtime::decodeStatsLayout(const PagedDecodeShape &s) {
  return {{s.batch, s.qHeads, 1, 1}, {s.qHeads, 1, 1, 1}};
}

CudnnTensorLayout ptxbench::runtime::seqLenLayout(const PagedDecodeShape &s) {
  return {{s.batch, 1, 1, 1}, {1, 1, 1, 1}};
}

//===----------------------------------------------------------------------===//
// The graph
//===----------------------------------------------------------------------===//

#ifdef PTXBENCH_HAVE_CUDNN_FRONTEND
namespace fe = cudnn_frontend;
#endif

struct CudnnPagedDecode::Impl
#ifdef PTXBENCH_HAVE_CUDNN_FRONTEND
    : cudnn::GraphState
#endif
{
  PagedDecodeShape shape;
  size_t workspace = 0;
  std::string planName;
};

CudnnPagedDecode::CudnnPagedDecode(std::unique_ptr<Impl> impl)
    : impl(std::move(impl)) {}
CudnnPagedDecode::~CudnnPagedDecode() = default;
const PagedDecodeShape &CudnnPagedDecode::shape() const { return impl->shape; }
size_t CudnnPagedDecode::workspaceBytes() const { return impl->workspace; }
const std::string &CudnnPagedDecode::planName() const { return impl->planName; }

namespace {

std::string subject(const PagedDecodeShape &s) {
  return "cuDNN paged decode (" + describePagedDecodeShape(s) + ")";
}

} // namespace

#ifndef PTXBENCH_HAVE_CUDNN_FRONTEND

Expected<std::unique_ptr<CudnnPagedDecode>>
CudnnPagedDecode::create(const PagedDecodeShape &shape, void *) {
  if (Error e = validatePagedDecodeShape(shape))
    return std::move(e);
  // Always an error here: ptxbench was built without the frontend.
  return makeError(subject(shape) + ": " + toString(CudnnSdpa::load()));
}

Error CudnnPagedDecode::run(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                            uint64_t, uint64_t, uint64_t, uint64_t) {
  return CudnnSdpa::load();
}

#else

namespace {

/// The uids of the graph's tensors, the keys of the variant pack.
enum Uid : int64_t {
  Q = 1,
  K,
  V,
  O,
  Stats,
  PageTableK,
  PageTableV,
  SeqLenQ,
  SeqLenKv
};

using TensorPtr = std::shared_ptr<fe::graph::Tensor_attributes>;

template <size_t N> std::vector<int64_t> vec(const std::array<int64_t, N> &a) {
  return {a.begin(), a.end()};
}

fe::graph::Tensor_attributes &laidOut(fe::graph::Tensor_attributes &t,
                                      const CudnnTensorLayout &layout,
                                      fe::DataType_t type) {
  return t.set_dim(vec(layout.dims))
      .set_stride(vec(layout.strides))
      .set_data_type(type);
}

TensorPtr input(fe::graph::Graph &g, const char *name, Uid uid,
                const CudnnTensorLayout &layout, fe::DataType_t type) {
  fe::graph::Tensor_attributes t;
  t.set_name(name).set_uid(uid);
  return g.tensor(laidOut(t, layout, type));
}

std::shared_ptr<fe::graph::Graph> decodeGraph(const PagedDecodeShape &s) {
  auto g = std::make_shared<fe::graph::Graph>();
  g->set_io_data_type(fe::DataType_t::BFLOAT16)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  const auto bf16 = fe::DataType_t::BFLOAT16, i32 = fe::DataType_t::INT32;
  TensorPtr q = input(*g, "Q", Q, decodeQueryLayout(s), bf16);
  TensorPtr k = input(*g, "k_container", K, pagedCacheLayout(s), bf16);
  TensorPtr v = input(*g, "v_container", V, pagedCacheLayout(s), bf16);
  // K and V have one page table in the tasks: two graph tensors (cuDNN
  // loads each cache through its own), bound to the same memory.
  TensorPtr tableK =
      input(*g, "page_table_k", PageTableK, pageTableLayout(s), i32);
  TensorPtr tableV =
      input(*g, "page_table_v", PageTableV, pageTableLayout(s), i32);
  TensorPtr seqQ = input(*g, "seq_len_q", SeqLenQ, seqLenLayout(s), i32);
  TensorPtr seqKv = input(*g, "seq_len_kv", SeqLenKv, seqLenLayout(s), i32);
  auto options = fe::graph::SDPA_attributes()
                     .set_name("ptxbench_paged_decode")
                     .set_generate_stats(true)
                     .set_attn_scale(s.scale)
                     .set_padding_mask(true)
                     .set_seq_len_q(seqQ)
                     .set_seq_len_kv(seqKv)
                     .set_paged_attention_k_table(tableK)
                     .set_paged_attention_v_table(tableV)
                     .set_paged_attention_max_seq_len_kv(int(s.seqLen));
  auto [o, stats] = g->sdpa(q, k, v, options);
  o->set_output(true).set_uid(O);
  laidOut(*o, decodeQueryLayout(s), bf16);
  // Natural-log stats (set_stats_use_log2 left off), the tasks' LSE.
  stats->set_output(true).set_uid(Stats);
  laidOut(*stats, decodeStatsLayout(s), fe::DataType_t::FLOAT);
  return g;
}

Expected<std::unique_ptr<CudnnPagedDecode::Impl>>
buildImpl(const PagedDecodeShape &shape, void *stream) {
  auto impl = std::make_unique<CudnnPagedDecode::Impl>();
  impl->shape = shape;
  std::string what = subject(shape);
  if (Error e = cudnn::createHandle(impl->handle, stream, what))
    return std::move(e);
  impl->graph = decodeGraph(shape);
  if (Error e = cudnn::buildPlan(*impl->graph, impl->handle, what,
                                 impl->workspace, impl->planName))
    return std::move(e);
  return std::move(impl);
}

} // namespace

Expected<std::unique_ptr<CudnnPagedDecode>>
CudnnPagedDecode::create(const PagedDecodeShape &shape, void *cuStream) {
  if (Error e = validatePagedDecodeShape(shape))
    return std::move(e);
  if (Error e = CudnnSdpa::load())
    return makeError(subject(shape) + ": " + toString(std::move(e)));
  try {
    Expected<std::unique_ptr<Impl>> impl = buildImpl(shape, cuStream);
    if (!impl)
      return impl.takeError();
    return std::unique_ptr<CudnnPagedDecode>(
        new CudnnPagedDecode(std::move(*impl)));
  } catch (const std::exception &e) {
    return makeError(subject(shape) +
                     ": the cuDNN frontend failed: " + e.what());
  } catch (...) {
    return makeError(subject(shape) +
                     ": the cuDNN frontend failed with an unknown exception");
  }
}

Error CudnnPagedDecode::run(uint64_t q, uint64_t kCache, uint64_t vCache,
                            uint64_t pageTable, uint64_t seqLenQ,
                            uint64_t seqLenKv, uint64_t o, uint64_t lse,
                            uint64_t ws) {
  auto at = [](uint64_t address) {
    return reinterpret_cast<void *>(uintptr_t(address));
  };
  // The keys are the same on every run, so the map allocates only once.
  impl->pack[Q] = at(q);
  impl->pack[K] = at(kCache);
  impl->pack[V] = at(vCache);
  impl->pack[PageTableK] = at(pageTable);
  impl->pack[PageTableV] = at(pageTable);
  impl->pack[SeqLenQ] = at(seqLenQ);
  impl->pack[SeqLenKv] = at(seqLenKv);
  impl->pack[O] = at(o);
  impl->pack[Stats] = at(lse);
  return cudnn::execute(*impl->graph, impl->handle, impl->pack, ws,
                        impl->workspace, [&] { return subject(impl->shape); });
}

#endif // PTXBENCH_HAVE_CUDNN_FRONTEND
