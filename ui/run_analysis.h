#pragma once
// The analyses of one run, computed once off the GUI thread right after the
// forward pass: every metric summary of every head and of each layer's head
// average (analysis::analyse_head), and per-layer profiles. Every panel draws
// from this cache, so changing the selection recomputes nothing.
#include <functional>
#include <memory>
#include <vector>

#include "analysis/head_analysis.h"

namespace sinkscope::models {
class Trace;
}

namespace sinkscope::ui {

// Above this many tokens the run's analysis leaves out persistence and
// spectra (O(T^3) per head): panels compute them for the selected head only,
// in the background.
inline constexpr int kTopologyForAllHeadsMaxTokens = 256;

struct RunAnalysis {
  int layers = 0, heads = 0, tokens = 0;
  bool causal = true;
  // Whether every head's (and head average's) topology is in perHead.
  bool topologyForAllHeads = true;
  analysis::HeadAnalysisParams params;
  // [layer][head + 1]; index 0 is the layer's head average.
  std::vector<std::vector<analysis::HeadAnalysis>> perHead;
  std::vector<double> effectiveRank;  // residual stream entering each layer, and the output

  const analysis::HeadAnalysis& at(int layer, int head) const {
    return perHead[static_cast<std::size_t>(layer)][static_cast<std::size_t>(head + 1)];
  }
  // The index of `threshold` among params.thresholds, or -1.
  int thresholdIndex(double threshold) const;
};

// Analyses every head of `trace`; `progress` as everywhere (false aborts).
std::shared_ptr<const RunAnalysis> run_analysis_compute(
    const models::Trace& trace, const std::function<bool(double)>& progress);

}  // namespace sinkscope::ui
