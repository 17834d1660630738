#pragma once
// Progress and stopping for long analyses, as everywhere in SinkScope: the
// caller passes bool(double fraction done); the analysis reports now and then,
// and a false answer stops it by throwing AnalysisStopped. An empty function
// is never asked.
#include <functional>
#include <stdexcept>

namespace sinkscope::analysis {

using AnalysisProgress = std::function<bool(double fraction)>;

class AnalysisStopped : public std::runtime_error {
 public:
  AnalysisStopped() : std::runtime_error("analysis stopped on request") {}
};

inline void progress_check(const AnalysisProgress& progress, double fraction) {
  if (progress && !progress(fraction)) throw AnalysisStopped();
}

}  // namespace sinkscope::analysis
