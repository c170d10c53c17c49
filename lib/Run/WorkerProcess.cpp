//===- WorkerProcess.cpp - The worker a run supervises --------------------===//
//
// The order matters: everything the worker reads of the submission is read
// and a Python reference's server is forked while the worker is one thread
// and may still start programs and write anywhere; then it closes itself
// off, and only then does the driver start.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Run/WorkerProcess.h"

#include "ptxbench/Reference/PythonReference.h"
#include "ptxbench/Reference/ReferenceServer.h"
#include "ptxbench/Runtime/TritonPlan.h"
#include "ptxbench/Support/TempFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace ptxbench;
using namespace ptxbench::runtime;

int run::runWorkerProcess(const Task &task, StringRef taskPath,
                          StringRef tritonBuild, StringRef helper,
                          ArrayRef<Workload> workloads, WorkerOptions options) {
  auto buffer = MemoryBuffer::getFile(options.solutionPath);
  if (!buffer)
    return 2;
  StringRef source = (*buffer)->getBuffer();
  auto plan = submissionPlan(source, options.solutionPath, task, tritonBuild);
  if (!plan) {
    consumeError(plan.takeError());
    return 2;
  }
  // A Python reference: its folder made and its server started now; the
  // server stays outside the worker's sandbox.
  support::TempFolder referenceDir;
  if (task.python) {
    reference::PythonReferenceOptions ref;
    ref.helper = helper.str();
    ref.device = reference::Device::CUDA;
    if (auto folder = support::TempFolder::create("worker-reference")) {
      referenceDir = std::move(*folder);
      ref.tempDir = referenceDir.path();
    } else {
      consumeError(folder.takeError());
    }
    // Without a server the reference's operator says so per workload.
    if (auto server = reference::ReferenceServer::start(task, ref))
      options.referenceServer = std::move(*server);
    else
      errs() << "ptxbench run: " << toString(server.takeError()) << "\n";
  }
  if (auto sandbox = sandboxWorker(options, taskPath))
    options.sandbox =
        sandbox->describe() +
        (sandbox->missing.empty() ? "" : " (" + sandbox->missing + ")");
  else
    options.sandboxError = toString(sandbox.takeError());
  return runWorker(task, *plan, source, workloads, options);
}
