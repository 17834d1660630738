#include "models/document/trace_analysis.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>

#include "analysis/persistence.h"
#include "models/experiments.h"
#include "models/model.h"

namespace sinkscope::document {

namespace {

// Layers analysed together hold their captures at once: at most this many
// bytes of attention maps (a 3B model at 512 tokens: about 25 MB a layer).
constexpr std::uint64_t kGroupCaptureBytes = std::uint64_t{256} << 20;

// As many layers at once as keep every thread busy, within the byte budget.
int layers_per_group(const models::Trace& trace) {
  const int L = trace.layers(), H = trace.heads();
  const auto T = static_cast<std::uint64_t>(trace.tokens());
  const std::uint64_t layerBytes = static_cast<std::uint64_t>(H + 1) * T * T * sizeof(float);
  const auto fitting = static_cast<int>(std::min<std::uint64_t>(
      static_cast<std::uint64_t>(L), kGroupCaptureBytes / std::max<std::uint64_t>(1, layerBytes)));
  const int busy = (analysis::thread_count() + H) / (H + 1);
  return std::clamp(std::min(busy, fitting), 1, std::max(1, L));
}

// Stored layers [first, first + count): the trace's captures, read in place,
// and their head averages.
struct LayerGroup {
  std::vector<const models::LayerCapture*> captures;
  std::vector<analysis::AttentionMatrix> averages;
};

LayerGroup capture_group(const models::Trace& trace, int first, int count) {
  LayerGroup g;
  for (int l = first; l < first + count; ++l) {
    g.captures.push_back(trace.storedLayer(l));
    g.averages.push_back(g.captures.back()->headAverage());
  }
  return g;
}

LayerAnalysis empty_layer(int layer, int H, const TraceAnalysisOptions& options) {
  LayerAnalysis out;
  out.layer = layer;
  out.heads.resize(static_cast<std::size_t>(H + 1));
  if (options.valueSpaceCurves) {
    out.valueCurves.resize(static_cast<std::size_t>(H + 1));
    out.valueCosines.resize(static_cast<std::size_t>(H + 1));
  }
  if (!options.contextQueries.empty()) out.contextCurves.resize(static_cast<std::size_t>(H + 1));
  return out;
}

// The layer's head average into out's slot 0.
void analyse_average(const analysis::AttentionMatrix& average,
                     const analysis::HeadAnalysisParams& params, LayerAnalysis& out) {
  try {
    out.heads[0] = analysis::analyse_head(average.view(), {}, 0, params);
  } catch (const analysis::PersistenceTooLarge& e) {
    throw analysis::PersistenceTooLarge("layer " + std::to_string(out.layer) +
                                        ", head average: " + e.what());
  }
}

// Head `local` of `cap` (the model's head cap.first_head + local) into out.
void analyse_captured_head(const models::LayerCapture& cap, int local,
                           const analysis::HeadAnalysisParams& params,
                           const TraceAnalysisOptions& options, LayerAnalysis& out) {
  const int h = cap.first_head + local;
  const auto slot = static_cast<std::size_t>(h + 1);
  const analysis::AttentionView map = cap.attentionOf(local);
  const std::span<const float> values = cap.valuesOf(local);
  try {
    out.heads[slot] = analysis::analyse_head(map, values, cap.head_dim, params);
  } catch (const analysis::PersistenceTooLarge& e) {
    throw analysis::PersistenceTooLarge("layer " + std::to_string(out.layer) + ", head " +
                                        std::to_string(h) + ": " + e.what());
  }
  if (options.valueSpaceCurves) {
    out.valueCurves[slot] =
        analysis::value_space_curve(map, values, cap.head_dim, params.valueSpace);
    if (out.heads[slot].valueSpace)
      out.valueCosines[slot] =
          analysis::value_cosine_counts(values, cap.head_dim, out.heads[slot].valueSpace->keys);
  }
  for (int query : options.contextQueries) {
    analysis::ValueSpaceParams at = params.valueSpace;
    at.query = query;
    at.randomSubsets = 0;
    out.contextCurves[slot].push_back(analysis::value_space_curve(map, values, cap.head_dim, at));
  }
}

// Every head and head average of a group on every core.
std::vector<LayerAnalysis> analyse_group(const LayerGroup& group, int first,
                                         const analysis::HeadAnalysisParams& params,
                                         const TraceAnalysisOptions& options) {
  const auto count = group.captures.size();
  const int H = count ? group.captures.front()->heads : 0;
  std::vector<LayerAnalysis> layers;
  for (std::size_t g = 0; g < count; ++g)
    layers.push_back(empty_layer(first + static_cast<int>(g), H, options));
  analysis::parallel_for(static_cast<int>(count) * (H + 1), [&](int k) {
    const auto g = static_cast<std::size_t>(k / (H + 1));
    const int h = k % (H + 1) - 1;  // -1: the layer's head average
    if (h < 0)
      analyse_average(group.averages[g], params, layers[g]);
    else
      analyse_captured_head(*group.captures[g], h, params, options, layers[g]);
  });
  return layers;
}

// A layer the trace does not store, recomputed and analysed a group of heads
// at a time (TraceAnalysisOptions::recomputedGroupBytes). Its head average is
// summed over the groups in head order, so it equals headAverage()'s; it is
// analysed with the last group.
LayerAnalysis analyse_recomputed_layer(const models::Trace& trace, int l,
                                       const analysis::HeadAnalysisParams& params,
                                       const TraceAnalysisOptions& options) {
  const int H = trace.heads();
  const auto T = static_cast<std::uint64_t>(trace.tokens());
  LayerAnalysis out = empty_layer(l, H, options);
  const std::uint64_t headBytes = std::max<std::uint64_t>(1, T * T * sizeof(float));
  // At least a head per thread: each thread holds its own analysis's n^2
  // arrays anyway, and fewer heads would leave threads idle at every group.
  const std::uint64_t fitting =
      std::max<std::uint64_t>(options.recomputedGroupBytes / headBytes,
                              static_cast<std::uint64_t>(analysis::thread_count()));
  const int groupHeads = static_cast<int>(
      std::clamp<std::uint64_t>(fitting, 1, static_cast<std::uint64_t>(std::max(H, 1))));
  analysis::AttentionMatrix average;
  average.size = trace.tokens();
  average.causal = trace.causal();
  average.weights.assign(static_cast<std::size_t>(T * T), 0.0f);
  int seen = 0;
  trace.forEachHeadGroup(l, groupHeads, [&](models::LayerCapture&& group) {
    group.addMapsTo(average.weights);
    seen += group.heads;
    const bool last = seen == H;
    if (last)
      for (float& w : average.weights) w /= static_cast<float>(H);
    // The average first when it is due: the longest item starts first.
    const int extra = last ? 1 : 0;
    analysis::parallel_for(group.heads + extra, [&](int k) {
      if (k < extra)
        analyse_average(average, params, out);
      else
        analyse_captured_head(group, k - extra, params, options, out);
    });
  });
  return out;
}

}  // namespace

void analyse_trace_layers(const models::Trace& trace, const analysis::HeadAnalysisParams& given,
                          const TraceAnalysisOptions& options,
                          const std::function<void(LayerAnalysis&&)>& onLayer,
                          const std::function<bool(double)>& progress) {
  const int L = trace.layers();
  // A stop request reaches a head's persistence too, not only the layer loop.
  std::atomic<double> done{0.0};
  analysis::HeadAnalysisParams params = given;
  if (progress) params.progress = [&progress, &done](double) { return progress(done.load()); };
  const int group = layers_per_group(trace);
  for (int first = 0; first < L;) {
    int count = 1;
    if (!trace.layerStored(first)) {
      onLayer(analyse_recomputed_layer(trace, first, params, options));
    } else {
      while (count < std::min(group, L - first) && trace.layerStored(first + count)) ++count;
      for (LayerAnalysis& layer :
           analyse_group(capture_group(trace, first, count), first, params, options))
        onLayer(std::move(layer));
    }
    first += count;
    done = static_cast<double>(first) / L;
    if (progress && !progress(done.load())) throw analysis::AnalysisStopped();
  }
}

int TraceAnalysis::thresholdIndex(double threshold) const {
  for (std::size_t k = 0; k < params.thresholds.size(); ++k)
    if (std::abs(params.thresholds[k] - threshold) < 1e-12) return static_cast<int>(k);
  return -1;
}

std::shared_ptr<const TraceAnalysis> analyse_trace(const models::Trace& trace,
                                                   const analysis::HeadAnalysisParams& params,
                                                   const TraceAnalysisOptions& options,
                                                   const std::function<bool(double)>& progress) {
  auto r = std::make_shared<TraceAnalysis>();
  r->layers = trace.layers();
  r->heads = trace.heads();
  r->tokens = trace.tokens();
  r->causal = trace.causal();
  r->params = params;
  r->settings = options.settings;
  r->params.progress = {};
  r->topologyForAllHeads = params.topology;
  // The effective rank after the layers takes a last share of the progress bar.
  const double layerShare =
      options.effectiveRank ? static_cast<double>(r->layers) / (r->layers + 1) : 1.0;
  std::function<bool(double)> layerProgress;
  if (progress) layerProgress = [&](double f) { return progress(f * layerShare); };
  analyse_trace_layers(
      trace, params, options,
      [&r](LayerAnalysis&& layer) {
        r->perHead.push_back(std::move(layer.heads));
        if (!layer.valueCurves.empty()) r->valueCurves.push_back(std::move(layer.valueCurves));
      },
      layerProgress);
  if (options.effectiveRank) r->effectiveRank = models::effective_rank_per_layer(trace);
  return r;
}

std::shared_ptr<const TraceAnalysis> analyse_shown_run(
    const models::Trace& trace, const AnalysisSettings& settings,
    const std::function<bool(double)>& progress) {
  analysis::HeadAnalysisParams params = head_analysis_params(settings, trace.tokens());
  params.topology = trace.tokens() <= kTopologyForAllHeadsMaxTokens;
  return analyse_trace(trace, params, {.effectiveRank = true, .settings = settings}, progress);
}

}  // namespace sinkscope::document
