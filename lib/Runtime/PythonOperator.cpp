//===- PythonOperator.cpp - A task's reference given as Python ------------===//
//
// The operator of "reference": "python". Per input set it copies the drawn
// inputs to the host, computes the reference in its contained child on the
// GPU (Reference/PythonReference.h; fp64 or fp32 as the task says, untimed)
// and uploads the outputs as the fp32 reference the checks compare with.
// Its baseline, when the task names one, is a library call on the tensors
// the task's "operands" name (cublaslt_blockscale_gemm: cuBLASLt's
// block-scaled fp8 GEMM; cudnn_sdpa_paged_decode: cuDNN's fused attention
// over paged K/V caches; cudnn_sdpa_fp8_fwd: cuDNN's fp8 attention,
// Fp8AttentionBaseline.h); a PyTorch call is never timed.
// The worker's reference server computes it (WorkerOptions::referenceServer,
// started before the worker closes itself off).
//
//===----------------------------------------------------------------------===//

#include "CublasLtGemm.h"
#include "CudnnPagedDecode.h"
#include "CudnnSdpa.h"
#include "Fp8AttentionBaseline.h"
#include "Operator.h"

#include "ptxbench/Reference/PythonReference.h"

using namespace llvm;
using namespace ptxbench;
using namespace ptxbench::runtime;

namespace {

reference::ReferenceServer *&server() {
  static reference::ReferenceServer *s = nullptr;
  return s;
}

class PythonOperator : public Operator {
public:
  using Operator::Operator;

  MaybeFail setup() override {
    if (!task.python)
      return Failure{Status::HarnessError, "the task has no Python reference"};
    for (unsigned t = 0; t < task.tensors.size(); ++t)
      if (task.tensors[t].role == Role::Output)
        TRY(addReferenceOutput(t));
    return std::nullopt;
  }

  MaybeFail runReference() override {
    TRY(gpu.check(gpu.d.cuStreamSynchronize(gpu.stream), Status::HarnessError,
                  "drawing the inputs of the Python reference"));
    std::vector<std::string> inputs(task.tensors.size());
    for (unsigned t = 0; t < task.tensors.size(); ++t) {
      if (task.tensors[t].role != Role::Input)
        continue;
      inputs[t].resize(tensors.buffers[t].bytes);
      TRY(gpu.check(gpu.d.cuMemcpyDtoH(inputs[t].data(), ptr(t),
                                       inputs[t].size()),
                    Status::HarnessError,
                    "reading the inputs of the Python reference"));
    }
    if (!server())
      return Failure{Status::HarnessError,
                     "no reference server: the Python reference cannot be "
                     "computed in this process"};
    Expected<reference::PythonReferenceOutputs> out =
        server()->compute(params, inputs);
    if (!out)
      return Failure{Status::HarnessError, toString(out.takeError())};
    for (const reference::PythonReferenceOutputs::Output &o : out->outputs)
      TRY(gpu.check(gpu.d.cuMemcpyHtoD(referenceOf(o.tensor), o.values.data(),
                                       o.values.size() * 4),
                    Status::HarnessError,
                    "keeping the Python reference's outputs"));
    return std::nullopt;
  }

  MaybeFail makeBaseline(std::function<MaybeFail()> &launch) override {
    if (task.baseline == "cudnn_sdpa_paged_decode")
      return makePagedDecodeBaseline(launch);
    if (task.baseline == "cudnn_sdpa_fp8_fwd")
      return makeFp8AttentionBaseline(launch);
    if (task.baseline != "cublaslt_blockscale_gemm")
      return Operator::makeBaseline(launch);
    // The loader checked the operands' ranks, roles and dtypes.
    int a = operand("a"), b = operand("b"), c = operand("c");
    GemmOperands g;
    g.M = shape(a)[0];
    g.K = shape(a)[1];
    g.N = shape(b)[0];
    if (shape(b)[1] != g.K || shape(c)[0] != g.M || shape(c)[1] != g.N ||
        shape(operand("a_scale")) !=
            std::vector<int64_t>{g.M, (g.K + 127) / 128} ||
        shape(operand("b_scale")) !=
            std::vector<int64_t>{(g.N + 127) / 128, (g.K + 127) / 128})
      return Failure{Status::HarnessError,
                     "the block-scaled GEMM's operand shapes disagree (a [M, "
                     "K], a_scale [M, K/128], b [N, K], b_scale [N/128, "
                     "K/128], c [M, N])"};
    TRY(addBaselineOutput(c));
    g.typeA = g.typeB = DType::E4M3;
    g.transB = true;
    g.blockScales = true;
    g.a = ptr(a);
    g.b = ptr(b);
    g.c = baselineOf(c);
    g.scaleA = ptr(operand("a_scale"));
    g.scaleB = ptr(operand("b_scale"));
    return makeCublasLtGemm(gpu, g, launch);
  }

  std::string baselineVersion() const override {
    return version.empty() ? "" : "cuDNN " + version;
  }

private:
  std::string version;

  /// cuDNN's SDPA over the paged caches, one query token per sequence,
  /// every sequence L tokens long (the task parameter).
  MaybeFail makePagedDecodeBaseline(std::function<MaybeFail()> &launch) {
    // The loader checked the operands' ranks, roles and dtypes.
    int q = operand("q"), kc = operand("k_cache"), vc = operand("v_cache"),
        table = operand("kv_indices"), o = operand("o"), lse = operand("lse");
    auto len = params.find("L");
    if (len == params.end())
      return Failure{Status::HarnessError,
                     "the cudnn_sdpa_paged_decode baseline needs the task "
                     "parameter L (the tokens of every sequence)"};
    PagedDecodeShape s;
    s.batch = shape(q)[0];
    s.qHeads = shape(q)[1];
    s.headDim = shape(q)[2];
    s.pages = shape(kc)[0];
    s.pageSize = shape(kc)[1];
    s.kvHeads = shape(kc)[2];
    s.pagesPerSeq = shape(table)[1];
    s.seqLen = len->second;
    s.scale = sdpaDefaultScale(s.headDim);
    if (shape(kc)[3] != s.headDim || shape(vc) != shape(kc) ||
        shape(table)[0] != s.batch || shape(o) != shape(q) ||
        shape(lse) != std::vector<int64_t>{s.batch, s.qHeads})
      return Failure{Status::HarnessError,
                     "the paged decode's operand shapes disagree (q [B, HQ, "
                     "D], k_cache and v_cache [pages, PS, HKV, D], kv_indices "
                     "[B, ceildiv(L, PS)], o [B, HQ, D], lse [B, HQ])"};
    auto made = CudnnPagedDecode::create(s, gpu.stream);
    if (!made)
      return Failure{Status::HarnessError, toString(made.takeError())};
    std::shared_ptr<CudnnPagedDecode> lib = std::move(*made);
    version = CudnnSdpa::version() + " " + lib->planName();
    TRY(addBaselineOutput(o));
    TRY(addBaselineOutput(lse));
    // The workspace and the sequence lengths (1 for Q, L for K/V), set up
    // once, outside the timed launches.
    size_t first = scratch.size();
    scratch.resize(first + 3);
    TRY(gpu.alloc(scratch[first], lib->workspaceBytes()));
    std::vector<int32_t> ones(s.batch, 1), lengths(s.batch, int32_t(s.seqLen));
    for (auto [buffer, values] : {std::pair{first + 1, &ones},
                                  std::pair{first + 2, &lengths}}) {
      TRY(gpu.alloc(scratch[buffer], values->size() * 4));
      TRY(gpu.check(gpu.d.cuMemcpyHtoD(scratch[buffer].ptr, values->data(),
                                       values->size() * 4),
                    Status::HarnessError,
                    "setting the paged decode's sequence lengths"));
    }
    CUdeviceptr pq = ptr(q), pk = ptr(kc), pv = ptr(vc), pt = ptr(table),
                sq = scratch[first + 1].ptr, skv = scratch[first + 2].ptr,
                po = baselineOf(o), pl = baselineOf(lse),
                ws = scratch[first].ptr;
    launch = [=]() -> MaybeFail {
      if (Error err = lib->run(pq, pk, pv, pt, sq, skv, po, pl, ws))
        return Failure{Status::HarnessError, toString(std::move(err))};
      return std::nullopt;
    };
    return std::nullopt;
  }

  /// cudnn_sdpa_fp8_fwd: the operands' shapes checked, the softmax scale
  /// 1/sqrt(D), the causal mask from the task's parameter.
  MaybeFail makeFp8AttentionBaseline(std::function<MaybeFail()> &launch) {
    int q = operand("q"), o = operand("o"), lse = operand("lse");
    const std::vector<int64_t> &s = shape(q);
    for (const char *role : {"k", "v", "o"})
      if (shape(operand(role)) != s)
        return shapeError("the fp8 attention baseline's '" + Twine(role) +
                          "' is not [B, H, S, D] like 'q'");
    if (shape(lse) != std::vector<int64_t>{s[0], s[1], s[2]})
      return shapeError("the fp8 attention baseline's 'lse' is not [B, H, S]");
    for (const char *role : {"q_scale", "k_scale", "v_scale"})
      if (shape(operand(role)) != std::vector<int64_t>{1})
        return shapeError("the fp8 attention baseline's '" + Twine(role) +
                          "' is not one value");
    Fp8AttentionOperands ops;
    ops.shape.batch = s[0];
    ops.shape.heads = s[1];
    ops.shape.seq = s[2];
    ops.shape.headDim = s[3];
    ops.shape.scale = sdpaDefaultScale(s[3]);
    if (!task.causalParam.empty()) {
      auto it = params.find(task.causalParam);
      ops.shape.causal = it != params.end() && it->second != 0;
    }
    TRY(addBaselineOutput(o));
    TRY(addBaselineOutput(lse));
    ops.q = ptr(q);
    ops.k = ptr(operand("k"));
    ops.v = ptr(operand("v"));
    ops.qScale = ptr(operand("q_scale"));
    ops.kScale = ptr(operand("k_scale"));
    ops.vScale = ptr(operand("v_scale"));
    ops.o = baselineOf(o);
    ops.lse = baselineOf(lse);
    return ptxbench::runtime::makeFp8AttentionBaseline(gpu, ops, scratch,
                                                       launch, version);
  }
};

} // namespace

void ptxbench::runtime::setPythonReferenceServer(
    reference::ReferenceServer *s) {
  server() = s;
}

std::unique_ptr<Operator>
ptxbench::runtime::makePythonOperator(Gpu &gpu, const Task &task,
                                      WorkloadTensors &tensors,
                                      const Bindings &params) {
  return std::make_unique<PythonOperator>(gpu, task, tensors, params);
}
