//===- ReportHTML.cpp - `ptxbench report --format html` -------------------===//
//
// One self-contained page: the report's tables and three plots drawn as
// inline SVG (no scripts, fonts or images from elsewhere): fast_p over p
// per group, requested-feature use by context level, and fallback kinds
// per task.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/ReportTables.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <set>

using namespace ptxbench::eval;
using llvm::formatv;

namespace {

const char *palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
                         "#59a14f", "#edc948", "#b07aa1", "#ff9da7"};

std::string escape(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '&': out += "&amp;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

size_t longest(const std::vector<std::string> &labels) {
  size_t n = 0;
  for (const std::string &l : labels)
    n = std::max(n, l.size());
  return n;
}

/// A grouped bar chart: one cluster per category, one bar per series,
/// values in [0, maxValue].
void barChart(llvm::raw_ostream &os, llvm::StringRef title,
              const std::vector<std::string> &categories,
              const std::vector<std::string> &series,
              const std::vector<std::vector<double>> &values, double maxValue,
              bool percent) {
  const double h = 260, left = 50, bottom = 60, top = 30;
  double plotW = 440, plotH = h - top - bottom;
  // Wide enough for the longest legend label (about 7px a character).
  double w = left + plotW + 24 + 7 * longest(series) + 10;
  os << formatv("<figure><svg xmlns='http://www.w3.org/2000/svg' "
                "width='{0}' height='{1}' role='img'>",
                w, h);
  os << formatv("<text x='{0}' y='18' font-size='14'>{1}</text>", left,
                escape(title));
  os << formatv("<line x1='{0}' y1='{1}' x2='{0}' y2='{2}' stroke='#333'/>",
                left, top, top + plotH);
  os << formatv("<line x1='{0}' y1='{1}' x2='{2}' y2='{1}' stroke='#333'/>",
                left, top + plotH, left + plotW);
  for (int i = 0; i <= 4; ++i) {
    double v = maxValue * i / 4, y = top + plotH - plotH * i / 4;
    os << formatv("<text x='{0}' y='{1}' font-size='10' "
                  "text-anchor='end'>{2}</text>",
                  left - 4, y + 3,
                  percent ? formatv("{0:f0}%", v * 100).str()
                          : formatv("{0:f0}", v).str());
  }
  double clusterW = categories.empty() ? plotW : plotW / categories.size();
  double barW = series.empty() ? 0 : clusterW * 0.8 / series.size();
  for (size_t c = 0; c < categories.size(); ++c) {
    double x0 = left + c * clusterW + clusterW * 0.1;
    for (size_t s = 0; s < series.size(); ++s) {
      double v = maxValue > 0 ? std::min(values[c][s] / maxValue, 1.0) : 0;
      os << formatv("<rect x='{0:f1}' y='{1:f1}' width='{2:f1}' "
                    "height='{3:f1}' fill='{4}'><title>{5} {6}: {7:f2}"
                    "</title></rect>",
                    x0 + s * barW, top + plotH - v * plotH, barW, v * plotH,
                    palette[s % 8], escape(categories[c]), escape(series[s]),
                    values[c][s]);
    }
    os << formatv("<text x='{0:f1}' y='{1}' font-size='10' "
                  "text-anchor='middle'>{2}</text>",
                  left + (c + 0.5) * clusterW, top + plotH + 14,
                  escape(categories[c]));
  }
  for (size_t s = 0; s < series.size(); ++s)
    os << formatv("<rect x='{0}' y='{1}' width='10' height='10' fill='{2}'/>"
                  "<text x='{3}' y='{4}' font-size='11'>{5}</text>",
                  left + plotW + 10, top + s * 16, palette[s % 8],
                  left + plotW + 24, top + s * 16 + 9, escape(series[s]));
  os << "</svg></figure>\n";
}

/// fast_p over p, one line per series.
void fastPChart(llvm::raw_ostream &os,
                const std::vector<std::pair<std::string,
                                            std::vector<double>>> &lines) {
  const double h = 260, left = 50, bottom = 40, top = 30;
  double plotW = 440, plotH = h - top - bottom;
  std::vector<std::string> names;
  for (const auto &line : lines)
    names.push_back(line.first);
  double w = left + plotW + 10 + 7 * longest(names) + 10;
  double maxP = fastPThresholds.back();
  os << formatv("<figure><svg xmlns='http://www.w3.org/2000/svg' "
                "width='{0}' height='{1}' role='img'>",
                w, h);
  os << formatv("<text x='{0}' y='18' font-size='14'>fast_p over p "
                "(dev workloads)</text>",
                left);
  os << formatv("<line x1='{0}' y1='{1}' x2='{0}' y2='{2}' stroke='#333'/>"
                "<line x1='{0}' y1='{2}' x2='{3}' y2='{2}' stroke='#333'/>",
                left, top, top + plotH, left + plotW);
  for (double p : fastPThresholds)
    os << formatv("<text x='{0:f1}' y='{1}' font-size='10' "
                  "text-anchor='middle'>{2}</text>",
                  left + plotW * p / maxP, top + plotH + 14, p);
  for (int i = 0; i <= 4; ++i)
    os << formatv("<text x='{0}' y='{1:f1}' font-size='10' "
                  "text-anchor='end'>{2}%</text>",
                  left - 4, top + plotH - plotH * i / 4 + 3, i * 25);
  for (size_t l = 0; l < lines.size(); ++l) {
    std::string points;
    for (size_t i = 0; i < fastPThresholds.size(); ++i)
      points += formatv("{0:f1},{1:f1} ",
                        left + plotW * fastPThresholds[i] / maxP,
                        top + plotH - plotH * lines[l].second[i])
                    .str();
    os << formatv("<polyline points='{0}' fill='none' stroke='{1}' "
                  "stroke-width='2'/>",
                  points, palette[l % 8]);
    os << formatv("<text x='{0}' y='{1}' font-size='11' fill='{2}'>{3}"
                  "</text>",
                  left + plotW + 10, top + l * 16 + 9, palette[l % 8],
                  escape(lines[l].first));
  }
  os << "</svg></figure>\n";
}

} // namespace

void ptxbench::eval::printHTML(const std::vector<GroupStats> &groups,
                               const std::vector<Table> &tables,
                               llvm::raw_ostream &os) {
  os << "<!DOCTYPE html>\n<html><head><meta charset='utf-8'>"
        "<title>ptxbench report</title><style>"
        "body{font-family:sans-serif;margin:2em;color:#222}"
        "table{border-collapse:collapse;margin:1em 0}"
        "th,td{border:1px solid #bbb;padding:3px 8px;font-size:13px}"
        "th{background:#eee}td{text-align:right}"
        "td:nth-child(-n+4){text-align:left}figure{margin:1em 0}"
        "</style></head><body>\n<h1>ptxbench report</h1>\n";

  // fast_p curves, for groups with runs.
  std::vector<std::pair<std::string, std::vector<double>>> curves;
  for (const GroupStats &g : groups) {
    auto it = g.splits.find("dev");
    if (it == g.splits.end() || !it->second.runs)
      continue;
    std::vector<double> ys;
    for (unsigned fast : it->second.fast)
      ys.push_back(double(fast) / it->second.runs);
    curves.push_back({g.model + "/" + g.context + "/" + g.task, ys});
  }
  if (!curves.empty())
    fastPChart(os, curves);

  // Feature use by context level: pooled over models and tasks; the run's
  // verdict where a run measured it, else the static one.
  std::map<std::string, std::map<std::string, std::pair<unsigned, unsigned>>>
      byContext;
  std::set<std::string> families;
  for (const GroupStats &g : groups)
    for (auto &[family, used] : g.used) {
      auto &cell = byContext[g.context][family];
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
    std::vector<std::string> contexts, series(families.begin(),
                                              families.end());
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
    barChart(os, "Requested-feature use by context level", contexts, series,
             values, 1.0, true);
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
    barChart(os, "Fallback kinds per task (samples)", taskNames, series,
             values, most, false);
  }

  for (const Table &t : tables) {
    os << "<h2>" << escape(t.title) << "</h2>\n";
    if (t.rows.empty()) {
      os << "<p>(none)</p>\n";
      continue;
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
  os << "</body></html>\n";
}
