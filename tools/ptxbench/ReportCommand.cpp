//===- ReportCommand.cpp - ptxbench report --------------------------------===//
//
// `ptxbench report --db results.sqlite [--format markdown|csv|html] [-o OUT]`
// prints the sweep's tables per model x context x task x arch;
// `--sample ID` (a row id or model/context/task/sample_id@turn) prints one
// sample with its diagnostics inline. `--compare BASE,OTHER,...` puts
// models side by side per task, split by `--heldout-tasks` and context,
// with each difference from BASE and its bootstrap interval (Compare.h).
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ptxbench/Eval/Compare.h"
#include "ptxbench/Eval/ProtocolMetrics.h"
#include "ptxbench/Eval/ReportTables.h"
#include "ptxbench/Eval/ResultsStore.h"
#include "ptxbench/Eval/SampleView.h"
#include "ptxbench/Eval/TurnSummary.h"
#include "ptxbench/Support/TerminalText.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <set>

using namespace llvm;
using namespace ptxbench;

namespace {

enum class Format { Markdown, CSV, HTML };

cl::SubCommand reportCmd("report", "Tables of a results store, or one sample");
cl::opt<std::string> dbPath("db", cl::desc("The results store"),
                            cl::value_desc("file"), cl::Required,
                            cl::sub(reportCmd));
cl::opt<Format> format(
    "format", cl::desc("Output format"), cl::init(Format::Markdown),
    cl::values(clEnumValN(Format::Markdown, "markdown", "tables for papers"),
               clEnumValN(Format::CSV, "csv", "one row per group"),
               clEnumValN(Format::HTML, "html",
                          "a self-contained page with SVG plots")),
    cl::sub(reportCmd));
cl::opt<std::string> sample("sample",
                            cl::desc("Show one sample: a row id or "
                                     "model/context/task/sample_id@turn"),
                            cl::sub(reportCmd));
cl::list<std::string> compare(
    "compare",
    cl::desc("Compare these models side by side (the first is the "
             "baseline of the differences)"),
    cl::value_desc("base,other,..."), cl::CommaSeparated, cl::sub(reportCmd));
cl::list<std::string> heldoutTasks(
    "heldout-tasks",
    cl::desc("With --compare: tasks held out of training (their own split)"),
    cl::value_desc("task,..."), cl::CommaSeparated, cl::sub(reportCmd));
cl::opt<unsigned> bootstrap("bootstrap",
                            cl::desc("With --compare: bootstrap resamples "
                                     "for the intervals"),
                            cl::init(1000), cl::sub(reportCmd));
cl::opt<uint64_t> seed("seed", cl::desc("With --compare: the bootstrap seed"),
                       cl::init(0), cl::sub(reportCmd));
cl::opt<std::string> output("o", cl::desc("Output file"), cl::init("-"),
                            cl::value_desc("file"), cl::sub(reportCmd));

int fail(const Twine &message) { return cli::fail("report", message); }

int runReport() {
  auto store = eval::ResultsStore::open(dbPath, eval::ResultsStore::Mode::Read);
  if (!store)
    return fail(toString(store.takeError()));
  std::string errorMessage;
  std::unique_ptr<ToolOutputFile> out =
      mlir::openOutputFile(output, &errorMessage);
  if (!out)
    return fail(errorMessage);

  if (!sample.empty()) {
    Expected<std::optional<eval::SampleRecord>> record = std::nullopt;
    int64_t id;
    eval::SampleKey key;
    if (!StringRef(sample).getAsInteger(10, id))
      record = (*store)->byId(id);
    else if (eval::SampleKey::parse(sample, key))
      record = (*store)->get(key);
    else
      return fail("--sample expects a row id or "
                  "model/context/task/sample_id@turn, got '" +
                  sample + "'");
    if (!record)
      return fail(toString(record.takeError()));
    if (!*record)
      return fail("no sample '" + sample + "' in " + dbPath);
    // The sample's code and messages are a model's text: on a terminal its
    // control characters are shown, not obeyed.
    std::string text;
    llvm::raw_string_ostream os(text);
    eval::printSample(**record, os);
    writeForTerminal(out->os(), text);
    out->keep();
    return 0;
  }

  auto records = (*store)->all();
  if (!records)
    return fail(toString(records.takeError()));
  // A row whose run result cannot be read counts as run, never as correct:
  // say so, and where to look.
  unsigned unreadable = 0;
  std::string first;
  for (const eval::SampleRecord &r : *records)
    if (std::optional<std::string> why = eval::runResultError(r))
      if (!unreadable++)
        first = r.key.str() + ": " + *why;
  if (unreadable)
    WithColor::warning(errs(), "ptxbench report")
        << unreadable << " row" << (unreadable == 1 ? "" : "s")
        << " with a stored run result that cannot be read, counted as run "
           "but not as correct (first: "
        << escapeControls(first) << "; `ptxbench report --sample` shows it)\n";
  if (!compare.empty()) {
    if (compare.size() < 2)
      return fail("--compare expects two or more models, got '" +
                  compare.front() + "'");
    std::set<std::string> inStore, tasks;
    for (const eval::SampleRecord &r : *records) {
      inStore.insert(r.key.model);
      tasks.insert(r.key.task);
    }
    for (const std::string &model : compare)
      if (!inStore.count(model))
        return fail("--compare: no sample of model '" + model + "' in " +
                    dbPath + " (it has: " + join(inStore, ", ") + ")");
    for (const std::string &task : heldoutTasks)
      if (!tasks.count(task))
        WithColor::warning(errs(), "ptxbench report")
            << "--heldout-tasks: no sample of task '" << task << "' in "
            << dbPath << "\n";
    if (!bootstrap || bootstrap > 1000000)
      return fail("--bootstrap expects 1 to 1000000 resamples, got " +
                  Twine(unsigned(bootstrap)));
  }
  if (!compare.empty() && format == Format::CSV)
    return fail("--compare prints Markdown or HTML tables, not CSV");

  auto requested = (*store)->requested();
  if (!requested)
    return fail(toString(requested.takeError()));
  std::vector<eval::GroupStats> groups = eval::summarize(*records, *requested);
  if (!compare.empty()) {
    eval::CompareOptions options;
    options.models.assign(compare.begin(), compare.end());
    options.heldoutTasks.insert(heldoutTasks.begin(), heldoutTasks.end());
    options.resamples = bootstrap;
    options.seed = seed;
    std::vector<eval::Table> tables = eval::compareTables(*records, options);
    if (format == Format::HTML) {
      // The page's plots and tables for the compared models only, the
      // comparison first.
      std::vector<eval::GroupStats> compared;
      for (eval::GroupStats &g : groups)
        if (llvm::is_contained(compare, g.model))
          compared.push_back(std::move(g));
      for (eval::Table &t : eval::reportTables(compared))
        tables.push_back(std::move(t));
      eval::printHTML(compared, tables, out->os());
    } else {
      eval::printMarkdown(tables, out->os());
    }
    out->keep();
    return 0;
  }
  // The paper's protocol leads: one row per model, then per model, context
  // and task at the turn limit.
  std::vector<eval::ProtocolGroup> protocol = eval::protocolGroups(*records);
  std::vector<eval::TokenPoint> tokens = eval::tokenPoints(*records);
  std::string banner = eval::noGpuBanner(*records);
  std::vector<eval::Table> tables = {
      eval::modelSummaryTable(protocol, eval::modelUsage(*records)),
      eval::protocolTable(protocol)};
  for (eval::Table &t : eval::reportTables(groups))
    tables.push_back(std::move(t));
  tables.push_back(eval::environmentTable(*records));
  // Multi-turn samples: the rates after each turn, and pass@k.
  if (llvm::any_of(*records,
                   [](const eval::SampleRecord &r) { return r.key.turn > 0; }))
    tables.push_back(eval::turnTable(*records));
  tables.push_back(eval::passAtKTable(*records));
  // Triton answers beside CUDA C++ and PTX ones: the rates by language.
  if (llvm::any_of(*records,
                   [](const eval::SampleRecord &r) { return r.language == "py"; }))
    tables.push_back(eval::languageTable(*records));
  switch (format) {
  case Format::Markdown:
    eval::printMarkdown(tables, out->os(), banner);
    break;
  case Format::CSV: {
    eval::Table flat = eval::flatTable(groups);
    eval::addProtocolColumns(flat, protocol);
    eval::printCSV(flat, out->os());
    break;
  }
  case Format::HTML: {
    eval::HTMLExtras extras;
    extras.banner = banner;
    extras.leadingTables = 1;
    extras.protocol = &protocol;
    extras.tokens = &tokens;
    eval::printHTML(groups, tables, out->os(), extras);
    break;
  }
  }
  out->keep();
  return 0;
}

} // namespace

cli::Command cli::reportCommand() { return {reportCmd, runReport}; }
