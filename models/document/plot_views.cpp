#include "models/document/plot_views.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>

#include "analysis/persistence.h"
#include "analysis/sink_metric.h"
#include "models/document/trace_analysis.h"

namespace sinkscope::document {

std::string short_number(double v, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*g", digits, v);
  return text;
}

namespace {

std::string token_at(const std::vector<std::string>& tokens, int t) {
  return t >= 0 && t < static_cast<int>(tokens.size()) ? tokens[static_cast<std::size_t>(t)]
                                                       : std::string();
}

std::vector<double> positions(std::size_t n) {
  std::vector<double> x(n);
  for (std::size_t k = 0; k < n; ++k) x[k] = static_cast<double>(k);
  return x;
}

std::shared_ptr<const io::CsvTable> two_runs(const RunNames& names, const io::CsvTable& before,
                                             const io::CsvTable& after) {
  return std::make_shared<const io::CsvTable>(
      tables_by_run({{names.before, &before}, {names.after, &after}}));
}

bool has_points(const views::PlotSeries& s) {
  return std::any_of(s.y.begin(), s.y.end(), [](double y) { return std::isfinite(y); });
}

}  // namespace

std::string runs_styles(const RunNames& names) {
  const bool beforeSolid = names.comparison;
  return (beforeSolid ? names.before : names.after) + " (solid) and " +
         (beforeSolid ? names.after : names.before) + " (dashed)";
}

std::vector<views::PlotSeries> overlaid_runs(std::vector<views::PlotSeries> after,
                                             std::vector<views::PlotSeries> before,
                                             const RunNames& names) {
  const bool beforeSolid = names.comparison;
  std::vector<views::PlotSeries>& solid = beforeSolid ? before : after;
  std::vector<views::PlotSeries>& dashed = beforeSolid ? after : before;
  const std::string& solidRun = beforeSolid ? names.before : names.after;
  const std::string& dashedRun = beforeSolid ? names.after : names.before;
  const bool lone = solid.size() == 1;
  std::vector<views::PlotSeries> out;
  for (views::PlotSeries& s : solid) {
    s.run = solidRun;
    if (lone) s.name += ", " + solidRun;
    out.push_back(std::move(s));
  }
  bool twins = false;
  for (std::size_t k = 0; k < dashed.size() && k < out.size(); ++k) {
    if (!has_points(dashed[k])) continue;  // e.g. a measure the other run did not compute
    views::PlotSeries s = std::move(dashed[k]);
    s.run = dashedRun;
    s.dashed = true;
    s.colour.reset();
    s.colourOf = static_cast<int>(k);
    s.inLegend = lone;
    if (lone) s.name += ", " + dashedRun;
    out.push_back(std::move(s));
    twins = true;
  }
  if (lone || !twins) return out;
  // Several quantities: each named once (its colour), and two entries saying
  // which run each line style is.
  for (const auto& [run, isDashed] : {std::pair{solidRun, false}, {dashedRun, true}}) {
    views::PlotSeries key;
    key.name = (isDashed ? "dashed: " : "solid: ") + run;
    key.dashed = isDashed;
    key.markers = false;
    key.colour = views::Rgb{0.35, 0.35, 0.35};
    key.run = run;
    out.push_back(std::move(key));
  }
  return out;
}

std::string head_name(int head) {
  return head < 0 ? "head average" : "head " + std::to_string(head);
}

std::string computing_title(const std::string& what, int layer, int head, int tokens) {
  return what + " | layer " + std::to_string(layer) + ", " + head_name(head) +
         " | computing in the background (T = " + std::to_string(tokens) + ")...";
}

views::LinePlot note_plot(const std::string& title) {
  views::LinePlot plot;
  plot.title = title;
  return plot;
}

// --- key importance ---------------------------------------------------------

namespace {

// alpha_k of `map`, each key named by its token (the CSV names them).
views::PlotSeries key_importance_series(const analysis::AttentionMatrix& map,
                                        const std::vector<std::string>& tokens,
                                        const std::string& name) {
  views::PlotSeries alpha{name, {}, analysis::sink_key_importance(map.view())};
  for (std::size_t k = 0; k < alpha.y.size(); ++k) {
    alpha.x.push_back(static_cast<double>(k));
    alpha.labels.push_back(token_at(tokens, static_cast<int>(k)));
  }
  return alpha;
}

// sinks.csv's rows (analyze's) for one head of an analysed run; null before
// the analysis is in.
std::shared_ptr<const io::CsvTable> sink_rows(const TraceAnalysis* a, const PlotPlace& place,
                                              const std::vector<std::string>& tokens) {
  if (!a || place.layer >= a->layers) return nullptr;
  auto table = std::make_shared<io::CsvTable>();
  table->columns = sink_key_columns();
  append_sink_key_rows(*table, std::to_string(place.layer), head_text(place.head),
                       a->at(place.layer, place.head), tokens, a->causal);
  return table;
}

}  // namespace

views::LinePlot key_importance_plot(const KeyImportanceInputs& in,
                                    const KeyImportanceBefore* before) {
  const std::vector<std::string>& tokens = *in.tokens;
  const analysis::AttentionMatrix& map = *in.map;
  const int T = map.size;
  views::LinePlot plot;
  plot.title = "Key importance αₖ | " + in.source + ", layer " + std::to_string(in.place.layer) +
               ", " + head_name(in.place.head) + in.place.note;
  plot.xLabel = "key position k";
  plot.integerX = true;
  plot.yLabel = "αₖ";
  views::PlotSeries alpha =
      key_importance_series(map, tokens, in.uniform ? "αₖ (uniform head)" : "αₖ");
  views::PlotSeries baseline{"uniform baseline", {}, {}, true};
  // The sink threshold the run's heads were analysed with.
  const double epsValue = in.analysis ? in.analysis->settings.eps : analysis::kDefaultSinkMetricEps;
  views::PlotSeries eps{"ε = " + short_number(epsValue) + " (sink threshold)", {}, {}, false, true};
  baseline.y = analysis::sink_uniform_baselines(T, map.causal);
  baseline.x = positions(baseline.y.size());
  eps.x = {0.0, static_cast<double>(std::max(T - 1, 1))};
  eps.y = {epsValue, epsValue};
  plot.numbers = sink_rows(in.analysis, in.place, tokens);
  plot.series = in.uniform ? std::vector<views::PlotSeries>{alpha, eps}
                           : std::vector<views::PlotSeries>{alpha, baseline, eps};
  if (in.keyToken >= 0) plot.markedX = in.keyToken;
  if (!before) {
    if (tokens.size() == static_cast<std::size_t>(T)) plot.xTickLabels = tokens;
    return plot;
  }

  const RunNames& names = before->names;
  // The dashed run in the palette's next colour: the grey dashed line is the
  // uniform baseline, and the two must not look alike.
  views::PlotSeries plain = key_importance_series(*before->map, *before->tokens, "αₖ");
  if (before->byToken) {
    // Two tokenizers: B's points at the positions of A's tokens covering the
    // same characters (the others have no place on A's axis), A's baseline.
    views::PlotSeries byToken = alpha;
    byToken.x.clear(), byToken.y.clear(), byToken.labels.clear();
    for (std::size_t j = 0; j < before->bToA.size() && j < alpha.y.size(); ++j)
      if (before->bToA[j] >= 0) {
        byToken.x.push_back(before->bToA[j]);
        byToken.y.push_back(alpha.y[j]);
        byToken.labels.push_back(j < alpha.labels.size() ? alpha.labels[j] : std::string());
      }
    byToken.name = "αₖ at " + names.before + "'s tokens";
    alpha = std::move(byToken);
    const int beforeT = before->map->size;
    baseline.y = analysis::sink_uniform_baselines(beforeT, before->map->causal);
    baseline.x = positions(baseline.y.size());
    eps.x = {0.0, static_cast<double>(std::max(beforeT - 1, 1))};
    plot.xLabel = "key position k (" + names.before + "'s tokens)";
    plot.markedX =
        before->keyToken >= 0 ? before->keyToken : std::numeric_limits<double>::quiet_NaN();
  }
  plot.series = overlaid_runs({alpha}, {plain}, names);
  plot.series.push_back(baseline);
  plot.series.push_back(eps);
  const auto plainRows = sink_rows(before->analysis, before->place, *before->tokens);
  plot.numbers = plainRows && plot.numbers && !before->byToken
                     ? two_runs(names, *plainRows, *plot.numbers)
                     : nullptr;
  return plot;
}

// --- persistence ------------------------------------------------------------

namespace {

// "H0: born 0, dies 0.702 (edge 2 cat – 0 <s>)": a bar's scales and the edge
// that ends it (H0) or closes its loop (H1).
std::string bar_tip(const analysis::PersistenceBar& bar, const std::vector<std::string>& tokens) {
  auto token = [&](int t) { return std::to_string(t) + " " + token_at(tokens, t); };
  return "H" + std::to_string(bar.dimension) + ": born " + short_number(bar.birth, 4) + ", dies " +
         short_number(bar.death, 4) + " (edge " + token(bar.edge[0]) + " \u2013 " +
         token(bar.edge[1]) + ")";
}

std::string bars_count(std::size_t n) { return n == 1 ? "1 bar" : std::to_string(n) + " bars"; }

std::shared_ptr<const io::CsvTable> bar_rows(const analysis::HeadAnalysis& r,
                                             const PlotPlace& place) {
  auto rows = std::make_shared<io::CsvTable>();
  rows->columns = bar_columns();
  append_bar_rows(*rows, std::to_string(place.layer), head_text(place.head), r.persistence);
  return rows;
}

views::PlotSeries betti_series(const std::string& name, const std::vector<double>& grid,
                               const std::vector<int>& beta) {
  views::PlotSeries s{name, grid, {}};
  for (int v : beta) s.y.push_back(v);
  s.markers = false;  // a dense grid: markers would hide the steps
  return s;
}

}  // namespace

views::LinePlot persistence_diagram_plot(const analysis::HeadAnalysis& r, const PlotPlace& place,
                                         double minPersistence,
                                         const std::vector<std::string>& tokens) {
  views::LinePlot d;
  d.title = "Persistence diagram | layer " + std::to_string(place.layer) + ", " +
            head_name(place.head) + place.note;
  d.xLabel = "birth (distance e)";
  d.yLabel = "death";
  views::PlotSeries h0{"H0 (" + bars_count(r.persistence.h0.size()) + ")", {}, {}};
  views::PlotSeries h1{"H1 (" + bars_count(r.persistence.h1.size()) + ")", {}, {}};
  h0.scatter = h1.scatter = true;
  for (const auto& b : r.persistence.h0)
    h0.x.push_back(b.birth), h0.y.push_back(b.death), h0.tips.push_back(bar_tip(b, tokens));
  for (const auto& b : r.persistence.h1)
    h1.x.push_back(b.birth), h1.y.push_back(b.death), h1.tips.push_back(bar_tip(b, tokens));
  views::PlotSeries diagonal{"birth = death", {0, 1}, {0, 1}, true};
  views::PlotSeries minLine{"min persistence " + short_number(minPersistence),
                            {0, 1 - minPersistence},
                            {minPersistence, 1},
                            false,
                            true};
  d.series = {h0, h1, diagonal, minLine};
  d.xPadding = 0.04;  // H0 points sit at birth 0: clear of the y axis
  d.equalScale = true;
  d.numbers = bar_rows(r, place);
  return d;
}

views::LinePlot barcode_plot(const analysis::HeadAnalysis& r, const PlotPlace& place) {
  views::LinePlot code;
  code.title =
      "Barcode | layer " + std::to_string(place.layer) + ", " + head_name(place.head) + place.note;
  code.xLabel = "distance scale e";
  code.integerY = true;
  code.yLabel = "bar";
  views::PlotSeries c0{"H0", {}, {}}, c1{"H1", {}, {}};
  c0.segments = c1.segments = true;
  c0.markers = c1.markers = false;  // bars, not points: ends would merge in a dense barcode
  int row = 0;
  for (const auto* list : {&r.persistence.h0, &r.persistence.h1})
    for (const auto& bar : *list) {
      auto& s = list == &r.persistence.h0 ? c0 : c1;
      s.x.push_back(bar.birth), s.x.push_back(bar.death);
      s.y.push_back(row), s.y.push_back(row);
      ++row;
    }
  code.series = {c0, c1};
  code.numbers = bar_rows(r, place);
  code.xPadding = 0.02;
  code.airBelow = true;  // bar 0 lies at y = 0: clear of the axis
  return code;
}

views::LinePlot betti_plot(const analysis::HeadAnalysis& r, const PlotPlace& place,
                           double minPersistence, const BettiBefore* before) {
  views::LinePlot b;
  b.title = "Betti curves | bars above " + short_number(minPersistence) + ": H0 " +
            std::to_string(analysis::bars_above(r.persistence.h0, minPersistence)) + ", H1 " +
            std::to_string(analysis::bars_above(r.persistence.h1, minPersistence));
  b.xLabel = "distance scale e";
  b.integerY = true;
  b.yLabel = "Betti number";
  const views::PlotSeries b0 = betti_series("β₀ (components)", r.betti.grid, r.betti.beta0);
  const views::PlotSeries b1 = betti_series("β₁ (loops)", r.betti.grid, r.betti.beta1);
  b.series = {b0, b1};
  auto rows = std::make_shared<io::CsvTable>();
  rows->columns = betti_columns();
  append_betti_rows(*rows, std::to_string(place.layer), head_text(place.head), r.betti);
  b.numbers = rows;
  b.xPadding = 0.02;
  if (!before) return b;
  const analysis::BettiCurves& old = *before->curves;
  b.series = overlaid_runs(
      {b0, b1},
      {betti_series(b0.name, old.grid, old.beta0), betti_series(b1.name, old.grid, old.beta1)},
      before->names);
  io::CsvTable plain;
  plain.columns = betti_columns();
  append_betti_rows(plain, std::to_string(before->layer), head_text(before->head), old);
  b.numbers = two_runs(before->names, plain, *rows);
  return b;
}

// --- spectrum ---------------------------------------------------------------

views::LinePlot spectrum_plot(const std::vector<analysis::GraphSpectrum>& shown,
                              const analysis::GraphSpectrum& g, const PlotPlace& place,
                              bool normalised, std::optional<int> onlyChosenAbove,
                              const SpectrumBefore* before) {
  views::LinePlot d;
  d.title = std::string(normalised ? "Normalised Laplacian" : "Laplacian") + " spectrum | layer " +
            std::to_string(place.layer) + ", " + head_name(place.head) + " | θ " +
            short_number(g.threshold) + ": Fiedler " + short_number(g.fiedlerValue, 3) +
            ", centralisation " + short_number(g.centralisation, 3) + ", star-likeness " +
            short_number(g.starLikeness, 3) + place.note;
  if (onlyChosenAbove)
    d.title += " | T > " + std::to_string(*onlyChosenAbove) + ": the selected θ only";
  d.xLabel = "eigenvalue index (ascending)";
  d.integerX = true;
  d.yLabel = "eigenvalue";
  // The numbers: analyze's eigenvalues.csv rows for this head and Laplacian.
  auto rows = std::make_shared<io::CsvTable>();
  rows->columns = eigenvalue_columns();
  const std::string laplacian = normalised ? "normalised" : "combinatorial";
  for (const analysis::GraphSpectrum& s : shown)
    append_eigenvalue_rows(*rows, std::to_string(place.layer), head_text(place.head), s.threshold,
                           laplacian, s.eigenvalues);
  d.numbers = rows;
  for (const analysis::GraphSpectrum& s : shown)
    d.series.push_back(
        {"θ " + short_number(s.threshold), positions(s.eigenvalues.size()), s.eigenvalues});
  if (!before) return d;
  const analysis::GraphSpectrum& old = *before->spectrum;
  // The other run at its selected threshold, grey: the shown run's several
  // thresholds take the palette.
  for (views::PlotSeries& s : d.series) s.name += ", " + before->names.after;
  views::PlotSeries e{"θ " + short_number(old.threshold) + ", " + before->names.before,
                      positions(old.eigenvalues.size()), old.eigenvalues};
  e.dashed = true;
  e.colour = views::Rgb{110 / 255.0, 110 / 255.0, 110 / 255.0};
  d.series.push_back(std::move(e));
  io::CsvTable plainRows;
  plainRows.columns = eigenvalue_columns();
  append_eigenvalue_rows(plainRows, std::to_string(before->layer), head_text(before->head),
                         old.threshold, laplacian, old.eigenvalues);
  d.numbers = two_runs(before->names, plainRows, *rows);
  return d;
}

// --- value space ------------------------------------------------------------

views::LinePlot value_curve_note(const std::string& title) {
  views::LinePlot curve;
  curve.title = title;
  curve.xLabel = "N (keys selected)";
  curve.integerX = true;
  curve.yLabel = "score";
  return curve;
}

views::LinePlot value_curve_plot(const analysis::ValueSpaceCurve& points, int layer, int head,
                                 int query, int topN) {
  views::LinePlot curve =
      value_curve_note("Separability against N | layer " + std::to_string(layer) + ", head " +
                       std::to_string(head) + ", query " + std::to_string(query));
  views::PlotSeries f{"Fₙ (top-N)", {}, {}}, pr{"precision", {}, {}}, rc{"recall", {}, {}},
      random{"Fₙ of random N-subsets (mean)", {}, {}, true};
  for (const auto& v : points.points) {
    for (auto* s : {&f, &pr, &rc, &random}) s->x.push_back(v.topN);
    f.y.push_back(v.scores.f);
    pr.y.push_back(v.scores.precision);
    rc.y.push_back(v.scores.recall);
    random.y.push_back(v.randomMean.f);
  }
  views::PlotSeries now{"selected N", {double(topN), double(topN)}, {0.0, 1.0}, false, true};
  curve.series = {f, pr, rc, random, now};
  // The numbers: analyze's value_space_curve.csv rows for this head and query.
  auto rows = std::make_shared<io::CsvTable>();
  rows->columns = value_curve_columns();
  append_value_curve_rows(*rows, std::to_string(layer), head_text(head), points);
  curve.numbers = rows;
  return curve;
}

// --- layer profiles ---------------------------------------------------------

double LayerAxis::x(int layer, int layers) const {
  if (!byDepth) return layer;
  return layers > 1 ? static_cast<double>(layer) / (layers - 1) : 0.0;
}

std::string LayerAxis::title() const {
  return byDepth ? "relative depth (layer / (layers - 1))" : "layer";
}

namespace {

// A layer profile's measure as a curve, each layer at axis.x(layer, layers).
views::PlotSeries profile_series(const std::string& name, const LayerProfileView& view,
                                 const std::string& column, const LayerAxis& axis, int layers) {
  views::PlotSeries s{name, {}, {}};
  const std::vector<double>& y = view.measure(column);
  for (std::size_t l = 0; l < y.size(); ++l) {
    s.x.push_back(axis.x(static_cast<int>(l), layers));
    s.y.push_back(y[l]);
  }
  return s;
}

// The profile's table, both runs' rows when two are compared.
std::shared_ptr<const io::CsvTable> profile_numbers(const LayerProfileView& shown,
                                                    const LayerProfileView* before,
                                                    const RunNames& names) {
  if (!before) return std::make_shared<const io::CsvTable>(shown.table);
  return two_runs(names, before->table, shown.table);
}

// `markedLayer`: the selected layer's line; NaN: none.
views::LinePlot layer_plot(const LayerAxis& axis, const std::string& yLabel, double markedLayer) {
  views::LinePlot plot;
  plot.xLabel = axis.title();
  plot.integerX = !axis.byDepth;
  plot.xPadding = axis.byDepth ? 0.05 : 0.5;
  plot.yLabel = yLabel;
  plot.markedX = markedLayer;
  return plot;
}

}  // namespace

views::LinePlot layer_sinks_plot(const LayerProfileView& view, const LayerProfileView* plain,
                                 int layers, int beforeLayers, const std::string& source,
                                 double eps, double threshold, const LayerAxis& axis,
                                 const RunNames& names, int selectedLayer) {
  const views::PlotSeries sink = profile_series("attention to position 0 (mean over heads)", view,
                                                "sink_attention", axis, layers);
  const views::PlotSeries rate =
      profile_series("sink rate (share of heads, α₀ > " + short_number(eps) + ")", view,
                     "sink_rate", axis, layers);
  const views::PlotSeries centralisation =
      profile_series("centralisation (head average, θ " + short_number(threshold) + ")", view,
                     "centralisation", axis, layers);
  views::LinePlot top = layer_plot(axis, "share", selectedLayer);
  top.title = "Sinks by layer | " + source;
  top.series = {sink, rate, centralisation};
  top.numbers = profile_numbers(view, nullptr, names);
  if (!plain) return top;
  const views::PlotSeries plainSink =
      profile_series(sink.name, *plain, "sink_attention", axis, beforeLayers);
  const views::PlotSeries plainRate =
      profile_series(rate.name, *plain, "sink_rate", axis, beforeLayers);
  const views::PlotSeries plainCentralisation =
      profile_series(centralisation.name, *plain, "centralisation", axis, beforeLayers);
  top.series = overlaid_runs({sink, rate, centralisation},
                             {plainSink, plainRate, plainCentralisation}, names);
  top.title = "Sinks by layer | " + runs_styles(names) +
              (names.comparison ? std::string() : " | " + source);
  top.numbers = profile_numbers(view, plain, names);
  return top;
}

views::LinePlot layer_topology_plot(const LayerProfileView& view, const LayerProfileView* plain,
                                    int layers, int beforeLayers, double minPersistence,
                                    double threshold, bool perLayerTopology, int topologyMaxTokens,
                                    const LayerAxis& axis, const RunNames& names,
                                    int selectedLayer) {
  const std::string min = short_number(minPersistence);
  const std::vector<std::pair<std::string, std::string>> measures{
      {"H0 bars > " + min + " (head average)", "bars_h0_above_min"},
      {"H1 bars > " + min + " (head average)", "bars_h1_above_min"},
      {"effective rank of the layer's input", "effective_rank"},
      {"Fiedler value (head average, θ " + short_number(threshold) + ")", "fiedler"}};
  std::vector<views::PlotSeries> shown, before;
  for (const auto& [name, column] : measures) {
    views::PlotSeries s = profile_series(name, view, column, axis, layers);
    views::PlotSeries b =
        plain ? profile_series(name, *plain, column, axis, beforeLayers) : views::PlotSeries{};
    // A capture keeps no residual stream: no rank to plot, and none in the legend.
    if (column == "effective_rank" && !has_points(s) && !has_points(b)) continue;
    shown.push_back(std::move(s));
    before.push_back(std::move(b));
  }
  views::LinePlot bottom = layer_plot(axis, "count", selectedLayer);
  bottom.title = perLayerTopology ? "Topology and rank by layer"
                                  : "Rank by layer | topology per layer only up to T = " +
                                        std::to_string(topologyMaxTokens);
  bottom.numbers = profile_numbers(view, nullptr, names);
  if (!plain) {
    bottom.series = std::move(shown);
    return bottom;
  }
  bottom.series = overlaid_runs(std::move(shown), std::move(before), names);
  bottom.title += " | " + runs_styles(names);
  bottom.numbers = profile_numbers(view, plain, names);
  return bottom;
}

views::LinePlot layer_function_plot(const std::vector<double>& klPerLayer,
                                    const std::vector<double>& fisherPerParameter,
                                    int selectedLayer) {
  views::LinePlot function = layer_plot(LayerAxis{}, "value / its maximum", selectedLayer);
  if (klPerLayer.empty() && fisherPerParameter.empty()) {
    function.title = "KL and Fisher by layer: not computed (Experiments menu)";
    return function;
  }
  auto scaled = [](const std::string& name, const std::vector<double>& v) {
    views::PlotSeries s{name, {}, {}};
    double m = 0;
    for (double x : v) m = std::max(m, std::abs(x));
    for (std::size_t l = 0; l < v.size(); ++l) {
      s.x.push_back(static_cast<double>(l));
      s.y.push_back(m > 0 ? v[l] / m : 0.0);
    }
    return std::make_pair(s, m);
  };
  const auto [kl, klMax] = scaled("KL(base || sinks removed)", klPerLayer);
  const auto [fisher, fisherMax] = scaled("Fisher trace per parameter", fisherPerParameter);
  function.title = "Function by layer | max KL " + short_number(klMax, 3) +
                   " nats, max Fisher/param " + short_number(fisherMax, 3);
  function.series = {kl, fisher};
  return function;
}

// --- taxonomy ---------------------------------------------------------------

namespace {

// One series per class: each layer's count (or share) of heads of that class.
std::vector<views::PlotSeries> class_counts(const TaxonomyView& v, bool shares,
                                            const LayerAxis& axis, const std::string& suffix) {
  static const char* const kNames[3] = {"Retriever", "Mixer", "Reset"};
  std::vector<views::PlotSeries> counts(3);
  for (int c = 0; c < 3; ++c) {
    counts[c].name = kNames[c] + suffix;
    counts[c].colour = views::kHeadClassColours[c];
  }
  for (int l = 0; l < v.layers; ++l) {
    int n[3] = {0, 0, 0};
    for (int h = 0; h < v.heads; ++h) {
      const int c = v.classes[static_cast<std::size_t>(l * v.heads + h)];
      if (c >= 0) ++n[c];
    }
    for (int c = 0; c < 3; ++c) {
      counts[c].x.push_back(axis.x(l, v.layers));
      counts[c].y.push_back(shares ? static_cast<double>(n[c]) / std::max(1, v.heads) : n[c]);
    }
  }
  return counts;
}

}  // namespace

views::LinePlot taxonomy_counts_plot(const TaxonomyView& shown, const TaxonomyView* before,
                                     bool shares, const LayerAxis& axis, const RunNames& names) {
  views::LinePlot counts = layer_plot(axis, shares ? "share of the layer's heads" : "heads",
                                      std::numeric_limits<double>::quiet_NaN());
  counts.title = "Head classes per layer";
  counts.integerY = !shares;
  counts.airBelow = true;  // a class no layer has (a line along 0) stays above the axis
  counts.series = class_counts(shown, shares, axis, "");
  counts.numbers = std::make_shared<const io::CsvTable>(shown.counts_table);
  if (!before) {
    // One run: the classes stacked, each layer's bar its heads (Mudarisov et
    // al.'s Fig. 4a); two runs are told apart as lines.
    for (views::PlotSeries& s : counts.series) s.stacked = true;
    counts.airBelow = false;
    return counts;
  }
  counts.series =
      overlaid_runs(std::move(counts.series), class_counts(*before, shares, axis, ""), names);
  counts.numbers = two_runs(names, before->counts_table, shown.counts_table);
  counts.title = "Head classes per layer | " + runs_styles(names);
  return counts;
}

}  // namespace sinkscope::document
