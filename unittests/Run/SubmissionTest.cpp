//===- SubmissionTest.cpp - run::runSubmission's parent side --------------===//
//
// What a run does before any worker starts, and how often: a .cu
// submission is compiled by NVRTC and assembled by ptxas once per call, and
// not at all when a static stage's PTX is handed in; the plan check, a
// failed compile and bad options end the run as their statuses say. On a
// machine without a GPU the run stops after the plan check (NO_GPU); with
// one, the smallest workload runs without baseline or counts, and the
// counters hold the same.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Run/Submission.h"

#include "ptxbench/Support/TempFile.h"
#include "ptxbench/Task/Task.h"
#include "ptxbench/Toolchain/Assembler.h"
#include "ptxbench/Toolchain/CudaCompiler.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace ptxbench;
using namespace ptxbench::runtime;

namespace {

const std::string taskDir =
    std::string(PTXBENCH_SOURCE_DIR) + "/tasks/rmsnorm_h4096";
const std::string plainSolution = taskDir + "/solutions/plain.cu";

class SubmissionTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string why;
    if (!toolchain::canCompileCUDA(&why))
      GTEST_SKIP() << "NVRTC does not load: " << why;
    auto loaded = loadTask(taskDir);
    ASSERT_TRUE(bool(loaded)) << llvm::toString(loaded.takeError());
    task = std::move(*loaded);
    options.taskPath = taskDir;
    options.solutionPath = plainSolution;
    options.arch = "sm_90a";
    options.shapes = "dev-t8192";
    options.baseline = false;
    options.featureCounts = false;
    options.helper = std::string(PTXBENCH_BINARY_DIR) + "/bin/ptxbench";
  }

  run::SubmissionRun runIt() {
    std::string out, progress;
    llvm::raw_string_ostream o(out), p(progress);
    auto ran = run::runSubmission(task, options, o, p);
    EXPECT_TRUE(bool(ran)) << llvm::toString(ran.takeError());
    return ran ? std::move(*ran) : run::SubmissionRun();
  }

  static bool hasPhase(const RunResult &run, llvm::StringRef name) {
    for (const Phase &p : run.phases)
      if (p.name == name)
        return true;
    return false;
  }

  Task task;
  run::SubmissionOptions options;
};

TEST_F(SubmissionTest, CompilesAndAssemblesOnce) {
  run::SubmissionRun ran = runIt();
  EXPECT_EQ(ran.compiles, 1u);
  EXPECT_EQ(ran.assemblies, toolchain::findPtxas() ? 1u : 0u);
  EXPECT_TRUE(hasPhase(ran.result, "compile (NVRTC)"));
  ASSERT_EQ(ran.result.workloads.size(), 1u);
  EXPECT_EQ(ran.result.workloads[0].workload, "dev-t8192");
  EXPECT_EQ(ran.result.workloads[0].split, "dev");
  if (ran.noGpu)
    EXPECT_EQ(ran.result.workloads[0].status, Status::NoGpu);
  else
    EXPECT_EQ(ran.result.workloads[0].status, Status::Passed);
}

TEST_F(SubmissionTest, ReusesTheStaticStagesPtx) {
  auto source = llvm::MemoryBuffer::getFile(plainSolution);
  ASSERT_TRUE(bool(source));
  toolchain::CompileLimits limits;
  limits.helper = options.helper;
  toolchain::CompiledSource compiled = toolchain::compileCUDA(
      (*source)->getBuffer(), "plain.cu", "sm_90a", limits);
  ASSERT_TRUE(compiled.ok) << compiled.log;
  auto ptx = support::TempFile::write("test", "ptx", compiled.ptx);
  ASSERT_TRUE(bool(ptx)) << llvm::toString(ptx.takeError());
  options.compiledPtx = ptx->path();
  run::SubmissionRun ran = runIt();
  EXPECT_EQ(ran.compiles, 0u);
  EXPECT_TRUE(hasPhase(ran.result, "compile (reused the static stage's PTX)"));
  EXPECT_FALSE(hasPhase(ran.result, "compile (NVRTC)"));
}

TEST_F(SubmissionTest, APlanMistakeEndsTheRunBeforeAssembly) {
  auto source = llvm::MemoryBuffer::getFile(plainSolution);
  ASSERT_TRUE(bool(source));
  std::string text = (*source)->getBuffer().str();
  size_t at = text.find("args x, w, y, T");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 15, "args x, w, q, T");
  auto folder = support::TempFolder::create("test");
  ASSERT_TRUE(bool(folder));
  std::string path = folder->path() + "/wrong_arg.cu";
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << text;
  }
  options.solutionPath = path;
  run::SubmissionRun ran = runIt();
  ASSERT_EQ(ran.result.workloads.size(), 1u);
  EXPECT_EQ(ran.result.workloads[0].status, Status::PlanError);
  EXPECT_NE(ran.result.workloads[0].message.find("unknown name 'q'"),
            std::string::npos)
      << ran.result.workloads[0].message;
  EXPECT_EQ(ran.compiles, 1u);
  EXPECT_EQ(ran.assemblies, 0u);
  EXPECT_FALSE(ran.noGpu);
}

TEST_F(SubmissionTest, ACompileErrorIsEveryWorkloadsStatus) {
  auto folder = support::TempFolder::create("test");
  ASSERT_TRUE(bool(folder));
  std::string path = folder->path() + "/broken.cu";
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << "// @ptxbench kernel k grid=T block=32\n"
          "// @ptxbench   args x, w, y, T\n"
          "extern \"C\" __global__ void k(int *x) { undeclared(); }\n";
  }
  options.solutionPath = path;
  options.shapes = "dev";
  run::SubmissionRun ran = runIt();
  ASSERT_EQ(ran.result.workloads.size(), 2u);
  for (const WorkloadResult &r : ran.result.workloads) {
    EXPECT_EQ(r.status, Status::CompileError);
    EXPECT_NE(r.message.find("NVRTC (sm_90a) failed"), std::string::npos)
        << r.message;
  }
  EXPECT_EQ(ran.compiles, 1u);
  EXPECT_EQ(ran.assemblies, 0u);
}

TEST_F(SubmissionTest, BadOptionsAreErrorsNotResults) {
  std::string out, progress;
  llvm::raw_string_ostream o(out), p(progress);
  options.arch = "sm_9000";
  auto badArch = run::runSubmission(task, options, o, p);
  ASSERT_FALSE(bool(badArch));
  EXPECT_NE(llvm::toString(badArch.takeError()).find("--arch"),
            std::string::npos);

  options.arch = "sm_90a";
  options.solutionPath = taskDir + "/solutions/no_such_file.cu";
  auto missing = run::runSubmission(task, options, o, p);
  ASSERT_FALSE(bool(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("cannot read"),
            std::string::npos);

  options.solutionPath = plainSolution;
  options.shapes = "no-such-workload";
  auto shapes = run::runSubmission(task, options, o, p);
  ASSERT_FALSE(bool(shapes));
  llvm::consumeError(shapes.takeError());
}

} // namespace
