//===- ptx-import-bench.cpp - Import and export throughput ----------------===//
//
// Times importing one PTX file into the ptx dialect (parse, build, verify)
// and exporting it back, best of N runs in one process, and reports the
// process's peak memory. bench/import-throughput.py runs it beside ptxas.
//
//   ptx-import-bench FILE [--iterations N]
//
// Prints one JSON object: {"file", "bytes", "import_s", "export_s",
// "peak_rss_kb", "base_rss_kb"}: base is the peak before the first import
// (the process, its libraries and the input), so peak - base is what
// importing and exporting took.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Conversion/ExportPTX.h"
#include "ptxbench/Conversion/ImportPTX.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <sys/resource.h>

using namespace llvm;

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<file.ptx>"));
static cl::opt<unsigned> iterations("iterations", cl::init(3),
                                    cl::desc("Runs; the best is reported"));
static cl::opt<bool> parallelVerify(
    "parallel-verify", cl::desc("Let MLIR verify functions in parallel (as the "
                        "tools do); off by default, to compare with "
                        "single-threaded ptxas"));

int main(int argc, char **argv) {
  InitLLVM y(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "ptx import benchmark\n");
  auto buffer = MemoryBuffer::getFile(inputFile);
  if (!buffer) {
    errs() << "ptx-import-bench: cannot read " << inputFile << "\n";
    return 1;
  }
  auto peakRssKb = [] {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<int64_t>(usage.ru_maxrss);
  };
  int64_t baseRss = peakRssKb();
  using Clock = std::chrono::steady_clock;
  double bestImport = 1e30, bestExport = 1e30;
  for (unsigned i = 0; i < iterations; ++i) {
    mlir::MLIRContext context;
    if (!parallelVerify)
      context.disableMultithreading();
    SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(
        MemoryBuffer::getMemBuffer((*buffer)->getMemBufferRef()), SMLoc());
    auto start = Clock::now();
    mlir::OwningOpRef<ptxbench::ptx::ModuleOp> module =
        ptxbench::importPTX(sourceMgr, &context);
    auto imported = Clock::now();
    if (!module)
      return 1;
    std::string text;
    text.reserve((*buffer)->getBufferSize() * 2);
    raw_string_ostream os(text);
    if (mlir::failed(ptxbench::exportPTX(*module, os)))
      return 1;
    auto exported = Clock::now();
    bestImport = std::min(
        bestImport, std::chrono::duration<double>(imported - start).count());
    bestExport = std::min(
        bestExport, std::chrono::duration<double>(exported - imported).count());
  }
  json::Object result{{"file", inputFile},
                      {"bytes", (int64_t)(*buffer)->getBufferSize()},
                      {"import_s", bestImport},
                      {"export_s", bestExport},
                      {"peak_rss_kb", peakRssKb()},
                      {"base_rss_kb", baseRss}};
  outs() << json::Value(std::move(result)) << "\n";
  return 0;
}
