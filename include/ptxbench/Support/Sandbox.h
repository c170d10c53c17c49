//===- Sandbox.h - A child process closes itself off from the host -*- C++ -*-===//
//
// The processes that handle a submission (the NVRTC compile child and the
// GPU worker) call applySandbox() on themselves right after they start and
// before any thread does: Linux Landlock confines the file system to the
// paths of a Policy (read-only, read-write, device nodes) and, where the
// kernel's Landlock has it, denies every TCP bind and connect, abstract
// UNIX sockets and signals outside the process; a seccomp filter then
// refuses sockets of any family but AF_UNIX (or all of them), ptrace and
// the other process-inspection calls, new program images (execve; unless
// the policy names programs it may start, which Landlock then limits), new
// namespaces and mounts, io_uring (whose requests seccomp cannot see), BPF
// and kernel keyrings. Both are inherited by any process it starts and
// cannot be lifted.
//
// The system calls are made directly (no libseccomp). A kernel without
// Landlock, or one built without seccomp filters, is told apart from a
// refusal: under SandboxMode::Auto the process goes on with what the
// kernel has and the parent says so once (noteSandboxFallbackOnce);
// SandboxMode::Require makes that an error.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_SUPPORT_SANDBOX_H
#define PTXBENCH_SUPPORT_SANDBOX_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace ptxbench {

enum class SandboxMode {
  /// Apply what the kernel supports; go on without the rest.
  Auto,
  /// Fail when Landlock's file-system rules or the seccomp filter cannot
  /// be applied.
  Require,
  /// Apply nothing.
  Off,
};

/// The mode named by the environment variable PTXBENCH_SANDBOX ("auto",
/// the default, "require" or "off"); with `worker`, PTXBENCH_WORKER_SANDBOX
/// ("off") turns the GPU worker's sandbox off on its own. An unknown value
/// is an error naming the variable.
llvm::Expected<SandboxMode> sandboxModeFromEnvironment(bool worker = false);

/// What a sandboxed process may still reach. Paths that do not exist are
/// left out; a path may name a folder (everything beneath it) or one file.
struct SandboxPolicy {
  /// Open for reading, list, and map (libraries).
  std::vector<std::string> readable;
  /// As readable, and write, create, rename and remove beneath.
  std::vector<std::string> writable;
  /// Device nodes (or folders of them): read, write and ioctl.
  std::vector<std::string> devices;
  /// Programs the process may start (read and execute). With none,
  /// execve is refused outright (seccomp); with some, Landlock alone
  /// decides, so without Landlock any program could start.
  std::vector<std::string> executable;
  /// AF_UNIX sockets (the CUDA driver may talk to its daemons through
  /// them); every other family is refused either way.
  bool unixSockets = false;
};

/// What applySandbox() put in place.
struct SandboxState {
  /// The Landlock ABI enforced; 0 when none is.
  int landlockAbi = 0;
  /// TCP bind and connect are denied by Landlock (ABI 4 and newer).
  bool landlockNetwork = false;
  /// Abstract UNIX sockets and signals are scoped (ABI 6 and newer).
  bool landlockScoped = false;
  bool seccomp = false;
  /// What the kernel lacks, one line; empty when nothing.
  std::string missing;
  /// "landlock ABI 7 (files, TCP, scoped), seccomp" or "off".
  std::string describe() const;
};

/// Restricts the calling process to `policy`. It must have one thread
/// (Landlock binds the calling thread and those it starts later); that is
/// checked. Under SandboxMode::Off nothing is applied and the state says
/// "off".
llvm::Expected<SandboxState> applySandbox(const SandboxPolicy &policy,
                                          SandboxMode mode);

/// What this kernel would enforce, probed without restricting anything.
SandboxState probeSandbox();

/// Prints one line to `os`, the first time only in this process, when
/// `mode` is Auto and the kernel lacks part of the sandbox, or when it is
/// Off; nothing otherwise.
void noteSandboxFallbackOnce(SandboxMode mode, llvm::raw_ostream &os);

/// Read-only paths every sandboxed ptxbench child needs to run: the
/// system's library folders, the dynamic loader's cache and
/// configuration, and the folders of LD_LIBRARY_PATH.
std::vector<std::string> systemLibraryPaths();

} // namespace ptxbench

#endif // PTXBENCH_SUPPORT_SANDBOX_H
