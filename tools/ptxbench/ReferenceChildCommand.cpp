//===- ReferenceChildCommand.cpp - ptxbench reference-child ---------------===//
//
// `ptxbench reference-child --workdir D --python P --driver S --device
// cpu|cuda` (internal): the contained process a task's Python reference is
// computed in (reference::runReferenceChild). It never returns when it
// starts the interpreter; when it cannot, the reason is in D/result.json.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ptxbench/Reference/PythonReference.h"

using namespace llvm;
using namespace ptxbench;

namespace {

cl::SubCommand childCmd("reference-child",
                        "(internal) Compute a task's Python reference in a "
                        "process of its own");
cl::opt<std::string> workdir("workdir", cl::desc("The child's folder"),
                             cl::Required, cl::sub(childCmd));
cl::opt<std::string> python("python", cl::desc("The interpreter"), cl::Required,
                            cl::sub(childCmd));
cl::list<std::string> searchPath("search-path",
                                 cl::desc("A folder the interpreter imports "
                                          "from"),
                                 cl::sub(childCmd));
cl::opt<std::string> driver("driver", cl::desc("ptxbench-reference.py"),
                            cl::Required, cl::sub(childCmd));
cl::opt<std::string> device("device", cl::desc("cpu or cuda"), cl::init("cpu"),
                            cl::sub(childCmd));
cl::opt<uint64_t> memory("memory-mb",
                         cl::desc("Data memory limit in MiB (0: none)"),
                         cl::init(0), cl::sub(childCmd));
cl::opt<unsigned> cpu("cpu-seconds",
                      cl::desc("CPU time limit in seconds (0: none)"),
                      cl::init(0), cl::sub(childCmd));

int runChild() {
  if (device != "cpu" && device != "cuda")
    return cli::fail("reference-child", "--device: expected cpu or cuda");
  std::vector<std::string> path(searchPath.begin(), searchPath.end());
  return reference::runReferenceChild(workdir, python, path, driver,
                                      device == "cuda" ? reference::Device::CUDA
                                                       : reference::Device::CPU,
                                      memory, cpu);
}

} // namespace

cli::Command cli::referenceChildCommand() { return {childCmd, runChild}; }
