//===- StaticEval.cpp - A sample's static verdict, without a GPU ----------===//
//
// The same flow as `ptxbench analyze` (tools/ptxbench/AnalyzeCommand.cpp),
// with every failure recorded on the sample instead of printed.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/StaticEval.h"

#include "ptxbench/Dialect/PTX/Transforms/CanonicalForm.h"
#include "ptxbench/Conversion/ImportPTX.h"
#include "ptxbench/Run/ModuleKernels.h"
#include "ptxbench/Prompt/ExtractCode.h"
#include "ptxbench/Report/BuildReport.h"
#include "ptxbench/Runtime/TritonPlan.h"
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
  /// A Triton sample's lowered plan, or its plan's mistakes, and what
  /// Triton compiled.
  std::optional<runtime::LaunchPlan> lowered;
  std::string planError;
  std::optional<toolchain::TritonKernelBuild> build;
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
    StringRef path = input.solutionPath;
    record.language = path.ends_with(".cu")                ? "cu"
                      : runtime::isTritonSource(path)      ? "py"
                                                           : "ptx";
    return true;
  }
  if (input.responsePath.empty()) {
    record.status = status::NoSolution;
    record.error = "the sample's folder holds no solution.cu, solution.ptx, "
                   "solution.py or response.md";
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
  record.language = prompt::languageWord(code->language).str();
  return true;
}

/// The compiler's messages as the record keeps them.
static std::string messagesJson(
    llvm::ArrayRef<toolchain::CompilerMessage> messages) {
  llvm::json::Array out;
  for (const toolchain::CompilerMessage &m : messages)
    out.push_back(llvm::json::Object{{"file", m.file},
                                     {"line", int64_t(m.line)},
                                     {"column", int64_t(m.column)},
                                     {"error", m.error},
                                     {"text", m.text}});
  return llvm::formatv("{0}", llvm::json::Value(std::move(out))).str();
}

bool StaticEvaluator::prepare(SampleRecord &record,
                              const StaticOptions &options) {
  Impl &s = *impl;
  s.module = nullptr;
  s.kernels.clear();
  s.lowered.reset();
  s.planError.clear();
  s.build.reset();
  std::string name = record.sourceName();
  s.ptxName = record.language == "ptx" ? name : name + ".ptx";
  if (record.language == "py") {
    if (!prepareTriton(record, options))
      return false;
  } else if (record.language == "cu") {
    toolchain::CompiledSource compiled = toolchain::compileCUDA(
        record.code, name, options.arch, options.compileLimits);
    // Each message names its file (the submission or a toolkit header),
    // never a folder of this host.
    record.diagnosticsJson = messagesJson(compiled.messages);
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
  record.canonicalHash = ptx::canonicalHash(*s.module);
  s.kernels = run::moduleKernels(*s.module);
  return true;
}

llvm::ArrayRef<runtime::ModuleKernel> StaticEvaluator::kernels() const {
  return impl->kernels;
}

llvm::StringRef StaticEvaluator::ptx() const { return impl->ptx; }

llvm::Expected<runtime::LaunchPlan>
StaticEvaluator::plan(const SampleRecord &record) const {
  if (record.language != "py")
    return runtime::parseLaunchPlan(record.code, record.sourceName());
  if (impl->lowered)
    return *impl->lowered;
  return llvm::createStringError(impl->planError.empty()
                                     ? "the Triton kernel was not compiled"
                                     : impl->planError);
}

std::string StaticEvaluator::tritonBuildJson() const {
  if (!impl->build)
    return "";
  return llvm::formatv("{0}", toolchain::toJSON(*impl->build)).str();
}

bool StaticEvaluator::hasPlanError() const {
  return !impl->planError.empty();
}

bool StaticEvaluator::prepareTriton(SampleRecord &record,
                                    const StaticOptions &options) {
  Impl &s = *impl;
  std::string name = record.sourceName();
  if (!options.task || options.compileLimits.helper.empty()) {
    record.status = status::TaskError;
    record.error = "a Triton sample compiles against its task in the "
                   "compile child; neither was given";
    return false;
  }
  toolchain::TritonLimits limits;
  limits.helper = options.compileLimits.helper;
  limits.seconds = options.compileLimits.seconds;
  limits.memoryMB = options.compileLimits.memoryMB;
  runtime::TritonBuild build = runtime::buildTriton(
      record.code, name, options.arch, *options.task, limits);
  const toolchain::CompiledTriton &c = build.compiled;
  record.diagnosticsJson = messagesJson(c.messages);
  s.planError = build.planError;
  s.lowered = std::move(build.lowered);
  if (c.ok) {
    s.ptx = c.ptx;
    s.build = c.build;
    return true;
  }
  bool refused = c.stage == toolchain::TritonStage::Gate ||
                 c.stage == toolchain::TritonStage::Refused;
  record.status = refused ? status::Refused : status::CompileError;
  if (!build.planError.empty())
    record.error = "'" + name + "' was not compiled: its launch plan does "
                   "not fit (PLAN_ERROR): " +
                   StringRef(build.planError).split('\n').first.str();
  else if (refused)
    record.error = "'" + name + "' is refused (" +
                   toolchain::tritonStageName(c.stage).str() +
                   "): a Triton answer is @triton.jit kernels only";
  else
    record.error = "'" + name + "' does not compile for " + options.arch;
  if (c.timedOut)
    record.error += " (COMPILE_TIMEOUT)";
  for (const toolchain::CompilerMessage &m : c.messages) {
    record.error += ": line " + std::to_string(m.line) + ": " + m.text;
    break;
  }
  if (c.messages.empty() && build.planError.empty() && !c.log.empty())
    record.error += ": " + StringRef(c.log).trim().str();
  return false;
}

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
