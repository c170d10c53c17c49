//===- CompileCommand.cpp - ptxbench compile-cuda (internal) --------------===//
//
// `ptxbench compile-cuda --arch A --name N [--memory-mb M] IN.cu OUT.json`:
// the child process in which `run`, `analyze` and `eval` compile a
// submission with NVRTC, so that the caller can stop it at the compile time
// limit, its memory is limited and it runs sandboxed
// (toolchain::runCompileChild).
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ptxbench/Toolchain/CudaCompiler.h"

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

} // namespace

cli::Command cli::compileCommand() { return {compileCmd, runCompile}; }
