#include "models/views/heat_map.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace sinkscope::views {

HeatMap heat_map_without_selection(HeatMap data) {
  data.outlineRow = data.outlineCol = -1;
  data.framedCells.clear();
  data.highlighted.clear();
  data.rightHighlighted.clear();
  return data;
}

void heat_map_check(const HeatMap& data) {
  const auto cells = static_cast<std::size_t>(std::max(data.rows, 0)) *
                     static_cast<std::size_t>(std::max(data.cols, 0));
  if (data.rows < 0 || data.cols < 0 || data.values.size() != cells)
    throw std::invalid_argument("heat map: values do not match rows x cols");
  if (!data.hidden.empty() && data.hidden.size() != cells)
    throw std::invalid_argument("heat map: hidden mask does not match rows x cols");
  if (!data.categories.empty() && data.categoryColours.size() != data.categories.size())
    throw std::invalid_argument("heat map: one colour per category needed");
}

std::pair<double, double> heat_map_range(const HeatMap& data) {
  if (!data.categories.empty()) return {0.0, static_cast<double>(data.categories.size()) - 1.0};
  auto visible = [&](std::size_t k) { return data.hidden.empty() || !data.hidden[k]; };
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::size_t k = 0; k < data.values.size(); ++k) {
    const double v = data.values[k];
    if (visible(k) && std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  if (data.fixedRange) lo = data.rangeMin, hi = data.rangeMax;
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0.0, hi = 1.0;
  if (data.logScale) {
    // The smallest positive weight shown sets the bottom of the scale.
    double smallest = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < data.values.size(); ++k)
      if (data.values[k] > 0 && visible(k))
        smallest = std::min(smallest, static_cast<double>(data.values[k]));
    lo = std::isfinite(smallest) ? std::max(smallest, 1e-6) : 1e-6;
    if (hi <= lo) hi = lo * 10;
  }
  if (hi <= lo) hi = lo + 1e-6;
  if (data.diverging) {
    const double m = std::max({std::abs(lo), std::abs(hi), 1e-9});
    lo = -m, hi = m;
  }
  return {lo, hi};
}

HeatMap heat_map_side_by_side(const HeatMap& left, const HeatMap& right, const std::string& leftRun,
                              const std::string& rightRun) {
  HeatMap d = left;
  d.numbers.reset();  // the caller tables both runs (a "run" column)
  d.leftRun = leftRun;
  d.rightRun = rightRun;
  d.rows = std::max(left.rows, right.rows);
  d.cols = left.cols + 1 + right.cols;
  const auto cells = static_cast<std::size_t>(d.rows) * static_cast<std::size_t>(d.cols);
  d.values.assign(cells, 0.0f);
  d.hidden.assign(cells, true);
  auto place = [&](const HeatMap& m, int offset) {
    for (int r = 0; r < m.rows; ++r)
      for (int c = 0; c < m.cols; ++c) {
        const std::size_t from = static_cast<std::size_t>(r) * m.cols + c;
        const std::size_t to = static_cast<std::size_t>(r) * d.cols + offset + c;
        d.values[to] = m.values[from];
        d.hidden[to] = !m.hidden.empty() && m.hidden[from];
      }
  };
  place(left, 0);
  place(right, left.cols + 1);
  const bool labelled = left.rowLabels.size() == static_cast<std::size_t>(left.rows) &&
                        right.rowLabels.size() == static_cast<std::size_t>(right.rows) &&
                        left.colLabels.size() == static_cast<std::size_t>(left.cols) &&
                        right.colLabels.size() == static_cast<std::size_t>(right.cols);
  d.rowLabels.clear();
  d.colLabels.clear();
  if (labelled) {
    // Each map keeps its own row labels (padding rows unlabelled): the left's
    // on the left, the right's on the right.
    d.rowLabels = left.rowLabels;
    d.rowLabels.resize(static_cast<std::size_t>(d.rows));
    d.rightRowLabels = right.rowLabels;
    d.rightRowLabels.resize(static_cast<std::size_t>(d.rows));
    d.colLabels = left.colLabels;
    d.colLabels.push_back({});
    d.colLabels.insert(d.colLabels.end(), right.colLabels.begin(), right.colLabels.end());
  }
  d.rightHighlighted = right.highlighted;
  for (int c : right.markedCols) d.markedCols.push_back(left.cols + 1 + c);
  for (const auto& [r, c] : right.framedCells) d.framedCells.push_back({r, left.cols + 1 + c});
  d.sideBySideSplit = left.cols;
  // A frame on the right map only (the head average has no cell: no frame).
  if (left.outlineRow < 0 || left.outlineCol < 0) {
    const bool framed = right.outlineRow >= 0 && right.outlineCol >= 0;
    d.outlineRow = framed ? right.outlineRow : -1;
    d.outlineCol = framed ? left.cols + 1 + right.outlineCol : -1;
  }
  return d;
}

bool heat_map_label_lit(const HeatMap& data, bool column, bool right, int index) {
  const bool ofRight = column ? data.sideBySideSplit >= 0 && index > data.sideBySideSplit : right;
  if (column) index = heat_map_own_column(data, index);
  if (index < 0) return false;
  const std::vector<int>& lit = ofRight ? data.rightHighlighted : data.highlighted;
  return std::find(lit.begin(), lit.end(), index) != lit.end();
}

int heat_map_own_column(const HeatMap& data, int col) {
  const int split = data.sideBySideSplit;
  if (split < 0 || col < 0) return col;
  if (col < split) return col;  // the left map
  if (col == split) return -1;  // the gap
  return col - split - 1;       // the right map
}

}  // namespace sinkscope::views
