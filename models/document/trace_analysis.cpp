#include "models/document/trace_analysis.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "models/experiments.h"
#include "models/model.h"

namespace sinkscope::document {

void analyse_trace_layers(const models::Trace& trace, const analysis::HeadAnalysisParams& given,
                          const TraceAnalysisOptions& options,
                          const std::function<void(LayerAnalysis&&)>& onLayer,
                          const std::function<bool(double)>& progress) {
  const int L = trace.layers(), H = trace.heads();
  // A stop request reaches a head's persistence too, not only the layer loop.
  std::atomic<double> done{0.0};
  analysis::HeadAnalysisParams params = given;
  if (progress) params.progress = [&progress, &done](double) { return progress(done.load()); };
  const int group = std::clamp((analysis::thread_count() + H) / (H + 1), 1, std::max(1, L));
  for (int first = 0; first < L; first += group) {
    const int count = std::min(group, L - first);
    std::vector<models::LayerCapture> captures;
    std::vector<analysis::AttentionMatrix> averages;
    for (int l = first; l < first + count; ++l) {
      captures.push_back(trace.layer(l));
      averages.push_back(captures.back().headAverage());
    }
    std::vector<LayerAnalysis> layers(static_cast<std::size_t>(count));
    for (int g = 0; g < count; ++g) {
      layers[static_cast<std::size_t>(g)].layer = first + g;
      layers[static_cast<std::size_t>(g)].heads.resize(static_cast<std::size_t>(H + 1));
      if (options.valueSpaceCurves)
        layers[static_cast<std::size_t>(g)].valueCurves.resize(static_cast<std::size_t>(H + 1));
    }
    analysis::parallel_for(count * (H + 1), [&](int k) {
      const auto g = static_cast<std::size_t>(k / (H + 1));
      const int h = k % (H + 1) - 1;  // -1: the layer's head average
      const models::LayerCapture& cap = captures[g];
      LayerAnalysis& out = layers[g];
      const auto slot = static_cast<std::size_t>(h + 1);
      if (h < 0) {
        out.heads[slot] = analysis::analyse_head(averages[g].view(), {}, 0, params);
        return;
      }
      out.heads[slot] =
          analysis::analyse_head(cap.attentionOf(h), cap.valuesOf(h), cap.head_dim, params);
      if (options.valueSpaceCurves)
        out.valueCurves[slot] = analysis::value_space_curve(cap.attentionOf(h), cap.valuesOf(h),
                                                            cap.head_dim, params.valueSpace);
    });
    done = static_cast<double>(first + count) / (L + 1);
    for (LayerAnalysis& layer : layers) onLayer(std::move(layer));
    if (progress && !progress(static_cast<double>(first + count) / (L + 1)))
      throw analysis::AnalysisStopped();
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
  r->params.progress = {};
  r->topologyForAllHeads = params.topology;
  analyse_trace_layers(
      trace, params, options,
      [&r](LayerAnalysis&& layer) {
        r->perHead.push_back(std::move(layer.heads));
        if (!layer.valueCurves.empty()) r->valueCurves.push_back(std::move(layer.valueCurves));
      },
      progress);
  if (options.effectiveRank) r->effectiveRank = models::effective_rank_per_layer(trace);
  return r;
}

}  // namespace sinkscope::document
