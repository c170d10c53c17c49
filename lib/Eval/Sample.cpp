//===- Sample.cpp - Sample keys in their printed form ---------------------===//

#include "ptxbench/Eval/Sample.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

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

std::optional<llvm::json::Value>
ptxbench::eval::parseStoredJson(llvm::StringRef text) {
  if (text.empty())
    return std::nullopt;
  auto value = llvm::json::parse(text);
  if (!value) {
    llvm::consumeError(value.takeError());
    return std::nullopt;
  }
  return std::move(*value);
}
