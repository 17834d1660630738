#include "models/document/figure_comparison.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

namespace sinkscope::document {

namespace {

// The same y range on every panel (each reaches the lowest and highest value
// or interval end any of them draws), unless a panel's own data would fill
// under a tenth of it: then a reader could not read that panel, and each keeps
// its own. Returns whether the range is shared.
bool share_y_range(std::vector<views::LinePlot>& panels) {
  double low = std::numeric_limits<double>::infinity(), high = -low;
  std::vector<double> spans;
  for (const views::LinePlot& plot : panels) {
    double own = std::numeric_limits<double>::infinity(), ownHigh = -own;
    auto reach = [&](const std::vector<double>& values) {
      for (double v : values)
        if (std::isfinite(v)) own = std::min(own, v), ownHigh = std::max(ownHigh, v);
    };
    for (const views::PlotSeries& s : plot.series) {
      if (s.stacked) return false;  // stacked bars sum: their shares stay each panel's
      reach(s.y), reach(s.lo), reach(s.hi);
    }
    if (!(own <= ownHigh)) continue;
    if (plot.includeZero) own = std::min(own, 0.0), ownHigh = std::max(ownHigh, 0.0);
    low = std::min(low, own), high = std::max(high, ownHigh);
    spans.push_back(ownHigh - own);
  }
  if (!(low <= high) || panels.size() < 2) return false;
  for (double span : spans)
    if (span > 0 && span < 0.1 * (high - low)) return false;
  for (views::LinePlot& plot : panels) plot.yReachLow = low, plot.yReachHigh = high;
  return true;
}

// Every model's rows under the union of their columns (by name), after a
// column "model"; comment lines once each (a line that differs between
// models is kept per model).
io::CsvTable joined_table(const std::vector<std::pair<std::string, const io::CsvTable*>>& tables) {
  io::CsvTable out;
  out.columns = {"model"};
  for (const auto& [label, t] : tables)
    for (const std::string& c : t->columns)
      if (std::find(out.columns.begin(), out.columns.end(), c) == out.columns.end())
        out.columns.push_back(c);
  std::map<std::string, std::set<std::string>> valuesOf;
  for (const auto& [label, t] : tables)
    for (const auto& [key, value] : t->comments) valuesOf[key].insert(value);
  std::set<std::pair<std::string, std::string>> written;
  for (const auto& [label, t] : tables) {
    for (const auto& [key, value] : t->comments) {
      const std::string named = valuesOf[key].size() > 1 ? key + " (" + label + ")" : key;
      if (written.insert({named, value}).second) out.comments.emplace_back(named, value);
    }
    for (const auto& row : t->rows) {
      std::vector<std::string> line(out.columns.size());
      line[0] = label;
      for (std::size_t c = 0; c < t->columns.size() && c < row.size(); ++c)
        line[static_cast<std::size_t>(
            std::find(out.columns.begin(), out.columns.end(), t->columns[c]) -
            out.columns.begin())] = row[c];
      out.rows.push_back(std::move(line));
    }
  }
  return out;
}

double cell_number(const io::CsvTable& t, std::size_t row, const std::string& column) {
  const auto at = std::find(t.columns.begin(), t.columns.end(), column);
  if (at == t.columns.end() || row >= t.rows.size()) return std::nan("");
  const std::string& cell = t.rows[row][static_cast<std::size_t>(at - t.columns.begin())];
  try {
    return cell.empty() ? std::nan("") : std::stod(cell);
  } catch (const std::exception&) {
    return std::nan("");
  }
}

// A label that is a whole number or decimal (a training context length, a packing's size).
bool numeric_label(const std::string& label, double& value) {
  std::size_t used = 0;
  try {
    value = std::stod(label, &used);
  } catch (const std::exception&) {
    return false;
  }
  return used == label.size() && std::isfinite(value);
}

// The sink rate of every model (the joined sink_rate table) as one plot: a
// curve against the labels where every label is a number (models trained at
// several context lengths, Barbero et al.), else a point per model, each in
// its own colour and named in the legend.
views::LinePlot sink_rate_plot(const io::CsvTable& joined) {
  views::LinePlot plot;
  plot.title = "The sink rate of each model, with 95% intervals over resampled sentences";
  const double eps = cell_number(joined, 0, "eps");
  plot.yLabel =
      std::isnan(eps) ? "sink rate (%)" : "sink rate (%, α₀ > " + io::csv_number(eps) + ")";
  std::vector<double> at(joined.rows.size());
  bool numeric = !joined.rows.empty();
  for (std::size_t r = 0; r < joined.rows.size() && numeric; ++r)
    numeric = numeric_label(joined.rows[r][0], at[r]);
  if (numeric) {
    std::vector<std::size_t> order(at.size());
    for (std::size_t r = 0; r < order.size(); ++r) order[r] = r;
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return at[a] < at[b]; });
    const double lowest = at[order.front()], highest = at[order.back()];
    plot.log2X = lowest > 0 && highest >= 4 * lowest;
    plot.xLabel = "the models' labels (--labels)" + std::string(plot.log2X ? ", log₂ scale" : "");
    views::PlotSeries s;
    s.name = "sink rate";
    s.inLegend = false;
    for (std::size_t r : order) {
      s.x.push_back(at[r]);
      s.y.push_back(cell_number(joined, r, "sink_rate_percent"));
      s.lo.push_back(cell_number(joined, r, "sink_rate_percent_lo"));
      s.hi.push_back(cell_number(joined, r, "sink_rate_percent_hi"));
    }
    plot.series.push_back(std::move(s));
    return plot;
  }
  plot.xLabel = "model, in the order given";
  plot.integerX = true;
  for (std::size_t r = 0; r < joined.rows.size(); ++r) {
    views::PlotSeries s;
    s.name = joined.rows[r][0];
    s.scatter = true;
    s.x = {static_cast<double>(r + 1)};
    s.y = {cell_number(joined, r, "sink_rate_percent")};
    s.lo = {cell_number(joined, r, "sink_rate_percent_lo")};
    s.hi = {cell_number(joined, r, "sink_rate_percent_hi")};
    plot.series.push_back(std::move(s));
  }
  return plot;
}

}  // namespace

std::vector<ComparedKind> compare_sets(const std::vector<ModelSet>& sets) {
  // The kinds in the papers' order, as the sets name them.
  std::vector<SetFigure> kinds;
  for (const ModelSet& set : sets)
    for (const SetFigure& f : set.figures)
      if (std::none_of(kinds.begin(), kinds.end(),
                       [&](const SetFigure& k) { return k.file == f.file; }))
        kinds.push_back(f);
  std::vector<ComparedKind> out;
  for (const SetFigure& kind : in_papers_order(kinds)) {
    ComparedKind c;
    c.file = kind.file;
    c.paperFigure = kind.paperFigure;
    // A title's notes after " | " (a model's frame, the positions drawn) are each model's own.
    c.title = kind.plot.title.substr(0, kind.plot.title.find(" | "));
    std::vector<std::pair<std::string, const io::CsvTable*>> tables;
    bool drawn = false;
    for (const ModelSet& set : sets) {
      const auto f = std::find_if(set.figures.begin(), set.figures.end(),
                                  [&](const SetFigure& g) { return g.file == kind.file; });
      if (f == set.figures.end()) {
        c.without.push_back(set.label);
        continue;
      }
      c.labels.push_back(set.label);
      tables.emplace_back(set.label, &f->table);
      views::LinePlot panel = f->plot;
      const std::size_t note = panel.title.find(" | ");
      c.notes.push_back(note == std::string::npos ? "" : panel.title.substr(note + 3));
      drawn = drawn || !panel.series.empty() || !panel.title.empty();
      panel.title = set.label;
      panel.numbers = nullptr;  // the joined table is the comparison's numbers
      panel.airBelow = true;    // on a range shared with others, a curve may lie on the axis
      c.panels.push_back(std::move(panel));
    }
    c.table = joined_table(tables);
    if (!drawn) c.panels.clear(), c.notes.clear();
    c.sharedY = share_y_range(c.panels);
    if (c.file == "sink_rate" && !c.table.rows.empty()) {
      c.panels = {sink_rate_plot(c.table)};
      c.title = c.panels.front().title;
      c.notes = {""};
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<std::string> model_labels(const std::vector<std::string>& names,
                                      const std::vector<std::string>& given) {
  if (!given.empty() && given.size() != names.size())
    throw std::invalid_argument("--labels: " + std::to_string(given.size()) + " labels for " +
                                std::to_string(names.size()) + " models");
  std::vector<std::string> labels;
  for (std::size_t k = 0; k < names.size(); ++k) {
    if (!given.empty()) {
      const std::string& l = given[k];
      const bool control = std::any_of(l.begin(), l.end(), [](char ch) {
        return static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f;
      });
      if (l.empty() || l == "." || l == ".." || l.find_first_of("/\\:") != std::string::npos ||
          control || l.size() > 100)
        throw std::invalid_argument("--labels: \"" + l +
                                    "\" cannot name a folder (empty, . or .., a slash, a colon, "
                                    "a control character, or over 100 bytes)");
      if (std::find(labels.begin(), labels.end(), l) != labels.end())
        throw std::invalid_argument("--labels: \"" + l + "\" is given twice");
      labels.push_back(l);
      continue;
    }
    std::filesystem::path path(names[k]);
    while (!path.empty() && path.filename().empty() && path != path.parent_path())
      path = path.parent_path();  // "dir/"
    std::string base = path.filename().string();
    if (base.empty() || base == "." || base == "..") base = "model";
    std::string label = base;
    for (int n = 2; std::find(labels.begin(), labels.end(), label) != labels.end(); ++n)
      label = base + "-" + std::to_string(n);
    labels.push_back(label);
  }
  return labels;
}

}  // namespace sinkscope::document
