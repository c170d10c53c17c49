//===- SvgCharts.cpp - Inline SVG charts for the HTML report --------------===//
//
// Each chart is one <figure><svg> of fixed plot size, widened for its
// legend (about 7 px a character), with four y gridline labels and the
// x labels under the axis. Numbers are written with fixed formats so the
// page is the same for the same store.
//
//===----------------------------------------------------------------------===//

#include "SvgCharts.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace ptxbench::eval;
using namespace ptxbench::eval::svg;
using llvm::formatv;

namespace {

const char *palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
                         "#59a14f", "#edc948", "#b07aa1", "#ff9da7"};
const char *colour(unsigned i) { return palette[i % 8]; }

size_t longest(const std::vector<std::string> &labels) {
  size_t n = 0;
  for (const std::string &l : labels)
    n = std::max(n, l.size());
  return n;
}

constexpr double height = 260, left = 50, top = 30, plotW = 440;

/// The frame: the svg element, the title and the two axes.
void open(llvm::raw_ostream &os, llvm::StringRef title, double width,
          double plotH) {
  os << formatv("<figure><svg xmlns='http://www.w3.org/2000/svg' "
                "width='{0}' height='{1}' role='img'>",
                width, height);
  os << formatv("<text x='{0}' y='18' font-size='14'>{1}</text>", left,
                escape(title));
  os << formatv("<line x1='{0}' y1='{1}' x2='{0}' y2='{2}' stroke='#333'/>"
                "<line x1='{0}' y1='{2}' x2='{3}' y2='{2}' stroke='#333'/>",
                left, top, top + plotH, left + plotW);
}

std::string tick(double v, bool percent) {
  if (percent)
    return formatv("{0:f0}%", v * 100);
  if (v != std::floor(v) && v < 10)
    return formatv("{0:f2}", v);
  return formatv("{0:f0}", v);
}

/// Labels for y = 0, 1/4, ..., 1 of `maxValue`.
void yTicks(llvm::raw_ostream &os, double plotH, double maxValue,
            bool percent) {
  for (int i = 0; i <= 4; ++i)
    os << formatv("<text x='{0}' y='{1:f1}' font-size='10' "
                  "text-anchor='end'>{2}</text>",
                  left - 4, top + plotH - plotH * i / 4 + 3,
                  tick(maxValue * i / 4, percent));
}

void legend(llvm::raw_ostream &os, const std::vector<std::string> &names,
            const std::vector<unsigned> &colours) {
  for (size_t s = 0; s < names.size(); ++s)
    os << formatv("<rect x='{0}' y='{1}' width='10' height='10' fill='{2}'/>"
                  "<text x='{3}' y='{4}' font-size='11'>{5}</text>",
                  left + plotW + 10, top + s * 16, colour(colours[s]),
                  left + plotW + 24, top + s * 16 + 9, escape(names[s]));
}

double legendWidth(const std::vector<std::string> &names) {
  return left + plotW + 24 + 7 * longest(names) + 10;
}

} // namespace

std::string svg::escape(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

void svg::barChart(llvm::raw_ostream &os, llvm::StringRef title,
                   const std::vector<std::string> &categories,
                   const std::vector<std::string> &series,
                   const std::vector<std::vector<double>> &values,
                   double maxValue, bool percent) {
  double plotH = height - top - 60;
  // Counts: the axis up to a multiple of 4, so every label is a whole one.
  if (!percent)
    maxValue = std::max(4.0, std::ceil(maxValue / 4) * 4);
  open(os, title, legendWidth(series), plotH);
  yTicks(os, plotH, maxValue, percent);
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
                    colour(s), escape(categories[c]), escape(series[s]),
                    values[c][s]);
    }
    os << formatv("<text x='{0:f1}' y='{1}' font-size='10' "
                  "text-anchor='middle'>{2}</text>",
                  left + (c + 0.5) * clusterW, top + plotH + 14,
                  escape(categories[c]));
  }
  std::vector<unsigned> colours(series.size());
  for (size_t s = 0; s < series.size(); ++s)
    colours[s] = s;
  legend(os, series, colours);
  os << "</svg></figure>\n";
}

void svg::lineChart(llvm::raw_ostream &os, llvm::StringRef title,
                    llvm::StringRef xLabel, const std::vector<std::string> &xs,
                    const std::vector<Line> &lines, double maxValue,
                    bool percent) {
  double plotH = height - top - 50;
  std::vector<std::string> names;
  std::vector<unsigned> colours;
  for (const Line &l : lines) {
    names.push_back(l.name);
    colours.push_back(l.colour);
  }
  open(os, title, legendWidth(names), plotH);
  yTicks(os, plotH, maxValue, percent);
  // One x value is drawn in the middle.
  auto xAt = [&](size_t i) {
    return xs.size() < 2 ? left + plotW / 2
                         : left + plotW * double(i) / double(xs.size() - 1);
  };
  for (size_t i = 0; i < xs.size(); ++i)
    os << formatv("<text x='{0:f1}' y='{1}' font-size='10' "
                  "text-anchor='middle'>{2}</text>",
                  xAt(i), top + plotH + 14, escape(xs[i]));
  os << formatv("<text x='{0}' y='{1}' font-size='11' "
                "text-anchor='middle'>{2}</text>",
                left + plotW / 2, top + plotH + 32, escape(xLabel));
  for (const Line &l : lines) {
    std::string points;
    for (size_t i = 0; i < l.values.size() && i < xs.size(); ++i) {
      double v = maxValue > 0 ? std::min(l.values[i] / maxValue, 1.0) : 0;
      double x = xAt(i), y = top + plotH - plotH * v;
      points += formatv("{0:f1},{1:f1} ", x, y).str();
      os << formatv("<circle cx='{0:f1}' cy='{1:f1}' r='3' fill='{2}'>"
                    "<title>{3} at {4}: {5}</title></circle>",
                    x, y, colour(l.colour), escape(l.name), escape(xs[i]),
                    percent ? formatv("{0:f1}%", l.values[i] * 100).str()
                            : formatv("{0:f2}", l.values[i]).str());
    }
    os << formatv("<polyline points='{0}' fill='none' stroke='{1}' "
                  "stroke-width='2'{2}/>",
                  points, colour(l.colour),
                  l.dashed ? " stroke-dasharray='6,4'" : "");
  }
  legend(os, names, colours);
  os << "</svg></figure>\n";
}

void svg::scatterChart(llvm::raw_ostream &os, llvm::StringRef title,
                       llvm::StringRef xLabel, llvm::StringRef yLabel,
                       const std::vector<std::string> &series,
                       const std::vector<Point> &points) {
  double plotH = height - top - 50;
  double maxX = 1, maxY = 1;
  for (const Point &p : points) {
    maxX = std::max(maxX, p.x);
    maxY = std::max(maxY, p.y);
  }
  // Round the axes up to a readable number.
  auto roundUp = [](double v) {
    double step = std::pow(10.0, std::floor(std::log10(v)));
    return std::ceil(v / step) * step;
  };
  maxX = roundUp(maxX);
  maxY = roundUp(maxY);
  std::vector<unsigned> colours(series.size());
  for (size_t s = 0; s < series.size(); ++s)
    colours[s] = s;
  open(os, title, legendWidth(series), plotH);
  yTicks(os, plotH, maxY, false);
  for (int i = 0; i <= 4; ++i)
    os << formatv("<text x='{0:f1}' y='{1}' font-size='10' "
                  "text-anchor='middle'>{2}</text>",
                  left + plotW * i / 4, top + plotH + 14,
                  tick(maxX * i / 4, false));
  os << formatv("<text x='{0}' y='{1}' font-size='11' "
                "text-anchor='middle'>{2}</text>",
                left + plotW / 2, top + plotH + 32, escape(xLabel));
  os << formatv("<text x='12' y='{0}' font-size='11' text-anchor='middle' "
                "transform='rotate(-90 12 {0})'>{1}</text>",
                top + plotH / 2, escape(yLabel));
  for (const Point &p : points)
    os << formatv("<circle cx='{0:f1}' cy='{1:f1}' r='3.5' fill='{2}' "
                  "fill-opacity='0.75'><title>{3}: {4:f0}, {5:f2}</title>"
                  "</circle>",
                  left + plotW * p.x / maxX, top + plotH - plotH * p.y / maxY,
                  colour(p.series),
                  escape(p.series < series.size() ? series[p.series] : ""), p.x,
                  p.y);
  legend(os, series, colours);
  os << "</svg></figure>\n";
}
