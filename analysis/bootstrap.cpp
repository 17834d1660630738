#include "analysis/bootstrap.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "analysis/random.h"

namespace sinkscope::analysis {

std::vector<int> bootstrap_resample_counts(std::size_t n, unsigned long long seed, int b) {
  SplitMix64 next(seed * kSplitMix64Increment + static_cast<std::uint64_t>(b) + 1);
  std::vector<int> counts(n, 0);
  for (std::size_t i = 0; i < n; ++i) ++counts[next() % n];
  return counts;
}

std::pair<double, double> percentile_interval95(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("percentile_interval95: no values");
  std::sort(values.begin(), values.end());
  auto quantile = [&](double p) {
    const double x = p * static_cast<double>(values.size() - 1);
    const auto i = static_cast<std::size_t>(x);
    const double f = x - static_cast<double>(i);
    return i + 1 < values.size() ? values[i] + f * (values[i + 1] - values[i]) : values[i];
  };
  return {quantile(0.025), quantile(0.975)};
}

}  // namespace sinkscope::analysis
