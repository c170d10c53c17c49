//===- PtxasLog.cpp - Parse ptxas and nvJitLink logs ----------------------===//
//
// ptxas writes one record per "ptxas <severity> :" marker, not always one
// per line (nvJitLink's log runs some together), followed by `ptxas .`
// continuation records; nvJitLink adds its own "info : ..." summary. The
// parser splits on the markers and reads each record in order.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Toolchain/PtxasLog.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <optional>

using namespace ptxbench::toolchain;
using llvm::StringRef;

namespace {

/// One record of the log: who said it, its severity word and its text.
struct Record {
  bool fromPtxas = false;
  StringRef severity; // info, warning, error, fatal, or "." (continuation)
  StringRef text;
  unsigned ptxLine = 0; // from "ptxas application ptx input, line N;"
};

/// The marker at the start of `s`, if any, and its length.
bool matchMarker(StringRef s, Record &record, size_t &length) {
  StringRef rest = s;
  record.fromPtxas = rest.consume_front("ptxas");
  if (record.fromPtxas)
    rest = rest.ltrim(" \t");
  // "ptxas application ptx input, line 12; error : ..." (or "k.ptx, line").
  if (record.fromPtxas && !rest.starts_with(".")) {
    size_t semi = rest.find(';');
    size_t lineWord = rest.find(", line ");
    size_t newline = rest.find('\n');
    if (semi != StringRef::npos && lineWord != StringRef::npos &&
        lineWord < semi && semi < newline) {
      rest.slice(lineWord + 7, semi).trim().getAsInteger(10, record.ptxLine);
      rest = rest.drop_front(semi + 1).ltrim(" \t");
    }
  }
  for (StringRef word : {"info", "warning", "error", "fatal"}) {
    if (!rest.starts_with(word))
      continue;
    StringRef after = rest.drop_front(word.size()).ltrim(" \t");
    if (!after.consume_front(":"))
      return false;
    record.severity = word;
    length = s.size() - after.size();
    return true;
  }
  if (record.fromPtxas && rest.consume_front(".")) {
    record.severity = ".";
    length = s.size() - rest.size();
    return true;
  }
  return false;
}

llvm::SmallVector<Record> splitRecords(StringRef log) {
  llvm::SmallVector<Record> records;
  size_t start = StringRef::npos, textStart = 0;
  Record pending;
  for (size_t i = 0; i < log.size(); ++i) {
    // Markers start a line, or follow a record that ended without one.
    bool lineStart = i == 0 || log[i - 1] == '\n';
    if (!lineStart && !(log[i] == 'p' && log.substr(i).starts_with("ptxas ")))
      continue;
    Record record;
    size_t length = 0;
    if (!matchMarker(log.substr(i), record, length))
      continue;
    if (start != StringRef::npos) {
      pending.text = log.slice(textStart, i).trim();
      records.push_back(pending);
    }
    pending = record;
    start = i;
    textStart = i + length;
    i += length - 1;
  }
  if (start != StringRef::npos) {
    pending.text = log.substr(textStart).trim();
    records.push_back(pending);
  }
  return records;
}

/// The name in `'name'` or after `prefix`, without quotes or a colon.
StringRef nameAfter(StringRef text, StringRef prefix) {
  StringRef name = text.drop_front(prefix.size()).trim();
  name.consume_back(":");
  if (name.starts_with("'")) {
    name = name.drop_front();
    name = name.take_until([](char c) { return c == '\''; });
  }
  return name.take_until([](char c) { return llvm::isSpace(c); });
}

/// The number before `unit` in a comma-separated resource list, e.g.
/// "12 bytes smem" with unit "bytes smem".
uint64_t numberBefore(StringRef text, StringRef unit) {
  for (StringRef part : llvm::split(text, ',')) {
    part = part.trim();
    part.consume_front("Used ");
    part.consume_front("used ");
    if (!part.ends_with(unit))
      continue;
    uint64_t value = 0;
    if (!part.drop_back(unit.size()).trim().getAsInteger(10, value))
      return value;
  }
  return 0;
}

/// The function named by a message such as "... in the function 'k'".
StringRef functionInText(StringRef text) {
  size_t pos = text.find("function '");
  if (pos == StringRef::npos)
    return {};
  return text.drop_front(pos + 10).take_until([](char c) { return c == '\''; });
}

} // namespace

const KernelResources *PtxasLog::kernel(StringRef name) const {
  for (const KernelResources &k : kernels)
    if (k.name == name)
      return &k;
  return nullptr;
}

PtxasLog ptxbench::toolchain::parsePtxasLog(StringRef log) {
  PtxasLog result;
  // The function whose properties the next records describe, by index
  // (the vector grows as functions appear).
  std::optional<size_t> current;
  auto indexOf = [&](StringRef name) {
    for (size_t i = 0; i < result.kernels.size(); ++i)
      if (result.kernels[i].name == name)
        return i;
    result.kernels.push_back(KernelResources{name.str()});
    return result.kernels.size() - 1;
  };
  for (const Record &record : splitRecords(log)) {
    StringRef text = record.text;
    if (text.starts_with("Compiling entry function")) {
      result.kernels[indexOf(nameAfter(text, "Compiling entry function"))]
          .entry = true;
      continue;
    }
    // The stack line follows "Function properties for X" as its own
    // `ptxas .` record (nvJitLink) or as a plain continuation line (ptxas).
    auto readStack = [&](StringRef line) {
      KernelResources &k = result.kernels[*current];
      k.stackBytes = numberBefore(line, "bytes stack frame");
      k.spillStoreBytes = numberBefore(line, "bytes spill stores");
      k.spillLoadBytes = numberBefore(line, "bytes spill loads");
    };
    if (text.starts_with("Function properties for")) {
      current = indexOf(nameAfter(text, "Function properties for"));
      size_t newline = text.find('\n');
      if (newline != StringRef::npos)
        readStack(text.drop_front(newline + 1).trim());
      continue;
    }
    if (record.severity == "." && current) {
      readStack(text);
      continue;
    }
    if (current && (text.starts_with("Used ") || text.starts_with("used "))) {
      KernelResources &k = result.kernels[*current];
      k.registers = numberBefore(text, "registers");
      k.barriers = numberBefore(text, "barriers");
      // ptxas reports the kernel's own shared memory; nvJitLink's summary
      // adds the reserved part, so the first figure stands.
      if (!k.sharedBytes)
        k.sharedBytes = numberBefore(text, "bytes smem");
      if (uint64_t lmem = numberBefore(text, "bytes lmem"))
        k.localBytes = lmem;
      continue;
    }
    if (text.starts_with("Compile time") || text.ends_with("bytes gmem") ||
        record.severity == ".")
      continue;
    PtxasMessage message;
    message.severity =
        record.severity == "warning" ? PtxasMessage::Severity::Warning
        : record.severity == "info"  ? PtxasMessage::Severity::Info
                                     : PtxasMessage::Severity::Error;
    if (text.starts_with("(C") && text.contains(')')) {
      message.code = text.slice(1, text.find(')')).str();
      text = text.drop_front(text.find(')') + 1).trim();
    }
    // Plain infos without a code are chatter; keep coded notes and the rest.
    if (message.severity == PtxasMessage::Severity::Info &&
        message.code.empty())
      continue;
    message.text = text.str();
    message.kernel = functionInText(text).str();
    message.ptxLine = record.ptxLine;
    result.messages.push_back(std::move(message));
  }
  return result;
}

StringRef ptxbench::toolchain::classifyPtxasMessage(const PtxasMessage &m) {
  StringRef text = m.text;
  if (text.contains("wgmma") && text.contains("serialized"))
    return "wgmma-serialized";
  if (text.contains("'setmaxnreg' ignored"))
    return "setmaxnreg-ignored";
  if (text.contains("spill") || text.contains("lmem") ||
      text.contains("Local memory"))
    return "spills";
  return {};
}
