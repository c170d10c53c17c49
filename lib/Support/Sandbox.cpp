//===- Sandbox.cpp - Landlock and seccomp applied by a child to itself ----===//
//
// Landlock's constants and structures are written out here (the system's
// <linux/landlock.h> may predate the ABI the kernel has); the ruleset
// handles every right the running kernel's ABI knows, so whatever the
// rules do not grant is denied. A rule is added through an O_PATH
// descriptor of its path, and a file (not a folder) may only be granted
// the rights that apply to files. The seccomp program checks the
// architecture first (a 32-bit or x32 system call would bypass a filter
// written for the native numbers), then the denied calls, then the socket
// family. Both need no_new_privs, which is set first.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Support/Sandbox.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <mutex>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

using namespace ptxbench;
using llvm::StringRef;

namespace {

//===----------------------------------------------------------------------===//
// Landlock
//===----------------------------------------------------------------------===//

namespace landlock {
// File-system rights, ABI 1 unless noted.
constexpr uint64_t Execute = 1ull << 0, WriteFile = 1ull << 1,
                   ReadFile = 1ull << 2, ReadDir = 1ull << 3,
                   RemoveDir = 1ull << 4, RemoveFile = 1ull << 5,
                   MakeDir = 1ull << 7, MakeReg = 1ull << 8,
                   Refer = 1ull << 13,    // ABI 2
                   Truncate = 1ull << 14, // ABI 3
                   IoctlDev = 1ull << 15; // ABI 5
// Network rights (ABI 4) and scopes (ABI 6).
constexpr uint64_t BindTcp = 1ull << 0, ConnectTcp = 1ull << 1;
constexpr uint64_t ScopeAbstractUnix = 1ull << 0, ScopeSignal = 1ull << 1;
constexpr unsigned CreateRulesetVersion = 1u << 0;
constexpr int RulePathBeneath = 1;

struct RulesetAttr {
  uint64_t handledFs;
  uint64_t handledNet;
  uint64_t scoped;
};
struct __attribute__((packed)) PathBeneathAttr {
  uint64_t allowed;
  int32_t parentFd;
};

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

/// The right a file (not a folder) may be granted.
constexpr uint64_t FileRights = Execute | WriteFile | ReadFile | Truncate |
                                IoctlDev;

/// Every file-system right of `abi`.
uint64_t handledFs(int abi) {
  uint64_t all = (1ull << 13) - 1; // ABI 1: EXECUTE .. MAKE_SYM
  if (abi >= 2)
    all |= Refer;
  if (abi >= 3)
    all |= Truncate;
  if (abi >= 5)
    all |= IoctlDev;
  return all;
}

/// The kernel's Landlock ABI, or -errno (ENOSYS: none; EOPNOTSUPP:
/// disabled at boot).
int abiVersion() {
  long abi = syscall(__NR_landlock_create_ruleset, nullptr, 0,
                     CreateRulesetVersion);
  return abi < 0 ? -errno : int(abi);
}

std::string unavailable(int error) {
  if (error == -ENOSYS)
    return "this kernel has no Landlock";
  if (error == -EOPNOTSUPP)
    return "Landlock is disabled in this kernel (not in its lsm= list)";
  return "Landlock is refused here (" + std::string(strerror(-error)) +
         "; a container's seccomp profile?)";
}
} // namespace landlock

/// Adds a rule granting `rights` beneath `path` (or to the file). A path
/// that cannot be opened (missing, or out of this user's reach) is skipped:
/// the process could not use it anyway.
llvm::Error addPathRule(int ruleset, const std::string &path, uint64_t rights,
                        uint64_t handled) {
  int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0)
    return llvm::Error::success();
  struct stat st;
  bool folder = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
  landlock::PathBeneathAttr rule;
  rule.allowed = rights & handled & (folder ? ~0ull : landlock::FileRights);
  rule.parentFd = fd;
  long rc = rule.allowed ? syscall(__NR_landlock_add_rule, ruleset,
                                   landlock::RulePathBeneath, &rule, 0)
                         : 0;
  int error = errno;
  close(fd);
  if (rc < 0)
    return llvm::createStringError("sandbox: cannot add a rule for " + path +
                                   ": " + strerror(error));
  return llvm::Error::success();
}

/// Restricts the process to `policy` with Landlock ABI `abi`.
llvm::Error applyLandlock(const SandboxPolicy &policy, int abi,
                          SandboxState &state) {
  using namespace landlock;
  landlock::RulesetAttr attr = {};
  attr.handledFs = handledFs(abi);
  if (abi >= 4)
    attr.handledNet = BindTcp | ConnectTcp;
  if (abi >= 6)
    attr.scoped = ScopeAbstractUnix | ScopeSignal;
  int ruleset = int(syscall(__NR_landlock_create_ruleset, &attr,
                            sizeof(attr), 0));
  if (ruleset < 0)
    return llvm::createStringError(
        std::string("sandbox: landlock_create_ruleset: ") + strerror(errno));
  const uint64_t read = ReadFile | ReadDir;
  const uint64_t write = read | WriteFile | RemoveDir | RemoveFile | MakeDir |
                         MakeReg | Refer | Truncate;
  const uint64_t device = ReadFile | ReadDir | WriteFile | IoctlDev;
  auto addAll = [&](const std::vector<std::string> &paths,
                    uint64_t rights) -> llvm::Error {
    for (const std::string &path : paths)
      if (llvm::Error e = addPathRule(ruleset, path, rights, attr.handledFs))
        return e;
    return llvm::Error::success();
  };
  llvm::Error e = addAll(policy.readable, read);
  if (!e)
    e = addAll(policy.writable, write);
  if (!e)
    e = addAll(policy.devices, device);
  if (!e)
    e = addAll(policy.executable, read | Execute);
  if (!e && syscall(__NR_landlock_restrict_self, ruleset, 0) < 0)
    e = llvm::createStringError(
        std::string("sandbox: landlock_restrict_self: ") + strerror(errno));
  close(ruleset);
  if (e)
    return e;
  state.landlockAbi = abi;
  state.landlockNetwork = abi >= 4;
  state.landlockScoped = abi >= 6;
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// seccomp
//===----------------------------------------------------------------------===//

#if defined(__x86_64__)
constexpr uint32_t nativeArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr uint32_t nativeArch = AUDIT_ARCH_AARCH64;
#else
constexpr uint32_t nativeArch = 0;
#endif

/// The system calls a sandboxed process never needs: other processes'
/// memory and descriptors, new program images, namespaces and mounts,
/// io_uring (its socket and open requests bypass this filter), BPF, the
/// kernel's keyrings and modules, userfaultfd, and opening files by handle
/// (which skips the path Landlock checks). TCP needs no call of its own:
/// no socket of an IP family can be made.
std::vector<long> deniedCalls(const SandboxPolicy &policy) {
  std::vector<long> calls = {
      SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev,
      SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot, SYS_unshare,
      SYS_setns, SYS_bpf, SYS_keyctl, SYS_add_key, SYS_request_key,
      SYS_init_module, SYS_finit_module, SYS_delete_module,
      SYS_kexec_load, SYS_userfaultfd, SYS_open_by_handle_at,
      SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register,
  };
#ifdef SYS_kexec_file_load
  calls.push_back(SYS_kexec_file_load);
#endif
#ifdef SYS_pidfd_getfd
  calls.push_back(SYS_pidfd_getfd);
#endif
#ifdef SYS_fsopen
  for (long call : {SYS_fsopen, SYS_fsmount, SYS_fsconfig, SYS_move_mount,
                    SYS_open_tree})
    calls.push_back(call);
#endif
  if (policy.executable.empty()) {
    calls.push_back(SYS_execve);
    calls.push_back(SYS_execveat);
  }
  return calls;
}

llvm::Error applySeccomp(const SandboxPolicy &policy, SandboxState &state) {
  const uint32_t deny = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
  std::vector<sock_filter> program;
  auto stmt = [&](uint16_t code, uint32_t k) {
    program.push_back(BPF_STMT(code, k));
  };
  auto jump = [&](uint16_t code, uint32_t k, uint8_t yes, uint8_t no) {
    program.push_back(BPF_JUMP(code, k, yes, no));
  };
  stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch));
  jump(BPF_JMP | BPF_JEQ | BPF_K, nativeArch, 1, 0);
  stmt(BPF_RET | BPF_K, deny);
  stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr));
#if defined(__x86_64__)
  // x32 calls are the native numbers with bit 30 set.
  jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);
  stmt(BPF_RET | BPF_K, deny);
#endif
  for (long call : deniedCalls(policy)) {
    jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(call), 0, 1);
    stmt(BPF_RET | BPF_K, deny);
  }
  // socket() and socketpair(): AF_UNIX at most. The family is the first
  // argument's low word (both architectures are little-endian).
  for (long call : {SYS_socket, SYS_socketpair}) {
    jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(call), 0, 4);
    stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0]));
    jump(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1);
    stmt(BPF_RET | BPF_K, policy.unixSockets ? SECCOMP_RET_ALLOW : deny);
    stmt(BPF_RET | BPF_K, deny);
  }
  stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  sock_fprog prog = {uint16_t(program.size()), program.data()};
  long rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                    SECCOMP_FILTER_FLAG_TSYNC, &prog);
  if (rc < 0 && errno == ENOSYS)
    rc = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
  if (rc != 0)
    return llvm::createStringError(std::string("sandbox: seccomp: ") +
                                   strerror(errno));
  state.seccomp = true;
  return llvm::Error::success();
}

/// Whether seccomp filters can be installed here, probed without one.
bool seccompAvailable() {
  return nativeArch != 0 && prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
}

/// The threads of this process; 0 when /proc cannot say.
unsigned threadCount() {
  DIR *dir = opendir("/proc/self/task");
  if (!dir)
    return 0;
  unsigned n = 0;
  while (dirent *entry = readdir(dir))
    if (entry->d_name[0] != '.')
      ++n;
  closedir(dir);
  return n;
}

} // namespace

std::string SandboxState::describe() const {
  if (!landlockAbi && !seccomp)
    return "off";
  std::vector<std::string> parts;
  if (landlockAbi) {
    std::string scope = "files";
    if (landlockNetwork)
      scope += ", TCP";
    if (landlockScoped)
      scope += ", scoped";
    parts.push_back(llvm::formatv("landlock ABI {0} ({1})", landlockAbi, scope)
                        .str());
  }
  if (seccomp)
    parts.push_back("seccomp");
  return llvm::join(parts, ", ");
}

llvm::Expected<SandboxMode> ptxbench::sandboxModeFromEnvironment(bool worker) {
  if (worker)
    if (const char *w = getenv("PTXBENCH_WORKER_SANDBOX"); w && *w) {
      StringRef value(w);
      if (value == "off")
        return SandboxMode::Off;
      if (value != "on")
        return llvm::createStringError(
            "PTXBENCH_WORKER_SANDBOX is '" + value + "'; expected off or on");
    }
  const char *v = getenv("PTXBENCH_SANDBOX");
  StringRef value = v ? StringRef(v) : StringRef();
  if (value.empty() || value == "auto")
    return SandboxMode::Auto;
  if (value == "require")
    return SandboxMode::Require;
  if (value == "off")
    return SandboxMode::Off;
  return llvm::createStringError("PTXBENCH_SANDBOX is '" + value +
                                 "'; expected auto, require or off");
}

SandboxState ptxbench::probeSandbox() {
  SandboxState state;
  int abi = landlock::abiVersion();
  std::vector<std::string> missing;
  if (abi > 0) {
    state.landlockAbi = abi;
    state.landlockNetwork = abi >= 4;
    state.landlockScoped = abi >= 6;
  } else {
    missing.push_back(landlock::unavailable(abi));
  }
  state.seccomp = seccompAvailable();
  if (!state.seccomp)
    missing.push_back("no seccomp filters");
  state.missing = llvm::join(missing, "; ");
  return state;
}

llvm::Expected<SandboxState>
ptxbench::applySandbox(const SandboxPolicy &policy, SandboxMode mode) {
  SandboxState state;
  if (mode == SandboxMode::Off)
    return state;
  if (unsigned threads = threadCount(); threads > 1)
    return llvm::createStringError(
        llvm::formatv("sandbox: the process already runs {0} threads; it "
                      "must be applied before any starts",
                      threads)
            .str());
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return llvm::createStringError(
        std::string("sandbox: PR_SET_NO_NEW_PRIVS: ") + strerror(errno));
  // Under Auto, a part the kernel refuses is left out and said.
  std::vector<std::string> missing;
  auto failed = [&](llvm::Error e) -> llvm::Error {
    if (mode == SandboxMode::Require)
      return e;
    missing.push_back(llvm::toString(std::move(e)));
    return llvm::Error::success();
  };
  int abi = landlock::abiVersion();
  if (abi > 0) {
    if (llvm::Error e = applyLandlock(policy, abi, state))
      if (llvm::Error kept = failed(std::move(e)))
        return std::move(kept);
  } else {
    missing.push_back(landlock::unavailable(abi));
  }
  if (seccompAvailable()) {
    if (llvm::Error e = applySeccomp(policy, state))
      if (llvm::Error kept = failed(std::move(e)))
        return std::move(kept);
  } else {
    missing.push_back("no seccomp filters");
  }
  state.missing = llvm::join(missing, "; ");
  if (mode == SandboxMode::Require && !state.missing.empty())
    return llvm::createStringError(
        "sandbox required (PTXBENCH_SANDBOX=require) but " + state.missing);
  return state;
}

void ptxbench::noteSandboxFallbackOnce(SandboxMode mode,
                                       llvm::raw_ostream &os) {
  static std::once_flag once;
  std::call_once(once, [&] {
    if (mode == SandboxMode::Off) {
      os << "ptxbench: sandbox off (PTXBENCH_SANDBOX=off): compiles and GPU "
            "workers can read the host's files\n";
      return;
    }
    SandboxState state = probeSandbox();
    if (mode == SandboxMode::Auto && !state.missing.empty())
      os << "ptxbench: sandbox: " << state.missing
         << "; compiles and GPU workers run with " << state.describe()
         << " only (PTXBENCH_SANDBOX=require refuses instead)\n";
  });
}

std::vector<std::string> ptxbench::systemLibraryPaths() {
  std::vector<std::string> paths = {
      "/lib",           "/lib32",          "/lib64",
      "/libx32",        "/usr/lib",        "/usr/lib32",
      "/usr/lib64",     "/usr/libx32",     "/usr/local/lib",
      "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d"};
  if (const char *list = getenv("LD_LIBRARY_PATH"))
    for (StringRef dir : llvm::split(StringRef(list), ':'))
      if (dir.starts_with("/"))
        paths.push_back(dir.str());
  return paths;
}
