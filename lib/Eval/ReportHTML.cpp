//===- ReportHTML.cpp - `ptxbench report --format html` -------------------===//
//
// One self-contained page: a banner when nothing ran on a GPU, the report's
// leading tables (the one row per model), the charts drawn as inline SVG
// (no scripts, fonts or images from elsewhere; SvgCharts.h), then the other
// tables. The charts separate models: correct@k and credited@k over the
// turn limit, best speedup@k over it, the headline rates per model, the
// turn's speedup against its reasoning tokens, fast_p over p per group,
// requested-feature use per model and context level, and fallback kinds
// per task.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/ProtocolMetrics.h"
#include "ptxbench/Eval/ReportTables.h"

#include "SvgCharts.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <set>

using namespace ptxbench::eval;
using namespace ptxbench::eval::svg;
using llvm::formatv;

namespace {

void printTable(const Table &t, llvm::raw_ostream &os) {
  os << "<h2>" << escape(t.title) << "</h2>\n";
  if (t.rows.empty()) {
    os << "<p>(none)</p>\n";
    return;
  }
  os << "<table><tr>";
  for (const std::string &h : t.header)
    os << "<th>" << escape(h) << "</th>";
  os << "</tr>\n";
  for (const auto &row : t.rows) {
    os << "<tr>";
    for (const std::string &c : row)
      os << "<td>" << escape(c) << "</td>";
    os << "</tr>\n";
  }
  os << "</table>\n";
}

/// The protocol's charts, one line or bar per model.
void protocolCharts(const std::vector<ProtocolGroup> &groups,
                    const std::vector<TokenPoint> &tokens,
                    llvm::raw_ostream &os) {
  std::map<std::string, std::vector<const ProtocolGroup *>> byModel;
  unsigned k = 0;
  for (const ProtocolGroup &g : groups)
    if (g.ran) {
      byModel[g.model].push_back(&g);
      k = std::max(k, g.turnLimit);
    }
  if (byModel.empty())
    return;
  std::vector<std::string> xs;
  for (unsigned i = 1; i <= k; ++i)
    xs.push_back(std::to_string(i));
  // A model's value at k: the mean over its groups, each at min(k, its
  // own turn limit).
  auto mean = [&](const std::vector<const ProtocolGroup *> &gs,
                  double (ProtocolGroup::*metric)(unsigned) const,
                  unsigned at) {
    double sum = 0;
    for (const ProtocolGroup *g : gs)
      sum += (g->*metric)(std::min(at, g->turnLimit));
    return sum / gs.size();
  };
  std::vector<Line> rates, speedups;
  std::vector<std::string> models;
  std::vector<std::vector<double>> headline;
  double most = 1;
  unsigned c = 0;
  for (auto &[model, gs] : byModel) {
    Line correct{model + " correct", {}, c, false};
    Line credited{model + " credited", {}, c, true};
    Line best{model, {}, c, false};
    for (unsigned i = 1; i <= k; ++i) {
      correct.values.push_back(mean(gs, &ProtocolGroup::correctAt, i));
      credited.values.push_back(mean(gs, &ProtocolGroup::creditedAt, i));
      best.values.push_back(mean(gs, &ProtocolGroup::bestSpeedupAt, i));
      most = std::max(most, best.values.back());
    }
    models.push_back(model);
    headline.push_back({correct.values.back(), credited.values.back()});
    rates.push_back(std::move(correct));
    rates.push_back(std::move(credited));
    speedups.push_back(std::move(best));
    ++c;
  }
  lineChart(os,
            "correct@k (solid) and credited@k (dashed) over the turn "
            "limit k, per model",
            "turn limit k", xs, rates, 1.0, true);
  lineChart(os, "best speedup@k over the library, per model", "turn limit k",
            xs, speedups, std::ceil(most), false);
  barChart(os, "Per model at its turn limit: correct@k and credited@k", models,
           {"correct@k", "credited@k"}, headline, 1.0, true);
  if (tokens.empty())
    return;
  std::vector<std::string> series;
  std::vector<Point> points;
  bool reasoning = false;
  for (const TokenPoint &t : tokens) {
    auto it = llvm::find(series, t.model);
    if (it == series.end())
      it = series.insert(series.end(), t.model);
    points.push_back({t.tokens, t.speedup, unsigned(it - series.begin())});
    reasoning |= t.reasoning;
  }
  scatterChart(os, "The turn's speedup against its reasoning tokens",
               reasoning ? "reasoning tokens (output tokens for a model that "
                           "reports none)"
                         : "output tokens (no model reported reasoning)",
               "speedup (0: not correct)", series, points);
}

} // namespace

void ptxbench::eval::printHTML(const std::vector<GroupStats> &groups,
                               const std::vector<Table> &tables,
                               llvm::raw_ostream &os,
                               const HTMLExtras &extras) {
  os << "<!DOCTYPE html>\n<html><head><meta charset='utf-8'>"
        "<title>ptxbench report</title><style>"
        "body{font-family:sans-serif;margin:2em;color:#222}"
        "table{border-collapse:collapse;margin:1em 0}"
        "th,td{border:1px solid #bbb;padding:3px 8px;font-size:13px}"
        "th{background:#eee}td{text-align:right}"
        "td:nth-child(-n+4){text-align:left}figure{margin:1em 0}"
        ".banner{background:#fff3cd;border:1px solid #e0b400;padding:8px 12px;"
        "max-width:60em}"
        "</style></head><body>\n<h1>ptxbench report</h1>\n";
  if (!extras.banner.empty())
    os << "<p class='banner'><strong>Not measured on a GPU.</strong> "
       << escape(extras.banner) << "</p>\n";
  size_t leading = std::min(extras.leadingTables, tables.size());
  for (size_t i = 0; i < leading; ++i)
    printTable(tables[i], os);
  if (extras.protocol)
    protocolCharts(*extras.protocol,
                   extras.tokens ? *extras.tokens : std::vector<TokenPoint>(),
                   os);

  // fast_p curves, for groups with runs; a model's groups share a colour.
  std::vector<Line> curves;
  std::vector<std::string> curveModels;
  std::map<unsigned, unsigned> perModel;
  for (const GroupStats &g : groups) {
    auto it = g.splits.find("dev");
    if (it == g.splits.end() || !it->second.runs)
      continue;
    Line line{g.model + "/" + g.context + "/" + g.task, {}, 0, false};
    auto m = llvm::find(curveModels, g.model);
    line.colour = m - curveModels.begin();
    if (m == curveModels.end())
      curveModels.push_back(g.model);
    // A model's groups in its colour, solid and dashed in turn.
    line.dashed = perModel[line.colour]++ % 2 == 1;
    for (unsigned fast : it->second.fast)
      line.values.push_back(double(fast) / it->second.runs);
    curves.push_back(std::move(line));
  }
  if (!curves.empty()) {
    std::vector<std::string> ps;
    for (double p : fastPThresholds)
      ps.push_back(formatv("{0}", p).str());
    lineChart(os, "fast_p over p (dev workloads)", "p", ps, curves, 1.0, true);
  }

  // Feature use by context level, one cluster per model and context when
  // there are several models, pooled over tasks; the run's verdict where a
  // run measured it, else the static one.
  std::set<std::string> modelNames;
  for (const GroupStats &g : groups)
    modelNames.insert(g.model);
  std::map<std::string, std::map<std::string, std::pair<unsigned, unsigned>>>
      byContext;
  std::set<std::string> families;
  for (const GroupStats &g : groups)
    for (auto &[family, used] : g.used) {
      std::string cluster =
          modelNames.size() > 1 ? g.model + " / " + g.context : g.context;
      auto &cell = byContext[cluster][family];
      if (const ExecutedStats *e = executedStats(g, family)) {
        cell.first += e->used;
        cell.second += e->measured;
      } else {
        cell.first += used;
        cell.second += g.samples;
      }
      families.insert(family);
    }
  if (!byContext.empty()) {
    std::vector<std::string> contexts, series(families.begin(), families.end());
    std::vector<std::vector<double>> values;
    for (auto &[context, perFamily] : byContext) {
      contexts.push_back(context);
      std::vector<double> row;
      for (const std::string &f : series) {
        auto it = perFamily.find(f);
        row.push_back(it == perFamily.end() || !it->second.second
                          ? 0
                          : double(it->second.first) / it->second.second);
      }
      values.push_back(row);
    }
    barChart(os,
             modelNames.size() > 1
                 ? "Requested-feature use by context level, per model"
                 : "Requested-feature use by context level",
             contexts, series, values, 1.0, true);
  }

  // Fallback kinds per task.
  std::map<std::string, std::map<std::string, unsigned>> byTask;
  std::set<std::string> kinds;
  unsigned most = 1;
  for (const GroupStats &g : groups)
    for (auto &[kind, count] : g.fallbacks) {
      unsigned &n = byTask[g.task][kind];
      n += count;
      most = std::max(most, n);
      kinds.insert(kind);
    }
  if (!byTask.empty()) {
    std::vector<std::string> taskNames, series(kinds.begin(), kinds.end());
    std::vector<std::vector<double>> values;
    for (auto &[task, perKind] : byTask) {
      taskNames.push_back(task);
      std::vector<double> row;
      for (const std::string &k : series)
        row.push_back(perKind.count(k) ? perKind.at(k) : 0);
      values.push_back(row);
    }
    barChart(os, "Fallback kinds per task (samples)", taskNames, series, values,
             most, false);
  }

  for (size_t i = leading; i < tables.size(); ++i)
    printTable(tables[i], os);
  os << "</body></html>\n";
}
