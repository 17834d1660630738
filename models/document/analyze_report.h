#pragma once
// `sinkscope-cli analyze`: every implemented metric family of metrics.md for
// every layer and head (and the head average) of one sentence, as one CSV per
// family (and optionally one JSON file).
#include <filesystem>
#include <string>
#include <vector>

#include "models/document/analysis_settings.h"
#include "models/loaded_model.h"

namespace sinkscope::document {

// Writes DIR/{sinks,sink_summary,diagnostics,persistence,persistence_summary,betti,spectra,
// eigenvalues,layer_summary,
// sign_flip,effectiveness,taxonomy,weights,value_space,value_space_curve}.csv (atomically; existing
// files are replaced only with `force`) and, when `jsonFile` is not empty, everything into that
// file. Returns the files written.
std::vector<std::filesystem::path> analyze_write(const models::LoadedModel& model,
                                                 const std::string& text,
                                                 const std::filesystem::path& dir,
                                                 const document::AnalysisSettings& params,
                                                 bool force, const std::filesystem::path& jsonFile);

// Corpus mode (`--sentences FILE`): pooled over the sentences, writes
// specialisation.csv (per head), token_specialisation.csv, taxonomy_pooled.csv,
// sink_rate.csv and frame.csv (metrics.md s. 1, 4 and 7).
std::vector<std::filesystem::path> analyze_corpus_write(const models::LoadedModel& model,
                                                        const std::vector<std::string>& sentences,
                                                        const std::filesystem::path& dir,
                                                        const document::AnalysisSettings& params,
                                                        bool force,
                                                        const std::filesystem::path& jsonFile = {});

}  // namespace sinkscope::document
