//===- AttentionOperator.cpp - Attention: fp32 references, cuDNN SDPA -----===//
//
// Multi-head self-attention over [B, H, S, D] bf16 tensors with the
// softmax scale 1/sqrt(D) and an optional top-left causal mask (the task
// parameter named by "operands": {"causal": ...}).
//   attention_fwd: Q, K, V -> O (bf16), LSE (fp32 [B, H, S], natural log);
//   attention_bwd: Q, K, V, O, LSE, dO -> dQ, dK, dV. Its O and LSE are
//   "derived" inputs: the fp32 forward reference computes them from the
//   generated Q, K and V, so the gradients belong to a real forward pass.
// The references are the fp32 kernels of kernels/attention.cu; the baseline
// is cuDNN's fused SDPA (CudnnSdpa.h), checked against the same reference.
//
//===----------------------------------------------------------------------===//

#include "AttentionKernels.h"
#include "CudnnSdpa.h"
#include "Operator.h"

using namespace llvm;
using namespace ptxbench::runtime;

namespace {

/// What both directions share: the operands, the shape and the forward
/// reference.
class AttentionOperator : public Operator {
public:
  AttentionOperator(Gpu &gpu, const Task &task, WorkloadTensors &tensors,
                    const Bindings &params, bool backward)
      : Operator(gpu, task, tensors, params), backward(backward) {}

  MaybeFail setup() override {
    q = operand("q");
    k = operand("k");
    v = operand("v");
    o = operand("o");
    lse = operand("lse");
    const std::vector<int64_t> &s = shape(q);
    sdpa.batch = s[0];
    sdpa.heads = s[1];
    sdpa.seq = s[2];
    sdpa.headDim = s[3];
    sdpa.scale = sdpaDefaultScale(sdpa.headDim);
    if (!task.causalParam.empty()) {
      auto it = params.find(task.causalParam);
      sdpa.causal = it != params.end() && it->second != 0;
    }
    std::vector<int> full = {q, k, v, o};
    if (backward)
      for (const char *role : {"do", "dq", "dk", "dv"})
        full.push_back(operand(role));
    for (int t : full)
      if (shape(t) != s)
        return shapeError("tensor '" + task.tensors[t].name +
                          "' is not [B, H, S, D] like '" +
                          task.tensors[q].name + "'");
    if (shape(lse) != std::vector<int64_t>{s[0], s[1], s[2]})
      return shapeError("tensor '" + task.tensors[lse].name +
                        "' is not [B, H, S]");
    if (!backward) {
      TRY(addReferenceOutput(o));
      return addReferenceOutput(lse);
    }
    for (const char *role : {"dq", "dk", "dv"})
      TRY(addReferenceOutput(operand(role)));
    // fp32 forward output (converted into the bf16 input O) and Delta.
    scratch.resize(2);
    TRY(gpu.allocSealed(scratch[0], elements(o) * 4));
    return gpu.allocSealed(scratch[1], elements(lse) * 4);
  }

  MaybeFail deriveInputs() override {
    if (!backward)
      return std::nullopt;
    // O and LSE of the backward task are the fp32 forward's; O rounded to
    // bf16 as a forward kernel would have stored it.
    TRY(runForwardReference(scratch[0].ptr, ptr(lse)));
    CUfunction fn;
    TRY(gpu.builtin("ptxbench_f32_to_bf16", fn));
    CUdeviceptr in = scratch[0].ptr, out = ptr(o);
    uint64_t n = elements(o);
    void *args[] = {&in, &out, &n};
    RefLaunch l = f32ToBf16Launch(n);
    return launchBuiltin(gpu, fn, l.grid, l.block, l.smem, args,
                         "deriving the forward output O");
  }

  MaybeFail runReference() override {
    MaybeFail f = backward
                      ? runBackwardReference()
                      : runForwardReference(referenceOf(o), referenceOf(lse));
    if (f)
      return f;
    return finishReference();
  }

  MaybeFail makeBaseline(std::function<MaybeFail()> &launch) override {
    auto made = backward ? CudnnSdpa::backward(sdpa, gpu.stream)
                         : CudnnSdpa::forward(sdpa, gpu.stream);
    if (!made)
      return Failure{Status::HarnessError, toString(made.takeError())};
    std::shared_ptr<CudnnSdpa> lib = std::move(*made);
    version = CudnnSdpa::version() + " " + lib->planName();
    scratch.emplace_back();
    TRY(gpu.alloc(scratch.back(), lib->workspaceBytes()));
    CUdeviceptr ws = scratch.back().ptr;
    if (!backward) {
      TRY(addBaselineOutput(o));
      TRY(addBaselineOutput(lse));
      CUdeviceptr pq = ptr(q), pk = ptr(k), pv = ptr(v), po = baselineOf(o),
                  pl = baselineOf(lse);
      launch = [=]() -> MaybeFail {
        if (Error err = lib->runForward(pq, pk, pv, po, pl, ws))
          return Failure{Status::HarnessError, toString(std::move(err))};
        return std::nullopt;
      };
      return std::nullopt;
    }
    int dq = operand("dq"), dk = operand("dk"), dv = operand("dv");
    for (int t : {dq, dk, dv})
      TRY(addBaselineOutput(t));
    CUdeviceptr pq = ptr(q), pk = ptr(k), pv = ptr(v), po = ptr(o),
                pdo = ptr(operand("do")), pl = ptr(lse), pdq = baselineOf(dq),
                pdk = baselineOf(dk), pdv = baselineOf(dv);
    launch = [=]() -> MaybeFail {
      if (Error err =
              lib->runBackward(pq, pk, pv, po, pdo, pl, pdq, pdk, pdv, ws))
        return Failure{Status::HarnessError, toString(std::move(err))};
      return std::nullopt;
    };
    return std::nullopt;
  }

  std::string baselineVersion() const override {
    return version.empty() ? "" : "cuDNN " + version;
  }

private:
  bool backward;
  int q = -1, k = -1, v = -1, o = -1, lse = -1;
  SdpaShape sdpa;
  std::string version;

  int bh() const { return int(sdpa.batch * sdpa.heads); }

  /// O (fp32 [B,H,S,D]) and LSE (fp32 [B,H,S]) of Q, K, V.
  MaybeFail runForwardReference(CUdeviceptr outO, CUdeviceptr outLse) {
    CUfunction fn;
    TRY(gpu.builtin("ptxbench_attn_fwd_ref", fn));
    CUdeviceptr pq = ptr(q), pk = ptr(k), pv = ptr(v);
    int s = sdpa.seq, d = sdpa.headDim, causal = sdpa.causal;
    float scale = sdpa.scale;
    void *args[] = {&pq, &pk, &pv, &outO, &outLse, &s, &d, &scale, &causal};
    RefLaunch l = attnFwdRefLaunch(bh(), s, d);
    return launchBuiltin(gpu, fn, l.grid, l.block, l.smem, args,
                         "running the forward reference");
  }

  MaybeFail runBackwardReference() {
    CUdeviceptr pq = ptr(q), pk = ptr(k), pv = ptr(v), po = ptr(o),
                pdo = ptr(operand("do")), pl = ptr(lse), delta = scratch[1].ptr;
    CUdeviceptr dq = referenceOf(operand("dq")),
                dk = referenceOf(operand("dk")),
                dv = referenceOf(operand("dv"));
    int s = sdpa.seq, d = sdpa.headDim, causal = sdpa.causal;
    float scale = sdpa.scale;
    long long rows = (long long)bh() * s;
    CUfunction fn;
    TRY(gpu.builtin("ptxbench_attn_bwd_delta", fn));
    void *deltaArgs[] = {&po, &pdo, &delta, &rows, &d};
    RefLaunch l = attnBwdDeltaLaunch(rows, d);
    TRY(launchBuiltin(gpu, fn, l.grid, l.block, l.smem, deltaArgs,
                      "running the backward reference (Delta)"));
    TRY(gpu.builtin("ptxbench_attn_bwd_dq_ref", fn));
    void *dqArgs[] = {&pq, &pk, &pv, &pdo,   &pl,    &delta,
                      &dq, &s,  &d,  &scale, &causal};
    l = attnBwdDqLaunch(bh(), s, d);
    TRY(launchBuiltin(gpu, fn, l.grid, l.block, l.smem, dqArgs,
                      "running the backward reference (dQ)"));
    TRY(gpu.builtin("ptxbench_attn_bwd_dkdv_ref", fn));
    void *dkdvArgs[] = {&pq, &pk, &pv, &pdo, &pl,    &delta,
                        &dk, &dv, &s,  &d,   &scale, &causal};
    l = attnBwdDkDvLaunch(bh(), s, d);
    return launchBuiltin(gpu, fn, l.grid, l.block, l.smem, dkdvArgs,
                         "running the backward reference (dK, dV)");
  }
};

} // namespace

std::unique_ptr<Operator>
ptxbench::runtime::makeAttentionOperator(Gpu &gpu, const Task &task,
                                         WorkloadTensors &tensors,
                                         const Bindings &params) {
  return std::make_unique<AttentionOperator>(gpu, task, tensors, params,
                                             task.reference == "attention_bwd");
}
