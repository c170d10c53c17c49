//===- Verdict.cpp - Status and verdict names, their combining rules ------===//
//
// The JSON words of Verdict.h's enums, both ways, and how verdicts combine:
// over workloads the least credit of those measured, over a requirement's
// alternatives the most.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Task/Verdict.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <utility>

using namespace llvm;
using namespace ptxbench::runtime;

static constexpr std::pair<Status, StringLiteral> statusNames[] = {
    {Status::Passed, "PASSED"},
    {Status::Incorrect, "INCORRECT"},
    {Status::Suspicious, "SUSPICIOUS"},
    {Status::CompileError, "COMPILE_ERROR"},
    {Status::CompileTimeout, "COMPILE_TIMEOUT"},
    {Status::PlanError, "PLAN_ERROR"},
    {Status::LaunchError, "LAUNCH_ERROR"},
    {Status::RuntimeError, "RUNTIME_ERROR"},
    {Status::Timeout, "TIMEOUT"},
    {Status::HarnessError, "HARNESS_ERROR"},
    {Status::NoGpu, "NO_GPU"},
    {Status::Skipped, "SKIPPED"},
};

StringRef ptxbench::runtime::statusName(Status status) {
  for (const auto &[s, name] : statusNames)
    if (s == status)
      return name;
  llvm_unreachable("status");
}

std::optional<Status> ptxbench::runtime::parseStatus(StringRef name) {
  for (const auto &[s, n] : statusNames)
    if (n == name)
      return s;
  return std::nullopt;
}

namespace {
constexpr std::pair<FamilyVerdict, const char *> verdictNames[] = {
    {FamilyVerdict::NotMeasured, "not measured"},
    {FamilyVerdict::NotExecuted, "not executed"},
    {FamilyVerdict::NotInCode, "not in code"},
    {FamilyVerdict::NotTriggered, "not triggered"},
    {FamilyVerdict::Token, "token"},
    {FamilyVerdict::Executed, "executed"},
    {FamilyVerdict::Used, "used"},
};
} // namespace

StringRef ptxbench::runtime::verdictName(FamilyVerdict verdict) {
  for (auto [v, name] : verdictNames)
    if (v == verdict)
      return name;
  llvm_unreachable("a verdict without a name");
}

std::optional<FamilyVerdict>
ptxbench::runtime::parseFamilyVerdict(StringRef name) {
  for (auto [v, text] : verdictNames)
    if (name == text)
      return v;
  return std::nullopt;
}

FamilyVerdict ptxbench::runtime::acrossWorkloads(FamilyVerdict a,
                                                 FamilyVerdict b) {
  if (a == FamilyVerdict::NotMeasured)
    return b;
  if (b == FamilyVerdict::NotMeasured)
    return a;
  return std::min(a, b);
}

FamilyVerdict ptxbench::runtime::acrossAlternatives(FamilyVerdict a,
                                                    FamilyVerdict b) {
  return std::max(a, b);
}

namespace {
constexpr std::pair<StaticVerdict, const char *> staticVerdictNames[] = {
    {StaticVerdict::Used, "used"},
    {StaticVerdict::Serialized, "serialized"},
    {StaticVerdict::Unreachable, "unreachable"},
    {StaticVerdict::Missing, "missing"},
};
} // namespace

StringRef ptxbench::runtime::verdictName(StaticVerdict verdict) {
  for (auto [v, name] : staticVerdictNames)
    if (v == verdict)
      return name;
  llvm_unreachable("a static verdict without a name");
}

std::optional<StaticVerdict>
ptxbench::runtime::parseStaticVerdict(StringRef name) {
  for (auto [v, text] : staticVerdictNames)
    if (name == text)
      return v;
  return std::nullopt;
}

StaticVerdict ptxbench::runtime::acrossKernels(StaticVerdict a,
                                               StaticVerdict b) {
  return std::min(a, b);
}
