#pragma once
// Interventions and the functional experiments of metrics.md sections 5 and 8,
// over the public Model API (no torch here): each intervention produces a
// second Trace to compare with the first, each experiment is one call with
// progress and cancel, deterministic given its seed.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/intervention.h"
#include "models/model.h"

namespace sinkscope::models {



// The edits that remove, per (layer, head), the sinks `base` shows there.
std::vector<AttentionEdit> sink_removal_edits(const Trace& base, const SinkRemoval& removal);


// The run options of `intervention` on top of `base` (sink sets come from `base`).
RunOptions intervention_options(const Trace& base, const Intervention& intervention);

// The intervened trace. Edits confined to later layers start from the first
// edited layer's captured residual stream instead of recomputing earlier ones.
// Throws ModelRunError when the first token is dropped from an input whose
// first token is not a special token (`firstIsSpecial`: from the tokenizer).
Trace intervention_run(const Model& model, const Trace& base, const Intervention& intervention,
                       bool firstIsSpecial, const ProgressFn& progress = {});

// Negative log-likelihood per predicted token of a trace (nats): decoders the
// next token (T - 1 entries), encoders each token at its own position (reading:
// the masked-LM head without masking). Throws ModelRunError without logits.
std::vector<double> trace_token_nll(const Trace& trace);
double trace_mean_nll(const Trace& trace);

// KL reduction (s. 5): mean over positions of KL(P_base || P_removed), sinks
// removed in one layer at a time ("0", "1", ...) and in all layers ("all").
struct KlRow {
  std::string scope;
  double meanKl = 0.0;
  int editedHeads = 0;  // heads that had at least one sink to remove
};
std::vector<KlRow> kl_sink_removal(const Model& model, const Trace& base, SinkRemoval removal,
                                   const ProgressFn& progress = {});

// BOS removal (s. 5; 003): both traces and the NLL change of every token both
// runs predict (tokens 2..T-1 of the original input).
struct BosRemoval {
  Trace with, without;
  std::vector<int> tokens;  // positions in the original input
  std::vector<double> nllWith, nllWithout;
};
BosRemoval bos_removal(const Model& model, const Trace& base, bool firstIsSpecial,
                       const ProgressFn& progress = {});

// Perturbation sensitivity (s. 5; 003): ||h_l(i) - h'_l(i)|| / ||h_l(i)|| for the
// residual stream entering every layer l (and the output, l = layers) at every position.
struct Perturbation {
  int position = 1;                  // in the original input
  std::optional<int> replacementId;  // replace the token ...
  double sigma = 0.1;                // ... or add relative embedding noise
  std::uint64_t seed = 1;
  bool withoutFirstToken = false;  // run both inputs without position 0
};
struct PerturbationMap {
  int layers = 0, tokens = 0;
  std::vector<double> change;  // [layers + 1][tokens], tokens as run (after any drop)
};
PerturbationMap perturbation_sensitivity(const Model& model, const std::vector<int>& ids,
                                         const Perturbation& perturbation,
                                         const ProgressFn& progress = {});

// Effective rank of the residual stream entering each layer (and the output).
std::vector<double> effective_rank_per_layer(const Trace& trace);

// dNLL of ablating each head alone, [layers * heads]. `reuse`: start at each
// layer from `base`, that layer's heads batched into one pass
// (Model::headAblationLogits); false: a full re-run per head, the benchmark's
// baseline.
std::vector<double> head_ablation_dnll(const Model& model, const Trace& base, bool reuse = true,
                                       const ProgressFn& progress = {});

// The options of a pass with head `head` of layer `layer` ablated (output zeroed), no capture.
RunOptions head_ablation_options(int layer, int head);

// Sparsification (s. 8).
enum class HeadRanking {
  TypeGuided,
  WeightMagnitude,
  EntropyKeepLow,
  EntropyKeepHigh,
  SinkAttention,
  CurrentToken,
  Random
};
const char* head_ranking_name(HeadRanking r);
inline constexpr HeadRanking kAllHeadRankings[] = {
    HeadRanking::TypeGuided,      HeadRanking::WeightMagnitude, HeadRanking::EntropyKeepLow,
    HeadRanking::EntropyKeepHigh, HeadRanking::SinkAttention,   HeadRanking::CurrentToken,
    HeadRanking::Random};

struct Sparsification {
  std::vector<double> retained{1.0, 0.75, 0.5, 0.25, 0.0};  // fraction of heads kept per layer
  std::vector<HeadId> pinned;                               // never removed
  int randomSeeds = 5;
  std::uint64_t seed = 1;
};
struct SparsificationPoint {
  HeadRanking ranking = HeadRanking::Random;
  double retained = 1.0;
  double dnll = 0.0;
  double dnllStd = 0.0;  // over seeds, for Random
};
// `singleHeadDnll` from head_ablation_dnll (the type-guided ranking needs it).
std::vector<SparsificationPoint> sparsification_curves(const Model& model, const Trace& base,
                                                       const std::vector<double>& singleHeadDnll,
                                                       const Sparsification& params,
                                                       const ProgressFn& progress = {});

// The heads each ranking keeps per layer at retention `retained` (for tests and tables).
std::vector<HeadId> sparsification_kept(const Model& model, const Trace& base,
                                        const std::vector<double>& singleHeadDnll,
                                        HeadRanking ranking, double retained,
                                        const std::vector<HeadId>& pinned, std::uint64_t seed);

// Each head diagnostic of s. 1 (entropy, top1, sink_attention, current_token,
// top_n_mass), averaged over queries i >= 1: by name, one value per head
// ([layer * heads + head]).
std::vector<std::pair<std::string, std::vector<double>>> head_diagnostic_series(const Trace& base,
                                                                                int topN = 3);

// Spearman and Pearson correlation, across heads, between each head diagnostic
// (averaged over queries) and single-head dNLL (s. 8).
struct CorrelationRow {
  std::string diagnostic;
  double spearman = 0.0, pearson = 0.0;
};
std::vector<CorrelationRow> diagnostic_dnll_correlation(const Trace& base,
                                                        const std::vector<double>& dnll,
                                                        int topN = 3);

}  // namespace sinkscope::models
