#pragma once
// The numbers a panel draws, built once from a run's analysis: each view's
// values for the drawing, and the same values as a table with analyze's
// column names and number formatting, which the view's CSV writes. A panel's
// CSV is thereby analyze's rows for the same heads, whatever widget shows it,
// and nothing is read back out of a drawing.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "models/document/analysis_settings.h"
#include "models/document/trace_analysis.h"
#include "models/io/table_io.h"

namespace sinkscope::document {

// The per-head scores the model overview can colour its grid by.
enum class HeadScore {
  SinkAttention,  // mean over queries of A[i][0] (diagnostics.csv, query "mean")
  SinkBoost,      // alpha_0 / its uniform baseline (sink_summary.csv's boost0)
  Entropy,        // mean over queries (diagnostics.csv)
  Fiedler,        // at the selected threshold (spectra.csv)
  FScore,         // F_N at the value-space query (value_space.csv's f)
  Taxonomy,       // the head's class (taxonomy.csv's label)
  Dnll,           // the loss change of ablating the head (ablation.csv)
  MiniatureMaps   // every head's map, shrunk (a drawing); without a run, sink attention
};

// What a score needs beyond the run's analysis.
struct HeadScoreSources {
  double threshold = 0.05;  // the graph threshold of the Fiedler value
  // The Fiedler value of (layer, head) at `threshold`, NaN where it is not
  // computed (long inputs: the heads visited so far); unset: the analysis's own.
  std::function<double(int layer, int head)> fiedler;
  std::vector<double> headDnll;  // layers x heads, layer-major; empty: not computed
};

// A layers x heads grid of one score.
struct HeadGridView {
  int layers = 0, heads = 0;
  std::vector<double> values;  // layer-major; NaN: no value (a blank cell)
  io::CsvTable table;          // layer, head[, threshold], the score's column
};

HeadGridView head_score_view(const TraceAnalysis& a, HeadScore score,
                             const HeadScoreSources& sources);

// Per layer: the measures of the layer-profile plots. NaN where a measure is
// not computed (long inputs leave out the per-layer topology; a capture has
// no residual stream to rank).
struct LayerProfileView {
  std::vector<std::string> columns;           // after "layer": the measures, analyze's names
  std::vector<std::vector<double>> measures;  // [measure][layer]
  io::CsvTable table;                         // layer, the measures
  const std::vector<double>& measure(const std::string& column) const;
};

// Attention to the first key (the layer's average head, diagnostics.csv's
// "mean" sink_attention), the sink rate (share of heads with alpha_0 > eps,
// as sink_summary.csv's alpha0_above_eps) and the average head's degree
// centralisation at graph threshold `threshold` (spectra.csv).
// `centralisation` and `fiedler` below give a layer's average-head value at
// the threshold where the caller computes spectra itself (NaN: not
// computed); unset, the analysis's own spectra give it.
LayerProfileView layer_sink_view(const TraceAnalysis& a, const AnalysisSettings& settings,
                                 double threshold,
                                 const std::function<double(int layer)>& centralisation = {});

// The average head's bars above min_persistence (persistence_summary.csv),
// the effective rank of the residual stream entering each layer, and the
// average head's Fiedler value at the threshold (spectra.csv).
LayerProfileView layer_topology_view(const TraceAnalysis& a, const AnalysisSettings& settings,
                                     double threshold,
                                     const std::function<double(int layer)>& fiedler = {});

// Every head's class (taxonomy.csv's votes and label), and per layer the
// number of heads of each class.
struct TaxonomyView {
  int layers = 0, heads = 0;
  std::vector<int> classes;   // layer-major; -1: no class (no values)
  io::CsvTable heads_table;   // layer, head, sink_votes, current_votes, other_votes, label
  io::CsvTable counts_table;  // layer, retriever, mixer, reset
};
TaxonomyView taxonomy_view(const TraceAnalysis& a);

// One head's attention map (head -1: the layer's head average) in long
// format, the rows `sinkscope-cli attention` writes: layer, head, query, key,
// query_token, key_token, weight, for the cells a query sees. `tokens` are the
// display strings.
io::CsvTable attention_table(const analysis::AttentionView& map, int layer, int head,
                             const std::vector<std::string>& tokens);
const std::vector<std::string>& attention_columns();
// Maps of more cells than this get their rows as CSV text, written when the
// table is rendered (io::csv_defer_rows).
inline constexpr std::size_t kAttentionRowsAsText = 100'000;
void append_attention_rows(io::CsvTable& table, const analysis::AttentionView& map, int layer,
                           int head, const std::vector<std::string>& tokens);

// sinks.csv's rows for one head (metrics.md s. 1): every key with its token,
// whether it is a sink, its sink frequency, alpha_k, the uniform head's
// alpha_k and their ratio. `layer` and `head` as the table writes them.
const std::vector<std::string>& sink_key_columns();
void append_sink_key_rows(io::CsvTable& table, const std::string& layer, const std::string& head,
                          const analysis::HeadAnalysis& r, const std::vector<std::string>& tokens,
                          bool causal);

// persistence.csv's rows for one head's bars (metrics.md s. 2: dimension,
// birth, death, persistence, the edge that ends or closes it, an H1 bar's
// triangle and cycle), and betti.csv's rows (e, beta0, beta1).
const std::vector<std::string>& bar_columns();
void append_bar_rows(io::CsvTable& table, const std::string& layer, const std::string& head,
                     const analysis::PersistenceDiagram& diagram);
const std::vector<std::string>& betti_columns();
void append_betti_rows(io::CsvTable& table, const std::string& layer, const std::string& head,
                       const analysis::BettiCurves& curves);

// eigenvalues.csv's rows for one head's spectrum at one threshold
// ("combinatorial" or "normalised" Laplacian, metrics.md s. 4).
const std::vector<std::string>& eigenvalue_columns();
void append_eigenvalue_rows(io::CsvTable& table, const std::string& layer, const std::string& head,
                            double threshold, const std::string& laplacian,
                            const std::vector<double>& eigenvalues);

// value_space_curve.csv's rows for one head's F_N curve (metrics.md s. 6).
const std::vector<std::string>& value_curve_columns();
void append_value_curve_rows(io::CsvTable& table, const std::string& layer, const std::string& head,
                             const analysis::ValueSpaceCurve& curve);

// A head as every table names it: its index, or "average" for the head average (-1).
std::string head_text(int head);

// The same table for two runs: a first column "run" naming each row's run.
io::CsvTable tables_by_run(const std::vector<std::pair<std::string, const io::CsvTable*>>& runs);

}  // namespace sinkscope::document
