#include "ui/run_analysis.h"

#include "models/model.h"
#include "ui/job_runner.h"

namespace sinkscope::ui {

std::shared_ptr<const TraceAnalysis> run_analysis_compute(
    const models::Trace& trace, const std::function<bool(double)>& progress) {
  analysis::HeadAnalysisParams params;
  params.topology = trace.tokens() <= kTopologyForAllHeadsMaxTokens;
  try {
    return document::analyse_trace(trace, params, {.effectiveRank = true}, progress);
  } catch (const analysis::AnalysisStopped&) {
    throw JobCancelled();
  }
}

}  // namespace sinkscope::ui
