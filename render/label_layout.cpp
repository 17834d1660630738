#include "render/label_layout.h"

#include <algorithm>
#include <numeric>

namespace sinkscope::render {

std::vector<bool> label_layout(const std::vector<LabelBox>& labels, std::size_t atMost) {
  std::vector<std::size_t> order(labels.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return labels[a].priority > labels[b].priority;
  });
  std::vector<bool> shown(labels.size(), false);
  std::vector<QRectF> kept;
  for (std::size_t i : order) {
    if (atMost > 0 && kept.size() >= atMost) break;
    const QRectF& box = labels[i].box;
    if (std::any_of(kept.begin(), kept.end(), [&](const QRectF& k) { return k.intersects(box); }))
      continue;
    kept.push_back(box);
    shown[i] = true;
  }
  return shown;
}

}  // namespace sinkscope::render
