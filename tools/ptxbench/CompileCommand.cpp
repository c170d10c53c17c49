//===- CompileCommand.cpp - ptxbench compile-cuda, compile-triton ---------===//
//
// `ptxbench compile-cuda --arch A --name N [--memory-mb M] IN.cu OUT.json`:
// the child process in which `run`, `analyze` and `eval` compile a
// submission with NVRTC, so that the caller can stop it at the compile time
// limit, its memory is limited and it runs sandboxed
// (toolchain::runCompileChild). `ptxbench compile-triton --workdir D
// --python P --driver S`: the same for a Triton submission, which becomes
// the Python interpreter on ptxbench's driver once it has limited and
// sandboxed itself (toolchain::runTritonCompileChild).
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ptxbench/Toolchain/CudaCompiler.h"
#include "ptxbench/Toolchain/TritonCompiler.h"

using namespace llvm;
using namespace ptxbench;

namespace {

cl::SubCommand compileCmd("compile-cuda",
                          "(internal) Compile CUDA C++ with NVRTC in a "
                          "process of its own, for run, analyze and eval");
cl::opt<std::string> compileArch("arch", cl::desc("Target (sm_90a)"),
                                 cl::Required, cl::sub(compileCmd));
cl::opt<std::string> compileName("name",
                                 cl::desc("The source's name in messages"),
                                 cl::Required, cl::sub(compileCmd));
cl::opt<uint64_t> compileMemory("memory-mb",
                                cl::desc("Data memory limit in MiB (0: none)"),
                                cl::init(0), cl::sub(compileCmd));
cl::opt<bool> compileNoIncludeCheck(
    "no-include-check",
    cl::desc("Leave the includes to the sandbox alone (a test of it)"),
    cl::Hidden, cl::sub(compileCmd));
cl::opt<std::string> compileInput(cl::Positional, cl::desc("<input.cu>"),
                                  cl::Required, cl::sub(compileCmd));
cl::opt<std::string> compileOutput(cl::Positional, cl::desc("<output.json>"),
                                   cl::Required, cl::sub(compileCmd));

int runCompile() {
  return toolchain::runCompileChild(compileInput, compileName, compileArch,
                                    compileMemory, compileOutput,
                                    !compileNoIncludeCheck);
}

cl::SubCommand tritonCmd("compile-triton",
                         "(internal) Compile a Triton submission in a "
                         "process of its own, for run, analyze and eval");
cl::opt<std::string> tritonWorkdir("workdir",
                                   cl::desc("The compile's temporary folder"),
                                   cl::Required, cl::sub(tritonCmd));
cl::opt<std::string> tritonPython("python", cl::desc("The interpreter"),
                                  cl::Required, cl::sub(tritonCmd));
cl::list<std::string> tritonSearchPath(
    "search-path", cl::desc("A folder the interpreter imports from"),
    cl::sub(tritonCmd));
cl::opt<std::string> tritonDriver("driver",
                                  cl::desc("ptxbench-triton.py"),
                                  cl::Required, cl::sub(tritonCmd));
cl::opt<uint64_t> tritonMemory("memory-mb",
                               cl::desc("Data memory limit in MiB (0: none)"),
                               cl::init(0), cl::sub(tritonCmd));
cl::opt<unsigned> tritonCpu("cpu-seconds",
                            cl::desc("CPU time limit in seconds (0: none)"),
                            cl::init(0), cl::sub(tritonCmd));

cl::opt<bool> tritonNoGate("no-gate",
                           cl::desc("Leave out the driver's source check (a "
                                    "test of the layers behind it)"),
                           cl::Hidden, cl::sub(tritonCmd));
cl::opt<bool> tritonNoHook("no-hook",
                           cl::desc("Leave out the driver's audit hook (a "
                                    "test of the sandbox)"),
                           cl::Hidden, cl::sub(tritonCmd));

int runTritonCompile() {
  std::vector<std::string> searchPath(tritonSearchPath.begin(),
                                      tritonSearchPath.end());
  return toolchain::runTritonCompileChild(tritonWorkdir, tritonPython,
                                          searchPath, tritonDriver,
                                          tritonMemory,
                                          tritonCpu, !tritonNoGate,
                                          !tritonNoHook);
}

} // namespace

cli::Command cli::compileCommand() { return {compileCmd, runCompile}; }
cli::Command cli::tritonCompileCommand() {
  return {tritonCmd, runTritonCompile};
}
