//===- GemmOperator.cpp - GEMM: fp32 reference, cuBLASLt baseline ---------===//
//
// C[M,N] = scale_a * scale_b * A[M,K] B (B is [K,N], or [N,K] with
// b_layout "nk"), inputs bf16, f16 or fp8 e4m3; the reference accumulates
// the exactly decoded inputs in fp32.
//
//===----------------------------------------------------------------------===//

#include "CublasLtGemm.h"
#include "Operator.h"

using namespace llvm;
using namespace ptxbench::runtime;

namespace {

class GemmOperator : public Operator {
public:
  using Operator::Operator;

  MaybeFail setup() override {
    a = operand("a");
    b = operand("b");
    c = operand("c");
    scaleA = operand("scale_a");
    scaleB = operand("scale_b");
    M = shape(a)[0];
    K = shape(a)[1];
    N = shape(b)[task.bTransposed ? 0 : 1];
    if (shape(b)[task.bTransposed ? 1 : 0] != K || shape(c)[0] != M ||
        shape(c)[1] != N)
      return shapeError("gemm operand shapes disagree");
    return addReferenceOutput(c);
  }

  MaybeFail runReference() override {
    CUfunction fn;
    TRY(gpu.builtin("ptxbench_gemm_ref", fn));
    int m = M, n = N, k = K, dtA = int(task.tensors[a].dtype),
        dtB = int(task.tensors[b].dtype), transB = task.bTransposed;
    CUdeviceptr pa = ptr(a), pb = ptr(b), pc = referenceOf(c);
    CUdeviceptr sa = scaleA >= 0 ? ptr(scaleA) : 0;
    CUdeviceptr sb = scaleB >= 0 ? ptr(scaleB) : 0;
    void *args[] = {&pa, &pb, &pc, &m, &n, &k, &dtA, &dtB, &transB, &sa, &sb};
    unsigned grid[3] = {unsigned((N + 63) / 64), unsigned((M + 63) / 64), 1};
    unsigned block[3] = {16, 16, 1};
    TRY(launchBuiltin(gpu, fn, grid, block, 0, args, "running the reference"));
    return finishReference();
  }

  MaybeFail makeBaseline(std::function<MaybeFail()> &launch) override {
    TRY(addBaselineOutput(c));
    GemmOperands g;
    g.M = M;
    g.N = N;
    g.K = K;
    g.typeA = task.tensors[a].dtype;
    g.typeB = task.tensors[b].dtype;
    g.transB = task.bTransposed;
    g.a = ptr(a);
    g.b = ptr(b);
    g.c = baselineOf(c);
    g.scaleA = scaleA >= 0 ? ptr(scaleA) : 0;
    g.scaleB = scaleB >= 0 ? ptr(scaleB) : 0;
    return makeCublasLtGemm(gpu, g, launch);
  }

private:
  int a = -1, b = -1, c = -1, scaleA = -1, scaleB = -1;
  int64_t M = 0, N = 0, K = 0;
};

} // namespace

std::unique_ptr<Operator>
ptxbench::runtime::makeGemmOperator(Gpu &gpu, const Task &task,
                                    WorkloadTensors &tensors,
                                    const Bindings &params) {
  return std::make_unique<GemmOperator>(gpu, task, tensors, params);
}
