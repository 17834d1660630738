#include "analysis/run_correspondence.h"

#include <algorithm>

namespace sinkscope::analysis {

int layer_at_same_depth(int layer, int layersA, int layersB) {
  if (layersB <= 1) return 0;
  if (layersA <= 1) return 0;
  layer = std::clamp(layer, 0, layersA - 1);
  if (layersA == layersB) return layer;
  // In integers: round(layer * (B - 1) / (A - 1)), halves upward.
  const long long num = static_cast<long long>(layer) * (layersB - 1);
  const long long den = layersA - 1;
  return static_cast<int>((2 * num + den) / (2 * den));
}

int counterpart_head(int head, int headsA, int headsB) {
  if (head < 0 || headsA != headsB || head >= headsB) return kCounterpartHeadAverage;
  return head;
}

std::vector<int> token_counterparts(const std::vector<TokenSpan>& a, const std::vector<TokenSpan>& b) {
  std::vector<int> out = token_alignment(a, b);
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (out[k] >= 0) continue;
    const int begin = a[k].first;
    if (begin < 0) {  // covers no characters: a special token
      if (k < b.size() && b[k].first < 0) out[k] = static_cast<int>(k);
      continue;
    }
    for (std::size_t j = 0; j < b.size(); ++j)
      if (b[j].first >= 0 && b[j].first <= begin && begin < b[j].second) {
        out[k] = static_cast<int>(j);
        break;
      }
  }
  return out;
}

std::vector<int> tokens_landing_on(const std::vector<int>& counterparts, int tokenB) {
  std::vector<int> out;
  if (tokenB < 0) return out;
  for (std::size_t k = 0; k < counterparts.size(); ++k)
    if (counterparts[k] == tokenB) out.push_back(static_cast<int>(k));
  return out;
}

}  // namespace sinkscope::analysis
