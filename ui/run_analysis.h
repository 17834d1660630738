#pragma once
// The analyses of one run, computed once off the GUI thread right after the
// forward pass: every metric summary of every head and of each layer's head
// average (the document layer's one per-head loop), and per-layer profiles.
// Every panel draws from this cache, so changing the selection recomputes
// nothing.
#include <functional>
#include <memory>

#include "models/document/analysis_settings.h"
#include "models/document/trace_analysis.h"

namespace sinkscope::ui {

using document::TraceAnalysis;

using document::kTopologyForAllHeadsMaxTokens;

// Analyses every head of `trace` with `settings` (analyze's, turned into each
// head's parameters as analyze turns them); `progress` as everywhere (false
// aborts: JobCancelled).
std::shared_ptr<const TraceAnalysis> run_analysis_compute(
    const models::Trace& trace, const document::AnalysisSettings& settings,
    const std::function<bool(double)>& progress);

}  // namespace sinkscope::ui
