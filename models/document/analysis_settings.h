#pragma once
// Every setting of an analysis, in one type: what `sinkscope-cli analyze`,
// corpus studies, figure sets and the GUI read from their users, with the
// defaults of metrics.md, and its mappings onto the analysis functions'
// parameters, the headers' wording and the typed JSON of every output.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "analysis/first_token_sink.h"
#include "analysis/head_analysis.h"
#include "analysis/sinks.h"
#include "models/experiments.h"

namespace sinkscope::document {

struct AnalysisSettings {
  double percentile = 90.0;  // sink set (s. 1)
  double gamma = 0.3;
  double eps = analysis::kDefaultSinkMetricEps;  // sink metric threshold
  int topN = 3;                                  // head diagnostics and value space (N)
  int query = -1;                                // value-space query; negative: the last position
  int randomSubsets = 64;                        // value-space random baseline: K subsets, seeded
  unsigned long long seed = 7;
  bool columnSumSinks = false;  // sink set: the released code's column-sum mode
  // Sink frequency over all T queries (metrics.md s. 1) or, as a labelled
  // option, over the queries that see the key (--sink-denominator visible).
  analysis::SinkSetParams::Denominator sinkDenominator =
      analysis::SinkSetParams::Denominator::AllQueries;
  double minPersistence = 0.05;
  int bettiPoints = 101;
  bool symmetriseByMax = false;
  std::vector<double> thresholds{0.01, 0.05, 0.1, 0.2};
  double specialisedShare = 0.8;  // s of s. 1 (corpus mode)
  // Corpus mode: also the functional experiments of every sentence (KL of
  // sink removal per layer, BOS-removal NLL change): L + 2 more passes each.
  bool functional = false;
  // Corpus mode: also every layer's curves (alpha_k by position, Betti
  // curves, F_N against N and its random baseline), means over its heads:
  // what a figure set draws.
  bool curves = false;
  // With curves: precision and recall of the top N also at these context
  // lengths (Mudarisov et al., Figs. 10-11), ascending: a sentence of at least
  // L tokens gives its curve at query L - 1, which in a causal model is the
  // run of its first L tokens. Encoders give none.
  std::vector<int> contextLengths;
  // Corpus mode: sentences run in blocks of this many consecutive sentences,
  // those of one token count in a block as one batched forward pass (batching
  // moves numbers by float rounding, so the block size is a parameter of a
  // study, and shards are whole blocks). 1: one pass per sentence.
  int batch = 16;
  // Corpus mode: 95% percentile intervals of every pooled share and rate from
  // this many resamples of the sentences (with replacement, seeded); 0: none.
  int bootstrap = 200;
  unsigned long long bootstrapSeed = 1;
  // weights.csv (s. 9). Model-level work: computed once per model and cached
  // (io::WeightSpectraCache); --no-weight-spectra leaves the file out.
  bool weightSpectra = true;
  // Analyse the intervened trace instead of the plain one (listed in every header).
  models::Intervention intervention;
  // Header lines naming where the numbers came from: the full command, the
  // model's config and tokenizer hashes, its weight files, the sentences file
  // and its hash (the command line fills them).
  std::vector<std::pair<std::string, std::string>> provenance;
};

// Each setting's name, range, help and reading: analysis_setting_specs.h.

analysis::SinkSetParams sink_set_params(const AnalysisSettings& s);

// What every head of a run of `tokens` tokens is analysed with; the
// value-space query is the last token unless the settings name one the run has.
analysis::HeadAnalysisParams head_analysis_params(const AnalysisSettings& s, int tokens);

// The sink-set reading, as every header states it.
std::string sink_set_description(const AnalysisSettings& s);

// How persistence decides its counts (bars, Betti numbers, bars above
// min_persistence) robustly to float rounding, as every header states it.
std::string persistence_tolerance_description();

// The graph's edge rule at a threshold theta, as every header states it.
std::string graph_threshold_description();

// Every setting of an analysis, typed: --json's "params"; with `pooled` also
// the settings of pooling over sentences (the "params" header line of every
// pooled table).
nlohmann::json settings_json(const AnalysisSettings& s, bool pooled = false);

}  // namespace sinkscope::document
