//===- ReferenceServerTest.cpp - Python references for a sandboxed process ===//
//
// The reference server against the real child (build/bin/ptxbench
// reference-child and its driver script, python3 with torch on the CPU):
// it computes what a direct call computes; it serves a process that has
// closed itself off so far that it could not start the child itself (the
// reason the GPU worker uses it); errors and a dead server come back as
// errors, never as outputs.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Reference/ReferenceServer.h"

#include "ptxbench/Support/Sandbox.h"

#include "llvm/Support/Program.h"
#include "gtest/gtest.h"

#include <csignal>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

using namespace ptxbench;
using namespace ptxbench::reference;

namespace {

/// The block-scaled GEMM at M=2, N=130, K=200: every a and b element 1.0
/// (e4m3 0x38), a_scale 1 and b_scale 0.5, so every c is 200 * 0.5 = 100.
struct SmallGemm {
  runtime::Task task;
  runtime::Bindings params{{"M", 2}, {"N", 130}, {"K", 200}};
  std::vector<std::string> inputs;

  SmallGemm() {
    auto t = runtime::loadTask(PTXBENCH_SOURCE_DIR
                               "/tasks/gemm_fp8_blockscale_n7168_k2048");
    EXPECT_TRUE(!!t) << llvm::toString(t.takeError());
    task = std::move(*t);
    auto floats = [](size_t n, float v) {
      std::string s(n * 4, '\0');
      for (size_t i = 0; i < n; ++i)
        std::memcpy(&s[i * 4], &v, 4);
      return s;
    };
    inputs = {std::string(2 * 200, '\x38'), floats(2 * 2, 1.0f),
              std::string(130 * 200, '\x38'), floats(2 * 2, 0.5f),
              std::string()};
  }
};

PythonReferenceOptions options() {
  PythonReferenceOptions o;
  o.helper = PTXBENCH_BINARY_DIR "/bin/ptxbench";
  o.seconds = 300;
  return o;
}

bool haveTorch() {
  auto python = llvm::sys::findProgramByName("python3");
  if (!python)
    return false;
  std::string exe = *python;
  return llvm::sys::ExecuteAndWait(exe, {exe, "-c", "import torch"}) == 0;
}

/// Every output value of `out` is `value`.
void expectAll(const PythonReferenceOutputs &out, float value) {
  ASSERT_EQ(out.outputs.size(), 1u);
  EXPECT_EQ(out.outputs[0].tensor, 4);
  ASSERT_EQ(out.outputs[0].values.size(), 2u * 130);
  for (float v : out.outputs[0].values)
    ASSERT_EQ(v, value);
}

TEST(ReferenceServerTest, ComputesWhatTheChildComputes) {
  if (!haveTorch())
    GTEST_SKIP() << "no torch for python3: the reference child cannot run";
  SmallGemm g;
  auto server = ReferenceServer::start(g.task, options());
  ASSERT_TRUE(!!server) << llvm::toString(server.takeError());
  // Twice: the server keeps answering.
  for (int i = 0; i < 2; ++i) {
    auto out = (*server)->compute(g.params, g.inputs);
    ASSERT_TRUE(!!out) << llvm::toString(out.takeError());
    expectAll(*out, 100.0f);
    EXPECT_FALSE(out->torchVersion.empty());
  }
  auto direct = runPythonReference(g.task, g.params, g.inputs, options());
  ASSERT_TRUE(!!direct) << llvm::toString(direct.takeError());
  expectAll(*direct, 100.0f);
}

TEST(ReferenceServerTest, ServesAProcessThatCannotStartPrograms) {
  if (!haveTorch())
    GTEST_SKIP() << "no torch for python3: the reference child cannot run";
  SmallGemm g;
  // In a child of the test: start the server, then close the process off
  // (nothing may be started, nothing written); the server still computes,
  // a direct call cannot.
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto server = ReferenceServer::start(g.task, options());
    if (!server)
      _exit(10);
    SandboxPolicy policy;
    policy.readable = {"/"};
    auto state = applySandbox(policy, SandboxMode::Require);
    if (!state)
      _exit(11);
    auto out = (*server)->compute(g.params, g.inputs);
    if (!out || out->outputs.size() != 1 || out->outputs[0].values[0] != 100)
      _exit(12);
    auto direct = runPythonReference(g.task, g.params, g.inputs, options());
    if (direct)
      _exit(13);
    llvm::consumeError(direct.takeError());
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 11)
    GTEST_SKIP() << "this kernel cannot sandbox a process (no Landlock or "
                    "seccomp)";
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "10: no server, 12: the server did not compute, 13: the sandboxed "
         "process started the child itself";
}

TEST(ReferenceServerTest, ErrorsComeBackAsErrors) {
  SmallGemm g;
  PythonReferenceOptions o = options();
  o.python = "/nonexistent/python3";
  auto server = ReferenceServer::start(g.task, o);
  ASSERT_TRUE(!!server) << llvm::toString(server.takeError());
  auto out = (*server)->compute(g.params, g.inputs);
  ASSERT_FALSE(!!out);
  std::string message = llvm::toString(out.takeError());
  EXPECT_NE(message.find("/nonexistent/python3"), std::string::npos)
      << message;
}

TEST(ReferenceServerTest, AGoneServerIsAnError) {
  SmallGemm g;
  auto server = ReferenceServer::start(g.task, options());
  ASSERT_TRUE(!!server) << llvm::toString(server.takeError());
  ASSERT_EQ(kill((*server)->pid(), SIGKILL), 0);
  auto out = (*server)->compute(g.params, g.inputs);
  ASSERT_FALSE(!!out);
  EXPECT_NE(llvm::toString(out.takeError()).find("the reference server is gone"),
            std::string::npos);
}

} // namespace
