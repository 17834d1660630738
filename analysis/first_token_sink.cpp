#include "analysis/first_token_sink.h"

namespace sinkscope::analysis {

void FirstTokenSinkTally::add(double alpha0, double uniform0, double concentration) {
  const double boost = alpha0 / uniform0;
  alpha0_ += alpha0;
  boost_ += boost;
  strong_ += is_strong_sink(boost) ? 1.0 : 0.0;
  rate_ += is_sink_rate_head(alpha0, eps_) ? 1.0 : 0.0;
  concentration_ += concentration;
  ++heads_;
}

FirstTokenSinkSummary FirstTokenSinkTally::summary() const {
  FirstTokenSinkSummary s;
  s.heads = heads_;
  if (heads_ == 0) return s;
  const double n = heads_;
  s.alpha0 = alpha0_ / n;
  s.boost = boost_ / n;
  s.strongShare = strong_ / n;
  s.sinkRate = rate_ / n;
  s.concentration = concentration_ / n;
  return s;
}

}  // namespace sinkscope::analysis
