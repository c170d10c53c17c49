//===- SvgCharts.h - Inline SVG charts for the HTML report ------*- C++ -*-===//
//
// The report's page draws its charts as inline SVG, with no scripts, fonts
// or images from elsewhere: grouped bars, lines over equally spaced x
// values, and scattered points, each with a title, axes and a legend, and
// every mark with a <title> tooltip. Private to lib/Eval.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_LIB_EVAL_SVGCHARTS_H
#define PTXBENCH_LIB_EVAL_SVGCHARTS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace ptxbench::eval::svg {

/// `text` with <, >, & and " escaped for HTML.
std::string escape(llvm::StringRef text);

/// A grouped bar chart: one cluster per category, one bar per series,
/// values in [0, maxValue] (`values[category][series]`).
void barChart(llvm::raw_ostream &os, llvm::StringRef title,
              const std::vector<std::string> &categories,
              const std::vector<std::string> &series,
              const std::vector<std::vector<double>> &values, double maxValue,
              bool percent);

struct Line {
  std::string name;
  /// One value per x label.
  std::vector<double> values;
  /// The colour's index in the palette (lines of one model share it).
  unsigned colour = 0;
  bool dashed = false;
};
/// Lines over equally spaced x values, y in [0, maxValue].
void lineChart(llvm::raw_ostream &os, llvm::StringRef title,
               llvm::StringRef xLabel, const std::vector<std::string> &xs,
               const std::vector<Line> &lines, double maxValue, bool percent);

struct Point {
  double x = 0, y = 0;
  unsigned series = 0;
};
/// Points on linear axes from 0, one colour per series.
void scatterChart(llvm::raw_ostream &os, llvm::StringRef title,
                  llvm::StringRef xLabel, llvm::StringRef yLabel,
                  const std::vector<std::string> &series,
                  const std::vector<Point> &points);

} // namespace ptxbench::eval::svg

#endif // PTXBENCH_LIB_EVAL_SVGCHARTS_H
