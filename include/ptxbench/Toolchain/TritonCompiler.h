//===- TritonCompiler.h - Triton submissions to PTX, contained --*- C++ -*-===//
//
// A Triton submission is a Python file of @triton.jit kernels. It is
// compiled ahead of time, without a GPU, by ptxbench's own driver script
// (ptxbench-triton.py, beside the ptxbench executable) in a child process:
// `ptxbench compile-triton` limits its memory, CPU time and file sizes,
// scrubs its environment, gives it a temporary folder of its own (its
// working directory, HOME, TMPDIR and TRITON_CACHE_DIR), sandboxes itself
// (Support/Sandbox.h: the interpreter's and Triton's files readable, the
// temporary folder writable, no network, no program but the interpreter)
// and then starts the interpreter on the driver. The driver checks the
// submission's syntax tree before any of it runs (the gate: Triton imports,
// constants and @triton.jit functions only), imports it as a module and
// compiles the kernel the launch plan names; Triton never starts ptxas
// (ptxbench assembles the PTX itself). The parent kills the child at the
// wall-clock limit.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_TOOLCHAIN_TRITONCOMPILER_H
#define PTXBENCH_TOOLCHAIN_TRITONCOMPILER_H

#include "ptxbench/Support/Python.h"
#include "ptxbench/Toolchain/CudaCompiler.h"

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ptxbench::toolchain {

/// What to compile: one @triton.jit function with the types of its
/// run-time parameters, in order, as Triton's signature words (`*bf16`,
/// `i32`, `fp32`, `tensordesc<bf16[128,64]>`), the values of its
/// constexpr parameters and the launch options.
struct TritonKernelSpec {
  std::string name;
  /// Where the plan names the kernel, for messages about the plan.
  unsigned line = 0, column = 0;
  std::vector<std::string> args;
  struct Constexpr {
    std::string name;
    llvm::json::Value value = nullptr;
    /// Where the plan gives it.
    unsigned line = 0, column = 0;
  };
  std::vector<Constexpr> constexprs;
  unsigned numWarps = 4, numStages = 3;
  /// Indices into `args` Triton may take as divisible by 16 (aligned
  /// pointers, integers that are multiples of 16 in every workload).
  std::vector<unsigned> aligned;
};

/// How Triton lowered a host-side tensor descriptor parameter
/// (tensordesc_meta): the harness encodes its CUtensorMap the same way.
struct TritonTensorDesc {
  /// CUtensorMapSwizzle: 0 none, 1 32B, 2 64B, 3 128B.
  int swizzle = 0;
  unsigned elemSize = 0;
  /// Triton's device-side TMA element type code.
  int elemType = 0;
  /// Outermost first.
  std::vector<uint32_t> blockSize;
  bool fp4Padded = false, im2col = false;
};

/// What the harness launches a compiled Triton kernel with: its compile
/// metadata.
struct TritonKernelBuild {
  /// The PTX entry's name.
  std::string entry;
  unsigned numWarps = 0, numCtas = 1, numStages = 0;
  /// Dynamic shared memory in bytes.
  uint64_t shared = 0;
  /// Per-program scratch Triton's launcher allocates (device-made tensor
  /// descriptors live there), and the profiler's.
  uint64_t globalScratchSize = 0, globalScratchAlign = 1;
  uint64_t profileScratchSize = 0, profileScratchAlign = 1;
  bool cooperativeGrid = false, pdl = false;
  /// One per tensordesc parameter, in order; empty when Triton passes
  /// descriptors decomposed (pointer, shape and strides).
  std::vector<TritonTensorDesc> tensorDescs;
  /// The kernel's parameters (name, constexpr), in order.
  std::vector<std::pair<std::string, bool>> params;
  std::string tritonVersion;
};

llvm::json::Value toJSON(const TritonKernelBuild &build);
bool fromJSON(const llvm::json::Value &value, TritonKernelBuild &build,
              llvm::json::Path path);

/// Where compiling a Triton submission stopped.
enum class TritonStage {
  None,
  /// The syntax tree holds what an answer may not (host code, imports
  /// other than Triton's, autotuning): nothing of it ran.
  Gate,
  /// It ran, and did something refused (a program, a socket, a write
  /// outside its folder): stopped there.
  Refused,
  /// Executing it as a module failed.
  Import,
  /// The plan does not fit the kernel (names, parameter counts,
  /// constexprs).
  Plan,
  /// Triton's compiler failed.
  Compile,
  /// The child did not finish or left no result.
  Child,
};
llvm::StringRef tritonStageName(TritonStage stage);

struct CompiledTriton {
  bool ok = false;
  bool timedOut = false;
  TritonStage stage = TritonStage::None;
  std::string ptx;
  /// Messages at the submission's lines (file = its name).
  std::vector<CompilerMessage> messages;
  /// The whole story when something failed (Triton's error, a traceback).
  std::string log;
  TritonKernelBuild build;
  /// The child's sandbox (SandboxState::describe()).
  std::string sandbox;
};

struct TritonLimits {
  /// The executable with the `compile-triton` command (ptxbench itself).
  std::string helper;
  double seconds = 60;
  uint64_t memoryMB = 16384;
  /// The Python interpreter; empty: $PTXBENCH_PYTHON, else python3 on
  /// PATH.
  std::string python;
};

/// The driver script beside `helper` (ptxbench-triton.py); empty when it
/// is not there.
std::string tritonDriverPath(llvm::StringRef helper);
/// The interpreter Triton compiles with.
using TritonPython = support::PythonInterpreter;

/// The interpreter `limits` names, resolved (asked once per process); the
/// error says why there is none.
llvm::Expected<TritonPython> tritonPython(const TritonLimits &limits);
/// The PTX ISA version Triton is to write (90 for 9.0): the newest the
/// toolkit's NVRTC and ptxas read. 0 without the toolkit.
unsigned tritonPtxVersion();

/// Compiles `spec`'s kernel of the submission `source` (named `name` in
/// messages and line info) for `arch` (sm_90a, sm_100a) under `limits`.
CompiledTriton compileTriton(llvm::StringRef source, llvm::StringRef name,
                             llvm::StringRef arch,
                             const TritonKernelSpec &spec,
                             const TritonLimits &limits);

/// The child's side (`ptxbench compile-triton`): limits itself, scrubs its
/// environment, changes to `workdir`, sandboxes itself and replaces itself
/// with `python` running `driver` on workdir's request.json. Returns only
/// when that fails (the exit status; the reason is in workdir's
/// result.json). `gate` and `hook` false leave the driver's source check
/// and audit hook out, so that a test can show what the sandbox alone
/// keeps out; the parent never does.
int runTritonCompileChild(llvm::StringRef workdir, llvm::StringRef python,
                          llvm::ArrayRef<std::string> searchPath,
                          llvm::StringRef driver, uint64_t memoryMB,
                          unsigned cpuSeconds, bool gate = true,
                          bool hook = true);

} // namespace ptxbench::toolchain

#endif // PTXBENCH_TOOLCHAIN_TRITONCOMPILER_H
