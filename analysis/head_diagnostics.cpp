#include "analysis/head_diagnostics.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace sinkscope::analysis {

namespace {

// The diagnostics of one row, on a map already checked.
HeadDiagnostics diagnostics_of_row(const AttentionView& a, int query, int topN) {
  const int T = a.size;
  if (T == 0) return {};
  if (query < 0) query = T - 1;
  if (query >= T)
    throw std::out_of_range("head_diagnostics_at: query " + std::to_string(query) + " >= T");
  HeadDiagnostics d;
  std::vector<double> row;
  for (int j = 0; j < T; ++j) {
    if (!a.visible(query, j)) continue;
    const double w = a.at(query, j);
    row.push_back(w);
    if (w > 0.0) d.entropy -= w * std::log(w);
  }
  const int n = std::min<int>(std::max(topN, 1), static_cast<int>(row.size()));
  std::partial_sort(row.begin(), row.begin() + n, row.end(), std::greater<>());
  d.top1 = row.empty() ? 0.0 : row.front();
  for (int k = 0; k < std::min<int>(std::max(topN, 0), static_cast<int>(row.size())); ++k)
    d.topNMass += row[static_cast<std::size_t>(k)];
  d.sinkAttention = a.at(query, 0);
  d.currentToken = a.at(query, query);
  return d;
}

}  // namespace

HeadDiagnostics head_diagnostics_at(const AttentionView& a, int query, int topN) {
  attention_require_usable(a, "head_diagnostics");
  return diagnostics_of_row(a, query, topN);
}

HeadDiagnostics head_diagnostics_mean(const AttentionView& a, int topN) {
  attention_require_usable(a, "head_diagnostics");
  HeadDiagnostics mean;
  const int T = a.size;
  if (T < 2) return T == 1 ? diagnostics_of_row(a, 0, topN) : mean;
  for (int i = 1; i < T; ++i) {
    const HeadDiagnostics d = diagnostics_of_row(a, i, topN);
    mean.entropy += d.entropy;
    mean.top1 += d.top1;
    mean.sinkAttention += d.sinkAttention;
    mean.currentToken += d.currentToken;
    mean.topNMass += d.topNMass;
  }
  const double n = T - 1;
  mean.entropy /= n;
  mean.top1 /= n;
  mean.sinkAttention /= n;
  mean.currentToken /= n;
  mean.topNMass /= n;
  return mean;
}

}  // namespace sinkscope::analysis
