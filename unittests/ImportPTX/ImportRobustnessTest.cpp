//===- ImportRobustnessTest.cpp - The importer on damaged PTX -------------===//
//
// Feeds truncations and byte mutations of the corpus to the importer. Each
// must either import and export cleanly or fail with a located error; none
// may crash or hang. Also checks that importing the exported text again
// prints the same module (the export is a fixed point).
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Conversion/ExportPTX.h"
#include "ptxbench/Conversion/ImportPTX.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <random>

using namespace ptxbench;

namespace {

struct ImportResult {
  bool ok = false;
  std::string exported;
  unsigned errors = 0;
  bool errorsLocated = true;
};

ImportResult importText(llvm::StringRef text) {
  ImportResult result;
  mlir::MLIRContext context;
  context.disableMultithreading();
  context.getDiagEngine().registerHandler([&](mlir::Diagnostic &diag) {
    if (diag.getSeverity() == mlir::DiagnosticSeverity::Error) {
      ++result.errors;
      result.errorsLocated &=
          llvm::isa<mlir::FileLineColLoc>(diag.getLocation()) ||
          llvm::isa<mlir::FusedLoc>(diag.getLocation());
    }
    return mlir::success();
  });
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "mutant.ptx"), llvm::SMLoc());
  mlir::OwningOpRef<ptx::ModuleOp> module = importPTX(sourceMgr, &context);
  if (!module)
    return result;
  llvm::raw_string_ostream os(result.exported);
  result.ok = mlir::succeeded(exportPTX(*module, os));
  return result;
}

std::vector<std::string> corpusFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(PTXBENCH_CORPUS_DIR, ec), end;
       it != end && !ec; it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".ptx")
      files.push_back(it->path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string readFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  EXPECT_TRUE(bool(buffer)) << path;
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

TEST(ImportRobustness, CorpusImportsAndExportIsAFixedPoint) {
  std::vector<std::string> files = corpusFiles();
  ASSERT_FALSE(files.empty()) << "no corpus in " << PTXBENCH_CORPUS_DIR;
  for (const std::string &path : files) {
    ImportResult first = importText(readFile(path));
    ASSERT_TRUE(first.ok) << path;
    ImportResult second = importText(first.exported);
    ASSERT_TRUE(second.ok) << path;
    EXPECT_EQ(first.exported, second.exported) << path;
  }
}

/// The smallest corpus files, which keep mutation runs quick.
std::vector<std::string> smallCorpus(size_t count) {
  std::vector<std::pair<size_t, std::string>> sized;
  for (const std::string &path : corpusFiles())
    sized.emplace_back(readFile(path).size(), path);
  std::sort(sized.begin(), sized.end());
  std::vector<std::string> result;
  for (size_t i = 0; i < sized.size() && i < count; ++i)
    result.push_back(sized[i].second);
  return result;
}

TEST(ImportRobustness, Truncations) {
  unsigned runs = 0;
  for (const std::string &path : smallCorpus(12)) {
    std::string text = readFile(path);
    // Every cut point in the first 2 KB, then evenly spaced ones.
    size_t step = std::max<size_t>(1, text.size() / 300);
    for (size_t cut = 0; cut < text.size(); cut += cut < 2048 ? 7 : step) {
      ImportResult result = importText(llvm::StringRef(text).take_front(cut));
      ++runs;
      if (!result.ok) {
        EXPECT_GE(result.errors, 1u) << path << " cut at " << cut;
        EXPECT_TRUE(result.errorsLocated) << path << " cut at " << cut;
      }
    }
  }
  EXPECT_GT(runs, 1000u);
}

TEST(ImportRobustness, ByteMutations) {
  std::mt19937 rng(20261129);
  const char interesting[] = {'\0', '{', '}', '[',  ']',    '(', ')', ';', ',',
                              '@',  '!', '%', '.',  ':',    '<', '>', '"', '|',
                              '_',  '0', 'x', '\n', '\xff', '/', '*', '-'};
  unsigned runs = 0;
  for (const std::string &path : smallCorpus(12)) {
    std::string original = readFile(path);
    for (int trial = 0; trial < 250; ++trial) {
      std::string text = original;
      int edits = 1 + rng() % 3;
      for (int e = 0; e < edits && !text.empty(); ++e) {
        size_t pos = rng() % text.size();
        switch (rng() % 3) {
        case 0:
          text[pos] = interesting[rng() % sizeof(interesting)];
          break;
        case 1:
          text.erase(pos, 1 + rng() % 8);
          break;
        default:
          text.insert(pos, 1, interesting[rng() % sizeof(interesting)]);
        }
      }
      ImportResult result = importText(text);
      ++runs;
      if (!result.ok) {
        EXPECT_GE(result.errors, 1u) << path << " trial " << trial;
        EXPECT_TRUE(result.errorsLocated) << path << " trial " << trial;
      }
    }
  }
  EXPECT_GT(runs, 2000u);
}

} // namespace
