//===- RmsNormOperator.cpp - RMSNorm: fp32 reference, no baseline ---------===//
//
// A memory-bound task: speed of light (the card's copy bandwidth) is the
// bar, so there is no library baseline.
//
//===----------------------------------------------------------------------===//

#include "Operator.h"

using namespace llvm;
using namespace ptxbench::runtime;

namespace {

/// y[T,H] = x / sqrt(mean(x^2) + eps) * w; speed of light is the bar, no
/// library baseline.
class RmsNormOperator : public Operator {
public:
  using Operator::Operator;

  MaybeFail setup() override {
    x = operand("x");
    w = operand("w");
    y = operand("y");
    T = shape(x)[0];
    H = shape(x)[1];
    if (shape(w)[0] != H || shape(y)[0] != T || shape(y)[1] != H)
      return shapeError("rmsnorm operand shapes disagree");
    return addReferenceOutput(y);
  }

  MaybeFail runReference() override {
    CUfunction fn;
    TRY(gpu.builtin("ptxbench_rmsnorm_ref", fn));
    int t = T, h = H, dtX = int(task.tensors[x].dtype),
        dtW = int(task.tensors[w].dtype);
    float eps = float(task.eps);
    CUdeviceptr px = ptr(x), pw = ptr(w), py = referenceOf(y);
    void *args[] = {&px, &pw, &py, &t, &h, &eps, &dtX, &dtW};
    unsigned grid[3] = {unsigned(T), 1, 1}, block[3] = {256, 1, 1};
    TRY(launchBuiltin(gpu, fn, grid, block, 0, args, "running the reference"));
    return finishReference();
  }

private:
  int x = -1, w = -1, y = -1;
  int64_t T = 0, H = 0;
};

} // namespace

std::unique_ptr<Operator>
ptxbench::runtime::makeRmsNormOperator(Gpu &gpu, const Task &task,
                                       WorkloadTensors &tensors,
                                       const Bindings &params) {
  return std::make_unique<RmsNormOperator>(gpu, task, tensors, params);
}
