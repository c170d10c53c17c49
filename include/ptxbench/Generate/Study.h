//===- Study.h - A study file: the paper's protocol in one place -*- C++ -*-===//
//
// A study file (JSON, docs/study.md) names what one run of the protocol
// asks for: models, tasks, tags (and their documents), replicas, turns, the
// target speedup and the context policy, the budget, and where the results
// go, and the stages after generate: a teacher's repairs and the Fixit
// records. loadStudy() checks every key (an unknown one is refused, and the
// ones a study cannot run say so) and every value against the same limits
// as `generate`'s flags; generateArguments() turns it into the `ptxbench
// generate` command line that `ptxbench study` runs and that
// utils/slurm/submit-study.sh hands to the Slurm array scripts, and
// repairArguments() and fixitArguments() the later stages'.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_GENERATE_STUDY_H
#define PTXBENCH_GENERATE_STUDY_H

#include "ptxbench/Prompt/Tags.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace ptxbench::generate {

/// The repair stage: a teacher fixes the study's failed kernels
/// (`generate --repair-from`), up to `turns` fix turns each.
struct RepairStage {
  std::string teacher;
  unsigned turns = 5;
  double maxCost = 0;
};

/// The Fixit stage: `ptxbench fixit` on the study's store into
/// OUT/fixit.jsonl.
struct FixitStage {
  std::string record = "three";
  std::vector<std::string> fixSources;
  std::string reasonsBy;
  unsigned minReasonChars = 0, maxReasonChars = 0;
  double maxCost = 0;
};

struct Study {
  std::string name;
  /// Paths as resolved (against the study file's folder, or as the
  /// command line overrode them).
  std::string modelsFile, tasksDir, docsDir, outDir;
  std::vector<std::string> models, tasks, tags;
  prompt::TagSet tagDefinitions;
  std::string arch = "sm_90a", language = "cuda", contextPolicy = "full",
              shapes = "dev";
  unsigned replicas = 1, turns = 1, concurrency = 0;
  double targetSpeedup = 0, maxCost = 0, timeoutSeconds = 0;
  int64_t maxTokens = 0;
  std::optional<int64_t> seed;
  bool staticOnly = false;
  std::optional<RepairStage> repair;
  std::optional<FixitStage> fixit;

  /// OUT/samples, OUT/results.sqlite, OUT/tags.json (the tag definitions
  /// as generate reads them), OUT/report.md and OUT/report.html.
  std::string samplesDir() const;
  std::string storePath() const;
  std::string tagFilePath() const;
  /// OUT/repairs (the teacher's sample tree) and OUT/fixit.jsonl.
  std::string repairsDir() const;
  std::string fixitPath() const;
};

/// What the command line gives instead of the file's paths (empty: the
/// file's, resolved against its folder).
struct StudyOverrides {
  std::string modelsFile, tasksDir, docsDir, outDir;
};

/// Reads and checks the study file at `path` (at most 1 MiB).
llvm::Expected<Study> loadStudy(llvm::StringRef path,
                                const StudyOverrides &overrides = {});

/// The arguments after `ptxbench generate` for `study`; `--task`, `--db`
/// and `--static-only` only when `withStoreAndTasks` (the Slurm scripts
/// set them per shard).
std::vector<std::string> generateArguments(const Study &study,
                                           bool withStoreAndTasks);
/// The arguments after `ptxbench generate` for the repair stage, and after
/// `ptxbench fixit` for the Fixit stage (both into the study's store).
std::vector<std::string> repairArguments(const Study &study);
std::vector<std::string> fixitArguments(const Study &study);

} // namespace ptxbench::generate

#endif // PTXBENCH_GENERATE_STUDY_H
