#pragma once
// The files of a study folder (`sinkscope-cli study`), read as untrusted
// input and written exactly; nothing here runs a model:
//
//   DIR/study.json                    inputs (model and sentence hashes) and parameters
//   DIR/shards/shard-I-of-N/          one finished shard: records.jsonl + manifest.json
//   DIR/merged/                       the pooled tables of `analyze --sentences`
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "models/document/analyze_report.h"
#include "models/document/corpus_pool.h"

namespace sinkscope::document {

// A study that cannot go on as asked (other inputs, missing shards, a damaged
// file); the message names the file and the problem.
class StudyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Shard I of N (0 <= I < N): blocks [floor(I K / N), floor((I + 1) K / N)) of
// the K blocks of document::AnalysisSettings::batch consecutive sentences (whole blocks, so
// that every split runs the same batched passes).
struct ShardId {
  int index = 0;
  int count = 1;
};
// "I/N"; throws std::invalid_argument.
ShardId parse_shard(const std::string& text);
std::string shard_folder_name(ShardId shard);  // "shard-I-of-N"

// Which sentences the finished shards cover.
struct StudyStatus {
  std::size_t sentences = 0;
  std::vector<std::string> complete;                         // shard folder names
  std::vector<std::pair<std::size_t, std::size_t>> missing;  // [first, end) of uncovered sentences
  std::vector<std::string>
      unfinished;  // temporary folders of shards that are running or were killed
};
StudyStatus study_status(const std::filesystem::path& dir);

// Every sentence's record of a finished study (all shards complete), in
// sentence order, checked as a merge checks them, with the study's shape and
// parameters: what a figure set of the study draws. Throws StudyError.
struct StudyRecords {
  std::vector<SentenceRecord> records;
  int layers = 0, heads = 0;
  bool encoder = false;
  document::AnalysisSettings params;
  std::string model, modelFolder, sentencesFile;
  std::map<std::string, std::string>
      hashes;  // model_config_sha256, tokenizer_sha256, sentences_sha256
};
StudyRecords study_records(const std::filesystem::path& dir);

// The pieces of the format that running, merging and submitting a study share.
namespace study_format {

inline constexpr const char* kFormat = "sinkscope-study";
inline constexpr int kVersion = 2;  // 2: layer profiles, functional experiments, sentence texts
inline constexpr std::uintmax_t kMaxSmallFile = 1 << 20;  // study.json, manifest.json

// A study file: a regular file of at most maxBytes, no link (StudyError).
std::string read_study_file(const std::filesystem::path& file, std::uintmax_t maxBytes);
// JSON nested at most 16 deep (StudyError naming `file`).
nlohmann::json parse_json(const std::string& text, const std::filesystem::path& file);

// Doubles as C99 hexadecimal floats: an exact round trip.
std::string hex_double(double v);
nlohmann::json hex_doubles(const std::vector<double>& values);
// A JSON integer from lo to hi; a float or a string is refused, never truncated.
long long whole(const nlohmann::json& j, long long lo, long long hi, const std::string& where);
int whole_int(const nlohmann::json& j, int lo, int hi, const std::string& where);

// study.json's "params": every setting of analysis_setting_specs() that a
// study records (numbers as hex_double, the seed as text), and the
// interventions; read back checked as declared (StudyError naming `where`).
nlohmann::json study_params_json(const document::AnalysisSettings& p);
document::AnalysisSettings study_params_read(const nlohmann::json& params,
                                             const std::string& where);

// Studies that record the figure set's curves say so in their description.
nlohmann::json with_curves(nlohmann::json description, const document::AnalysisSettings& p);
// The fields of two descriptions that differ (the file path and the model's
// folder may move; what they hold may not).
std::vector<std::string> differences(const nlohmann::json& stored, const nlohmann::json& now);
// The hash of what decides the study's numbers.
std::string study_key(const nlohmann::json& description);

// study.json, read and checked.
struct StudyFile {
  nlohmann::json description;
  std::string key;
  std::size_t sentences = 0;
  int layers = 0, heads = 0;
  bool encoder = false;
  document::AnalysisSettings params;
};
StudyFile read_study(const std::filesystem::path& dir);

// The sentences [first, end) of a shard (see ShardId).
std::pair<std::size_t, std::size_t> shard_range(ShardId shard, std::size_t sentences, int batch);

// One line of records.jsonl, and back (checked against the study's shape).
nlohmann::json record_to_json(const SentenceRecord& r);
SentenceRecord record_from_json(const nlohmann::json& j, const StudyFile& study,
                                const std::string& where);

// A finished shard's manifest, checked against the study.
struct Manifest {
  ShardId shard;
  std::size_t first = 0, end = 0;
};
Manifest read_manifest(const std::filesystem::path& folder, const StudyFile& study);

// A folder of a study must be a real folder (or absent): a link would read
// records from, or write tables to, somewhere outside the study.
void refuse_linked_folder(const std::filesystem::path& folder);

// The finished shards of a study: folder name -> manifest; the temporary
// folders of unfinished ones in `unfinished`.
std::map<std::string, Manifest> finished_shards(const std::filesystem::path& dir,
                                                const StudyFile& study,
                                                std::vector<std::string>* unfinished = nullptr);

// The ranges [first, end) of [0, total) that no range of `covered` holds.
std::vector<std::pair<std::size_t, std::size_t>> uncovered(
    std::vector<std::pair<std::size_t, std::size_t>> covered, std::size_t total);
std::string ranges_text(const std::vector<std::pair<std::size_t, std::size_t>>& ranges);

// The finished shards' records in sentence order, each checked against the
// study; the sentences without one in `missing`.
std::vector<SentenceRecord> read_records(const std::filesystem::path& dir, const StudyFile& study,
                                         std::vector<std::pair<std::size_t, std::size_t>>& missing);

}  // namespace study_format

}  // namespace sinkscope::document
