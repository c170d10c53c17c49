//===- MergeCommand.cpp - ptxbench merge ----------------------------------===//
//
// `ptxbench merge OUT.sqlite IN1.sqlite IN2.sqlite ...` combines the results
// stores of a sharded sweep. A sample recorded in several keeps its newest
// row; the count of such conflicts is printed.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ptxbench/Eval/ResultsStore.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace ptxbench;

namespace {

cl::SubCommand mergeCmd("merge", "Merge results stores (shards of a sweep)");
cl::list<std::string> files(cl::Positional, cl::OneOrMore,
                            cl::desc("<out.sqlite> <in.sqlite>..."),
                            cl::sub(mergeCmd));

int runMerge() {
  if (files.size() < 2)
    return cli::fail("merge",
                     "expected an output store and at least one input store");
  auto out = eval::ResultsStore::open(files[0]);
  if (!out)
    return cli::fail("merge", toString(out.takeError()));
  eval::ResultsStore::MergeStats total;
  for (size_t i = 1; i < files.size(); ++i) {
    auto stats = (*out)->merge(files[i]);
    if (!stats)
      return cli::fail("merge", toString(stats.takeError()));
    outs() << formatv("{0}: {1} new, {2} conflicts ({3} replaced by the "
                      "newer row, {4} kept)\n",
                      files[i], stats->inserted,
                      stats->replaced + stats->kept, stats->replaced,
                      stats->kept);
    total.inserted += stats->inserted;
    total.replaced += stats->replaced;
    total.kept += stats->kept;
  }
  outs() << formatv("merged {0} stores into {1}: {2} samples added, {3} "
                    "conflicts resolved by keeping the newest\n",
                    files.size() - 1, files[0], total.inserted,
                    total.replaced + total.kept);
  return 0;
}

} // namespace

cli::Command cli::mergeCommand() { return {mergeCmd, runMerge}; }
