//===- Embedded.cpp - Models that need no network: corpus, replay ---------===//
//
// The corpus model makes the whole benchmark run on a machine with no
// network and no key (utils/demo.sh, the tests); replay re-runs recorded
// answers through a newer evaluation or feedback.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Generate/Embedded.h"

#include "ptxbench/Prompt/ExtractCode.h"

#include "ptxbench/Support/JSON.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"

#include <set>

using namespace ptxbench::client;
using namespace ptxbench::generate;
using llvm::StringRef;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace {

ProviderError fail(const llvm::Twine &message) {
  ProviderError e;
  e.message = message.str();
  return e;
}

std::optional<std::string> readFile(StringRef file) {
  auto buffer = llvm::MemoryBuffer::getFile(file);
  if (!buffer)
    return std::nullopt;
  return (*buffer)->getBuffer().str();
}

/// Files the manifest marks for another arch.
std::set<std::string> otherArchFiles(StringRef dir, StringRef arch) {
  std::set<std::string> out;
  llvm::SmallString<256> manifest(dir);
  path::append(manifest, "manifest.json");
  std::optional<std::string> text = readFile(manifest);
  if (!text)
    return out;
  auto value = ptxbench::parseJSON(*text);
  if (!value) {
    llvm::consumeError(value.takeError());
    return out;
  }
  const llvm::json::Object *o = value->getAsObject();
  const llvm::json::Array *solutions = o ? o->getArray("solutions") : nullptr;
  if (!solutions)
    return out;
  for (const llvm::json::Value &s : *solutions)
    if (const llvm::json::Object *so = s.getAsObject())
      if (auto a = so->getString("arch"); a && *a != arch)
        out.insert(so->getString("file").value_or("").str());
  return out;
}

} // namespace

/// Whether the manifest in `dir` lists `task` among the tasks its corpus
/// serves (a corpus shared by several shapes of one problem).
static bool servesTask(StringRef dir, StringRef task) {
  llvm::SmallString<256> manifest(dir);
  path::append(manifest, "manifest.json");
  std::optional<std::string> text = readFile(manifest);
  if (!text)
    return false;
  auto value = ptxbench::parseJSON(*text);
  if (!value) {
    llvm::consumeError(value.takeError());
    return false;
  }
  const llvm::json::Object *o = value->getAsObject();
  if (const llvm::json::Array *tasks = o ? o->getArray("tasks") : nullptr)
    for (const llvm::json::Value &t : *tasks)
      if (t.getAsString() == task)
        return true;
  return false;
}

std::vector<std::string> ptxbench::generate::corpusSolutions(StringRef tasksDir,
                                                             StringRef task,
                                                             StringRef arch,
                                                             bool triton) {
  // The task's own solutions, and the corpora whose manifests serve it.
  std::vector<std::string> dirs;
  llvm::SmallString<256> own(tasksDir);
  path::append(own, task, "solutions");
  if (fs::is_directory(own))
    dirs.push_back(std::string(own));
  std::error_code ec;
  for (fs::directory_iterator it(tasksDir, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::SmallString<256> dir(it->path());
    path::append(dir, "solutions");
    if (dir != own && fs::is_directory(dir) && servesTask(dir, task))
      dirs.push_back(std::string(dir));
  }
  std::vector<std::string> files;
  for (const std::string &dir : dirs) {
    std::set<std::string> skip = otherArchFiles(dir, arch);
    for (fs::directory_iterator it(dir, ec), end; it != end && !ec;
         it.increment(ec)) {
      StringRef name = path::filename(it->path());
      bool language = triton ? name.ends_with(".py")
                             : name.ends_with(".cu") || name.ends_with(".ptx");
      if (language && !skip.count(name.str()))
        files.push_back(it->path());
    }
  }
  llvm::sort(files);
  return files;
}

Outcome ptxbench::generate::embeddedAnswer(const ModelConfig &model,
                                           const EmbeddedQuery &q) {
  Completion c;
  c.model = model.modelId;
  c.finishReason = "stop";
  if (model.provider == Provider::Corpus) {
    std::vector<std::string> files =
        corpusSolutions(q.tasksDir, q.task, q.arch, q.triton);
    if (files.empty())
      return fail("corpus: task '" + q.task + "' has no " +
                  (q.triton ? "Triton " : "") + "solutions for " + q.arch +
                  " (" + q.tasksDir + "/" + q.task +
                  "/solutions, or a corpus whose manifest lists the task)");
    std::string key = q.sampleId + "/" + std::to_string(q.turn) + "/" +
                      std::to_string(q.seed);
    std::array<uint8_t, 32> digest =
        llvm::SHA256::hash(llvm::arrayRefFromStringRef(key));
    uint64_t h = 0;
    for (int i = 0; i < 8; ++i)
      h = (h << 8) | digest[i];
    const std::string &file = files[h % files.size()];
    std::optional<std::string> code = readFile(file);
    if (!code)
      return fail("corpus: cannot read '" + file + "'");
    StringRef name = path::filename(file);
    c.text = "Here is a submission for `" + q.task + "` on " + q.arch +
             " (from the solution corpus: `" + name.str() + "`).\n\n```" +
             prompt::fenceTag(prompt::languageOfWord(name)).str() + "\n" +
             *code +
             (StringRef(*code).ends_with("\n") ? "" : "\n") + "```\n";
    c.requestId = "corpus:" + name.str();
    return c;
  }
  // Replay.
  llvm::SmallString<256> base(model.replayDir);
  path::append(base, q.context, q.task, q.sampleId);
  llvm::SmallString<256> turnFile(base);
  path::append(turnFile, "turn" + std::to_string(q.turn), "response.md");
  llvm::SmallString<256> flat(base);
  path::append(flat, "response.md");
  std::optional<std::string> text = readFile(turnFile);
  if (!text && q.turn == 1)
    text = readFile(flat);
  if (!text)
    return fail("replay: no recorded response '" + turnFile.str() + "'" +
                (q.turn == 1 ? " or '" + flat.str().str() + "'" : ""));
  c.text = *text;
  c.requestId = "replay:" + q.sampleId + "/turn" + std::to_string(q.turn);
  return c;
}
