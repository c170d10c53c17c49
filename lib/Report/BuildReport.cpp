//===- BuildReport.cpp - Analyze a ptx.module into a report ---------------===//
//
// Glues the analyses and the toolchain together. Verdicts start from the
// feature analysis (used / missing / unreachable) and are lowered to
// Verdict::Serialized when ptxas or the fallback analysis says the kernel's
// wgmma runs serialized. ptxas messages that name no kernel go to the only kernel
// when there is one, else to the module.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Report/BuildReport.h"

#include "ptxbench/Analysis/FallbackAnalysis.h"
#include "ptxbench/Analysis/FeatureAnalysis.h"
#include "ptxbench/Analysis/InstructionAccess.h"
#include "ptxbench/Analysis/Reachability.h"
#include "ptxbench/Analysis/TargetCheck.h"
#include "ptxbench/Toolchain/Assembler.h"
#include "ptxbench/Toolchain/Sass.h"

#include "llvm/ADT/StringExtras.h"

using namespace ptxbench;
using namespace ptxbench::report;
using llvm::StringRef;

namespace {

std::optional<SourceLocation> toSource(std::optional<mlir::FileLineColLoc> loc) {
  if (!loc)
    return std::nullopt;
  return SourceLocation{loc->getFilename().str(), loc->getLine(),
                        loc->getColumn()};
}

/// The PTX location of `op`: the first FileLineColLoc of its location.
std::optional<SourceLocation> ptxLocation(mlir::Operation *op) {
  mlir::Location loc = op->getLoc();
  if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc))
    loc = fused.getLocations().front();
  if (auto file = llvm::dyn_cast<mlir::FileLineColLoc>(loc))
    return toSource(file);
  return std::nullopt;
}

/// The source (CUDA or Triton) location of `op`, fused after the PTX one
/// under `.loc`.
std::optional<SourceLocation> cudaLocation(mlir::Operation *op) {
  return toSource(analysis::cudaLocation(op->getLoc()));
}

Verdict toVerdict(analysis::RequestStatus status) {
  switch (status) {
  case analysis::RequestStatus::Used:
    return Verdict::Used;
  case analysis::RequestStatus::Missing:
    return Verdict::Missing;
  case analysis::RequestStatus::Unreachable:
    return Verdict::Unreachable;
  }
  return Verdict::Missing;
}

Finding fromPtxas(const toolchain::PtxasMessage &message, StringRef file) {
  Finding finding;
  finding.level = message.severity == toolchain::PtxasMessage::Severity::Error
                      ? Finding::Level::Error
                  : message.severity == toolchain::PtxasMessage::Severity::Warning
                      ? Finding::Level::Warning
                      : Finding::Level::Note;
  StringRef kind = toolchain::classifyPtxasMessage(message);
  finding.kind = kind.empty() ? "ptxas" : ("ptxas-" + kind).str();
  if (!kind.empty() && finding.level == Finding::Level::Note)
    finding.level = Finding::Level::Warning; // a performance loss
  finding.message = message.code.empty()
                        ? message.text
                        : "(" + message.code + ") " + message.text;
  if (message.ptxLine)
    finding.ptx = SourceLocation{file.str(), message.ptxLine, 0};
  return finding;
}

void assemble(AnalysisReport &report, StringRef ptx,
              const AnalyzeOptions &options,
              toolchain::AssembledModule &module) {
  if (!toolchain::canAssemble()) {
    report.assemblyNote = "not assembled: no ptxas and no nvJitLink";
    return;
  }
  module = toolchain::assemblePTX(ptx, options.arch, report.file);
  report.assembled = module.ok;
  if (!module.ok)
    report.assemblyNote = "ptxas rejected the module for " + options.arch;
  else if (module.assembler == "nvJitLink")
    report.assemblyNote = "assembled by nvJitLink as relocatable code (no "
                          "ptxas found): setmaxnreg is ignored there and "
                          "register counts may differ from the JIT's";
  for (const toolchain::PtxasMessage &message : module.log.messages) {
    Finding finding = fromPtxas(message, report.file);
    KernelReport *kernel = nullptr;
    for (KernelReport &k : report.kernels)
      if (k.name == message.kernel ||
          (message.kernel.empty() && report.kernels.size() == 1))
        kernel = &k;
    if (kernel && finding.level != Finding::Level::Error)
      kernel->ptxasWarnings.push_back(std::move(finding));
    else
      report.moduleFindings.push_back(std::move(finding));
  }
  for (KernelReport &kernel : report.kernels)
    if (const toolchain::KernelResources *resources =
            module.log.kernel(kernel.name))
      kernel.resources = *resources;
}

void checkSass(AnalysisReport &report,
               const toolchain::AssembledModule &module) {
  if (!report.assembled) {
    report.sassNote = "no machine code to check: the module did not assemble";
    return;
  }
  std::optional<std::string> nvdisasm = toolchain::findNvdisasm();
  if (!nvdisasm) {
    report.sassNote = "nvdisasm not found (install PyPI's nvidia-cuda-nvdisasm "
                      "or set PTXBENCH_NVDISASM); SASS not checked";
    return;
  }
  llvm::Expected<toolchain::SassListing> listing =
      toolchain::disassemble(module.cubin, *nvdisasm);
  if (!listing) {
    report.sassNote = llvm::toString(listing.takeError());
    return;
  }
  report.sassChecked = true;
  for (KernelReport &kernel : report.kernels) {
    const toolchain::SassFunction *function = listing->function(kernel.name);
    // Families without SASS opcodes in the ISA table cannot be confirmed
    // in machine code; they keep no `sass` count.
    for (FamilyUse &use : kernel.features) {
      std::optional<isa::Family> family = isa::familyByName(use.family);
      if (family && toolchain::hasSassSignature(*family))
        use.sass = function ? toolchain::sassCount(*function, *family) : 0;
    }
    // A requested family the PTX uses but the machine code does not show.
    for (auto &[name, verdict] : kernel.requested) {
      if (verdict != Verdict::Used)
        continue;
      for (const FamilyUse &use : kernel.features)
        if (use.family == name && use.sass && *use.sass == 0) {
          Finding finding;
          finding.kind = "sass-missing";
          finding.message = "'" + name + "' is in the PTX of '" + kernel.name +
                            "' but no instruction of it is in the machine code";
          kernel.ptxasWarnings.push_back(finding);
        }
    }
  }
}

} // namespace

std::optional<Requirement> ptxbench::report::parseRequirement(StringRef name) {
  std::optional<llvm::SmallVector<isa::Family, 2>> families =
      isa::familiesOfRequirement(name);
  if (!families)
    return std::nullopt;
  return Requirement{name.str(), std::move(*families)};
}

AnalysisReport ptxbench::report::buildReport(ptx::ModuleOp module,
                                             StringRef ptx, StringRef file,
                                             const AnalyzeOptions &options) {
  AnalysisReport report;
  report.file = file.str();
  report.arch = options.arch;
  llvm::SmallVector<isa::Family> requestedFamilies;
  for (const Requirement &r : options.requested) {
    report.requested.push_back(r.name);
    requestedFamilies.append(r.families.begin(), r.families.end());
  }

  analysis::Reachability reachability(module);
  analysis::FeatureAnalysis features(module, reachability);
  for (const analysis::TargetViolation &violation :
       analysis::checkTargets(module))
    report.moduleFindings.push_back({Finding::Level::Error, "target",
                                     violation.message, "",
                                     ptxLocation(violation.op),
                                     cudaLocation(violation.op)});
  // The harness refuses calls into the device runtime (docs/harness.md):
  // malloc keeps a heap between launches, device launches run work outside
  // the timed launch. printf and assert are fine.
  module.walk([&](ptx::CallOp call) {
    for (mlir::Attribute arg : call.getArgs()) {
      auto sym = llvm::dyn_cast<ptx::SymOperandAttr>(arg);
      if (!sym)
        continue;
      auto callee = module.lookupSymbol<ptx::FuncOp>(sym.getName().getValue());
      StringRef name = sym.getName().getValue();
      if (!callee || !callee.isExternal() || name == "vprintf" ||
          name == "__assertfail")
        continue;
      report.moduleFindings.push_back(
          {Finding::Level::Error, "device-runtime-call",
           ("calls '" + name +
            "', which the harness refuses: device-side malloc/free would keep "
            "a heap from one launch to the next and device-side launches "
            "would run work outside the timed launch; declare the memory as "
            "a workspace in the launch plan (docs/launch-plan.md) and launch "
            "every kernel from the plan")
               .str(),
           "", ptxLocation(call), cudaLocation(call)});
      break;
    }
  });
  analysis::FallbackOptions fallbackOptions;
  fallbackOptions.f32Accumulate = options.f32Accumulate;
  llvm::SmallVector<analysis::Fallback> fallbacks = analysis::detectFallbacks(
      module, reachability, requestedFamilies, fallbackOptions);

  for (const analysis::FeatureAnalysis::Kernel &kernel : features.kernels()) {
    ptx::FuncOp func = kernel.kernel;
    KernelReport &out = report.kernels.emplace_back();
    out.name = func.getSymName().str();
    for (const analysis::FamilyUse &use : kernel.features.families)
      out.features.push_back({isa::familyName(use.family).str(), use.count(),
                              use.reachable(), std::nullopt});
    // Alternatives: the best verdict of any of them.
    for (const Requirement &r : options.requested) {
      Verdict best = Verdict::Missing;
      for (isa::Family family : r.families) {
        Verdict v = toVerdict(features.status(kernel, family));
        if (v == Verdict::Used ||
            (v == Verdict::Unreachable && best == Verdict::Missing))
          best = v;
      }
      out.requested.emplace_back(r.name, best);
    }
    for (const analysis::Fallback &fallback : fallbacks) {
      if (fallback.kernel != func)
        continue;
      out.fallbacks.push_back({Finding::Level::Warning,
                               analysis::fallbackKindName(fallback.kind).str(),
                               fallback.message, fallback.alternative,
                               toSource(fallback.ptxLoc()),
                               toSource(fallback.cudaLoc())});
    }
  }

  toolchain::AssembledModule assembled;
  if (options.assemble)
    assemble(report, ptx, options, assembled);
  else
    report.assemblyNote = "not assembled (--no-assemble)";

  // wgmma that runs serialized gains nothing: lower its verdict.
  for (KernelReport &kernel : report.kernels) {
    bool serialized =
        llvm::any_of(kernel.fallbacks,
                     [](const Finding &f) { return f.kind == "wgmma-serialized"; }) ||
        llvm::any_of(kernel.ptxasWarnings, [](const Finding &f) {
          return f.kind == "ptxas-wgmma-serialized";
        });
    for (auto &[name, verdict] : kernel.requested)
      if (name == "wgmma" && verdict == Verdict::Used && serialized)
        verdict = Verdict::Serialized;
  }

  if (options.sass)
    checkSass(report, assembled);
  else
    report.sassNote = "SASS not checked (use --sass)";
  return report;
}
