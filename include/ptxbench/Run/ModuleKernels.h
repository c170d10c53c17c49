//===- ModuleKernels.h - A module's kernels for a launch plan ---*- C++ -*-===//
//
// The kernels (.entry) of an imported PTX module with the size of each
// parameter, for runtime::checkPlanKernels: the names and sizes a launch
// plan is held against before any GPU loads the module.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_RUN_MODULEKERNELS_H
#define PTXBENCH_RUN_MODULEKERNELS_H

#include "ptxbench/Dialect/PTX/PTX.h"
#include "ptxbench/Task/LaunchPlan.h"

#include <vector>

namespace ptxbench::run {

/// Every kernel of `module` with a body or declaration, in order; a
/// parameter's size is 0 when its declaration gives none (an unsized
/// array, an unknown type).
std::vector<runtime::ModuleKernel> moduleKernels(ptx::ModuleOp module);

} // namespace ptxbench::run

#endif // PTXBENCH_RUN_MODULEKERNELS_H
