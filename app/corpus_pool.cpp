#include "app/corpus_pool.h"

#include "models/cpu_runtime.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "analysis/frames.h"
#include "analysis/head_analysis.h"
#include "analysis/persistence.h"
#include "analysis/share_intervals.h"
#include "analysis/sink_metric.h"
#include "analysis/sinks.h"
#include "analysis/table_io.h"
#include "analysis/taxonomy.h"
#include "analysis/intervals.h"
#include "analysis/value_space.h"
#include "app/report_parts.h"
#include "models/experiments.h"

namespace sinkscope::app {

namespace fs = std::filesystem;
using nlohmann::json;
using report::num;
using report::output_json;
using report::sink_params;
using report::sink_set_description;

namespace {

// The interventions every sentence's analysed run has, as headers list them.
std::string intervention_list(const AnalyzeParams& p) {
  std::string out;
  for (const auto& line : p.intervention.describe()) out += (out.empty() ? "" : "; ") + line;
  return out.empty() ? "none (the plain run of every sentence)" : out;
}

// What every head of a corpus sentence is analysed with: the single-sentence
// parameters, the value-space query the last token unless --query names one
// the sentence has.
analysis::HeadAnalysisParams corpus_head_params(const AnalyzeParams& p, int tokens) {
  analysis::HeadAnalysisParams params;
  params.sinks = sink_params(p);
  params.topN = p.topN;
  params.distance = {p.symmetriseByMax};
  params.bettiPoints = p.bettiPoints;
  params.thresholds = p.thresholds;
  params.valueSpace = {p.topN, p.query < tokens ? p.query : -1, p.randomSubsets, p.seed, false};
  return params;
}

// The functional experiments of one sentence (metrics.md s. 5): KL of sink
// removal per layer and in every layer, and the mean NLL change of BOS removal
// (NaN when the first token is not special or too few tokens remain).
void record_functional(SentenceRecord& r, const models::Model& model, const models::Trace& trace,
                       bool firstIsSpecial, const AnalyzeParams& p) {
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

// Adds `values` to `sum` (growing it), counting into `counts`.
void accumulate(std::vector<double>& sum, const std::vector<double>& values, double weight) {
  if (sum.size() < values.size()) sum.resize(values.size(), 0.0);
  for (std::size_t k = 0; k < values.size(); ++k) sum[k] += weight * values[k];
}

// Every layer's curves (a figure set's): means over the layer's heads of
// alpha_k, the Betti curves and the F_N curve at the value-space query.
void record_curves(SentenceRecord& r, const std::vector<models::LayerCapture>& captures,
                   const std::vector<analysis::HeadAnalysis>& results,
                   const analysis::HeadAnalysisParams& params, int H) {
  const int L = static_cast<int>(captures.size());
  std::vector<analysis::ValueSpaceCurve> fCurves(static_cast<std::size_t>(L * H));
  analysis::parallel_for(L * H, [&](int k) {
    const models::LayerCapture& cap = captures[static_cast<std::size_t>(k / H)];
    fCurves[static_cast<std::size_t>(k)] = analysis::value_space_curve(
        cap.attentionOf(k % H), cap.valuesOf(k % H), cap.head_dim, params.valueSpace);
  });
  const bool causal = captures.empty() || captures.front().causal;
  for (int l = 0; l < L; ++l) {
    LayerCurves c;
    for (int k = 0; k < r.tokens; ++k)
      c.alphaUniform.push_back(analysis::sink_uniform_baseline(r.tokens, k, causal));
    for (int h = 0; h < H; ++h) {
      const analysis::HeadAnalysis& a = results[static_cast<std::size_t>(l * (H + 1) + h + 1)];
      accumulate(c.alpha, a.keyImportance, 1.0 / H);
      c.bettiGrid = a.betti.grid;
      accumulate(c.beta0, std::vector<double>(a.betti.beta0.begin(), a.betti.beta0.end()), 1.0 / H);
      accumulate(c.beta1, std::vector<double>(a.betti.beta1.begin(), a.betti.beta1.end()), 1.0 / H);
      std::vector<double> f, random;
      for (const analysis::ValueSpaceCurvePoint& q : fCurves[static_cast<std::size_t>(l * H + h)].points)
        f.push_back(q.scores.f), random.push_back(q.randomMean.f);
      accumulate(c.fN, f, 1.0 / H);
      accumulate(c.fNRandom, random, 1.0 / H);
    }
    r.curves.push_back(std::move(c));
  }
}

// The record of one sentence's run: of its intervened run when the
// parameters name interventions (the sinks' tokens then as that run has them).
SentenceRecord record_of(const models::LoadedModel& loaded, const models::SentenceTrace& plain,
                         std::size_t index, const std::string& sentence, const AnalyzeParams& p) {
  const models::ModelConfig& c = loaded.model->config();
  const int L = c.num_layers, H = c.num_heads;
  if (p.functional && plain.trace.logits().empty())
    throw models::ModelRunError(loaded.model->folder().string() +
                                ": the functional experiments need an output head (token "
                                "probabilities); this folder has none");
  std::vector<std::string> tokens = plain.encoding.display;  // readable token strings
  std::vector<bool> special = plain.encoding.special;
  const bool plainFirstIsSpecial = !special.empty() && special.front();
  std::optional<models::Trace> intervened;
  if (!p.intervention.empty()) {
    intervened = models::intervention_run(*loaded.model, plain.trace, p.intervention,
                                          plainFirstIsSpecial);
    if (p.intervention.dropFirstToken) {
      tokens.erase(tokens.begin());
      special.erase(special.begin());
    }
  }
  const models::Trace& trace = intervened ? *intervened : plain.trace;
  SentenceRecord r;
  r.index = index;
  r.text = sentence;
  r.tokens = trace.tokens();
  const bool firstIsSpecial = !special.empty() && special.front();
  if (firstIsSpecial) r.firstSpecial = tokens.front();
  if (!special.empty() && special.back()) r.lastSpecial = tokens.back();
  r.uniformBaseline0 = analysis::sink_uniform_baseline(r.tokens, 0, trace.causal());

  // Every head and every layer's head-averaged map, analysed on every core.
  std::vector<models::LayerCapture> captures;
  std::vector<analysis::AttentionMatrix> averages;
  for (int l = 0; l < L; ++l) {
    captures.push_back(trace.layer(l));
    averages.push_back(captures.back().headAverage());
  }
  const analysis::HeadAnalysisParams params = corpus_head_params(p, r.tokens);
  std::vector<analysis::HeadAnalysis> results(static_cast<std::size_t>(L * (H + 1)));
  analysis::parallel_for(L * (H + 1), [&](int k) {
    const int l = k / (H + 1), h = k % (H + 1) - 1;  // h = -1: the layer's average
    const models::LayerCapture& cap = captures[static_cast<std::size_t>(l)];
    results[static_cast<std::size_t>(k)] =
        h < 0 ? analysis::analyse_head(averages[static_cast<std::size_t>(l)].view(), {}, 0, params)
              : analysis::analyse_head(cap.attentionOf(h), cap.valuesOf(h), cap.head_dim, params);
  });

  for (int l = 0; l < L; ++l) {
    LayerFigures figures;
    const analysis::HeadAnalysis& average = results[static_cast<std::size_t>(l * (H + 1))];
    for (const analysis::GraphSpectrum& g : average.spectra) {
      figures.fiedler.push_back(g.fiedlerValue);
      figures.centralisation.push_back(g.centralisation);
    }
    for (int h = 0; h < H; ++h) {
      const analysis::HeadAnalysis& a = results[static_cast<std::size_t>(l * (H + 1) + h + 1)];
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
      figures.sinkConcentration += a.sinkConcentration / H;
      figures.alpha0 += a.keyImportance[0] / H;
      figures.boost += a.keyImportance[0] / r.uniformBaseline0 / H;
      figures.bars0 += analysis::bars_above(a.persistence.h0, p.minPersistence) / double(H);
      figures.bars1 += analysis::bars_above(a.persistence.h1, p.minPersistence) / double(H);
      figures.fN += a.valueSpace->scores.f / H;
      figures.fNRandom += a.valueSpace->randomMean.f / H;
    }
    r.layers.push_back(std::move(figures));
  }
  if (p.curves) record_curves(r, captures, results, params, H);
  if (p.functional) record_functional(r, *loaded.model, trace, firstIsSpecial, p);
  return r;
}

}  // namespace

std::vector<SentenceRecord> corpus_records(const models::LoadedModel& loaded,
                                           const std::vector<std::string>& sentences,
                                           std::size_t first, std::size_t end,
                                           const AnalyzeParams& p,
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
        records.push_back(record_of(loaded, runs[k], block + k, texts[k], p));
      } catch (const models::ModelRunError& e) {
        throw models::ModelRunError("sentence " + std::to_string(block + k) + " (line " +
                                    std::to_string(block + k + 1) + "): " + e.what());
      }
    if (done) done(blockEnd - first);
  }
  return records;
}

namespace {

// The 2.5% and 97.5% quantiles (linear interpolation between order statistics).
std::pair<double, double> interval95(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto q = [&](double p) {
    const double x = p * static_cast<double>(v.size() - 1);
    const auto i = static_cast<std::size_t>(x);
    const double f = x - static_cast<double>(i);
    return i + 1 < v.size() ? v[i] + f * (v[i + 1] - v[i]) : v[i];
  };
  return {q(0.025), q(0.975)};
}

// Bootstrap draws of record indices: resample b of n, seeded.
std::vector<int> resample_weights(std::size_t n, unsigned long long seed, int b) {
  std::uint64_t state = seed * 0x9e3779b97f4a7c15ull + static_cast<std::uint64_t>(b) + 1;
  auto next = [&state] {  // SplitMix64
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  std::vector<int> w(n, 0);
  for (std::size_t i = 0; i < n; ++i) ++w[next() % n];
  return w;
}

// A quantity with one value per record (NaN: the sentence has none), pooled
// as the mean over the records that have it.
struct Series {
  std::vector<std::string> key;  // the row's leading cells
  std::vector<double> values;    // per record
};

// One row per series: its leading cells, the number of sentences with a
// value, the mean and (with p.bootstrap) the 95% interval of the mean over the
// same seeded resamples of the sentences as every other corpus table.
void append_pooled_means(analysis::CsvTable& table, const std::vector<Series>& series,
                         std::size_t records, const AnalyzeParams& p) {
  std::vector<std::vector<int>> draws;
  for (int b = 0; b < p.bootstrap; ++b) draws.push_back(resample_weights(records, p.bootstrapSeed, b));
  for (const Series& s : series) {
    auto mean = [&](const std::vector<int>* w) {
      double sum = 0.0, weight = 0.0;
      for (std::size_t r = 0; r < records; ++r) {
        const double x = s.values[r];
        const double wr = w ? (*w)[r] : 1.0;
        if (std::isnan(x) || wr == 0.0) continue;
        sum += wr * x;
        weight += wr;
      }
      return weight > 0 ? sum / weight : std::numeric_limits<double>::quiet_NaN();
    };
    const auto present = std::count_if(s.values.begin(), s.values.end(),
                                       [](double x) { return !std::isnan(x); });
    std::vector<std::string> row = s.key;
    row.push_back(std::to_string(present));
    row.push_back(report::opt(mean(nullptr)));
    if (p.bootstrap > 0) {
      std::vector<double> means;
      for (const auto& w : draws)
        if (const double m = mean(&w); !std::isnan(m)) means.push_back(m);
      const auto [lo, hi] = means.empty() ? std::pair{std::nan(""), std::nan("")} : interval95(means);
      row.push_back(report::opt(lo));
      row.push_back(report::opt(hi));
    }
    table.rows.push_back(std::move(row));
  }
}

std::vector<std::string> mean_columns(std::vector<std::string> leading, const AnalyzeParams& p) {
  leading.insert(leading.end(), {"sentences", "mean"});
  if (p.bootstrap > 0) leading.insert(leading.end(), {"mean_lo", "mean_hi"});
  return leading;
}

// layer_profile.csv: each layer's figures (LayerFigures) pooled over the sentences.
analysis::CsvTable layer_profile_table(const std::vector<SentenceRecord>& records, int L,
                                       const AnalyzeParams& p) {
  using Field = double LayerFigures::*;
  const std::pair<const char*, Field> scalars[] = {
      {"sink_concentration_percent", &LayerFigures::sinkConcentration},
      {"alpha0", &LayerFigures::alpha0},
      {"boost", &LayerFigures::boost},
      {"bars0_above_min_persistence", &LayerFigures::bars0},
      {"bars1_above_min_persistence", &LayerFigures::bars1},
      {"f_n", &LayerFigures::fN},
      {"f_n_random", &LayerFigures::fNRandom}};
  std::vector<Series> series;
  auto add = [&](int l, const std::string& metric, const std::string& threshold, auto value) {
    Series s{{std::to_string(l), metric, threshold}, {}};
    for (const SentenceRecord& r : records) s.values.push_back(value(r.layers[static_cast<std::size_t>(l)]));
    series.push_back(std::move(s));
  };
  for (int l = 0; l < L; ++l) {
    for (const auto& [name, field] : scalars)
      add(l, name, "", [field = field](const LayerFigures& f) { return f.*field; });
    add(l, "f_n_excess", "", [](const LayerFigures& f) { return f.fN - f.fNRandom; });
    for (std::size_t t = 0; t < p.thresholds.size(); ++t) {
      add(l, "fiedler", num(p.thresholds[t]), [t](const LayerFigures& f) { return f.fiedler[t]; });
      add(l, "centralisation", num(p.thresholds[t]),
          [t](const LayerFigures& f) { return f.centralisation[t]; });
    }
  }
  analysis::CsvTable table;
  table.columns = mean_columns({"layer", "metric", "threshold"}, p);
  append_pooled_means(table, series, records.size(), p);
  return table;
}

// functional.csv: KL of sink removal per layer and in all layers, BOS-removal NLL change.
analysis::CsvTable functional_table(const std::vector<SentenceRecord>& records, int L,
                                    const AnalyzeParams& p) {
  std::vector<Series> series;
  for (int scope = 0; scope <= L; ++scope) {
    Series s{{"kl_sink_removal", scope < L ? std::to_string(scope) : "all"}, {}};
    for (const SentenceRecord& r : records) s.values.push_back(r.kl[static_cast<std::size_t>(scope)]);
    series.push_back(std::move(s));
  }
  Series bos{{"bos_removal_delta_nll", "all"}, {}};
  for (const SentenceRecord& r : records) bos.values.push_back(r.bosDeltaNll);
  series.push_back(std::move(bos));
  analysis::CsvTable table;
  table.columns = mean_columns({"experiment", "layers"}, p);
  append_pooled_means(table, series, records.size(), p);
  return table;
}

// top_sentences.csv: per head, the sentences where its first-token sink
// metric is highest (ties: the earlier sentence), for going from a pooled
// number to the sentences behind it.
analysis::CsvTable top_sentences_table(const std::vector<SentenceRecord>& records, int L, int H,
                                       std::size_t perHead = 5) {
  analysis::CsvTable table;
  table.columns = {"layer", "head", "rank", "sentence", "alpha0", "boost", "tokens", "text"};
  std::vector<std::size_t> order(records.size());
  for (int k = 0; k < L * H; ++k) {
    std::iota(order.begin(), order.end(), std::size_t{0});
    const std::size_t n = std::min(perHead, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                      [&](std::size_t a, std::size_t b) {
                        const double x = records[a].alpha0[static_cast<std::size_t>(k)];
                        const double y = records[b].alpha0[static_cast<std::size_t>(k)];
                        return x != y ? x > y : records[a].index < records[b].index;
                      });
    for (std::size_t rank = 0; rank < n; ++rank) {
      const SentenceRecord& r = records[order[rank]];
      const double a = r.alpha0[static_cast<std::size_t>(k)];
      table.rows.push_back({std::to_string(k / H), std::to_string(k % H), std::to_string(rank + 1),
                            std::to_string(r.index), num(a), num(a / r.uniformBaseline0),
                            std::to_string(r.tokens), r.text});
    }
  }
  return table;
}

// Appends the 95% interval of every share and rate as _lo and _hi columns.
// Proportions of trials (sentences with a sink, taxonomy votes, sink cells)
// get the clustered Clopper-Pearson interval over the sentences, which keeps
// its coverage at 0 and 1; the shares of heads by top token (decided on the
// pooled sample, no per-sentence trials) the range over the heads' plausible
// classes (analysis/share_intervals.h), which does too; the mean boost the
// percentile interval of p.bootstrap resamples of the sentences, seeded.
void add_intervals(CorpusTables& t, const std::vector<SentenceRecord>& records, std::size_t heads,
                   const std::string& firstToken, const std::string& lastToken, const AnalyzeParams& p) {
  // The mean boost of a resample: each record's sum over the heads, weighted
  // by how often the resample draws the record.
  std::vector<double> boostSums;
  for (const SentenceRecord& r : records) {
    double sum = 0.0;
    for (double a : r.alpha0) sum += a / r.uniformBaseline0;
    boostSums.push_back(sum);
  }
  std::vector<double> boost;
  for (int b = 0; b < p.bootstrap; ++b) {
    const std::vector<int> w = resample_weights(records.size(), p.bootstrapSeed, b);
    double sum = 0.0;
    for (std::size_t r = 0; r < records.size(); ++r) sum += w[r] * boostSums[r];
    boost.push_back(sum / static_cast<double>(records.size() * heads));
  }
  auto append = [](analysis::CsvTable& table, std::size_t row, const std::vector<double>& values) {
    const auto [lo, hi] = interval95(values);
    table.rows[row].push_back(num(lo));
    table.rows[row].push_back(num(hi));
  };
  std::vector<analysis::HeadSinkTally> tallies(heads);
  for (std::size_t k = 0; k < heads; ++k) {
    std::vector<std::vector<analysis::SinkOccurrence>> sinks;
    sinks.reserve(records.size());
    for (const SentenceRecord& r : records) sinks.push_back(r.sinks[k]);
    tallies[k] = analysis::head_sink_tally(sinks);
  }
  const analysis::PlausibleHeadClasses classes(tallies, p.specialisedShare);
  auto appendShare = [](analysis::CsvTable& table, std::size_t row, analysis::ShareInterval i) {
    table.rows[row].push_back(num(i.lo));
    table.rows[row].push_back(num(i.hi));
  };
  // Per sentence: successes and trials of one proportion, then its interval.
  const std::size_t n = records.size();
  std::vector<double> x(n), m(n);
  auto appendProportion = [&](analysis::CsvTable& table, std::size_t row, double scale) {
    const analysis::ProportionInterval w = analysis::clustered_proportion95(x, m);
    table.rows[row].push_back(num(scale * w.lo));
    table.rows[row].push_back(num(scale * w.hi));
  };
  t.specialisation.columns.insert(t.specialisation.columns.end(), {"sample_share_lo", "sample_share_hi"});
  t.taxonomy.columns.insert(t.taxonomy.columns.end(),
                            {"sink_share_lo", "sink_share_hi", "current_share_lo", "current_share_hi"});
  for (std::size_t k = 0; k < heads; ++k) {
    for (std::size_t r = 0; r < n; ++r) {
      x[r] = records[r].sinks[k].empty() ? 0.0 : 1.0;
      m[r] = 1.0;
    }
    appendProportion(t.specialisation, k, 1.0);
    for (std::size_t r = 0; r < n; ++r) {
      x[r] = records[r].votes[k].sink;
      m[r] = records[r].votes[k].total();
    }
    appendProportion(t.taxonomy, k, 1.0);
    for (std::size_t r = 0; r < n; ++r) x[r] = records[r].votes[k].current;
    appendProportion(t.taxonomy, k, 1.0);
  }
  t.tokenSpecialisation.columns.insert(t.tokenSpecialisation.columns.end(), {"share_lo", "share_hi"});
  for (std::size_t row = 0; row < t.tokenSpecialisation.rows.size(); ++row)
    appendShare(t.tokenSpecialisation, row, classes.share({t.tokenSpecialisation.rows[row][0]}));
  t.sinkRate.columns.insert(t.sinkRate.columns.end(), {"sink_rate_percent_lo", "sink_rate_percent_hi",
                                                       "mean_boost_lo", "mean_boost_hi"});
  for (std::size_t r = 0; r < n; ++r) {
    x[r] = static_cast<double>(std::count_if(records[r].alpha0.begin(), records[r].alpha0.end(),
                                             [&](double a) { return a > p.eps; }));
    m[r] = static_cast<double>(heads);
  }
  appendProportion(t.sinkRate, 0, 100.0);
  append(t.sinkRate, 0, boost);
  t.frame.columns.insert(t.frame.columns.end(),
                         {"first_token_share_lo", "first_token_share_hi", "last_token_share_lo",
                          "last_token_share_hi", "other_share_lo", "other_share_hi"});
  // As analysis::reference_frame counts them: the last token only where the
  // model has one other than the first, every other token in the other share.
  const bool hasLast = !lastToken.empty() && lastToken != firstToken;
  appendShare(t.frame, 0, classes.share({firstToken}));
  appendShare(t.frame, 0, hasLast ? classes.share({lastToken}) : analysis::ShareInterval{});
  appendShare(t.frame, 0, classes.share({firstToken, lastToken}, true));
}

}  // namespace

CorpusTables corpus_tables(const std::vector<SentenceRecord>& records, int L, int H, bool encoder,
                           const AnalyzeParams& p) {
  const auto heads = static_cast<std::size_t>(L * H);
  std::vector<std::vector<std::vector<analysis::SinkOccurrence>>> sinkTokens(heads);
  std::vector<analysis::TaxonomyVotes> votes(heads);
  long long alphaCount = 0, alphaAbove = 0;
  double baselineSum = 0.0, boostSum = 0.0;
  std::string firstToken, lastToken;
  for (const SentenceRecord& r : records) {
    if (r.sinks.size() != heads || r.votes.size() != heads || r.alpha0.size() != heads)
      throw std::invalid_argument("sentence " + std::to_string(r.index) + ": recorded for " +
                                  std::to_string(r.sinks.size()) + " heads, the model has " +
                                  std::to_string(heads));
    const bool layersFit =
        r.layers.size() == static_cast<std::size_t>(L) &&
        std::all_of(r.layers.begin(), r.layers.end(), [&](const LayerFigures& f) {
          return f.fiedler.size() == p.thresholds.size() &&
                 f.centralisation.size() == p.thresholds.size();
        });
    if (!layersFit || (p.functional && r.kl.size() != static_cast<std::size_t>(L) + 1))
      throw std::invalid_argument("sentence " + std::to_string(r.index) +
                                  ": its layer figures do not match the model's " +
                                  std::to_string(L) + " layers and the thresholds");
    if (firstToken.empty()) firstToken = r.firstSpecial;
    if (lastToken.empty()) lastToken = r.lastSpecial;
    for (std::size_t k = 0; k < heads; ++k) {
      sinkTokens[k].push_back(r.sinks[k]);
      votes[k] += r.votes[k];
      ++alphaCount;
      alphaAbove += r.alpha0[k] > p.eps ? 1 : 0;
      baselineSum += r.uniformBaseline0;
      boostSum += r.alpha0[k] / r.uniformBaseline0;
    }
  }
  if (firstToken.empty()) firstToken = kFirstTokenLabel;

  CorpusTables t;
  t.specialisation.columns = {"layer", "head", "specialised", "sample_share", "top_token"};
  t.taxonomy.columns = {"layer",       "head",       "sink_votes",    "current_votes",
                        "other_votes", "sink_share", "current_share", "label"};
  std::vector<analysis::HeadSpecialisation> specialisation;
  analysis::SpecialisationParams sp;
  sp.sampleShare = p.specialisedShare;
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h) {
      const auto k = static_cast<std::size_t>(l * H + h);
      const auto hs = analysis::head_specialisation(sinkTokens[k], sp);
      specialisation.push_back(hs);
      t.specialisation.rows.push_back({std::to_string(l), std::to_string(h),
                                       hs.specialised ? "1" : "0", num(hs.sampleShare),
                                       hs.topToken});
      const auto& v = votes[k];
      const double total = std::max(1, v.total());
      t.taxonomy.rows.push_back({std::to_string(l), std::to_string(h), std::to_string(v.sink),
                                 std::to_string(v.current), std::to_string(v.other),
                                 num(v.sink / total), num(v.current / total),
                                 analysis::head_class_name(analysis::taxonomy_label(v))});
    }
  t.tokenSpecialisation.columns = {"token", "share_of_specialised_heads"};
  for (const auto& [token, share] : analysis::token_specialisation(specialisation))
    t.tokenSpecialisation.rows.push_back({token, num(share)});
  t.sinkRate.columns = {"key", "sink_rate_percent", "mean_uniform_baseline", "mean_boost"};
  t.sinkRate.rows.push_back(
      {"0", num(100.0 * static_cast<double>(alphaAbove) / std::max<long long>(1, alphaCount)),
       num(baselineSum / std::max<long long>(1, alphaCount)),
       num(boostSum / std::max<long long>(1, alphaCount))});
  const analysis::FrameEvidence e =
      analysis::reference_frame(specialisation, firstToken, lastToken, encoder);
  t.frame.columns = {"frame",      "specialised_heads", "first_token", "first_token_share",
                     "last_token", "last_token_share",  "other_share"};
  t.frame.rows.push_back({analysis::reference_frame_name(e.frame),
                          std::to_string(e.specialisedHeads), firstToken, num(e.firstTokenShare),
                          lastToken, num(e.lastTokenShare), num(e.otherShare)});
  if (p.bootstrap > 0 && !records.empty()) add_intervals(t, records, heads, firstToken, lastToken, p);
  t.layerProfile = layer_profile_table(records, L, p);
  t.topSentences = top_sentences_table(records, L, H);
  if (p.functional) t.functional = functional_table(records, L, p);
  return t;
}

std::vector<std::pair<std::string, std::string>> corpus_header(const AnalyzeParams& p) {
  nlohmann::json params = report::params_json(p);
  params["batch"] = p.batch;
  params["bootstrap"] = p.bootstrap;
  params["bootstrap_seed"] = p.bootstrapSeed;
  params["functional"] = p.functional;
  return {{"params", params.dump()},
          {"sink_set", sink_set_description(p)},
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
           "(alpha_0 / uniform baseline), bars above min_persistence " + num(p.minPersistence) +
               ", F_N at the last token (or --query) with N = " + std::to_string(p.topN) +
               " and its mean over " + std::to_string(p.randomSubsets) +
               " random subsets (f_n_excess = f_n - f_n_random; weights and distances within a "
               "relative 1e-6 tie, I_N to the lower index, metrics.md s. 6); Fiedler value and degree "
               "centralisation of the head-averaged map's graph at each threshold; then the mean "
               "over the sentences"},
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
                                   const AnalyzeParams& p, bool force, const fs::path& jsonFile,
                                   const std::string& model, std::size_t sentences) {
  CorpusTables tables = t;
  std::vector<fs::path> written;
  std::vector<std::pair<fs::path, std::string>> contents;
  std::vector<std::pair<std::string, analysis::CsvTable*>> files{
      {"specialisation", &tables.specialisation},
      {"token_specialisation", &tables.tokenSpecialisation},
      {"taxonomy_pooled", &tables.taxonomy},
      {"sink_rate", &tables.sinkRate},
      {"frame", &tables.frame},
      {"layer_profile", &tables.layerProfile},
      {"top_sentences", &tables.topSentences}};
  if (p.functional) files.emplace_back("functional", &tables.functional);
  std::vector<std::pair<std::string, const analysis::CsvTable*>> named;
  for (auto& [name, table] : files) {
    table->comments = header;
    contents.emplace_back(dir / (name + ".csv"), analysis::csv_render(*table));
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
  analysis::files_write_atomic(contents, force);  // all of them or none
  return written;
}

std::vector<fs::path> analyze_corpus_write(const models::LoadedModel& loaded,
                                           const std::vector<std::string>& sentences,
                                           const fs::path& dir, const AnalyzeParams& p,
                                           bool force, const fs::path& jsonFile) {
  if (sentences.empty()) throw models::ModelRunError("--sentences: no sentence to run");
  const models::ModelConfig& c = loaded.model->config();
  const std::vector<SentenceRecord> records = corpus_records(loaded, sentences, 0, sentences.size(), p);
  std::vector<std::pair<std::string, std::string>> header{
      {"tool", std::string("sinkscope-cli analyze --sentences ") + SINKSCOPE_VERSION},
      {"model", loaded.model->folder().string()},
      {"sentences", std::to_string(sentences.size())}};
  for (const auto& line : corpus_header(p)) header.push_back(line);
  header.insert(header.end(), p.provenance.begin(), p.provenance.end());
  return corpus_write(corpus_tables(records, c.num_layers, c.num_heads, !c.causal, p), dir, header,
                      p, force, jsonFile, loaded.model->folder().string(), sentences.size());
}

}  // namespace sinkscope::app
