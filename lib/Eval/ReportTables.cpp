//===- ReportTables.cpp - The tables of `ptxbench report` -----------------===//
//
// Rates print as percentages with their counts ("75.0% (3/4)") so a reader
// can check them; numbers that need a GPU run print "-" when none ran.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/ReportTables.h"
#include "ptxbench/Task/Verdict.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cmath>
#include <set>

using namespace ptxbench::eval;
namespace runtime = ptxbench::runtime;

namespace {

std::string number(double v, bool known) {
  return known ? llvm::formatv("{0:f2}", v).str() : "-";
}

std::string pLabel(double p) { return llvm::formatv("fast_{0}", p).str(); }

std::vector<std::string> groupCells(const GroupStats &g) {
  return {g.model, g.context, g.task, g.arch};
}

const std::vector<std::string> groupHeader = {"model", "context", "task",
                                              "arch"};

} // namespace

std::string ptxbench::eval::formatRate(unsigned n, unsigned d) {
  if (!d)
    return "-";
  return llvm::formatv("{0:f1}% ({1}/{2})", 100.0 * n / d, n, d).str();
}

std::vector<Table>
ptxbench::eval::reportTables(const std::vector<GroupStats> &groups) {
  Table outcomes{"Outcomes", groupHeader, {}};
  for (const char *h : {"samples", "compile", "run", "correct",
                        "harness errors"})
    outcomes.header.push_back(h);
  Table features{"Requested-feature use", groupHeader, {}};
  for (const char *h :
       {"family", "used (run)", "token (run)", "executed", "used (static)",
        "SASS"})
    features.header.push_back(h);
  Table fallbacks{"Fallback kinds (samples with at least one)", groupHeader,
                  {}};
  for (const char *h : {"kind", "samples"})
    fallbacks.header.push_back(h);
  Table speed{"Speed against the library", groupHeader, {}};
  speed.header.push_back("workloads");
  speed.header.push_back("runs");
  speed.header.push_back("correct");
  for (double p : fastPThresholds)
    speed.header.push_back(pLabel(p));
  for (const char *h : {"mean speedup", "geomean speedup", "SOL fraction"})
    speed.header.push_back(h);

  Table perWorkload{"Per workload", groupHeader, {}};
  for (const char *h : {"workload", "split", "runs", "correct",
                        "geomean speedup", "SOL fraction (mean)",
                        "SOL fraction (best)"})
    perWorkload.header.push_back(h);

  for (const GroupStats &g : groups) {
    std::vector<std::string> row = groupCells(g);
    // Samples asked for that have no row never came back (the run stopped
    // on its budget, or was killed): the rates below do not count them.
    row.push_back(
        g.asked > g.sampleIds
            ? llvm::formatv("{0} ({1} asked)", g.samples, g.asked).str()
            : std::to_string(g.samples));
    row.push_back(formatRate(g.compiled, g.samples));
    bool ran = g.runAttempted > 0;
    row.push_back(ran ? formatRate(g.ranOk, g.samples) : "-");
    row.push_back(ran ? formatRate(g.correct, g.samples) : "-");
    // The harness's own failures count against no rate but are shown.
    auto harness = g.statuses.find(
        runtime::statusName(runtime::Status::HarnessError).str());
    row.push_back(
        std::to_string(harness == g.statuses.end() ? 0 : harness->second));
    outcomes.rows.push_back(row);

    for (auto &[family, count] : g.used) {
      row = groupCells(g);
      row.push_back(family);
      // The headline is the run's verdict; the static one stands beside it.
      const ExecutedStats *e = executedStats(g, family);
      row.push_back(e ? formatRate(e->used, e->measured) : "-");
      row.push_back(e ? formatRate(e->token, e->measured) : "-");
      if (!e)
        row.push_back("-");
      else if (!e->executed && e->inCode)
        row.push_back(llvm::formatv("not triggered (0/{0})", e->measured));
      else
        row.push_back(formatRate(e->executed, e->measured));
      row.push_back(formatRate(count, g.samples));
      auto sass = g.sass.find(family);
      row.push_back(formatRate(sass == g.sass.end() ? 0 : sass->second,
                         g.sassChecked));
      features.rows.push_back(row);
    }
    for (auto &[kind, count] : g.fallbacks) {
      row = groupCells(g);
      row.push_back(kind);
      row.push_back(std::to_string(count));
      fallbacks.rows.push_back(row);
    }
    for (auto &[split, s] : g.splits) {
      row = groupCells(g);
      row.push_back(split);
      row.push_back(std::to_string(s.runs));
      row.push_back(formatRate(s.correct, s.runs));
      for (unsigned fast : s.fast)
        row.push_back(formatRate(fast, s.runs));
      bool timed = !s.speedups.empty();
      row.push_back(number(s.meanSpeedup(), timed));
      row.push_back(number(s.geomeanSpeedup(), timed));
      row.push_back(number(s.meanSol(), !s.solFractions.empty()));
      speed.rows.push_back(row);
    }
    for (auto &[name, w] : g.workloads) {
      row = groupCells(g);
      row.push_back(name);
      row.push_back(w.split);
      row.push_back(std::to_string(w.runs));
      row.push_back(formatRate(w.correct, w.runs));
      double logs = 0;
      for (double s : w.speedups)
        logs += std::log(s);
      row.push_back(number(w.speedups.empty()
                               ? 0
                               : std::exp(logs / w.speedups.size()),
                           !w.speedups.empty()));
      double sum = 0, best = 0;
      for (double s : w.solFractions) {
        sum += s;
        best = std::max(best, s);
      }
      bool sol = !w.solFractions.empty();
      row.push_back(number(sol ? sum / w.solFractions.size() : 0, sol));
      row.push_back(number(best, sol));
      perWorkload.rows.push_back(row);
    }
  }
  return {outcomes, features, fallbacks, speed, perWorkload};
}

Table ptxbench::eval::environmentTable(
    const std::vector<SampleRecord> &records) {
  const std::vector<std::string> fields = {
      "arch",   "host",          "device",          "driver",
      "cuda_driver_version", "cublaslt_version", "ptxas", "nvrtc", "llvm"};
  Table t{"Environment", fields, {}};
  t.header.push_back("samples");
  std::map<std::vector<std::string>, unsigned> seen;
  for (const SampleRecord &r : records) {
    std::optional<llvm::json::Value> env = parseStoredJson(r.environmentJson);
    const llvm::json::Object *o = env ? env->getAsObject() : nullptr;
    if (!o)
      continue;
    const llvm::json::Object *tools = o->getObject("toolchain");
    std::vector<std::string> row;
    for (const std::string &f : fields) {
      const llvm::json::Value *v = o->get(f);
      if (!v && tools)
        v = tools->get(f);
      std::string cell = "-";
      if (v && v->getAsString())
        cell = v->getAsString()->str();
      else if (v && v->getAsInteger())
        cell = std::to_string(*v->getAsInteger());
      if (f == "cuda_driver_version" && v && v->getAsInteger())
        cell = llvm::formatv("{0}.{1}", *v->getAsInteger() / 1000,
                             *v->getAsInteger() % 1000 / 10)
                   .str();
      row.push_back(cell.empty() ? "-" : cell);
    }
    ++seen[row];
  }
  for (auto &[row, count] : seen) {
    t.rows.push_back(row);
    t.rows.back().push_back(std::to_string(count));
  }
  return t;
}

Table ptxbench::eval::flatTable(const std::vector<GroupStats> &groups) {
  std::set<std::string> families, kinds, splits;
  for (const GroupStats &g : groups) {
    for (auto &[f, n] : g.used)
      families.insert(f);
    for (auto &[k, n] : g.fallbacks)
      kinds.insert(k);
    for (auto &[s, st] : g.splits)
      splits.insert(s);
  }
  Table t{"", groupHeader, {}};
  for (const char *h : {"samples", "asked", "compiled", "run_attempted",
                        "ran_ok", "correct", "sass_checked"})
    t.header.push_back(h);
  for (const std::string &f : families) {
    t.header.push_back("used:" + f);
    t.header.push_back("sass:" + f);
    t.header.push_back("executed:" + f);
    t.header.push_back("run_used:" + f);
    t.header.push_back("run_token:" + f);
  }
  for (const std::string &k : kinds)
    t.header.push_back("fallback:" + k);
  for (const std::string &s : splits) {
    t.header.push_back(s + ":runs");
    t.header.push_back(s + ":correct");
    for (double p : fastPThresholds)
      t.header.push_back(s + ":" + pLabel(p));
    t.header.push_back(s + ":mean_speedup");
    t.header.push_back(s + ":geomean_speedup");
    t.header.push_back(s + ":sol_fraction");
  }
  auto get = [](const std::map<std::string, unsigned> &m,
                const std::string &k) {
    auto it = m.find(k);
    return std::to_string(it == m.end() ? 0 : it->second);
  };
  for (const GroupStats &g : groups) {
    std::vector<std::string> row = groupCells(g);
    row.push_back(std::to_string(g.samples));
    row.push_back(g.asked ? std::to_string(g.asked) : "");
    for (unsigned v :
         {g.compiled, g.runAttempted, g.ranOk, g.correct, g.sassChecked})
      row.push_back(std::to_string(v));
    for (const std::string &f : families) {
      row.push_back(g.used.count(f) ? get(g.used, f) : "");
      row.push_back(g.used.count(f) ? get(g.sass, f) : "");
      // Samples where it executed, of those measured: "2/3"; empty when
      // no run measured it.
      const ExecutedStats *e = executedStats(g, f);
      for (unsigned n : {e ? e->executed : 0, e ? e->used : 0,
                         e ? e->token : 0})
        row.push_back(e ? llvm::formatv("{0}/{1}", n, e->measured).str()
                        : "");
    }
    for (const std::string &k : kinds)
      row.push_back(get(g.fallbacks, k));
    for (const std::string &name : splits) {
      auto it = g.splits.find(name);
      SplitStats s = it == g.splits.end() ? SplitStats() : it->second;
      row.push_back(std::to_string(s.runs));
      row.push_back(std::to_string(s.correct));
      for (unsigned fast : s.fast)
        row.push_back(s.runs ? llvm::formatv("{0:f4}", double(fast) / s.runs)
                                   .str()
                             : "");
      bool timed = !s.speedups.empty();
      row.push_back(timed ? llvm::formatv("{0:f4}", s.meanSpeedup()).str()
                          : "");
      row.push_back(timed ? llvm::formatv("{0:f4}", s.geomeanSpeedup()).str()
                          : "");
      row.push_back(!s.solFractions.empty()
                        ? llvm::formatv("{0:f4}", s.meanSol()).str()
                        : "");
    }
    t.rows.push_back(row);
  }
  return t;
}

void ptxbench::eval::printMarkdown(const std::vector<Table> &tables,
                                   llvm::raw_ostream &os,
                                   llvm::StringRef banner) {
  os << "# ptxbench report\n";
  if (!banner.empty())
    os << "\n> **Not measured on a GPU.** " << banner << "\n";
  for (const Table &t : tables) {
    os << "\n## " << t.title << "\n\n";
    if (t.rows.empty()) {
      os << "(none)\n";
      continue;
    }
    auto line = [&](const std::vector<std::string> &cells) {
      os << "|";
      for (const std::string &c : cells) {
        // A '|' inside a cell (a requirement's alternatives, "bulk_copy|tma")
        // would end the cell.
        os << " ";
        for (char ch : c)
          os << (ch == '|' ? "\\|" : llvm::StringRef(&ch, 1));
        os << " |";
      }
      os << "\n";
    };
    line(t.header);
    os << "|";
    for (size_t i = 0; i < t.header.size(); ++i)
      os << "---|";
    os << "\n";
    for (const auto &row : t.rows)
      line(row);
  }
}

void ptxbench::eval::printCSV(const Table &table, llvm::raw_ostream &os) {
  auto cell = [&](const std::string &c) {
    if (c.find_first_of(",\"\n") == std::string::npos) {
      os << c;
      return;
    }
    os << '"';
    for (char ch : c)
      os << (ch == '"' ? "\"\"" : std::string(1, ch));
    os << '"';
  };
  auto line = [&](const std::vector<std::string> &cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i)
        os << ',';
      cell(cells[i]);
    }
    os << "\n";
  };
  line(table.header);
  for (const auto &row : table.rows)
    line(row);
}
