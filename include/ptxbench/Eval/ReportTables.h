//===- ReportTables.h - The tables of `ptxbench report` ---------*- C++ -*-===//
//
// The report's numbers (Summary.h) laid out as tables, and the tables
// rendered as Markdown (several tables, for papers), CSV (one flat row per
// group, for scripts) or a self-contained HTML page with inline SVG plots.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_EVAL_REPORTTABLES_H
#define PTXBENCH_EVAL_REPORTTABLES_H

#include "ptxbench/Eval/Summary.h"

#include "llvm/Support/raw_ostream.h"

namespace ptxbench::eval {

struct Table {
  std::string title;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

/// `n` of `d` as "37.5% (3/8)"; "-" when `d` is 0.
std::string formatRate(unsigned n, unsigned d);

/// Outcomes, feature use, fallback kinds, speed and per-workload speed
/// (speed-of-light fraction), one table each.
std::vector<Table> reportTables(const std::vector<GroupStats> &groups);
/// The environments of the records (arch, host, GPU, driver, CUDA,
/// cuBLASLt, ptxas, NVRTC, LLVM), one row per distinct one, with counts.
Table environmentTable(const std::vector<SampleRecord> &records);
/// Every number of a group on one row.
Table flatTable(const std::vector<GroupStats> &groups);

/// The tables under a `# ptxbench report` heading, after `banner` (a note
/// that nothing was measured on a GPU) when there is one.
void printMarkdown(const std::vector<Table> &tables, llvm::raw_ostream &os,
                   llvm::StringRef banner = "");
void printCSV(const Table &table, llvm::raw_ostream &os);

struct ProtocolGroup;
struct TokenPoint;
/// What the page shows beyond the tables.
struct HTMLExtras {
  /// A banner at the top (noGpuBanner()); empty: none.
  std::string banner;
  /// The first tables, printed above the charts (the one row per model).
  size_t leadingTables = 0;
  /// The protocol's groups and the turns' token points, for the charts
  /// that separate models; null: no such charts.
  const std::vector<ProtocolGroup> *protocol = nullptr;
  const std::vector<TokenPoint> *tokens = nullptr;
};
/// A page with the tables and SVG plots: the protocol's per-model charts
/// (with `extras`), fast_p over p, feature use by context level (per model
/// when there are several), fallback kinds per task. No external resources.
void printHTML(const std::vector<GroupStats> &groups,
               const std::vector<Table> &tables, llvm::raw_ostream &os,
               const HTMLExtras &extras = {});

} // namespace ptxbench::eval

#endif // PTXBENCH_EVAL_REPORTTABLES_H
