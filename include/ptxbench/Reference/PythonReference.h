//===- PythonReference.h - A task's reference as a PyTorch function -*- C++
//-*-===//
//
// A task may give its reference as Python: a module beside task.json whose
// entry function (`run`, as FlashInfer-Trace definitions write it) takes
// the task's input tensors, parameters and constants by name and returns
// its outputs. ptxbench computes it per input set in a contained child
// (`ptxbench reference-child`: memory, CPU-time and file-size limits, a
// scrubbed environment, its own temporary folder, a sandbox with no
// network and nothing writable but that folder), which runs the driver
// script ptxbench-reference.py beside the ptxbench executable. Inputs go in
// as raw bytes in their dtypes, float inputs are widened to the task's
// precision (fp32 or fp64), the function runs untimed on the CPU or the
// GPU, and each output comes back as fp32: the reference the harness's
// checks compare with.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_REFERENCE_PYTHONREFERENCE_H
#define PTXBENCH_REFERENCE_PYTHONREFERENCE_H

#include "ptxbench/Task/Task.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace ptxbench::reference {

/// Where the reference runs.
enum class Device { CPU, CUDA };
llvm::StringRef deviceName(Device device);

struct PythonReferenceOptions {
  /// The executable with the `reference-child` command (ptxbench itself).
  std::string helper;
  /// The interpreter; empty: $PTXBENCH_PYTHON, else python3 on PATH.
  std::string python;
  Device device = Device::CPU;
  /// Wall-clock limit of one computation.
  double seconds = 600;
  /// The child's data memory limit on the CPU (MiB); on the GPU the CUDA
  /// runtime's address space reservations make one unusable, so none.
  uint64_t memoryMB = 32768;
  /// Where the child's temporary folders go; empty: the system's.
  std::string tempDir;
};

struct PythonReferenceOutputs {
  /// One per output tensor, in the task's order: (tensor index, fp32
  /// values, how many are not finite).
  struct Output {
    int tensor = -1;
    std::vector<float> values;
    uint64_t nonfinite = 0;
  };
  std::vector<Output> outputs;
  double seconds = 0;
  std::string torchVersion;
  /// The child's sandbox (SandboxState::describe()).
  std::string sandbox;
};

/// The driver script beside `helper` (ptxbench-reference.py); empty when
/// it is not there.
std::string referenceDriverPath(llvm::StringRef helper);

/// Computes the reference of `task` (which has a Python reference) for one
/// workload's `params`; `inputs[t]` holds the raw bytes of tensor t when it
/// is an input (its dtype, row-major; empty for outputs). The error says
/// what failed: the interpreter, the module, binding its parameters, the
/// call (with the traceback from the module's frames), the outputs'
/// shapes, the limits.
llvm::Expected<PythonReferenceOutputs>
runPythonReference(const runtime::Task &task, const runtime::Bindings &params,
                   llvm::ArrayRef<std::string> inputs,
                   const PythonReferenceOptions &options);

/// The child's side (`ptxbench reference-child`): limits itself, scrubs
/// its environment, changes to `workdir`, sandboxes itself and replaces
/// itself with `python` running `driver` on workdir's request.json.
/// Returns only when that fails (the exit status; the reason is in
/// workdir's result.json).
int runReferenceChild(llvm::StringRef workdir, llvm::StringRef python,
                      llvm::ArrayRef<std::string> searchPath,
                      llvm::StringRef driver, Device device, uint64_t memoryMB,
                      unsigned cpuSeconds);

} // namespace ptxbench::reference

#endif // PTXBENCH_REFERENCE_PYTHONREFERENCE_H
