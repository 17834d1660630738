#pragma once
// The one intervention type: what a user switches on to get a second run
// of a sentence (metrics.md s. 5 and 8), from the GUI's list to a study's
// description. Plain data and its wording; running it is experiments.h's,
// its JSON form models/document/intervention_json.h's.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sinkscope::models {

using HeadId = std::pair<int, int>;  // (layer, head)

// Sinks to remove (metrics.md s. 5): the sink set of each chosen head
// (metrics.md s. 1, percentile mode) found in the base trace.
struct SinkRemoval {
  std::vector<int> layers, heads;  // empty = all
  double percentile = 90.0;
  double gamma = 0.3;
  bool beforeSoftmax = false;  // mask the keys' scores instead of zeroing and renormalising
  bool operator==(const SinkRemoval&) const = default;
};

// What a user switches on: the source of a second trace. The one type of an
// intervention, from the GUI's list to a study's description; its entries
// (in the order below) are what describe() and labels() list.
struct Intervention {
  bool dropFirstToken = false;
  std::vector<SinkRemoval> removeSinks;  // each with its own layers and heads
  std::vector<HeadId> ablateHeads;
  std::optional<double> ropeTheta;  // RoPE base override
  double ntkScale = 1.0;            // NTK-aware scaling factor
  bool empty() const {
    return !dropFirstToken && removeSinks.empty() && ablateHeads.empty() && !ropeTheta &&
           ntkScale == 1.0;
  }
  bool operator==(const Intervention&) const = default;
  // One line per active entry, for CSV headers: every parameter spelled out.
  std::vector<std::string> describe() const;
  // One short line per active entry, for lists (e.g. "remove sinks (layers
  // 1, 2; all heads)"), in describe()'s order.
  std::vector<std::string> labels() const;
  // These entries and `more`'s (an entry already here is not repeated; a
  // RoPE base or scale in `more` replaces this one's).
  Intervention with(const Intervention& more) const;
  // Without the entry at `index` of labels() (none: unchanged).
  Intervention without(std::size_t index) const;
  // Throws std::invalid_argument naming the entry when a layer or head is
  // not in a model of `layers` x `heads` (a session may come from another model).
  void check_fits(int layers, int heads) const;
};

}  // namespace sinkscope::models
