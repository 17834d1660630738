#include "analysis/value_directions.h"

#include <algorithm>
#include <cmath>

namespace sinkscope::analysis {

ValueCosineCounts& ValueCosineCounts::operator+=(const ValueCosineCounts& o) {
  for (int b = 0; b < kValueCosineBins; ++b) {
    sinkToOthers[static_cast<std::size_t>(b)] += o.sinkToOthers[static_cast<std::size_t>(b)];
    otherPairs[static_cast<std::size_t>(b)] += o.otherPairs[static_cast<std::size_t>(b)];
  }
  return *this;
}

int value_cosine_bin(double cosine) {
  const double c = std::clamp(cosine, -1.0, 1.0);
  return std::min(kValueCosineBins - 1,
                  static_cast<int>(std::floor((c + 1.0) * kValueCosineBins / 2.0)));
}

namespace {

// The unit vector of key k's value in double; empty for a zero vector.
std::vector<double> value_direction(std::span<const float> values, int headDim, int k) {
  std::vector<double> u(static_cast<std::size_t>(headDim));
  double norm2 = 0.0;
  for (int c = 0; c < headDim; ++c) {
    u[static_cast<std::size_t>(c)] = values[static_cast<std::size_t>(k * headDim + c)];
    norm2 += u[static_cast<std::size_t>(c)] * u[static_cast<std::size_t>(c)];
  }
  if (!(norm2 > 0) || !std::isfinite(norm2)) return {};
  const double norm = std::sqrt(norm2);
  for (double& x : u) x /= norm;
  return u;
}

// Summed in one fixed order (no BLAS): a cosine on a bin's edge falls in the
// same bin on every machine.
double unit_dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (std::size_t c = 0; c < a.size(); ++c) s += a[c] * b[c];
  return s;
}

}  // namespace

ValueCosineCounts value_cosine_counts(std::span<const float> values, int headDim,
                                      const std::vector<int>& keys) {
  ValueCosineCounts counts;
  if (headDim <= 0) return counts;
  const int T = static_cast<int>(values.size()) / headDim;
  std::vector<int> others;
  for (int k : keys)
    if (k > 0 && k < T) others.push_back(k);
  std::vector<std::vector<double>> u;
  for (int k : others) u.push_back(value_direction(values, headDim, k));
  const bool sinkSeen = std::find(keys.begin(), keys.end(), 0) != keys.end() && T > 0;
  if (sinkSeen) {
    const std::vector<double> u0 = value_direction(values, headDim, 0);
    if (!u0.empty())
      for (const auto& uk : u)
        if (!uk.empty())
          ++counts.sinkToOthers[static_cast<std::size_t>(value_cosine_bin(unit_dot(u0, uk)))];
  }
  // The pairs among at most kValueCosineMaxKeys of the others, evenly spread.
  const std::size_t n = u.size();
  const std::size_t step = (n + kValueCosineMaxKeys - 1) / kValueCosineMaxKeys;
  std::vector<std::size_t> kept;
  for (std::size_t i = 0; i < n; i += std::max<std::size_t>(1, step))
    if (!u[i].empty()) kept.push_back(i);
  for (std::size_t a = 0; a < kept.size(); ++a)
    for (std::size_t b = a + 1; b < kept.size(); ++b)
      ++counts.otherPairs[static_cast<std::size_t>(
          value_cosine_bin(unit_dot(u[kept[a]], u[kept[b]])))];
  return counts;
}

}  // namespace sinkscope::analysis
