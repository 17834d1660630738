#include "models/document/study_tables.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "models/io/table_io.h"
#include "models/input_files.h"
#include "models/json_bounded.h"

namespace sinkscope::document {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::uintmax_t kMaxJson = 1 << 20;
constexpr std::uintmax_t kMaxCsv = std::uintmax_t{64} << 20;
constexpr int kMaxDimension = 4096;
constexpr std::size_t kMaxHeads = std::size_t{1} << 20;
constexpr std::size_t kMaxSentencesPerHead = 100;

// A regular file inside the study folder (no link), of bounded size.
std::string read_bounded(const fs::path& file, std::uintmax_t maxBytes) {
  try {
    return models::input_file_read_unlinked(file, static_cast<std::size_t>(maxBytes));
  } catch (const models::ModelInputError& e) {
    throw StudyReadError(e.what());
  }
}

// A table with named columns; cells are checked as they are read.
class Table {
 public:
  Table(const fs::path& file, bool required = true) : file_(file) {
    std::error_code ec;
    if (!required && !fs::exists(fs::symlink_status(file, ec))) return;
    const std::string text = read_bounded(file, kMaxCsv);
    // Every table a merge writes ends its last row with a newline; without
    // one the file was cut short, possibly inside a number that still parses.
    if (text.empty() || text.back() != '\n')
      throw StudyReadError(file.string() +
                           ": ends in the middle of a line (the file is cut short)");
    try {
      table_ = io::csv_parse(text);
    } catch (const std::invalid_argument& e) {
      throw StudyReadError(file.string() + ": " + e.what());
    }
    present_ = true;
  }
  bool present() const { return present_; }
  std::size_t rows() const { return table_.rows.size(); }
  const io::CsvTable& table() const { return table_; }

  std::size_t column(const std::string& name) const {
    for (std::size_t c = 0; c < table_.columns.size(); ++c)
      if (table_.columns[c] == name) return c;
    throw StudyReadError(file_.string() + ": no column \"" + name + "\"");
  }
  bool has(const std::string& name) const {
    for (const auto& c : table_.columns)
      if (c == name) return true;
    return false;
  }
  const std::string& text(std::size_t row, const std::string& name) const {
    return table_.rows[row][column(name)];
  }
  // A finite number; an empty cell is NaN when `emptyIsNan`.
  double number(std::size_t row, const std::string& name, bool emptyIsNan = false) const {
    const std::string& cell = text(row, name);
    if (cell.empty() && emptyIsNan) return std::numeric_limits<double>::quiet_NaN();
    char* end = nullptr;
    const double v = std::strtod(cell.c_str(), &end);
    if (cell.empty() || end != cell.c_str() + cell.size() || !std::isfinite(v))
      throw StudyReadError(file_.string() + ": row " + std::to_string(row + 1) + ", column " +
                           name + ": \"" + cell.substr(0, 40) + "\" is not a number");
    return v;
  }
  // An integer in [lo, hi].
  long long integer(std::size_t row, const std::string& name, long long lo, long long hi) const {
    const double v = number(row, name);
    if (v != std::floor(v) || v < static_cast<double>(lo) || v > static_cast<double>(hi))
      throw StudyReadError(file_.string() + ": row " + std::to_string(row + 1) + ", column " +
                           name + ": " + text(row, name) + " is outside " + std::to_string(lo) +
                           ".." + std::to_string(hi));
    return static_cast<long long>(v);
  }
  // The value and, where the file has them, its _lo and _hi columns.
  Interval interval(std::size_t row, const std::string& name) const {
    Interval i;
    i.value = number(row, name, true);
    const bool bounds = has(name + "_lo") && has(name + "_hi");
    i.lo = bounds ? number(row, name + "_lo", true) : std::numeric_limits<double>::quiet_NaN();
    i.hi = bounds ? number(row, name + "_hi", true) : std::numeric_limits<double>::quiet_NaN();
    return i;
  }
  std::string comment(const std::string& key) const {
    for (const auto& [k, v] : table_.comments)
      if (k == key) return v;
    return {};
  }

 private:
  fs::path file_;
  io::CsvTable table_;
  bool present_ = false;
};

void read_description(StudyTables& s) {
  const fs::path file = s.folder / "study.json";
  json d;
  try {
    try {
      d = models::json_parse_bounded(read_bounded(file, kMaxJson), file.string(), 16);
    } catch (const models::ModelInputError& e) {
      throw StudyReadError(e.what());
    }
    if (!d.is_object() || d.value("format", "") != "sinkscope-study")
      throw StudyReadError(file.string() + ": not a SinkScope study (format)");
    s.model = d.at("model").get<std::string>();
    s.modelFolder = d.value("model_folder", "");
    // Whole numbers only: get<int> would truncate 0.5 or wrap 1e300.
    for (const char* key : {"layers", "heads"})
      if (!d.at(key).is_number_integer() || d.at(key).get<long long>() < 1 ||
          d.at(key).get<long long>() > kMaxDimension)
        throw StudyReadError(file.string() + ": " + key + ": expected a whole number from 1 to " +
                             std::to_string(kMaxDimension));
    s.layers = d.at("layers").get<int>();
    s.heads = d.at("heads").get<int>();
    s.encoder = d.at("encoder").get<bool>();
  } catch (const json::exception& e) {
    throw StudyReadError(file.string() + ": not a readable study description (" + e.what() + ")");
  }
  if (s.layers < 1 || s.layers > kMaxDimension || s.heads < 1 || s.heads > kMaxDimension ||
      static_cast<std::size_t>(s.layers) * static_cast<std::size_t>(s.heads) > kMaxHeads)
    throw StudyReadError(file.string() + ": layers or heads out of range");
}

// Tables with a row per head (or per layer) must have every one: a file cut
// at a line end parses, and its missing rows would be drawn as nothing.
void require_every(const std::vector<bool>& seen, const fs::path& file, int heads,
                   const std::string& what = "") {
  for (std::size_t k = 0; k < seen.size(); ++k)
    if (!seen[k])
      throw StudyReadError(
          file.string() + ": no row for layer " +
          std::to_string(heads > 0 ? k / static_cast<std::size_t>(heads) : k) +
          (heads > 0 ? ", head " + std::to_string(k % static_cast<std::size_t>(heads)) : "") +
          what + " (the file is cut short or damaged)");
}

// The (layer, head) of a row, checked against the study's shape.
std::size_t head_index(const Table& t, std::size_t row, const StudyTables& s) {
  const auto l = t.integer(row, "layer", 0, s.layers - 1);
  const auto h = t.integer(row, "head", 0, s.heads - 1);
  return static_cast<std::size_t>(l * s.heads + h);
}

void read_heads(StudyTables& s, const fs::path& merged) {
  const std::size_t count = static_cast<std::size_t>(s.layers * s.heads);
  s.perHead.assign(count, {});
  std::vector<bool> seen(count, false);
  const Table spec(merged / "specialisation.csv");
  for (std::size_t r = 0; r < spec.rows(); ++r) {
    const std::size_t k = head_index(spec, r, s);
    StudyHead& h = s.perHead[k];
    h.specialised = spec.integer(r, "specialised", 0, 1) == 1;
    h.sampleShare = spec.interval(r, "sample_share");
    h.topToken = spec.text(r, "top_token");
    seen[k] = true;
  }
  require_every(seen, merged / "specialisation.csv", s.heads);
  const Table tax(merged / "taxonomy_pooled.csv");
  seen.assign(count, false);
  for (std::size_t r = 0; r < tax.rows(); ++r) {
    const std::size_t k = head_index(tax, r, s);
    seen[k] = true;
    StudyHead& h = s.perHead[k];
    h.sinkShare = tax.interval(r, "sink_share");
    h.currentShare = tax.interval(r, "current_share");
    h.label = tax.text(r, "label");
    if (h.label != "Retriever" && h.label != "Mixer" && h.label != "Reset")
      throw StudyReadError((merged / "taxonomy_pooled.csv").string() + ": row " +
                           std::to_string(r + 1) + ": label \"" + h.label.substr(0, 40) +
                           "\" is not Retriever, Mixer or Reset");
  }
  require_every(seen, merged / "taxonomy_pooled.csv", s.heads);
  s.sentences =
      static_cast<std::size_t>(std::strtoull(spec.comment("sentences").c_str(), nullptr, 10));
  s.sentencesMissing = spec.comment("sentences_missing");
  if (s.sentencesMissing.empty()) s.sentencesMissing = "none";
  s.interventions = spec.comment("interventions").substr(0, 1000);
}

void read_profiles(StudyTables& s, const fs::path& merged) {
  const Table t(merged / "layer_profile.csv");
  std::map<std::string, std::vector<bool>> seen;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    const auto l = static_cast<std::size_t>(t.integer(r, "layer", 0, s.layers - 1));
    std::string metric = t.text(r, "metric");
    if (metric.empty() || metric.size() > 64)
      throw StudyReadError("layer_profile.csv: bad metric name");
    if (!t.text(r, "threshold").empty()) {
      t.number(r, "threshold");  // checked
      metric += "@" + t.text(r, "threshold");
    }
    auto [it, added] = s.profiles.try_emplace(
        metric, std::vector<Interval>(static_cast<std::size_t>(s.layers),
                                      Interval{std::nan(""), std::nan(""), std::nan("")}));
    if (added) {
      if (s.profiles.size() > 256) throw StudyReadError("layer_profile.csv: more than 256 metrics");
      s.profileOrder.push_back(metric);
    }
    it->second[l] = t.interval(r, "mean");
    auto& layers = seen[metric];
    layers.resize(static_cast<std::size_t>(s.layers), false);
    layers[l] = true;
  }
  if (s.profiles.empty())
    throw StudyReadError((merged / "layer_profile.csv").string() +
                         ": no rows (the file is cut short or damaged)");
  for (const auto& [metric, layers] : seen)
    require_every(layers, merged / "layer_profile.csv", 0, " of " + metric.substr(0, 64));
}

void read_frame(StudyTables& s, const fs::path& merged) {
  const Table frame(merged / "frame.csv");
  if (frame.rows() != 1)
    throw StudyReadError((merged / "frame.csv").string() + ": expected one row");
  s.frame = frame.text(0, "frame");
  s.specialisedHeads = static_cast<int>(frame.integer(0, "specialised_heads", 0, 1 << 30));
  s.firstToken = frame.text(0, "first_token");
  s.lastToken = frame.text(0, "last_token");
  s.firstTokenShare = frame.interval(0, "first_token_share");
  s.lastTokenShare = frame.interval(0, "last_token_share");
  s.otherShare = frame.interval(0, "other_share");
  const Table tokens(merged / "token_specialisation.csv");
  for (std::size_t r = 0; r < tokens.rows() && r < 1000; ++r) {
    Interval i;
    i.value = tokens.number(r, "share_of_specialised_heads");
    const bool bounds = tokens.has("share_lo");
    i.lo = bounds ? tokens.number(r, "share_lo", true) : std::nan("");
    i.hi = bounds ? tokens.number(r, "share_hi", true) : std::nan("");
    s.tokenShares.emplace_back(tokens.text(r, "token"), i);
  }
  const Table rate(merged / "sink_rate.csv");
  if (rate.rows() != 1)
    throw StudyReadError((merged / "sink_rate.csv").string() + ": expected one row");
  s.sinkRatePercent = rate.interval(0, "sink_rate_percent");
  s.meanBoost = rate.interval(0, "mean_boost");
  s.meanUniformBaseline = rate.number(0, "mean_uniform_baseline");
}

void read_sentences(StudyTables& s, const fs::path& merged) {
  s.topSentences.assign(s.perHead.size(), {});
  const Table t(merged / "top_sentences.csv");
  for (std::size_t r = 0; r < t.rows(); ++r) {
    auto& list = s.topSentences[head_index(t, r, s)];
    if (list.size() >= kMaxSentencesPerHead) continue;
    StudySentence sentence;
    sentence.index = static_cast<std::size_t>(t.integer(r, "sentence", 0, 1ll << 40));
    sentence.alpha0 = t.number(r, "alpha0");
    sentence.boost = t.number(r, "boost");
    sentence.tokens = static_cast<int>(t.integer(r, "tokens", 1, 1 << 24));
    sentence.text = t.text(r, "text");
    list.push_back(std::move(sentence));
  }
  const Table functional(merged / "functional.csv", false);
  if (functional.present())
    for (std::size_t r = 0; r < functional.rows() && r < 4096; ++r)
      s.functional.emplace_back(
          functional.text(r, "experiment") + " " + functional.text(r, "layers"),
          functional.interval(r, "mean"));
}

}  // namespace

StudyTables study_tables_read(const fs::path& studyFolder) {
  StudyTables s;
  s.folder = studyFolder;
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(studyFolder, ec)))
    throw StudyReadError(studyFolder.string() + ": not a folder");
  read_description(s);
  const fs::path merged = studyFolder / "merged";
  if (!fs::is_directory(fs::symlink_status(merged, ec)))
    throw StudyReadError(merged.string() +
                         ": missing (merge the study first: sinkscope-cli study merge DIR)");
  read_heads(s, merged);
  read_profiles(s, merged);
  read_frame(s, merged);
  read_sentences(s, merged);
  return s;
}

}  // namespace sinkscope::document
