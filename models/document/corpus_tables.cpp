#include "models/document/corpus_pool.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>

#include "analysis/bootstrap.h"
#include "analysis/first_token_sink.h"
#include "analysis/frames.h"
#include "analysis/intervals.h"
#include "analysis/share_intervals.h"
#include "models/io/table_io.h"
#include "analysis/taxonomy.h"

// The pooled tables of a corpus from its sentences' records: plain data in,
// tables out (no model, no files), so that a study's merge and its readers
// can be checked on their own.
namespace sinkscope::document {

using io::csv_number;

namespace {

// A quantity with one value per record (NaN: the sentence has none), pooled
// as the mean over the records that have it.
struct Series {
  std::vector<std::string> key;  // the row's leading cells
  std::vector<double> values;    // per record
};

// One row per series: its leading cells, the number of sentences with a
// value, the mean and (with p.bootstrap) the 95% interval of the mean over the
// same seeded resamples of the sentences as every other corpus table.
void append_pooled_means(io::CsvTable& table, const std::vector<Series>& series,
                         std::size_t records, const document::AnalysisSettings& p) {
  std::vector<std::vector<int>> draws;
  for (int b = 0; b < p.bootstrap; ++b)
    draws.push_back(analysis::bootstrap_resample_counts(records, p.bootstrapSeed, b));
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
    const auto present =
        std::count_if(s.values.begin(), s.values.end(), [](double x) { return !std::isnan(x); });
    std::vector<std::string> row = s.key;
    row.push_back(std::to_string(present));
    row.push_back(io::csv_number_or_empty(mean(nullptr)));
    if (p.bootstrap > 0) {
      std::vector<double> means;
      for (const auto& w : draws)
        if (const double m = mean(&w); !std::isnan(m)) means.push_back(m);
      const auto [lo, hi] = means.empty() ? std::pair{std::nan(""), std::nan("")}
                                          : analysis::percentile_interval95(means);
      row.push_back(io::csv_number_or_empty(lo));
      row.push_back(io::csv_number_or_empty(hi));
    }
    table.rows.push_back(std::move(row));
  }
}

std::vector<std::string> mean_columns(std::vector<std::string> leading,
                                      const document::AnalysisSettings& p) {
  leading.insert(leading.end(), {"sentences", "mean"});
  if (p.bootstrap > 0) leading.insert(leading.end(), {"mean_lo", "mean_hi"});
  return leading;
}

// layer_profile.csv: each layer's figures (LayerFigures) pooled over the sentences.
io::CsvTable layer_profile_table(const std::vector<SentenceRecord>& records, int L,
                                       const document::AnalysisSettings& p) {
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
    for (const SentenceRecord& r : records)
      s.values.push_back(value(r.layers[static_cast<std::size_t>(l)]));
    series.push_back(std::move(s));
  };
  for (int l = 0; l < L; ++l) {
    for (const auto& [name, field] : scalars)
      add(l, name, "", [field = field](const LayerFigures& f) { return f.*field; });
    add(l, "f_n_excess", "", [](const LayerFigures& f) { return f.fN - f.fNRandom; });
    for (std::size_t t = 0; t < p.thresholds.size(); ++t) {
      add(l, "fiedler", csv_number(p.thresholds[t]),
          [t](const LayerFigures& f) { return f.fiedler[t]; });
      add(l, "centralisation", csv_number(p.thresholds[t]),
          [t](const LayerFigures& f) { return f.centralisation[t]; });
    }
  }
  io::CsvTable table;
  table.columns = mean_columns({"layer", "metric", "threshold"}, p);
  append_pooled_means(table, series, records.size(), p);
  return table;
}

// functional.csv: KL of sink removal per layer and in all layers, BOS-removal NLL change.
io::CsvTable functional_table(const std::vector<SentenceRecord>& records, int L,
                                    const document::AnalysisSettings& p) {
  std::vector<Series> series;
  for (int scope = 0; scope <= L; ++scope) {
    Series s{{"kl_sink_removal", scope < L ? std::to_string(scope) : "all"}, {}};
    for (const SentenceRecord& r : records)
      s.values.push_back(r.kl[static_cast<std::size_t>(scope)]);
    series.push_back(std::move(s));
  }
  Series bos{{"bos_removal_delta_nll", "all"}, {}};
  for (const SentenceRecord& r : records) bos.values.push_back(r.bosDeltaNll);
  series.push_back(std::move(bos));
  io::CsvTable table;
  table.columns = mean_columns({"experiment", "layers"}, p);
  append_pooled_means(table, series, records.size(), p);
  return table;
}

// top_sentences.csv: per head, the sentences where its first-token sink
// metric is highest (ties: the earlier sentence), for going from a pooled
// number to the sentences behind it.
io::CsvTable top_sentences_table(const std::vector<SentenceRecord>& records, int L, int H,
                                       std::size_t perHead = 5) {
  io::CsvTable table;
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
                            std::to_string(r.index), csv_number(a),
                            csv_number(a / r.uniformBaseline0), std::to_string(r.tokens), r.text});
    }
  }
  return table;
}

// The mean boost of each of p.bootstrap resamples of the sentences: each
// record's sum over the heads, weighted by how often the resample draws it.
std::vector<double> resampled_mean_boosts(const std::vector<SentenceRecord>& records,
                                          std::size_t heads, const document::AnalysisSettings& p) {
  std::vector<double> boostSums;
  for (const SentenceRecord& r : records) {
    double sum = 0.0;
    for (double a : r.alpha0) sum += a / r.uniformBaseline0;
    boostSums.push_back(sum);
  }
  std::vector<double> boost;
  for (int b = 0; b < p.bootstrap; ++b) {
    const std::vector<int> w =
        analysis::bootstrap_resample_counts(records.size(), p.bootstrapSeed, b);
    double sum = 0.0;
    for (std::size_t r = 0; r < records.size(); ++r) sum += w[r] * boostSums[r];
    boost.push_back(sum / static_cast<double>(records.size() * heads));
  }
  return boost;
}

// Appends the 95% interval of every share and rate as _lo and _hi columns.
// Proportions of trials (sentences with a sink, taxonomy votes, sink cells)
// get the clustered Clopper-Pearson interval over the sentences, which keeps
// its coverage at 0 and 1; the shares of heads by top token (decided on the
// pooled sample, no per-sentence trials) the range over the heads' plausible
// classes (analysis/share_intervals.h), which does too; the mean boost the
// percentile interval of p.bootstrap resamples of the sentences, seeded.
void add_intervals(CorpusTables& t, const std::vector<SentenceRecord>& records, std::size_t heads,
                   const std::string& firstToken, const std::string& lastToken,
                   const document::AnalysisSettings& p) {
  const std::vector<double> boost = resampled_mean_boosts(records, heads, p);
  auto append = [](io::CsvTable& table, std::size_t row, const std::vector<double>& values) {
    const auto [lo, hi] = analysis::percentile_interval95(values);
    table.rows[row].push_back(csv_number(lo));
    table.rows[row].push_back(csv_number(hi));
  };
  std::vector<analysis::HeadSinkTally> tallies(heads);
  for (std::size_t k = 0; k < heads; ++k) {
    std::vector<std::vector<analysis::SinkOccurrence>> sinks;
    sinks.reserve(records.size());
    for (const SentenceRecord& r : records) sinks.push_back(r.sinks[k]);
    tallies[k] = analysis::head_sink_tally(sinks);
  }
  const analysis::PlausibleHeadClasses classes(tallies, p.specialisedShare);
  auto appendShare = [](io::CsvTable& table, std::size_t row, analysis::ShareInterval i) {
    table.rows[row].push_back(csv_number(i.lo));
    table.rows[row].push_back(csv_number(i.hi));
  };
  // Per sentence: successes and trials of one proportion, then its interval.
  const std::size_t n = records.size();
  std::vector<double> x(n), m(n);
  auto appendProportion = [&](io::CsvTable& table, std::size_t row, double scale) {
    const analysis::ProportionInterval w = analysis::clustered_proportion95(x, m);
    table.rows[row].push_back(csv_number(scale * w.lo));
    table.rows[row].push_back(csv_number(scale * w.hi));
  };
  t.specialisation.columns.insert(t.specialisation.columns.end(),
                                  {"sample_share_lo", "sample_share_hi"});
  t.taxonomy.columns.insert(t.taxonomy.columns.end(), {"sink_share_lo", "sink_share_hi",
                                                       "current_share_lo", "current_share_hi"});
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
  t.tokenSpecialisation.columns.insert(t.tokenSpecialisation.columns.end(),
                                       {"share_lo", "share_hi"});
  for (std::size_t row = 0; row < t.tokenSpecialisation.rows.size(); ++row)
    appendShare(t.tokenSpecialisation, row, classes.share({t.tokenSpecialisation.rows[row][0]}));
  t.sinkRate.columns.insert(
      t.sinkRate.columns.end(),
      {"sink_rate_percent_lo", "sink_rate_percent_hi", "mean_boost_lo", "mean_boost_hi"});
  for (std::size_t r = 0; r < n; ++r) {
    x[r] = static_cast<double>(
        std::count_if(records[r].alpha0.begin(), records[r].alpha0.end(),
                      [&](double a) { return analysis::is_sink_rate_head(a, p.eps); }));
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
                           const document::AnalysisSettings& p) {
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
      alphaAbove += analysis::is_sink_rate_head(r.alpha0[k], p.eps) ? 1 : 0;
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
                                       hs.specialised ? "1" : "0", csv_number(hs.sampleShare),
                                       hs.topToken});
      const auto& v = votes[k];
      const double total = std::max(1, v.total());
      t.taxonomy.rows.push_back({std::to_string(l), std::to_string(h), std::to_string(v.sink),
                                 std::to_string(v.current), std::to_string(v.other),
                                 csv_number(v.sink / total), csv_number(v.current / total),
                                 analysis::head_class_name(analysis::taxonomy_label(v))});
    }
  t.tokenSpecialisation.columns = {"token", "share_of_specialised_heads"};
  for (const auto& [token, share] : analysis::token_specialisation(specialisation))
    t.tokenSpecialisation.rows.push_back({token, csv_number(share)});
  t.sinkRate.columns = {"key", "sink_rate_percent", "mean_uniform_baseline", "mean_boost"};
  t.sinkRate.rows.push_back(
      {"0",
       csv_number(100.0 * static_cast<double>(alphaAbove) / std::max<long long>(1, alphaCount)),
       csv_number(baselineSum / std::max<long long>(1, alphaCount)),
       csv_number(boostSum / std::max<long long>(1, alphaCount))});
  const analysis::FrameEvidence e =
      analysis::reference_frame(specialisation, firstToken, lastToken, encoder);
  t.frame.columns = {"frame",      "specialised_heads", "first_token", "first_token_share",
                     "last_token", "last_token_share",  "other_share"};
  t.frame.rows.push_back({analysis::reference_frame_name(e.frame),
                          std::to_string(e.specialisedHeads), firstToken,
                          csv_number(e.firstTokenShare), lastToken, csv_number(e.lastTokenShare),
                          csv_number(e.otherShare)});
  if (p.bootstrap > 0 && !records.empty())
    add_intervals(t, records, heads, firstToken, lastToken, p);
  t.layerProfile = layer_profile_table(records, L, p);
  t.topSentences = top_sentences_table(records, L, H);
  if (p.functional) t.functional = functional_table(records, L, p);
  return t;
}

}  // namespace sinkscope::document
