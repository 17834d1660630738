#include "app/study.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>

#include "analysis/table_io.h"
#include "app/corpus_pool.h"
#include "models/json_bounded.h"
#include "models/input_files.h"
#include "models/model_identity.h"

namespace sinkscope::app {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr const char* kFormat = "sinkscope-study";
constexpr int kVersion = 2;  // 2: layer profiles, functional experiments, sentence texts
constexpr std::uintmax_t kMaxSmallFile = 1 << 20;              // study.json, manifest.json
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
  const bool fits = j.is_number_integer() &&
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

// The interventions of a study, exactly (doubles as hex_double).
json intervention_json(const models::Intervention& iv) {
  json removals = json::array();
  for (const auto& r : iv.removeSinks)
    removals.push_back({{"percentile", hex_double(r.percentile)},
                        {"gamma", hex_double(r.gamma)},
                        {"before_softmax", r.beforeSoftmax},
                        {"layers", r.layers},
                        {"heads", r.heads}});
  json ablate = json::array();
  for (const auto& [l, h] : iv.ablateHeads) ablate.push_back({l, h});
  return {{"drop_first", iv.dropFirstToken},
          {"remove_sinks", removals},
          {"ablate", ablate},
          {"rope_theta", iv.ropeTheta ? json(hex_double(*iv.ropeTheta)) : json(nullptr)},
          {"ntk_scale", hex_double(iv.ntkScale)}};
}

models::Intervention intervention_from_json(const json& j, const std::string& where) {
  models::Intervention iv;
  iv.dropFirstToken = j.at("drop_first").get<bool>();
  const json& removals = j.at("remove_sinks");
  if (!removals.is_array() || removals.size() > 64) throw StudyError(where + ": remove_sinks");
  for (const json& r : removals) {
    models::SinkRemoval removal;
    removal.percentile = parse_hex_double(r.at("percentile"), where + ": percentile");
    removal.gamma = parse_hex_double(r.at("gamma"), where + ": gamma");
    removal.beforeSoftmax = r.at("before_softmax").get<bool>();
    removal.layers = whole_ints(r.at("layers"), 4096, 4095, where + ": layers");
    removal.heads = whole_ints(r.at("heads"), 4096, 4095, where + ": heads");
    iv.removeSinks.push_back(std::move(removal));
  }
  const json& ablate = j.at("ablate");
  if (!ablate.is_array() || ablate.size() > (1u << 20)) throw StudyError(where + ": ablate");
  for (const json& pair : ablate)
    iv.ablateHeads.emplace_back(whole_int(pair.at(0), 0, 4095, where + ": ablate"),
                                whole_int(pair.at(1), 0, 4095, where + ": ablate"));
  if (!j.at("rope_theta").is_null())
    iv.ropeTheta = parse_hex_double(j.at("rope_theta"), where + ": rope_theta");
  iv.ntkScale = parse_hex_double(j.at("ntk_scale"), where + ": ntk_scale");
  return iv;
}

std::string sink_mode_name(const AnalyzeParams& p) {
  return p.columnSumSinks ? "column-sum" : "percentile";
}
std::string denominator_name(const AnalyzeParams& p) {
  return p.sinkDenominator == analysis::SinkSetParams::Denominator::AllQueries ? "all" : "visible";
}

// Everything that decides a study's numbers; a shard made under another
// description is never merged with this one.
json study_description(const StudyInputs& in, const models::LoadedModel& loaded) {
  const models::ModelConfig& c = loaded.model->config();
  const models::ModelIdentity id = models::model_identity(loaded.model->folder());
  json weights = json::array();
  for (const auto& [name, bytes] : id.weightFiles) weights.push_back({name, bytes});
  const AnalyzeParams& p = in.params;
  return {{"format", kFormat},
          {"version", kVersion},
          {"tool", std::string("sinkscope-cli ") + SINKSCOPE_VERSION},
          {"model", in.modelSpec},
          {"model_folder", loaded.model->folder().string()},
          {"model_config_sha256", id.configSha256},
          {"tokenizer_sha256", id.tokenizerSha256},
          {"weight_files", weights},
          {"layers", c.num_layers},
          {"heads", c.num_heads},
          {"encoder", !c.causal},
          {"sentences_file", in.sentencesFile.string()},
          {"sentences_sha256", in.sentencesSha256},
          {"sentences", in.sentences.size()},
          {"params",
           {{"percentile", hex_double(p.percentile)},
            {"gamma", hex_double(p.gamma)},
            {"eps", hex_double(p.eps)},
            {"specialised_share", hex_double(p.specialisedShare)},
            {"sink_mode", sink_mode_name(p)},
            {"sink_denominator", denominator_name(p)},
            {"top_n", p.topN},
            {"query", p.query},
            {"random_subsets", p.randomSubsets},
            {"seed", std::to_string(p.seed)},
            {"min_persistence", hex_double(p.minPersistence)},
            {"betti_points", p.bettiPoints},
            {"symmetrise", p.symmetriseByMax ? "max" : "mean"},
            {"thresholds", hex_doubles(p.thresholds)},
            {"functional", p.functional},
            {"batch", p.batch},
            {"interventions", intervention_json(p.intervention)}}}};
}

// Studies that record the figure set's curves say so; others keep the
// description (and study key) they had before curves existed.
json with_curves(json description, const AnalyzeParams& p) {
  if (p.curves) description["params"]["curves"] = true;
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

struct StudyFile {
  json description;
  std::string key;
  std::size_t sentences = 0;
  int layers = 0, heads = 0;
  bool encoder = false;
  AnalyzeParams params;
};

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
    const json& p = d.at("params");
    s.params.percentile = parse_hex_double(p.at("percentile"), file.string() + ": percentile");
    s.params.gamma = parse_hex_double(p.at("gamma"), file.string() + ": gamma");
    s.params.eps = parse_hex_double(p.at("eps"), file.string() + ": eps");
    s.params.specialisedShare =
        parse_hex_double(p.at("specialised_share"), file.string() + ": specialised_share");
    s.params.columnSumSinks = p.at("sink_mode").get<std::string>() == "column-sum";
    s.params.sinkDenominator = p.at("sink_denominator").get<std::string>() == "all"
                                   ? analysis::SinkSetParams::Denominator::AllQueries
                                   : analysis::SinkSetParams::Denominator::VisibleQueries;
    s.params.topN = whole_int(p.at("top_n"), 1, 100000, file.string() + ": top_n");
    s.params.query = whole_int(p.at("query"), -1, 1 << 24, file.string() + ": query");
    s.params.randomSubsets =
        whole_int(p.at("random_subsets"), 0, 100000, file.string() + ": random_subsets");
    s.params.seed = std::stoull(p.at("seed").get<std::string>());
    s.params.minPersistence = parse_hex_double(p.at("min_persistence"), file.string() + ": min_persistence");
    s.params.bettiPoints = whole_int(p.at("betti_points"), 2, 100000, file.string() + ": betti_points");
    s.params.symmetriseByMax = p.at("symmetrise").get<std::string>() == "max";
    const json& thresholds = p.at("thresholds");
    if (!thresholds.is_array() || thresholds.empty() || thresholds.size() > 32)
      throw StudyError(file.string() + ": thresholds: 1 to 32 numbers");
    s.params.thresholds = parse_hex_doubles(thresholds, thresholds.size(), file.string() + ": thresholds");
    s.params.functional = p.at("functional").get<bool>();
    s.params.curves = p.value("curves", false);
    s.params.batch = whole_int(p.at("batch"), 1, 4096, file.string() + ": batch");
    s.params.intervention = intervention_from_json(p.at("interventions"), file.string() + ": interventions");
    if (s.params.topN < 1 || s.params.topN > 100000 || s.params.randomSubsets < 0 ||
        s.params.randomSubsets > 100000 || s.params.bettiPoints < 2 || s.params.bettiPoints > 100000 ||
        s.params.batch < 1 || s.params.batch > 4096)
      throw StudyError(file.string() + ": top_n, random_subsets, betti_points or batch out of range");
  } catch (const json::exception& e) {
    throw StudyError(file.string() + ": a field is missing or of the wrong type (" + e.what() + ")");
  } catch (const std::logic_error& e) {  // std::stoull
    throw StudyError(file.string() + ": seed is not a number");
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
  return {std::min(sentences, i * blocks / n * size), std::min(sentences, (i + 1) * blocks / n * size)};
}

json record_to_json(const SentenceRecord& r) {
  json heads = json::array();
  for (std::size_t k = 0; k < r.sinks.size(); ++k) {
    json sinks = json::array();
    for (const auto& s : r.sinks[k]) sinks.push_back({s.token, s.position});
    heads.push_back({{"s", sinks},
                     {"v", {r.votes[k].sink, r.votes[k].current, r.votes[k].other}},
                     {"a", hex_double(r.alpha0[k])}});
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
  json out = {{"i", r.index},
              {"text", r.text},
              {"T", r.tokens},
              {"first", r.firstSpecial},
              {"last", r.lastSpecial},
              {"u0", hex_double(r.uniformBaseline0)},
              {"heads", heads},
              {"layers", layers}};
  if (!r.kl.empty()) {
    out["kl"] = hex_doubles(r.kl);
    out["bos"] = hex_double(r.bosDeltaNll);
  }
  if (!r.curves.empty()) {
    json curves = json::array();
    for (const LayerCurves& lc : r.curves)
      curves.push_back({{"a", hex_doubles(lc.alpha)},
                        {"u", hex_doubles(lc.alphaUniform)},
                        {"e", hex_doubles(lc.bettiGrid)},
                        {"b0", hex_doubles(lc.beta0)},
                        {"b1", hex_doubles(lc.beta1)},
                        {"f", hex_doubles(lc.fN)},
                        {"fr", hex_doubles(lc.fNRandom)}});
    out["curves"] = curves;
  }
  return out;
}

// One line of records.jsonl, checked against the study's shape: `heads` of
// every layer, one figure per threshold, the functional results when asked.
SentenceRecord record_from_json(const json& j, const StudyFile& study, const std::string& where) {
  const auto heads = static_cast<std::size_t>(study.layers) * static_cast<std::size_t>(study.heads);
  const std::size_t thresholds = study.params.thresholds.size();
  SentenceRecord r;
  try {
    r.index = static_cast<std::size_t>(whole(j.at("i"), 0, 1LL << 32, where + ": i"));
    r.text = j.at("text").get<std::string>();
    r.tokens = whole_int(j.at("T"), 1, 1 << 24, where + ": T");
    if (r.tokens < 1 || r.tokens > (1 << 24)) throw StudyError(where + ": token count out of range");
    r.firstSpecial = j.at("first").get<std::string>();
    r.lastSpecial = j.at("last").get<std::string>();
    r.uniformBaseline0 = parse_hex_double(j.at("u0"), where + ": u0");
    if (!(r.uniformBaseline0 > 0)) throw StudyError(where + ": u0 must be positive");
    const json& hs = j.at("heads");
    if (!hs.is_array() || hs.size() != heads)
      throw StudyError(where + ": " + std::to_string(hs.is_array() ? hs.size() : 0) +
                       " heads recorded, the study has " + std::to_string(heads));
    for (const json& h : hs) {
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
    }
    const json& ls = j.at("layers");
    if (!ls.is_array() || ls.size() != static_cast<std::size_t>(study.layers))
      throw StudyError(where + ": layer figures for " + std::to_string(ls.is_array() ? ls.size() : 0) +
                       " layers, the study has " + std::to_string(study.layers));
    for (const json& l : ls) {
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
      r.layers.push_back(std::move(f));
    }
    if (study.params.functional) {
      r.kl = parse_hex_doubles(j.at("kl"), static_cast<std::size_t>(study.layers) + 1,
                               where + ": kl", true);
      r.bosDeltaNll = parse_hex_double(j.at("bos"), where + ": bos", true);
    }
    if (study.params.curves) {
      // Every layer's curves: alpha_k for each token, the Betti curves on the
      // study's grid, F_N for N = 1 .. the keys the query sees (at most T).
      const json& cs = j.at("curves");
      if (!cs.is_array() || cs.size() != static_cast<std::size_t>(study.layers))
        throw StudyError(where + ": curves for " + std::to_string(cs.is_array() ? cs.size() : 0) +
                         " layers, the study has " + std::to_string(study.layers));
      const auto T = static_cast<std::size_t>(r.tokens);
      const auto grid = static_cast<std::size_t>(study.params.bettiPoints);
      for (const json& l : cs) {
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
        r.curves.push_back(std::move(lc));
      }
    }
  } catch (const json::exception& e) {
    throw StudyError(where + ": a field is missing or of the wrong type (" + e.what() + ")");
  }
  return r;
}

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string("unknown");
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buffer;
}

// A finished shard's manifest, checked against the study.
struct Manifest {
  ShardId shard;
  std::size_t first = 0, end = 0;
};

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
    out.first = static_cast<std::size_t>(whole(m.at("first"), 0, 1LL << 32, file.string() + ": first"));
    out.end = static_cast<std::size_t>(whole(m.at("end"), 0, 1LL << 32, file.string() + ": end"));
  } catch (const json::exception& e) {
    throw StudyError(file.string() + ": a field is missing or of the wrong type (" + e.what() + ")");
  }
  if (out.shard.count < 1 || out.shard.index < 0 || out.shard.index >= out.shard.count ||
      shard_range(out.shard, study.sentences, study.params.batch) != std::make_pair(out.first, out.end) ||
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
    throw StudyError(folder.string() + ": is a link; every folder of a study must be a real folder "
                     "inside it");
  if (st.type() != fs::file_type::directory)
    throw StudyError(folder.string() + ": exists and is not a folder");
}

std::map<std::string, Manifest> finished_shards(const fs::path& dir, const StudyFile& study,
                                                std::vector<std::string>* unfinished = nullptr) {
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
    out += (out.empty() ? "" : ", ") + (b == a + 1 ? std::to_string(a)
                                                   : std::to_string(a) + "-" + std::to_string(b - 1));
  return out;
}

}  // namespace

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

std::string study_run(const fs::path& dir, const StudyInputs& inputs, ShardId shard,
                      const models::LoadedModel& loaded, std::ostream& progress) {
  if (inputs.sentences.empty()) throw StudyError(inputs.sentencesFile.string() + ": no sentence");
  const json description = with_curves(study_description(inputs, loaded), inputs.params);
  const fs::path studyFile = dir / "study.json";
  std::error_code ec;
  refuse_linked_folder(dir / "shards");
  fs::create_directories(dir / "shards", ec);
  if (ec) throw StudyError(dir.string() + ": cannot create the study folder (" + ec.message() + ")");
  if (fs::exists(fs::symlink_status(studyFile, ec))) {
    const json stored = parse_json(read_study_file(studyFile, kMaxSmallFile), studyFile);
    const auto differ = differences(stored, description);
    if (!differ.empty()) {
      std::string list;
      for (const auto& d : differ) list += (list.empty() ? "" : ", ") + d;
      throw StudyError(studyFile.string() +
                       ": this study was made with other inputs or parameters (" + list +
                       " differ); use another --out folder");
    }
  } else {
    try {
      analysis::files_write_atomic({{studyFile, description.dump(1) + "\n"}}, false);
    } catch (const std::exception&) {
      // Another task of the same array may have written it first: check it below.
    }
  }
  const StudyFile study = read_study(dir);
  if (!differences(study.description, description).empty())
    throw StudyError(studyFile.string() + ": written concurrently with other inputs");

  const fs::path final = dir / "shards" / shard_folder_name(shard);
  if (fs::exists(fs::symlink_status(final / "manifest.json", ec))) {
    read_manifest(final, study);  // throws when it belongs to other inputs
    return "already complete";
  }
  // Folders left by killed tasks of this shard are removed; each task works
  // in a folder of its own and renames it into place when it is done.
  for (const auto& entry : fs::directory_iterator(dir / "shards", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(".tmp-" + shard_folder_name(shard) + "-", 0) == 0) fs::remove_all(entry.path(), ec);
  }
  const fs::path work = dir / "shards" /
                        (".tmp-" + shard_folder_name(shard) + "-" + host_name() + "-" +
                         std::to_string(::getpid()));
  fs::create_directories(work, ec);
  if (ec) throw StudyError(work.string() + ": cannot be created (" + ec.message() + ")");

  const auto [first, end] = shard_range(shard, inputs.sentences.size(), inputs.params.batch);
  const auto started = std::chrono::steady_clock::now();
  const auto report = [&, first = first, end = end](std::size_t done) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const std::size_t total = end - first;
    const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0.0;
    char line[160];
    std::snprintf(line, sizeof line, "study %s: %zu/%zu sentences, %.1f per second, ETA %.0f s\n",
                  shard_folder_name(shard).c_str(), done, total, rate,
                  rate > 0 ? static_cast<double>(total - done) / rate : 0.0);
    progress << line << std::flush;
  };
  std::string records;
  for (const SentenceRecord& r : corpus_records(loaded, inputs.sentences, first, end, inputs.params, report)) {
    records += record_to_json(r).dump();
    records += '\n';
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const json manifest{{"study_key", study.key},
                      {"shard", shard.index},
                      {"shards", shard.count},
                      {"first", first},
                      {"end", end},
                      {"records", end - first},
                      {"seconds", seconds},
                      {"host", host_name()},
                      {"tool", std::string("sinkscope-cli ") + SINKSCOPE_VERSION},
                      {"finished", utc_now()}};
  analysis::files_write_atomic(
      {{work / "records.jsonl", records}, {work / "manifest.json", manifest.dump(1) + "\n"}}, false);
  fs::rename(work, final, ec);
  if (ec) {  // another task finished this shard first
    fs::remove_all(work, ec);
    return "already complete";
  }
  return "written";
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

namespace {

// The finished shards' records in sentence order, each checked against the
// study; the sentences without one in `missing`.
std::vector<SentenceRecord> read_records(const fs::path& dir, const StudyFile& study,
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
      throw StudyError(file.string() + ": " + std::to_string(count) + " records, the manifest says " +
                       std::to_string(m.end - m.first));
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

}  // namespace

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

std::vector<fs::path> study_merge(const fs::path& dir, bool partial, bool force, int bootstrap,
                                  unsigned long long bootstrapSeed, const std::string& command) {
  StudyFile study = read_study(dir);
  study.params.bootstrap = bootstrap;
  study.params.bootstrapSeed = bootstrapSeed;
  refuse_linked_folder(dir / "merged");
  std::vector<std::pair<std::size_t, std::size_t>> missing;
  std::vector<SentenceRecord> records = read_records(dir, study, missing);
  if (!missing.empty() && !partial)
    throw StudyError(dir.string() + ": sentences " + ranges_text(missing) +
                     " have no finished shard (run the missing shards, or merge with --partial)");
  if (records.empty()) throw StudyError(dir.string() + ": no finished shard to merge");

  const json& d = study.description;
  std::vector<std::pair<std::string, std::string>> header{
      {"tool", std::string("sinkscope-cli study merge ") + SINKSCOPE_VERSION},
      {"model", d.value("model", "")},
      {"sentences", std::to_string(records.size())},
      {"sentences_missing", missing.empty() ? "none" : ranges_text(missing)}};
  if (!command.empty()) header.emplace_back("command", command);
  for (const auto& line : corpus_header(study.params)) header.push_back(line);
  header.emplace_back("model_config_sha256", d.value("model_config_sha256", ""));
  header.emplace_back("tokenizer_sha256", d.value("tokenizer_sha256", ""));
  header.emplace_back("sentences_file", d.value("sentences_file", ""));
  header.emplace_back("sentences_sha256", d.value("sentences_sha256", ""));
  header.emplace_back("study_key", study.key);
  return corpus_write(corpus_tables(records, study.layers, study.heads, study.encoder, study.params),
                      dir / "merged", header, study.params, force, {}, d.value("model", ""),
                      records.size());
}

namespace {

// `text` as one single-quoted shell word.
std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The study folder as #SBATCH directives name it, inside double quotes (Slurm
// strips them, so spaces are fine). A line break would end the comment and run
// the rest as a command; a quote or backslash would end the quoting; '%' is
// Slurm's file-name pattern: all refused, naming the folder.
std::string directive_folder(const fs::path& dir) {
  const std::string text = dir.string();
  for (unsigned char c : text)
    if (c < 0x20 || c == 0x7f || c == '"' || c == '\\' || c == '%')
      throw StudyError("--out \"" + text +
                       "\": a Slurm batch script cannot name a folder with a line break, "
                       "control character, '\"', '\\' or '%'; use another folder");
  return text;
}

std::string exact(double v) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

// Runs a command (argv, no shell), returns its stdout; throws StudyError with
// its output when it fails.
std::string run_program(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& a : argv) line += (line.empty() ? "" : " ") + shell_quote(a);
  FILE* pipe = popen((line + " 2>&1").c_str(), "r");
  if (!pipe) throw StudyError("cannot run " + argv.front());
  std::string out;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  const int status = pclose(pipe);
  if (status != 0) throw StudyError(argv.front() + " failed: " + out);
  return out;
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

int slurm_shard_count(const fs::path& dir) {
  const fs::path file = dir / "slurm" / "slurm.json";
  const json j = parse_json(read_study_file(file, kMaxSmallFile), file);
  try {
    const int n = whole_int(j.at("shards"), 1, 100000, file.string() + ": shards");
    if (n < 1 || n > 100000) throw StudyError(file.string() + ": shards out of range");
    return n;
  } catch (const json::exception& e) {
    throw StudyError(file.string() + ": a field is missing or of the wrong type (" + e.what() + ")");
  }
}

}  // namespace

std::pair<fs::path, fs::path> study_slurm_write(const fs::path& dirIn, const StudyInputs& inputs,
                                                const models::LoadedModel& loaded,
                                                const SlurmOptions& o) {
  if (o.shards < 1 || o.shards > 100000) throw StudyError("--shards: need 1..100000");
  const auto batch = static_cast<std::size_t>(std::max(1, inputs.params.batch));
  const std::size_t blocks = (inputs.sentences.size() + batch - 1) / batch;
  if (static_cast<std::size_t>(o.shards) > blocks)
    throw StudyError("--shards " + std::to_string(o.shards) + ": the " +
                     std::to_string(inputs.sentences.size()) + " sentences make " +
                     std::to_string(blocks) + " blocks of --batch " + std::to_string(batch) +
                     " (a shard is whole blocks); give at most " + std::to_string(blocks) +
                     " shards or a smaller --batch");
  std::error_code ec;
  const fs::path dir = fs::absolute(dirIn, ec);
  const fs::path sentences = fs::absolute(inputs.sentencesFile, ec);
  const std::string folder = directive_folder(dir);  // before anything is written
  // study.json now: a bad model or sentence file fails here, not in every task.
  const json description = with_curves(study_description(inputs, loaded), inputs.params);
  for (const fs::path& folder : {dir / "shards", dir / "slurm", dir / "slurm" / "logs"})
    refuse_linked_folder(folder);
  fs::create_directories(dir / "shards", ec);
  fs::create_directories(dir / "slurm" / "logs", ec);
  if (ec) throw StudyError(dir.string() + ": cannot create the study folder (" + ec.message() + ")");
  const fs::path studyFile = dir / "study.json";
  if (fs::exists(fs::symlink_status(studyFile, ec))) {
    const json stored = parse_json(read_study_file(studyFile, kMaxSmallFile), studyFile);
    if (!differences(stored, description).empty())
      throw StudyError(studyFile.string() +
                       ": this study was made with other inputs or parameters; use another folder");
  } else {
    analysis::files_write_atomic({{studyFile, description.dump(1) + "\n"}}, false);
  }
  const AnalyzeParams& p = inputs.params;
  std::string options;
  options += " --percentile " + exact(p.percentile) + " --gamma " + exact(p.gamma) + " --eps " +
             exact(p.eps) + " --specialised-share " + exact(p.specialisedShare) +
             " --sink-mode " + sink_mode_name(p) + " --sink-denominator " + denominator_name(p);
  std::string thresholds;
  for (double t : p.thresholds) thresholds += (thresholds.empty() ? "" : ",") + exact(t);
  options += " --top-n " + std::to_string(p.topN) + " --random-subsets " +
             std::to_string(p.randomSubsets) + " --seed " + std::to_string(p.seed) +
             " --min-persistence " + exact(p.minPersistence) + " --symmetrise " +
             (p.symmetriseByMax ? "max" : "mean") + " --thresholds " + thresholds + " --batch " +
             std::to_string(p.batch);
  if (p.query >= 0) options += " --query " + std::to_string(p.query);
  if (p.functional) options += " --functional";
  if (p.curves) options += " --curves";
  // Interventions, as the CLI gives them (sink removal at the study's percentile and gamma).
  const models::Intervention& iv = p.intervention;
  if (iv.dropFirstToken) options += " --drop-first";
  if (!iv.removeSinks.empty()) options += " --remove-sinks";
  if (!iv.ablateHeads.empty()) {
    std::string heads;
    for (const auto& [l, h] : iv.ablateHeads)
      heads += (heads.empty() ? "" : ",") + std::to_string(l) + ":" + std::to_string(h);
    options += " --ablate " + heads;
  }
  if (iv.ropeTheta) options += " --rope-theta " + exact(*iv.ropeTheta);
  if (iv.ntkScale != 1.0) options += " --ntk-scale " + exact(iv.ntkScale);
  std::string head = "#!/bin/bash\n";
  auto directive = [](const std::string& d) { return "#SBATCH " + d + "\n"; };
  std::string common;
  if (!o.partition.empty()) common += directive("--partition=" + o.partition);
  common += directive("--time=" + o.time) + directive("--mem=" + o.memory) +
            directive("--cpus-per-task=" + std::to_string(o.cpus));
  if (o.gpu) common += directive("--gres=gpu:1");
  const std::string n = std::to_string(o.shards);
  const std::string array =
      head + directive("--job-name=sinkscope-study") +
      directive("--array=0-" + std::to_string(o.shards - 1)) +
      directive("--output=\"" + folder + "/slurm/logs/shard-%a-of-" + n + ".out\"") +
      common +
      "# One shard of the study per task (sinkscope-cli study --help). Written by\n"
      "# sinkscope-cli study slurm; submit with sbatch, or with study resubmit.\n"
      "exec " + shell_quote(o.cli.string()) + " study run " + shell_quote(inputs.modelSpec) +
      " --sentences " + shell_quote(sentences.string()) + " --out " + shell_quote(dir.string()) +
      " --shard \"${SLURM_ARRAY_TASK_ID}/" + n + "\" --threads " + std::to_string(o.cpus) +
      options + "\n";
  const std::string merge =
      head + directive("--job-name=sinkscope-study-merge") +
      directive("--output=\"" + folder + "/slurm/logs/merge.out\"") + common +
      "# The merge of every shard, after the array succeeded (afterok).\n"
      "exec " + shell_quote(o.cli.string()) + " study merge " + shell_quote(dir.string()) +
      " --force\n";
  const json slurm{{"shards", o.shards}};
  const fs::path arrayFile = dir / "slurm" / "array.sbatch", mergeFile = dir / "slurm" / "merge.sbatch";
  analysis::files_write_atomic({{arrayFile, array},
                                {mergeFile, merge},
                                {dir / "slurm" / "slurm.json", slurm.dump(1) + "\n"}},
                               true);
  fs::permissions(arrayFile, fs::perms::owner_exec, fs::perm_options::add, ec);
  fs::permissions(mergeFile, fs::perms::owner_exec, fs::perm_options::add, ec);
  return {arrayFile, mergeFile};
}

std::pair<std::string, std::string> study_slurm_submit(const fs::path& dir,
                                                       const std::vector<int>& shards) {
  const fs::path arrayFile = fs::absolute(dir / "slurm" / "array.sbatch");
  const fs::path mergeFile = fs::absolute(dir / "slurm" / "merge.sbatch");
  slurm_shard_count(dir);  // a study with a Slurm setup
  std::vector<std::string> array{"sbatch", "--parsable"};
  if (!shards.empty()) {
    std::string list;
    for (int s : shards) list += (list.empty() ? "" : ",") + std::to_string(s);
    array.push_back("--array=" + list);
  }
  array.push_back(arrayFile.string());
  // --parsable prints "JOBID" or "JOBID;CLUSTER".
  std::string arrayJob = trimmed(run_program(array));
  arrayJob = arrayJob.substr(0, arrayJob.find(';'));
  std::string mergeJob = trimmed(run_program({"sbatch", "--parsable",
                                              "--dependency=afterok:" + arrayJob,
                                              "--kill-on-invalid-dep=yes", mergeFile.string()}));
  mergeJob = mergeJob.substr(0, mergeJob.find(';'));
  // The job ids, for study status to ask squeue about them.
  const fs::path jobsFile = dir / "slurm" / "jobs.json";
  std::error_code ec;
  json jobs = json::array();
  if (fs::exists(jobsFile, ec)) {
    jobs = parse_json(read_study_file(jobsFile, kMaxSmallFile), jobsFile);
    if (!jobs.is_array()) jobs = json::array();
  }
  jobs.push_back({{"array", arrayJob}, {"merge", mergeJob}, {"submitted", utc_now()}});
  analysis::file_write_atomic(jobsFile, jobs.dump(1) + "\n", true);
  return {arrayJob, mergeJob};
}

namespace {

// The array job ids study_slurm_submit recorded (newest last).
std::vector<std::string> submitted_array_jobs(const fs::path& dir) {
  const fs::path file = dir / "slurm" / "jobs.json";
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(file, ec))) return {};
  const json jobs = parse_json(read_study_file(file, kMaxSmallFile), file);
  std::vector<std::string> out;
  if (jobs.is_array())
    for (const json& j : jobs)
      if (j.is_object() && j.contains("array") && j.at("array").is_string()) {
        const std::string id = j.at("array").get<std::string>();
        if (!id.empty() && id.size() < 32 &&
            std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; }))
          out.push_back(id);
      }
  return out;
}

}  // namespace

SlurmShardStates study_slurm_states(const fs::path& dir) {
  SlurmShardStates out;
  std::error_code ec;
  if (!fs::exists(dir / "slurm" / "slurm.json", ec)) return out;
  out.shards = slurm_shard_count(dir);
  const StudyFile study = read_study(dir);
  const auto finished = finished_shards(dir, study);
  const std::vector<std::string> jobs = submitted_array_jobs(dir);
  // Array task -> state, from squeue (one line per task; the newest submission wins).
  std::map<int, std::string> queued;
  try {
    std::istringstream lines(
        run_program({"squeue", "-h", "-r", "-n", "sinkscope-study", "-o", "%i %T"}));
    for (std::string line; std::getline(lines, line);) {
      std::istringstream fields(line);
      std::string id, state;
      if (!(fields >> id >> state)) continue;
      const auto underscore = id.find('_');
      if (underscore == std::string::npos ||
          std::find(jobs.begin(), jobs.end(), id.substr(0, underscore)) == jobs.end())
        continue;
      char* end = nullptr;
      const long task = std::strtol(id.c_str() + underscore + 1, &end, 10);
      if (*end == '\0' && task >= 0 && task < out.shards) queued[static_cast<int>(task)] = state;
    }
  } catch (const StudyError& e) {
    out.queueError = e.what();
  }
  // Shards whose task left a work folder (".tmp-shard-I-of-N-host-pid"), listed once.
  std::set<std::string> leftWork;
  for (const auto& entry : fs::directory_iterator(dir / "shards", ec)) {
    const std::string file = entry.path().filename().string();
    if (file.rfind(".tmp-", 0) != 0) continue;
    const auto of = file.find("-of-");
    const auto end = of == std::string::npos ? of : file.find('-', of + 4);
    if (end != std::string::npos) leftWork.insert(file.substr(5, end - 5));
  }
  for (int i = 0; i < out.shards; ++i) {
    const std::string name = shard_folder_name({i, out.shards});
    if (finished.count(name)) {
      out.finished.push_back(i);
      continue;
    }
    const auto q = queued.find(i);
    const std::string state = q == queued.end() ? "" : q->second;
    if (state == "RUNNING" || state == "COMPLETING") {
      out.running.push_back(i);
    } else if (!state.empty()) {
      out.pending.push_back(i);  // PENDING, CONFIGURING, REQUEUED, ...
    } else {
      out.failed.push_back(i);
      if (leftWork.count(name)) out.killedMidRun.push_back(i);
    }
  }
  return out;
}


}  // namespace sinkscope::app
