#include "models/views/head_view.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sinkscope::views {

HeadViewData head_view_without_selection(HeadViewData data) {
  data.selectedQuery = data.selectedKey = -1;
  return data;
}

void head_view_check(const HeadViewData& d) {
  const std::size_t cells = d.tokens.size() * d.tokens.size();
  for (const HeadViewHead& head : d.heads)
    if (head.weights.size() != cells)
      throw std::invalid_argument("head view: " + head.name + ": weights are not tokens x tokens");
}

std::vector<HeadViewLine> head_view_lines(const HeadViewData& d) {
  std::vector<HeadViewLine> lines;
  const int n = static_cast<int>(d.tokens.size());
  for (int h = 0; h < static_cast<int>(d.heads.size()); ++h) {
    const std::vector<float>& w = d.heads[static_cast<std::size_t>(h)].weights;
    for (int q = 0; q < n; ++q) {
      if (d.focusQuery >= 0 && q != d.focusQuery) continue;
      for (int k = 0; k < n; ++k) {
        if (d.focusKey >= 0 && k != d.focusKey) continue;
        const double v = w[static_cast<std::size_t>(q) * static_cast<std::size_t>(n) +
                           static_cast<std::size_t>(k)];
        if (std::isfinite(v) && v >= kHeadViewMinWeight)
          lines.push_back({h, q, k, std::min(1.0, v)});
      }
    }
  }
  return lines;
}

}  // namespace sinkscope::views
