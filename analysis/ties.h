#pragma once

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace sinkscope::analysis {

// Two scores within this relative tolerance are equal as real numbers
// (metrics.md s. 6, 7): the lower index wins, so float rounding (batched or
// single pass, thread count) never decides a tie.
inline constexpr double kTieTolerance = 1e-6;

// a and b are equal within the tolerance relative to `scale` (a magnitude of
// the quantities compared, so a difference that cancels is judged against the
// terms it came from).
inline bool tied(double a, double b, double scale) {
  return std::abs(a - b) <= kTieTolerance * scale;
}

// An attention weight reaches a graph threshold theta (metrics.md s. 3: an
// edge when A[i][j] >= theta) when it is at least theta up to the tie
// tolerance: a weight equal to theta as a real number (1/100 at theta = 0.01
// in a uniform row of 100) is an edge whichever way float32 rounded it.
inline bool reaches_threshold(double weight, double theta) {
  return weight >= theta - kTieTolerance * std::abs(theta);
}

// Indices 0..n-1 by descending value; values within the relative tolerance
// of a group's largest member form a group, ordered by index. Values equal
// as real numbers and apart only by rounding (far below the tolerance) so
// always go to the lower index; a chain of values each within the tolerance
// of the next but not of the largest is split where it leaves the tolerance.
template <class ValueOf>
std::vector<int> descending_order_with_ties(int n, ValueOf value) {
  std::vector<int> order(static_cast<std::size_t>(std::max(0, n)));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int z) { return value(x) > value(z); });
  for (std::size_t start = 0; start < order.size();) {
    const double leader = static_cast<double>(value(order[start]));
    std::size_t end = start + 1;
    while (end < order.size()) {
      const double next = static_cast<double>(value(order[end]));
      if (!tied(leader, next, std::max(std::abs(leader), std::abs(next)))) break;
      ++end;
    }
    std::sort(order.begin() + static_cast<std::ptrdiff_t>(start),
              order.begin() + static_cast<std::ptrdiff_t>(end));
    start = end;
  }
  return order;
}

}  // namespace sinkscope::analysis
