#pragma once
// The bootstrap of a corpus's pooled numbers: resamples of the sentences with
// replacement, each a reproducible function of (seed, resample index), and the
// 95% percentile interval of a statistic over the resamples.
#include <cstddef>
#include <utility>
#include <vector>

namespace sinkscope::analysis {

// Resample `b` of `n` records, drawn with replacement from `seed`: how many
// times each record is drawn (the counts sum to n). The same (n, seed, b)
// gives the same counts on every machine, so shards merged in any order pool
// to the same intervals.
std::vector<int> bootstrap_resample_counts(std::size_t n, unsigned long long seed, int b);

// The 2.5% and 97.5% quantiles of `values` (linear interpolation between order
// statistics; requires at least one value).
std::pair<double, double> percentile_interval95(std::vector<double> values);

}  // namespace sinkscope::analysis
