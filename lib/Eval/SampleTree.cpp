//===- SampleTree.cpp - Finding samples on disk, and sharding them -------===//

#include "ptxbench/Eval/SampleTree.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"

#include <algorithm>

using namespace ptxbench::eval;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace {

/// The sub-folders of `dir`, sorted by name.
Expected<std::vector<std::string>> subdirs(StringRef dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    if (fs::is_directory(it->path()))
      names.push_back(path::filename(it->path()).str());
  }
  if (ec)
    return llvm::createStringError("cannot read folder '" + dir +
                                   "': " + ec.message());
  llvm::sort(names);
  return names;
}

std::string join(StringRef a, StringRef b) {
  llvm::SmallString<256> p(a);
  path::append(p, b);
  return std::string(p);
}

/// The turn number of a `turn<N>`/`turn-<N>`/`turn_<N>` folder name.
std::optional<int64_t> turnFolder(StringRef name) {
  if (!name.consume_front("turn"))
    return std::nullopt;
  if (!name.consume_front("-"))
    name.consume_front("_");
  int64_t turn;
  if (name.empty() || name.getAsInteger(10, turn))
    return std::nullopt;
  return turn;
}

/// Fills `input`'s files from `dir`; reads the `turn` file when present.
Error readSampleDir(StringRef dir, SampleInput &input) {
  input.dir = dir.str();
  for (StringRef name : {"solution.cu", "solution.ptx", "solution.py"}) {
    std::string file = join(dir, name);
    if (fs::exists(file)) {
      input.solutionPath = file;
      break;
    }
  }
  if (std::string response = join(dir, "response.md"); fs::exists(response))
    input.responsePath = response;
  if (std::string gen = join(dir, "generation.json"); fs::exists(gen))
    input.generationPath = gen;
  std::string turnFile = join(dir, "turn");
  if (!fs::exists(turnFile))
    return Error::success();
  auto buffer = llvm::MemoryBuffer::getFile(turnFile);
  if (!buffer)
    return llvm::createStringError("cannot read '" + turnFile +
                                   "': " + buffer.getError().message());
  StringRef text = (*buffer)->getBuffer().trim();
  if (text.getAsInteger(10, input.key.turn) || input.key.turn < 0)
    return llvm::createStringError("'" + turnFile +
                                   "': expected a turn number (an integer "
                                   ">= 0), found '" +
                                   text.take_front(40) + "'");
  return Error::success();
}

} // namespace

Expected<std::vector<SampleInput>> ptxbench::eval::scanSamples(StringRef root) {
  if (!fs::is_directory(root))
    return llvm::createStringError("samples folder '" + root +
                                   "' does not exist");
  std::vector<SampleInput> samples;
  // model / context / task / sample_id [/ turnN]
  auto models = subdirs(root);
  if (!models)
    return models.takeError();
  for (const std::string &model : *models) {
    auto contexts = subdirs(join(root, model));
    if (!contexts)
      return contexts.takeError();
    for (const std::string &context : *contexts) {
      std::string contextDir = join(join(root, model), context);
      auto tasks = subdirs(contextDir);
      if (!tasks)
        return tasks.takeError();
      for (const std::string &task : *tasks) {
        auto ids = subdirs(join(contextDir, task));
        if (!ids)
          return ids.takeError();
        for (const std::string &id : *ids) {
          std::string dir = join(join(contextDir, task), id);
          SampleInput base;
          base.key = {model, context, task, id, 0};
          auto turns = subdirs(dir);
          if (!turns)
            return turns.takeError();
          bool nested = false;
          for (const std::string &t : *turns) {
            std::optional<int64_t> turn = turnFolder(t);
            if (!turn)
              continue;
            nested = true;
            SampleInput input = base;
            input.key.turn = *turn;
            if (Error e = readSampleDir(join(dir, t), input))
              return std::move(e);
            samples.push_back(std::move(input));
          }
          if (nested)
            continue;
          if (Error e = readSampleDir(dir, base))
            return std::move(e);
          samples.push_back(std::move(base));
        }
      }
    }
  }
  llvm::sort(samples, [](const SampleInput &a, const SampleInput &b) {
    return a.key < b.key;
  });
  return samples;
}

Expected<Shard> ptxbench::eval::parseShard(StringRef text) {
  auto [k, n] = text.split('/');
  Shard shard;
  if (k.getAsInteger(10, shard.index) || n.getAsInteger(10, shard.count) ||
      shard.count == 0 || shard.index >= shard.count)
    return llvm::createStringError(
        "--shard expects K/N with 0 <= K < N (e.g. 0/4), got '" + text + "'");
  return shard;
}

bool ptxbench::eval::inShard(const SampleKey &key, Shard shard) {
  if (shard.count <= 1)
    return true;
  std::array<uint8_t, 32> digest =
      llvm::SHA256::hash(llvm::arrayRefFromStringRef(key.str()));
  uint64_t h = 0;
  for (int i = 0; i < 8; ++i)
    h = (h << 8) | digest[i];
  return h % shard.count == shard.index;
}
