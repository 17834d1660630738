// Fuzz targets of the files a user receives from someone else: a sentence
// file, a session, a merged study folder. As fuzz_targets.cpp: a clean
// refusal is the reader's documented error; anything else is a finding.
#include <unistd.h>

#include <QByteArray>
#include <QString>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fuzz/fuzz_targets.h"
#include "models/document/corpus_pool.h"
#include "models/document/study_files.h"
#include "models/document/study_tables.h"
#include "models/input_files.h"
#include "models/sentence_file.h"
#include "models/document/session_format.h"
#include "models/capture.h"
#include "models/io/npz_reader.h"

namespace sinkscope::fuzz {

namespace fs = std::filesystem;

namespace {

// `data` cut at every "\n\x01\n" into parts.
std::vector<std::string> parts_of(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string separator = "\n\x01\n";
  std::vector<std::string> parts;
  std::size_t begin = 0;
  for (std::size_t at; (at = text.find(separator, begin)) != std::string::npos; begin = at + separator.size())
    parts.push_back(text.substr(begin, at - begin));
  parts.push_back(text.substr(begin));
  return parts;
}

}  // namespace

bool fuzz_sentences(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return false;
  const bool jsonLines = data[0] & 1;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    for (const std::string& s : models::sentences_parse(text, jsonLines, "fuzz.txt")) {
      if (!models::utf8_valid(s) || s.find('\0') != std::string::npos) __builtin_trap();
      if (s.find_first_not_of(" \t\r\n") == std::string::npos) __builtin_trap();  // blank kept
      if (!jsonLines && s.find('\n') != std::string::npos) __builtin_trap();
    }
    return true;
  } catch (const models::ModelInputError&) {
    return false;
  }
}

bool fuzz_session(const std::uint8_t* data, std::size_t size) {
  try {
    const document::Session s = document::session_from_json(
        std::string(reinterpret_cast<const char*>(data), size), "fuzz.sinkscope");
    // What the reader promises: places in range, interventions bounded.
    if (s.layer < 0 || s.head < -1 || s.query < -1 || s.key < -1 || s.topN < 1) __builtin_trap();
    if (s.interventions.removeSinks.size() > 256 || s.interventions.ablateHeads.size() > (1u << 20))
      __builtin_trap();
    return true;
  } catch (const document::SessionError&) {
    return false;
  }
}

// study.json, then the merged tables in this order (missing ones absent):
// specialisation, taxonomy_pooled, layer_profile, frame, token_specialisation,
// sink_rate, top_sentences, functional.
bool fuzz_study(const std::uint8_t* data, std::size_t size) {
  static const fs::path folder =
      fs::temp_directory_path() / ("sinkscope-fuzz-study-" + std::to_string(::getpid()));
  static const char* const kFiles[] = {"study.json",        "merged/specialisation.csv",
                                       "merged/taxonomy_pooled.csv", "merged/layer_profile.csv",
                                       "merged/frame.csv",  "merged/token_specialisation.csv",
                                       "merged/sink_rate.csv", "merged/top_sentences.csv",
                                       "merged/functional.csv"};
  std::error_code ec;
  fs::remove_all(folder, ec);
  fs::create_directories(folder / "merged", ec);
  const std::vector<std::string> parts = parts_of(data, size);
  for (std::size_t k = 0; k < parts.size() && k < std::size(kFiles); ++k)
    std::ofstream(folder / kFiles[k], std::ios::binary) << parts[k];
  try {
    const document::StudyTables t = document::study_tables_read(folder);
    if (t.layers < 1 || t.heads < 1) __builtin_trap();
    return true;
  } catch (const document::StudyReadError&) {
    return false;
  }
}

// study.json, then up to two shards, each as its folder name (letters,
// digits and '-' kept, e.g. shard-0-of-2), manifest.json and records.jsonl;
// read as `study merge --partial` reads them, then pooled (20 resamples).
bool fuzz_shards(const std::uint8_t* data, std::size_t size) {
  namespace sf = document::study_format;
  static const fs::path folder =
      fs::temp_directory_path() / ("sinkscope-fuzz-shards-" + std::to_string(::getpid()));
  std::error_code ec;
  fs::remove_all(folder, ec);
  fs::create_directories(folder / "shards", ec);
  const std::vector<std::string> parts = parts_of(data, size);
  std::ofstream(folder / "study.json", std::ios::binary) << parts[0];
  for (std::size_t k = 1; k + 2 < parts.size() && k < 7; k += 3) {
    std::string name;
    for (char c : parts[k].substr(0, 64))
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '-') name += c;
    if (name.empty()) continue;
    fs::create_directories(folder / "shards" / name, ec);
    std::ofstream(folder / "shards" / name / "manifest.json", std::ios::binary) << parts[k + 1];
    std::ofstream(folder / "shards" / name / "records.jsonl", std::ios::binary) << parts[k + 2];
  }
  try {
    sf::StudyFile study = sf::read_study(folder);
    std::vector<std::pair<std::size_t, std::size_t>> missing;
    const std::vector<document::SentenceRecord> records = sf::read_records(folder, study, missing);
    // What the reader promises: records in order, inside the study, of its shape.
    for (std::size_t r = 0; r < records.size(); ++r)
      if (records[r].index >= study.sentences || (r > 0 && records[r].index <= records[r - 1].index) ||
          records[r].sinks.size() != static_cast<std::size_t>(study.layers * study.heads))
        __builtin_trap();
    if (records.empty()) return false;
    study.params.bootstrap = 20;
    const document::CorpusTables t =
        document::corpus_tables(records, study.layers, study.heads, study.encoder, study.params);
    if (t.specialisation.rows.size() != static_cast<std::size_t>(study.layers * study.heads))
      __builtin_trap();
    return true;
  } catch (const document::StudyError&) {
    return false;
  }
}

bool fuzz_capture(const std::uint8_t* data, std::size_t size) {
  static const fs::path file =
      fs::temp_directory_path() / ("sinkscope-fuzz-capture-" + std::to_string(::getpid()) + ".npz");
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const models::Capture c = models::capture_read(file);
    // What the reader promises: the shapes agree and every weight is a probability.
    const std::size_t T = static_cast<std::size_t>(c.tokens);
    const std::size_t maps = static_cast<std::size_t>(c.layers) * static_cast<std::size_t>(c.heads);
    if (c.layers < 1 || c.heads < 1 || c.tokens < 1) __builtin_trap();
    if (c.attention.size() != maps * T * T || c.tokenText.size() != T) __builtin_trap();
    if (!c.ids.empty() && c.ids.size() != T) __builtin_trap();
    if (c.values.size() != maps * T * static_cast<std::size_t>(c.headDim)) __builtin_trap();
    for (const float w : c.attention)
      if (!(w >= 0.0f && w <= 1.0f + 1e-6f)) __builtin_trap();
    return true;
  } catch (const models::CaptureError&) {
    return false;
  }
}

bool fuzz_npy(const std::uint8_t* data, std::size_t size) {
  try {
    const io::NpyArray a = io::npy_parse(std::vector<std::uint8_t>(data, data + size), "fuzz.npy");
    if (a.bytes.size() != a.count() * a.itemSize()) __builtin_trap();
    switch (a.kind()) {
      case 'f':
        if (a.floats().size() != a.count()) __builtin_trap();
        break;
      case 'U':
        if (a.strings().size() != a.count()) __builtin_trap();
        break;
      default:
        if (a.integers().size() != a.count()) __builtin_trap();
    }
    return true;
  } catch (const io::NpzError&) {
    return false;
  }
}

}  // namespace sinkscope::fuzz
