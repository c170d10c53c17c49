//===- Patterns.cpp - What the analysis flags, as advice ------------------===//
//
// One entry per fallback kind of lib/Analysis/FallbackAnalysis.cpp (see the
// table in docs/analysis.md), worded for a model: the pattern to avoid and
// the form to write instead. Keep the kinds in step with that table.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Prompt/Patterns.h"

#include "ptxbench/ISA/ISA.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace ptxbench;
using namespace ptxbench::prompt;

namespace {

struct Pattern {
  /// The requested family that makes the kind fire ("a|b": either one);
  /// "" = always.
  StringLiteral family;
  StringLiteral kind;
  StringLiteral avoid;
  StringLiteral instead;
  /// A requested family that replaces this entry by another of the same
  /// kind (the bulk-copy wording of a copy pattern); "" = none.
  StringLiteral unless = "";
};

constexpr Pattern patterns[] = {
    {"wgmma", "mma-sync-instead-of-wgmma", "`mma.sync` (Ampere warp MMA)",
     "`wgmma.mma_async` issued by a whole warpgroup, operands in shared "
     "memory through matrix descriptors"},
    {"wgmma", "wmma-instead-of-wgmma", "`wmma.mma` (the WMMA API)",
     "`wgmma.mma_async`"},
    {"wgmma", "ffma-loop-instead-of-wgmma",
     "a loop of f32 `fma` (a CUDA-core GEMM)", "`wgmma.mma_async`"},
    {"wgmma", "wgmma-serialized",
     "`wgmma.wait_group 0` right after every `wgmma.commit_group`, or an "
     "accumulator register written between `wgmma.fence` and the mma",
     "keep one group in flight (`wgmma.wait_group 1`) and touch "
     "accumulators only after waiting; ptxas also reports serialization "
     "(C7510)"},
    {"tma", "cp-async-instead-of-tma", "`cp.async` (Ampere async copies)",
     "`cp.async.bulk.tensor` with a tensor map, completing on an mbarrier",
     "bulk_copy"},
    {"tma", "ld-st-copy-instead-of-tma",
     "`ld.global` into registers then `st.shared` in a loop",
     "`cp.async.bulk.tensor`", "bulk_copy"},
    {"tma", "ld-global-instead-of-bulk-copy",
     "per-thread `ld.global` straight into registers, with no copy into "
     "shared memory",
     "one thread issues `cp.async.bulk.tensor` with a tensor map into "
     "shared memory, completing on an mbarrier with `expect_tx`",
     "bulk_copy"},
    // Where a plain bulk copy is accepted, it is the form for any
    // contiguous span, including rows gathered through a page table, which
    // a tensor map cannot express.
    {"bulk_copy", "cp-async-instead-of-tma", "`cp.async` (Ampere async copies)",
     "one thread issues `cp.async.bulk` of each contiguous span (a row or "
     "page gathered through an index too), or `cp.async.bulk.tensor` for a "
     "regular tile, completing on an mbarrier with `expect_tx`"},
    {"bulk_copy", "ld-st-copy-instead-of-tma",
     "`ld.global` into registers then `st.shared` in a loop",
     "`cp.async.bulk` of each contiguous span, or `cp.async.bulk.tensor` "
     "for a regular tile"},
    {"bulk_copy", "ld-global-instead-of-bulk-copy",
     "per-thread `ld.global` straight into registers, with no copy into "
     "shared memory",
     "one thread issues `cp.async.bulk` of each contiguous span (a row or "
     "page gathered through an index too), or `cp.async.bulk.tensor` for a "
     "regular tile, into shared memory, completing on an mbarrier with "
     "`expect_tx`"},
    {"", "tma-without-expect-tx",
     "a TMA load completing on an mbarrier that never gets an expected "
     "transaction count",
     "`mbarrier.arrive.expect_tx` with the tile's byte count before waiting"},
    {"mbarrier_tx", "bar-sync-instead-of-mbarrier",
     "`bar.sync` / `__syncthreads()` as the pipeline's only "
     "synchronization",
     "full/empty `mbarrier`s per stage with `expect_tx` and "
     "`try_wait.parity`"},
    {"mbarrier", "bar-sync-instead-of-mbarrier",
     "`bar.sync` / `__syncthreads()` as the pipeline's only "
     "synchronization",
     "`mbarrier`s per pipeline stage"},
    {"", "setmaxnreg-without-cap",
     "`setmaxnreg` in a kernel without `__launch_bounds__(threads, 1)` or "
     "`.maxnreg` (ptxas ignores it)",
     "declare the launch bounds"},
    {"", "setmaxnreg-outside-role-branch",
     "`setmaxnreg` that every warp executes",
     "`setmaxnreg.dec` in the producer branch, `setmaxnreg.inc` in the "
     "consumers'"},
    {"", "local-memory-in-loop",
     "local memory (`ld.local`/`st.local`: spills, dynamically indexed "
     "arrays) in a loop",
     "registers with compile-time indices, or shared memory"},
    {"tcgen05", "wgmma-instead-of-tcgen05",
     "`wgmma` (Hopper only: it does not compile for sm_100a)",
     "`tcgen05.mma` with the accumulator in tensor memory"},
};

} // namespace

std::string prompt::renderPatterns(ArrayRef<std::string> requested) {
  std::string text;
  raw_string_ostream os(text);
  os << "## How the kernel is judged\n\n"
     << "ptxbench imports the PTX of the submission and reports, per kernel, "
        "each requested family as used, missing, unreachable (only in code "
        "that cannot run) or serialized, and these patterns, each with its "
        "source line:\n\n";
  // The families requested, alternatives ("bulk_copy|tma") each.
  SmallVector<StringRef> families;
  for (const std::string &r : requested)
    if (auto members = ptxbench::isa::familiesOfRequirement(r))
      for (ptxbench::isa::Family family : *members)
        families.push_back(ptxbench::isa::familyName(family));
  for (const Pattern &p : patterns) {
    SmallVector<StringRef> triggers;
    StringRef(p.family).split(triggers, '|', -1, false);
    if (!triggers.empty() && none_of(triggers, [&](StringRef family) {
          return is_contained(families, family);
        }))
      continue;
    if (!p.unless.empty() && is_contained(families, StringRef(p.unless)))
      continue;
    os << "- `" << p.kind << "`: " << p.avoid << ". Instead: " << p.instead
       << ".\n";
  }
  os << "\nptxas warnings that cost speed are reported too: serialized "
        "`wgmma`, ignored `setmaxnreg`, register spills.\n";
  return text;
}
