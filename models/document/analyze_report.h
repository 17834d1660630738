#pragma once
// `sinkscope-cli analyze`: every implemented metric family of metrics.md for
// every layer and head (and the head average) of one sentence, as one CSV per
// family (and optionally one JSON file).
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <utility>

#include "models/capture.h"
#include "models/document/analysis_settings.h"
#include "models/loaded_model.h"

namespace sinkscope::document {

// Writes DIR/{sinks,sink_summary,diagnostics,persistence,persistence_summary,betti,spectra,
// eigenvalues,layer_summary,
// sign_flip,effectiveness,taxonomy,weights,value_space,value_space_curve}.csv (atomically; existing
// files are replaced only with `force`) and, when `jsonFile` is not empty, everything into that
// file, and when `htmlFile` is not empty, the run as a self-contained web page
// (web_page.h), all of them or none. Returns the files written. The run keeps
// every layer's maps while they fit `keptMapBytes`; past it, its residual
// stream only, and each layer is recomputed for its analysis a group of heads
// at a time (the same numbers, less memory).
std::vector<std::filesystem::path> analyze_write(
    const models::LoadedModel& model, const std::string& text, const std::filesystem::path& dir,
    const document::AnalysisSettings& params, bool force, const std::filesystem::path& jsonFile,
    const std::filesystem::path& htmlFile = {}, std::size_t keptMapBytes = std::size_t{2} << 30);

// What analyze analyses: a model's run of a sentence, or a capture.
struct AnalyzeSubject {
  const models::Trace* trace = nullptr;
  std::vector<std::string> tokens;  // as the tables show them
  // Header lines naming where the attention came from (model and text, or the
  // capture file and its model's name), and the same for the JSON file.
  std::vector<std::pair<std::string, std::string>> source, json;
  std::string warning;                          // a header line when not empty
  const models::LoadedModel* model = nullptr;   // weights.csv needs it; null for a capture
};

// A capture as analyze's subject (`trace`: capture_trace(capture), kept alive by the caller).
AnalyzeSubject analyze_subject_of(const models::Capture& capture, const models::Trace& trace);
// analyze_write's tables of any subject, written into `dir`.
std::vector<std::filesystem::path> analyze_subject_write(
    const AnalyzeSubject& subject, const std::filesystem::path& dir,
    const document::AnalysisSettings& params, bool force, const std::filesystem::path& jsonFile,
    const std::filesystem::path& htmlFile = {});
// The same tables in memory: (file name, CSV text) pairs, byte for byte what
// analyze writes (Python's sinkscope.analyze reads them).
// `progress` hears the fraction of layers done; false stops (analysis::AnalysisStopped).
std::vector<std::pair<std::string, std::string>> analyze_subject_csv(
    const AnalyzeSubject& subject, const document::AnalysisSettings& params,
    const std::function<bool(double)>& progress = {});

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
