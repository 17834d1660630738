#pragma once
// Cooperative stopping for long analyses: a caller passes a function that
// says whether the work is still wanted; the analysis asks it now and then
// and throws AnalysisStopped when it is not. An empty function never stops.
#include <functional>
#include <stdexcept>

namespace sinkscope::analysis {

using StopRequested = std::function<bool()>;

class AnalysisStopped : public std::runtime_error {
 public:
  AnalysisStopped() : std::runtime_error("analysis stopped on request") {}
};

inline void stop_check(const StopRequested& stop) {
  if (stop && stop()) throw AnalysisStopped();
}

}  // namespace sinkscope::analysis
