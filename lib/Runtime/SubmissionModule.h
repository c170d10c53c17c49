//===- SubmissionModule.h - A submission, loaded fresh per launch -*- C++ -*-===//
//
// The submission's PTX is assembled once into a cubin, by the parent's
// ptxas as a whole program (the code the driver's JIT makes; relocatable
// code, which the driver's cuLink and nvJitLink make, can spill registers
// where the whole program does not); every launch of it (checked trials,
// timed launches, the counted run and the knockouts) then loads that cubin
// as a new module and unloads it after the launch. Without ptxas the
// driver's JIT compiles the PTX at every load (its cache keeps that cheap
// after the first). A module comes back exactly as ptxas made it, so nothing a
// kernel writes to its own memory (module-scope and function-scope
// `.global` variables, `.const` memory written through a generic pointer,
// whatever the driver allocates for the module) reaches the next launch,
// whatever the PTX spells or hides. Loading a cubin costs tens of
// microseconds, outside the timed interval. The instrumented variant also
// has a control block (WorkCounters.h) that is filled at every load.
// Private to lib/Runtime; needs the CUDA headers.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_LIB_RUNTIME_SUBMISSIONMODULE_H
#define PTXBENCH_LIB_RUNTIME_SUBMISSIONMODULE_H

#include "Gpu.h"

#include "ptxbench/ISA/WorkCounters.h"
#include "ptxbench/Task/LaunchPlan.h"

#include <array>
#include <vector>

namespace ptxbench::runtime {

/// One compiled variant of the submission: its cubin (or, without one, its
/// PTX for the driver's JIT) and what the plan launches from it.
struct CompiledModule {
  std::string cubin, ptx;
  /// The plan's kernels, in plan order.
  std::vector<std::string> kernels;
  /// Dynamic shared memory each kernel launches with (opted into at every
  /// load).
  std::vector<unsigned> smem;
  /// The control block's symbol (instrumented variant only).
  std::string control;
};

/// Prepares `out` from the parent's cubin (`cubinPath`), or without one
/// from `ptx` for the driver's JIT; either way refuses a module that calls
/// device-runtime functions (Containment.h's refusedDeviceCalls, on the
/// cubin or, without one, on what the driver's linker makes of the PTX).
/// The JIT's messages go to `log`.
MaybeFail prepareModule(Gpu &gpu, llvm::StringRef ptx,
                        llvm::StringRef cubinPath, CompiledModule &out,
                        std::string &log);

/// A fresh module of a CompiledModule, unloaded by its destructor (after
/// the launch has finished: the caller synchronizes first).
class LoadedModule {
public:
  LoadedModule() = default;
  LoadedModule(const LoadedModule &) = delete;
  LoadedModule &operator=(const LoadedModule &) = delete;
  ~LoadedModule() { unload(); }

  /// Loads `compiled` and looks up its kernels (`missing`, when given, is
  /// set to the index of one that is not there); writes `control` into the
  /// control block when the variant has one.
  MaybeFail
  load(Gpu &gpu, const CompiledModule &compiled,
       const std::array<uint64_t, isa::numControlWords> *control =
           nullptr,
       unsigned *missing = nullptr);
  void unload();
  bool loaded() const { return module != nullptr; }
  llvm::ArrayRef<CUfunction> functions() const { return fns; }

private:
  Gpu *gpu = nullptr;
  CUmodule module = nullptr;
  std::vector<CUfunction> fns;
};

} // namespace ptxbench::runtime

#endif // PTXBENCH_LIB_RUNTIME_SUBMISSIONMODULE_H
