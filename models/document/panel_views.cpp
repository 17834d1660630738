#include "models/document/panel_views.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "analysis/persistence.h"
#include "analysis/sink_metric.h"
#include "analysis/taxonomy.h"

namespace sinkscope::document {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// As analyze writes a number: the shortest text that reads back the same
// double, an undefined value as an empty field.
std::string cell(double v) { return io::csv_number_or_empty(v); }

// What the score's column is named in analyze's tables.
std::string score_column(HeadScore score) {
  switch (score) {
    case HeadScore::SinkBoost:
      return "boost0";
    case HeadScore::Entropy:
      return "entropy";
    case HeadScore::Fiedler:
      return "fiedler";
    case HeadScore::FScore:
      return "f";
    case HeadScore::Taxonomy:
      return "label";
    case HeadScore::Dnll:
      return "dnll";
    case HeadScore::SinkAttention:
    case HeadScore::MiniatureMaps:
      break;
  }
  return "sink_attention";
}

double head_score(const TraceAnalysis& a, HeadScore score, const HeadScoreSources& s, int l,
                  int h) {
  const analysis::HeadAnalysis& r = a.at(l, h);
  switch (score) {
    case HeadScore::SinkBoost:
      return r.keyImportance.empty()
                 ? kNaN
                 : r.keyImportance[0] / analysis::sink_uniform_baseline(a.tokens, 0, a.causal);
    case HeadScore::Entropy:
      return r.meanOverQueries.entropy;
    case HeadScore::Fiedler: {
      if (s.fiedler) return s.fiedler(l, h);
      const int ti = a.thresholdIndex(s.threshold);
      return a.topologyForAllHeads && ti >= 0 ? r.spectra[static_cast<std::size_t>(ti)].fiedlerValue
                                              : kNaN;
    }
    case HeadScore::FScore:
      return r.valueSpace ? r.valueSpace->scores.f : kNaN;
    case HeadScore::Taxonomy:
      return r.taxonomy ? static_cast<int>(analysis::taxonomy_label(*r.taxonomy)) : kNaN;
    case HeadScore::Dnll: {
      const auto k = static_cast<std::size_t>(l) * static_cast<std::size_t>(a.heads) +
                     static_cast<std::size_t>(h);
      return s.headDnll.size() == static_cast<std::size_t>(a.layers) * a.heads ? s.headDnll[k]
                                                                               : kNaN;
    }
    case HeadScore::SinkAttention:
    case HeadScore::MiniatureMaps:
      break;
  }
  return r.meanOverQueries.sinkAttention;
}

}  // namespace

HeadGridView head_score_view(const TraceAnalysis& a, HeadScore score,
                             const HeadScoreSources& sources) {
  HeadGridView v;
  v.layers = a.layers;
  v.heads = a.heads;
  const bool fiedler = score == HeadScore::Fiedler;
  v.table.columns = {"layer", "head"};
  if (fiedler) v.table.columns.push_back("threshold");
  v.table.columns.push_back(score_column(score));
  for (int l = 0; l < a.layers; ++l)
    for (int h = 0; h < a.heads; ++h) {
      const double value = head_score(a, score, sources, l, h);
      v.values.push_back(value);
      std::vector<std::string> row{std::to_string(l), std::to_string(h)};
      if (fiedler) row.push_back(cell(sources.threshold));
      if (score == HeadScore::Taxonomy)  // the class by name, as taxonomy.csv has it
        row.push_back(std::isfinite(value)
                          ? analysis::head_class_name(static_cast<analysis::HeadClass>(int(value)))
                          : "");
      else
        row.push_back(cell(value));
      v.table.rows.push_back(std::move(row));
    }
  return v;
}

const std::vector<double>& LayerProfileView::measure(const std::string& column) const {
  const auto it = std::find(columns.begin(), columns.end(), column);
  if (it == columns.end()) throw std::out_of_range("layer profile: no measure " + column);
  return measures[static_cast<std::size_t>(it - columns.begin())];
}

namespace {

LayerProfileView layer_profile(std::vector<std::string> columns,
                               std::vector<std::vector<double>> measures) {
  LayerProfileView v;
  v.columns = std::move(columns);
  v.measures = std::move(measures);
  v.table.columns = {"layer"};
  v.table.columns.insert(v.table.columns.end(), v.columns.begin(), v.columns.end());
  const std::size_t layers = v.measures.empty() ? 0 : v.measures.front().size();
  for (std::size_t l = 0; l < layers; ++l) {
    std::vector<std::string> row{std::to_string(l)};
    for (const auto& m : v.measures) row.push_back(cell(m[l]));
    v.table.rows.push_back(std::move(row));
  }
  return v;
}

}  // namespace

namespace {

// The layer's average head's spectrum at `threshold` from the analysis, or null.
const analysis::GraphSpectrum* cached_spectrum(const TraceAnalysis& a, int layer,
                                               double threshold) {
  const int ti = a.thresholdIndex(threshold);
  if (!a.topologyForAllHeads || ti < 0) return nullptr;
  return &a.at(layer, -1).spectra[static_cast<std::size_t>(ti)];
}

}  // namespace

LayerProfileView layer_sink_view(const TraceAnalysis& a, const AnalysisSettings& settings,
                                 double threshold,
                                 const std::function<double(int layer)>& centralisation) {
  std::vector<double> sink, rate, central;
  for (int l = 0; l < a.layers; ++l) {
    sink.push_back(a.at(l, -1).meanOverQueries.sinkAttention);
    double above = 0;
    for (int h = 0; h < a.heads; ++h)
      above += analysis::is_sink_rate_head(a.at(l, h).keyImportance[0], settings.eps) ? 1 : 0;
    rate.push_back(above / std::max(1, a.heads));
    const analysis::GraphSpectrum* g = centralisation ? nullptr : cached_spectrum(a, l, threshold);
    central.push_back(centralisation ? centralisation(l) : g ? g->centralisation : kNaN);
  }
  return layer_profile({"sink_attention", "sink_rate", "centralisation"},
                       {std::move(sink), std::move(rate), std::move(central)});
}

LayerProfileView layer_topology_view(const TraceAnalysis& a, const AnalysisSettings& settings,
                                     double threshold,
                                     const std::function<double(int layer)>& fiedler) {
  std::vector<double> h0, h1, rank, fiedlers;
  for (int l = 0; l < a.layers; ++l) {
    const analysis::HeadAnalysis& avg = a.at(l, -1);
    h0.push_back(a.topologyForAllHeads
                     ? analysis::bars_above(avg.persistence.h0, settings.minPersistence)
                     : kNaN);
    h1.push_back(a.topologyForAllHeads
                     ? analysis::bars_above(avg.persistence.h1, settings.minPersistence)
                     : kNaN);
    rank.push_back(static_cast<std::size_t>(l) < a.effectiveRank.size()
                       ? a.effectiveRank[static_cast<std::size_t>(l)]
                       : kNaN);
    const analysis::GraphSpectrum* g = fiedler ? nullptr : cached_spectrum(a, l, threshold);
    fiedlers.push_back(fiedler ? fiedler(l) : g ? g->fiedlerValue : kNaN);
  }
  return layer_profile({"bars_h0_above_min", "bars_h1_above_min", "effective_rank", "fiedler"},
                       {std::move(h0), std::move(h1), std::move(rank), std::move(fiedlers)});
}

TaxonomyView taxonomy_view(const TraceAnalysis& a) {
  TaxonomyView v;
  v.layers = a.layers;
  v.heads = a.heads;
  v.heads_table.columns = {"layer", "head", "sink_votes", "current_votes", "other_votes", "label"};
  v.counts_table.columns = {"layer", "heads", "retriever", "mixer", "reset"};
  for (int l = 0; l < a.layers; ++l) {
    int counts[3] = {0, 0, 0};
    for (int h = 0; h < a.heads; ++h) {
      const auto& votes = a.at(l, h).taxonomy;
      if (!votes) {
        v.classes.push_back(-1);
        v.heads_table.rows.push_back({std::to_string(l), std::to_string(h), "", "", "", ""});
        continue;
      }
      const analysis::HeadClass c = analysis::taxonomy_label(*votes);
      v.classes.push_back(static_cast<int>(c));
      ++counts[static_cast<int>(c)];
      v.heads_table.rows.push_back({std::to_string(l), std::to_string(h),
                                    std::to_string(votes->sink), std::to_string(votes->current),
                                    std::to_string(votes->other), analysis::head_class_name(c)});
    }
    v.counts_table.rows.push_back({std::to_string(l), std::to_string(a.heads),
                                   std::to_string(counts[0]), std::to_string(counts[1]),
                                   std::to_string(counts[2])});
  }
  return v;
}

io::CsvTable tables_by_run(const std::vector<std::pair<std::string, const io::CsvTable*>>& runs) {
  io::CsvTable out;
  for (const auto& [name, table] : runs) {
    if (!table) continue;
    if (out.columns.empty()) {
      out.columns = {"run"};
      out.columns.insert(out.columns.end(), table->columns.begin(), table->columns.end());
    } else if (out.columns.size() != table->columns.size() + 1 ||
               !std::equal(table->columns.begin(), table->columns.end(), out.columns.begin() + 1)) {
      throw std::invalid_argument("tables_by_run: the runs' tables differ in their columns");
    }
    const io::CsvTable parsed = io::csv_with_rows_parsed(*table);
    for (const auto& r : parsed.rows) {
      std::vector<std::string> row{name};
      row.insert(row.end(), r.begin(), r.end());
      out.rows.push_back(std::move(row));
    }
  }
  return out;
}

io::CsvTable attention_table(const analysis::AttentionView& map, int layer, int head,
                             const std::vector<std::string>& tokens) {
  io::CsvTable t;
  t.columns = attention_columns();
  append_attention_rows(t, map, layer, head, tokens);
  return t;
}

const std::vector<std::string>& attention_columns() {
  static const std::vector<std::string> columns{"layer",       "head",      "query", "key",
                                                "query_token", "key_token", "weight"};
  return columns;
}

void append_attention_rows(io::CsvTable& table, const analysis::AttentionView& map, int layer,
                           int head, const std::vector<std::string>& tokens) {
  if (tokens.size() != static_cast<std::size_t>(map.size))
    throw std::invalid_argument("attention_table: " + std::to_string(tokens.size()) +
                                " tokens for a map of " + std::to_string(map.size));
  const std::string layerName = std::to_string(layer);
  const std::string headName = head < 0 ? "average" : std::to_string(head);
  // By value: the deferred writer below keeps it.
  const auto each_row = [layerName, headName](const analysis::AttentionView& m,
                                              const std::vector<std::string>& words,
                                              const auto& take) {
    std::vector<std::string> row(7);
    row[0] = layerName;
    row[1] = headName;
    for (int i = 0; i < m.size; ++i)
      for (int j = 0; j < m.size; ++j) {
        if (!m.visible(i, j)) continue;
        row[2] = std::to_string(i);
        row[3] = std::to_string(j);
        row[4] = words[static_cast<std::size_t>(i)];
        row[5] = words[static_cast<std::size_t>(j)];
        row[6] = io::csv_number(m.at(i, j));
        take(row);
      }
  };
  // A long input's map has millions of cells: as rows of seven strings each
  // it took 620 MB and 12 million allocations at T = 2048, and as CSV text
  // still most of a second each time the window drew the map. Past
  // kAttentionRowsAsText the table keeps a copy of the map (16 MB at 2048)
  // and writes its rows when it is rendered (an export, a JSON view).
  const auto T = static_cast<std::size_t>(map.size);
  if (io::csv_has_text_rows(table) || T * T / 2 > kAttentionRowsAsText) {
    auto kept = std::make_shared<const analysis::AttentionMatrix>(analysis::AttentionMatrix{
        std::vector<float>(map.weights.begin(), map.weights.end()), map.size, map.causal});
    auto words = std::make_shared<const std::vector<std::string>>(tokens);
    io::csv_defer_rows(table, [kept, words, each_row](std::string& out) {
      each_row(kept->view(), *words,
               [&out](const std::vector<std::string>& row) { io::csv_append_row(out, row); });
    });
    return;
  }
  each_row(map, tokens,
           [&table](const std::vector<std::string>& row) { table.rows.push_back(row); });
}

const std::vector<std::string>& sink_key_columns() {
  static const std::vector<std::string> columns{"layer",   "head",      "key",   "key_token",
                                                "is_sink", "frequency", "alpha", "uniform_baseline",
                                                "boost"};
  return columns;
}

void append_sink_key_rows(io::CsvTable& table, const std::string& layer, const std::string& head,
                          const analysis::HeadAnalysis& r, const std::vector<std::string>& tokens,
                          bool causal) {
  const analysis::SinkSet& set = r.sinks;
  const auto& alpha = r.keyImportance;
  const std::size_t T = alpha.size();
  if (tokens.size() < T || set.keysAll.size() != T)
    throw std::invalid_argument("sink rows: " + std::to_string(tokens.size()) +
                                " tokens for a head of " + std::to_string(T) + " keys");
  std::vector<bool> isSink(T, false);
  for (const auto& s : set.sinks) isSink[static_cast<std::size_t>(s.key)] = true;
  const std::vector<double> uniform = analysis::sink_uniform_baselines(static_cast<int>(T), causal);
  for (std::size_t k = 0; k < T; ++k)
    table.rows.push_back({layer, head, std::to_string(k), tokens[k], isSink[k] ? "1" : "0",
                          io::csv_number(set.keysAll[k].frequency), io::csv_number(alpha[k]),
                          io::csv_number(uniform[k]), io::csv_number(alpha[k] / uniform[k])});
}

const std::vector<std::string>& bar_columns() {
  static const std::vector<std::string> columns{"layer",    "head",        "dimension", "birth",
                                                "death",    "persistence", "edge_from", "edge_to",
                                                "triangle", "cycle"};
  return columns;
}

void append_bar_rows(io::CsvTable& table, const std::string& layer, const std::string& head,
                     const analysis::PersistenceDiagram& diagram) {
  for (const auto* list : {&diagram.h0, &diagram.h1})
    for (const auto& b : *list) {
      std::string triangle, cycle;
      if (b.dimension == 1) {
        triangle = std::to_string(b.triangle[0]) + " " + std::to_string(b.triangle[1]) + " " +
                   std::to_string(b.triangle[2]);
        for (const auto& e : b.cycle)
          cycle += (cycle.empty() ? "" : " ") + std::to_string(e[0]) + "-" + std::to_string(e[1]);
      }
      table.rows.push_back({layer, head, std::to_string(b.dimension), io::csv_number(b.birth),
                            io::csv_number(b.death), io::csv_number(b.persistence()),
                            std::to_string(b.edge[0]), std::to_string(b.edge[1]), triangle, cycle});
    }
}

const std::vector<std::string>& betti_columns() {
  static const std::vector<std::string> columns{"layer", "head", "e", "beta0", "beta1"};
  return columns;
}

void append_betti_rows(io::CsvTable& table, const std::string& layer, const std::string& head,
                       const analysis::BettiCurves& curves) {
  for (std::size_t k = 0; k < curves.grid.size(); ++k)
    table.rows.push_back({layer, head, io::csv_number(curves.grid[k]),
                          std::to_string(curves.beta0[k]), std::to_string(curves.beta1[k])});
}

std::string head_text(int head) { return head < 0 ? "average" : std::to_string(head); }

const std::vector<std::string>& eigenvalue_columns() {
  static const std::vector<std::string> columns{"layer",     "head",  "threshold",
                                                "laplacian", "index", "eigenvalue"};
  return columns;
}

void append_eigenvalue_rows(io::CsvTable& table, const std::string& layer, const std::string& head,
                            double threshold, const std::string& laplacian,
                            const std::vector<double>& eigenvalues) {
  const std::string theta = io::csv_number(threshold);
  for (std::size_t k = 0; k < eigenvalues.size(); ++k)
    table.rows.push_back(
        {layer, head, theta, laplacian, std::to_string(k), io::csv_number(eigenvalues[k])});
}

const std::vector<std::string>& value_curve_columns() {
  static const std::vector<std::string> columns{"layer",
                                                "head",
                                                "query",
                                                "n",
                                                "precision",
                                                "recall",
                                                "f",
                                                "random_f_mean",
                                                "random_f_std",
                                                "random_precision_mean",
                                                "random_recall_mean",
                                                "inversions",
                                                "k_sink",
                                                "sink_selected",
                                                "loo_margin",
                                                "loo_alignment_margin",
                                                "positive_loo_share",
                                                "sink_share_of_aggregate",
                                                "sink_direction_change",
                                                "sink_intrusion",
                                                "sink_inverted_share",
                                                "sink_alignment_selected",
                                                "sink_value_cosine",
                                                "current_value_cosine",
                                                "sink_removed_norm",
                                                "current_removed_norm"};
  return columns;
}

void append_value_curve_rows(io::CsvTable& table, const std::string& layer, const std::string& head,
                             const analysis::ValueSpaceCurve& curve) {
  for (const analysis::ValueSpaceCurvePoint& c : curve.points)
    table.rows.push_back({layer,
                          head,
                          std::to_string(curve.query),
                          std::to_string(c.topN),
                          io::csv_number(c.scores.precision),
                          io::csv_number(c.scores.recall),
                          io::csv_number(c.scores.f),
                          io::csv_number(c.randomMean.f),
                          io::csv_number(c.randomStd.f),
                          io::csv_number(c.randomMean.precision),
                          io::csv_number(c.randomMean.recall),
                          std::to_string(c.inversions),
                          std::to_string(c.sinkAwareCount),
                          c.sinkSelected ? "1" : "0",
                          io::csv_number(c.looMargin),
                          io::csv_number_or_empty(c.looAlignmentMargin),
                          io::csv_number_or_empty(c.positiveLooShare),
                          io::csv_number_or_empty(c.sink.shareOfAggregate),
                          io::csv_number_or_empty(c.sink.directionChange),
                          io::csv_number_or_empty(c.sink.intrusion),
                          io::csv_number_or_empty(c.sink.invertedShare),
                          io::csv_number_or_empty(c.sink.alignmentWithSelected),
                          io::csv_number_or_empty(c.privileged.sinkCosine),
                          io::csv_number_or_empty(c.privileged.currentCosine),
                          io::csv_number_or_empty(c.privileged.sinkRemovedNorm),
                          io::csv_number_or_empty(c.privileged.currentRemovedNorm)});
}

}  // namespace sinkscope::document
