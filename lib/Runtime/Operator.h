//===- Operator.h - A task's reference and baseline ------------*- C++ -*-===//
//
// What a task computes, as the harness sees it: the fp32 reference that a
// submission's outputs are checked against, the inputs the reference
// derives from the others (an attention backward task's O and LSE), and
// the library baseline timed on the same path. One subclass per built-in
// reference of the task format ("reference" in task.json): gemm, rmsnorm,
// attention_fwd, attention_bwd, and python (a Python reference computed in
// its contained child).
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_LIB_RUNTIME_OPERATOR_H
#define PTXBENCH_LIB_RUNTIME_OPERATOR_H

#include "Gpu.h"

#include "ptxbench/Reference/ReferenceServer.h"

#include <memory>

namespace ptxbench::runtime {

/// The task tensors of one workload, allocated by the workload runner.
struct WorkloadTensors {
  std::vector<DeviceBuffer> buffers;
  std::vector<std::vector<int64_t>> shapes;
};

/// An output tensor and where the values to compare it with are.
struct CheckedOutput {
  int tensor = -1;
  /// fp32 reference values, or the baseline's values in the tensor's dtype.
  DeviceBuffer values;
};

class Operator {
public:
  Operator(Gpu &gpu, const Task &task, WorkloadTensors &tensors,
           const Bindings &params)
      : gpu(gpu), task(task), tensors(tensors), params(params) {}
  virtual ~Operator();

  /// Checks the operands' shapes and allocates the reference outputs.
  virtual MaybeFail setup() = 0;
  /// Computes the task's derived inputs from the generated ones.
  virtual MaybeFail deriveInputs() { return std::nullopt; }
  /// Runs the reference into `referenceOutputs()` and waits for it.
  virtual MaybeFail runReference() = 0;
  /// Sets `launch` to run the library baseline once, writing
  /// `baselineOutputs()`; a Failure when the task has none or it cannot be
  /// set up here.
  virtual MaybeFail makeBaseline(std::function<MaybeFail()> &launch);
  /// The library version the baseline uses ("" when unknown).
  virtual std::string baselineVersion() const { return ""; }

  const std::vector<CheckedOutput> &referenceOutputs() const {
    return reference;
  }
  const std::vector<CheckedOutput> &baselineOutputs() const { return baseline; }
  /// Releases device memory; not done when the context is lost.
  void release();

protected:
  Gpu &gpu;
  const Task &task;
  WorkloadTensors &tensors;
  const Bindings &params;
  std::vector<CheckedOutput> reference, baseline;
  /// Device memory an operator needs beyond its outputs (workspaces).
  std::vector<DeviceBuffer> scratch;

  /// The task tensor named by operand `role`, or -1.
  int operand(llvm::StringRef role) const;
  CUdeviceptr ptr(int tensor) const { return tensors.buffers[tensor].ptr; }
  const std::vector<int64_t> &shape(int tensor) const {
    return tensors.shapes[tensor];
  }
  uint64_t elements(int tensor) const;
  /// Allocates an fp32 reference output for `tensor`.
  MaybeFail addReferenceOutput(int tensor);
  /// Allocates a baseline output for `tensor`, in its dtype.
  MaybeFail addBaselineOutput(int tensor);
  /// The device buffer of the reference (or baseline) output of `tensor`.
  CUdeviceptr referenceOf(int tensor) const;
  CUdeviceptr baselineOf(int tensor) const;
  /// Waits for the reference kernels queued on the harness stream.
  MaybeFail finishReference();
  /// A failure naming the task's reference: "<what> (<reference>)".
  Failure shapeError(const llvm::Twine &what) const;
};

/// The operator of the task's reference.
std::unique_ptr<Operator> makeOperator(Gpu &gpu, const Task &task,
                                       WorkloadTensors &tensors,
                                       const Bindings &params);
// Each defined beside its operator.
std::unique_ptr<Operator> makeGemmOperator(Gpu &, const Task &,
                                           WorkloadTensors &, const Bindings &);
std::unique_ptr<Operator>
makeRmsNormOperator(Gpu &, const Task &, WorkloadTensors &, const Bindings &);
std::unique_ptr<Operator>
makeAttentionOperator(Gpu &, const Task &, WorkloadTensors &, const Bindings &);
/// "reference": "python" (PythonOperator.cpp), computed by `server`.
std::unique_ptr<Operator>
makePythonOperator(Gpu &, const Task &, WorkloadTensors &, const Bindings &);
void setPythonReferenceServer(reference::ReferenceServer *server);

} // namespace ptxbench::runtime

#endif // PTXBENCH_LIB_RUNTIME_OPERATOR_H
