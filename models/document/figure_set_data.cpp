#include "models/document/figure_set_data.h"

#include "analysis/value_directions.h"

#include "models/cpu_runtime.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>

#include "analysis/bootstrap.h"
#include "analysis/functional.h"
#include "analysis/graph_spectrum.h"
#include "analysis/taxonomy.h"
#include "models/document/corpus_pool.h"
#include "models/experiments.h"
#include "models/fisher.h"

namespace sinkscope::document {

namespace {

using io::csv_number;
using io::csv_number_or_empty;

// A mean by index over sentences of different lengths: index k pools the
// sentences that have it (how many is kept for the table).
struct RaggedMean {
  std::vector<double> sum;
  std::vector<int> count;
  std::vector<double> weight;
  void add(const std::vector<double>& values) { add(values, {}); }
  // With `weights` (one per index; none: 1 each), each value counts that much:
  // a sentence's mean over some of its heads by its share of them.
  void add(const std::vector<double>& values, const std::vector<double>& weights) {
    if (sum.size() < values.size())
      sum.resize(values.size(), 0.0), count.resize(values.size(), 0),
          weight.resize(values.size(), 0.0);
    for (std::size_t k = 0; k < values.size(); ++k) {
      const double w = k < weights.size() ? weights[k] : 1.0;
      if (std::isfinite(values[k]) && w > 0) sum[k] += w * values[k], weight[k] += w, ++count[k];
    }
  }
  double mean(std::size_t k) const {
    return k < sum.size() && count[k] > 0 ? sum[k] / weight[k]
                                          : std::numeric_limits<double>::quiet_NaN();
  }
  std::size_t size() const { return sum.size(); }
};

std::string layer_name(int l) { return "layer " + std::to_string(l); }

// One curve per shown layer (and, when given, its baseline dashed in the same
// colour), from per-layer ragged means; the table holds every layer.
// `minCount`: indices fewer sentences reach are left out of the curves.
// `reach` (when given) counts the sentences that reach each index, for means
// over some of a sentence's heads (fewer sentences have such heads than reach N).
views::PlotSeries ragged_curve(const std::string& name, const RaggedMean& m,
                               const std::vector<double>& xOf, double xStart, int minCount,
                               const RaggedMean* reach = nullptr) {
  views::PlotSeries c{name, {}, {}};
  for (std::size_t k = 0; k < m.size(); ++k) {
    if ((reach ? (k < reach->size() ? reach->count[k] : 0) : m.count[k]) < minCount) continue;
    if (m.count[k] == 0) continue;  // no sentence has a head it is over
    c.x.push_back(xOf.empty() ? xStart + static_cast<double>(k) : xOf[k]);
    c.y.push_back(m.mean(k));
  }
  c.markers = c.x.size() <= 32;  // dense curves read better as plain lines
  return c;
}

// One curve per shown layer (and, when given, its baseline dashed in the same
// colour, left out of the legend, which says once what the dashed curves are),
// from per-layer ragged means.
SetFigure layered_figure(const std::vector<RaggedMean>& means,
                         const std::vector<RaggedMean>* baselines, const std::vector<double>& xOf,
                         double xStart, const std::vector<int>& shown, int minCount,
                         const std::string& dashedMeaning = "random subsets",
                         const std::vector<RaggedMean>* reach = nullptr) {
  SetFigure f;
  f.plot.xPadding = 0.0;  // curves over distances and shares: no air at the ends
  auto reachOf = [&](int l) { return reach ? &(*reach)[static_cast<std::size_t>(l)] : nullptr; };
  for (int l : shown)
    f.plot.series.push_back(ragged_curve(layer_name(l), means[static_cast<std::size_t>(l)], xOf,
                                         xStart, minCount, reachOf(l)));
  // A layer where no head qualifies (a mean over some heads) has no curve: no legend entry.
  for (views::PlotSeries& c : f.plot.series) c.inLegend = !c.x.empty();
  if (baselines) {
    const std::size_t layerCurves = f.plot.series.size();
    for (std::size_t i = 0; i < layerCurves; ++i) {
      views::PlotSeries c = ragged_curve(layer_name(shown[i]) + " " + dashedMeaning,
                                         (*baselines)[static_cast<std::size_t>(shown[i])], xOf,
                                         xStart, minCount, reachOf(shown[i]));
      c.dashed = true;
      c.markers = false;
      c.colourOf = static_cast<int>(i);
      // In the legend under its own name when its layer has no solid curve to name its colour.
      c.inLegend = f.plot.series[i].x.empty() && !c.x.empty();
      if (c.inLegend) c.name = layer_name(shown[i]) + ", " + dashedMeaning;
      f.plot.series.push_back(std::move(c));
    }
    // One legend entry says what every dashed twin is (each in its layer's colour).
    views::PlotSeries key;
    key.name = "dashed: " + dashedMeaning + " (each layer's colour)";
    key.dashed = true;
    key.markers = false;
    key.colour = views::Rgb{0.35, 0.35, 0.35};
    f.plot.series.push_back(std::move(key));
  }
  return f;
}

// The table of per-layer ragged means: layer, x, value[, baseline], sentences.
io::CsvTable layered_table(const std::vector<RaggedMean>& means,
                                 const std::vector<RaggedMean>* baselines,
                                 const std::vector<double>& xOf, double xStart,
                                 const std::vector<std::string>& columns) {
  io::CsvTable t;
  t.columns = columns;
  for (std::size_t l = 0; l < means.size(); ++l)
    for (std::size_t k = 0; k < means[l].size(); ++k) {
      std::vector<std::string> row{
          std::to_string(l), csv_number(xOf.empty() ? xStart + static_cast<double>(k) : xOf[k]),
          csv_number_or_empty(means[l].mean(k))};
      if (baselines) row.push_back(csv_number_or_empty((*baselines)[l].mean(k)));
      row.push_back(std::to_string(means[l].count[k]));
      t.rows.push_back(std::move(row));
    }
  return t;
}

std::string shown_note(const std::vector<int>& shown, int layers) {
  if (static_cast<int>(shown.size()) == layers) return "";
  return " | " + std::to_string(shown.size()) + " of " + std::to_string(layers) +
         " layers shown (every layer in the CSV)";
}

}  // namespace

std::vector<int> shown_layers(int layers, int shown) {
  std::vector<int> out;
  if (layers <= 0) return out;
  if (layers <= shown || shown < 1) {
    for (int l = 0; l < layers; ++l) out.push_back(l);
    return out;
  }
  if (shown == 1) return {0};
  for (int i = 0; i < shown; ++i) {
    const int l =
        static_cast<int>(std::lround(static_cast<double>(i) * (layers - 1) / (shown - 1)));
    if (out.empty() || out.back() != l) out.push_back(l);
  }
  return out;
}

std::vector<SetFigure> figure_set(const models::LoadedModel& model,
                                  const std::vector<std::string>& sentences,
                                  const FigureSetParams& params,
                                  const std::function<void(std::size_t)>& done) {
  if (sentences.empty())
    throw std::invalid_argument("figure set: the sentence file has no sentences");
  // Every pass on one BLAS thread, as corpus runs: the same numbers for every --threads.
  const models::SingleThreadedBlas exactProducts;
  const models::ModelConfig& config = model.model->config();
  // The functional figures need token probabilities: a folder with an output head.
  const bool outputHead =
      !models::loaded_model_run(model, sentences.front()).trace.logits().empty();
  document::AnalysisSettings p = params.analysis;
  p.curves = true;
  p.functional = outputHead;
  const std::vector<SentenceRecord> records =
      corpus_records(model, sentences, 0, sentences.size(), p, done);
  std::vector<SetFigure> figures = figure_set_of_records(
      records, config.num_layers, config.num_heads, !config.causal, p, params);
  if (outputHead)
    for (SetFigure& f : ablation_figures(model, sentences, params)) figures.push_back(std::move(f));
  return figures;
}

namespace {

// What every figure of a set shares: the records, the model's shape, the
// layers drawn and the positions enough sentences reach.
struct SetContext {
  const std::vector<SentenceRecord>& records;
  int L, H;
  std::vector<int> shown;  // the layers with a curve
  int minCount;            // positions fewer sentences reach are in the tables only
  std::string positionNote, source;
};

// alpha_k by position (003, Gu et al.): sentences of every length pooled by position.
SetFigure key_importance_figure(const SetContext& x) {
  std::vector<RaggedMean> alpha(static_cast<std::size_t>(x.L)),
      uniform(static_cast<std::size_t>(x.L));
  for (const SentenceRecord& r : x.records)
    for (int l = 0; l < x.L; ++l) {
      alpha[static_cast<std::size_t>(l)].add(r.curves[static_cast<std::size_t>(l)].alpha);
      uniform[static_cast<std::size_t>(l)].add(r.curves[static_cast<std::size_t>(l)].alphaUniform);
    }
  SetFigure f = layered_figure(alpha, nullptr, {}, 0.0, x.shown, x.minCount);
  // One uniform baseline: it depends on the lengths only, not on the layer.
  views::PlotSeries baseline =
      ragged_curve("uniform baseline", uniform.front(), {}, 0.0, x.minCount);
  baseline.reference = true;
  f.plot.series.push_back(std::move(baseline));
  f.file = "key_importance_by_layer";
  f.paperFigure = "Barbero et al., the sink metric";
  f.plot.title = "Key importance αₖ by position (mean over heads and " + x.source + ")" +
                 shown_note(x.shown, x.L) + x.positionNote;
  f.plot.xPadding = 0.5;
  f.plot.xLabel = "key position k";
  f.plot.yLabel = "αₖ";
  f.plot.integerX = true;
  f.plot.includeZero = true;
  f.table = layered_table(alpha, &uniform, {}, 0.0,
                          {"layer", "position", "alpha_k", "uniform_baseline", "sentences"});
  return f;
}

// Betti curves (000), with the reference frame the sinks' heads give: beta_0, beta_1
// and the frame's table.
void append_betti_figures(const SetContext& x, const io::CsvTable& frameTable,
                          std::vector<SetFigure>& figures) {
  const std::vector<double> grid = x.records.front().curves.front().bettiGrid;
  for (int dimension : {0, 1}) {
    std::vector<RaggedMean> beta(static_cast<std::size_t>(x.L));
    for (const SentenceRecord& r : x.records)
      for (int l = 0; l < x.L; ++l) {
        const LayerCurves& c = r.curves[static_cast<std::size_t>(l)];
        beta[static_cast<std::size_t>(l)].add(dimension == 0 ? c.beta0 : c.beta1);
      }
    SetFigure f = layered_figure(beta, nullptr, grid, 0.0, x.shown, 1);
    // A little air at e = 0, so that the x axis's "0" does not touch the y axis's "0" at the
    // corner (at slide size their boxes met).
    f.plot.xPadding = 0.015;
    f.file = dimension == 0 ? "betti0_by_layer" : "betti1_by_layer";
    f.paperFigure = "Ruscio et al., Betti curves";
    std::string frame;
    if (!frameTable.rows.empty() && !frameTable.rows.front().empty())
      frame = " | reference frame: " + frameTable.rows.front().front();
    f.plot.title = std::string(dimension == 0 ? "β₀ (components)" : "β₁ (loops)") +
                   " against distance e (mean over heads and " + x.source + ")" + frame +
                   shown_note(x.shown, x.L);
    f.plot.xLabel = "distance scale e";
    f.plot.yLabel = dimension == 0 ? "β₀" : "β₁";
    f.plot.includeZero = true;
    f.table = layered_table(beta, nullptr, grid, 0.0,
                            {"layer", "e", dimension == 0 ? "beta_0" : "beta_1", "sentences"});
    figures.push_back(std::move(f));
  }
}

// A mean over the sentences with the 95% percentile interval of the same
// seeded resamples of the sentences as every pooled table (NaN values left out).
struct PooledMean {
  double mean = 0.0, lo = 0.0, hi = 0.0;
  int sentences = 0;
};
PooledMean pooled_mean(const std::vector<double>& perSentence,
                       const document::AnalysisSettings& p) {
  auto mean = [&](const std::vector<int>* weight) {
    double sum = 0.0, total = 0.0;
    for (std::size_t s = 0; s < perSentence.size(); ++s) {
      const double w = weight ? (*weight)[s] : 1.0;
      if (std::isnan(perSentence[s]) || w == 0.0) continue;
      sum += w * perSentence[s], total += w;
    }
    return total > 0 ? sum / total : std::numeric_limits<double>::quiet_NaN();
  };
  PooledMean out;
  out.mean = out.lo = out.hi = mean(nullptr);
  for (double v : perSentence) out.sentences += !std::isnan(v);
  std::vector<double> resampled;
  for (int b = 0; b < p.bootstrap; ++b) {
    const std::vector<int> counts =
        analysis::bootstrap_resample_counts(perSentence.size(), p.bootstrapSeed, b);
    if (const double m = mean(&counts); !std::isnan(m)) resampled.push_back(m);
  }
  if (!resampled.empty()) std::tie(out.lo, out.hi) = analysis::percentile_interval95(resampled);
  return out;
}

// Ruscio et al.'s summary of a model's reference frame (their Table 1): the
// frame with its evidence (the pooled frame table), every head's share that
// is specialised, and the Betti numbers (bars above min_persistence) of the
// first layer and of the mean over layers, each with its 95% interval.
SetFigure frame_summary_table(const SetContext& x, const io::CsvTable& frameTable,
                              const document::AnalysisSettings& p) {
  SetFigure frame;
  frame.file = "reference_frame";
  frame.paperFigure = "Ruscio et al., Table 1";
  frame.table = frameTable;
  if (frame.table.rows.size() != 1) return frame;  // the pooled frame is one row
  const double heads = static_cast<double>(x.L) * x.H;
  const auto at = static_cast<std::size_t>(
      std::find(frame.table.columns.begin(), frame.table.columns.end(), "specialised_heads") -
      frame.table.columns.begin());
  const std::vector<std::string>& row = frame.table.rows.front();
  const double specialised = at < row.size() ? std::stod(row[at]) : 0.0;
  std::vector<std::string> added{"heads", "specialised_share"};
  std::vector<std::string> cells{csv_number(heads), csv_number(specialised / heads)};
  for (int dimension : {0, 1})
    for (bool firstLayer : {true, false}) {
      std::vector<double> perSentence;
      for (const SentenceRecord& r : x.records) {
        double sum = 0.0;
        const int layers = firstLayer ? 1 : x.L;
        for (int l = 0; l < layers; ++l)
          sum += dimension == 0 ? r.layers[static_cast<std::size_t>(l)].bars0
                                : r.layers[static_cast<std::size_t>(l)].bars1;
        perSentence.push_back(sum / layers);
      }
      const PooledMean m = pooled_mean(perSentence, p);
      const std::string name =
          "betti" + std::to_string(dimension) + (firstLayer ? "_first_layer" : "_mean_over_layers");
      added.insert(added.end(), {name, name + "_lo", name + "_hi"});
      cells.insert(cells.end(), {csv_number(m.mean), csv_number(m.lo), csv_number(m.hi)});
    }
  frame.table.columns.insert(frame.table.columns.end(), added.begin(), added.end());
  frame.table.rows.front().insert(frame.table.rows.front().end(), cells.begin(), cells.end());
  frame.table.comments = {
      {"betti", "bars above min_persistence " + csv_number(p.minPersistence) +
                    " per head (H0: betti0, H1: betti1), the mean over the layer's heads, then "
                    "over the sentences; _lo and _hi: 95% percentile interval over " +
                    std::to_string(p.bootstrap) + " resamples of the sentences"}};
  return frame;
}

// A per-layer quantity of the records with its 95% interval over resampled
// sentences, one curve per entry of `curves` (name, the value of a sentence's layer).
struct LayerQuantity {
  std::string name, column;
  std::function<double(const SentenceRecord&, int)> value;
};
SetFigure layer_interval_figure(const SetContext& x, const document::AnalysisSettings& p,
                                const std::vector<LayerQuantity>& curves) {
  SetFigure fig;
  fig.plot.xLabel = "layer";
  fig.plot.integerX = true;
  fig.plot.includeZero = true;
  fig.plot.xPadding = 0.5;
  fig.table.columns = {"layer", "quantity", "mean", "mean_lo", "mean_hi", "sentences"};
  const double spread = curves.size() > 1 ? 0.24 / static_cast<double>(curves.size() - 1) : 0.0;
  for (std::size_t c = 0; c < curves.size(); ++c) {
    views::PlotSeries curve{curves[c].name, {}, {}};
    for (int l = 0; l < x.L; ++l) {
      std::vector<double> perSentence;
      for (const SentenceRecord& r : x.records) perSentence.push_back(curves[c].value(r, l));
      const PooledMean m = pooled_mean(perSentence, p);
      fig.table.rows.push_back({std::to_string(l), curves[c].column, csv_number_or_empty(m.mean),
                                csv_number_or_empty(m.lo), csv_number_or_empty(m.hi),
                                std::to_string(m.sentences)});
      if (m.sentences == 0) continue;
      // Curves side by side at each layer, so that their bars do not overlap.
      curve.x.push_back(l + (curves.size() > 1 ? -0.12 + spread * static_cast<double>(c) : 0.0));
      curve.y.push_back(m.mean);
      curve.lo.push_back(m.lo);
      curve.hi.push_back(m.hi);
    }
    fig.plot.series.push_back(std::move(curve));
  }
  return fig;
}

// Ruscio et al.'s spectral summaries: the Fiedler value and the degree
// centralisation of each layer's head-averaged graph at every threshold.
void append_spectral_figures(const SetContext& x, const document::AnalysisSettings& p,
                             std::vector<SetFigure>& figures) {
  for (bool fiedler : {true, false}) {
    std::vector<LayerQuantity> curves;
    for (std::size_t t = 0; t < p.thresholds.size(); ++t)
      curves.push_back({"θ = " + csv_number(p.thresholds[t]), csv_number(p.thresholds[t]),
                        [t, fiedler](const SentenceRecord& r, int l) {
                          const LayerFigures& f = r.layers[static_cast<std::size_t>(l)];
                          return fiedler ? f.fiedler[t] : f.centralisation[t];
                        }});
    SetFigure fig = layer_interval_figure(x, p, curves);
    fig.file = fiedler ? "fiedler_by_layer" : "centralisation_by_layer";
    fig.paperFigure = "Ruscio et al., spectral analysis";
    fig.plot.title = std::string(fiedler ? "Fiedler value λ₂ of the Laplacian"
                                         : "Degree centralisation (Freeman)") +
                     " of each layer's head-averaged attention graph (edges A ≥ θ), mean over " +
                     x.source + " with 95% intervals over resampled sentences";
    fig.plot.yLabel = fiedler ? "λ₂" : "degree centralisation";
    fig.table.columns[1] = "threshold";
    figures.push_back(std::move(fig));
  }
}

// Ruscio et al.'s sink removal: the KL divergence of the output distribution
// when one layer's sinks are removed, per layer, and when every layer's are.
SetFigure sink_removal_kl_figure(const SetContext& x, const document::AnalysisSettings& p) {
  SetFigure fig = layer_interval_figure(
      x, p, {{"this layer's sinks removed", "one_layer", [](const SentenceRecord& r, int l) {
                return r.kl[static_cast<std::size_t>(l)];
              }}});
  std::vector<double> all;
  for (const SentenceRecord& r : x.records) all.push_back(r.kl.back());
  const PooledMean m = pooled_mean(all, p);
  fig.table.rows.push_back({"all", "every_layer", csv_number_or_empty(m.mean),
                            csv_number_or_empty(m.lo), csv_number_or_empty(m.hi),
                            std::to_string(m.sentences)});
  if (m.sentences > 0) {
    char label[96];
    std::snprintf(label, sizeof label, "every layer's sinks removed: %.3g [%.3g, %.3g]", m.mean,
                  m.lo, m.hi);
    views::PlotSeries every{label, {0.0, static_cast<double>(x.L - 1)}, {m.mean, m.mean}};
    every.reference = true;
    every.markers = false;
    fig.plot.series.push_back(std::move(every));
  }
  fig.file = "sink_removal_kl_by_layer";
  fig.paperFigure = "Ruscio et al., KL of sink removal";
  fig.plot.title =
      "KL(P_base ‖ P_removed) of the output distribution when sinks are removed "
      "(mean over positions and " +
      x.source + ", 95% intervals over resampled sentences)";
  fig.plot.yLabel = "KL (nats)";
  fig.table.columns[0] = "layers";
  return fig;
}

// The x axis of every curve against N: N in powers of two, as Mudarisov et
// al. reason about it, from 0 on y. `airBelow`: the lowest curve off the axis line.
void against_n_axes(views::LinePlot& plot, const std::string& yLabel, bool airBelow = true) {
  plot.xPadding = 0.5;
  plot.xLabel = "N (keys selected, log₂ scale)";
  plot.yLabel = yLabel;
  plot.integerX = true;
  plot.log2X = true;
  plot.includeZero = true;
  plot.airBelow = airBelow;
}

// F_N against N with the random baseline (004).
SetFigure fn_figure(const SetContext& x) {
  std::vector<RaggedMean> f(static_cast<std::size_t>(x.L)), random(static_cast<std::size_t>(x.L));
  for (const SentenceRecord& r : x.records)
    for (int l = 0; l < x.L; ++l) {
      f[static_cast<std::size_t>(l)].add(r.curves[static_cast<std::size_t>(l)].fN);
      random[static_cast<std::size_t>(l)].add(r.curves[static_cast<std::size_t>(l)].fNRandom);
    }
  SetFigure fig = layered_figure(f, &random, {}, 1.0, x.shown, x.minCount);
  fig.file = "fn_against_n_by_layer";
  fig.paperFigure = "Mudarisov et al., Fig. 2";
  fig.plot.title = "Fₙ against N at the last query (mean over heads and " + x.source +
                   "); dashed: random N-subsets" + shown_note(x.shown, x.L) + x.positionNote;
  against_n_axes(fig.plot, "Fₙ", false);
  fig.table = layered_table(f, &random, {}, 1.0, {"layer", "n", "f_n", "f_n_random", "sentences"});
  return fig;
}

// The curves against N at the last query beyond F_N (004): each a mean over
// heads per layer, solid, with an optional dashed twin (its random baseline,
// or the heads on the other side of a condition). Only from records that kept
// them (studies recorded before did not).
struct PerNKind {
  const char* file;
  const char* paperFigure;
  std::vector<double> LayerCurves::*values;
  std::vector<double> LayerCurves::*dashed;  // nullptr: none
  const char* title;
  const char* yLabel;
  const char* column;
  const char* dashedColumn;
  const char* dashedMeaning;  // in the legend and the title: "random N-subsets"
  bool share;                 // a share or rate: the axis from 0 to 1
};

// The weight of a sentence's layer mean at each N: its share of the heads
// the mean is over.
std::vector<double> heads_weight(const LayerCurves& c, HeadsCounted heads) {
  if (heads == HeadsCounted::All) return {};
  std::vector<double> w(c.sinkRate.size());
  for (std::size_t k = 0; k < w.size(); ++k)
    w[k] = heads == HeadsCounted::SinkSelected ? c.sinkRate[k] : 1.0 - c.sinkRate[k];
  return w;
}

HeadsCounted heads_of(std::vector<double> LayerCurves::*values) {
  for (const PerNCurve& c : per_n_curves())
    if (c.values == values) return c.heads;
  return HeadsCounted::All;
}

std::vector<RaggedMean> pooled_by_layer(const SetContext& x,
                                        std::vector<double> LayerCurves::*values) {
  std::vector<RaggedMean> means(static_cast<std::size_t>(x.L));
  const HeadsCounted heads = heads_of(values);
  for (const SentenceRecord& r : x.records)
    for (int l = 0; l < x.L; ++l) {
      const LayerCurves& c = r.curves[static_cast<std::size_t>(l)];
      means[static_cast<std::size_t>(l)].add(c.*values, heads_weight(c, heads));
    }
  return means;
}

SetFigure per_n_figure(const SetContext& x, const PerNKind& kind) {
  const std::vector<RaggedMean> means = pooled_by_layer(x, kind.values);
  std::vector<RaggedMean> dashed;
  if (kind.dashed) dashed = pooled_by_layer(x, kind.dashed);
  const std::vector<RaggedMean>* twin = kind.dashed ? &dashed : nullptr;
  // Drawn where enough sentences reach N (the sink selection rate is over every head).
  const bool someHeads = heads_of(kind.values) != HeadsCounted::All ||
                         (kind.dashed && heads_of(kind.dashed) != HeadsCounted::All);
  const std::vector<RaggedMean> reach =
      someHeads ? pooled_by_layer(x, &LayerCurves::sinkRate) : std::vector<RaggedMean>{};
  SetFigure fig =
      layered_figure(means, twin, {}, 1.0, x.shown, x.minCount,
                     kind.dashed ? kind.dashedMeaning : "", someHeads ? &reach : nullptr);
  fig.file = kind.file;
  fig.paperFigure = kind.paperFigure;
  std::string undrawn;  // shown layers where no head qualifies
  for (std::size_t i = 0; i < x.shown.size(); ++i)
    if (fig.plot.series[i].x.empty())
      undrawn += (undrawn.empty() ? "" : ", ") + std::to_string(x.shown[i]);
  fig.plot.title = std::string(kind.title) + " at the last query (mean over heads and " + x.source +
                   ")" + (kind.dashed ? std::string("; dashed: ") + kind.dashedMeaning : "") +
                   (undrawn.empty() ? "" : " | no qualifying head in layer " + undrawn) +
                   shown_note(x.shown, x.L) + x.positionNote;
  against_n_axes(fig.plot, kind.yLabel);  // rates from 0; a margin's sign is the finding
  std::vector<std::string> columns{"layer", "n", kind.column};
  if (kind.dashed) columns.push_back(kind.dashedColumn);
  columns.push_back("sentences");
  fig.table = layered_table(means, twin, {}, 1.0, columns);
  return fig;
}

// Fig. 3(c) of 004: F_N over every head whose top N holds the sink and over
// every head whose top N does not, every layer pooled: each sentence's layer
// mean weighted by its share of such heads, so every (sentence, head)
// instance counts once.
SetFigure fn_by_sink_selection_pooled_figure(const SetContext& x) {
  RaggedMean in, out, reach;
  for (const SentenceRecord& r : x.records) {
    reach.add(r.curves.front().fN);
    for (const LayerCurves& c : r.curves) {
      in.add(c.fSinkIn, heads_weight(c, HeadsCounted::SinkSelected));
      out.add(c.fSinkOut, heads_weight(c, HeadsCounted::SinkUnselected));
    }
  }
  SetFigure fig;
  fig.file = "fn_by_sink_selection_against_n";
  fig.paperFigure = "Mudarisov et al., Fig. 3(c)";
  fig.plot.title =
      "Fₙ with and without the sink in the top N, every layer's heads pooled (mean "
      "over the heads and " +
      x.source + ")" + x.positionNote;
  against_n_axes(fig.plot, "Fₙ");
  views::PlotSeries selected = ragged_curve("sink selected", in, {}, 1.0, x.minCount, &reach);
  views::PlotSeries unselected =
      ragged_curve("sink not selected", out, {}, 1.0, x.minCount, &reach);
  unselected.dashed = true;
  selected.inLegend = !selected.x.empty();
  unselected.inLegend = !unselected.x.empty();
  fig.plot.series = {std::move(selected), std::move(unselected)};
  fig.table.columns = {"n",
                       "f_n_sink_selected",
                       "f_n_sink_unselected",
                       "instances_selected",
                       "instances_unselected",
                       "sentences"};
  for (std::size_t k = 0; k < reach.size(); ++k)
    fig.table.rows.push_back(
        {std::to_string(k + 1), csv_number_or_empty(in.mean(k)), csv_number_or_empty(out.mean(k)),
         // The weights are shares of a layer's heads: times H, heads.
         std::to_string(std::llround(k < in.size() ? in.weight[k] * x.H : 0.0)),
         std::to_string(std::llround(k < out.size() ? out.weight[k] * x.H : 0.0)),
         std::to_string(reach.count[k])});
  return fig;
}

void append_per_n_figures(const SetContext& x, std::vector<SetFigure>& figures) {
  using C = LayerCurves;
  const PerNKind kinds[] = {
      {"precision_against_n_by_layer", "Mudarisov et al., Fig. 2", &C::precision,
       &C::precisionRandom, "Precision P(rₘₐₓ, N) of the top N against N", "precision P",
       "precision", "precision_random", "random N-subsets", true},
      {"recall_against_n_by_layer", "Mudarisov et al., Fig. 2", &C::recall, &C::recallRandom,
       "Recall R(rₘᵢₙ, N) of the top N against N", "recall R", "recall", "recall_random",
       "random N-subsets", true},
      {"loo_alignment_margin_against_n_by_layer", "Mudarisov et al., Fig. 8 (left)",
       &C::looAlignment, nullptr, "Leave-one-out alignment margin Mₙˡᵒᵒ against N", "Mₙˡᵒᵒ",
       "loo_alignment_margin", "", "", false},
      {"positive_loo_share_against_n_by_layer", "Mudarisov et al., Fig. 8 (right)", &C::positiveLoo,
       nullptr, "Share of selected keys with positive leave-one-out alignment against N",
       "positive leave-one-out share", "positive_loo_share", "", "", true},
      {"loo_margin_against_n_by_layer", "Mudarisov et al., Fig. 9", &C::looMargin, nullptr,
       "Leave-one-out distance margin γₙˡᵒᵒ against N", "γₙˡᵒᵒ", "loo_margin", "", "", false},
      {"sink_selection_rate_against_n_by_layer", "Mudarisov et al., Fig. 13", &C::sinkRate, nullptr,
       "Sink selection rate: share of heads whose top N holds position 0", "sink selection rate",
       "sink_selection_rate", "", "", true},
      {"fn_by_sink_selection_against_n_by_layer", "Mudarisov et al., Fig. 14", &C::fSinkIn,
       &C::fSinkOut, "Fₙ over the heads whose top N holds the sink", "Fₙ", "f_n_sink_selected",
       "f_n_sink_unselected", "heads without the sink selected", true},
      {"sink_share_of_aggregate_against_n_by_layer", "Mudarisov et al., Fig. 15", &C::sinkShare,
       nullptr, "Sink contribution magnitude ‖y₀‖ / ‖sₙ‖ (heads with the sink selected)",
       "‖y₀‖ / ‖sₙ‖", "sink_share_of_aggregate", "", "", false},
      {"sink_direction_change_against_n_by_layer", "Mudarisov et al., Fig. 16", &C::sinkTurn,
       nullptr, "Aggregate direction change 1 − cos(sₙ, sₙ − y₀) (heads with the sink selected)",
       "1 − cos(sₙ, sₙ − y₀)", "sink_direction_change", "", "", false},
      {"sink_intrusion_rate_against_n_by_layer", "Mudarisov et al., Fig. 17", &C::sinkIntrusion,
       nullptr, "Unselected sink intrusion rate D₀ ≤ rₘₐₓ² (heads without the sink selected)",
       "intrusion rate", "sink_intrusion_rate", "", "", true},
      {"sink_inverted_share_against_n_by_layer", "Mudarisov et al., Fig. 18", &C::sinkInverted,
       nullptr,
       "Sink-related inversions: share of selected keys farther from sₙ than the unselected sink",
       "share of selected keys", "sink_inverted_share", "", "", true},
      {"sink_alignment_against_n_by_layer", "Mudarisov et al., Fig. 19", &C::sinkAlignment, nullptr,
       "Alignment of the sink with the selected non-sink aggregate cos(y₀, sₙ₊)", "cos(y₀, sₙ₊)",
       "sink_alignment_selected", "", "", false}};
  for (const PerNKind& kind : kinds) {
    bool kept = true;  // by every record (studies recorded before a curve lack it)
    for (const SentenceRecord& r : x.records)
      for (const LayerCurves& c : r.curves)
        kept = kept && (c.*kind.values).size() == c.fN.size() &&
               (!kind.dashed || (c.*kind.dashed).size() == c.fN.size()) &&
               (heads_of(kind.values) == HeadsCounted::All || c.sinkRate.size() == c.fN.size());
    if (kept) figures.push_back(per_n_figure(x, kind));
  }
  bool kept = true;  // studies recorded before the sink's curves lack them
  for (const SentenceRecord& r : x.records)
    for (const LayerCurves& c : r.curves)
      kept = kept && c.sinkRate.size() == c.fN.size() && c.fSinkIn.size() == c.fN.size() &&
             c.fSinkOut.size() == c.fN.size();
  if (kept) figures.push_back(fn_by_sink_selection_pooled_figure(x));
}

// The value vectors' geometry by layer (004, Figs. 3a, 6 and 7): for each
// layer, the median and quartiles of a per-head quantity over every
// (sentence, head), as the paper's box plots summarise them.
double quantile_linear(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double at = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(at));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (at - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

struct GeometryQuantity {
  std::size_t index;   // in SentenceRecord::valueGeometry's entries
  const char* name;    // the table's (value_space.csv's column)
  const char* legend;  // the figure's
};

SetFigure value_geometry_figure(const SetContext& x, const char* file, const char* paperFigure,
                                const std::string& title, const char* yLabel,
                                const std::vector<GeometryQuantity>& quantities) {
  SetFigure fig;
  fig.file = file;
  fig.paperFigure = paperFigure;
  fig.plot.title = title +
                   " per layer: median, bars from the first to the third quartile over "
                   "every head of " +
                   x.source;
  fig.plot.xLabel = "layer";
  fig.plot.yLabel = yLabel;
  fig.plot.integerX = true;
  fig.plot.includeZero = true;
  fig.plot.xPadding = 0.5;
  fig.table.columns = {"layer", "quantity", "median", "q25", "q75", "mean", "heads"};
  for (std::size_t q = 0; q < quantities.size(); ++q) {
    views::PlotSeries curve{quantities[q].legend, {}, {}};
    for (int l = 0; l < x.L; ++l) {
      std::vector<double> v;
      for (const SentenceRecord& r : x.records)
        for (int h = 0; h < x.H; ++h) {
          const double value =
              r.valueGeometry[static_cast<std::size_t>(l * x.H + h)][quantities[q].index];
          if (std::isfinite(value)) v.push_back(value);
        }
      std::sort(v.begin(), v.end());
      double sum = 0.0;
      for (double value : v) sum += value;
      const double median = quantile_linear(v, 0.5), lo = quantile_linear(v, 0.25),
                   hi = quantile_linear(v, 0.75);
      fig.table.rows.push_back({std::to_string(l), quantities[q].name, csv_number_or_empty(median),
                                csv_number_or_empty(lo), csv_number_or_empty(hi),
                                csv_number_or_empty(v.empty() ? std::nan("") : sum / v.size()),
                                std::to_string(v.size())});
      if (v.empty()) continue;
      // Two quantities side by side at each layer, so their bars do not overlap.
      curve.x.push_back(l + (quantities.size() > 1 ? (q == 0 ? -0.12 : 0.12) : 0.0));
      curve.y.push_back(median);
      curve.lo.push_back(lo);
      curve.hi.push_back(hi);
    }
    curve.markers = true;
    fig.plot.series.push_back(std::move(curve));
  }
  return fig;
}

void append_value_geometry_figures(const SetContext& x, std::vector<SetFigure>& figures) {
  for (const SentenceRecord& r : x.records)
    if (r.valueGeometry.size() != static_cast<std::size_t>(x.L * x.H)) return;  // not recorded
  figures.push_back(value_geometry_figure(x, "sink_value_norm_ratio_by_layer",
                                          "Mudarisov et al., Fig. 3(a)",
                                          "Sink-to-median value norm ratio λ = ‖v₀‖ / median ‖vⱼ‖",
                                          "λ", {{0, "lambda", "λ (median; bars: quartiles)"}}));
  figures.push_back(value_geometry_figure(x, "value_norm_cv_by_layer", "Mudarisov et al., Fig. 6",
                                          "Coefficient of variation of the non-sink value norms",
                                          "CV of ‖vⱼ‖, j > 0",
                                          {{1, "norm_cv", "CV (median; bars: quartiles)"}}));
  figures.push_back(value_geometry_figure(
      x, "value_coherence_by_layer", "Mudarisov et al., Fig. 7",
      "Non-sink coherence μₙ (max |cos| over selected non-sink pairs) and sink alignment range ν",
      "cosine",
      {{2, "coherence_max", "μₙ, non-sink coherence"},
       {3, "sink_alignment_range", "ν, sink alignment range"}}));
}

// Head classes per layer (004): every head of every sentence labelled by its votes.
SetFigure taxonomy_figure(const SetContext& x) {
  std::vector<std::array<double, 3>> share(static_cast<std::size_t>(x.L), {0.0, 0.0, 0.0});
  for (const SentenceRecord& r : x.records)
    for (int l = 0; l < x.L; ++l)
      for (int h = 0; h < x.H; ++h) {
        const auto c = analysis::taxonomy_label(r.votes[static_cast<std::size_t>(l * x.H + h)]);
        share[static_cast<std::size_t>(l)][static_cast<std::size_t>(c)] +=
            1.0 / (static_cast<double>(x.H) * static_cast<double>(x.records.size()));
      }
  SetFigure fig;
  fig.file = "taxonomy_by_layer";
  fig.paperFigure = "Mudarisov et al., Fig. 4(a)";
  fig.plot.title = "Head classes per layer (share of heads over " + x.source + ")";
  fig.plot.xLabel = "layer";
  fig.plot.yLabel = "share of heads";
  fig.plot.integerX = true;
  fig.plot.includeZero = true;
  fig.plot.xPadding = 0.5;
  fig.table.columns = {"layer", "retriever", "mixer", "reset"};
  for (int c = 0; c < 3; ++c) {
    // Stacked shares per layer, as Mudarisov et al. draw them (their Fig. 4a).
    views::PlotSeries curve{analysis::head_class_name(static_cast<analysis::HeadClass>(c)), {}, {}};
    curve.stacked = true;
    curve.colour = views::kHeadClassColours[static_cast<std::size_t>(c)];
    for (int l = 0; l < x.L; ++l)
      curve.x.push_back(l),
          curve.y.push_back(share[static_cast<std::size_t>(l)][static_cast<std::size_t>(c)]);
    fig.plot.series.push_back(std::move(curve));
  }
  for (int l = 0; l < x.L; ++l)
    fig.table.rows.push_back({std::to_string(l), csv_number(share[static_cast<std::size_t>(l)][0]),
                              csv_number(share[static_cast<std::size_t>(l)][1]),
                              csv_number(share[static_cast<std::size_t>(l)][2])});
  return fig;
}

// The head classes' trajectories against N (004, Fig. 4b): for each class a
// solid curve (the sink's) and a dashed one (the current token's) in the
// class's colour, pooled over every (sentence, head) instance of the class.
struct ClassTrajectoryKind {
  const char* file;
  std::vector<double> ClassTrajectories::*solid;
  std::vector<double> ClassTrajectories::*dashed;
  const char* title;
  const char* yLabel;
  const char* solidColumn;
  const char* dashedColumn;
  const char* solidMeaning;   // the legend's words for the solid curves
  const char* dashedMeaning;  // and the dashed ones
};

SetFigure class_trajectory_figure(const SetContext& x, const ClassTrajectoryKind& kind) {
  // Each sentence's class mean counts as many times as the class has heads in it.
  std::array<RaggedMean, 3> solid, dashed;
  std::array<std::vector<double>, 3> instances;  // heads of the class pooled at each N
  RaggedMean reach;                              // the sentences reaching each N
  for (const SentenceRecord& r : x.records) {
    reach.add(r.curves.front().fN);
    for (std::size_t c = 0; c < 3; ++c) {
      const ClassTrajectories& t = r.classCurves[c];
      const std::vector<double> weight((t.*kind.solid).size(), static_cast<double>(t.heads));
      solid[c].add(t.*kind.solid, weight);
      dashed[c].add(t.*kind.dashed, weight);
      if (instances[c].size() < weight.size()) instances[c].resize(weight.size(), 0.0);
      for (std::size_t k = 0; k < weight.size(); ++k) instances[c][k] += weight[k];
    }
  }
  SetFigure fig;
  fig.file = kind.file;
  fig.paperFigure = "Mudarisov et al., Fig. 4(b)";
  fig.plot.title =
      std::string(kind.title) +
      " at the last query, by head class (mean over the class's heads of every layer and " +
      x.source + "; each head classed by its votes in each sentence)" + x.positionNote;
  against_n_axes(fig.plot, kind.yLabel);
  fig.table.columns = {"class", "n", kind.solidColumn, kind.dashedColumn, "heads", "sentences"};
  for (std::size_t c = 0; c < 3; ++c) {
    const std::string name = analysis::head_class_name(static_cast<analysis::HeadClass>(c));
    // The class names its colour; the keys below say what solid and dashed are.
    views::PlotSeries line = ragged_curve(name, solid[c], {}, 1.0, x.minCount, &reach);
    line.colour = views::kHeadClassColours[c];
    line.inLegend = !line.x.empty();
    views::PlotSeries twin =
        ragged_curve(name + ", " + kind.dashedMeaning, dashed[c], {}, 1.0, x.minCount, &reach);
    twin.colour = views::kHeadClassColours[c];
    twin.dashed = true;
    twin.markers = false;
    // One key below says what every dashed curve is; a dashed curve is named
    // itself only where its class has no solid curve to name its colour.
    twin.inLegend = line.x.empty() && !twin.x.empty();
    twin.colourOf = static_cast<int>(fig.plot.series.size());  // the solid curve's index
    fig.plot.series.push_back(std::move(line));
    fig.plot.series.push_back(std::move(twin));
    for (std::size_t k = 0; k < solid[c].size(); ++k) {
      if (solid[c].count[k] == 0 && dashed[c].count[k] == 0) continue;
      fig.table.rows.push_back({name, std::to_string(k + 1), csv_number_or_empty(solid[c].mean(k)),
                                csv_number_or_empty(dashed[c].mean(k)), csv_number(instances[c][k]),
                                std::to_string(std::max(solid[c].count[k], dashed[c].count[k]))});
    }
  }
  // What the line styles mean, once (the colours are the classes').
  for (const auto& [meaning, isDashed] :
       {std::pair{kind.solidMeaning, false}, {kind.dashedMeaning, true}}) {
    views::PlotSeries key;
    key.name = std::string(isDashed ? "dashed: " : "solid: ") + meaning;
    key.dashed = isDashed;
    key.markers = false;
    key.colour = views::Rgb{0.35, 0.35, 0.35};
    fig.plot.series.push_back(std::move(key));
  }
  return fig;
}

void append_class_trajectory_figures(const SetContext& x, std::vector<SetFigure>& figures) {
  for (const SentenceRecord& r : x.records)
    if (r.classCurves.size() != 3) return;  // recorded before they were kept
  using T = ClassTrajectories;
  const ClassTrajectoryKind kinds[] = {
      {"class_value_alignment_against_n", &T::sinkCosine, &T::currentCosine,
       "Alignment of the selected aggregate sₙ with the sink's and the current token's value",
       "cosine", "sink_value_cosine", "current_value_cosine", "cos(sₙ, v₀), the sink",
       "cos(sₙ, vᵢ), the current token i"},
      {"class_loo_norm_against_n", &T::sinkRemoved, &T::currentRemoved,
       "Leave-one-out norms: the aggregate's length without the sink's or the current token's "
       "contribution",
       "‖sₙ − yₖ‖ / ‖sₙ‖ (1: sₙ whole)", "sink_removed_norm", "current_removed_norm",
       "the sink removed (k = 0)", "the current token removed (k = i)"}};
  for (const ClassTrajectoryKind& kind : kinds) figures.push_back(class_trajectory_figure(x, kind));
}

// Precision and recall of the top N across context lengths (004, Figs. 10-11):
// one curve per length, each the mean over the sentences that reach it of
// their means over every head at query L - 1.
void append_context_length_figures(const SetContext& x, const document::AnalysisSettings& p,
                                   std::vector<SetFigure>& figures) {
  if (p.contextLengths.empty()) return;
  for (bool precision : {true, false}) {
    SetFigure fig;
    fig.file = precision ? "precision_by_context_length" : "recall_by_context_length";
    fig.paperFigure = precision ? "Mudarisov et al., Fig. 10" : "Mudarisov et al., Fig. 11";
    fig.table.columns = {"length", "n", precision ? "precision" : "recall", "sentences"};
    std::string unreached;
    for (int length : p.contextLengths) {
      RaggedMean mean;
      for (const SentenceRecord& r : x.records)
        for (const ContextCurves& c : r.contextCurves)
          if (c.length == length) mean.add(precision ? c.precision : c.recall);
      if (mean.size() == 0) {
        unreached += (unreached.empty() ? "" : ", ") + std::to_string(length);
        continue;
      }
      views::PlotSeries curve = ragged_curve("L = " + std::to_string(length), mean, {}, 1.0, 1);
      fig.plot.series.push_back(std::move(curve));
      for (std::size_t k = 0; k < mean.size(); ++k)
        fig.table.rows.push_back({std::to_string(length), std::to_string(k + 1),
                                  csv_number_or_empty(mean.mean(k)),
                                  std::to_string(mean.count[k])});
    }
    if (fig.plot.series.empty()) continue;  // no sentence reaches any length: said in the atlas
    fig.plot.title =
        std::string(precision ? "Precision P(rₘₐₓ, N)" : "Recall R(rₘᵢₙ, N)") +
        " of the top N at context length L (query L − 1; mean over every head and the sentences "
        "of at least L tokens)" +
        (unreached.empty() ? "" : " | no sentence reaches L = " + unreached);
    against_n_axes(fig.plot, precision ? "precision P" : "recall R");
    figures.push_back(std::move(fig));
  }
}

// The class distribution (004, Table 3): each class's share of every
// (sentence, head) instance, with the 95% interval of resampled sentences.
SetFigure class_distribution_table(const SetContext& x, const document::AnalysisSettings& p) {
  const std::size_t S = x.records.size();
  std::vector<std::array<double, 3>> counts(S, {0.0, 0.0, 0.0});
  for (std::size_t s = 0; s < S; ++s)
    for (const analysis::TaxonomyVotes& votes : x.records[s].votes)
      counts[s][static_cast<std::size_t>(analysis::taxonomy_label(votes))] += 1.0;
  const double heads = static_cast<double>(x.L) * x.H;
  auto shares = [&](const std::vector<int>& weight) {
    std::array<double, 3> sum{0.0, 0.0, 0.0};
    double drawn = 0.0;
    for (std::size_t s = 0; s < S; ++s) {
      const double w = weight.empty() ? 1.0 : weight[s];
      for (std::size_t c = 0; c < 3; ++c) sum[c] += w * counts[s][c];
      drawn += w;
    }
    for (double& v : sum) v /= drawn * heads;
    return sum;
  };
  const std::array<double, 3> share = shares({});
  std::array<std::vector<double>, 3> resampled;
  for (int b = 0; b < p.bootstrap; ++b) {
    const std::array<double, 3> one =
        shares(analysis::bootstrap_resample_counts(S, p.bootstrapSeed, b));
    for (std::size_t c = 0; c < 3; ++c) resampled[c].push_back(one[c]);
  }
  SetFigure fig;
  fig.file = "head_class_distribution";
  fig.paperFigure = "Mudarisov et al., Table 3";
  fig.table.columns = {"class", "share", "share_low", "share_high", "heads"};
  for (std::size_t c = 0; c < 3; ++c) {
    std::string lo, hi;
    if (!resampled[c].empty()) {
      const auto [l, h] = analysis::percentile_interval95(resampled[c]);
      lo = csv_number(l), hi = csv_number(h);
    }
    fig.table.rows.push_back(
        {analysis::head_class_name(static_cast<analysis::HeadClass>(c)), csv_number(share[c]), lo,
         hi, std::to_string(static_cast<long long>(std::llround(heads * static_cast<double>(S))))});
  }
  return fig;
}

// The median of counts over equal bins from `lo` of width `w`, read by linear
// interpolation inside the bin where the cumulative count reaches half.
double binned_median(const std::vector<double>& counts, double lo, double w) {
  double total = 0.0;
  for (double c : counts) total += c;
  if (!(total > 0)) return std::nan("");
  double below = 0.0;
  for (std::size_t b = 0; b < counts.size(); ++b) {
    if (below + counts[b] >= total / 2 && counts[b] > 0)
      return lo + w * (static_cast<double>(b) + (total / 2 - below) / counts[b]);
    below += counts[b];
  }
  return lo + w * static_cast<double>(counts.size());
}

// Fig. 3(b) of 004: the distributions of the value directions' cosines, the
// sink's against every non-sink value and the non-sink values' pairs, every
// head of every layer and every sentence pooled (their counts added).
void append_value_cosine_figure(const SetContext& x, std::vector<SetFigure>& figures) {
  const auto bins = static_cast<std::size_t>(analysis::kValueCosineBins);
  std::vector<double> sink(bins, 0.0), pairs(bins, 0.0);
  for (const SentenceRecord& r : x.records) {
    if (r.sinkCosineCounts.size() != bins || r.pairCosineCounts.size() != bins) return;
    for (std::size_t b = 0; b < bins; ++b)
      sink[b] += static_cast<double>(r.sinkCosineCounts[b]),
          pairs[b] += static_cast<double>(r.pairCosineCounts[b]);
  }
  const double w = 2.0 / static_cast<double>(bins);
  // A bin's lower edge, -1 + 2b / bins, written as the decimal it is (-0.65, not -0.6499...).
  auto edge = [&](std::size_t b) {
    return (2.0 * static_cast<double>(b) - static_cast<double>(bins)) / static_cast<double>(bins);
  };
  double sinkTotal = 0.0, pairTotal = 0.0;
  for (std::size_t b = 0; b < bins; ++b) sinkTotal += sink[b], pairTotal += pairs[b];
  const double sinkMedian = binned_median(sink, -1.0, w),
               pairMedian = binned_median(pairs, -1.0, w);
  SetFigure fig;
  fig.file = "value_cosine_distribution";
  fig.paperFigure = "Mudarisov et al., Fig. 3(b)";
  fig.plot.title =
      "Cosines between value directions: the sink's v₀ against each non-sink value, "
      "and the non-sink values' pairs (every head of every layer, " +
      x.source + ")";
  fig.plot.xLabel = "cosine";
  fig.plot.yLabel = "share of pairs per bin";
  fig.plot.xPadding = 0.02;
  auto series = [&](const std::string& name, const std::vector<double>& counts, double total,
                    double median, bool dashed) {
    char label[96];
    std::snprintf(label, sizeof label, "%s (median %.2f)", name.c_str(), median);
    views::PlotSeries s{std::isnan(median) ? name : std::string(label), {}, {}};
    s.markers = false;
    s.dashed = dashed;
    for (std::size_t b = 0; b < bins; ++b) {
      s.x.push_back((edge(b) + edge(b + 1)) / 2);
      s.y.push_back(total > 0 ? counts[b] / total : 0.0);
    }
    return s;
  };
  fig.plot.series.push_back(series("sink v₀ against non-sink", sink, sinkTotal, sinkMedian, false));
  fig.plot.series.push_back(series("non-sink pairs", pairs, pairTotal, pairMedian, true));
  fig.table.columns = {"cosine_low", "cosine_high", "sink_count",
                       "sink_share", "pair_count",  "pair_share"};
  for (std::size_t b = 0; b < bins; ++b)
    fig.table.rows.push_back({csv_number(edge(b)), csv_number(edge(b + 1)), csv_number(sink[b]),
                              csv_number(sinkTotal > 0 ? sink[b] / sinkTotal : 0.0),
                              csv_number(pairs[b]),
                              csv_number(pairTotal > 0 ? pairs[b] / pairTotal : 0.0)});
  fig.table.comments = {
      {"sink_median", csv_number_or_empty(sinkMedian)},
      {"pair_median", csv_number_or_empty(pairMedian)},
      {"reading",
       "the sink is position 0; each head's values at the keys its value-space query sees; a "
       "pair of zero vectors is not counted; the pairs among at most " +
           std::to_string(analysis::kValueCosineMaxKeys) +
           " non-sink keys per head (every k-th, evenly spread); medians read from the bins by "
           "linear interpolation"}};
  figures.push_back(std::move(fig));
}

// Gu et al.'s sink rate as Barbero et al. compare it across models: the
// share of (sentence, head) instances whose first key gets alpha_0 > eps, and
// the mean boost alpha_0 / u_0, each with its 95% interval over resampled
// sentences (the pooled sink_rate table of analyze --sentences).
SetFigure sink_rate_table(const SetContext& x, const io::CsvTable& pooled,
                          const document::AnalysisSettings& p) {
  SetFigure fig;
  fig.file = "sink_rate";
  fig.paperFigure = "Barbero et al., the sink rate";
  if (pooled.rows.size() != 1) return fig;
  auto cell = [&](const char* name) {
    const auto at = std::find(pooled.columns.begin(), pooled.columns.end(), name);
    return at == pooled.columns.end()
               ? std::string()
               : pooled.rows.front()[static_cast<std::size_t>(at - pooled.columns.begin())];
  };
  fig.table.columns = {"sink_rate_percent",
                       "sink_rate_percent_lo",
                       "sink_rate_percent_hi",
                       "mean_boost",
                       "mean_boost_lo",
                       "mean_boost_hi",
                       "eps",
                       "sentences",
                       "heads"};
  fig.table.rows.push_back({cell("sink_rate_percent"), cell("sink_rate_percent_lo"),
                            cell("sink_rate_percent_hi"), cell("mean_boost"), cell("mean_boost_lo"),
                            cell("mean_boost_hi"), csv_number(p.eps),
                            std::to_string(x.records.size()), std::to_string(x.L * x.H)});
  fig.table.comments = {{"sink_rate",
                         "% of (sentence, head) instances with alpha_0 > eps (the first key's mean "
                         "attention over the queries that see it)"},
                        {"mean_boost",
                         "the mean over those instances of alpha_0 / u_0, u_0 = H(T) / T a uniform "
                         "head's alpha_0 (causal; 1 / T bidirectional)"}};
  return fig;
}

// BOS removal (003): the NLL change per sentence (recorded with the functional experiments).
SetFigure bos_removal_figure(const SetContext& x) {
  SetFigure fig;
  fig.file = "bos_removal";
  fig.paperFigure = "Barbero et al., BOS removal";
  fig.plot.xPadding = 0.5;  // whole markers at the shortest and longest sentences
  fig.plot.integerX = true;
  fig.plot.title = "NLL change when the BOS token is removed, per sentence (" + x.source + ")";
  fig.plot.xLabel = "tokens in the sentence";
  fig.plot.yLabel = "mean dNLL (nats)";
  fig.plot.includeZero = true;
  fig.table.columns = {"sentence", "tokens", "delta_nll"};
  views::PlotSeries points{"sentences", {}, {}};
  points.scatter = true;
  double sum = 0.0;
  int counted = 0;
  for (const SentenceRecord& r : x.records) {
    fig.table.rows.push_back(
        {std::to_string(r.index), std::to_string(r.tokens), csv_number_or_empty(r.bosDeltaNll)});
    if (!std::isfinite(r.bosDeltaNll)) continue;
    points.x.push_back(r.tokens), points.y.push_back(r.bosDeltaNll);
    sum += r.bosDeltaNll, ++counted;
  }
  if (counted > 0) {
    fig.plot.series.push_back(std::move(points));
    char label[64];
    std::snprintf(label, sizeof label, "mean %.3g nats", sum / counted);
    views::PlotSeries mean{label, {}, {}};
    double lo = 1e300, hi = -1e300;
    for (const SentenceRecord& r : x.records)
      lo = std::min(lo, double(r.tokens)), hi = std::max(hi, double(r.tokens));
    mean.x = {lo, hi};
    mean.y = {sum / counted, sum / counted};
    mean.reference = true;
    fig.plot.series.push_back(std::move(mean));
    // Whole markers at the ends: air of a share of the span (half a token is
    // less than a marker's radius once sentences differ by tens of tokens),
    // and below the lowest change as above the highest.
    fig.plot.xPadding = std::max(0.5, 0.04 * (hi - lo));
    fig.plot.airBelow = true;
  } else {
    fig.plot.title += ": not defined (the model's first token is not a special BOS token)";
  }
  return fig;
}

// A ranking as a legend says it (the CSV keeps head_ranking_name's word).
std::string ranking_legend_name(models::HeadRanking ranking) {
  switch (ranking) {
    case models::HeadRanking::TypeGuided:
      return "type-guided";
    case models::HeadRanking::WeightMagnitude:
      return "weight magnitude";
    case models::HeadRanking::EntropyKeepLow:
      return "entropy, low kept";
    case models::HeadRanking::EntropyKeepHigh:
      return "entropy, high kept";
    case models::HeadRanking::SinkAttention:
      return "attention to the sink";
    case models::HeadRanking::CurrentToken:
      return "attention to the current token";
    case models::HeadRanking::Random:
      return "random";
  }
  return models::head_ranking_name(ranking);
}

}  // namespace

std::vector<SetFigure> figure_set_of_records(const std::vector<SentenceRecord>& records, int L,
                                             int H, bool encoder,
                                             const document::AnalysisSettings& p,
                                             const FigureSetParams& params) {
  if (records.empty()) throw std::invalid_argument("figure set: no sentences");
  for (const SentenceRecord& r : records)
    if (r.curves.size() != static_cast<std::size_t>(L))
      throw std::invalid_argument("figure set: sentence " + std::to_string(r.index) +
                                  " has no curves (recorded without them)");
  const CorpusTables tables = corpus_tables(records, L, H, encoder, p);
  const std::vector<int> shown = shown_layers(L, params.shownLayers);
  // Positions fewer sentences reach than this are in the tables, not the curves.
  const int minCount = std::max(
      1,
      static_cast<int>(std::ceil(params.shownPositionShare * static_cast<double>(records.size()))));
  const std::string positionNote =
      minCount > 1 ? " | positions at least " + std::to_string(minCount) + " sentences reach" : "";
  const SetContext context{
      records, L, H, shown, minCount, positionNote, std::to_string(records.size()) + " sentences"};
  std::vector<SetFigure> figures;
  figures.push_back(key_importance_figure(context));
  figures.push_back(sink_rate_table(context, tables.sinkRate, p));  // a table only
  append_betti_figures(context, tables.frame, figures);
  figures.push_back(frame_summary_table(context, tables.frame, p));  // a table only
  figures.push_back(fn_figure(context));
  append_per_n_figures(context, figures);
  append_value_geometry_figures(context, figures);
  append_value_cosine_figure(context, figures);
  figures.push_back(taxonomy_figure(context));
  append_class_trajectory_figures(context, figures);
  append_context_length_figures(context, p, figures);
  figures.push_back(class_distribution_table(context, p));
  // BOS removal needs the model's token probabilities: recorded with the
  // functional experiments.
  append_spectral_figures(context, p, figures);
  if (p.functional) {
    figures.push_back(sink_removal_kl_figure(context, p));
    figures.push_back(bos_removal_figure(context));
  }
  return figures;
}

namespace {

// Table 2 of 004: each diagnostic's Spearman and Pearson correlation with the
// dNLL of ablating the head alone, across heads; a head's diagnostic and dNLL
// are its means over the ablated sentences. Rows from the strongest |Spearman|.
SetFigure ablation_correlation_table(
    const std::vector<std::pair<std::string, std::vector<double>>>& diagnostics,
    const std::vector<double>& dnll, std::size_t sentences, int topN,
    const document::AnalysisSettings& p) {
  struct Row {
    std::string name;
    double spearman, pearson;
    std::pair<double, double> spearmanInterval, pearsonInterval;
  };
  const std::size_t heads = dnll.size();
  std::vector<Row> rows;
  for (const auto& [name, values] : diagnostics) {
    Row r{name, analysis::spearman(values, dnll), analysis::pearson(values, dnll), {}, {}};
    // The heads resampled with replacement: the spread a different draw of heads would give.
    std::vector<double> spearmans, pearsons;
    for (int b = 0; b < p.bootstrap; ++b) {
      const std::vector<int> counts =
          analysis::bootstrap_resample_counts(heads, p.bootstrapSeed, b);
      std::vector<double> x, y;
      for (std::size_t k = 0; k < heads; ++k)
        for (int c = 0; c < counts[k]; ++c) x.push_back(values[k]), y.push_back(dnll[k]);
      const double rho = analysis::spearman(x, y), r2 = analysis::pearson(x, y);
      if (std::isfinite(rho)) spearmans.push_back(rho);
      if (std::isfinite(r2)) pearsons.push_back(r2);
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    r.spearmanInterval =
        spearmans.empty() ? std::pair(nan, nan) : analysis::percentile_interval95(spearmans);
    r.pearsonInterval =
        pearsons.empty() ? std::pair(nan, nan) : analysis::percentile_interval95(pearsons);
    rows.push_back(std::move(r));
  }
  auto strength = [](double v) { return std::isfinite(v) ? std::abs(v) : -1.0; };
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    return strength(a.spearman) > strength(b.spearman);
  });
  SetFigure fig;
  fig.file = "ablation_correlation";
  fig.paperFigure = "Mudarisov et al., Table 2";
  fig.table.columns = {"diagnostic",  "spearman",     "spearman_low", "spearman_high", "pearson",
                       "pearson_low", "pearson_high", "heads",        "sentences"};
  fig.table.comments = {
      {"diagnostics",
       "each head's mean over queries i >= 1 of each ablated sentence (top_n_mass: N = " +
           std::to_string(topN) + "), then over the sentences"},
      {"dnll", "mean NLL with the head's output zeroed minus without, averaged over the sentences"},
      {"interval", "95% percentile interval over " + std::to_string(p.bootstrap) +
                       " resamples of the heads (seed " + std::to_string(p.bootstrapSeed) +
                       "); Spearman is 0 and Pearson empty where either series is constant"}};
  for (const Row& r : rows)
    fig.table.rows.push_back(
        {r.name, csv_number_or_empty(r.spearman), csv_number_or_empty(r.spearmanInterval.first),
         csv_number_or_empty(r.spearmanInterval.second), csv_number_or_empty(r.pearson),
         csv_number_or_empty(r.pearsonInterval.first),
         csv_number_or_empty(r.pearsonInterval.second), std::to_string(heads),
         std::to_string(sentences)});
  return fig;
}

}  // namespace

namespace {

// Ruscio et al.'s Fisher information per layer: each sentence's empirical
// Fisher trace per parameter (metrics.md s. 5), its mean over the sentences
// with the 95% interval of resampled sentences. Layer -1 (embeddings, final
// norm, head) is in the table only: the plot's x axis is the layers.
SetFigure fisher_figure(const std::vector<std::vector<models::FisherLayer>>& perSentence,
                        int layers, const document::AnalysisSettings& p) {
  SetFigure fig;
  fig.file = "fisher_by_layer";
  fig.paperFigure = "Ruscio et al., Fisher information";
  fig.plot.title =
      "Empirical Fisher information per parameter of each layer, E_t ‖∇θ log p(x_t)‖² / "
      "parameters (" +
      (perSentence.size() == 1 ? std::string("one sentence")
                               : "mean over " + std::to_string(perSentence.size()) +
                                     " sentences, 95% intervals over resampled sentences") +
      ")";
  fig.plot.xLabel = "layer";
  fig.plot.yLabel = "Fisher trace per parameter";
  fig.plot.integerX = true;
  fig.plot.includeZero = true;
  fig.table.columns = {"layer",         "parameters",       "trace",
                       "per_parameter", "per_parameter_lo", "per_parameter_hi",
                       "sentences"};
  views::PlotSeries curve{"mean over the sentences", {}, {}};
  for (int l = -1; l < layers; ++l) {
    std::vector<double> trace, perParameter;
    std::size_t parameters = 0;
    for (const auto& sentence : perSentence) {
      double t = std::numeric_limits<double>::quiet_NaN(), pp = t;
      for (const models::FisherLayer& f : sentence)
        if (f.layer == l) t = f.trace, pp = f.perParameter, parameters = f.parameters;
      trace.push_back(t), perParameter.push_back(pp);
    }
    const PooledMean m = pooled_mean(perParameter, p), t = pooled_mean(trace, p);
    fig.table.rows.push_back({std::to_string(l), std::to_string(parameters),
                              csv_number_or_empty(t.mean), csv_number_or_empty(m.mean),
                              csv_number_or_empty(m.lo), csv_number_or_empty(m.hi),
                              std::to_string(m.sentences)});
    if (l < 0 || m.sentences == 0) continue;
    curve.x.push_back(l), curve.y.push_back(m.mean), curve.lo.push_back(m.lo),
        curve.hi.push_back(m.hi);
  }
  fig.plot.series.push_back(std::move(curve));
  return fig;
}

// Barbero et al.'s perturbation: how far a perturbation of token 1 spreads
// through the residual stream, with the first token (the sink) and without it.
// Per layer l (l = layers: the output), the mean over the positions after the
// perturbed one of ||h_l(i) - h'_l(i)|| / ||h_l(i)||; NaN per layer for a
// sentence too short to have such a position in both runs.
models::Perturbation kSpreadPerturbation() {
  models::Perturbation q;  // position 1, Gaussian embedding noise of relative size 0.1, seed 1
  return q;
}

std::vector<double> perturbation_spread(const models::Model& model, const std::vector<int>& ids,
                                        bool withoutSink) {
  const int L = model.config().num_layers;
  models::Perturbation q = kSpreadPerturbation();
  std::vector<double> out(static_cast<std::size_t>(L + 1),
                          std::numeric_limits<double>::quiet_NaN());
  if (static_cast<int>(ids.size()) < q.position + 2) return out;
  q.withoutFirstToken = withoutSink;
  const models::PerturbationMap map = models::perturbation_sensitivity(model, ids, q);
  const int perturbed = q.position - (withoutSink ? 1 : 0);  // its place in the run
  for (int l = 0; l <= map.layers; ++l) {
    double sum = 0.0;
    int count = 0;
    for (int i = perturbed + 1; i < map.tokens; ++i)
      sum += map.change[static_cast<std::size_t>(l * map.tokens + i)], ++count;
    if (count > 0) out[static_cast<std::size_t>(l)] = sum / count;
  }
  return out;
}

SetFigure perturbation_figure(const std::array<std::vector<std::vector<double>>, 2>& spread,
                              int layers, const document::AnalysisSettings& p) {
  SetFigure fig;
  fig.file = "perturbation_by_layer";
  fig.paperFigure = "Barbero et al., perturbation sensitivity";
  const models::Perturbation q = kSpreadPerturbation();
  fig.plot.title =
      "Spread of a perturbation of token " + std::to_string(q.position) +
      " (Gaussian embedding noise of relative size " + csv_number(q.sigma) +
      "): ‖h − h′‖ / ‖h‖ after it, entering each layer (" + std::to_string(layers) +
      ": the output), with and without the first token (" +
      (spread[0].size() == 1 ? std::string("one sentence")
                             : "mean over " + std::to_string(spread[0].size()) +
                                   " sentences, 95% intervals over resampled sentences") +
      ")";
  fig.plot.xLabel = "layer (" + std::to_string(layers) + ": the output)";
  fig.plot.yLabel = "relative change";
  fig.plot.integerX = true;
  fig.plot.includeZero = true;
  fig.table.columns = {
      "layer",    "first_token", "relative_change", "relative_change_lo", "relative_change_hi",
      "sentences"};
  for (bool withoutSink : {false, true}) {
    views::PlotSeries curve{
        withoutSink ? "without the first token" : "with the first token (sink)", {}, {}};
    for (int l = 0; l <= layers; ++l) {
      std::vector<double> perSentence;
      for (const auto& sentence : spread[withoutSink])
        perSentence.push_back(sentence[static_cast<std::size_t>(l)]);
      const PooledMean m = pooled_mean(perSentence, p);
      fig.table.rows.push_back({std::to_string(l), withoutSink ? "removed" : "kept",
                                csv_number_or_empty(m.mean), csv_number_or_empty(m.lo),
                                csv_number_or_empty(m.hi), std::to_string(m.sentences)});
      if (m.sentences == 0) continue;
      curve.x.push_back(l + (withoutSink ? 0.06 : -0.06));  // bars side by side
      curve.y.push_back(m.mean), curve.lo.push_back(m.lo), curve.hi.push_back(m.hi);
    }
    curve.dashed = withoutSink;
    fig.plot.series.push_back(std::move(curve));
  }
  return fig;
}

}  // namespace

std::vector<SetFigure> ablation_figures(const models::LoadedModel& model,
                                        const std::vector<std::string>& sentences,
                                        const FigureSetParams& params) {
  const models::SingleThreadedBlas exactProducts;
  // dNLL against the share of heads kept, averaged over the first sentences;
  // the random ranking's spread over every (sentence, seed) draw, as
  // Mudarisov et al. draw it (mean +- std, their Fig. 5).
  struct Pooled {
    double sum = 0, squares = 0;  // of the draws' dNLL
    int sentences = 0, draws = 0;
  };
  std::map<std::pair<int, double>, Pooled> pooled;  // (ranking, retained)
  std::vector<std::vector<models::FisherLayer>> fisher;  // per sentence (empty: too short)
  std::array<std::vector<std::vector<double>>, 2> spread;  // [without the sink][sentence][layer]
  // Per head, sums over the sentences (divided by their count below).
  std::vector<double> headDnll;
  std::vector<std::pair<std::string, std::vector<double>>> headDiagnostics;
  auto accumulate = [](std::vector<double>& sum, const std::vector<double>& one) {
    if (sum.empty()) sum.assign(one.size(), 0.0);
    for (std::size_t k = 0; k < one.size() && k < sum.size(); ++k) sum[k] += one[k];
  };
  const std::size_t used = std::min<std::size_t>(
      sentences.size(), static_cast<std::size_t>(std::max(0, params.sparsificationSentences)));
  for (std::size_t s = 0; s < used; ++s) {
    const models::SentenceTrace run = models::loaded_model_run(model, sentences[s]);
    const std::vector<double> dnll = models::head_ablation_dnll(*model.model, run.trace);
    try {
      fisher.push_back(models::fisher_per_layer(*model.model, run.trace.ids()));
    } catch (const models::ModelRunError&) {
      fisher.emplace_back();  // one token: nothing predicted
    }
    for (bool withoutSink : {false, true})
      spread[withoutSink].push_back(
          perturbation_spread(*model.model, run.trace.ids(), withoutSink));
    accumulate(headDnll, dnll);
    const auto diagnostics = models::head_diagnostic_series(run.trace, params.analysis.topN);
    if (headDiagnostics.empty())
      for (const auto& [name, values] : diagnostics)
        headDiagnostics.emplace_back(name, std::vector<double>{});
    for (std::size_t d = 0; d < diagnostics.size(); ++d)
      accumulate(headDiagnostics[d].second, diagnostics[d].second);
    for (const models::SparsificationPoint& q :
         models::sparsification_curves(*model.model, run.trace, dnll, params.sparsification)) {
      // A sentence's draws from its mean and sample std (one draw: no spread).
      const int n = q.ranking == models::HeadRanking::Random
                        ? std::max(1, params.sparsification.randomSeeds)
                        : 1;
      Pooled& cell = pooled[{static_cast<int>(q.ranking), q.retained}];
      cell.sum += n * q.dnll;
      cell.squares += (n - 1) * q.dnllStd * q.dnllStd + n * q.dnll * q.dnll;
      cell.draws += n;
      ++cell.sentences;
    }
  }
  SetFigure fig;
  fig.file = "sparsification";
  fig.paperFigure = "Mudarisov et al., Fig. 5";
  fig.plot.title = "Sparsification: dNLL against the share of heads kept per layer (mean over " +
                   std::to_string(used) + " sentences; random: mean ± std of its draws)";
  fig.plot.xPadding = 0.03;  // the error bars at 0 and 1 whole
  fig.plot.xLabel = "share of heads kept";
  fig.plot.yLabel = "dNLL (nats)";
  fig.plot.includeZero = true;
  fig.plot.airBelow = true;  // a ranking's curve along 0 is not hidden by the axis
  fig.table.columns = {"ranking", "retained", "dnll", "dnll_std", "sentences"};
  std::map<int, views::PlotSeries> byRanking;
  for (const auto& [key, cell] : pooled) {
    const auto ranking = static_cast<models::HeadRanking>(key.first);
    const double mean = cell.sum / cell.draws;
    const double std =
        cell.draws > 1
            ? std::sqrt(std::max(0.0, (cell.squares - cell.draws * mean * mean) / (cell.draws - 1)))
            : 0.0;
    views::PlotSeries& c = byRanking[key.first];
    c.name = ranking_legend_name(ranking);
    c.x.push_back(key.second);
    c.y.push_back(mean);
    if (ranking == models::HeadRanking::Random) {
      c.lo.push_back(mean - std);
      c.hi.push_back(mean + std);
    }
    fig.table.rows.push_back({models::head_ranking_name(ranking), csv_number(key.second),
                              csv_number(mean), csv_number(std), std::to_string(cell.sentences)});
  }
  for (auto& [ranking, curve] : byRanking) {
    if (static_cast<models::HeadRanking>(ranking) == models::HeadRanking::Random) {
      curve.dashed = true;
      curve.name += " (mean ± std)";
    }
    fig.plot.series.push_back(std::move(curve));
  }
  std::vector<SetFigure> figures{std::move(fig)};
  if (used == 0) return figures;
  for (double& v : headDnll) v /= static_cast<double>(used);
  for (auto& [name, values] : headDiagnostics)
    for (double& v : values) v /= static_cast<double>(used);
  figures.push_back(ablation_correlation_table(headDiagnostics, headDnll, used,
                                               params.analysis.topN, params.analysis));
  figures.push_back(fisher_figure(fisher, model.model->config().num_layers, params.analysis));
  figures.push_back(perturbation_figure(spread, model.model->config().num_layers, params.analysis));
  return figures;
}

}  // namespace sinkscope::document
namespace sinkscope::document {

const std::vector<AtlasKind>& atlas_kinds() {
  static const std::vector<AtlasKind> kinds{
      {"betti0_by_layer", "Ruscio et al., Betti curves", "", 0, 1},
      {"betti1_by_layer", "Ruscio et al., Betti curves", "", 0, 2},
      {"reference_frame", "Ruscio et al., Table 1", "", 0, 0.5},
      {"fiedler_by_layer", "Ruscio et al., spectral analysis", "", 0, 4},
      {"centralisation_by_layer", "Ruscio et al., spectral analysis", "", 0, 5},
      {"fisher_by_layer", "Ruscio et al., Fisher information",
       "needs an output head (a study run with --functional, its model folder at hand) and "
       "--sparsification-sentences above 0",
       0, 7},
      {"sink_removal_kl_by_layer", "Ruscio et al., KL of sink removal",
       "needs token probabilities: a model with an output head (a study run with --functional)", 0,
       6},
      {"key_importance_by_layer", "Barbero et al., the sink metric", "", 1, 1},
      {"sink_rate", "Barbero et al., the sink rate", "", 1, 0.5},
      {"perturbation_by_layer", "Barbero et al., perturbation sensitivity",
       "runs with head ablation: a model with an output head (a study run with --functional, "
       "its model folder at hand) and --sparsification-sentences above 0",
       1, 3},
      {"bos_removal", "Barbero et al., BOS removal",
       "needs token probabilities: a model with an output head (a study run with --functional)", 1,
       2},
      {"fn_against_n_by_layer", "Mudarisov et al., Fig. 2", "", 2, 2.0},
      {"precision_against_n_by_layer", "Mudarisov et al., Fig. 2", kCurveAbsent, 2, 2.1},
      {"recall_against_n_by_layer", "Mudarisov et al., Fig. 2", kCurveAbsent, 2, 2.2},
      {"sink_value_norm_ratio_by_layer", "Mudarisov et al., Fig. 3(a)", kGeometryAbsent, 2, 3.0},
      {"value_cosine_distribution", "Mudarisov et al., Fig. 3(b)", kCurveAbsent, 2, 3.1},
      {"precision_by_context_length", "Mudarisov et al., Fig. 10", kContextAbsent, 2, 10},
      {"recall_by_context_length", "Mudarisov et al., Fig. 11", kContextAbsent, 2, 11},
      {"fn_by_sink_selection_against_n", "Mudarisov et al., Fig. 3(c)", kCurveAbsent, 2, 3.2},
      {"taxonomy_by_layer", "Mudarisov et al., Fig. 4(a)", "", 2, 4.0},
      {"class_value_alignment_against_n", "Mudarisov et al., Fig. 4(b)", kClassesAbsent, 2, 4.1},
      {"class_loo_norm_against_n", "Mudarisov et al., Fig. 4(b)", kClassesAbsent, 2, 4.2},
      {"head_class_distribution", "Mudarisov et al., Table 3", "", 2, 30.0},
      {"sparsification", "Mudarisov et al., Fig. 5",
       "needs head ablation: a model with an output head (a study run with --functional, its "
       "model folder at hand) and --sparsification-sentences above 0",
       2, 5.0},
      {"value_norm_cv_by_layer", "Mudarisov et al., Fig. 6", kGeometryAbsent, 2, 6.0},
      {"ablation_correlation", "Mudarisov et al., Table 2",
       "needs head ablation: a model with an output head (a study run with --functional, its "
       "model folder at hand) and --sparsification-sentences above 0",
       2, 20.0},
      {"value_coherence_by_layer", "Mudarisov et al., Fig. 7", kGeometryAbsent, 2, 7.0},
      {"loo_alignment_margin_against_n_by_layer", "Mudarisov et al., Fig. 8 (left)", kCurveAbsent,
       2, 8.0},
      {"positive_loo_share_against_n_by_layer", "Mudarisov et al., Fig. 8 (right)", kCurveAbsent, 2,
       8.1},
      {"loo_margin_against_n_by_layer", "Mudarisov et al., Fig. 9", kCurveAbsent, 2, 9.0},
      {"sink_selection_rate_against_n_by_layer", "Mudarisov et al., Fig. 13", kCurveAbsent, 2, 13},
      {"fn_by_sink_selection_against_n_by_layer", "Mudarisov et al., Fig. 14", kCurveAbsent, 2, 14},
      {"sink_share_of_aggregate_against_n_by_layer", "Mudarisov et al., Fig. 15", kCurveAbsent, 2,
       15},
      {"sink_direction_change_against_n_by_layer", "Mudarisov et al., Fig. 16", kCurveAbsent, 2,
       16},
      {"sink_intrusion_rate_against_n_by_layer", "Mudarisov et al., Fig. 17", kCurveAbsent, 2, 17},
      {"sink_inverted_share_against_n_by_layer", "Mudarisov et al., Fig. 18", kCurveAbsent, 2, 18},
      {"sink_alignment_against_n_by_layer", "Mudarisov et al., Fig. 19", kCurveAbsent, 2, 19}};
  return kinds;
}

const std::vector<std::pair<std::string, std::string>>& atlas_not_yet_drawn() {
  static const std::vector<std::pair<std::string, std::string>> pending{};
  return pending;
}

std::vector<SetFigure> in_papers_order(std::vector<SetFigure> figures) {
  auto rank = [](const SetFigure& f) {
    const std::vector<AtlasKind>& kinds = atlas_kinds();
    for (std::size_t k = 0; k < kinds.size(); ++k)
      if (kinds[k].file == f.file) return std::pair(kinds[k].paper, kinds[k].order);
    return std::pair(99, 0.0);
  };
  std::stable_sort(figures.begin(), figures.end(),
                   [&](const SetFigure& a, const SetFigure& b) { return rank(a) < rank(b); });
  return figures;
}

std::vector<std::pair<std::string, std::string>> atlas_left_out(
    const std::vector<SetFigure>& figures) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const AtlasKind& kind : atlas_kinds()) {
    bool drawn = false;
    for (const SetFigure& f : figures) drawn = drawn || f.file == kind.file;
    if (!drawn) out.emplace_back(std::string(kind.paperFigure) + ": " + kind.file, kind.whyAbsent);
  }
  return out;
}

std::string figure_caption(const SetFigure& f, const AtlasScope& scope) {
  std::string caption = f.paperFigure.empty() ? "" : "(" + f.paperFigure + ") ";
  // A title's " | " notes read as clauses in a sentence.
  std::string title = f.plot.title.empty() ? f.file : f.plot.title;
  for (std::size_t at = title.find(" | "); at != std::string::npos; at = title.find(" | ", at))
    title.replace(at, 3, "; ");
  caption += title;
  if (!caption.empty() && caption.back() != '.') caption += '.';
  // Head ablation's kinds run on the first sentences only (their titles say how many).
  const bool ablated = f.file == "sparsification" || f.file == "fisher_by_layer" ||
                       f.file == "perturbation_by_layer" || f.file == "ablation_correlation";
  const std::string shape = " (" + std::to_string(scope.layers) + " layers of " +
                            std::to_string(scope.heads) + " heads).";
  if (ablated)
    caption += " Run on the first sentences of " + scope.sentencesName + " (the set has " +
               std::to_string(scope.sentences) + ") on " + scope.model + shape;
  else
    caption += " Pooled over " + std::to_string(scope.sentences) + " sentences of " +
               scope.sentencesName + " on " + scope.model + shape;
  if (f.file.find("_against_n_") != std::string::npos)
    caption +=
        " The top N are the N keys of largest attention weight (ties to the lower "
        "position).";
  if (f.file == "fn_against_n_by_layer" || f.file == "precision_against_n_by_layer" ||
      f.file == "recall_against_n_by_layer")
    caption += " Random baseline: " + std::to_string(scope.randomSubsets) +
               " random N-subsets per head and N, seed " + std::to_string(scope.seed) + ".";
  if (f.file.rfind("betti", 0) == 0 || f.file == "reference_frame")
    caption += " Distances: " + scope.distances + ".";
  caption += " Numbers: " + f.file + ".csv.";
  return caption;
}

}  // namespace sinkscope::document
