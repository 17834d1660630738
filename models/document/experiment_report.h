#pragma once
// `sinkscope-cli experiment KIND`: the functional experiments of metrics.md
// sections 5 and 8 on one sentence, each written as CSV with the parameters,
// the model and the text in its comment header.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "models/experiments.h"
#include "models/loaded_model.h"

namespace sinkscope::document {

struct ExperimentParams {
  models::SinkRemoval removal;            // kl
  models::Perturbation perturbation;      // perturb
  models::Sparsification sparsification;  // sparsify
  int topN = 3;                           // correlation's top-N mass
  // Header lines naming where the numbers came from: the full command, the
  // model's config and tokenizer hashes, its weight files (CLI fills them).
  std::vector<std::pair<std::string, std::string>> provenance;
};

// The experiment kinds, with one line each for the help text.
const std::vector<std::pair<std::string, std::string>>& experiment_kinds();

// Runs experiment `kind` on `text` and writes its CSV files into `dir`
// (atomically; existing files are replaced only with `force`). Returns them.
std::vector<std::filesystem::path> experiment_write(const models::LoadedModel& model,
                                                    const std::string& text,
                                                    const std::string& kind,
                                                    const ExperimentParams& params,
                                                    const std::filesystem::path& dir, bool force,
                                                    const models::ProgressFn& progress = {});

}  // namespace sinkscope::document
