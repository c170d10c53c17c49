//===- Repair.cpp - A teacher repairs another model's failed kernels ------===//
//
// Each failed kernel of a store becomes one prepared sample: the task's
// prompt with the failed sample's tag (brief when its context is not a
// tag this run knows), with the user message extended by the failed kernel and
// the feedback its evaluation gave (turnFeedback, the text generate sends
// between turns). Its folder holds repair.json, naming the failure.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Generate/Repair.h"

#include "ptxbench/Eval/Fixit.h"
#include "ptxbench/Eval/Repair.h"
#include "ptxbench/Generate/TurnEval.h"
#include "ptxbench/Prompt/ExtractCode.h"
#include "ptxbench/Prompt/Prompt.h"
#include "ptxbench/Task/Task.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <map>

using namespace ptxbench;
using namespace ptxbench::client;
using namespace ptxbench::generate;
using llvm::StringRef;

namespace {

bool tritonCode(const eval::SampleRecord &r) { return r.language == "py"; }

std::string fence(const eval::SampleRecord &r) {
  return "```" +
         prompt::fenceTag(prompt::languageOfWord(r.language)).str() + "\n" +
         r.code + (StringRef(r.code).ends_with("\n") ? "" : "\n") + "```";
}

} // namespace

std::string ptxbench::generate::repairMessage(StringRef taskMessage,
                                              const eval::SampleRecord &failed,
                                              StringRef feedback) {
  return taskMessage.str() +
         "\n\n## A failed attempt\n\nAnother model answered this task with "
         "the submission below, and it failed.\n\n" +
         fence(failed) + "\n\n## Its evaluation\n\n" + feedback.str() +
         "\n\nWrite a corrected submission: find what is wrong, fix it and "
         "send the whole submission in the format the task asks for.\n";
}

llvm::Expected<RepairPlan>
ptxbench::generate::planRepairs(const std::vector<eval::SampleRecord> &records,
                                const RepairPlanOptions &options) {
  RepairPlan plan;
  bool triton = options.language == prompt::AnswerLanguage::Triton;
  std::set<std::string> kernels;
  std::map<std::string, runtime::Task> tasks;
  std::map<std::pair<std::string, std::string>, prompt::Prompt> prompts;
  for (const eval::SampleRecord &r : records) {
    if (!eval::isWrong(r))
      continue;
    ++plan.failures;
    if (r.key.context == eval::repairContext) {
      ++plan.repairs;
      continue;
    }
    if (r.arch != options.arch) {
      ++plan.otherArch;
      continue;
    }
    if (!options.tasks.empty() && !options.tasks.count(r.key.task)) {
      ++plan.otherTask;
      continue;
    }
    if (tritonCode(r) != triton) {
      ++plan.otherLanguage;
      continue;
    }
    if (!kernels.insert(eval::kernelIdentity(r)).second) {
      ++plan.duplicates;
      continue;
    }
    if (!isFolderName(r.key.task))
      return llvm::createStringError("the store's task '" + r.key.task +
                                     "' is not a folder name");
    auto task = tasks.find(r.key.task);
    if (task == tasks.end()) {
      llvm::SmallString<256> dir(options.tasksDir);
      llvm::sys::path::append(dir, r.key.task);
      auto loaded = runtime::loadTask(dir);
      if (!loaded)
        return loaded.takeError();
      task = tasks.emplace(r.key.task, std::move(*loaded)).first;
    }
    // The failed sample's tag (its context), or `brief` when it names none
    // this run knows.
    auto resolved = prompt::resolveTag(r.key.context, options.tags);
    prompt::Tag tag = resolved ? *resolved : *prompt::findBuiltinTag("brief");
    if (!resolved)
      llvm::consumeError(resolved.takeError());
    std::string levelName = tag.name;
    auto built = prompts.find({r.key.task, levelName});
    if (built == prompts.end()) {
      prompt::PromptOptions po;
      po.arch = options.arch;
      po.tag = tag;
      po.language = options.language;
      po.docsDir = options.docsDir;
      auto p = prompt::buildPrompt(task->second, po);
      if (!p)
        return p.takeError();
      built = prompts.emplace(std::make_pair(r.key.task, levelName),
                              std::move(*p))
                  .first;
    }
    const prompt::Prompt &p = built->second;
    PreparedSample s;
    s.context = eval::repairContext.str();
    s.task = r.key.task;
    s.sampleId = eval::repairSampleId(r.key);
    s.promptSha = p.sha256();
    std::string feedback = turnFeedback(r, 0, triton);
    bool extended = false;
    for (const prompt::ChatMessage &m : p.messages) {
      s.messages.push_back(m);
      if (m.role == "user" && !extended) {
        s.messages.back().content = repairMessage(m.content, r, feedback);
        extended = true;
      }
    }
    if (!extended)
      s.messages.push_back({"user", repairMessage("", r, feedback)});
    llvm::json::Object why{
        {"failed", r.key.str()},
        {"failed_model", r.key.model},
        {"failed_kernel", eval::kernelIdentity(r)},
        {"failure_kind", eval::failureKind(r)},
        {"status", r.ran() ? r.runStatus : r.status},
        {"prompt_tag", levelName}};
    s.files.push_back(
        {"repair.json",
         llvm::formatv("{0:2}\n", llvm::json::Value(std::move(why))).str()});
    plan.samples.push_back(std::move(s));
  }
  return plan;
}
