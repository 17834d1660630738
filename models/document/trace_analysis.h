#pragma once
// The one per-head analysis loop: every head of a trace and each layer's head
// average through analysis::analyse_head, on every core, layer by layer. The
// GUI keeps the whole result for its panels; `analyze` writes each layer's
// rows as it arrives; corpus records reduce each sentence's layers to figures.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "analysis/head_analysis.h"
#include "analysis/value_directions.h"
#include "analysis/value_space.h"
#include "models/document/analysis_settings.h"

namespace sinkscope::models {
class Trace;
}

namespace sinkscope::document {

// Above this many tokens the window's analysis of a run leaves out
// persistence and spectra (O(T^3) per head): panels compute them for the
// selected head only, in the background.
inline constexpr int kTopologyForAllHeadsMaxTokens = 256;

struct TraceAnalysisOptions {
  // Also every head's value-space curve (F_N against every N, metrics.md s. 6)
  // at params.valueSpace's query: what analyze and figure sets report.
  bool valueSpaceCurves = false;
  // Also every head's value-space curve at each of these queries, without the
  // random baseline (precision and recall across context lengths: in a causal
  // model the first q + 1 tokens of a longer input are a run of their own).
  std::vector<int> contextQueries = {};
  // Also the effective rank of the residual stream entering each layer.
  bool effectiveRank = false;
  // A layer the trace does not store (a long input's) is recomputed and
  // analysed this many bytes of maps at a time (at least one head): at 4096
  // tokens a 1B model's layer is 2 GiB, eight of its heads 512 MiB.
  std::uint64_t recomputedGroupBytes = std::uint64_t{512} << 20;
  // The settings `params` were made from, kept with the result for the
  // panels that read a setting beyond the heads' parameters.
  AnalysisSettings settings;
};

// One layer's analyses: index 0 the layer's head average (it has no values:
// no value space, no taxonomy), then its heads in order.
struct LayerAnalysis {
  int layer = 0;
  std::vector<analysis::HeadAnalysis> heads;           // heads + 1
  std::vector<analysis::ValueSpaceCurve> valueCurves;  // heads + 1 with valueSpaceCurves (0: empty)
  // heads + 1 with valueSpaceCurves (0: none): how each head's values point (004, Fig. 3b).
  std::vector<analysis::ValueCosineCounts> valueCosines;
  // [head + 1][k]: the curve at contextQueries[k] (0: empty).
  std::vector<std::vector<analysis::ValueSpaceCurve>> contextCurves;
};

// Analyses `trace` layer by layer and hands each layer to `onLayer` in order.
// As many layers at once as keep every thread busy (and no more: each holds
// its capture). `progress` as everywhere (fraction of layers; false stops):
// a stop, also inside a head's persistence, throws analysis::AnalysisStopped.
void analyse_trace_layers(const models::Trace& trace, const analysis::HeadAnalysisParams& params,
                          const TraceAnalysisOptions& options,
                          const std::function<void(LayerAnalysis&&)>& onLayer,
                          const std::function<bool(double)>& progress = {});

// Every layer of a trace, kept.
struct TraceAnalysis {
  int layers = 0, heads = 0, tokens = 0;
  bool causal = true;
  // Whether persistence, Betti curves and spectra were computed for every
  // head (params.topology).
  bool topologyForAllHeads = true;
  analysis::HeadAnalysisParams params;  // without its progress callback
  AnalysisSettings settings;            // what params were made from (TraceAnalysisOptions)
  // [layer][head + 1]; index 0 is the layer's head average.
  std::vector<std::vector<analysis::HeadAnalysis>> perHead;
  // [layer][head + 1] with TraceAnalysisOptions::valueSpaceCurves.
  std::vector<std::vector<analysis::ValueSpaceCurve>> valueCurves;
  // With TraceAnalysisOptions::effectiveRank: the residual stream entering
  // each layer, and the output.
  std::vector<double> effectiveRank;

  const analysis::HeadAnalysis& at(int layer, int head) const {
    return perHead[static_cast<std::size_t>(layer)][static_cast<std::size_t>(head + 1)];
  }
  // The index of `threshold` among params.thresholds, or -1.
  int thresholdIndex(double threshold) const;
};

std::shared_ptr<const TraceAnalysis> analyse_trace(
    const models::Trace& trace, const analysis::HeadAnalysisParams& params,
    const TraceAnalysisOptions& options, const std::function<bool(double)>& progress = {});

// Every head of a run a window shows, with `settings` turned into each head's
// parameters as analyze turns them (a panel's numbers are analyze's rows for
// that head), the effective rank per layer, and topology for every head only
// up to kTopologyForAllHeadsMaxTokens (past it, the selected head's when shown).
// Throws analysis::AnalysisStopped when `progress` returns false.
std::shared_ptr<const TraceAnalysis> analyse_shown_run(const models::Trace& trace,
                                                       const AnalysisSettings& settings,
                                                       const std::function<bool(double)>& progress);

}  // namespace sinkscope::document
