#include "models/document/corpus_pool.h"

#include "models/cpu_runtime.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "analysis/frames.h"
#include "analysis/head_analysis.h"
#include "analysis/persistence.h"
#include "analysis/sink_metric.h"
#include "analysis/sinks.h"
#include "analysis/taxonomy.h"
#include "analysis/value_space.h"
#include "models/document/report_parts.h"
#include "models/document/sentence_run.h"
#include "models/document/trace_analysis.h"
#include "models/experiments.h"
#include "models/io/table_io.h"

namespace sinkscope::document {

namespace fs = std::filesystem;
using nlohmann::json;
using report::num;
using report::output_json;

namespace {

// The interventions every sentence's analysed run has, as headers list them.
std::string intervention_list(const document::AnalysisSettings& p) {
  std::string out;
  for (const auto& line : p.intervention.describe()) out += (out.empty() ? "" : "; ") + line;
  return out.empty() ? "none (the plain run of every sentence)" : out;
}

// The functional experiments of one sentence (metrics.md s. 5): KL of sink
// removal per layer and in every layer, and the mean NLL change of BOS removal
// (NaN when the first token is not special or too few tokens remain).
void record_functional(SentenceRecord& r, const models::Model& model, const models::Trace& trace,
                       bool firstIsSpecial, const document::AnalysisSettings& p) {
  models::SinkRemoval removal;
  removal.percentile = p.percentile;
  removal.gamma = p.gamma;
  for (const models::KlRow& row : models::kl_sink_removal(model, trace, removal))
    r.kl.push_back(row.meanKl);
  r.bosDeltaNll = std::numeric_limits<double>::quiet_NaN();
  if (!firstIsSpecial || trace.tokens() < 3) return;
  const models::BosRemoval bos = models::bos_removal(model, trace, true);
  double delta = 0.0;
  for (std::size_t k = 0; k < bos.tokens.size(); ++k) delta += bos.nllWithout[k] - bos.nllWith[k];
  r.bosDeltaNll = delta / static_cast<double>(bos.tokens.size());
}

// Adds `weight` times `values` to `sum`, growing it to their length.
void accumulate(std::vector<double>& sum, const std::vector<double>& values, double weight) {
  if (sum.size() < values.size()) sum.resize(values.size(), 0.0);
  for (std::size_t k = 0; k < values.size(); ++k) sum[k] += weight * values[k];
}

// Per index, the mean of the finite values added (NaN where there is none).
class FiniteMean {
 public:
  void add(std::size_t k, double v) {
    if (sum_.size() <= k) sum_.resize(k + 1, 0.0), count_.resize(k + 1, 0);
    if (!std::isfinite(v)) return;
    sum_[k] += v;
    ++count_[k];
  }
  std::vector<double> means() const {
    std::vector<double> out(sum_.size(), std::numeric_limits<double>::quiet_NaN());
    for (std::size_t k = 0; k < sum_.size(); ++k)
      if (count_[k] > 0) out[k] = sum_[k] / count_[k];
    return out;
  }

 private:
  std::vector<double> sum_;
  std::vector<int> count_;
};

// One layer's curves (a figure set's): means over the layer's heads of
// alpha_k, the Betti curves and the F_N curve and leave-one-out control at
// the value-space query.
LayerCurves layer_curves(const document::LayerAnalysis& layer, int tokens, bool causal) {
  const auto H = static_cast<int>(layer.heads.size()) - 1;
  LayerCurves c;
  c.alphaUniform = analysis::sink_uniform_baselines(tokens, causal);
  for (int h = 0; h < H; ++h) {
    const analysis::HeadAnalysis& a = layer.heads[static_cast<std::size_t>(h + 1)];
    accumulate(c.alpha, a.keyImportance, 1.0 / H);
    c.bettiGrid = a.betti.grid;
    accumulate(c.beta0, std::vector<double>(a.betti.beta0.begin(), a.betti.beta0.end()), 1.0 / H);
    accumulate(c.beta1, std::vector<double>(a.betti.beta1.begin(), a.betti.beta1.end()), 1.0 / H);
    std::vector<double> f, random;
    for (const analysis::ValueSpaceCurvePoint& q :
         layer.valueCurves[static_cast<std::size_t>(h + 1)].points)
      f.push_back(q.scores.f), random.push_back(q.randomMean.f);
    accumulate(c.fN, f, 1.0 / H);
    accumulate(c.fNRandom, random, 1.0 / H);
  }
  // Defined for some heads only (no unselected key, no leave-one-out
  // aggregate, the sink selected or not): means over the heads where defined.
  using Point = analysis::ValueSpaceCurvePoint;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<
      std::pair<std::vector<double> LayerCurves::*, std::function<double(const Point&)>>>
      of{{&LayerCurves::looMargin, [](const Point& q) { return q.looMargin; }},
         {&LayerCurves::looAlignment, [](const Point& q) { return q.looAlignmentMargin; }},
         {&LayerCurves::positiveLoo, [](const Point& q) { return q.positiveLooShare; }},
         {&LayerCurves::precision, [](const Point& q) { return q.scores.precision; }},
         {&LayerCurves::recall, [](const Point& q) { return q.scores.recall; }},
         {&LayerCurves::precisionRandom, [](const Point& q) { return q.randomMean.precision; }},
         {&LayerCurves::recallRandom, [](const Point& q) { return q.randomMean.recall; }},
         {&LayerCurves::sinkRate, [](const Point& q) { return q.sinkSelected ? 1.0 : 0.0; }},
         {&LayerCurves::fSinkIn,
          [nan](const Point& q) { return q.sinkSelected ? q.scores.f : nan; }},
         {&LayerCurves::fSinkOut,
          [nan](const Point& q) { return q.sinkSelected ? nan : q.scores.f; }},
         {&LayerCurves::sinkShare, [](const Point& q) { return q.sink.shareOfAggregate; }},
         {&LayerCurves::sinkTurn, [](const Point& q) { return q.sink.directionChange; }},
         {&LayerCurves::sinkIntrusion, [](const Point& q) { return q.sink.intrusion; }},
         {&LayerCurves::sinkInverted, [](const Point& q) { return q.sink.invertedShare; }},
         {&LayerCurves::sinkAlignment,
          [](const Point& q) { return q.sink.alignmentWithSelected; }}};
  for (const auto& [member, value] : of) {
    FiniteMean mean;
    for (int h = 0; h < H; ++h) {
      const auto& points = layer.valueCurves[static_cast<std::size_t>(h + 1)].points;
      for (std::size_t k = 0; k < points.size(); ++k) mean.add(k, value(points[k]));
    }
    c.*member = mean.means();
  }
  return c;
}

}  // namespace

const std::vector<PerNCurve>& per_n_curves() {
  constexpr double big = 1e30;
  using H = HeadsCounted;
  static const std::vector<PerNCurve> curves{
      {"lm", &LayerCurves::looMargin, -big, big, "leave-one-out margin", H::All},
      {"la", &LayerCurves::looAlignment, -2.0, 2.0, "leave-one-out alignment", H::All},
      {"lp", &LayerCurves::positiveLoo, 0.0, 1.0, "positive leave-one-out share", H::All},
      {"p", &LayerCurves::precision, 0.0, 1.0, "precision", H::All},
      {"r", &LayerCurves::recall, 0.0, 1.0, "recall", H::All},
      {"pr", &LayerCurves::precisionRandom, 0.0, 1.0, "random precision", H::All},
      {"rr", &LayerCurves::recallRandom, 0.0, 1.0, "random recall", H::All},
      {"sr", &LayerCurves::sinkRate, 0.0, 1.0, "sink selection rate", H::All},
      {"fi", &LayerCurves::fSinkIn, 0.0, 1.0, "F_N with the sink selected", H::SinkSelected},
      {"fo", &LayerCurves::fSinkOut, 0.0, 1.0, "F_N without the sink selected", H::SinkUnselected},
      {"ss", &LayerCurves::sinkShare, 0.0, big, "sink share of the aggregate", H::SinkSelected},
      {"st", &LayerCurves::sinkTurn, 0.0, 2.0, "sink direction change", H::SinkSelected},
      {"si", &LayerCurves::sinkIntrusion, 0.0, 1.0, "sink intrusion", H::SinkUnselected},
      {"sv", &LayerCurves::sinkInverted, 0.0, 1.0, "sink inverted share", H::SinkUnselected},
      {"sa", &LayerCurves::sinkAlignment, -1.0, 1.0, "sink alignment", H::All}};
  return curves;
}

std::vector<int> context_lengths_checked(std::vector<int> lengths) {
  for (int length : lengths)
    if (length < 2 || length > kMaxContextLength)
      throw std::invalid_argument("--context-lengths: " + std::to_string(length) +
                                  " is outside 2 to " + std::to_string(kMaxContextLength));
  std::sort(lengths.begin(), lengths.end());
  lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  if (lengths.size() > kMaxContextLengths)
    throw std::invalid_argument("--context-lengths: at most " + std::to_string(kMaxContextLengths) +
                                " lengths");
  return lengths;
}

const std::vector<ClassCurve>& class_curves() {
  static const std::vector<ClassCurve> curves{
      {"sc", &ClassTrajectories::sinkCosine, -1.0, 1.0},
      {"cc", &ClassTrajectories::currentCosine, -1.0, 1.0},
      {"sn", &ClassTrajectories::sinkRemoved, 0.0, 1e30},
      {"cn", &ClassTrajectories::currentRemoved, 0.0, 1e30}};
  return curves;
}

namespace {

// Sums of each head class's trajectories over a sentence's heads, layer by layer.
class ClassTrajectorySums {
 public:
  void add(const analysis::TaxonomyVotes& votes, const analysis::ValueSpaceCurve& curve) {
    const auto c = static_cast<std::size_t>(analysis::taxonomy_label(votes));
    ++heads_[c];
    for (std::size_t k = 0; k < curve.points.size(); ++k) {
      const analysis::PrivilegedKeys& q = curve.points[k].privileged;
      means_[c][0].add(k, q.sinkCosine);
      means_[c][1].add(k, q.currentCosine);
      means_[c][2].add(k, q.sinkRemovedNorm);
      means_[c][3].add(k, q.currentRemovedNorm);
    }
  }
  // Every curve `keys` long (NaN where no head of the class has a value, as
  // at every N for a class without heads).
  std::vector<ClassTrajectories> trajectories(std::size_t keys) const {
    std::vector<ClassTrajectories> out(3);
    for (std::size_t c = 0; c < 3; ++c) {
      out[c].heads = heads_[c];
      for (std::size_t q = 0; q < 4; ++q) {
        std::vector<double> means = means_[c][q].means();
        means.resize(keys, std::numeric_limits<double>::quiet_NaN());
        out[c].*(class_curves()[q].values) = std::move(means);
      }
    }
    return out;
  }

 private:
  std::array<int, 3> heads_{};
  std::array<std::array<FiniteMean, 4>, 3> means_;
};

// The record of one sentence's run: of its intervened run when the
// parameters name interventions (the sinks' tokens then as that run has them).
SentenceRecord record_of(const models::LoadedModel& loaded, const document::SentenceRun& plain,
                         std::size_t index, const document::AnalysisSettings& p) {
  const models::ModelConfig& c = loaded.model->config();
  const int H = c.num_heads;
  if (p.functional && plain.trace->logits().empty())
    throw models::ModelRunError(loaded.model->folder().string() +
                                ": the functional experiments need an output head (token "
                                "probabilities); this folder has none");
  const document::SentenceRun run = document::sentence_run_analysed(loaded, plain, p.intervention);
  const models::Trace& trace = *run.trace;
  const std::vector<std::string>& tokens = run.tokens.display;  // readable token strings
  SentenceRecord r;
  r.index = index;
  r.text = plain.text;
  r.tokens = trace.tokens();
  const bool firstIsSpecial = run.tokens.firstIsSpecial();
  if (firstIsSpecial) r.firstSpecial = tokens.front();
  if (run.tokens.lastIsSpecial()) r.lastSpecial = tokens.back();
  r.uniformBaseline0 = analysis::sink_uniform_baseline(r.tokens, 0, trace.causal());

  const analysis::HeadAnalysisParams params = document::head_analysis_params(p, r.tokens);
  ClassTrajectorySums byClass;
  // The context lengths this sentence reaches (a causal model's prefixes only).
  std::vector<int> lengths, queries;
  if (p.curves && trace.causal())
    for (int length : p.contextLengths)
      if (length <= r.tokens) lengths.push_back(length), queries.push_back(length - 1);
  std::vector<std::array<FiniteMean, 2>> byLength(lengths.size());
  auto recordLayer = [&](document::LayerAnalysis&& layer) {
    LayerFigures figures;
    const analysis::HeadAnalysis& average = layer.heads.front();
    for (const analysis::GraphSpectrum& g : average.spectra) {
      figures.fiedler.push_back(g.fiedlerValue);
      figures.centralisation.push_back(g.centralisation);
    }
    for (int h = 0; h < H; ++h) {
      const analysis::HeadAnalysis& a = layer.heads[static_cast<std::size_t>(h + 1)];
      std::vector<analysis::SinkOccurrence> sinks;
      // Without a special first token the inputs' first words differ; a sink
      // there is a sink on the position-0 token all the same (metrics.md s. 4).
      for (int k : a.sinks.keys())
        sinks.push_back({k == 0 && !firstIsSpecial ? std::string(kFirstTokenLabel)
                                                   : tokens[static_cast<std::size_t>(k)],
                         k});
      r.sinks.push_back(std::move(sinks));
      r.votes.push_back(*a.taxonomy);
      r.alpha0.push_back(a.keyImportance[0]);
      r.valueGeometry.push_back({a.valueSpace->lambda, a.valueSpace->normCv,
                                 a.valueSpace->coherenceMax, a.valueSpace->sinkAlignmentRange});
      figures.sinkConcentration += a.sinkConcentration / H;
      figures.alpha0 += a.keyImportance[0] / H;
      figures.boost += a.keyImportance[0] / r.uniformBaseline0 / H;
      figures.bars0 += analysis::bars_above(a.persistence.h0, p.minPersistence) / double(H);
      figures.bars1 += analysis::bars_above(a.persistence.h1, p.minPersistence) / double(H);
      figures.fN += a.valueSpace->scores.f / H;
      figures.fNRandom += a.valueSpace->randomMean.f / H;
    }
    r.layers.push_back(std::move(figures));
    if (p.curves) {
      r.curves.push_back(layer_curves(layer, r.tokens, trace.causal()));
      analysis::ValueCosineCounts cosines;
      for (std::size_t h = 1; h < layer.valueCosines.size(); ++h) cosines += layer.valueCosines[h];
      if (r.sinkCosineCounts.empty())
        r.sinkCosineCounts.assign(analysis::kValueCosineBins, 0),
            r.pairCosineCounts.assign(analysis::kValueCosineBins, 0);
      for (std::size_t b = 0; b < static_cast<std::size_t>(analysis::kValueCosineBins); ++b) {
        r.sinkCosineCounts[b] += cosines.sinkToOthers[b];
        r.pairCosineCounts[b] += cosines.otherPairs[b];
      }
      for (int h = 0; h < H; ++h) {
        byClass.add(*layer.heads[static_cast<std::size_t>(h + 1)].taxonomy,
                    layer.valueCurves[static_cast<std::size_t>(h + 1)]);
        for (std::size_t k = 0; k < lengths.size(); ++k) {
          const auto& points = layer.contextCurves[static_cast<std::size_t>(h + 1)][k].points;
          for (std::size_t n = 0; n < points.size(); ++n) {
            byLength[k][0].add(n, points[n].scores.precision);
            byLength[k][1].add(n, points[n].scores.recall);
          }
        }
      }
    }
  };
  document::analyse_trace_layers(trace, params,
                                 {.valueSpaceCurves = p.curves,
                                  .contextQueries = queries,
                                  .effectiveRank = false,
                                  .settings = p},
                                 recordLayer);
  for (std::size_t k = 0; k < lengths.size(); ++k)
    r.contextCurves.push_back({lengths[k], byLength[k][0].means(), byLength[k][1].means()});
  if (p.curves)
    r.classCurves = byClass.trajectories(r.curves.empty() ? 0 : r.curves.front().fN.size());
  if (p.functional) record_functional(r, *loaded.model, trace, firstIsSpecial, p);
  return r;
}

}  // namespace

std::vector<SentenceRecord> corpus_records(const models::LoadedModel& loaded,
                                           const std::vector<std::string>& sentences,
                                           std::size_t first, std::size_t end,
                                           const document::AnalysisSettings& p,
                                           const std::function<void(std::size_t)>& done) {
  const auto batch = static_cast<std::size_t>(std::max(1, p.batch));
  if (first % batch != 0 || end > sentences.size() || first > end)
    throw std::invalid_argument("corpus_records: the range must start at a block");
  // The functional experiments read the logits; nothing else does.
  const models::RunOptions options =
      p.functional ? models::RunOptions{} : models::RunOptions::attention_only();
  // Pooled numbers are the same for every --threads (and each sentence's
  // numbers those of its own run whatever the batch: Model::runBatch).
  const models::SingleThreadedBlas exactProducts;
  std::vector<SentenceRecord> records;
  for (std::size_t block = first; block < end; block += batch) {
    const std::size_t blockEnd = std::min(end, block + batch);
    const std::vector<std::string> texts(sentences.begin() + static_cast<std::ptrdiff_t>(block),
                                         sentences.begin() + static_cast<std::ptrdiff_t>(blockEnd));
    std::vector<models::SentenceTrace> runs;
    try {
      runs = models::loaded_model_run_batch(loaded, texts, options);
    } catch (const models::ModelRunError&) {
      // Name the sentence that cannot run: run the block's sentences one by one.
      for (std::size_t k = 0; k < texts.size(); ++k) try {
          models::loaded_model_run(loaded, texts[k], options);
        } catch (const models::ModelRunError& e) {
          throw models::ModelRunError("sentence " + std::to_string(block + k) + " (line " +
                                      std::to_string(block + k + 1) + "): " + e.what());
        }
      throw;
    }
    for (std::size_t k = 0; k < runs.size(); ++k) try {
        records.push_back(record_of(
            loaded, document::sentence_run_of(loaded, texts[k], std::move(runs[k])), block + k, p));
      } catch (const models::ModelRunError& e) {
        throw models::ModelRunError("sentence " + std::to_string(block + k) + " (line " +
                                    std::to_string(block + k + 1) + "): " + e.what());
      }
    if (done) done(blockEnd - first);
  }
  return records;
}

std::vector<std::pair<std::string, std::string>> corpus_header(
    const document::AnalysisSettings& p) {
  return {
      {"params", document::settings_json(p, true).dump()},
      {"sink_set", document::sink_set_description(p)},
      {"specialised", "a sink in >= " + num(p.specialisedShare) + " of the samples"},
      {"sink_metric_eps", num(p.eps)},
      {"frame_rule",
       "centralised: >= 0.9 of specialised heads on the position-0 token (special or not: "
       "without a special first token, e.g. after --drop-first, sinks at position 0 count "
       "as the one token \"(first token)\" whatever the word); bidirectional: encoder "
       "with >= 0.2 on each of the first and last special token (reading); otherwise "
       "distributed; a head's top token: most samples, then the lowest first position, then "
       "the lower position in the first sample holding either (never string order)"},
      {"taxonomy",
       "winner argmax_j A[i][j] ||v_j|| over the keys query i sees (j <= i causal, every key "
       "in an encoder; scores within a relative 1e-6 of the best tie and go to the lower "
       "index), votes pooled over the sentences"},
      {"layer_profile",
       "per sentence the mean over the layer's heads of sink concentration (%), alpha_0, boost "
       "(alpha_0 / uniform baseline), bars above min_persistence " +
           num(p.minPersistence) + ", F_N at the last token (or --query) with N = " +
           std::to_string(p.topN) + " and its mean over " + std::to_string(p.randomSubsets) +
           " random subsets (f_n_excess = f_n - f_n_random; weights and distances within a "
           "relative 1e-6 tie, I_N to the lower index, metrics.md s. 6); Fiedler value and degree "
           "centralisation of the head-averaged map's graph at each threshold; then the mean "
           "over the sentences"},
      {"persistence", persistence_tolerance_description()},
      {"graph", graph_threshold_description()},
      {"top_sentences", "per head, the 5 sentences with the highest alpha_0 (ties: earlier)"},
      {"batch", "blocks of " + std::to_string(p.batch) +
                    " consecutive sentences; those of one token count in a block run as one "
                    "batched forward pass whose matrix products are each sentence's own, on "
                    "one BLAS thread: every number is that of the sentence's own run, bit for "
                    "bit, whatever --batch and --threads (ties then fall as metrics.md says "
                    "on the same values)"},
      {"functional",
       p.functional
           ? "per sentence: mean KL(P_base || P_removed) over positions with the sinks (same "
             "sink set) removed after softmax in one layer, and in all layers; BOS removal: "
             "mean NLL change of the tokens both runs predict (sentences without a special "
             "first token have none); then the mean over the sentences"
           : "not run (--functional)"},
      {"interventions", intervention_list(p)},
      {"bootstrap",
       p.bootstrap > 0
           ? std::to_string(p.bootstrap) + " resamples of the sentences with replacement (seed " +
                 std::to_string(p.bootstrapSeed) +
                 "); columns _lo and _hi: 95% intervals. Proportions of trials "
                 "(sample_share, sink_share, current_share, sink_rate_percent): "
                 "Clopper-Pearson at Korn and Graubard's effective size, the sentences as "
                 "clusters: n = p (1 - p) / V (z / t_{sentences-1})^2, V the between-sentence "
                 "variance of p, at most the trial count; with fewer than 5 sentences "
                 "holding a success (or a failure), Kish's (sum m)^2 / sum m^2; it keeps "
                 "its coverage at 0 and 1 (simulated: >= 92.8% from p = 0.003 to 0.99). "
                 "Shares of specialised heads by top token (share, first/last/other_token_share): "
                 "the least and most the share can be over every classification of the heads "
                 "their Clopper-Pearson intervals allow (each head's sink share against "
                 "--specialised-share, each token's share against the best token's lower "
                 "bound), all intervals simultaneous at 95% (Bonferroni over heads and "
                 "tokens); it is the point only where every head is clear-cut. mean_boost: "
                 "the percentile interval of the resamples"
           : std::string("none")}};
}

std::vector<fs::path> corpus_write(const CorpusTables& t, const fs::path& dir,
                                   const std::vector<std::pair<std::string, std::string>>& header,
                                   const document::AnalysisSettings& p, bool force,
                                   const fs::path& jsonFile, const std::string& model,
                                   std::size_t sentences) {
  CorpusTables tables = t;
  std::vector<fs::path> written;
  std::vector<std::pair<fs::path, std::string>> contents;
  std::vector<std::pair<std::string, io::CsvTable*>> files{
      {"specialisation", &tables.specialisation},
      {"token_specialisation", &tables.tokenSpecialisation},
      {"taxonomy_pooled", &tables.taxonomy},
      {"sink_rate", &tables.sinkRate},
      {"frame", &tables.frame},
      {"layer_profile", &tables.layerProfile},
      {"top_sentences", &tables.topSentences}};
  if (p.functional) files.emplace_back("functional", &tables.functional);
  std::vector<std::pair<std::string, const io::CsvTable*>> named;
  for (auto& [name, table] : files) {
    table->comments = header;
    contents.emplace_back(dir / (name + ".csv"), io::csv_render(*table));
    written.push_back(dir / (name + ".csv"));
    named.emplace_back(name, table);
  }
  if (!jsonFile.empty()) {
    json out = output_json("analyze --sentences", p, header, named);
    out["model"] = model;
    out["sentences"] = sentences;
    contents.emplace_back(jsonFile, out.dump(1));
    written.push_back(jsonFile);
  }
  io::files_write_atomic(contents, force);  // all of them or none
  return written;
}

std::vector<fs::path> analyze_corpus_write(const models::LoadedModel& loaded,
                                           const std::vector<std::string>& sentences,
                                           const fs::path& dir, const document::AnalysisSettings& p,
                                           bool force, const fs::path& jsonFile) {
  if (sentences.empty()) throw models::ModelRunError("--sentences: no sentence to run");
  const models::ModelConfig& c = loaded.model->config();
  const std::vector<SentenceRecord> records =
      corpus_records(loaded, sentences, 0, sentences.size(), p);
  std::vector<std::pair<std::string, std::string>> header{
      {"tool", std::string("sinkscope-cli analyze --sentences ") + SINKSCOPE_VERSION},
      {"model", loaded.model->folder().string()},
      {"sentences", std::to_string(sentences.size())}};
  for (const auto& line : corpus_header(p)) header.push_back(line);
  header.insert(header.end(), p.provenance.begin(), p.provenance.end());
  return corpus_write(corpus_tables(records, c.num_layers, c.num_heads, !c.causal, p), dir, header,
                      p, force, jsonFile, loaded.model->folder().string(), sentences.size());
}

}  // namespace sinkscope::document
