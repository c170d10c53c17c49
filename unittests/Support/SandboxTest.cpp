//===- SandboxTest.cpp - A child that sandboxed itself reaches nothing else ===//
//
// Each test forks a child that applies a policy to itself and then tries
// what a hostile submission would: read a file outside its folders (also
// through a symbolic link and `..`), write into a read-only folder, make
// an IP socket, connect or bind a TCP socket it made before, start a
// program, trace itself, set up io_uring. The child reports each errno
// over a pipe; the parent holds them to what the policy allows.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Support/Sandbox.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <arpa/inet.h>
#include <cerrno>
#include <fcntl.h>
#include <functional>
#include <netinet/in.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace ptxbench;

namespace {

/// A temporary folder with `allowed/`, `outside/secret.txt`, `out/` and a
/// link `allowed/link` to the secret, removed at the end.
struct Tree {
  llvm::SmallString<128> root;
  Tree() {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("ptxbench-sandbox", root));
    for (const char *dir : {"allowed", "outside", "out"})
      llvm::sys::fs::create_directory(path(dir));
    write("allowed/ok.txt", "fine");
    write("outside/secret.txt", "hunter2");
    EXPECT_FALSE(llvm::sys::fs::create_link(path("outside/secret.txt"),
                                            path("allowed/link")));
  }
  ~Tree() { llvm::sys::fs::remove_directories(root); }
  std::string path(llvm::StringRef relative) const {
    llvm::SmallString<128> p(root);
    llvm::sys::path::append(p, relative);
    return std::string(p);
  }
  void write(llvm::StringRef relative, llvm::StringRef text) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path(relative), ec);
    os << text;
  }
};

/// Runs `body` in a forked child after applySandbox(policy); returns what
/// the child reported, `name=errno` per line, or `apply=<message>`.
llvm::StringMap<std::string>
inSandbox(const SandboxPolicy &policy,
          const std::function<void(int report)> &body,
          const std::function<void()> &before = {}) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    if (before)
      before();
    auto applied = applySandbox(policy, SandboxMode::Require);
    if (!applied) {
      std::string line = "apply=" + llvm::toString(applied.takeError()) + "\n";
      (void)!::write(fds[1], line.data(), line.size());
      _exit(0);
    }
    body(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof(buf))) > 0;)
    text.append(buf, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status)) << "the child died: " << status;
  llvm::StringMap<std::string> results;
  for (llvm::StringRef line : llvm::split(text, '\n')) {
    auto [name, value] = line.split('=');
    if (!name.empty())
      results[name] = value.str();
  }
  return results;
}

/// Reports `name=0` when `rc` is not negative, else `name=<errno name>`.
void report(int fd, const char *name, long rc) {
  int error = rc < 0 ? errno : 0;
  std::string line = std::string(name) + "=" +
                     (error == 0        ? "0"
                      : error == EACCES ? "EACCES"
                      : error == EPERM  ? "EPERM"
                                        : std::to_string(error)) +
                     "\n";
  (void)!::write(fd, line.data(), line.size());
}

bool supported(std::string &why) {
  SandboxState state = probeSandbox();
  why = state.missing;
  return state.missing.empty();
}

TEST(SandboxTest, FilesOutsideThePolicyCannotBeOpened) {
  if (std::string why; !supported(why))
    GTEST_SKIP() << why;
  Tree tree;
  SandboxPolicy policy;
  // A path that does not exist is left out, not an error.
  policy.readable = {tree.path("allowed"), tree.path("missing/folder")};
  policy.writable = {tree.path("out")};
  auto results = inSandbox(policy, [&](int fd) {
    report(fd, "read_allowed", open(tree.path("allowed/ok.txt").c_str(),
                                    O_RDONLY));
    report(fd, "read_outside", open(tree.path("outside/secret.txt").c_str(),
                                    O_RDONLY));
    report(fd, "read_link", open(tree.path("allowed/link").c_str(), O_RDONLY));
    report(fd, "read_dotdot",
           open(tree.path("allowed/../outside/secret.txt").c_str(), O_RDONLY));
    report(fd, "list_outside",
           open(tree.path("outside").c_str(), O_RDONLY | O_DIRECTORY));
    report(fd, "write_readonly",
           open(tree.path("allowed/ok.txt").c_str(), O_WRONLY));
    report(fd, "create_readonly",
           open(tree.path("allowed/new.txt").c_str(), O_WRONLY | O_CREAT, 0600));
    report(fd, "create_out",
           open(tree.path("out/new.txt").c_str(), O_WRONLY | O_CREAT, 0600));
    report(fd, "read_etc", open("/etc/passwd", O_RDONLY));
  });
  ASSERT_EQ(results.lookup("apply"), "");
  EXPECT_EQ(results.lookup("read_allowed"), "0");
  EXPECT_EQ(results.lookup("read_outside"), "EACCES");
  EXPECT_EQ(results.lookup("read_link"), "EACCES");
  EXPECT_EQ(results.lookup("read_dotdot"), "EACCES");
  EXPECT_EQ(results.lookup("list_outside"), "EACCES");
  EXPECT_EQ(results.lookup("write_readonly"), "EACCES");
  EXPECT_EQ(results.lookup("create_readonly"), "EACCES");
  EXPECT_EQ(results.lookup("create_out"), "0");
  EXPECT_EQ(results.lookup("read_etc"), "EACCES");
}

TEST(SandboxTest, NoNetworkNoProgramsNoTracing) {
  if (std::string why; !supported(why))
    GTEST_SKIP() << why;
  // A listening TCP socket of the parent's, and a socket the child makes
  // before its sandbox: Landlock (ABI 4 and newer) refuses its connect.
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr *>(&address),
                 sizeof(address)),
            0);
  ASSERT_EQ(listen(listener, 1), 0);
  socklen_t length = sizeof(address);
  getsockname(listener, reinterpret_cast<sockaddr *>(&address), &length);
  int early = -1, earlyBind = -1;
  SandboxPolicy policy;
  auto results = inSandbox(
      policy,
      [&](int fd) {
        report(fd, "inet", socket(AF_INET, SOCK_STREAM, 0));
        report(fd, "inet6", socket(AF_INET6, SOCK_DGRAM, 0));
        report(fd, "packet", socket(AF_PACKET, SOCK_RAW, 0));
        report(fd, "unix", socket(AF_UNIX, SOCK_STREAM, 0));
        int pair[2];
        report(fd, "socketpair", socketpair(AF_UNIX, SOCK_STREAM, 0, pair));
        report(fd, "connect",
               connect(early, reinterpret_cast<sockaddr *>(&address),
                       sizeof(address)));
        sockaddr_in any = {};
        any.sin_family = AF_INET;
        any.sin_port = htons(0);
        report(fd, "bind",
               bind(earlyBind, reinterpret_cast<sockaddr *>(&any), sizeof(any)));
        char *argv[] = {const_cast<char *>("/bin/true"), nullptr};
        report(fd, "execve", execve("/bin/true", argv, environ));
        report(fd, "ptrace", ptrace(PTRACE_TRACEME, 0, nullptr, nullptr));
        report(fd, "io_uring", syscall(SYS_io_uring_setup, 1, nullptr));
      },
      [&] {
        early = socket(AF_INET, SOCK_STREAM, 0);
        earlyBind = socket(AF_INET, SOCK_STREAM, 0);
      });
  close(listener);
  ASSERT_EQ(results.lookup("apply"), "");
  EXPECT_EQ(results.lookup("inet"), "EPERM");
  EXPECT_EQ(results.lookup("inet6"), "EPERM");
  EXPECT_EQ(results.lookup("packet"), "EPERM");
  EXPECT_EQ(results.lookup("unix"), "EPERM");
  EXPECT_EQ(results.lookup("socketpair"), "EPERM");
  if (probeSandbox().landlockNetwork) {
    EXPECT_EQ(results.lookup("connect"), "EACCES");
    EXPECT_EQ(results.lookup("bind"), "EACCES");
  }
  EXPECT_EQ(results.lookup("execve"), "EPERM");
  EXPECT_EQ(results.lookup("ptrace"), "EPERM");
  EXPECT_EQ(results.lookup("io_uring"), "EPERM");
}

TEST(SandboxTest, UnixSocketsWhenAllowed) {
  if (std::string why; !supported(why))
    GTEST_SKIP() << why;
  SandboxPolicy policy;
  policy.unixSockets = true;
  auto results = inSandbox(policy, [&](int fd) {
    report(fd, "unix", socket(AF_UNIX, SOCK_STREAM, 0));
    report(fd, "inet", socket(AF_INET, SOCK_STREAM, 0));
  });
  ASSERT_EQ(results.lookup("apply"), "");
  EXPECT_EQ(results.lookup("unix"), "0");
  EXPECT_EQ(results.lookup("inet"), "EPERM");
}

TEST(SandboxTest, RefusedOnceThreadsRun) {
  if (std::string why; !supported(why))
    GTEST_SKIP() << why;
  SandboxPolicy policy;
  // The thread would stay outside the sandbox: applying is an error.
  auto results = inSandbox(
      policy, [](int) {},
      [] { std::thread([] { pause(); }).detach(); });
  EXPECT_NE(results.lookup("apply").find("threads"), std::string::npos)
      << results.lookup("apply");
}

TEST(SandboxTest, ModeFromEnvironment) {
  setenv("PTXBENCH_SANDBOX", "require", 1);
  unsetenv("PTXBENCH_WORKER_SANDBOX");
  EXPECT_EQ(*sandboxModeFromEnvironment(), SandboxMode::Require);
  setenv("PTXBENCH_WORKER_SANDBOX", "off", 1);
  EXPECT_EQ(*sandboxModeFromEnvironment(/*worker=*/true), SandboxMode::Off);
  EXPECT_EQ(*sandboxModeFromEnvironment(), SandboxMode::Require);
  setenv("PTXBENCH_SANDBOX", "maybe", 1);
  auto bad = sandboxModeFromEnvironment();
  ASSERT_FALSE(bad);
  EXPECT_NE(llvm::toString(bad.takeError()).find("PTXBENCH_SANDBOX"),
            std::string::npos);
  unsetenv("PTXBENCH_SANDBOX");
  unsetenv("PTXBENCH_WORKER_SANDBOX");
  EXPECT_EQ(*sandboxModeFromEnvironment(), SandboxMode::Auto);
}

} // namespace
