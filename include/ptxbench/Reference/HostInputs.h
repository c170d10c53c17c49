//===- HostInputs.h - A task's inputs drawn on the host ---------*- C++ -*-===//
//
// The GPU harness draws inputs on the device. Computing a reference on the
// CPU (small shapes, the tests of the Python references) needs them on the
// host: the same distributions of task.json (normal, uniform, ints, spiky,
// permutation), drawn from a seed with a counter-based generator and
// rounded to the tensor's dtype as the device does (round to nearest
// even). The values are not the device's, only their distribution is.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_REFERENCE_HOSTINPUTS_H
#define PTXBENCH_REFERENCE_HOSTINPUTS_H

#include "ptxbench/Task/Task.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace ptxbench::reference {

/// The raw bytes (the tensor's dtype, row-major) of every input of `task`
/// for one workload, one string per tensor (empty for outputs). Derived
/// inputs are an error: only a built-in reference computes them.
llvm::Expected<std::vector<std::string>>
hostInputs(const runtime::Task &task, const runtime::Bindings &params,
           uint64_t seed);

/// `value` rounded to `dtype` and stored as its bytes (little-endian).
void storeElement(runtime::DType dtype, double value, char *out);
/// The value of one stored element.
double loadElement(runtime::DType dtype, const char *in);

} // namespace ptxbench::reference

#endif // PTXBENCH_REFERENCE_HOSTINPUTS_H
