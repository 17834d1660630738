#include "models/document/sink_finding.h"

#include <cmath>

#include "analysis/first_token_sink.h"
#include "analysis/sink_metric.h"

namespace sinkscope::document {

namespace {
std::string percent(double share) { return std::to_string(std::lround(100.0 * share)) + "%"; }
}  // namespace

std::string sink_finding(const TraceAnalysis& a, int layer, int head) {
  const analysis::HeadAnalysis& h = a.at(layer, head);
  const double alpha0 = h.keyImportance.empty() ? 0.0 : h.keyImportance.front();
  const double uniform =
      a.tokens > 0 ? analysis::sink_uniform_baseline(a.tokens, 0, a.causal) : 0.0;
  const bool sink = analysis::is_sink_rate_head(alpha0, a.settings.eps);
  const std::string place =
      "Layer " + std::to_string(layer) + ", " +
      (head < 0 ? std::string("the heads' average") : "head " + std::to_string(head));
  return place + ": the first token takes " + percent(alpha0) + " of the attention (" +
         percent(uniform) + " if spread evenly)" + (sink ? ": a sink." : ": no sink here.");
}

}  // namespace sinkscope::document
