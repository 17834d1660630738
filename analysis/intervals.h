#pragma once

#include <span>

namespace sinkscope::analysis {

// A 95% interval of a pooled proportion.
struct ProportionInterval {
  double estimate = 0.0;
  double lo = 0.0, hi = 0.0;
  double effectiveSize = 0.0;  // n of the Clopper-Pearson interval
};

// The exact (Clopper-Pearson) interval of x successes in n trials; x and n
// may be fractional (beta quantiles), as an effective sample size gives them.
ProportionInterval clopper_pearson95(double x, double n);

// The same at another two-sided confidence in (0, 1), e.g. 1 - 0.05 / m for
// one of m simultaneous (Bonferroni) intervals.
ProportionInterval clopper_pearson(double x, double n, double confidence);

// The 95% interval of p = sum(successes) / sum(trials) where the trials come
// in clusters (sentence i holds trials[i] of them, successes[i] of which
// succeeded) and trials within a cluster may be correlated: Clopper-Pearson
// at the effective sample size of Korn and Graubard (1998). The effective
// size is p (1 - p) / V, V the cluster-robust (between-sentence) variance of
// p, capped at the trial count and scaled by (z / t_{clusters - 1})^2 for the
// few clusters V rests on. Where V says too little (fewer than 5 sentences
// hold a success, or fewer than 5 a failure: p at or near 0 or 1) it is
// Kish's (sum m)^2 / sum m^2, every sentence one trial, the worst case; where
// every sentence is alike, the trial count. The interval never collapses to
// a point at the boundary. Clusters with no
// trials are left out; with none, the interval is NaN. Successes must lie in
// [0, trials] (std::invalid_argument otherwise).
ProportionInterval clustered_proportion95(std::span<const double> successes,
                                          std::span<const double> trials);

}  // namespace sinkscope::analysis
