#include "models/document/intervention_json.h"

#include <cmath>
#include <cstdlib>
#include <map>

#include "models/document/study_files.h"

namespace sinkscope::document {

namespace {

using study_format::hex_double;

using json = nlohmann::json;

constexpr int kMaxIndex = 4095;
constexpr std::size_t kMaxRemovals = 64;
constexpr std::size_t kMaxAblations = std::size_t{1} << 20;

[[noreturn]] void fail(const std::string& where, const std::string& problem) {
  throw InterventionFormatError(where + ": " + problem);
}

const json& field(const json& object, const char* name, const std::string& where) {
  if (!object.is_object()) fail(where, "expected an object");
  const auto it = object.find(name);
  if (it == object.end()) fail(where, std::string(name) + ": missing");
  return *it;
}

double number(const json& j, double lo, double hi, const std::string& where) {
  double v = 0;
  if (j.is_number()) {
    v = j.get<double>();
  } else if (j.is_string()) {
    const std::string s = j.get<std::string>();
    char* end = nullptr;
    v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size()) fail(where, "\"" + s + "\" is not a number");
  } else {
    fail(where, "expected a number");
  }
  if (!std::isfinite(v) || v < lo || v > hi)
    fail(where, "expected a finite number from " + hex_double(lo) + " to " + hex_double(hi) + " (" +
                    std::to_string(lo) + " to " + std::to_string(hi) + ")");
  return v;
}

int index(const json& j, const std::string& where) {
  // A whole number only: 1.5 or "1" is refused, never truncated.
  if (!j.is_number_integer()) fail(where, "expected a whole number from 0 to " + std::to_string(kMaxIndex));
  const auto v = j.get<long long>();
  if (v < 0 || v > kMaxIndex) fail(where, std::to_string(v) + " is not from 0 to " + std::to_string(kMaxIndex));
  return static_cast<int>(v);
}

std::vector<int> indices(const json& j, const std::string& where) {
  if (!j.is_array() || j.size() > kMaxIndex + 1)
    fail(where, "expected a list of at most " + std::to_string(kMaxIndex + 1) + " indices");
  std::vector<int> out;
  for (const json& x : j) out.push_back(index(x, where));
  return out;
}

bool flag(const json& j, const std::string& where) {
  if (!j.is_boolean()) fail(where, "expected true or false");
  return j.get<bool>();
}

}  // namespace

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
  iv.dropFirstToken = flag(field(j, "drop_first", where), where + ": drop_first");
  const json& removals = field(j, "remove_sinks", where);
  if (!removals.is_array() || removals.size() > kMaxRemovals)
    fail(where, "remove_sinks: expected a list of at most " + std::to_string(kMaxRemovals));
  for (std::size_t k = 0; k < removals.size(); ++k) {
    const std::string at = where + ": remove_sinks[" + std::to_string(k) + "]";
    const json& r = removals[k];
    models::SinkRemoval removal;
    removal.percentile = number(field(r, "percentile", at), 0.0, 100.0, at + ": percentile");
    removal.gamma = number(field(r, "gamma", at), 0.0, 1.0, at + ": gamma");
    removal.beforeSoftmax = flag(field(r, "before_softmax", at), at + ": before_softmax");
    removal.layers = indices(field(r, "layers", at), at + ": layers");
    removal.heads = indices(field(r, "heads", at), at + ": heads");
    iv.removeSinks.push_back(std::move(removal));
  }
  const json& ablate = field(j, "ablate", where);
  if (!ablate.is_array() || ablate.size() > kMaxAblations)
    fail(where, "ablate: expected a list of at most " + std::to_string(kMaxAblations) + " [layer, head] pairs");
  // A head ablated twice is a list that was not written by us: refused, not
  // carried into every header and run.
  std::map<std::pair<int, int>, std::size_t> seen;
  for (std::size_t k = 0; k < ablate.size(); ++k) {
    const std::string at = where + ": ablate[" + std::to_string(k) + "]";
    if (!ablate[k].is_array() || ablate[k].size() != 2) fail(at, "expected [layer, head]");
    const std::pair<int, int> head{index(ablate[k][0], at), index(ablate[k][1], at)};
    if (const auto [it, fresh] = seen.emplace(head, k); !fresh)
      fail(at, "[" + std::to_string(head.first) + ", " + std::to_string(head.second) +
                   "] is ablate[" + std::to_string(it->second) + "] again; name each head once");
    iv.ablateHeads.push_back(head);
  }
  const json& theta = field(j, "rope_theta", where);
  if (!theta.is_null()) iv.ropeTheta = number(theta, 1e-6, 1e30, where + ": rope_theta");
  iv.ntkScale = number(field(j, "ntk_scale", where), 1e-6, 1e6, where + ": ntk_scale");
  return iv;
}

}  // namespace sinkscope::document
