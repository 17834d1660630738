// Fuzz targets of the files a user receives from someone else: a sentence
// file, a session, a merged study folder. As fuzz_targets.cpp: a clean
// refusal is the reader's documented error; anything else is a finding.
#include <unistd.h>

#include <QByteArray>
#include <QString>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fuzz/fuzz_targets.h"
#include "models/input_files.h"
#include "models/sentence_file.h"
#include "ui/session.h"
#include "ui/study_tables.h"

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
    const ui::Session s = ui::session_from_json(
        QByteArray(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size)),
        QStringLiteral("fuzz.sinkscope"));
    // What the reader promises: places in range, interventions bounded.
    if (s.layer < 0 || s.head < -1 || s.query < -1 || s.key < -1 || s.topN < 1) __builtin_trap();
    if (s.interventions.size() > 256) __builtin_trap();
    return true;
  } catch (const ui::SessionError&) {
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
    const ui::StudyTables t = ui::study_tables_read(folder);
    if (t.layers < 1 || t.heads < 1) __builtin_trap();
    return true;
  } catch (const ui::StudyReadError&) {
    return false;
  }
}

}  // namespace sinkscope::fuzz
