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

// Layers [first, first + count): their captures (the trace's own where it
// stores them, recomputed otherwise) and head averages.
struct LayerGroup {
  std::vector<std::unique_ptr<models::LayerCapture>> recomputed;
  std::vector<const models::LayerCapture*> captures;
  std::vector<analysis::AttentionMatrix> averages;
};

LayerGroup capture_group(const models::Trace& trace, int first, int count) {
  LayerGroup g;
  for (int l = first; l < first + count; ++l) {
    const models::LayerCapture* stored = trace.storedLayer(l);
    if (!stored) {
      g.recomputed.push_back(std::make_unique<models::LayerCapture>(trace.layer(l)));
      stored = g.recomputed.back().get();
    }
    g.captures.push_back(stored);
    g.averages.push_back(stored->headAverage());
  }
  return g;
}

// Every head and head average of a group on every core.
std::vector<LayerAnalysis> analyse_group(const LayerGroup& group, int first,
                                         const analysis::HeadAnalysisParams& params,
                                         const TraceAnalysisOptions& options) {
  const auto count = group.captures.size();
  const int H = count ? group.captures.front()->heads : 0;
  std::vector<LayerAnalysis> layers(count);
  for (std::size_t g = 0; g < count; ++g) {
    layers[g].layer = first + static_cast<int>(g);
    layers[g].heads.resize(static_cast<std::size_t>(H + 1));
    if (options.valueSpaceCurves) {
      layers[g].valueCurves.resize(static_cast<std::size_t>(H + 1));
      layers[g].valueCosines.resize(static_cast<std::size_t>(H + 1));
    }
    if (!options.contextQueries.empty())
      layers[g].contextCurves.resize(static_cast<std::size_t>(H + 1));
  }
  analysis::parallel_for(static_cast<int>(count) * (H + 1), [&](int k) {
    const auto g = static_cast<std::size_t>(k / (H + 1));
    const int h = k % (H + 1) - 1;  // -1: the layer's head average
    const models::LayerCapture& cap = *group.captures[g];
    LayerAnalysis& out = layers[g];
    const auto slot = static_cast<std::size_t>(h + 1);
    try {
      out.heads[slot] =
          h < 0 ? analysis::analyse_head(group.averages[g].view(), {}, 0, params)
                : analysis::analyse_head(cap.attentionOf(h), cap.valuesOf(h), cap.head_dim, params);
    } catch (const analysis::PersistenceTooLarge& e) {
      throw analysis::PersistenceTooLarge(
          "layer " + std::to_string(out.layer) +
          (h < 0 ? ", head average: " : ", head " + std::to_string(h) + ": ") + e.what());
    }
    if (h < 0) return;
    if (options.valueSpaceCurves) {
      out.valueCurves[slot] = analysis::value_space_curve(cap.attentionOf(h), cap.valuesOf(h),
                                                          cap.head_dim, params.valueSpace);
      if (out.heads[slot].valueSpace)
        out.valueCosines[slot] = analysis::value_cosine_counts(cap.valuesOf(h), cap.head_dim,
                                                               out.heads[slot].valueSpace->keys);
    }
    for (int query : options.contextQueries) {
      analysis::ValueSpaceParams at = params.valueSpace;
      at.query = query;
      at.randomSubsets = 0;
      out.contextCurves[slot].push_back(
          analysis::value_space_curve(cap.attentionOf(h), cap.valuesOf(h), cap.head_dim, at));
    }
  });
  return layers;
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
  for (int first = 0; first < L; first += group) {
    const int count = std::min(group, L - first);
    for (LayerAnalysis& layer :
         analyse_group(capture_group(trace, first, count), first, params, options))
      onLayer(std::move(layer));
    done = static_cast<double>(first + count) / L;
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
