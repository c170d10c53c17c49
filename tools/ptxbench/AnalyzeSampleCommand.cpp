//===- AnalyzeSampleCommand.cpp - ptxbench analyze-sample (internal) ------===//
//
// `ptxbench analyze-sample [--memory-mb M] REQUEST.json OUTCOME.json`: the
// child process in which `eval` and `generate` run one sample's static
// stage (eval::runStaticStageChild), so that a crash, a hang or runaway
// memory there ends this process and not the sweep.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ptxbench/Eval/StaticStage.h"

using namespace llvm;
using namespace ptxbench;

namespace {

cl::SubCommand analyzeSampleCmd("analyze-sample",
                                "(internal) One sample's static stage in a "
                                "process of its own, for eval and generate");
cl::opt<uint64_t> sampleMemory("memory-mb",
                               cl::desc("Data memory limit in MiB (0: none)"),
                               cl::init(0), cl::sub(analyzeSampleCmd));
cl::opt<std::string> sampleRequest(cl::Positional,
                                   cl::desc("<request.json>"), cl::Required,
                                   cl::sub(analyzeSampleCmd));
cl::opt<std::string> sampleOutcome(cl::Positional,
                                   cl::desc("<outcome.json>"), cl::Required,
                                   cl::sub(analyzeSampleCmd));

int runAnalyzeSample() {
  return eval::runStaticStageChild(sampleRequest, sampleOutcome,
                                   sampleMemory);
}

} // namespace

cli::Command cli::analyzeSampleCommand() {
  return {analyzeSampleCmd, runAnalyzeSample};
}
