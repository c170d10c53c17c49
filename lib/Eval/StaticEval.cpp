//===- StaticEval.cpp - A sample's static verdict, without a GPU ----------===//
//
// The same flow as `ptxbench analyze` (tools/ptxbench/AnalyzeCommand.cpp),
// with every failure recorded on the sample instead of printed.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/StaticEval.h"

#include "ptxbench/Analysis/CanonicalForm.h"
#include "ptxbench/Conversion/ImportPTX.h"
#include "ptxbench/Eval/ModuleKernels.h"
#include "ptxbench/Prompt/ExtractCode.h"
#include "ptxbench/Report/BuildReport.h"
#include "ptxbench/Toolchain/CudaCompiler.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>

using namespace ptxbench;
using namespace ptxbench::eval;
using llvm::StringRef;

struct StaticEvaluator::Impl {
  mlir::MLIRContext context;
  mlir::OwningOpRef<ptx::ModuleOp> module;
  std::string ptx, ptxName;
  std::vector<runtime::ModuleKernel> kernels;
  Impl() { context.disableMultithreading(); }
};

StaticEvaluator::StaticEvaluator() : impl(std::make_unique<Impl>()) {}
StaticEvaluator::~StaticEvaluator() = default;

/// The error `ptxbench generate` recorded in generation.json for a request
/// that failed; empty when there is none.
static std::string generationError(StringRef path) {
  if (path.empty())
    return "";
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return "";
  std::optional<llvm::json::Value> gen =
      parseStoredJson((*buffer)->getBuffer());
  const llvm::json::Object *o = gen ? gen->getAsObject() : nullptr;
  if (!o || o->getString("status").value_or("") == "ok")
    return "";
  return o->getString("error").value_or("no reason recorded").str();
}

bool ptxbench::eval::loadGeneration(const SampleInput &input,
                                    SampleRecord &record) {
  uint64_t size = 0;
  if (input.generationPath.empty() ||
      llvm::sys::fs::file_size(input.generationPath, size) || size > (1 << 20))
    return false;
  auto buffer = llvm::MemoryBuffer::getFile(input.generationPath);
  if (!buffer)
    return false;
  std::optional<llvm::json::Value> gen =
      parseStoredJson((*buffer)->getBuffer());
  const llvm::json::Object *o = gen ? gen->getAsObject() : nullptr;
  llvm::StringRef status = o ? o->getString("status").value_or("") : "";
  if (status != "ok" && status != "error")
    return false;
  GenerationUsage u;
  bool answered = status == "ok";
  bool estimated = o->getBoolean("usage_estimated").value_or(false);
  // The answer's usage, then what its failed attempts were charged (a
  // request that failed for good has only those).
  for (const llvm::json::Object *part :
       {answered ? o : nullptr, o->getObject("failed_attempts")}) {
    if (!part)
      continue;
    if (const llvm::json::Object *usage = part->getObject("usage")) {
      auto tokens = [&](llvm::StringRef key) {
        return std::max<int64_t>(0, usage->getInteger(key).value_or(0));
      };
      u.inputTokens += tokens("input");
      u.outputTokens += tokens("output");
      u.reasoningTokens += tokens("reasoning");
      u.cachedTokens += tokens("cached");
    }
    u.costUsd += std::max(0.0, part->getNumber("cost_usd").value_or(0));
    estimated |= part != o; // failed attempts are charged by the estimate
  }
  if (answered)
    u.latencySeconds = std::max(0.0, o->getNumber("latency_s").value_or(0));
  u.source = estimated ? "estimated" : "reported";
  record.generation = std::move(u);
  return true;
}

bool ptxbench::eval::loadSolution(const SampleInput &input,
                                  SampleRecord &record) {
  if (!input.solutionPath.empty()) {
    auto buffer = llvm::MemoryBuffer::getFile(input.solutionPath);
    if (!buffer) {
      record.status = status::NoSolution;
      record.error = "cannot read '" +
                     llvm::sys::path::filename(input.solutionPath).str() +
                     "': " + buffer.getError().message();
      return false;
    }
    record.solutionPath = input.solutionPath;
    record.code = (*buffer)->getBuffer().str();
    record.language =
        StringRef(input.solutionPath).ends_with(".cu") ? "cu" : "ptx";
    return true;
  }
  if (input.responsePath.empty()) {
    record.status = status::NoSolution;
    record.error = "the sample's folder holds no solution.cu, solution.ptx "
                   "or response.md";
    if (std::string why = generationError(input.generationPath); !why.empty())
      record.error += ": the request for it failed: " + why;
    return false;
  }
  auto buffer = llvm::MemoryBuffer::getFile(input.responsePath);
  if (!buffer) {
    record.status = status::NoSolution;
    record.error = "cannot read '" +
                   llvm::sys::path::filename(input.responsePath).str() +
                   "': " + buffer.getError().message();
    return false;
  }
  auto code = prompt::extractCode((*buffer)->getBuffer());
  if (!code) {
    record.status = status::ExtractError;
    record.error = llvm::sys::path::filename(input.responsePath).str() + ": " +
                   toString(code.takeError());
    return false;
  }
  record.solutionPath = input.responsePath;
  record.code = std::move(code->code);
  record.language = code->language == prompt::CodeLanguage::CUDA ? "cu" : "ptx";
  return true;
}

bool StaticEvaluator::prepare(SampleRecord &record,
                              const StaticOptions &options) {
  Impl &s = *impl;
  s.module = nullptr;
  s.kernels.clear();
  std::string name = record.sourceName();
  s.ptxName = record.language == "cu" ? name + ".ptx" : name;
  if (record.language == "cu") {
    toolchain::CompiledSource compiled = toolchain::compileCUDA(
        record.code, name, options.arch, options.compileLimits);
    // Each message names its file (the submission or a toolkit header),
    // never a folder of this host.
    llvm::json::Array messages;
    for (const toolchain::CompilerMessage &m : compiled.messages)
      messages.push_back(llvm::json::Object{{"file", m.file},
                                            {"line", int64_t(m.line)},
                                            {"column", int64_t(m.column)},
                                            {"error", m.error},
                                            {"text", m.text}});
    record.diagnosticsJson =
        llvm::formatv("{0}", llvm::json::Value(std::move(messages))).str();
    if (!compiled.ok) {
      record.status = status::CompileError;
      record.error = "'" + name + "' does not compile for " + options.arch;
      if (compiled.timedOut)
        record.error += " (COMPILE_TIMEOUT)";
      for (const toolchain::CompilerMessage &m : compiled.messages)
        if (m.error) {
          record.error += ": " + m.location() + ": " + m.text;
          break;
        }
      if (compiled.messages.empty() && !compiled.log.empty())
        record.error += ": " + StringRef(compiled.log).trim().str();
      return false;
    }
    s.ptx = std::move(compiled.ptx);
  } else {
    s.ptx = record.code;
  }

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(s.ptx, s.ptxName), llvm::SMLoc());
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  {
    mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &s.context, os);
    s.module = importPTX(sourceMgr, &s.context);
  }
  if (!s.module) {
    record.status = status::ImportError;
    record.error = StringRef(diagnostics).trim().str();
    if (record.error.empty())
      record.error = "'" + s.ptxName + "' does not import";
    return false;
  }
  record.canonicalHash = analysis::canonicalHash(*s.module);
  s.kernels = moduleKernels(*s.module);
  return true;
}

llvm::ArrayRef<runtime::ModuleKernel> StaticEvaluator::kernels() const {
  return impl->kernels;
}

llvm::StringRef StaticEvaluator::ptx() const { return impl->ptx; }

void StaticEvaluator::analyze(SampleRecord &record,
                              const StaticOptions &options) {
  Impl &s = *impl;
  report::AnalyzeOptions analyzeOptions;
  analyzeOptions.arch = options.arch;
  for (const std::string &name : options.requested)
    if (std::optional<report::Requirement> requirement =
            report::parseRequirement(name))
      analyzeOptions.requested.push_back(std::move(*requirement));
  analyzeOptions.assemble = options.assemble;
  analyzeOptions.sass = options.sass;
  analyzeOptions.f32Accumulate = options.f32Accumulate;
  report::AnalysisReport result =
      report::buildReport(*s.module, s.ptx, s.ptxName, analyzeOptions);
  record.staticJson =
      llvm::formatv("{0}", report::toJSON(result)).str();
  record.status = status::Analyzed;
  s.module = nullptr;
}
