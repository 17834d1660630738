#include "render/label_layout.h"

#include <algorithm>
#include <cmath>
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

GridLabelPlan grid_label_plan(double pixelsPerCell, int largestFontPx, int smallestFontPx) {
  GridLabelPlan plan;
  if (!(pixelsPerCell > 0.0)) return {smallestFontPx, 1 << 20};
  // A label takes its font size across the axis (glyphs stay inside it).
  const double fitting = std::floor(pixelsPerCell + 1e-9);
  plan.fontPx = static_cast<int>(std::clamp<double>(fitting, smallestFontPx, largestFontPx));
  const double needed = plan.fontPx;
  plan.stride = std::max(1, static_cast<int>(std::ceil(needed / pixelsPerCell - 1e-9)));
  return plan;
}

std::vector<bool> grid_labels_shown(int count, int stride, const std::vector<int>& lit) {
  std::vector<bool> shown(static_cast<std::size_t>(std::max(count, 0)), false);
  stride = std::max(stride, 1);
  for (int i = 0; i < count; i += stride) shown[static_cast<std::size_t>(i)] = true;
  for (int l : lit) {
    if (l < 0 || l >= count) continue;
    for (int i = std::max(0, l - stride + 1); i < std::min(count, l + stride); ++i)
      shown[static_cast<std::size_t>(i)] = false;
  }
  for (int l : lit)
    if (l >= 0 && l < count) shown[static_cast<std::size_t>(l)] = true;
  return shown;
}

}  // namespace sinkscope::render
