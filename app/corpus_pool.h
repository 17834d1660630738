#pragma once
// The pooled corpus tables of `analyze --sentences` and of corpus studies,
// built from one record per sentence. Pooling walks the records in sentence
// order, so records made in several processes (the shards of a study) and
// concatenated give exactly the numbers of one process over the whole file.
#include <cstddef>
#include <string>
#include <vector>

#include "analysis/frames.h"
#include "analysis/table_io.h"
#include "analysis/taxonomy.h"
#include "app/analyze_report.h"
#include "models/loaded_model.h"

namespace sinkscope::app {

// What every head saw in one sentence (index: its line in the sentence file).
struct SentenceRecord {
  std::size_t index = 0;
  int tokens = 0;
  std::string firstSpecial;  // the first token's display text when it is special, else ""
  std::string lastSpecial;   // the same for the last token
  double uniformBaseline0 = 0.0;  // alpha_0 of a uniform head at this length
  // [layer * heads + head]:
  std::vector<std::vector<analysis::SinkOccurrence>> sinks;
  std::vector<analysis::TaxonomyVotes> votes;
  std::vector<double> alpha0;  // the sink metric of the first token
};

// Runs one sentence (attention only) and records it.
SentenceRecord corpus_record(const models::LoadedModel& model, const std::string& sentence,
                             std::size_t index, const AnalyzeParams& params);

// specialisation, token_specialisation, taxonomy_pooled, sink_rate and frame,
// without header lines; the same for any split of `records` into shards.
struct CorpusTables {
  analysis::CsvTable specialisation, tokenSpecialisation, taxonomy, sinkRate, frame;
};
CorpusTables corpus_tables(const std::vector<SentenceRecord>& records, int layers, int heads,
                           bool encoder, const AnalyzeParams& params);

// The header lines every pooled table carries (definitions and readings).
std::vector<std::pair<std::string, std::string>> corpus_header(const AnalyzeParams& params);

// Writes the tables (and optionally the JSON file) into `dir`, atomically,
// with `header` as each file's comment lines. Returns the files written.
std::vector<std::filesystem::path> corpus_write(
    const CorpusTables& tables, const std::filesystem::path& dir,
    const std::vector<std::pair<std::string, std::string>>& header, const AnalyzeParams& params,
    bool force, const std::filesystem::path& jsonFile, const std::string& model,
    std::size_t sentences);

}  // namespace sinkscope::app
