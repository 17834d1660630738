#include "analysis/bootstrap.h"

#include <cstdint>
#include <stdexcept>

#include "analysis/random.h"
#include "analysis/sinks.h"

namespace sinkscope::analysis {

std::vector<int> bootstrap_resample_counts(std::size_t n, unsigned long long seed, int b) {
  SplitMix64 next(seed * kSplitMix64Increment + static_cast<std::uint64_t>(b) + 1);
  std::vector<int> counts(n, 0);
  for (std::size_t i = 0; i < n; ++i) ++counts[next() % n];
  return counts;
}

std::pair<double, double> percentile_interval95(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("percentile_interval95: no values");
  return {percentile_linear(values, 2.5), percentile_linear(std::move(values), 97.5)};
}

}  // namespace sinkscope::analysis
