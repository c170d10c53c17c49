//===- PythonOperator.cpp - A task's reference given as Python ------------===//
//
// The operator of "reference": "python". Per input set it copies the drawn
// inputs to the host, computes the reference in its contained child on the
// GPU (Reference/PythonReference.h; fp64 or fp32 as the task says, untimed)
// and uploads the outputs as the fp32 reference the checks compare with.
// Its baseline, when the task names one, is a library call on the tensors
// the task's "operands" name (cublaslt_blockscale_gemm: cuBLASLt's
// block-scaled fp8 GEMM); a PyTorch call is never timed.
// The worker's reference server computes it (WorkerOptions::referenceServer,
// started before the worker closes itself off).
//
//===----------------------------------------------------------------------===//

#include "CublasLtGemm.h"
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
