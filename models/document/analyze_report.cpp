#include "models/document/analyze_report.h"
#include "models/document/panel_views.h"
#include "models/document/web_page.h"

#include "models/cpu_runtime.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "analysis/first_token_sink.h"
#include "analysis/frames.h"
#include "analysis/graph_spectrum.h"
#include "analysis/head_analysis.h"
#include "analysis/head_diagnostics.h"
#include "analysis/persistence.h"
#include "analysis/sink_metric.h"
#include "analysis/sinks.h"
#include "analysis/taxonomy.h"
#include "analysis/value_space.h"
#include "analysis/weight_spectrum.h"
#include "models/document/report_parts.h"
#include "models/document/sentence_run.h"
#include "models/document/trace_analysis.h"
#include "models/io/table_io.h"
#include "models/io/weight_spectra_cache.h"
#include "models/model_identity.h"

namespace sinkscope::document {

namespace fs = std::filesystem;
using io::csv_number;
using nlohmann::json;

namespace report {

std::string num(double v) { return csv_number(v); }
std::string opt(double v) { return io::csv_number_or_empty(v); }

}  // namespace report

using report::num;
using report::opt;

namespace {

// A CSV cell as JSON: numbers as numbers, empty (undefined, not applicable)
// and non-finite as null, text columns always as strings (a token "12" stays
// a string).
json typed_cell(const std::string& column, const std::string& cell) {
  static const std::set<std::string> text{"label",   "frame",      "scope",  "across", "laplacian",
                                          "ranking", "diagnostic", "matrix", "layers"};
  if (column.find("token") != std::string::npos || text.count(column)) return cell;
  if (cell.empty() || cell == "nan" || cell == "-nan" || cell == "inf" || cell == "-inf")
    return nullptr;
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  if (end != cell.c_str() + cell.size()) return cell;  // "average", words
  if (cell.find_first_of(".eE") == std::string::npos && std::abs(v) < 9e15)
    return static_cast<long long>(v);
  return v;
}

// The same content as a CSV: columns and typed rows.
json table_json(const io::CsvTable& t) {
  json rows = json::array();
  for (const auto& row : t.rows) {
    json r = json::array();
    for (std::size_t c = 0; c < row.size(); ++c)
      r.push_back(typed_cell(c < t.columns.size() ? t.columns[c] : std::string(), row[c]));
    rows.push_back(std::move(r));
  }
  return {{"columns", t.columns}, {"rows", std::move(rows)}};
}

}  // namespace

// The whole output as one JSON document (schema 1): typed parameters, the
// header's readings, and every table of the CSVs.
json report::output_json(const std::string& command, const document::AnalysisSettings& p,
                         const std::vector<std::pair<std::string, std::string>>& header,
                         const std::vector<std::pair<std::string, const io::CsvTable*>>& tables) {
  json out = {{"schema_version", 1}, {"command", command}, {"params", document::settings_json(p)}};
  json readings = json::object();
  for (const auto& [k, v] : header) {
    if (readings.contains(k))
      readings[k] = readings[k].get<std::string>() + "; " + v;
    else
      readings[k] = v;
  }
  out["header"] = readings;
  json all = json::object();
  for (const auto& [name, table] : tables) all[name] = table_json(*table);
  out["tables"] = all;
  return out;
}

namespace {

struct Tables {
  io::CsvTable sinks, summary, diagnostics, persistence, persistenceSummary, betti, spectra,
      eigenvalues, signFlip, effectiveness, taxonomy, weights, valueSpace, valueSpaceCurve,
      layerSummary;
};

// The tables that grow with heads x T rows (a 1B model at 2048 tokens: about
// 2 GB of CSV text over its 16 layers).
constexpr io::CsvTable Tables::*kBigTables[] = {&Tables::sinks, &Tables::persistence,
                                                &Tables::betti, &Tables::eigenvalues,
                                                &Tables::valueSpaceCurve};

// Where the big tables' rows go as they are made: kept as rows (--json reads
// them), as CSV text in memory (the window's export, --html), or spilled to
// temporary files (analyze writing its files: only their head is in memory).
enum class RowKeeping { Rows, Text, Spilled };

// One spool per big table, in kBigTables' order; empty unless spilled.
using BigTableSpools = std::vector<std::unique_ptr<io::RowSpool>>;

// Per-head numbers that layer_summary.csv averages (heads only, not the average map).
struct HeadFigures {
  double alpha0 = 0, uniform0 = 1, concentration = 0;  // uniform0: alpha_0's uniform baseline
  int sinkCount = 0;
  std::size_t bars0 = 0, bars1 = 0, bars0Above = 0, bars1Above = 0;
  bool persistence = true;  // false: left out past its bounds (not counted in the means)
  analysis::HeadClass label = analysis::HeadClass::Reset;
  bool classified = false;  // the taxonomy needs the values
};

// One row of layer_summary.csv over `heads` (a layer's, or every head of the model).
std::vector<std::string> summary_row(const std::string& scope,
                                     const std::vector<HeadFigures>& heads) {
  const double n = std::max<std::size_t>(1, heads.size());
  analysis::FirstTokenSinkTally first;
  double sinks = 0, b0 = 0, b1 = 0, a0 = 0, a1 = 0;
  double retriever = 0, mixer = 0, reset = 0;
  // Shares of the taxonomy's classes only where every head has one (values given).
  const bool classified =
      std::all_of(heads.begin(), heads.end(), [](const HeadFigures& f) { return f.classified; });
  double withBars = 0;
  for (const HeadFigures& f : heads) {
    first.add(f.alpha0, f.uniform0, f.concentration);
    sinks += f.sinkCount;
    if (!f.persistence) continue;
    ++withBars;
    b0 += static_cast<double>(f.bars0);
    b1 += static_cast<double>(f.bars1);
    a0 += static_cast<double>(f.bars0Above);
    a1 += static_cast<double>(f.bars1Above);
  }
  for (const HeadFigures& f : heads) {
    retriever += f.label == analysis::HeadClass::Retriever;
    mixer += f.label == analysis::HeadClass::Mixer;
    reset += f.label == analysis::HeadClass::Reset;
  }
  const auto barMean = [&](double sum) {
    return withBars > 0 || heads.empty() ? num(sum / std::max(1.0, withBars)) : std::string();
  };
  const analysis::FirstTokenSinkSummary s = first.summary();
  return {scope,
          std::to_string(heads.size()),
          num(s.alpha0),
          num(s.boost),
          num(s.strongShare),
          num(s.concentration),
          num(sinks / n),
          barMean(b0),
          barMean(b1),
          barMean(a0),
          barMean(a1),
          classified ? num(retriever / n) : std::string(),
          classified ? num(mixer / n) : std::string(),
          classified ? num(reset / n) : std::string()};
}

}  // namespace

using report::output_json;

namespace {

// The "# key: value" lines every analyze table carries: the parameters and readings.
std::vector<std::pair<std::string, std::string>> analyze_header(
    const AnalyzeSubject& subject, int T, int query, const document::AnalysisSettings& p) {
  std::vector<std::pair<std::string, std::string>> header{
      {"tool", std::string("sinkscope-cli analyze ") + SINKSCOPE_VERSION}};
  header.insert(header.end(), subject.source.begin(), subject.source.end());
  const std::vector<std::pair<std::string, std::string>> readings{
      {"tokens", std::to_string(T)},
      {"sink_set", document::sink_set_description(p)},
      {"sink_metric_eps", num(p.eps)},
      {"top_n", std::to_string(p.topN)},
      {"value_space", "query " + std::to_string(query) + ", N = " + std::to_string(p.topN) +
                          " (value_space_curve.csv: every N), random baseline " +
                          std::to_string(p.randomSubsets) + " subsets, seed " +
                          std::to_string(p.seed) +
                          "; weights and squared distances equal within a relative 1e-6 (of the "
                          "largest ||y_j||^2 + ||s_N||^2) tie: I_N takes the lower index, a "
                          "distance tied with a radius is on the ball's edge (metrics.md s. 6)"},
      {"k_sink",
       "reading: beta_j = A[i][j] ||v_j|| / C with C = median_{j>0} ||v_j||, beta_0 = lambda "
       "A[i][0]; mu over selected non-sink x non-sink pairs, nu over all k > 0; empty fields: "
       "not applicable"},
      {"distance", p.symmetriseByMax ? "1 - max(A_ij, A_ji)" : "1 - (A_ij + A_ji) / 2"},
      {"persistence", document::persistence_tolerance_description()},
      {"min_persistence", num(p.minPersistence)},
      {"betti_points", std::to_string(p.bettiPoints)},
      {"thresholds",
       [&] {
         std::string s;
         for (double t : p.thresholds) s += (s.empty() ? "" : " ") + num(t);
         return s;
       }()},
      {"graph", document::graph_threshold_description()},
      {"heads", "0..H-1 and \"average\" (mean over the layer's heads)"},
      {"layer_summary",
       "per layer and for the model, means over the heads (not the average map): alpha0, boost0 "
       "= alpha0 / uniform baseline, share of heads with boost0 >= " +
           num(analysis::kStrongSinkBoost) +
           ", sink concentration and count, bar counts (plain and above min_persistence), "
           "taxonomy class shares"},
      {"laplacian",
       "combinatorial L = D - W; normalised L_sym = I - D^-1/2 W D^-1/2 with the rows and "
       "columns of isolated tokens (degree 0) set to 0 (the networkx convention)"},
      {"correlation",
       "Pearson across heads (per layer) or layers (model); empty when a series is constant "
       "(undefined), and so is the flip it would decide"},
      {"taxonomy",
       "winner argmax_j A[i][j] ||v_j|| over the keys query i sees (j <= i causal, every key in "
       "an encoder); scores within a relative 1e-6 of the best tie and go to the lower "
       "index (metrics.md s. 7); queries i >= 1"}};
  header.insert(header.end(), readings.begin(), readings.end());
  for (const std::string& line : p.intervention.describe())
    header.emplace_back("intervention", line);
  header.insert(header.end(), p.provenance.begin(), p.provenance.end());
  return header;
}

// Every table with its columns and no rows yet.
Tables analyze_tables() {
  Tables t;
  t.sinks.columns = document::sink_key_columns();
  t.summary.columns = {
      "layer",           "head", "tau", "sink_count", "sink_concentration", "alpha0", "boost0",
      "alpha0_above_eps"};
  t.diagnostics.columns = {"layer", "head",           "query",         "entropy",
                           "top1",  "sink_attention", "current_token", "top_n_mass"};
  t.persistence.columns = document::bar_columns();
  t.betti.columns = document::betti_columns();
  t.spectra.columns = {"layer",          "head",          "threshold",           "fiedler",
                       "centralisation", "star_likeness", "star_likeness_blend", "density",
                       "components",     "effective",     "fiedler_normalised"};
  t.eigenvalues.columns = document::eigenvalue_columns();
  // The bar counts once per head (the plain counts are 000's "Betti_0"/"Betti_1").
  t.persistenceSummary.columns = {
      "layer", "head", "bars_h0", "bars_h1", "bars_h0_above_min", "bars_h1_above_min"};
  t.layerSummary.columns = {"scope",
                            "heads",
                            "mean_alpha0",
                            "mean_boost0",
                            "share_boost0_at_least_3",
                            "mean_sink_concentration",
                            "mean_sink_count",
                            "mean_bars_h0",
                            "mean_bars_h1",
                            "mean_bars_h0_above_min",
                            "mean_bars_h1_above_min",
                            "retriever_share",
                            "mixer_share",
                            "reset_share"};
  t.signFlip.columns = {"scope", "across", "threshold", "pearson_fiedler_centralisation",
                        "sign_flip"};
  t.effectiveness.columns = {"threshold", "effective_layers", "layers", "effectiveness"};
  t.taxonomy.columns = {"layer", "head", "sink_votes", "current_votes", "other_votes", "label"};
  t.valueSpace.columns = {"layer",
                          "head",
                          "query",
                          "n",
                          "selected",
                          "precision",
                          "recall",
                          "f",
                          "random_f_mean",
                          "random_f_std",
                          "inversions",
                          "precision_bound",
                          "recall_bound",
                          "r_max",
                          "r_min",
                          "lambda",
                          "norm_cv",
                          "coherence_max",
                          "coherence_q95",
                          "sink_alignment_range",
                          "sink_selected",
                          "loo_margin",
                          "k_sink",
                          "precision_bound_sink",
                          "recall_bound_sink",
                          "mu_bound",
                          "nu_minus",
                          "nu_plus",
                          "sink_share_of_aggregate",
                          "sink_direction_change",
                          "sink_intrusion",
                          "sink_inverted_share",
                          "sink_alignment_selected"};
  t.valueSpaceCurve.columns = document::value_curve_columns();
  t.weights.columns = {"layer", "matrix",     "rows",     "cols",          "sigma2",
                       "ratio", "upper_edge", "outliers", "max_eigenvalue"};

  return t;
}

// One row of value_space.csv: the head's value space at the chosen query and N.
std::vector<std::string> value_space_row(const std::string& L, const std::string& head,
                                         const std::string& selected,
                                         const analysis::ValueSpace& vs) {
  return {L,
          head,
          std::to_string(vs.query),
          std::to_string(vs.topN),
          selected,
          num(vs.scores.precision),
          num(vs.scores.recall),
          num(vs.scores.f),
          num(vs.randomMean.f),
          num(vs.randomStd.f),
          std::to_string(vs.inversions),
          num(vs.precisionBound),
          num(vs.recallBound),
          num(vs.rMax),
          num(vs.rMin),
          num(vs.lambda),
          num(vs.normCv),
          num(vs.coherenceMax),
          num(vs.coherence95),
          num(vs.sinkAlignmentRange),
          vs.sinkSelected ? "1" : "0",
          num(vs.looMargin),
          std::to_string(vs.sinkBound.count),
          num(vs.sinkBound.precisionBound),
          num(vs.sinkBound.recallBound),
          num(vs.sinkBound.mu),
          num(vs.sinkBound.nuMinus),
          num(vs.sinkBound.nuPlus),
          opt(vs.sink.shareOfAggregate),
          opt(vs.sink.directionChange),
          opt(vs.sink.intrusion),
          opt(vs.sink.invertedShare),
          opt(vs.sink.alignmentWithSelected)};
}

// Section 3 across layers: the sign-flip signature at the lowest and highest
// threshold (per layer across its heads, and across layers for the model) and
// the effectiveness of every threshold.
void append_sign_flip_and_effectiveness(
    Tables& t, const document::AnalysisSettings& p, int layerCount,
    const std::vector<std::vector<analysis::GraphSpectrum>>& layerGraphs,
    const std::vector<std::vector<std::vector<analysis::GraphSpectrum>>>& headGraphs) {
  const std::size_t nThresholds = p.thresholds.size();
  if (nThresholds > 0) {
    const auto lowest = static_cast<std::size_t>(
        std::min_element(p.thresholds.begin(), p.thresholds.end()) - p.thresholds.begin());
    const auto highest = static_cast<std::size_t>(
        std::max_element(p.thresholds.begin(), p.thresholds.end()) - p.thresholds.begin());
    auto flipRows = [&](const std::string& scope, const std::string& across,
                        const std::vector<analysis::GraphSpectrum>& low,
                        const std::vector<analysis::GraphSpectrum>& high) {
      const double rLow = analysis::fiedler_centralisation_correlation(low);
      const double rHigh = analysis::fiedler_centralisation_correlation(high);
      // Undefined (a constant series) is empty, and so is a flip it would decide.
      const std::string flip = std::isnan(rLow) || std::isnan(rHigh) ? ""
                               : (rLow * rHigh < 0)                  ? "1"
                                                                     : "0";
      t.signFlip.rows.push_back({scope, across, num(p.thresholds[lowest]), opt(rLow), flip});
      t.signFlip.rows.push_back({scope, across, num(p.thresholds[highest]), opt(rHigh), flip});
    };
    for (int l = 0; l < layerCount; ++l)
      flipRows(std::to_string(l), "heads", headGraphs[lowest][static_cast<std::size_t>(l)],
               headGraphs[highest][static_cast<std::size_t>(l)]);
    flipRows("model", "layers (head average)", layerGraphs[lowest], layerGraphs[highest]);
    for (std::size_t ti = 0; ti < nThresholds; ++ti) {
      const auto& layers = layerGraphs[ti];
      const auto effective =
          std::count_if(layers.begin(), layers.end(), [](const auto& g) { return g.effective; });
      t.effectiveness.rows.push_back({num(p.thresholds[ti]), std::to_string(effective),
                                      std::to_string(layers.size()),
                                      num(analysis::threshold_effectiveness(layers))});
    }
  }
}

// Section 9: weight spectra, once per model (the cache keyed by the weights' hash).
void append_weight_spectra(Tables& t, const models::LoadedModel& loaded) {
  // Looked up by the weight files' stamp first: reading and hashing the
  // weights only when the cache has not seen these files.
  std::vector<analysis::WeightMatrixView> views;
  for (const auto& w : loaded.model->weightMatrices(false))
    views.push_back({w.layer, w.name, w.rows, w.cols, {}});
  // One matrix at a time: a BF16 model is never widened whole.
  const auto values = [&](std::size_t i, std::vector<float>& scratch) {
    models::WeightMatrix m = loaded.model->weightMatrix(views[i].layer, views[i].name);
    if (m.converted.empty()) return m.values;  // F32, viewed in the memory map
    scratch = std::move(m.converted);
    return std::span<const float>(scratch);
  };
  // Matrices are computed one per thread, each on one BLAS thread: a
  // threaded BLAS called from every thread at once oversubscribes the cores
  // (its threads then spin), and a product's rounding would depend on how
  // many threads split it.
  const models::SingleThreadedBlas onePerMatrix;
  const std::vector<analysis::WeightSpectrum> spectra =
      io::weight_spectra_stamped(views, models::weight_files_stamp(loaded.model->folder()), values,
                                 io::WeightSpectraCache(io::WeightSpectraCache::default_folder()));
  for (std::size_t i = 0; i < views.size(); ++i) {
    const analysis::WeightSpectrum& s = spectra[i];
    t.weights.rows.push_back({std::to_string(views[i].layer), views[i].name, std::to_string(s.rows),
                              std::to_string(s.cols), num(s.sigma2), num(s.ratio), num(s.upperEdge),
                              std::to_string(s.outliers),
                              num(s.eigenvalues.empty() ? 0.0 : s.eigenvalues.back())});
  }
}

// Every table analyze writes, under its file name (weights.csv when asked).
std::vector<std::pair<std::string, io::CsvTable*>> analyze_named_tables(
    Tables& t, const document::AnalysisSettings& p) {
  const std::pair<const char*, io::CsvTable*> files[] = {
      {"sinks.csv", &t.sinks},
      {"sink_summary.csv", &t.summary},
      {"diagnostics.csv", &t.diagnostics},
      {"persistence.csv", &t.persistence},
      {"persistence_summary.csv", &t.persistenceSummary},
      {"layer_summary.csv", &t.layerSummary},
      {"betti.csv", &t.betti},
      {"spectra.csv", &t.spectra},
      {"eigenvalues.csv", &t.eigenvalues},
      {"sign_flip.csv", &t.signFlip},
      {"effectiveness.csv", &t.effectiveness},
      {"taxonomy.csv", &t.taxonomy},
      {"weights.csv", p.weightSpectra ? &t.weights : nullptr},
      {"value_space.csv", &t.valueSpace},
      {"value_space_curve.csv", &t.valueSpaceCurve}};
  std::vector<std::pair<std::string, io::CsvTable*>> named;
  for (const auto& [name, table] : files)
    if (table) named.emplace_back(name, table);  // null: not asked for
  return named;
}

// Writes every table (and the JSON file) into `dir`, all or none.
std::vector<fs::path> analyze_files_write(
    Tables& t, BigTableSpools& spools,
    const std::vector<std::pair<std::string, std::string>>& header, const fs::path& dir,
    const fs::path& jsonFile, const document::AnalysisSettings& p, bool force,
    const AnalyzeSubject& subject, const json& all, const fs::path& htmlFile) {
  std::vector<fs::path> written;
  std::vector<std::pair<fs::path, std::string>> contents;
  std::vector<io::RowSpool*> contentSpools;  // the rest of a content's rows, if spilled
  const std::vector<std::pair<std::string, io::CsvTable*>> files = analyze_named_tables(t, p);
  auto spool_of = [&](const io::CsvTable* table) -> io::RowSpool* {
    for (std::size_t i = 0; i < spools.size(); ++i)
      if (&(t.*kBigTables[i]) == table) return spools[i].get();
    return nullptr;
  };
  WebPageInputs page;
  for (const auto& [name, table] : files) {
    table->comments = header;
    // Taken, not copied, unless --json still reads the rows.
    contents.emplace_back(
        dir / name, jsonFile.empty() ? io::csv_render_taking(*table) : io::csv_render(*table));
    contentSpools.push_back(spool_of(table));
    written.push_back(dir / name);
    if (!htmlFile.empty()) page.tables.emplace_back(name, contents.back().second);
  }
  if (!htmlFile.empty()) {
    page.trace = subject.trace;
    page.tokens = subject.tokens;
    for (const auto& [key, value] : subject.json)
      if (key == "text") page.sentence = value;
    page.header = header;
    page.settings = p;
    contents.emplace_back(htmlFile, web_page_html(web_page_data(page)));
    written.push_back(htmlFile);
  }
  if (!jsonFile.empty()) {
    std::vector<std::pair<std::string, const io::CsvTable*>> named;
    for (const auto& [name, table] : files)
      named.emplace_back(fs::path(name).stem().string(), table);
    json out = output_json("analyze", p, header, named);
    for (const auto& [key, value] : subject.json) out[key] = value;
    out["tokens"] = all["tokens"];
    out["layers"] = all["layers"];
    contents.emplace_back(jsonFile, out.dump(1));
    written.push_back(jsonFile);
  }
  // All of them or none: every target checked before anything is written.
  for (const auto& [path, text] : contents) io::output_check_replaceable(path, force);
  io::AtomicFileSet set(force);
  for (std::size_t i = 0; i < contents.size(); ++i) {
    const std::size_t file = set.open(contents[i].first);
    set.append(file, contents[i].second);
    contents[i].second = std::string();
    if (i < contentSpools.size() && contentSpools[i]) contentSpools[i]->copyTo(set, file);
  }
  set.commit();
  return written;
}

}  // namespace

namespace {

// Where a head's rows go: its layer and head as the tables write them, the
// sentence's length and whether its map is causal.
struct HeadRows {
  std::string layer, head;
  int tokens = 0;
  bool causal = true;
};

// Section 1: sinks, the sink metric for every key, the summary and diagnostics.
void append_sink_rows(Tables& t, const HeadRows& at, const analysis::HeadAnalysis& r,
                      const std::vector<std::string>& tokens, int query,
                      const document::AnalysisSettings& p, json* headJson) {
  const analysis::SinkSet& set = r.sinks;
  const auto& alpha = r.keyImportance;
  // The fraction for every key, sink or not (metrics.md s. 1).
  document::append_sink_key_rows(t.sinks, at.layer, at.head, r, tokens, at.causal);
  const double base0 = analysis::sink_uniform_baseline(at.tokens, 0, at.causal);
  t.summary.rows.push_back({at.layer, at.head, num(set.tau), std::to_string(set.sinks.size()),
                            num(r.sinkConcentration), num(alpha[0]), num(alpha[0] / base0),
                            analysis::is_sink_rate_head(alpha[0], p.eps) ? "1" : "0"});
  if (headJson) {
    (*headJson)["sinks"] = set.keys();
    (*headJson)["sink_concentration"] = r.sinkConcentration;
    (*headJson)["alpha"] = alpha;
  }
  for (const auto& [q, d] :
       {std::pair<std::string, analysis::HeadDiagnostics>{std::to_string(query), r.atQuery},
        std::pair<std::string, analysis::HeadDiagnostics>{"mean", r.meanOverQueries}})
    t.diagnostics.rows.push_back({at.layer, at.head, q, num(d.entropy), num(d.top1),
                                  num(d.sinkAttention), num(d.currentToken), num(d.topNMass)});
}

// Section 2: the bars, their summary and the Betti curves; returns the bars
// above min_persistence in H0 and H1.
std::pair<std::size_t, std::size_t> append_persistence_rows(Tables& t, const HeadRows& at,
                                                            const analysis::HeadAnalysis& r,
                                                            const document::AnalysisSettings& p,
                                                            json* headJson) {
  const analysis::PersistenceDiagram& diagram = r.persistence;
  if (!r.persistenceLeftOut.empty()) {  // past the exact reduction's bounds: counts left empty
    if (headJson) (*headJson)["persistence_left_out"] = r.persistenceLeftOut;
    t.persistenceSummary.rows.push_back({at.layer, at.head, "", "", "", ""});
    return {0, 0};
  }
  document::append_bar_rows(t.persistence, at.layer, at.head, diagram);
  if (headJson) {
    json bars = json::array();
    for (const auto* list : {&diagram.h0, &diagram.h1})
      for (const auto& b : *list) bars.push_back({b.dimension, b.birth, b.death});
    (*headJson)["bars"] = std::move(bars);
  }
  const std::size_t above0 = analysis::bars_above(diagram.h0, p.minPersistence);
  const std::size_t above1 = analysis::bars_above(diagram.h1, p.minPersistence);
  t.persistenceSummary.rows.push_back({at.layer, at.head, std::to_string(diagram.h0.size()),
                                       std::to_string(diagram.h1.size()), std::to_string(above0),
                                       std::to_string(above1)});
  document::append_betti_rows(t.betti, at.layer, at.head, r.betti);
  return {above0, above1};
}

// Section 3: the graph's spectra at each threshold.
void append_spectra_rows(Tables& t, const HeadRows& at, const analysis::HeadAnalysis& r,
                         const document::AnalysisSettings& p) {
  for (std::size_t ti = 0; ti < p.thresholds.size(); ++ti) {
    const std::string threshold = num(p.thresholds[ti]);
    const analysis::GraphSpectrum& g = r.spectra[ti];
    t.spectra.rows.push_back({at.layer, at.head, threshold, num(g.fiedlerValue),
                              num(g.centralisation), num(g.starLikeness), num(g.starLikenessBlend),
                              num(g.density), std::to_string(g.components), g.effective ? "1" : "0",
                              num(r.normalisedSpectra[ti].fiedlerValue)});
    document::append_eigenvalue_rows(t.eigenvalues, at.layer, at.head, p.thresholds[ti],
                                     "combinatorial", g.eigenvalues);
    document::append_eigenvalue_rows(t.eigenvalues, at.layer, at.head, p.thresholds[ti],
                                     "normalised", r.normalisedSpectra[ti].eigenvalues);
  }
}

// Sections 6 and 7 of one head: its taxonomy votes, value space at the
// chosen query and its F_N curve over N; returns the head's summary figures.
// A head's figures for layer_summary.csv (its class is added by append_value_rows).
HeadFigures head_figures(const HeadRows& at, const analysis::HeadAnalysis& r, std::size_t above0,
                         std::size_t above1) {
  HeadFigures f;
  f.alpha0 = r.keyImportance[0];
  f.uniform0 = analysis::sink_uniform_baseline(at.tokens, 0, at.causal);
  f.concentration = r.sinkConcentration;
  f.sinkCount = static_cast<int>(r.sinks.sinks.size());
  f.bars0 = r.persistence.h0.size();
  f.bars1 = r.persistence.h1.size();
  f.bars0Above = above0;
  f.bars1Above = above1;
  f.persistence = r.persistenceLeftOut.empty();
  return f;
}

// Sections 6 and 7 (they need the head's values): the taxonomy, value space
// and its curve; the head's class into `f`.
void append_value_rows(Tables& t, const HeadRows& at, const analysis::HeadAnalysis& r,
                       const analysis::ValueSpaceCurve& curve, HeadFigures& f, json* headJson) {
  const analysis::TaxonomyVotes& votes = *r.taxonomy;
  const char* label = analysis::head_class_name(analysis::taxonomy_label(votes));
  t.taxonomy.rows.push_back({at.layer, at.head, std::to_string(votes.sink),
                             std::to_string(votes.current), std::to_string(votes.other), label});
  if (headJson) (*headJson)["taxonomy"] = label;
  f.label = analysis::taxonomy_label(votes);
  f.classified = true;
  const analysis::ValueSpace& vs = *r.valueSpace;
  std::string selected;
  for (int k : vs.selected) selected += (selected.empty() ? "" : " ") + std::to_string(k);
  t.valueSpace.rows.push_back(value_space_row(at.layer, at.head, selected, vs));
  document::append_value_curve_rows(t.valueSpaceCurve, at.layer, at.head, curve);
  if (headJson)
    (*headJson)["value_space"] = {
        {"precision", vs.scores.precision}, {"recall", vs.scores.recall}, {"f", vs.scores.f}};
}

// analyze's tables and JSON, filled layer by layer as the layers are analysed.
struct LayerRows {
  const document::AnalysisSettings& p;
  const int T, query;
  const bool causal;
  const RowKeeping keeping;
  const std::vector<std::string>& tokens;
  Tables t = analyze_tables();
  BigTableSpools spools;
  // Per-head detail (sinks, alpha, bars, taxonomy, value space) beside the tables.
  json all;
  // Graphs per threshold: the head-averaged graph of every layer, and each layer's heads.
  std::vector<std::vector<analysis::GraphSpectrum>> layerGraphs;
  std::vector<std::vector<std::vector<analysis::GraphSpectrum>>> headGraphs;
  std::vector<HeadFigures> modelHeads;
  // Maps whose persistence was past the exact reduction's bounds, and why.
  std::vector<std::string> persistenceLeftOut;
  std::string persistenceReason;

  LayerRows(const document::AnalysisSettings& settings, int tokenCount, int q, bool isCausal,
            const std::vector<std::string>& shownTokens, std::size_t layers, RowKeeping keep)
      : p(settings),
        T(tokenCount),
        query(q),
        causal(isCausal),
        keeping(keep),
        tokens(shownTokens),
        all({{"tokens", shownTokens}, {"layers", json::array()}}),
        layerGraphs(settings.thresholds.size()),
        headGraphs(settings.thresholds.size(),
                   std::vector<std::vector<analysis::GraphSpectrum>>(layers)) {
    if (keeping == RowKeeping::Spilled)
      for (std::size_t i = 0; i < std::size(kBigTables); ++i)
        spools.push_back(std::make_unique<io::RowSpool>());
  }

  // The big tables' new rows become text or go to their spools, head by head
  // (one head of a 2048-token map has about 16 MB of persistence rows as strings).
  void settle_big_rows() {
    if (keeping == RowKeeping::Rows) return;
    for (std::size_t i = 0; i < std::size(kBigTables); ++i) {
      io::CsvTable& big = t.*kBigTables[i];
      if (keeping == RowKeeping::Spilled)
        spools[i]->take(big);
      else
        io::csv_flush_rows(big);
    }
  }

  // One analysed layer: its average (h = -1) and heads' rows.
  void add(const document::LayerAnalysis& layer, int headCount) {
    const int l = layer.layer;
    json layerJson = {{"layer", l}, {"heads", json::array()}};
    std::vector<HeadFigures> layerHeads;
    for (int h = -1; h < headCount; ++h) {
      const analysis::HeadAnalysis& r = layer.heads[static_cast<std::size_t>(h + 1)];
      const HeadRows at{std::to_string(l), h < 0 ? "average" : std::to_string(h), T, causal};
      // The per-head detail is the JSON file's alone (its bars: 175 MB a
      // layer at 2048 tokens): built only when kept.
      json headJson = {{"head", at.head}};
      json* detail = keeping == RowKeeping::Rows ? &headJson : nullptr;
      append_sink_rows(t, at, r, tokens, query, p, detail);
      const auto [above0, above1] = append_persistence_rows(t, at, r, p, detail);
      if (!r.persistenceLeftOut.empty()) {
        persistenceLeftOut.push_back("layer " + at.layer + " head " + at.head);
        persistenceReason = r.persistenceLeftOut;
      }
      for (std::size_t ti = 0; ti < p.thresholds.size(); ++ti) {
        if (h < 0)
          layerGraphs[ti].push_back(r.spectra[ti]);
        else
          headGraphs[ti][static_cast<std::size_t>(l)].push_back(r.spectra[ti]);
      }
      append_spectra_rows(t, at, r, p);
      // Sections 6 and 7 need the head's values: the average has none (nor a
      // capture without values).
      if (h >= 0) {
        HeadFigures f = head_figures(at, r, above0, above1);
        if (r.valueSpace && r.taxonomy &&
            static_cast<std::size_t>(h + 1) < layer.valueCurves.size())
          append_value_rows(t, at, r, layer.valueCurves[static_cast<std::size_t>(h + 1)], f,
                            detail);
        layerHeads.push_back(f);
        modelHeads.push_back(f);
      }
      if (detail) layerJson["heads"].push_back(std::move(headJson));
      settle_big_rows();
    }
    t.layerSummary.rows.push_back(summary_row(std::to_string(l), layerHeads));
    if (keeping == RowKeeping::Rows) all["layers"].push_back(layerJson);
  }
};

}  // namespace

namespace {

// Every table of a trace, as analyze writes them (the big tables' rows where
// `keeping` put them: in the tables, or in `spools`).
struct AnalyzeOutput {
  Tables t;
  BigTableSpools spools;
  std::vector<std::pair<std::string, std::string>> header;
  json all;
};

// Rows betti.csv may have (about 25 bytes each as text, a Python row's
// columns about 200).
constexpr std::uint64_t kMostBettiRows = 4'000'000;

AnalyzeOutput analyze_subject(const AnalyzeSubject& subject, const document::AnalysisSettings& p,
                              RowKeeping keeping,
                              const std::function<bool(double)>& progress = {}) {
  const models::Trace& trace = *subject.trace;
  const int T = trace.tokens();
  if (p.query >= T)
    throw models::ModelRunError("--query " + std::to_string(p.query) + " is outside the " +
                                std::to_string(T) + " tokens of the text (0.." +
                                std::to_string(T - 1) + ")");
  if (p.weightSpectra && !subject.model)
    throw models::ModelRunError("weight spectra need the model's weights; a capture has none");
  const int query = p.query < 0 ? T - 1 : p.query;
  // betti.csv's rows are bounded before they are made: every table is held
  // as text before it is written, and Python parses it into columns.
  const std::uint64_t bettiRows = static_cast<std::uint64_t>(trace.layers()) *
                                  static_cast<std::uint64_t>(trace.heads() + 1) *
                                  static_cast<std::uint64_t>(p.bettiPoints);
  if (bettiRows > kMostBettiRows)
    throw models::ModelRunError("betti_points " + std::to_string(p.bettiPoints) + " for " +
                                std::to_string(trace.layers() * (trace.heads() + 1)) +
                                " maps (every head and each "
                                "layer's average) is " +
                                std::to_string(bettiRows) + " rows of betti.csv, more than the " +
                                std::to_string(kMostBettiRows) +
                                " one table may have; give fewer betti_points");
  auto header = analyze_header(subject, T, query, p);
  if (!subject.warning.empty()) header.push_back({"warning", subject.warning});
  // A model run always has values; a capture may not.
  const auto valuesOfFirstLayer = [&trace] {
    const models::LayerCapture* stored = trace.storedLayer(0);
    return stored ? stored->head_dim > 0 : trace.layer(0).head_dim > 0;
  };
  const bool values = subject.model || (trace.layers() > 0 && valuesOfFirstLayer());
  if (!values)
    header.push_back({"values",
                      "not given: taxonomy.csv, value_space.csv and "
                      "value_space_curve.csv are empty, layer_summary.csv has no "
                      "class shares"});
  LayerRows rows(p, T, query, trace.causal(), subject.tokens,
                 static_cast<std::size_t>(trace.layers()), keeping);
  const int heads = trace.heads();
  analysis::HeadAnalysisParams headParams = document::head_analysis_params(p, T);
  headParams.persistenceMayBeLeftOut = true;
  document::analyse_trace_layers(
      trace, headParams,
      {.valueSpaceCurves = values, .contextQueries = {}, .effectiveRank = false, .settings = p},
      [&rows, heads](document::LayerAnalysis&& layer) { rows.add(layer, heads); }, progress);
  if (!rows.persistenceLeftOut.empty()) {
    std::string maps;
    for (const std::string& m : rows.persistenceLeftOut) maps += (maps.empty() ? "" : ", ") + m;
    header.push_back(
        {"persistence_left_out",
         "for " + std::to_string(rows.persistenceLeftOut.size()) +
             (rows.persistenceLeftOut.size() == 1 ? " map (" : " maps (") + maps +
             "): past the exact reduction's bounds (" + rows.persistenceReason +
             "); persistence_summary.csv leaves their counts empty, persistence.csv and "
             "betti.csv have no rows for them, layer_summary.csv's bar means leave them out"});
  }
  Tables& t = rows.t;
  append_sign_flip_and_effectiveness(t, p, trace.layers(), rows.layerGraphs, rows.headGraphs);
  t.layerSummary.rows.push_back(summary_row("model", rows.modelHeads));
  if (p.weightSpectra) append_weight_spectra(t, *subject.model);
  return {std::move(rows.t), std::move(rows.spools), std::move(header), std::move(rows.all)};
}

}  // namespace

std::vector<fs::path> analyze_write(const models::LoadedModel& loaded, const std::string& text,
                                    const fs::path& dir, const document::AnalysisSettings& p,
                                    bool force, const fs::path& jsonFile, const fs::path& htmlFile,
                                    std::size_t keptMapBytes) {
  // The forward passes on one BLAS thread, as in corpus runs: the numbers are
  // the same for every --threads and equal those a one-sentence corpus pools.
  std::optional<models::SingleThreadedBlas> exactProducts(std::in_place);
  // Nothing below reads the logits. The plain run is shared, not copied, when
  // it is the one analysed (a copy of a 3B model's captures at 512 tokens: 1.2 GB).
  models::RunOptions options = models::RunOptions::attention_only();
  options.capture_budget_bytes = keptMapBytes;
  const document::SentenceRun plain = document::sentence_run(loaded, text, options);
  const document::SentenceRun run = document::sentence_run_analysed(loaded, plain, p.intervention);
  exactProducts.reset();
  AnalyzeSubject subject;
  subject.trace = run.trace.get();
  subject.tokens = run.tokens.display;
  subject.source = {{"model", loaded.model->folder().string()},
                    {"model_type", loaded.model->config().model_type},
                    {"text", text}};
  subject.json = {{"model", loaded.model->folder().string()}, {"text", text}};
  subject.model = &loaded;
  // The run itself (the first token kept) against the context it was trained on.
  subject.warning = plain.beyondTrainedContext;
  if (!subject.warning.empty())
    std::fprintf(stderr, "sinkscope-cli analyze: warning: %s\n", subject.warning.c_str());
  return analyze_subject_write(subject, dir, p, force, jsonFile, htmlFile);
}

std::vector<fs::path> analyze_subject_write(const AnalyzeSubject& subject, const fs::path& dir,
                                            const document::AnalysisSettings& p, bool force,
                                            const fs::path& jsonFile, const fs::path& htmlFile) {
  // --html embeds the tables' text; --json parses their rows.
  const RowKeeping keeping = !jsonFile.empty()   ? RowKeeping::Rows
                             : !htmlFile.empty() ? RowKeeping::Text
                                                 : RowKeeping::Spilled;
  AnalyzeOutput out = analyze_subject(subject, p, keeping);
  return analyze_files_write(out.t, out.spools, out.header, dir, jsonFile, p, force, subject,
                             out.all, htmlFile);
}

std::vector<std::pair<std::string, std::string>> analyze_subject_csv(
    const AnalyzeSubject& subject, const document::AnalysisSettings& p,
    const std::function<bool(double)>& progress) {
  AnalyzeOutput out = analyze_subject(subject, p, RowKeeping::Text, progress);
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& [name, table] : analyze_named_tables(out.t, p)) {
    table->comments = out.header;
    files.emplace_back(name, io::csv_render_taking(*table));
  }
  return files;
}

AnalyzeSubject analyze_subject_of(const models::Capture& capture, const models::Trace& trace) {
  AnalyzeSubject subject;
  subject.trace = &trace;
  subject.tokens = capture.tokenText;
  const std::string model = capture.model.empty() ? "unknown" : capture.model;
  const std::string file = capture.file.empty() ? "(made in memory)" : capture.file.string();
  subject.source = {{"capture", file}, {"model", model}};
  subject.json = {{"capture", file}, {"model", model}};
  return subject;
}

}  // namespace sinkscope::document
