//===- Prompt.cpp - The prompt for one task, architecture and context -----===//
//
// Assembles the parts (TaskText.h, then the tag's documents, Documents.h)
// into a system and a user message, records which parts and documents went
// in, and writes the result as JSON or text.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Prompt/Prompt.h"

#include "ptxbench/Prompt/Documents.h"
#include "ptxbench/Prompt/TaskText.h"
#include "ptxbench/Prompt/TritonText.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"

using namespace llvm;
using namespace ptxbench;
using namespace ptxbench::prompt;

StringRef prompt::answerLanguageName(AnswerLanguage language) {
  return language == AnswerLanguage::Triton ? "triton" : "cuda";
}

std::optional<AnswerLanguage> prompt::parseAnswerLanguage(StringRef name) {
  if (name == "cuda" || name == "ptx" || name.empty())
    return AnswerLanguage::Native;
  if (name == "triton")
    return AnswerLanguage::Triton;
  return std::nullopt;
}

ArrayRef<StringLiteral> prompt::promptArchitectures() {
  static constexpr StringLiteral archs[] = {"sm_90a", "sm_100a"};
  return archs;
}

std::string Prompt::sha256() const {
  SHA256 hash;
  for (const ChatMessage &m : messages) {
    hash.update(m.role);
    hash.update("\n");
    hash.update(m.content);
    hash.update("\n");
  }
  std::array<uint8_t, 32> digest = hash.final();
  return toHex(digest, /*LowerCase=*/true);
}

Expected<std::string> prompt::findDocsDir(StringRef taskDir) {
  auto search = [](SmallString<256> dir) -> std::string {
    if (sys::fs::make_absolute(dir))
      return "";
    for (StringRef d = dir; !d.empty(); d = sys::path::parent_path(d)) {
      SmallString<256> arch(d);
      sys::path::append(arch, "docs", "arch");
      if (sys::fs::is_directory(arch))
        return (d + "/docs").str();
    }
    return "";
  };
  std::string found = search(SmallString<256>(taskDir));
  if (found.empty())
    found = search(SmallString<256>("."));
  if (found.empty())
    return createStringError("cannot find docs/arch/ above " + taskDir +
                             " or the current directory; pass --docs DIR");
  return found;
}

Expected<Prompt> prompt::buildPrompt(const runtime::Task &task,
                                     const PromptOptions &options) {
  if (!is_contained(promptArchitectures(), options.arch))
    return createStringError("unknown architecture '" + options.arch +
                             "' (known: sm_90a, sm_100a)");
  Prompt prompt;
  prompt.task = task.name;
  prompt.arch = options.arch;
  prompt.context = options.tag.name;
  prompt.language = options.language;
  bool triton = options.language == AnswerLanguage::Triton;
  std::vector<std::string> requested;
  if (auto it = task.features.find(options.arch); it != task.features.end())
    requested = it->second;

  // The system message: who the model is and how to answer.
  std::string system =
      "You are an expert GPU kernel engineer. You write fast, correct "
      "kernels for " +
      deviceName(options.arch).str() + " (`" + options.arch + "`) " +
      (triton ? "in Triton, getting the compiler to use the "
                "architecture-specific instructions the task asks for.\n\n" +
                    renderTritonResponseFormat(options.arch)
              : "in CUDA C++ with inline PTX or in PTX, using the "
                "architecture-specific instructions the task asks for.\n\n" +
                    renderResponseFormat(options.arch));
  prompt.parts = {"system", "response-format"};

  // The user message: the task, then the tag's documents.
  std::vector<std::string> sections;
  auto add = [&](StringRef part, std::string text) {
    prompt.parts.push_back(part.str());
    sections.push_back(std::move(text));
  };
  add("task", renderTaskSection(task));
  add("abi", triton ? renderTritonAbiSection(task, options.arch)
                    : renderAbiSection(task, options.arch));
  auto plan = triton ? renderTritonLaunchPlanSection(task)
                     : renderLaunchPlanSection(task);
  if (!plan)
    return plan.takeError();
  add("launch-plan", *plan);
  add("features", renderFeaturesSection(task, options.arch));
  DocumentInput input{options.arch, options.language, requested,
                      options.docsDir};
  for (const std::string &name : options.tag.documents) {
    bool fromFiles = name != "isa-syntax" && name != "patterns";
    if (fromFiles && input.docsDir.empty()) {
      auto found = findDocsDir(task.dir);
      if (!found)
        return found.takeError();
      input.docsDir = *found;
    }
    auto doc = renderDocument(name, input);
    if (!doc)
      return createStringError("tag '" + options.tag.name + "': " +
                               toString(doc.takeError()));
    prompt.documents.push_back(
        {doc->part,
         toHex(SHA256::hash(arrayRefFromStringRef(doc->text)),
               /*LowerCase=*/true),
         doc->text.size()});
    add(doc->part, std::move(doc->text));
  }
  std::string user = join(sections, "\n");
  user += "\nWrite the submission now, in the response format above.\n";
  prompt.messages = {{"system", system}, {"user", user}};
  return prompt;
}

json::Array prompt::documentsJSON(const std::vector<PromptDocument> &docs) {
  json::Array out;
  for (const PromptDocument &d : docs)
    out.push_back(json::Object{
        {"name", d.name}, {"sha256", d.sha256}, {"bytes", int64_t(d.bytes)}});
  return out;
}

json::Value prompt::toJSON(const Prompt &prompt) {
  json::Array messages, parts;
  for (const ChatMessage &m : prompt.messages)
    messages.push_back(
        json::Object{{"role", m.role}, {"content", m.content}});
  for (const std::string &p : prompt.parts)
    parts.push_back(p);
  json::Object out{{"task", prompt.task},
                   {"arch", prompt.arch},
                   {"context", prompt.context},
                   {"parts", std::move(parts)},
                   {"documents", documentsJSON(prompt.documents)},
                   {"sha256", prompt.sha256()},
                   {"messages", std::move(messages)}};
  if (prompt.language == AnswerLanguage::Triton)
    out["language"] = "triton";
  return out;
}

void prompt::printText(const Prompt &prompt, raw_ostream &os) {
  for (const ChatMessage &m : prompt.messages)
    os << "=== " << m.role << " ===\n" << m.content << "\n";
}
