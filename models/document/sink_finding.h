#pragma once
// The one sentence the classroom caption states about the selected head: the
// share of its queries' attention that goes to the first token, against what
// a uniform head would give it, and whether that makes the head a sink.
#include <string>

#include "models/document/trace_analysis.h"

namespace sinkscope::document {

// "Layer 2, head 1: the first token takes 69% of the attention (25% if
// spread evenly): a sink.": alpha_0, its uniform baseline (metrics.md). `head` -1: the layer's
// average head. A sink head: alpha_0 above the analysis's eps (metrics.md).
std::string sink_finding(const TraceAnalysis& analysis, int layer, int head);

}  // namespace sinkscope::document
