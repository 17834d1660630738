#include "models/document/study_views.h"

#include <cmath>
#include <cstdio>

#include "models/views/colours.h"

namespace sinkscope::document {

namespace {

constexpr const char* kClassNames[3] = {"Retriever", "Mixer", "Reset"};

int class_index(const std::string& label) {
  return label == "Retriever" ? 0 : label == "Mixer" ? 1 : 2;
}

std::string fixed(double v, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
  return buffer;
}

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

std::string metric_name(const std::string& metric) {
  if (metric == "bars0_above_min_persistence") return "H0 bars";
  if (metric == "bars1_above_min_persistence") return "H1 bars";
  if (metric == "sink_concentration_percent") return "sink concentration";
  if (metric == "f_n") return "Fₙ of the top-N keys";
  const auto at = metric.find('@');
  if (at != std::string::npos) return "θ = " + metric.substr(at + 1);
  return metric;
}

}  // namespace

std::string with_interval(const Interval& i, int decimals, double scale) {
  std::string text = fixed(i.value * scale, decimals);
  if (std::isfinite(i.lo) && std::isfinite(i.hi))
    text += " [" + fixed(i.lo * scale, decimals) + ", " + fixed(i.hi * scale, decimals) + "]";
  return text;
}

const std::vector<std::string>& study_grid_names() {
  static const std::vector<std::string> names{
      "Share of sentences with a sink", "Taxonomy: sink vote share",
      "Taxonomy: current-token vote share", "Head class (pooled votes)"};
  return names;
}

views::HeatMap study_grid(const StudyTables& s, StudyGrid what, int layer, int head) {
  views::HeatMap grid;
  grid.rows = s.layers;
  grid.cols = s.heads;
  grid.rowTitle = "layer";
  grid.colTitle = "head";
  grid.outlineRow = layer;
  grid.outlineCol = head;
  for (int l = 0; l < s.layers; ++l) grid.rowLabels.push_back("L" + std::to_string(l));
  for (int h = 0; h < s.heads; ++h) grid.colLabels.push_back("H" + std::to_string(h));
  auto pick = [&](const StudyHead& h) -> const Interval& {
    return what == StudyGrid::SinkVotes      ? h.sinkShare
           : what == StudyGrid::CurrentVotes ? h.currentShare
                                             : h.sampleShare;
  };
  for (int l = 0; l < s.layers; ++l)
    for (int h = 0; h < s.heads; ++h) {
      const StudyHead& one = s.head(l, h);
      grid.values.push_back(what == StudyGrid::HeadClass
                                ? static_cast<float>(class_index(one.label))
                                : static_cast<float>(pick(one).value));
    }
  const std::string& name = study_grid_names()[static_cast<std::size_t>(what)];
  std::string value;
  if (layer >= 0 && layer < s.layers && head >= 0 && head < s.heads) {
    const StudyHead& chosen = s.head(layer, head);
    value = what == StudyGrid::HeadClass ? chosen.label : with_interval(pick(chosen));
  }
  if (what == StudyGrid::HeadClass) {
    grid.quantity = "head class";
    grid.categories = {kClassNames[0], kClassNames[1], kClassNames[2]};
    grid.categoryColours = {views::kHeadClassColours[0], views::kHeadClassColours[1],
                            views::kHeadClassColours[2]};
  } else {
    grid.fixedRange = true;
    grid.rangeMin = 0.0;
    grid.rangeMax = 1.0;
    grid.quantity = lower(name);
  }
  grid.title =
      name + " | layer " + std::to_string(layer) + ", head " + std::to_string(head) + ": " + value;
  return grid;
}

std::vector<StudyProfile> study_profiles(const StudyTables& s) {
  auto withPrefix = [&](const std::string& prefix) {
    std::vector<std::string> out;
    for (const auto& m : s.profileOrder)
      if (m.rfind(prefix + "@", 0) == 0) out.push_back(m);
    return out;
  };
  std::vector<StudyProfile> all = {
      {"Sink concentration", "% of attention on sinks", {"sink_concentration_percent"}, ""},
      {"Sink metric α₀ of the first token", "α₀", {"alpha0"}, "uniform"},
      {"Sink boost α₀ / uniform baseline", "boost", {"boost"}, "one"},
      {"Persistence: bars above min persistence",
       "bars (mean over heads)",
       {"bars0_above_min_persistence", "bars1_above_min_persistence"},
       ""},
      {"Fiedler value of the head-averaged graph", "λ₂", withPrefix("fiedler"), ""},
      {"Degree centralisation of the head-averaged graph", "centralisation",
       withPrefix("centralisation"), ""},
      {"Fₙ at the last token against random subsets", "Fₙ", {"f_n"}, "f_n_random"}};
  std::vector<StudyProfile> present;
  for (auto& c : all) {
    bool every = !c.metrics.empty();
    for (const auto& m : c.metrics) every = every && s.profiles.count(m);
    if (every && (c.reference.empty() || c.reference == "one" || c.reference == "uniform" ||
                  s.profiles.count(c.reference)))
      present.push_back(std::move(c));
  }
  if (!s.functional.empty())
    present.push_back({"KL of sink removal, per layer", "mean KL (nats)", {"kl"}, ""});
  return present;
}

views::LinePlot study_profile_plot(const StudyTables& s, int index) {
  const auto choices = study_profiles(s);
  views::LinePlot plot;
  plot.xLabel = "layer";
  plot.integerX = true;
  if (index < 0 || index >= static_cast<int>(choices.size())) {
    plot.title = "No layer profiles in this study";
    return plot;
  }
  const StudyProfile& c = choices[static_cast<std::size_t>(index)];
  plot.title =
      c.label + " | mean over " + std::to_string(s.sentences) + " sentences, 95% intervals";
  plot.yLabel = c.yLabel;
  auto seriesOf = [&](const std::vector<Interval>& values, const std::string& name) {
    views::PlotSeries series;
    series.name = name;
    for (std::size_t l = 0; l < values.size(); ++l) {
      series.x.push_back(static_cast<double>(l));
      series.y.push_back(values[l].value);
      series.lo.push_back(values[l].lo);
      series.hi.push_back(values[l].hi);
    }
    return series;
  };
  if (c.metrics.front() == "kl") {  // functional.csv: one row per layer, then "all"
    std::vector<Interval> kl(static_cast<std::size_t>(s.layers),
                             Interval{std::nan(""), std::nan(""), std::nan("")});
    for (const auto& [key, value] : s.functional)
      for (int l = 0; l < s.layers; ++l)
        if (key == "kl_sink_removal " + std::to_string(l)) kl[static_cast<std::size_t>(l)] = value;
    plot.series.push_back(seriesOf(kl, "sinks removed in that layer"));
  } else {
    for (const auto& metric : c.metrics)
      plot.series.push_back(seriesOf(s.profiles.at(metric), metric_name(metric)));
  }
  if (!c.reference.empty()) {
    views::PlotSeries ref;
    ref.reference = true;
    for (int l = 0; l < s.layers; ++l) {
      ref.x.push_back(l);
      if (c.reference == "one")
        ref.y.push_back(1.0);
      else if (c.reference == "uniform")
        ref.y.push_back(s.meanUniformBaseline);
      else
        ref.y.push_back(s.profiles.at(c.reference)[static_cast<std::size_t>(l)].value);
    }
    ref.name = c.reference == "one"       ? "no boost (1)"
               : c.reference == "uniform" ? "uniform baseline (mean over sentences)"
                                          : "random subsets of N keys";
    plot.series.push_back(std::move(ref));
  }
  return plot;
}

views::LinePlot study_head_classes_plot(const StudyTables& s) {
  views::LinePlot plot;
  plot.title =
      "Head classes per layer (votes pooled over " + std::to_string(s.sentences) + " sentences)";
  plot.xLabel = "layer";
  plot.yLabel = "heads";
  plot.integerX = plot.integerY = true;
  plot.includeZero = true;
  plot.xPadding = 0.5;
  for (int c = 0; c < 3; ++c) {
    // Stacked per layer, as Mudarisov et al. draw the classes (their Fig. 4a)
    // and the head-class figures here do.
    views::PlotSeries series;
    series.name = kClassNames[c];
    series.colour = views::kHeadClassColours[c];
    series.stacked = true;
    for (int l = 0; l < s.layers; ++l) {
      int n = 0;
      for (int h = 0; h < s.heads; ++h) n += class_index(s.head(l, h).label) == c ? 1 : 0;
      series.x.push_back(l);
      series.y.push_back(n);
    }
    plot.series.push_back(std::move(series));
  }
  return plot;
}

}  // namespace sinkscope::document
