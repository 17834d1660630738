#pragma once
// The first-token sink of a set of heads (a layer, a model, a checkpoint):
// alpha_0, the mean attention key 0 receives (metrics.md s. 1), against what a
// uniform head would give it, summarised over the heads the way the papers
// report it: mean alpha_0, mean boost, Gu et al.'s sink rate and the share of
// strong sinks.
#include <limits>

namespace sinkscope::analysis {

// Gu et al.'s sink rate counts a head whose alpha_0 exceeds this (the sink
// metric's default eps, metrics.md s. 1).
inline constexpr double kDefaultSinkMetricEps = 0.3;
// A head's first token is a strong sink when alpha_0 is at least this many
// times its uniform baseline.
inline constexpr double kStrongSinkBoost = 3.0;

inline bool is_sink_rate_head(double alpha0, double eps = kDefaultSinkMetricEps) {
  return alpha0 > eps;
}
inline bool is_strong_sink(double boost) { return boost >= kStrongSinkBoost; }

struct FirstTokenSinkSummary {
  static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  int heads = 0;
  double alpha0 = kNone;         // mean over heads
  double boost = kNone;          // mean of alpha_0 / uniform baseline
  double strongShare = kNone;    // share of heads with boost >= kStrongSinkBoost
  double sinkRate = kNone;       // share of heads with alpha_0 > eps
  double concentration = kNone;  // mean sink concentration (%), where given
};

// Heads added one by one, summarised as means (NaN with no head).
class FirstTokenSinkTally {
 public:
  explicit FirstTokenSinkTally(double eps = kDefaultSinkMetricEps) : eps_(eps) {}
  // A head: its alpha_0, the uniform baseline of key 0 at its length
  // (sink_uniform_baseline(T, 0, causal)) and its sink concentration in %.
  void add(double alpha0, double uniform0, double concentration = 0.0);
  FirstTokenSinkSummary summary() const;

 private:
  double eps_;
  int heads_ = 0;
  double alpha0_ = 0, boost_ = 0, strong_ = 0, rate_ = 0, concentration_ = 0;
};

}  // namespace sinkscope::analysis
