//===- Operator.cpp - A task's reference and baseline: shared parts -------===//

#include "Operator.h"

using namespace llvm;
using namespace ptxbench::runtime;

std::unique_ptr<Operator>
ptxbench::runtime::makeOperator(Gpu &gpu, const Task &task,
                                WorkloadTensors &tensors,
                                const Bindings &params) {
  // The task loader accepts only these references.
  if (task.python)
    return makePythonOperator(gpu, task, tensors, params);
  if (task.reference == "gemm")
    return makeGemmOperator(gpu, task, tensors, params);
  if (task.reference == "rmsnorm")
    return makeRmsNormOperator(gpu, task, tensors, params);
  return makeAttentionOperator(gpu, task, tensors, params);
}

Operator::~Operator() = default;

void Operator::release() {
  for (std::vector<CheckedOutput> *list : {&reference, &baseline})
    for (CheckedOutput &o : *list)
      gpu.free(o.values);
  for (DeviceBuffer &b : scratch)
    gpu.free(b);
}

MaybeFail Operator::makeBaseline(std::function<MaybeFail()> &) {
  return Failure{Status::HarnessError,
                 "the " + task.reference + " reference has no baseline"};
}

int Operator::operand(StringRef role) const {
  auto it = task.operands.find(role);
  return it == task.operands.end() ? -1 : task.tensorIndex(it->second);
}

uint64_t Operator::elements(int tensor) const {
  uint64_t n = 1;
  for (int64_t d : shape(tensor))
    n *= uint64_t(d);
  return n;
}

MaybeFail Operator::addReferenceOutput(int tensor) {
  reference.push_back({tensor, {}});
  return gpu.allocSealed(reference.back().values, elements(tensor) * 4);
}

MaybeFail Operator::addBaselineOutput(int tensor) {
  baseline.push_back({tensor, {}});
  return gpu.allocSealed(baseline.back().values,
                   elements(tensor) * dtypeSize(task.tensors[tensor].dtype));
}

/// The values `list` holds for `tensor`, 0 when it has none.
static CUdeviceptr valuesOf(ArrayRef<CheckedOutput> list, int tensor) {
  for (const CheckedOutput &o : list)
    if (o.tensor == tensor)
      return o.values.ptr;
  return 0;
}

CUdeviceptr Operator::referenceOf(int tensor) const {
  return valuesOf(reference, tensor);
}

CUdeviceptr Operator::baselineOf(int tensor) const {
  return valuesOf(baseline, tensor);
}

MaybeFail Operator::finishReference() {
  return gpu.check(gpu.d.cuStreamSynchronize(gpu.stream), Status::HarnessError,
                   "running the reference");
}

Failure Operator::shapeError(const Twine &what) const {
  return Failure{Status::HarnessError,
                 (what + " (" + task.reference + " reference)").str()};
}
