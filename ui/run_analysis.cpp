#include "ui/run_analysis.h"

#include "models/document/analysis_settings.h"
#include "models/model.h"
#include "ui/job_runner.h"

namespace sinkscope::ui {

std::shared_ptr<const TraceAnalysis> run_analysis_compute(
    const models::Trace& trace, const document::AnalysisSettings& settings,
    const std::function<bool(double)>& progress) {
  // A panel's numbers are analyze's rows for that head under the same settings.
  analysis::HeadAnalysisParams params = document::head_analysis_params(settings, trace.tokens());
  params.topology = trace.tokens() <= kTopologyForAllHeadsMaxTokens;
  try {
    return document::analyse_trace(trace, params, {.effectiveRank = true, .settings = settings},
                                   progress);
  } catch (const analysis::AnalysisStopped&) {
    throw JobCancelled();
  }
}

}  // namespace sinkscope::ui
