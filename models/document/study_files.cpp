#include "models/document/study_files.h"

#include "analysis/value_directions.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "models/document/analysis_setting_specs.h"
#include "models/document/intervention_json.h"
#include "models/input_files.h"
#include "models/io/table_io.h"
#include "models/json_bounded.h"
#include "models/model_identity.h"

// The files of a study folder, read as untrusted input and written exactly:
// study.json, the shards' manifests and records. Nothing here runs a model.
namespace sinkscope::document {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace study_format {

constexpr std::uintmax_t kMaxRecordsFile = std::uintmax_t{4} << 30;  // records.jsonl
constexpr std::size_t kMaxRecordLine = std::size_t{64} << 20;

// A study file, read as untrusted input: a regular file of bounded size, no link.
std::string read_study_file(const fs::path& file, std::uintmax_t maxBytes) {
  try {
    return models::input_file_read_unlinked(file, static_cast<std::size_t>(maxBytes));
  } catch (const models::ModelInputError& e) {
    throw StudyError(e.what());
  }
}

// Depth-bounded: a document nested deeper than any study file is refused
// before it is built (the parser's callback sees every level).
json parse_json(const std::string& text, const fs::path& file) {
  constexpr int kMaxDepth = 16;
  try {
    return models::json_parse_bounded(text, file.string(), kMaxDepth);
  } catch (const models::ModelInputError& e) {
    throw StudyError(e.what());
  }
}

// Doubles as C99 hexadecimal floats: an exact round trip.
std::string hex_double(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%a", v);
  return buffer;
}

json hex_doubles(const std::vector<double>& values) {
  json out = json::array();
  for (double v : values) out.push_back(hex_double(v));
  return out;
}

// A number written by hex_double; NaN only where `allowNan` (a quantity a
// sentence may lack).
// A JSON integer from lo to hi. A float (0.5, 1e300) or a string is refused,
// never truncated or wrapped into an int.
long long whole(const json& j, long long lo, long long hi, const std::string& where) {
  const bool fits =
      j.is_number_integer() &&
      (j.is_number_unsigned() ? j.get<unsigned long long>() <= static_cast<unsigned long long>(hi)
                              : j.get<long long>() >= lo && j.get<long long>() <= hi);
  if (!fits)
    throw StudyError(where + ": expected a whole number from " + std::to_string(lo) + " to " +
                     std::to_string(hi) + ", found " + j.dump().substr(0, 40));
  return j.get<long long>();
}

int whole_int(const json& j, int lo, int hi, const std::string& where) {
  return static_cast<int>(whole(j, lo, hi, where));
}

std::vector<int> whole_ints(const json& j, std::size_t most, int hi, const std::string& where) {
  if (!j.is_array() || j.size() > most)
    throw StudyError(where + ": expected a list of at most " + std::to_string(most) + " indices");
  std::vector<int> out;
  for (const json& x : j) out.push_back(whole_int(x, 0, hi, where));
  return out;
}

double parse_hex_double(const json& j, const std::string& where, bool allowNan = false) {
  if (!j.is_string()) throw StudyError(where + ": expected a number written as a string");
  const std::string s = j.get<std::string>();
  if (allowNan && (s == "nan" || s == "-nan")) return std::numeric_limits<double>::quiet_NaN();
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v))
    throw StudyError(where + ": \"" + s + "\" is not a finite number");
  return v;
}

// An array of exactly `count` numbers written by hex_double.
std::vector<double> parse_hex_doubles(const json& j, std::size_t count, const std::string& where,
                                      bool allowNan = false) {
  if (!j.is_array() || j.size() != count)
    throw StudyError(where + ": expected " + std::to_string(count) + " numbers");
  std::vector<double> out;
  for (const json& v : j) out.push_back(parse_hex_double(v, where, allowNan));
  return out;
}

json study_params_json(const document::AnalysisSettings& p) {
  json out = json::object();
  for (const SettingSpec& spec : analysis_setting_specs()) {
    if (!spec.study) continue;
    switch (spec.type) {
      case SettingType::Number:
        out[spec.name] = hex_double(spec.number(p));
        break;
      case SettingType::Whole:
        // The seed as text: written so when studies began, and part of their key.
        if (spec.name == "seed")
          out[spec.name] = std::to_string(static_cast<unsigned long long>(spec.number(p)));
        else
          out[spec.name] = static_cast<long long>(spec.number(p));
        break;
      case SettingType::Word:
        out[spec.name] = spec.word(p);
        break;
      case SettingType::NumberList:
        out[spec.name] = hex_doubles(spec.list(p));
        break;
      case SettingType::Flag:
        out[spec.name] = spec.number(p) != 0;
        break;
    }
  }
  out["interventions"] = intervention_json(p.intervention);
  return out;
}

document::AnalysisSettings study_params_read(const json& params, const std::string& where) {
  document::AnalysisSettings s;
  const std::string in = where + ": ";
  for (const SettingSpec& spec : analysis_setting_specs()) {
    if (!spec.study) continue;
    const json& v = params.at(spec.name);
    const std::string at = in + spec.name;
    switch (spec.type) {
      case SettingType::Number: {
        const double x = parse_hex_double(v, at);
        if (!spec.contains(x))
          throw StudyError(at + ": " + io::csv_number(x) + " is outside " +
                           io::csv_number(spec.lo) + " to " + io::csv_number(spec.hi));
        spec.setNumber(s, x);
        break;
      }
      case SettingType::Whole: {
        long long x = 0;
        if (spec.name == "seed") {
          const std::string text = v.get<std::string>();
          if (text.empty() || text.size() > 10 ||
              text.find_first_not_of("0123456789") != std::string::npos)
            throw StudyError(at + ": not a whole number");
          x = std::stoll(text);
          if (!spec.contains(static_cast<double>(x)))
            throw StudyError(at + ": outside 0 to " + io::csv_number(spec.hi));
        } else {
          x = whole(v, spec.optional ? -1 : static_cast<long long>(spec.lo),
                    static_cast<long long>(spec.hi), at);
        }
        spec.setNumber(s, static_cast<double>(x));
        break;
      }
      case SettingType::Word: {
        const std::string w = v.get<std::string>();
        if (std::find(spec.words.begin(), spec.words.end(), w) == spec.words.end())
          throw StudyError(at + ": '" + w + "' is not one of " + spec.wordsText());
        spec.setWord(s, w);
        break;
      }
      case SettingType::NumberList: {
        if (!v.is_array() || v.empty() || v.size() > 32) throw StudyError(at + ": 1 to 32 numbers");
        const std::vector<double> list = parse_hex_doubles(v, v.size(), at);
        for (double x : list)
          if (!spec.contains(x))
            throw StudyError(at + ": " + io::csv_number(x) + " is outside " +
                             io::csv_number(spec.lo) + " to " + io::csv_number(spec.hi));
        spec.setList(s, list);
        break;
      }
      case SettingType::Flag:
        spec.setNumber(s, v.get<bool>() ? 1.0 : 0.0);
        break;
    }
  }
  s.curves = params.value("curves", false);
  if (params.contains("context_lengths")) {
    const json& lengths = params.at("context_lengths");
    if (!lengths.is_array() || lengths.empty() || lengths.size() > kMaxContextLengths)
      throw StudyError(in + "context_lengths: 1 to " + std::to_string(kMaxContextLengths) +
                       " lengths");
    for (const json& l : lengths)
      s.contextLengths.push_back(whole_int(l, 2, kMaxContextLength, in + "context_lengths"));
    if (!std::is_sorted(s.contextLengths.begin(), s.contextLengths.end()) ||
        std::adjacent_find(s.contextLengths.begin(), s.contextLengths.end()) !=
            s.contextLengths.end())
      throw StudyError(in + "context_lengths: ascending, each once");
  }
  try {
    s.intervention = intervention_from_json(params.at("interventions"), where + ": interventions");
  } catch (const InterventionFormatError& e) {
    throw StudyError(e.what());
  }
  return s;
}

// Studies that record the figure set's curves say so; others keep the
// description (and study key) they had before curves existed.
json with_curves(json description, const document::AnalysisSettings& p) {
  if (p.curves) description["params"]["curves"] = true;
  if (!p.contextLengths.empty()) description["params"]["context_lengths"] = p.contextLengths;
  return description;
}

// The fields of two descriptions that differ (the file path and the model's
// folder may move; what they hold may not).
std::vector<std::string> differences(const json& stored, const json& now) {
  std::vector<std::string> out;
  for (const auto& [key, value] : now.items()) {
    if (key == "sentences_file" || key == "model_folder" || key == "model") continue;
    if (!stored.contains(key) || stored.at(key) != value) out.push_back(key);
  }
  return out;
}

std::string study_key(const json& description) {
  json identity = description;
  identity.erase("sentences_file");
  identity.erase("model_folder");
  identity.erase("model");
  return models::sha256_hex(identity.dump());
}

StudyFile read_study(const fs::path& dir) {
  const fs::path file = dir / "study.json";
  StudyFile s;
  s.description = parse_json(read_study_file(file, kMaxSmallFile), file);
  const json& d = s.description;
  try {
    if (!d.is_object() || d.value("format", "") != kFormat)
      throw StudyError(file.string() + ": not a SinkScope study (format)");
    const long long version = whole(d.at("version"), 0, 1 << 30, file.string() + ": version");
    if (version != kVersion)
      throw StudyError(file.string() + ": study format version " + std::to_string(version) +
                       ", this tool reads " + std::to_string(kVersion));
    s.sentences = static_cast<std::size_t>(
        whole(d.at("sentences"), 0, 1LL << 32, file.string() + ": sentences"));
    s.layers = whole_int(d.at("layers"), 1, 4096, file.string() + ": layers");
    s.heads = whole_int(d.at("heads"), 1, 4096, file.string() + ": heads");
    s.encoder = d.at("encoder").get<bool>();
    if (s.layers < 1 || s.layers > 4096 || s.heads < 1 || s.heads > 4096 ||
        s.sentences > (std::size_t{1} << 32))
      throw StudyError(file.string() + ": layers, heads or sentences out of range");
    s.params = study_params_read(d.at("params"), file.string());
  } catch (const json::exception& e) {
    throw StudyError(file.string() + ": a field is missing or of the wrong type (" + e.what() +
                     ")");
  }
  s.key = study_key(d);
  return s;
}

// Shard I of N: blocks [floor(I B / N), floor((I + 1) B / N)) of the B blocks
// of `batch` sentences, so that every split batches the sentences alike.
std::pair<std::size_t, std::size_t> shard_range(ShardId shard, std::size_t sentences, int batch) {
  const auto n = static_cast<std::size_t>(shard.count), i = static_cast<std::size_t>(shard.index);
  const auto size = static_cast<std::size_t>(std::max(1, batch));
  const std::size_t blocks = (sentences + size - 1) / size;
  return {std::min(sentences, i * blocks / n * size),
          std::min(sentences, (i + 1) * blocks / n * size)};
}

json record_to_json(const SentenceRecord& r) {
  json heads = json::array();
  for (std::size_t k = 0; k < r.sinks.size(); ++k) {
    json sinks = json::array();
    for (const auto& s : r.sinks[k]) sinks.push_back({s.token, s.position});
    json head = {{"s", sinks},
                 {"v", {r.votes[k].sink, r.votes[k].current, r.votes[k].other}},
                 {"a", hex_double(r.alpha0[k])}};
    if (k < r.valueGeometry.size())
      head["vg"] =
          hex_doubles(std::vector<double>(r.valueGeometry[k].begin(), r.valueGeometry[k].end()));
    heads.push_back(std::move(head));
  }
  json layers = json::array();
  for (const LayerFigures& f : r.layers)
    layers.push_back({{"c", hex_double(f.sinkConcentration)},
                      {"a", hex_double(f.alpha0)},
                      {"b", hex_double(f.boost)},
                      {"h0", hex_double(f.bars0)},
                      {"h1", hex_double(f.bars1)},
                      {"f", hex_double(f.fN)},
                      {"fr", hex_double(f.fNRandom)},
                      {"fiedler", hex_doubles(f.fiedler)},
                      {"cz", hex_doubles(f.centralisation)}});
  json out = {{"i", r.index},          {"text", r.text},
              {"T", r.tokens},         {"first", r.firstSpecial},
              {"last", r.lastSpecial}, {"u0", hex_double(r.uniformBaseline0)},
              {"heads", heads},        {"layers", layers}};
  if (!r.kl.empty()) {
    out["kl"] = hex_doubles(r.kl);
    out["bos"] = hex_double(r.bosDeltaNll);
  }
  if (!r.curves.empty()) {
    json curves = json::array();
    for (const LayerCurves& lc : r.curves) {
      json one = {{"a", hex_doubles(lc.alpha)},     {"u", hex_doubles(lc.alphaUniform)},
                  {"e", hex_doubles(lc.bettiGrid)}, {"b0", hex_doubles(lc.beta0)},
                  {"b1", hex_doubles(lc.beta1)},    {"f", hex_doubles(lc.fN)},
                  {"fr", hex_doubles(lc.fNRandom)}};
      for (const PerNCurve& c : per_n_curves()) one[c.key] = hex_doubles(lc.*c.values);
      curves.push_back(std::move(one));
    }
    out["curves"] = curves;
  }
  if (!r.classCurves.empty()) {
    json classes = json::array();
    for (const ClassTrajectories& t : r.classCurves) {
      json one = {{"h", t.heads}};
      for (const ClassCurve& c : class_curves()) one[c.key] = hex_doubles(t.*c.values);
      classes.push_back(std::move(one));
    }
    out["classes"] = classes;
  }
  if (!r.contextCurves.empty()) {
    json lengths = json::array();
    for (const ContextCurves& c : r.contextCurves)
      lengths.push_back(
          {{"L", c.length}, {"p", hex_doubles(c.precision)}, {"r", hex_doubles(c.recall)}});
    out["ctx"] = lengths;
  }
  if (!r.sinkCosineCounts.empty()) {
    json counts = r.sinkCosineCounts;
    for (std::int64_t c : r.pairCosineCounts) counts.push_back(c);
    out["vc"] = counts;
  }
  return out;
}

// The value-direction cosine counts (record key "vc": the sink's bins, then
// the pairs'), each whole, and no more in all than the sentence has pairs.
void value_cosines_from_json(const json& counts, SentenceRecord& r, const StudyFile& study,
                             const std::string& where) {
  const auto bins = static_cast<std::size_t>(analysis::kValueCosineBins);
  if (!counts.is_array() || counts.size() != 2 * bins)
    throw StudyError(where + ": value cosine counts: " + std::to_string(2 * bins) +
                     " whole numbers expected");
  const long long heads = static_cast<long long>(study.layers) * study.heads;
  const long long others = std::max(0, r.tokens - 1);
  const long long kept = std::min<long long>(others, analysis::kValueCosineMaxKeys);
  const long long most[2] = {heads * others, heads * kept * (kept - 1) / 2};
  for (int part = 0; part < 2; ++part) {
    std::vector<std::int64_t>& into = part == 0 ? r.sinkCosineCounts : r.pairCosineCounts;
    long long total = 0;
    for (std::size_t b = 0; b < bins; ++b) {
      into.push_back(
          whole(counts[part * bins + b], 0, most[part], where + ": value cosine counts"));
      total += into.back();
    }
    if (total > most[part])
      throw StudyError(where + ": value cosine counts: more than the sentence's " +
                       std::to_string(most[part]) + (part == 0 ? " sink pairs" : " value pairs"));
  }
}

// A recorded number inside the range its definition allows (metrics.md),
// within a relative 1e-6 for rounding; NaN (a quantity the sentence lacks)
// passes. Finite but impossible values (2^1000, a negative share) would
// otherwise pool into inf or nonsense.
void check_range(double v, double lo, double hi, const std::string& where) {
  const double slack = 1e-6 * (1.0 + std::max(std::abs(lo), std::abs(hi)));
  if (std::isnan(v) || (v >= lo - slack && v <= hi + slack)) return;
  char text[160];
  std::snprintf(text, sizeof text, ": %g is outside its range [%g, %g]", v, lo, hi);
  throw StudyError(where + text);
}
void check_ranges(const std::vector<double>& values, double lo, double hi,
                  const std::string& where) {
  for (double v : values) check_range(v, lo, hi, where);
}

// One line of records.jsonl, checked against the study's shape: `heads` of
// every layer, one figure per threshold, the functional results when asked.
namespace {

// One head of a record: its sinks, taxonomy votes and alpha_0.
void head_from_json(const json& h, SentenceRecord& r, const std::string& where) {
  std::vector<analysis::SinkOccurrence> sinks;
  for (const json& s : h.at("s")) {
    const int position = whole_int(s.at(1), 0, 1 << 24, where + ": sink position");
    if (position < 0 || position >= r.tokens)
      throw StudyError(where + ": a sink position outside the sentence");
    sinks.push_back({s.at(0).get<std::string>(), position});
  }
  r.sinks.push_back(std::move(sinks));
  const json& v = h.at("v");
  analysis::TaxonomyVotes votes;
  votes.sink = whole_int(v.at(0), 0, 1 << 24, where + ": taxonomy votes");
  votes.current = whole_int(v.at(1), 0, 1 << 24, where + ": taxonomy votes");
  votes.other = whole_int(v.at(2), 0, 1 << 24, where + ": taxonomy votes");
  if (votes.sink < 0 || votes.current < 0 || votes.other < 0 || votes.total() > r.tokens)
    throw StudyError(where + ": taxonomy votes out of range");
  r.votes.push_back(votes);
  r.alpha0.push_back(parse_hex_double(h.at("a"), where + ": alpha0"));
  check_range(r.alpha0.back(), 0.0, 1.0, where + ": alpha0");
  // The value geometry: absent from studies recorded before it was kept.
  if (!h.contains("vg")) return;
  const std::vector<double> g = parse_hex_doubles(h.at("vg"), 4, where + ": value geometry", true);
  check_range(g[0], 0.0, 1e30, where + ": value geometry: lambda");
  check_range(g[1], 0.0, 1e30, where + ": value geometry: norm_cv");
  check_range(g[2], 0.0, 1.0, where + ": value geometry: coherence_max");
  check_range(g[3], 0.0, 2.0, where + ": value geometry: sink_alignment_range");
  r.valueGeometry.push_back({g[0], g[1], g[2], g[3]});
}

// One layer's figures of a record, each in the range it can take.
LayerFigures layer_figures_from_json(const json& l, int tokens, std::size_t thresholds,
                                     const std::string& where) {
  LayerFigures f;
  f.sinkConcentration = parse_hex_double(l.at("c"), where + ": sink concentration", true);
  f.alpha0 = parse_hex_double(l.at("a"), where + ": layer alpha0", true);
  f.boost = parse_hex_double(l.at("b"), where + ": boost", true);
  f.bars0 = parse_hex_double(l.at("h0"), where + ": bars0", true);
  f.bars1 = parse_hex_double(l.at("h1"), where + ": bars1", true);
  f.fN = parse_hex_double(l.at("f"), where + ": F_N", true);
  f.fNRandom = parse_hex_double(l.at("fr"), where + ": random F_N", true);
  f.fiedler = parse_hex_doubles(l.at("fiedler"), thresholds, where + ": fiedler", true);
  f.centralisation = parse_hex_doubles(l.at("cz"), thresholds, where + ": centralisation", true);
  // Shares and their means in [0, 1] (concentration in %), boost at most
  // 1 / u0 <= T, bar counts at most the edges, a Laplacian's eigenvalue at
  // most n, Freeman's centralisation at most 1 (a star).
  const double T = static_cast<double>(tokens);
  check_range(f.sinkConcentration, 0.0, 100.0, where + ": sink concentration");
  check_range(f.alpha0, 0.0, 1.0, where + ": layer alpha0");
  check_range(f.boost, 0.0, T, where + ": boost");
  check_range(f.bars0, 0.0, T * T, where + ": bars0");
  check_range(f.bars1, 0.0, T * T, where + ": bars1");
  check_range(f.fN, 0.0, 1.0, where + ": F_N");
  check_range(f.fNRandom, 0.0, 1.0, where + ": random F_N");
  check_ranges(f.fiedler, 0.0, T, where + ": fiedler");
  check_ranges(f.centralisation, 0.0, 1.0, where + ": centralisation");
  return f;
}

// One layer's curves of a record: alpha_k for each token, the Betti curves on
// the study's grid, F_N for N = 1 .. the keys the query sees (at most T).
LayerCurves layer_curves_from_json(const json& l, std::size_t T, std::size_t grid,
                                   const std::string& where) {
  LayerCurves lc;
  lc.alpha = parse_hex_doubles(l.at("a"), T, where + ": curves: alpha", true);
  lc.alphaUniform = parse_hex_doubles(l.at("u"), T, where + ": curves: uniform alpha", true);
  lc.bettiGrid = parse_hex_doubles(l.at("e"), grid, where + ": curves: Betti grid", true);
  lc.beta0 = parse_hex_doubles(l.at("b0"), grid, where + ": curves: beta0", true);
  lc.beta1 = parse_hex_doubles(l.at("b1"), grid, where + ": curves: beta1", true);
  const std::size_t keys = l.at("f").is_array() ? l.at("f").size() : 0;
  if (keys > T) throw StudyError(where + ": curves: F_N for more keys than tokens");
  lc.fN = parse_hex_doubles(l.at("f"), keys, where + ": curves: F_N", true);
  lc.fNRandom = parse_hex_doubles(l.at("fr"), keys, where + ": curves: random F_N", true);
  check_ranges(lc.alpha, 0.0, 1.0, where + ": curves: alpha");
  check_ranges(lc.alphaUniform, 0.0, 1.0, where + ": curves: uniform alpha");
  check_ranges(lc.bettiGrid, 0.0, 1e6, where + ": curves: Betti grid");
  check_ranges(lc.beta0, 0.0, static_cast<double>(T) * static_cast<double>(T),
               where + ": curves: beta0");
  check_ranges(lc.beta1, 0.0, static_cast<double>(T) * static_cast<double>(T),
               where + ": curves: beta1");
  check_ranges(lc.fN, 0.0, 1.0, where + ": curves: F_N");
  check_ranges(lc.fNRandom, 0.0, 1.0, where + ": curves: random F_N");
  // The other per-N curves: each absent from studies recorded before it.
  for (const PerNCurve& c : per_n_curves()) {
    if (!l.contains(c.key)) continue;
    const std::string what = where + ": curves: " + c.what;
    lc.*c.values = parse_hex_doubles(l.at(c.key), keys, what, true);
    check_ranges(lc.*c.values, c.lo, c.hi, what);
  }
  return lc;
}

// The three head classes' trajectories of a record: their heads add up to
// every head; each curve has one value per N the value-space query sees (as F_N).
std::vector<ClassTrajectories> class_curves_from_json(const json& cs, const SentenceRecord& r,
                                                      std::size_t heads, const std::string& where) {
  if (!cs.is_array() || cs.size() != 3)
    throw StudyError(where + ": classes: one entry per head class (3) is needed");
  const std::size_t keys = r.curves.empty() ? 0 : r.curves.front().fN.size();
  std::vector<ClassTrajectories> out;
  std::size_t counted = 0;
  for (const json& c : cs) {
    ClassTrajectories t;
    t.heads = whole_int(c.at("h"), 0, 1 << 24, where + ": classes: heads");
    counted += static_cast<std::size_t>(t.heads);
    for (const ClassCurve& curve : class_curves()) {
      const std::string what = where + ": classes: " + curve.key;
      t.*curve.values = parse_hex_doubles(c.at(curve.key), keys, what, true);
      check_ranges(t.*curve.values, curve.lo, curve.hi, what);
    }
    out.push_back(std::move(t));
  }
  if (counted != heads)
    throw StudyError(where + ": classes: " + std::to_string(counted) +
                     " heads classed, the study has " + std::to_string(heads));
  return out;
}

// A record's curves at the study's context lengths: one per length the
// sentence reaches, in the study's order, each L numbers in [0, 1].
std::vector<ContextCurves> context_curves_from_json(const json& cs, const SentenceRecord& r,
                                                    const StudyFile& study,
                                                    const std::string& where) {
  const std::vector<int>& lengths = study.params.contextLengths;
  if (!cs.is_array() || cs.size() > lengths.size())
    throw StudyError(where + ": ctx: more context lengths than the study has");
  std::vector<ContextCurves> out;
  for (const json& c : cs) {
    ContextCurves curves;
    curves.length = whole_int(c.at("L"), 2, kMaxContextLength, where + ": ctx: L");
    if (std::find(lengths.begin(), lengths.end(), curves.length) == lengths.end() ||
        curves.length > r.tokens || (!out.empty() && curves.length <= out.back().length))
      throw StudyError(where + ": ctx: length " + std::to_string(curves.length) +
                       " is not one of the study's that the sentence reaches, in order");
    const auto n = static_cast<std::size_t>(curves.length);
    curves.precision = parse_hex_doubles(c.at("p"), n, where + ": ctx: precision", true);
    curves.recall = parse_hex_doubles(c.at("r"), n, where + ": ctx: recall", true);
    check_ranges(curves.precision, 0.0, 1.0, where + ": ctx: precision");
    check_ranges(curves.recall, 0.0, 1.0, where + ": ctx: recall");
    out.push_back(std::move(curves));
  }
  return out;
}

}  // namespace

SentenceRecord record_from_json(const json& j, const StudyFile& study, const std::string& where) {
  const auto heads = static_cast<std::size_t>(study.layers) * static_cast<std::size_t>(study.heads);
  const std::size_t thresholds = study.params.thresholds.size();
  SentenceRecord r;
  try {
    r.index = static_cast<std::size_t>(whole(j.at("i"), 0, 1LL << 32, where + ": i"));
    r.text = j.at("text").get<std::string>();
    r.tokens = whole_int(j.at("T"), 1, 1 << 24, where + ": T");
    if (r.tokens < 1 || r.tokens > (1 << 24))
      throw StudyError(where + ": token count out of range");
    r.firstSpecial = j.at("first").get<std::string>();
    r.lastSpecial = j.at("last").get<std::string>();
    r.uniformBaseline0 = parse_hex_double(j.at("u0"), where + ": u0");
    // The uniform head's alpha_0 lies between 1/T (every query sees every
    // key) and 1 (a causal sentence of one token).
    if (!(r.uniformBaseline0 > 0)) throw StudyError(where + ": u0 must be positive");
    check_range(r.uniformBaseline0, 1.0 / r.tokens, 1.0, where + ": u0");
    const json& hs = j.at("heads");
    if (!hs.is_array() || hs.size() != heads)
      throw StudyError(where + ": " + std::to_string(hs.is_array() ? hs.size() : 0) +
                       " heads recorded, the study has " + std::to_string(heads));
    for (const json& h : hs) head_from_json(h, r, where);
    if (r.valueGeometry.size() != r.alpha0.size()) r.valueGeometry.clear();  // some heads lack it
    const json& ls = j.at("layers");
    if (!ls.is_array() || ls.size() != static_cast<std::size_t>(study.layers))
      throw StudyError(where + ": layer figures for " +
                       std::to_string(ls.is_array() ? ls.size() : 0) + " layers, the study has " +
                       std::to_string(study.layers));
    for (const json& l : ls)
      r.layers.push_back(layer_figures_from_json(l, r.tokens, thresholds, where));
    if (study.params.functional) {
      r.kl = parse_hex_doubles(j.at("kl"), static_cast<std::size_t>(study.layers) + 1,
                               where + ": kl", true);
      r.bosDeltaNll = parse_hex_double(j.at("bos"), where + ": bos", true);
      // KL is never negative; a change of mean NLL in nats stays far below 1e6.
      check_ranges(r.kl, 0.0, 1e6, where + ": kl");
      check_range(r.bosDeltaNll, -1e6, 1e6, where + ": bos");
    }
    if (study.params.curves) {
      const json& cs = j.at("curves");
      if (!cs.is_array() || cs.size() != static_cast<std::size_t>(study.layers))
        throw StudyError(where + ": curves for " + std::to_string(cs.is_array() ? cs.size() : 0) +
                         " layers, the study has " + std::to_string(study.layers));
      const auto T = static_cast<std::size_t>(r.tokens);
      const auto grid = static_cast<std::size_t>(study.params.bettiPoints);
      for (const json& l : cs) r.curves.push_back(layer_curves_from_json(l, T, grid, where));
      // The head classes' trajectories: absent from studies recorded before them.
      if (j.contains("classes"))
        r.classCurves = class_curves_from_json(j.at("classes"), r, heads, where);
      if (j.contains("ctx"))
        r.contextCurves = context_curves_from_json(j.at("ctx"), r, study, where);
      if (j.contains("vc")) value_cosines_from_json(j.at("vc"), r, study, where);
    }
  } catch (const json::exception& e) {
    throw StudyError(where + ": a field is missing or of the wrong type (" + e.what() + ")");
  }
  return r;
}

Manifest read_manifest(const fs::path& folder, const StudyFile& study) {
  const fs::path file = folder / "manifest.json";
  const json m = parse_json(read_study_file(file, kMaxSmallFile), file);
  Manifest out;
  try {
    if (m.at("study_key").get<std::string>() != study.key)
      throw StudyError(file.string() +
                       ": made for a study with other inputs or parameters (study_key differs)");
    out.shard.index = whole_int(m.at("shard"), 0, 100000, file.string() + ": shard");
    out.shard.count = whole_int(m.at("shards"), 1, 100000, file.string() + ": shards");
    out.first =
        static_cast<std::size_t>(whole(m.at("first"), 0, 1LL << 32, file.string() + ": first"));
    out.end = static_cast<std::size_t>(whole(m.at("end"), 0, 1LL << 32, file.string() + ": end"));
  } catch (const json::exception& e) {
    throw StudyError(file.string() + ": a field is missing or of the wrong type (" + e.what() +
                     ")");
  }
  if (out.shard.count < 1 || out.shard.index < 0 || out.shard.index >= out.shard.count ||
      shard_range(out.shard, study.sentences, study.params.batch) !=
          std::make_pair(out.first, out.end) ||
      folder.filename() != shard_folder_name(out.shard))
    throw StudyError(file.string() + ": shard and sentence range do not match the study");
  return out;
}

// The finished shards of a study: folder -> manifest.
// A folder of a study must be a real folder (or absent): a link would read
// records from, or write tables to, somewhere outside the study.
void refuse_linked_folder(const fs::path& folder) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(folder, ec);
  if (st.type() == fs::file_type::not_found) return;
  if (st.type() == fs::file_type::symlink)
    throw StudyError(folder.string() +
                     ": is a link; every folder of a study must be a real folder "
                     "inside it");
  if (st.type() != fs::file_type::directory)
    throw StudyError(folder.string() + ": exists and is not a folder");
}

std::map<std::string, Manifest> finished_shards(const fs::path& dir, const StudyFile& study,
                                                std::vector<std::string>* unfinished) {
  std::map<std::string, Manifest> out;
  const fs::path shards = dir / "shards";
  refuse_linked_folder(shards);
  std::error_code ec;
  if (!fs::is_directory(shards, ec)) return out;
  for (const auto& entry : fs::directory_iterator(shards, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(".tmp-", 0) == 0) {
      if (unfinished) unfinished->push_back(name);
      continue;
    }
    if (name.rfind("shard-", 0) != 0 || !entry.is_directory() || entry.is_symlink()) continue;
    out.emplace(name, read_manifest(entry.path(), study));
  }
  return out;
}

// The ranges [first, end) of [0, total) that no range of `covered` holds.
// Sized by the ranges, never by `total`: a study.json may claim 2^32
// sentences, and nothing is allocated for that claim.
std::vector<std::pair<std::size_t, std::size_t>> uncovered(
    std::vector<std::pair<std::size_t, std::size_t>> covered, std::size_t total) {
  std::sort(covered.begin(), covered.end());
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t next = 0;  // the first sentence not known to be covered
  for (const auto& [first, end] : covered) {
    if (first > next) out.emplace_back(next, std::min(first, total));
    next = std::max(next, end);
    if (next >= total) break;
  }
  if (next < total) out.emplace_back(next, total);
  return out;
}

std::string ranges_text(const std::vector<std::pair<std::size_t, std::size_t>>& ranges) {
  std::string out;
  for (const auto& [a, b] : ranges)
    out += (out.empty() ? "" : ", ") +
           (b == a + 1 ? std::to_string(a) : std::to_string(a) + "-" + std::to_string(b - 1));
  return out;
}

}  // namespace study_format

using namespace study_format;

ShardId parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  ShardId s;
  try {
    std::size_t used = 0;
    if (slash == std::string::npos) throw std::invalid_argument("");
    s.index = std::stoi(text.substr(0, slash), &used);
    if (used != slash) throw std::invalid_argument("");
    s.count = std::stoi(text.substr(slash + 1), &used);
    if (used != text.size() - slash - 1) throw std::invalid_argument("");
  } catch (const std::exception&) {
    throw std::invalid_argument("--shard \"" + text + "\": give I/N, e.g. 0/4");
  }
  if (s.count < 1 || s.count > 100000 || s.index < 0 || s.index >= s.count)
    throw std::invalid_argument("--shard \"" + text + "\": need 0 <= I < N <= 100000");
  return s;
}

std::string shard_folder_name(ShardId shard) {
  return "shard-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.count);
}

StudyStatus study_status(const fs::path& dir) {
  const StudyFile study = read_study(dir);
  StudyStatus s;
  s.sentences = study.sentences;
  std::vector<std::pair<std::size_t, std::size_t>> covered;
  for (const auto& [name, m] : finished_shards(dir, study, &s.unfinished)) {
    s.complete.push_back(name);
    covered.emplace_back(m.first, m.end);
  }
  s.missing = uncovered(std::move(covered), study.sentences);
  return s;
}

namespace study_format {

// The finished shards' records in sentence order, each checked against the
// study; the sentences without one in `missing`.
std::vector<SentenceRecord> read_records(
    const fs::path& dir, const StudyFile& study,
    std::vector<std::pair<std::size_t, std::size_t>>& missing) {
  std::map<std::size_t, SentenceRecord> bySentence;  // by what the shards hold, not the claim
  std::vector<std::pair<std::size_t, std::size_t>> covered;
  for (const auto& [name, m] : finished_shards(dir, study)) {
    const fs::path file = dir / "shards" / name / "records.jsonl";
    std::istringstream lines(read_study_file(file, kMaxRecordsFile));
    std::size_t lineNumber = 0, count = 0;
    for (std::string line; std::getline(lines, line);) {
      ++lineNumber;
      if (line.empty()) continue;
      const std::string where = file.string() + ":" + std::to_string(lineNumber);
      if (line.size() > kMaxRecordLine) throw StudyError(where + ": line too long");
      SentenceRecord r = record_from_json(parse_json(line, where), study, where);
      if (r.index < m.first || r.index >= m.end)
        throw StudyError(where + ": sentence " + std::to_string(r.index) +
                         " outside the shard's range");
      bySentence.try_emplace(r.index, std::move(r));
      ++count;
    }
    if (count != m.end - m.first)
      throw StudyError(file.string() + ": " + std::to_string(count) +
                       " records, the manifest says " + std::to_string(m.end - m.first));
  }
  std::vector<SentenceRecord> records;
  records.reserve(bySentence.size());
  for (auto& [index, record] : bySentence) {
    if (!covered.empty() && covered.back().second == index)
      ++covered.back().second;
    else
      covered.emplace_back(index, index + 1);
    records.push_back(std::move(record));
  }
  missing = uncovered(std::move(covered), study.sentences);
  return records;
}

}  // namespace study_format

StudyRecords study_records(const fs::path& dir) {
  const StudyFile study = read_study(dir);
  StudyRecords out;
  std::vector<std::pair<std::size_t, std::size_t>> missing;
  out.records = read_records(dir, study, missing);
  if (!missing.empty())
    throw StudyError(dir.string() + ": sentences " + ranges_text(missing) +
                     " have no finished shard (run the missing shards first)");
  out.layers = study.layers;
  out.heads = study.heads;
  out.encoder = study.encoder;
  out.params = study.params;
  out.model = study.description.value("model", "");
  out.modelFolder = study.description.value("model_folder", "");
  out.sentencesFile = study.description.value("sentences_file", "");
  for (const char* key : {"model_config_sha256", "tokenizer_sha256", "sentences_sha256"}) {
    const auto it = study.description.find(key);
    if (it != study.description.end() && it->is_string()) out.hashes[key] = it->get<std::string>();
  }
  return out;
}

}  // namespace sinkscope::document
