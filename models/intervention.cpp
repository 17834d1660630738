#include "models/intervention.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace sinkscope::models {

std::vector<std::string> Intervention::describe() const {
  std::vector<std::string> lines;
  if (dropFirstToken) lines.push_back("first token dropped");
  for (const SinkRemoval& r : removeSinks) {
    auto list = [](const std::vector<int>& v) {
      if (v.empty()) return std::string("all");
      std::string s;
      for (int x : v) s += (s.empty() ? "" : " ") + std::to_string(x);
      return s;
    };
    lines.push_back(std::string("sinks removal ") +
                    (r.beforeSoftmax
                         ? "(masked before softmax; a query left with no visible key keeps its "
                           "keys)"
                         : "(zeroed after softmax, rows renormalised, uniform over the other "
                           "visible keys when a row empties; a row with no other visible key, "
                           "such as query 0 of a causal model, is left unchanged)") +
                    ", layers " + list(r.layers) + ", heads " + list(r.heads) + ", percentile " +
                    std::to_string(r.percentile).substr(0, 5) + ", gamma " +
                    std::to_string(r.gamma).substr(0, 5) + " of all T queries");
  }
  for (const auto& [l, h] : ablateHeads)
    lines.push_back("head " + std::to_string(l) + ":" + std::to_string(h) + " ablated");
  if (ropeTheta) lines.push_back("RoPE base " + std::to_string(*ropeTheta));
  if (ntkScale != 1.0) lines.push_back("NTK scaling " + std::to_string(ntkScale));
  return lines;
}

namespace {

std::string index_scope(const std::vector<int>& v, const char* one, const char* many,
                        const char* all) {
  if (v.empty()) return all;
  std::string s = v.size() == 1 ? one : many;
  for (std::size_t k = 0; k < v.size(); ++k) s += (k ? ", " : " ") + std::to_string(v[k]);
  return s;
}

std::string number_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

std::vector<std::string> Intervention::labels() const {
  std::vector<std::string> lines;
  if (dropFirstToken) lines.emplace_back("drop first token");
  for (const SinkRemoval& r : removeSinks)
    lines.push_back(std::string(r.beforeSoftmax ? "mask sinks (" : "remove sinks (") +
                    index_scope(r.layers, "layer", "layers", "all layers") + "; " +
                    index_scope(r.heads, "head", "heads", "all heads") + ")");
  for (const auto& [l, h] : ablateHeads)
    lines.push_back("ablate heads (layer " + std::to_string(l) + "; head " + std::to_string(h) +
                    ")");
  if (ropeTheta) lines.push_back("RoPE base " + number_text(*ropeTheta));
  if (ntkScale != 1.0) lines.push_back("RoPE scale x" + number_text(ntkScale));
  return lines;
}

Intervention Intervention::with(const Intervention& more) const {
  Intervention out = *this;
  out.dropFirstToken = dropFirstToken || more.dropFirstToken;
  for (const SinkRemoval& r : more.removeSinks)
    if (std::find(out.removeSinks.begin(), out.removeSinks.end(), r) == out.removeSinks.end())
      out.removeSinks.push_back(r);
  for (const HeadId& head : more.ablateHeads)
    if (std::find(out.ablateHeads.begin(), out.ablateHeads.end(), head) == out.ablateHeads.end())
      out.ablateHeads.push_back(head);
  if (more.ropeTheta) out.ropeTheta = more.ropeTheta;
  if (more.ntkScale != 1.0) out.ntkScale = more.ntkScale;
  return out;
}

Intervention Intervention::without(std::size_t index) const {
  Intervention out = *this;
  std::size_t k = 0;
  if (dropFirstToken && k++ == index) {
    out.dropFirstToken = false;
    return out;
  }
  if (index - k < removeSinks.size()) {
    out.removeSinks.erase(out.removeSinks.begin() + static_cast<std::ptrdiff_t>(index - k));
    return out;
  }
  k += removeSinks.size();
  if (index - k < ablateHeads.size()) {
    out.ablateHeads.erase(out.ablateHeads.begin() + static_cast<std::ptrdiff_t>(index - k));
    return out;
  }
  k += ablateHeads.size();
  if (ropeTheta && k++ == index) {
    out.ropeTheta.reset();
    return out;
  }
  if (ntkScale != 1.0 && k == index) out.ntkScale = 1.0;
  return out;
}

void Intervention::check_fits(int layers, int heads) const {
  const std::vector<std::string> names = labels();
  std::size_t entry = dropFirstToken ? 1 : 0;
  auto check = [&](const std::vector<int>& v, int count, const char* what) {
    for (int x : v)
      if (x < 0 || x >= count)
        throw std::invalid_argument(names[entry] + ": " + what + " " + std::to_string(x) +
                                    " is not in this model (" + what + "s 0 to " +
                                    std::to_string(count - 1) + ")");
  };
  for (const SinkRemoval& r : removeSinks) {
    check(r.layers, layers, "layer");
    check(r.heads, heads, "head");
    ++entry;
  }
  for (const auto& [l, h] : ablateHeads) {
    check({l}, layers, "layer");
    check({h}, heads, "head");
    ++entry;
  }
}

}  // namespace sinkscope::models
