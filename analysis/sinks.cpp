#include "analysis/sinks.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "analysis/ties.h"

namespace sinkscope::analysis {

std::vector<int> SinkSet::keys() const {
  std::vector<int> k;
  for (const auto& s : sinks) k.push_back(s.key);
  return k;
}

double percentile_linear(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  if (p < 0.0 || p > 100.0) throw std::invalid_argument("percentile: p must be in [0, 100]");
  // Two order statistics (linear time) instead of a sort: maps hold T^2 weights.
  const double position = p / 100.0 * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(position));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  const double f = position - static_cast<double>(lo);
  const auto at = values.begin() + static_cast<std::ptrdiff_t>(lo);
  std::nth_element(values.begin(), at, values.end());
  const double low = *at;
  // The next order statistic is the smallest of what nth_element left above lo.
  const double high = hi == lo ? low : *std::min_element(at + 1, values.end());
  return low + f * (high - low);
}

SinkSet sink_set(const AttentionView& a, const SinkSetParams& params) {
  attention_require_usable(a, "sink_set");
  const int T = a.size;
  SinkSet set;
  std::vector<double> visible;
  visible.reserve(static_cast<std::size_t>(T) * static_cast<std::size_t>(T));
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j)
      if (a.visible(i, j)) visible.push_back(a.at(i, j));
  set.tau = percentile_linear(std::move(visible), params.percentile);

  // One pass in memory order (row by row): each column's received attention,
  // summed over queries in the same order as a column-wise loop would, and
  // how many of its weights reach tau.
  std::vector<double> columnSums(static_cast<std::size_t>(T), 0.0);
  std::vector<int> hitCounts(static_cast<std::size_t>(T), 0);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) {
      if (!a.visible(i, j)) continue;
      const float w = a.at(i, j);
      columnSums[static_cast<std::size_t>(j)] += w;
      // tau is itself one of the weights (or between two): a weight equal to
      // it as a real number reaches it whichever way rounding went.
      if (reaches_threshold(w, set.tau) && w > 0.0f) ++hitCounts[static_cast<std::size_t>(j)];
    }
  const double columnThreshold = percentile_linear(columnSums, params.percentile);

  const bool allQueries = params.denominator == SinkSetParams::Denominator::AllQueries;
  set.keysAll.reserve(static_cast<std::size_t>(T));
  for (int j = 0; j < T; ++j) {
    const int seeing = a.visible_query_count(j);
    const int queries = allQueries ? T : seeing;
    const int hits = hitCounts[static_cast<std::size_t>(j)];
    const double received = columnSums[static_cast<std::size_t>(j)];
    SinkToken s{j, queries > 0 ? static_cast<double>(hits) / queries : 0.0,
                seeing > 0 ? received / seeing : 0.0};
    const bool sink = params.mode == SinkSetParams::Mode::Percentile
                          ? (queries > 0 && s.frequency >= params.gamma && hits > 0)
                          : reaches_threshold(received, columnThreshold) && received > 0.0;
    set.keysAll.push_back(s);
    if (sink) set.sinks.push_back(s);
  }
  return set;
}

const char* sink_denominator_name(SinkSetParams::Denominator d) {
  return d == SinkSetParams::Denominator::AllQueries ? "all" : "visible";
}

double sink_concentration(const AttentionView& a, const std::vector<int>& sinkKeys) {
  attention_require_usable(a, "sink_concentration");
  const int T = a.size;
  std::vector<bool> isSink(static_cast<std::size_t>(T), false);
  for (int k : sinkKeys)
    if (k >= 0 && k < T) isSink[static_cast<std::size_t>(k)] = true;
  double total = 0.0, onSinks = 0.0;
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) {
      if (!a.visible(i, j) || (i == 0 && j == 0)) continue;
      total += a.at(i, j);
      if (isSink[static_cast<std::size_t>(j)]) onSinks += a.at(i, j);
    }
  return total > 0.0 ? 100.0 * onSinks / total : 0.0;
}

}  // namespace sinkscope::analysis
