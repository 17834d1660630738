#include "models/document/session_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "models/document/analysis_setting_specs.h"
#include "models/document/intervention_json.h"
#include "models/input_files.h"
#include "models/io/table_io.h"
#include "models/model_discovery.h"
#include "models/model_identity.h"

namespace sinkscope::document {

namespace {

using json = nlohmann::json;

constexpr std::size_t kMaxSessionBytes = std::size_t{4} << 20;
constexpr int kMaxIndex = 1 << 20;
constexpr std::size_t kMaxText = 1 << 20;  // characters of the sentence
constexpr std::size_t kMaxInterventions = 256;
constexpr std::size_t kMaxAblatedHeads = std::size_t{1} << 16;

// Characters (code points) of UTF-8 text: its bytes that do not continue one.
std::size_t characters(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(
      text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// A bound as a message shows it: 0, 1, 1e-06, 1048576.
std::string shown(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

// Field readers: each names the file and the field it refuses.
class Reader {
 public:
  Reader(const json& o, std::string where) : o_(o), where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    throw SessionError(where_ + ": " + field + ": " + problem);
  }
  const json* find(const char* field) const {
    const auto it = o_.find(field);
    return it == o_.end() ? nullptr : &*it;
  }
  std::string text(const char* field, std::size_t maxLength, bool required = true) const {
    const json* v = find(field);
    if (!v && !required) return {};
    if (!v || !v->is_string()) fail(field, "expected text");
    const std::string s = v->get<std::string>();
    if (characters(s) > maxLength)
      fail(field, "longer than " + std::to_string(maxLength) + " characters");
    return s;
  }
  int integer(const char* field, int lo, int hi, int otherwise) const {
    const json* v = find(field);
    if (!v) return otherwise;
    const double d = v->is_number() ? v->get<double>() : std::nan("");
    if (!(d == std::floor(d) && d >= lo && d <= hi))
      fail(field, "expected a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
    return static_cast<int>(d);
  }
  double real(const char* field, double lo, double hi, double otherwise) const {
    const json* v = find(field);
    if (!v) return otherwise;
    const double d = v->is_number() ? v->get<double>() : std::nan("");
    if (!(d >= lo && d <= hi)) fail(field, "expected a number from " + shown(lo) + " to " + shown(hi));
    return d;
  }
  bool flag(const char* field, bool otherwise) const {
    const json* v = find(field);
    if (!v) return otherwise;
    if (!v->is_boolean()) fail(field, "expected true or false");
    return v->get<bool>();
  }
  const json& object(const char* field) const {
    static const json empty = json::object();
    const json* v = find(field);
    if (!v) return empty;
    if (!v->is_object()) fail(field, "expected an object");
    return *v;
  }
  // Indices 0..kMaxIndex, sorted, each once: thousands of zeros are one layer.
  std::vector<int> indices(const char* field) const {
    const json* v = find(field);
    std::vector<int> out;
    if (!v) return out;
    if (!v->is_array() || v->size() > 4096) fail(field, "expected a list of at most 4096 indices");
    for (const json& x : *v) {
      const double d = x.is_number() ? x.get<double>() : std::nan("");
      if (!(d == std::floor(d) && d >= 0 && d <= kMaxIndex))
        fail(field, "expected indices from 0 to " + std::to_string(kMaxIndex));
      out.push_back(static_cast<int>(d));
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
  // Three finite numbers of magnitude at most 1e6.
  std::array<double, 3> vector3(const char* field) const {
    const json* v = find(field);
    if (!v || !v->is_array() || v->size() != 3) fail(field, "expected a list of 3 numbers");
    std::array<double, 3> out{};
    for (std::size_t k = 0; k < 3; ++k) {
      const double d = (*v)[k].is_number() ? (*v)[k].get<double>() : std::nan("");
      if (!(std::abs(d) <= 1e6)) fail(field, "expected 3 numbers from -1e6 to 1e6");
      out[k] = d;
    }
    return out;
  }

 private:
  const json& o_;
  std::string where_;
};

// JSON nesting deeper than any session has; checked before parsing, so a
// hostile file cannot make the parser recurse deeply.
bool nested_too_deep(const std::string& bytes, int maxDepth) {
  int depth = 0;
  bool inString = false, escaped = false;
  for (const char c : bytes) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > maxDepth) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

// Version 1 wrote a list of {kind, layers, heads, parameter}; read into the
// one form. Its ablations name their layers and heads (the GUI only ever
// ablated the selected head): "all" would need the model, so it is refused.
models::Intervention interventions_of_version_1(const Reader& root, const json& list,
                                                const std::string& source) {
  if (!list.is_array() || list.size() > kMaxInterventions)
    root.fail("interventions", "expected a list of at most 256");
  models::Intervention out;
  std::set<models::HeadId> ablated;
  for (std::size_t k = 0; k < list.size(); ++k) {
    if (!list[k].is_object()) root.fail("interventions", "expected objects");
    const Reader r(list[k], source + ": interventions[" + std::to_string(k) + "]");
    const std::string kind = r.text("kind", 64);
    const std::vector<int> layers = r.indices("layers"), heads = r.indices("heads");
    models::Intervention entry;
    if (kind == "drop_first_token") {
      entry.dropFirstToken = true;
    } else if (kind == "remove_sinks" || kind == "mask_sinks") {
      models::SinkRemoval removal;
      removal.layers = layers;
      removal.heads = heads;
      removal.beforeSoftmax = kind == "mask_sinks";
      entry.removeSinks = {removal};
    } else if (kind == "ablate_heads") {
      if (layers.empty() || heads.empty())
        r.fail(layers.empty() ? "layers" : "heads", "name the ablated heads' layers and heads");
      if (ablated.size() + layers.size() * heads.size() > kMaxAblatedHeads)
        r.fail("heads", "more than " + std::to_string(kMaxAblatedHeads) + " heads to ablate");
      for (int l : layers)
        for (int h : heads)
          if (ablated.insert({l, h}).second) out.ablateHeads.emplace_back(l, h);
      continue;
    } else if (kind == "rope_scale") {
      entry.ntkScale = r.real("parameter", 1e-6, 1e6, 1.0);
    } else {
      r.fail("kind", "\"" + kind + "\" is not an intervention");
    }
    out = out.with(entry);
  }
  return out;
}

models::Intervention interventions_of(const Reader& root, const json& value, int version,
                                      const std::string& source) {
  if (version == 1) return interventions_of_version_1(root, value, source);
  const std::string where = source + ": interventions";
  if (!value.is_object()) throw SessionError(where + ": expected an object");
  try {
    return intervention_from_json(value, where);
  } catch (const InterventionFormatError& e) {
    throw SessionError(e.what());
  }
}

json cameras_json(const std::vector<std::pair<std::string, SessionCamera>>& cameras) {
  json o = json::object();
  for (const auto& [view, camera] : cameras)
    o[view] = {{"direction", camera.direction}, {"up", camera.up}};
  return o;
}

// The standard base64 alphabet, for the dock layout's bytes.
constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(const std::string& bytes) {
  std::string out;
  std::size_t k = 0;
  for (; k + 2 < bytes.size(); k += 3) {
    const unsigned v = (static_cast<unsigned char>(bytes[k]) << 16) |
                       (static_cast<unsigned char>(bytes[k + 1]) << 8) |
                       static_cast<unsigned char>(bytes[k + 2]);
    for (int shift : {18, 12, 6, 0}) out += kBase64[(v >> shift) & 63];
  }
  const std::size_t left = bytes.size() - k;
  if (left > 0) {
    unsigned v = static_cast<unsigned char>(bytes[k]) << 16;
    if (left == 2) v |= static_cast<unsigned char>(bytes[k + 1]) << 8;
    out += kBase64[(v >> 18) & 63];
    out += kBase64[(v >> 12) & 63];
    out += left == 2 ? kBase64[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// Characters outside the alphabet are skipped and '=' ends the data: a
// damaged layout is a layout the window does not restore, never an error.
std::string base64_decode(const std::string& text) {
  std::string out;
  unsigned v = 0;
  int bits = 0;
  for (const char c : text) {
    if (c == '=') break;
    const char* at = std::char_traits<char>::find(kBase64, 64, c);
    if (!at) continue;
    v = (v << 6) | static_cast<unsigned>(at - kBase64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((v >> bits) & 0xFF);
    }
  }
  return out;
}

// The camera with a unit direction and a unit up orthogonal to it; nothing
// when the direction is zero or up lies along it (no view can be made of it).
std::optional<SessionCamera> orthonormal(const SessionCamera& camera) {
  using V = std::array<double, 3>;
  const auto dot = [](const V& a, const V& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; };
  const V& d = camera.direction;
  const double dn = std::sqrt(dot(d, d));
  if (!std::isfinite(dn) || dn < 1e-12) return std::nullopt;
  const V dir{d[0] / dn, d[1] / dn, d[2] / dn};
  const double along = dot(camera.up, dir);
  const V u{camera.up[0] - along * dir[0], camera.up[1] - along * dir[1], camera.up[2] - along * dir[2]};
  const double un = std::sqrt(dot(u, u));
  if (!std::isfinite(un) || un < 1e-9 * std::max(1.0, std::sqrt(dot(camera.up, camera.up))))
    return std::nullopt;
  return SessionCamera{dir, {u[0] / un, u[1] / un, u[2] / un}};
}

void read_panels(const Reader& root, const std::string& source, Session& s) {
  const Reader panels(root.object("panels"), source + ": panels");
  s.logScale = panels.flag("log_scale", false);
  s.overviewScore = panels.text("overview_score", 200, false);
  s.comparison = panels.text("comparison", 32, false);
  const auto& names = session_comparisons();
  if (!s.comparison.empty() && std::find(names.begin(), names.end(), s.comparison) == names.end())
    panels.fail("comparison", "expected one of after, before, difference, side_by_side");
  s.graphLayout = panels.integer("graph_layout", 0, 1, 0);
  s.normalisedLaplacian = panels.flag("normalised_laplacian", false);
  const json& cameras = panels.object("cameras");
  if (cameras.size() > 16) panels.fail("cameras", "more than 16 views");
  for (const auto& [view, camera] : cameras.items()) {
    if (characters(view) > 100 || !camera.is_object())
      panels.fail("cameras", "expected view names with a camera each");
    const Reader r(camera, source + ": panels: cameras: " + view);
    const auto c = orthonormal(SessionCamera{r.vector3("direction"), r.vector3("up")});
    if (!c) r.fail("direction", "no direction (zero, or along up)");
    s.cameras.emplace_back(view, *c);
  }
}

void read_figure(const Reader& root, const std::string& source, Session& s) {
  const Reader figure(root.object("figure"), source + ": figure");
  s.figureColumns = figure.integer("columns", 0, 26, 0);
  const json* views = figure.find("views");
  if (!views) return;
  if (!views->is_array() || views->size() > 26)
    figure.fail("views", "expected a list of at most 26 names");
  for (const json& v : *views) {
    if (!v.is_string() || characters(v.get<std::string>()) > 100)
      figure.fail("views", "expected view names");
    s.figureViews.push_back(v.get<std::string>());
  }
}

}  // namespace

std::string session_to_json(const Session& s) {
  // B's layer and head only when pinned (absent: the selection's counterpart).
  json compare{{"sentence", s.compareSentence}, {"model", s.compareModel}};
  if (s.compareLayer != Session::kAutomatic) compare["layer"] = s.compareLayer;
  if (s.compareHead != Session::kAutomatic) compare["head"] = s.compareHead;
  json root{{"format", "sinkscope-session"},
            {"version", Session::kVersion},
            {"model",
             {{"name", s.model},
              {"folder", s.modelFolder},
              {"folder_relative", s.modelRelative},
              {"hub_name", s.hubName},
              {"hub_revision", s.hubRevision},
              {"config_sha256", s.configSha256},
              {"tokenizer_sha256", s.tokenizerSha256},
              {"weights_sha256", s.weightsSha256}}},
            {"text", s.text},
            {"capture", s.capture},
            {"selection",
             {{"layer", s.layer},
              {"head", s.head},
              {"query", s.query},
              {"key", s.key},
              {"threshold", s.threshold},
              {"top_n", s.topN}}},
            // The interventions in their one JSON form (a study's), exact to the bit.
            {"interventions", intervention_json(s.interventions)},
            {"analysis", head_settings_json(s.analysis)},
            {"compare", compare},
            {"checkpoints", s.checkpoints},
            {"study", s.study},
            {"panels",
             {{"log_scale", s.logScale},
              {"overview_score", s.overviewScore},
              {"comparison", s.comparison},
              {"graph_layout", s.graphLayout},
              {"normalised_laplacian", s.normalisedLaplacian},
              {"cameras", cameras_json(s.cameras)}}},
            {"figure", {{"views", s.figureViews}, {"columns", s.figureColumns}}}};
  if (!s.layout.empty()) root["layout"] = base64_encode(s.layout);
  return root.dump(4) + "\n";
}

Session session_from_json(const std::string& bytes, const std::string& source) {
  if (bytes.size() > kMaxSessionBytes)
    throw SessionError(source + ": larger than a session file can be");
  if (nested_too_deep(bytes, 8)) throw SessionError(source + ": JSON nested deeper than a session file");
  json doc;
  try {
    doc = json::parse(bytes);
  } catch (const json::exception& e) {
    throw SessionError(source + ": not a JSON object (" + e.what() + ")");
  }
  if (!doc.is_object()) throw SessionError(source + ": not a JSON object");
  const Reader root(doc, source);
  if (root.text("format", 64, false) != "sinkscope-session")
    root.fail("format", "not a SinkScope session");
  const int version = root.integer("version", 1, 1 << 20, 0);
  if (version < 1 || version > Session::kVersion)
    root.fail("version", std::to_string(version) + "; this SinkScope reads versions 1 to " +
                             std::to_string(Session::kVersion));
  Session s;
  const Reader model(root.object("model"), source + ": model");
  s.model = model.text("name", 4096);
  if (s.model.empty()) model.fail("name", "empty");
  s.modelFolder = model.text("folder", 4096, false);
  s.modelRelative = model.text("folder_relative", 4096, false);
  if (!s.modelRelative.empty() && std::filesystem::path(s.modelRelative).is_absolute())
    model.fail("folder_relative", "an absolute path; expected one relative to the session");
  s.hubName = model.text("hub_name", 256, false);
  s.hubRevision = model.text("hub_revision", 128, false);
  // A cache folder's name is made of them: no path separators or parents.
  if (s.hubRevision.find('/') != std::string::npos || s.hubRevision == ".." || s.hubRevision == ".")
    model.fail("hub_revision", "not a revision");
  if (!s.hubName.empty() && (std::count(s.hubName.begin(), s.hubName.end(), '/') != 1 ||
                             s.hubName.find("..") != std::string::npos ||
                             s.hubName.front() == '/' || s.hubName.back() == '/'))
    model.fail("hub_name", "expected ORG/NAME");
  s.configSha256 = model.text("config_sha256", 64, false);
  s.tokenizerSha256 = model.text("tokenizer_sha256", 64, false);
  s.weightsSha256 = model.text("weights_sha256", 64, false);
  s.text = root.text("text", kMaxText);
  s.capture = root.text("capture", 255, false);
  // A file name beside the session: no folders, nothing outside it.
  if (!s.capture.empty() &&
      (s.capture.find('/') != std::string::npos || s.capture == "." || s.capture == ".."))
    root.fail("capture", "expected a file name beside the session");
  const Reader selection(root.object("selection"), source + ": selection");
  s.layer = selection.integer("layer", 0, kMaxIndex, 0);
  s.head = selection.integer("head", -1, kMaxIndex, 0);
  s.query = selection.integer("query", -1, kMaxIndex, -1);
  s.key = selection.integer("key", -1, kMaxIndex, -1);
  s.threshold = selection.real("threshold", 0.0, 1.0, 0.05);
  s.topN = selection.integer("top_n", 1, kMaxIndex, 3);
  if (const json* interventions = root.find("interventions"))
    s.interventions = interventions_of(root, *interventions, version, source);
  if (const json* analysis = root.find("analysis")) {
    try {
      s.analysis = head_settings_from_json(*analysis, source + ": analysis");
    } catch (const std::invalid_argument& e) {
      throw SessionError(e.what());
    }
  }
  const Reader compare(root.object("compare"), source + ": compare");
  s.compareSentence = compare.text("sentence", kMaxText, false);
  s.compareModel = compare.text("model", 4096, false);
  if (!s.compareSentence.empty() && !s.compareModel.empty())
    compare.fail("model", "give a sentence or a model to compare with, not both");
  s.compareLayer = compare.integer("layer", 0, kMaxIndex, Session::kAutomatic);
  s.compareHead = compare.integer("head", -1, kMaxIndex, Session::kAutomatic);
  s.checkpoints = root.text("checkpoints", 4096, false);
  s.study = root.text("study", 4096, false);
  read_panels(root, source, s);
  read_figure(root, source, s);
  s.layout = base64_decode(root.text("layout", kMaxSessionBytes, false));
  return s;
}

Session session_read(const std::filesystem::path& path) {
  // A regular file of bounded size (never a FIFO or a device), as every input file.
  try {
    return session_from_json(models::input_file_read(path, kMaxSessionBytes), path.string());
  } catch (const models::ModelInputError& e) {
    throw SessionError(e.what());
  }
}

std::pair<std::string, std::string> hub_snapshot_of(const std::filesystem::path& folder) {
  // .../models--ORG--NAME/snapshots/REV
  const std::filesystem::path snapshot = folder.lexically_normal();
  const std::filesystem::path parent = snapshot.parent_path();
  const std::string repo = parent.parent_path().filename().string();
  if (parent.filename() != "snapshots" || repo.rfind("models--", 0) != 0) return {};
  const std::string name = repo.substr(8);
  const std::size_t separator = name.find("--");
  if (separator == std::string::npos || separator == 0 || separator + 2 >= name.size()) return {};
  return {name.substr(0, separator) + "/" + name.substr(separator + 2),
          snapshot.filename().string()};
}

std::filesystem::path session_model_folder(const Session& s,
                                           const std::filesystem::path& sessionFile,
                                           const std::filesystem::path& cacheRoot) {
  namespace fs = std::filesystem;
  std::vector<fs::path> places;
  if (!s.modelFolder.empty()) places.emplace_back(s.modelFolder);
  if (!s.modelRelative.empty() && !sessionFile.empty())
    places.push_back((sessionFile.parent_path() / s.modelRelative).lexically_normal());
  if (!s.hubName.empty()) {
    const std::string org = s.hubName.substr(0, s.hubName.find('/')),
                      name = s.hubName.substr(s.hubName.find('/') + 1);
    const fs::path repo = cacheRoot / ("models--" + org + "--" + name);
    if (!s.hubRevision.empty()) places.push_back(repo / "snapshots" / s.hubRevision);
    try {
      places.push_back(models::model_location_resolve(s.hubName, cacheRoot));
    } catch (const std::exception&) {
      // not in this cache
    }
  }
  // Opened by a cache name: the cache's current snapshot of it.
  if (s.model.find('/') != std::string::npos && !fs::path(s.model).is_absolute()) try {
      places.push_back(models::model_location_resolve(s.model, cacheRoot));
    } catch (const std::exception&) {
    }
  fs::path firstFound;
  for (const fs::path& place : places) {
    std::error_code missing;
    if (!fs::is_regular_file(place / "config.json", missing)) continue;
    if (firstFound.empty()) firstFound = place;
    if (s.configSha256.empty()) return place;
    try {
      // The hash the session recorded: of config.json's bytes (model_identity's).
      if (models::sha256_hex(models::input_file_read(place / "config.json",
                                                     models::kConfigMaxBytes)) == s.configSha256)
        return place;
    } catch (const std::exception&) {
      // an unreadable config is not the session's model's
    }
  }
  return firstFound;
}

Session session_read_here(const std::filesystem::path& path, bool* found) {
  Session s = session_read(path);
  const std::filesystem::path here = session_model_folder(s, path, models::hf_cache_root());
  if (!here.empty()) s.modelFolder = here.string();
  if (found) *found = !here.empty();
  return s;
}

void session_write(const Session& given, const std::filesystem::path& path) {
  // Where the model is from the session's own folder: found again when both
  // move together (a folder sent to a colleague).
  Session session = given;
  if (!session.modelFolder.empty()) {
    const std::filesystem::path folder = std::filesystem::absolute(session.modelFolder);
    const std::filesystem::path from = std::filesystem::absolute(path).parent_path();
    session.modelRelative =
        folder.lexically_normal().lexically_relative(from.lexically_normal()).string();
    const auto [hubName, hubRevision] = hub_snapshot_of(folder);
    if (!hubName.empty()) session.hubName = hubName, session.hubRevision = hubRevision;
  }
  try {
    io::file_write_atomic(path, session_to_json(session), true);
  } catch (const std::exception& e) {
    throw SessionError(path.string() + ": cannot write (" + e.what() + ")");
  }
}

const std::vector<std::string>& session_comparisons() {
  static const std::vector<std::string> names{"after", "before", "difference", "side_by_side"};
  return names;
}

std::vector<std::string> session_places_outside(const Session& s, int layers, int heads,
                                                int tokens) {
  std::vector<std::string> out;
  const auto n = [](int v) { return std::to_string(v); };
  if (s.layer >= layers)
    out.push_back("selection.layer " + n(s.layer) + " (the model has " + n(layers) + " layers)");
  if (s.head >= heads)
    out.push_back("selection.head " + n(s.head) + " (the model has " + n(heads) + " heads)");
  if (s.query >= tokens)
    out.push_back("selection.query " + n(s.query) + " (the sentence has " + n(tokens) + " tokens)");
  if (s.key >= tokens)
    out.push_back("selection.key " + n(s.key) + " (the sentence has " + n(tokens) + " tokens)");
  return out;
}

std::vector<std::string> session_model_changes(const Session& s, const std::string& configSha256,
                                               const std::string& tokenizerSha256,
                                               const std::string& weightsSha256) {
  std::vector<std::string> changes;
  if (s.configSha256.empty()) return changes;  // the session recorded no content to compare
  auto head = [](const std::string& hash) { return hash.empty() ? std::string("none") : hash.substr(0, 12); };
  if (s.configSha256 != configSha256)
    changes.push_back("config.json (SHA-256 " + s.configSha256.substr(0, 12) + "... now " +
                      configSha256.substr(0, 12) + "...)");
  if (s.tokenizerSha256 != tokenizerSha256 && !(s.tokenizerSha256.empty() && tokenizerSha256.empty()))
    changes.push_back("tokenizer.json (SHA-256 " + head(s.tokenizerSha256) + "... now " +
                      head(tokenizerSha256) + "...)");
  // Only where both sides were hashed (a large model's may not be).
  if (!s.weightsSha256.empty() && !weightsSha256.empty() && s.weightsSha256 != weightsSha256)
    changes.push_back("the weights (SHA-256 " + head(s.weightsSha256) + "... now " +
                      head(weightsSha256) + "...)");
  return changes;
}

}  // namespace sinkscope::document
