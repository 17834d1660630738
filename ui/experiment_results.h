#pragma once
// Results of the functional experiments (metrics.md s. 5 and 8) for run A,
// once the user has computed them (Experiments menu); empty = not yet.
#include <vector>

namespace sinkscope::ui {

struct ExperimentResults {
  std::vector<double> headDnll;            // [layer * heads + head]
  std::vector<double> klPerLayer;          // sinks removed in that layer
  std::vector<double> fisherPerParameter;  // per layer
};

}  // namespace sinkscope::ui
