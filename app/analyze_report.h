#pragma once
// `sinkscope-cli analyze`: every implemented metric family of metrics.md for
// every layer and head (and the head average) of one sentence, as one CSV per
// family (and optionally one JSON file).
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/first_token_sink.h"
#include "analysis/sinks.h"
#include "models/experiments.h"
#include "models/loaded_model.h"

namespace sinkscope::app {

struct AnalyzeParams {
  double percentile = 90.0;  // sink set (s. 1)
  double gamma = 0.3;
  double eps = analysis::kDefaultSinkMetricEps;  // sink metric threshold
  int topN = 3;            // head diagnostics and value space (N)
  int query = -1;          // value-space query; negative: the last position
  int randomSubsets = 64;  // value-space random baseline: K subsets, seeded
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
  // what a figure set draws (app/figure_set_data.h).
  bool curves = false;
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
  // (analysis::WeightSpectraCache); --no-weight-spectra leaves the file out.
  bool weightSpectra = true;
  // Analyse the intervened trace instead of the plain one (listed in every header).
  models::Intervention intervention;
  // Header lines naming where the numbers came from: the full command, the
  // model's config and tokenizer hashes, its weight files, the sentences file
  // and its hash (the CLI fills them).
  std::vector<std::pair<std::string, std::string>> provenance;
};

// Writes DIR/{sinks,sink_summary,diagnostics,persistence,persistence_summary,betti,spectra,
// eigenvalues,layer_summary,
// sign_flip,effectiveness,taxonomy,weights,value_space,value_space_curve}.csv (atomically; existing
// files are replaced only with `force`) and, when `jsonFile` is not empty, everything into that
// file. Returns the files written.
std::vector<std::filesystem::path> analyze_write(const models::LoadedModel& model,
                                                 const std::string& text,
                                                 const std::filesystem::path& dir,
                                                 const AnalyzeParams& params, bool force,
                                                 const std::filesystem::path& jsonFile);

// Corpus mode (`--sentences FILE`): pooled over the sentences, writes
// specialisation.csv (per head), token_specialisation.csv, taxonomy_pooled.csv,
// sink_rate.csv and frame.csv (metrics.md s. 1, 4 and 7).
std::vector<std::filesystem::path> analyze_corpus_write(const models::LoadedModel& model,
                                                        const std::vector<std::string>& sentences,
                                                        const std::filesystem::path& dir,
                                                        const AnalyzeParams& params, bool force,
    const std::filesystem::path& jsonFile = {});

}  // namespace sinkscope::app
