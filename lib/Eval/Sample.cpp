//===- Sample.cpp - Sample keys in their printed form ---------------------===//

#include "ptxbench/Eval/Sample.h"

#include "ptxbench/Runtime/Result.h"
#include "ptxbench/Support/JSON.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace ptxbench::eval;

std::string SampleKey::str() const {
  return model + "/" + context + "/" + task + "/" + sampleId + "@" +
         std::to_string(turn);
}

bool SampleKey::parse(llvm::StringRef text, SampleKey &key) {
  auto [path, turnText] = text.rsplit('@');
  llvm::SmallVector<llvm::StringRef, 4> parts;
  path.split(parts, '/');
  if (parts.size() != 4 || llvm::any_of(parts, [](llvm::StringRef p) {
        return p.empty();
      }))
    return false;
  int64_t turn = 0;
  if (!turnText.empty() && turnText.getAsInteger(10, turn))
    return false;
  key = {parts[0].str(), parts[1].str(), parts[2].str(), parts[3].str(), turn};
  return true;
}

std::string SampleRecord::sourceName() const {
  llvm::StringRef path = solutionPath;
  if (path.empty() || path.ends_with(".md"))
    return language.empty() ? "solution" : "solution." + language;
  return llvm::sys::path::filename(path).str();
}

/// `text` as it appears inside a JSON string.
static std::string jsonEscaped(llvm::StringRef text) {
  std::string quoted = llvm::formatv("{0}", llvm::json::Value(text)).str();
  return quoted.substr(1, quoted.size() - 2);
}

std::string ptxbench::eval::renameInJson(llvm::StringRef json,
                                         llvm::StringRef from,
                                         llvm::StringRef to) {
  if (from.empty() || from == to)
    return json.str();
  std::string a = jsonEscaped(from), b = jsonEscaped(to), out;
  for (size_t at; (at = json.find(a)) != llvm::StringRef::npos;) {
    out += json.take_front(at);
    out += b;
    json = json.drop_front(at + a.size());
  }
  return out + json.str();
}

bool ptxbench::eval::reusableRun(llvm::StringRef runStatus) {
  using runtime::Status;
  std::optional<Status> status = runtime::parseStatus(runStatus);
  return status && *status != Status::PlanError &&
         *status != Status::CompileError && *status != Status::HarnessError;
}

std::optional<llvm::json::Value>
ptxbench::eval::parseStoredJson(llvm::StringRef text) {
  if (text.empty())
    return std::nullopt;
  auto value = ptxbench::parseJSON(text);
  if (!value) {
    llvm::consumeError(value.takeError());
    return std::nullopt;
  }
  return std::move(*value);
}

std::optional<ptxbench::report::AnalysisReport>
ptxbench::eval::parseStoredReport(llvm::StringRef text) {
  if (text.empty())
    return std::nullopt;
  auto report = report::parseAnalysisReport(text);
  if (!report) {
    llvm::consumeError(report.takeError());
    return std::nullopt;
  }
  return std::move(*report);
}
