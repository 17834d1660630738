#include "models/experiments.h"

#include <limits>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <sstream>

#include "analysis/functional.h"
#include "analysis/graph_spectrum.h"
#include "analysis/head_diagnostics.h"
#include "analysis/sinks.h"
#include "analysis/taxonomy.h"

namespace sinkscope::models {

namespace {

bool contains(const std::vector<int>& set, int v) {
  return set.empty() || std::find(set.begin(), set.end(), v) != set.end();
}

// Progress of step k of n as a fraction, checked for cancel.
void step_progress(const ProgressFn& progress, std::size_t k, std::size_t n) {
  if (progress && !progress(n == 0 ? 1.0 : static_cast<double>(k) / static_cast<double>(n)))
    throw RunCancelled();
}

int first_edited_layer(const RunOptions& o, int layers) {
  int first = layers;
  for (const AttentionEdit& e : o.edits) {
    if (e.layers.empty()) return 0;
    for (int l : e.layers) first = std::min(first, l);
  }
  return std::max(first, 0);
}

// A run of `options` that only edits attention, reusing `base` below the first edit.
Trace run_edited(const Model& model, const Trace& base, RunOptions options, bool capture) {
  options.capture = capture;
  return model.runFrom(base, first_edited_layer(options, base.layers()), options);
}

double mean(const std::vector<double>& v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

}  // namespace

std::vector<AttentionEdit> sink_removal_edits(const Trace& base, const SinkRemoval& removal) {
  analysis::SinkSetParams params;
  params.percentile = removal.percentile;
  params.gamma = removal.gamma;
  std::vector<AttentionEdit> edits;
  for (int l = 0; l < base.layers(); ++l) {
    if (!contains(removal.layers, l)) continue;
    const LayerCapture cap = base.layer(l);
    for (int h = 0; h < cap.heads; ++h) {
      if (!contains(removal.heads, h)) continue;
      const std::vector<int> keys = analysis::sink_set(cap.attentionOf(h), params).keys();
      if (keys.empty()) continue;
      AttentionEdit e;
      e.kind = removal.beforeSoftmax ? AttentionEdit::Kind::MaskKeysBeforeSoftmax
                                     : AttentionEdit::Kind::ZeroKeysAfterSoftmax;
      e.layers = {l};
      e.heads = {h};
      e.keys = keys;
      edits.push_back(e);
    }
  }
  return edits;
}

RunOptions intervention_options(const Trace& base, const Intervention& iv) {
  RunOptions o;
  o.drop_first_token = iv.dropFirstToken;
  o.rope_theta = iv.ropeTheta;
  o.ntk_scale = iv.ntkScale;
  for (const SinkRemoval& removal : iv.removeSinks) {
    for (AttentionEdit e : sink_removal_edits(base, removal)) {
      if (iv.dropFirstToken) {  // keys move down by one; the first token's own sink is gone
        std::vector<int> shifted;
        for (int k : e.keys)
          if (k > 0) shifted.push_back(k - 1);
        if (shifted.empty()) continue;
        e.keys = shifted;
      }
      o.edits.push_back(e);
    }
  }
  for (const auto& [l, h] : iv.ablateHeads) {
    if (l < 0 || l >= base.layers() || h < 0 || h >= base.heads())
      throw ModelRunError("ablate head " + std::to_string(l) + ":" + std::to_string(h) +
                          ": the model has " + std::to_string(base.layers()) + " layers of " +
                          std::to_string(base.heads()) + " heads");
    AttentionEdit e;
    e.kind = AttentionEdit::Kind::AblateHeadOutput;
    e.layers = {l};
    e.heads = {h};
    o.edits.push_back(e);
  }
  return o;
}

Trace intervention_run(const Model& model, const Trace& base, const Intervention& iv,
                       bool firstIsSpecial, const ProgressFn& progress) {
  if (iv.dropFirstToken) {
    if (!firstIsSpecial)
      throw ModelRunError(
          "drop first token: the input does not start with a special token (this model's "
          "tokenizer adds no BOS/CLS), so dropping it would drop a word of the text");
    if (base.tokens() < 2) throw ModelRunError("drop first token: the input has only one token");
  }
  RunOptions o = intervention_options(base, iv);
  if (!iv.dropFirstToken && !iv.ropeTheta && iv.ntkScale == 1.0)
    return model.runFrom(base, first_edited_layer(o, base.layers()), o, progress);
  return model.run(base.ids(), o, progress);
}

namespace {

// Next-token NLL for a decoder, the token's own for an encoder's MLM head.
std::vector<double> logits_nll(const std::vector<float>& logits, int vocab,
                               const std::vector<int>& ids, bool causal) {
  return causal ? analysis::next_token_nll(logits, vocab, ids)
                : analysis::token_nll(logits, vocab, ids);
}

}  // namespace

std::vector<double> trace_token_nll(const Trace& trace) {
  if (trace.logits().empty())
    throw ModelRunError("NLL: the model has no output head (no token probabilities)");
  return logits_nll(trace.logits(), trace.vocabSize(), trace.ids(), trace.causal());
}

RunOptions head_ablation_options(int layer, int head) {
  RunOptions o;
  o.capture = false;
  AttentionEdit e;
  e.kind = AttentionEdit::Kind::AblateHeadOutput;
  e.layers = {layer};
  e.heads = {head};
  o.edits = {e};
  return o;
}

double trace_mean_nll(const Trace& trace) { return mean(trace_token_nll(trace)); }

std::vector<KlRow> kl_sink_removal(const Model& model, const Trace& base, SinkRemoval removal,
                                   const ProgressFn& progress) {
  if (base.logits().empty())
    throw ModelRunError("KL reduction: the model has no output head (no token probabilities)");
  std::vector<int> layers;
  for (int l = 0; l < base.layers(); ++l)
    if (contains(removal.layers, l)) layers.push_back(l);
  std::vector<KlRow> rows;
  auto measure = [&](const std::string& scope, const std::vector<int>& which) {
    SinkRemoval r = removal;
    r.layers = which;
    RunOptions o;
    o.edits = sink_removal_edits(base, r);
    KlRow row;
    row.scope = scope;
    row.editedHeads = static_cast<int>(o.edits.size());
    const Trace removed = run_edited(model, base, o, false);
    row.meanKl = mean(analysis::kl_per_row(base.logits(), removed.logits(), base.vocabSize()));
    rows.push_back(row);
  };
  for (std::size_t k = 0; k < layers.size(); ++k) {
    measure(std::to_string(layers[k]), {layers[k]});
    step_progress(progress, k + 1, layers.size() + 1);
  }
  if (!layers.empty()) measure("all", layers);
  step_progress(progress, 1, 1);
  return rows;
}

BosRemoval bos_removal(const Model& model, const Trace& base, bool firstIsSpecial,
                       const ProgressFn& progress) {
  Intervention iv;
  iv.dropFirstToken = true;
  BosRemoval r{base, intervention_run(model, base, iv, firstIsSpecial, progress), {}, {}, {}};
  const std::vector<double> with = trace_token_nll(r.with), without = trace_token_nll(r.without);
  const int T = base.tokens();
  // Decoders: entry t of `with` predicts token t + 1, entry t of `without` token t + 2.
  // Encoders: entry t predicts token t (with) and t + 1 (without).
  const int first = base.causal() ? 2 : 1;
  for (int token = first; token < T; ++token) {
    r.tokens.push_back(token);
    r.nllWith.push_back(with[static_cast<std::size_t>(base.causal() ? token - 1 : token)]);
    r.nllWithout.push_back(
        without[static_cast<std::size_t>(base.causal() ? token - 2 : token - 1)]);
  }
  return r;
}

PerturbationMap perturbation_sensitivity(const Model& model, const std::vector<int>& given,
                                         const Perturbation& p, const ProgressFn& progress) {
  std::vector<int> ids = given;
  int position = p.position;
  if (p.withoutFirstToken) {
    if (ids.size() < 2 || position < 1)
      throw ModelRunError("perturbation without the first token: perturb a position >= 1");
    ids.erase(ids.begin());
    --position;
  }
  if (position < 0 || position >= static_cast<int>(ids.size()))
    throw ModelRunError("perturbation: position " + std::to_string(p.position) +
                        " is outside the input");
  RunOptions plain;
  plain.capture_budget_bytes = 0;  // residuals only
  RunOptions perturbed = plain;
  std::vector<int> changedIds = ids;
  if (p.replacementId)
    changedIds[static_cast<std::size_t>(position)] = *p.replacementId;
  else
    perturbed.embedding_noise = EmbeddingNoise{position, p.sigma, p.seed};
  const Trace a = model.run(ids, plain);
  step_progress(progress, 1, 2);
  const Trace b = model.run(changedIds, perturbed);
  PerturbationMap map;
  map.layers = a.layers();
  map.tokens = a.tokens();
  for (int l = 0; l <= a.layers(); ++l) {
    const auto change =
        analysis::relative_change_per_row(a.residual(l), b.residual(l), a.hiddenSize());
    map.change.insert(map.change.end(), change.begin(), change.end());
  }
  step_progress(progress, 2, 2);
  return map;
}

std::vector<double> effective_rank_per_layer(const Trace& trace) {
  std::vector<double> ranks;
  if (trace.hiddenSize() == 0)  // a capture keeps no residual stream: unknown, not 0
    return std::vector<double>(static_cast<std::size_t>(trace.layers()) + 1,
                               std::numeric_limits<double>::quiet_NaN());
  for (int l = 0; l <= trace.layers(); ++l)
    ranks.push_back(
        analysis::effective_rank(trace.residual(l), trace.tokens(), trace.hiddenSize()));
  return ranks;
}

std::vector<double> head_ablation_dnll(const Model& model, const Trace& base, bool reuse,
                                       const ProgressFn& progress) {
  const double baseNll = trace_mean_nll(base);
  const int L = base.layers(), H = base.heads();
  std::vector<double> dnll;
  if (reuse) {  // a layer's heads batched into passes from the captured layer
    for (int l = 0; l < L; ++l) {
      for (const std::vector<float>& logits : model.headAblationLogits(base, l))
        dnll.push_back(mean(logits_nll(logits, base.vocabSize(), base.ids(), base.causal())) -
                       baseNll);
      step_progress(progress, static_cast<std::size_t>((l + 1) * H),
                    static_cast<std::size_t>(L * H));
    }
    return dnll;
  }
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h) {
      const RunOptions o = head_ablation_options(l, h);
      const Trace t = reuse ? model.runFrom(base, l, o) : model.run(base.ids(), o);
      dnll.push_back(trace_mean_nll(t) - baseNll);
      step_progress(progress, static_cast<std::size_t>(l * H + h + 1),
                    static_cast<std::size_t>(L * H));
    }
  return dnll;
}

const char* head_ranking_name(HeadRanking r) {
  switch (r) {
    case HeadRanking::TypeGuided:
      return "type_guided";
    case HeadRanking::WeightMagnitude:
      return "weight_magnitude";
    case HeadRanking::EntropyKeepLow:
      return "entropy_keep_low";
    case HeadRanking::EntropyKeepHigh:
      return "entropy_keep_high";
    case HeadRanking::SinkAttention:
      return "sink_attention";
    case HeadRanking::CurrentToken:
      return "current_token";
    case HeadRanking::Random:
      return "random";
  }
  return "?";
}

namespace {

// Importance of every head under a ranking, [layers * heads]: higher is kept first.
std::vector<double> head_importance(const Model& model, const Trace& base,
                                    const std::vector<double>& dnll, HeadRanking ranking,
                                    std::uint64_t seed) {
  const int L = base.layers(), H = base.heads();
  std::vector<double> score(static_cast<std::size_t>(L * H), 0.0);
  switch (ranking) {
    case HeadRanking::TypeGuided: {
      if (dnll.size() != score.size())
        throw ModelRunError("type-guided sparsification needs the single-head dNLL of every head");
      // Regimes ordered by their mean single-head dNLL, heads within by their own.
      std::vector<int> regime(score.size());
      std::map<int, std::pair<double, int>> regimeSum;
      for (int l = 0; l < L; ++l) {
        const LayerCapture cap = base.layer(l);
        for (int h = 0; h < H; ++h) {
          const int r = static_cast<int>(analysis::taxonomy_label(
              analysis::taxonomy_votes(cap.attentionOf(h), cap.valuesOf(h), cap.head_dim)));
          regime[static_cast<std::size_t>(l * H + h)] = r;
          regimeSum[r].first += dnll[static_cast<std::size_t>(l * H + h)];
          regimeSum[r].second += 1;
        }
      }
      std::vector<std::pair<double, int>> order;  // (mean dNLL, regime)
      for (const auto& [r, sum] : regimeSum) order.emplace_back(sum.first / sum.second, r);
      std::sort(order.begin(), order.end());
      std::map<int, int> rank;  // regime -> 0 (least important) ..
      for (std::size_t k = 0; k < order.size(); ++k) rank[order[k].second] = static_cast<int>(k);
      // The regime dominates; the own dNLL (squashed into (0, 1)) orders within it.
      for (std::size_t k = 0; k < score.size(); ++k)
        score[k] = rank[regime[k]] + 0.5 + std::atan(dnll[k]) / M_PI;
      break;
    }
    case HeadRanking::WeightMagnitude: {
      for (int l = 0; l < model.config().num_layers; ++l) {
        // One layer's output projection at a time (widened when stored in F16/BF16).
        const WeightMatrix w = model.weightMatrix(l, "o");
        const int d = w.cols / H;  // the o projection reads [heads * head_dim]
        for (int h = 0; h < H; ++h) {
          double s = 0;
          for (int r = 0; r < w.rows; ++r)
            for (int c = h * d; c < (h + 1) * d; ++c) {
              const double x = w.values[static_cast<std::size_t>(r) * w.cols + c];
              s += x * x;
            }
          score[static_cast<std::size_t>(w.layer * H + h)] = std::sqrt(s);
        }
      }
      break;
    }
    case HeadRanking::EntropyKeepLow:
    case HeadRanking::EntropyKeepHigh:
    case HeadRanking::SinkAttention:
    case HeadRanking::CurrentToken:
      for (int l = 0; l < L; ++l) {
        const LayerCapture cap = base.layer(l);
        for (int h = 0; h < H; ++h) {
          const auto d = analysis::head_diagnostics_mean(cap.attentionOf(h), 1);
          double& s = score[static_cast<std::size_t>(l * H + h)];
          s = ranking == HeadRanking::EntropyKeepLow    ? -d.entropy
              : ranking == HeadRanking::EntropyKeepHigh ? d.entropy
              : ranking == HeadRanking::SinkAttention   ? d.sinkAttention
                                                        : d.currentToken;
        }
      }
      break;
    case HeadRanking::Random: {
      std::mt19937_64 rng(seed);
      std::uniform_real_distribution<double> u(0.0, 1.0);
      for (double& s : score) s = u(rng);
      break;
    }
  }
  return score;
}

std::vector<HeadId> kept_heads(const std::vector<double>& score, int L, int H, double retained,
                               const std::vector<HeadId>& pinned) {
  std::vector<HeadId> kept;
  const int keep = static_cast<int>(std::lround(std::clamp(retained, 0.0, 1.0) * H));
  for (int l = 0; l < L; ++l) {
    std::vector<int> order;
    int count = 0;
    for (int h = 0; h < H; ++h) {
      if (std::find(pinned.begin(), pinned.end(), HeadId{l, h}) != pinned.end()) {
        kept.emplace_back(l, h);
        ++count;
      } else {
        order.push_back(h);
      }
    }
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return score[static_cast<std::size_t>(l * H + a)] >
             score[static_cast<std::size_t>(l * H + b)];
    });
    for (int h : order) {
      if (count >= keep) break;
      kept.emplace_back(l, h);
      ++count;
    }
  }
  std::sort(kept.begin(), kept.end());
  return kept;
}

double dnll_keeping(const Model& model, const Trace& base, double baseNll,
                    const std::vector<HeadId>& kept) {
  RunOptions o;
  for (int l = 0; l < base.layers(); ++l) {
    AttentionEdit e;
    e.kind = AttentionEdit::Kind::AblateHeadOutput;
    e.layers = {l};
    for (int h = 0; h < base.heads(); ++h)
      if (!std::binary_search(kept.begin(), kept.end(), HeadId{l, h})) e.heads.push_back(h);
    if (!e.heads.empty()) o.edits.push_back(e);
  }
  if (o.edits.empty()) return 0.0;  // nothing removed: exactly the base pass
  return trace_mean_nll(run_edited(model, base, o, false)) - baseNll;
}

}  // namespace

std::vector<HeadId> sparsification_kept(const Model& model, const Trace& base,
                                        const std::vector<double>& dnll, HeadRanking ranking,
                                        double retained, const std::vector<HeadId>& pinned,
                                        std::uint64_t seed) {
  return kept_heads(head_importance(model, base, dnll, ranking, seed), base.layers(), base.heads(),
                    retained, pinned);
}

std::vector<SparsificationPoint> sparsification_curves(const Model& model, const Trace& base,
                                                       const std::vector<double>& dnll,
                                                       const Sparsification& params,
                                                       const ProgressFn& progress) {
  for (const auto& [l, h] : params.pinned)
    if (l < 0 || l >= base.layers() || h < 0 || h >= base.heads())
      throw ModelRunError("pinned head " + std::to_string(l) + ":" + std::to_string(h) +
                          " is not in the model");
  const double baseNll = trace_mean_nll(base);
  std::vector<SparsificationPoint> points;
  const std::size_t total = std::size(kAllHeadRankings) * params.retained.size() +
                            params.retained.size() * params.randomSeeds;
  std::size_t done = 0;
  for (HeadRanking ranking : kAllHeadRankings) {
    const int seeds = ranking == HeadRanking::Random ? std::max(1, params.randomSeeds) : 1;
    std::vector<std::vector<double>> scores;
    for (int s = 0; s < seeds; ++s)
      scores.push_back(
          head_importance(model, base, dnll, ranking, params.seed + static_cast<std::uint64_t>(s)));
    for (double r : params.retained) {
      std::vector<double> values;
      for (const auto& score : scores) {
        values.push_back(
            dnll_keeping(model, base, baseNll,
                         kept_heads(score, base.layers(), base.heads(), r, params.pinned)));
        step_progress(progress, ++done, total);
      }
      SparsificationPoint p;
      p.ranking = ranking;
      p.retained = r;
      p.dnll = mean(values);
      double var = 0;
      for (double v : values) var += (v - p.dnll) * (v - p.dnll);
      p.dnllStd = values.size() > 1 ? std::sqrt(var / static_cast<double>(values.size() - 1)) : 0.0;
      points.push_back(p);
    }
  }
  return points;
}

std::vector<std::pair<std::string, std::vector<double>>> head_diagnostic_series(const Trace& base,
                                                                                int topN) {
  std::vector<std::pair<std::string, std::vector<double>>> series{{"entropy", {}},
                                                                  {"top1", {}},
                                                                  {"sink_attention", {}},
                                                                  {"current_token", {}},
                                                                  {"top_n_mass", {}}};
  for (int l = 0; l < base.layers(); ++l) {
    const LayerCapture cap = base.layer(l);
    for (int h = 0; h < base.heads(); ++h) {
      const auto d = analysis::head_diagnostics_mean(cap.attentionOf(h), topN);
      series[0].second.push_back(d.entropy);
      series[1].second.push_back(d.top1);
      series[2].second.push_back(d.sinkAttention);
      series[3].second.push_back(d.currentToken);
      series[4].second.push_back(d.topNMass);
    }
  }
  return series;
}

std::vector<CorrelationRow> diagnostic_dnll_correlation(const Trace& base,
                                                        const std::vector<double>& dnll, int topN) {
  if (dnll.size() != static_cast<std::size_t>(base.layers() * base.heads()))
    throw ModelRunError("correlation: one dNLL per head is needed");
  std::vector<CorrelationRow> rows;
  for (const auto& [name, values] : head_diagnostic_series(base, topN))
    rows.push_back({name, analysis::spearman(values, dnll), analysis::pearson(values, dnll)});
  return rows;
}

}  // namespace sinkscope::models
