//===- LaunchPlan.h - The launch plan declared in a submission --*- C++ -*-===//
//
// A submission is kernels only; how to launch them is declared in comment
// lines starting with `// @ptxbench` (see docs/launch-plan.md):
//
//   // @ptxbench kernel gemm grid=(ceildiv(N,128), ceildiv(M,128)) block=256
//   // @ptxbench   args A, B, C, M, N, K
//   // @ptxbench tensormap tmA tensor=A box=(128,64) swizzle=128B
//   // @ptxbench workspace flags bytes=4*ceildiv(M,128) zero
//   // @ptxbench workspace sems bytes=4*132 zero=once
//
// parseLaunchPlan() reads the syntax; resolveLaunchPlan() checks it against a
// task and evaluates it for one workload into plain integers.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_TASK_LAUNCHPLAN_H
#define PTXBENCH_TASK_LAUNCHPLAN_H

#include "ptxbench/Task/Expr.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>

namespace ptxbench::runtime {

struct Task;

/// The type of a scalar kernel argument.
enum class ScalarType { I32, U32, I64, U64 };
llvm::StringRef scalarTypeName(ScalarType type);
unsigned scalarTypeSize(ScalarType type);

/// One entry of a kernel's argument list as written: an expression with an
/// optional `:type`. A lone name may denote a tensor, a workspace or a tensor
/// map; that is decided against the task (resolveLaunchPlan).
struct PlanArg {
  Expr value;
  std::optional<ScalarType> type;
  SourceLoc loc;
};

/// A constexpr parameter's value in a Triton plan (`constexpr BLOCK=128`):
/// an integer, a float or a bool.
struct ConstexprDecl {
  std::string name;
  SourceLoc loc;
  llvm::json::Value value = nullptr;
};

/// What a Triton kernel line gives besides the grid: its block is
/// 32 * num_warps threads and its shared memory what Triton allocates, both
/// known once it is compiled (lowerTritonPlan).
struct TritonLaunch {
  unsigned numWarps = 4, numStages = 3;
  std::vector<ConstexprDecl> constexprs;
};

struct KernelDecl {
  std::string name;
  SourceLoc loc;
  std::array<Expr, 3> grid, block, cluster;
  bool hasCluster = false;
  Expr smem;
  std::vector<PlanArg> args;
  bool hasArgs = false;
  /// Set for the kernel of a Triton plan.
  std::optional<TritonLaunch> triton;
};

enum class Swizzle { None, B32, B64, B128 };
enum class Interleave { None, B16, B32 };
enum class L2Promotion { None, B64, B128, B256 };
enum class OobFill { Zero, NaN };
/// When the harness zeroes a workspace: never (`workspace w bytes=N`), before
/// every launch of the plan, inside the timed launch (`zero`), or once when
/// it is allocated, untimed (`zero=once`: the kernels must leave it zeroed,
/// like self-resetting semaphores; the output checks after the timed runs
/// catch a kernel that does not).
enum class ZeroFill { None, EveryLaunch, Once };

struct TensorMapDecl {
  std::string name;
  std::string tensor;
  SourceLoc loc, tensorLoc;
  /// Box sizes in the tensor's shape order (outermost first).
  std::vector<Expr> box;
  Swizzle swizzle = Swizzle::None;
  Interleave interleave = Interleave::None;
  L2Promotion l2 = L2Promotion::None;
  OobFill oob = OobFill::Zero;
  /// A Triton descriptor's block_shape, as written: Triton splits a block
  /// into boxes of its choosing (lowerTritonPlan puts them here), so a
  /// size may pass 256.
  bool blockShape = false;
};

struct WorkspaceDecl {
  std::string name;
  SourceLoc loc;
  Expr bytes;
  ZeroFill zero = ZeroFill::None;
};

struct LaunchPlan {
  std::string file;
  /// Written in a Triton submission (`# @ptxbench` lines of a .py file):
  /// one kernel, with num_warps, num_stages and constexprs instead of a
  /// block and shared memory.
  bool triton = false;
  std::vector<KernelDecl> kernels;
  std::vector<TensorMapDecl> tensorMaps;
  std::vector<WorkspaceDecl> workspaces;
};

/// The most bytes the `// @ptxbench` lines of one submission may hold (a
/// real plan has a few hundred).
constexpr size_t kMaxPlanBytes = size_t(64) << 10;

/// Whether `fileName` names a Triton submission (`.py`), whose plan lines
/// are `# @ptxbench` comments.
bool isTritonSource(llvm::StringRef fileName);

/// Reads every `// @ptxbench` line of `source` (`# @ptxbench` when
/// `fileName` is a Triton submission), refusing the plan past
/// kMaxPlanBytes. The error holds every mistake of the plan, one
/// `file:line:col: error: ...` line each.
llvm::Expected<LaunchPlan> parseLaunchPlan(llvm::StringRef source,
                                           llvm::StringRef fileName);

/// What `plan` asks the harness to do, as one text: every declaration in
/// order, expressions in their canonical form, options spelled out, and no
/// file positions. Two plans with the same text launch the same way.
std::string normalizedPlan(const LaunchPlan &plan);

//===----------------------------------------------------------------------===//
// A plan evaluated for one workload
//===----------------------------------------------------------------------===//

struct ResolvedArg {
  enum class Kind { Tensor, Workspace, TensorMap, Scalar } kind;
  /// Index into the task's tensors, the plan's workspaces or tensor maps.
  unsigned index = 0;
  ScalarType type = ScalarType::I32;
  int64_t value = 0;
};

struct ResolvedKernel {
  std::string name;
  std::array<uint32_t, 3> grid, block, cluster;
  bool hasCluster = false;
  uint32_t smem = 0;
  std::vector<ResolvedArg> args;
};

struct ResolvedTensorMap {
  std::string name;
  unsigned tensor = 0;
  std::vector<uint32_t> box; // outermost first
  Swizzle swizzle;
  Interleave interleave;
  L2Promotion l2;
  OobFill oob;
};

struct ResolvedWorkspace {
  std::string name;
  uint64_t bytes = 0;
  ZeroFill zero = ZeroFill::None;
};

struct ResolvedPlan {
  std::vector<ResolvedKernel> kernels;
  std::vector<ResolvedTensorMap> tensorMaps;
  std::vector<ResolvedWorkspace> workspaces;
};

/// The most scratch a plan may ask for at a workload whose tensors take
/// `tensorBytes`: 4 times that, at least 1 GiB.
inline uint64_t workspaceLimit(uint64_t tensorBytes) {
  return std::max<uint64_t>(uint64_t(1) << 30, 4 * tensorBytes);
}

/// Checks names against `task` and evaluates every expression with
/// `params` (one workload's shape parameters). Also checks the limits the
/// driver would reject less clearly (dimension ranges, box sizes, rank)
/// and the plan's workspaces against workspaceLimit. The error holds every
/// mistake, one `file:line:col: error: ...` line each.
llvm::Expected<ResolvedPlan> resolveLaunchPlan(const LaunchPlan &plan,
                                               const Task &task,
                                               const Bindings &params);

//===----------------------------------------------------------------------===//
// A plan against the compiled module and the task, before any GPU
//===----------------------------------------------------------------------===//

/// A kernel of the compiled module as a plan needs to know it: its name and
/// the size in bytes of each parameter (0 where it is not known).
struct ModuleKernel {
  std::string name;
  std::vector<uint64_t> paramBytes;
};

/// Holds the plan's kernels against the module's: every kernel is defined
/// there (an error names the ones that are), and with `resolved` the plan
/// passes as many arguments as each kernel takes, each of the kernel's
/// size. Every mistake at once.
llvm::Error checkPlanKernels(const LaunchPlan &plan,
                             const ResolvedPlan *resolved,
                             llvm::ArrayRef<ModuleKernel> kernels);

} // namespace ptxbench::runtime

#endif // PTXBENCH_TASK_LAUNCHPLAN_H
