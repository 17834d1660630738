#include "ui/run_analysis.h"

#include <atomic>
#include <cmath>

#include "models/experiments.h"
#include "models/model.h"
#include "ui/job_runner.h"

namespace sinkscope::ui {

int RunAnalysis::thresholdIndex(double threshold) const {
  for (std::size_t k = 0; k < params.thresholds.size(); ++k)
    if (std::abs(params.thresholds[k] - threshold) < 1e-12) return static_cast<int>(k);
  return -1;
}

std::shared_ptr<const RunAnalysis> run_analysis_compute(
    const models::Trace& trace, const std::function<bool(double)>& progress) {
  auto r = std::make_shared<RunAnalysis>();
  r->layers = trace.layers();
  r->heads = trace.heads();
  r->tokens = trace.tokens();
  r->causal = trace.causal();
  r->topologyForAllHeads = r->tokens <= kTopologyForAllHeadsMaxTokens;
  r->params.topology = r->topologyForAllHeads;
  r->perHead.resize(static_cast<std::size_t>(r->layers));
  // A cancelled run stops inside a head's persistence too, not only between
  // layers (the stop request stays out of the stored params).
  std::atomic<double> done{0.0};
  analysis::HeadAnalysisParams params = r->params;
  if (progress) params.progress = [&progress, &done](double) { return progress(done.load()); };
  for (int l = 0; l < r->layers; ++l) {
    const models::LayerCapture cap = trace.layer(l);
    const analysis::AttentionMatrix average = cap.headAverage();
    auto& row = r->perHead[static_cast<std::size_t>(l)];
    row.resize(static_cast<std::size_t>(cap.heads + 1));
    try {
      analysis::parallel_for(cap.heads + 1, [&](int k) {
        const int h = k - 1;
        row[static_cast<std::size_t>(k)] = analysis::analyse_head(
            h < 0 ? average.view() : cap.attentionOf(h),
            h < 0 ? std::span<const float>() : cap.valuesOf(h), cap.head_dim, params);
      });
    } catch (const analysis::AnalysisStopped&) {
      throw JobCancelled();
    }
    done = static_cast<double>(l + 1) / (r->layers + 1);
    if (progress && !progress(static_cast<double>(l + 1) / (r->layers + 1))) throw JobCancelled();
  }
  r->effectiveRank = models::effective_rank_per_layer(trace);
  return r;
}

}  // namespace sinkscope::ui
