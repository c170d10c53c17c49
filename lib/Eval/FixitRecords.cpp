//===- FixitRecords.cpp - The chat records fixit writes -------------------===//
//
// The three shapes of FixitRecords.h and their metadata. The three-message
// record of a derived reason is byte for byte what fixit wrote before the
// other shapes existed; the others name their format, and every record
// with a written reason names its writer.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/FixitRecords.h"

#include "ptxbench/Eval/Repair.h"

using namespace ptxbench;
using namespace ptxbench::eval;
namespace json = llvm::json;
using llvm::StringRef;

llvm::StringRef ptxbench::eval::recordFormatName(RecordFormat format) {
  switch (format) {
  case RecordFormat::Three:
    return "three";
  case RecordFormat::Five:
    return "five";
  case RecordFormat::KernelGen:
    return "kernelgen";
  }
  return "three";
}

std::optional<RecordFormat>
ptxbench::eval::parseRecordFormat(llvm::StringRef name) {
  for (RecordFormat f :
       {RecordFormat::Three, RecordFormat::Five, RecordFormat::KernelGen})
    if (name == recordFormatName(f))
      return f;
  return std::nullopt;
}

namespace {

/// A chat message; both strings are copied (a json::Value made from a
/// StringRef would point at the caller's temporary).
json::Value message(StringRef role, StringRef content) {
  return json::Object{{"role", role.str()}, {"content", content.str()}};
}

json::Object kernelMeta(const FixitPair &p) {
  json::Object fixed{{"key", p.fixedKey()},
                     {"hash", kernelIdentity(p.fixed)},
                     {"source", p.wrong ? fixSourceName(p.source)
                                        : llvm::StringRef("store")}};
  if (p.wrong && p.source == FixSource::Repair)
    fixed["teacher"] = p.fixed.key.model;
  return fixed;
}

json::Object metadata(const FixitPair &p, StringRef format,
                      const ReasonSource &source) {
  const SampleRecord &r = p.wrong ? *p.wrong : p.fixed;
  json::Object m{{"task", r.key.task},
                 {"arch", r.arch},
                 {"failure_kind", p.kind},
                 {"model", r.key.model},
                 {"context", r.key.context}};
  if (p.wrong) {
    m["wrong"] = json::Object{
        {"key", p.wrong->key.str()},
        {"hash", kernelIdentity(*p.wrong)},
        {"status", p.wrong->ran() ? p.wrong->runStatus : p.wrong->status}};
    m["fixed"] = kernelMeta(p);
  } else {
    m["kernel"] = kernelMeta(p);
  }
  if (!format.empty())
    m["format"] = format.str();
  if (!format.empty() || !source.writer.empty())
    m["reason"] = source.writer.empty()
                      ? json::Object{{"by", "derived"}}
                      : json::Object{{"by", source.writer},
                                     {"response", source.responsePath}};
  return m;
}

std::string thinkThenCode(StringRef reason, const SampleRecord &kernel) {
  return "<think>\n" + reason.trim().str() + "\n</think>\n\n" +
         fencedCode(kernel);
}

} // namespace

json::Value ptxbench::eval::threeMessageRecord(
    const FixitPair &p, StringRef reason,
    const std::function<std::string(const SampleRecord &)> &taskSummary,
    const ReasonSource &source) {
  const SampleRecord &w = *p.wrong;
  std::string system = taskSummary ? taskSummary(w) : w.key.task;
  json::Array messages{
      message("system", system), message("user", describeProblems(w)),
      message("assistant", reason.rtrim().str() +
                               "\n\nThe fixed kernel:\n\n" +
                               fencedCode(p.fixed))};
  return json::Object{{"messages", std::move(messages)},
                      {"metadata", metadata(p, "", source)}};
}

llvm::Expected<json::Value>
ptxbench::eval::fixitRecord(const FixitPair &p, RecordFormat format,
                            StringRef reason, const RecordInputs &inputs,
                            const ReasonSource &source) {
  if (format == RecordFormat::Three) {
    if (!p.wrong)
      return llvm::createStringError("a three-message record needs a pair");
    return threeMessageRecord(p, reason, inputs.taskSummary, source);
  }
  const SampleRecord &first = p.wrong ? *p.wrong : p.fixed;
  if (!inputs.taskPrompt)
    return llvm::createStringError("no task prompt for " + first.key.str());
  auto prompt = inputs.taskPrompt(first);
  if (!prompt)
    return prompt.takeError();
  json::Array messages;
  for (const prompt::ChatMessage &m : *prompt)
    messages.push_back(message(m.role, m.content));
  if (format == RecordFormat::Five) {
    if (!p.wrong)
      return llvm::createStringError("a five-message record needs a pair");
    messages.push_back(message("assistant", fencedCode(*p.wrong)));
    messages.push_back(message(
        "user", inputs.feedback ? inputs.feedback(*p.wrong)
                                : describeProblems(*p.wrong)));
  }
  messages.push_back(message("assistant", thinkThenCode(reason, p.fixed)));
  return json::Object{
      {"messages", std::move(messages)},
      {"metadata", metadata(p, recordFormatName(format), source)}};
}
