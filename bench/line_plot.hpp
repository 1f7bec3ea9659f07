#pragma once
// Line plots of a benchmark's CSV curves as SVG: one line per value of a group column (the run),
// y against x, with axes, ticks and a legend. Numeric columns only; no dependencies.
//
//   bench::plot_csv("out/curves.csv", "out/loss.svg", {.y = "train_loss", .title = "MLP"});
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace variate::bench {

/// Which columns to plot: a line per distinct `group` value, `y` against `x`.
struct PlotSpec {
  std::string group = "run", x = "step", y;
  std::string title;
  bool log_y = false;  // y on a log10 axis; every y must then be positive
};

namespace plot_detail {

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;
};

inline std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
  return cells;
}

inline std::size_t column(const std::vector<std::string>& header, const std::string& name,
                          const std::filesystem::path& csv) {
  const auto it = std::find(header.begin(), header.end(), name);
  if (it == header.end()) throw std::runtime_error("plot_csv: " + csv.string() + " has no column '" + name + "'");
  return std::size_t(it - header.begin());
}

// The CSV's rows as series, in the order each group first appears, y transformed to log10 if asked.
inline std::vector<Series> read_series(const std::filesystem::path& csv, const PlotSpec& spec) {
  std::ifstream in(csv);
  std::string line;
  if (!in || !std::getline(in, line)) throw std::runtime_error("plot_csv: cannot read a header from " + csv.string());
  const std::vector<std::string> header = split_csv_line(line);
  const std::size_t g = column(header, spec.group, csv), x = column(header, spec.x, csv),
                    y = column(header, spec.y, csv);
  std::vector<Series> series;
  for (int row = 2; std::getline(in, line); ++row) {
    const std::vector<std::string> cells = split_csv_line(line);
    if (cells.size() != header.size())
      throw std::runtime_error("plot_csv: " + csv.string() + " row " + std::to_string(row) + " has " +
                               std::to_string(cells.size()) + " cells, the header " + std::to_string(header.size()));
    double value = std::stod(cells[y]);
    if (spec.log_y) {
      if (!(value > 0))
        throw std::runtime_error("plot_csv: a log axis needs positive values, " + csv.string() + " row " +
                                 std::to_string(row) + " has " + spec.y + " = " + cells[y]);
      value = std::log10(value);
    }
    auto it = std::find_if(series.begin(), series.end(), [&](const Series& s) { return s.name == cells[g]; });
    if (it == series.end()) it = series.insert(series.end(), {cells[g], {}});
    it->points.emplace_back(std::stod(cells[x]), value);
  }
  if (series.empty()) throw std::runtime_error("plot_csv: " + csv.string() + " has no rows");
  return series;
}

// [lo, hi] of the x (first) or y (second) values, widened when all are equal.
template <class Get>
std::pair<double, double> range(const std::vector<Series>& series, Get get) {
  double lo = INFINITY, hi = -INFINITY;
  for (const Series& s : series)
    for (const auto& p : s.points) lo = std::min(lo, get(p)), hi = std::max(hi, get(p));
  if (hi == lo) lo -= 0.5 + std::abs(lo) / 2, hi += 0.5 + std::abs(hi) / 2;
  return {lo, hi};
}

inline std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

}  // namespace plot_detail

/// Writes `svg`, a line plot of `csv` (a header row, then comma-separated rows) as `spec` says.
/// Throws naming the file for a missing column, a ragged row, no rows, or a non-positive value on
/// a log axis.
inline void plot_csv(const std::filesystem::path& csv, const std::filesystem::path& svg, const PlotSpec& spec) {
  using namespace plot_detail;
  const std::vector<Series> series = read_series(csv, spec);
  const auto [x0, x1] = range(series, [](const auto& p) { return p.first; });
  const auto [y0, y1] = range(series, [](const auto& p) { return p.second; });
  constexpr double width = 720, height = 420, left = 70, right = 180, top = 40, bottom = 50;
  auto px = [&](double x) { return left + (x - x0) / (x1 - x0) * (width - left - right); };
  auto py = [&](double y) { return height - bottom - (y - y0) / (y1 - y0) * (height - top - bottom); };
  std::ofstream out(svg);
  if (!out) throw std::runtime_error("plot_csv: cannot write " + svg.string());
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << width / 2 << "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">" << spec.title
      << "</text>\n<text x=\"" << (left + width - right) / 2 << "\" y=\"" << height - 12 << "\" text-anchor=\"middle\">"
      << spec.x << "</text>\n<text transform=\"translate(16," << height / 2 << ") rotate(-90)\" text-anchor=\"middle\">"
      << (spec.log_y ? spec.y + " (log scale)" : spec.y) << "</text>\n"
      << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << width - left - right << "\" height=\""
      << height - top - bottom << "\" fill=\"none\" stroke=\"black\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    const double x = x0 + (x1 - x0) * i / 4, y = y0 + (y1 - y0) * i / 4;
    out << "<text x=\"" << px(x) << "\" y=\"" << height - bottom + 16 << "\" text-anchor=\"middle\">" << number(x)
        << "</text>\n<text x=\"" << left - 6 << "\" y=\"" << py(y) + 4 << "\" text-anchor=\"end\">"
        << number(spec.log_y ? std::pow(10.0, y) : y) << "</text>\n<line x1=\"" << left << "\" x2=\"" << width - right
        << "\" y1=\"" << py(y) << "\" y2=\"" << py(y) << "\" stroke=\"#ddd\"/>\n";
  }
  const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
  for (std::size_t s = 0; s < series.size(); ++s) {
    const char* colour = colours[s % std::size(colours)];
    out << "<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"" << colour << "\" points=\"";
    for (const auto& [x, y] : series[s].points) out << px(x) << ',' << py(y) << ' ';
    const double legend_y = top + 10 + 18 * double(s);
    out << "\"/>\n<line x1=\"" << width - right + 12 << "\" x2=\"" << width - right + 32 << "\" y1=\"" << legend_y
        << "\" y2=\"" << legend_y << "\" stroke-width=\"2\" stroke=\"" << colour << "\"/>\n<text x=\""
        << width - right + 38 << "\" y=\"" << legend_y + 4 << "\">" << series[s].name << "</text>\n";
  }
  out << "</svg>\n";
}

}  // namespace variate::bench
