//===- TargetCheck.cpp - Instructions against .version/.target ------------===//
//
// An instruction with architecture-specific targets (wgmma: sm_90a) runs only
// on an `a`/`f` target of one of those SMs; any other runs on its minimum
// SM or newer. Every instruction needs its minimum PTX ISA version.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Analysis/TargetCheck.h"
#include "ptxbench/Analysis/InstructionAccess.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace ptxbench;
using namespace ptxbench::analysis;

std::optional<Target> Target::of(ptx::ModuleOp module) {
  Target target;
  auto names = module.getTarget().getAsValueRange<StringAttr>();
  auto it = llvm::find_if(
      names, [](StringRef name) { return name.starts_with("sm_"); });
  if (it == names.end())
    return std::nullopt;
  StringRef name = *it;
  target.name = name.str();
  StringRef digits = name.drop_front(3);
  if (digits.ends_with("a") || digits.ends_with("f")) {
    target.suffix = digits.back();
    digits = digits.drop_back();
  }
  if (digits.getAsInteger(10, target.sm))
    return std::nullopt;
  auto [major, minor] = module.getVersion().split('.');
  unsigned ma, mi;
  if (major.getAsInteger(10, ma) || minor.getAsInteger(10, mi) || mi > 9)
    return std::nullopt;
  target.ptxVersion = ma * 10 + mi;
  return target;
}

namespace {
std::string versionString(unsigned version) {
  return llvm::formatv("{0}.{1}", version / 10, version % 10).str();
}
} // namespace

SmallVector<TargetViolation, 2>
analysis::checkInstruction(ptx::InstructionOpInterface op,
                           const Target &target) {
  SmallVector<TargetViolation, 2> out;
  const isa::InstrInfo *info = instrInfo(op);
  if (!info)
    return out;
  auto add = [&](TargetViolation::Kind kind, std::string message) {
    out.push_back({kind, op.getOperation(), info, std::move(message)});
  };
  if (target.ptxVersion < info->minPTX)
    add(TargetViolation::PTXVersion,
        llvm::formatv("{0} needs PTX ISA {1}; module is {2}", info->mnemonic,
                      versionString(info->minPTX),
                      versionString(target.ptxVersion)));
  if (info->isArchSpecific()) {
    if (target.isArchSpecific() &&
        llvm::is_contained(info->archSpecificSM, target.sm))
      return out;
    SmallVector<std::string> names;
    for (uint16_t sm : info->archSpecificSM)
      names.push_back(llvm::formatv("sm_{0}a", sm).str());
    add(TargetViolation::ArchSpecificTarget,
        llvm::formatv("{0} requires an architecture-specific target {1}{2}; "
                      "module targets {3}",
                      info->mnemonic, names.size() > 1 ? "(one of) " : "",
                      llvm::join(names, ", "), target.name));
    return out;
  }
  if (target.sm < info->minSM)
    add(TargetViolation::MinimumTarget,
        llvm::formatv("{0} requires sm_{1} or newer; module targets {2}",
                      info->mnemonic, info->minSM, target.name));
  return out;
}

SmallVector<TargetViolation> analysis::checkTargets(ptx::ModuleOp module) {
  SmallVector<TargetViolation> out;
  std::optional<Target> target = Target::of(module);
  if (!target)
    return out;
  module.walk([&](ptx::InstructionOpInterface op) {
    for (TargetViolation &violation : checkInstruction(op, *target))
      out.push_back(std::move(violation));
  });
  return out;
}
