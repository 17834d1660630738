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

std::vector<PlacedLabel> place_point_labels(const std::vector<PointLabel>& labels,
                                            const QRectF& bounds) {
  std::vector<std::size_t> order(labels.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return labels[a].priority > labels[b].priority;
  });
  // Every marker is in the way of every label (its own included).
  std::vector<QRectF> taken;
  for (const PointLabel& l : labels)
    taken.emplace_back(l.point.x() - l.radius, l.point.y() - l.radius, 2 * l.radius, 2 * l.radius);
  std::vector<PlacedLabel> placed(labels.size());
  for (std::size_t i : order) {
    const PointLabel& l = labels[i];
    if (l.text.isEmpty()) continue;  // a marker only
    const double w = l.text.width(), h = l.text.height();
    // Candidate boxes at `gap` from the marker: right, left, above, below and
    // the four diagonals; nearer rings first.
    for (const double gap : {2.0, 2.0 + 1.2 * h, 2.0 + 2.5 * h}) {
      const double d = l.radius + gap;
      const QPointF c = l.point;
      const QRectF candidates[] = {{c.x() + d, c.y() - h / 2, w, h},
                                   {c.x() - d - w, c.y() - h / 2, w, h},
                                   {c.x() - w / 2, c.y() - d - h, w, h},
                                   {c.x() - w / 2, c.y() + d, w, h},
                                   {c.x() + d * 0.7, c.y() - d * 0.7 - h, w, h},
                                   {c.x() - d * 0.7 - w, c.y() - d * 0.7 - h, w, h},
                                   {c.x() + d * 0.7, c.y() + d * 0.7, w, h},
                                   {c.x() - d * 0.7 - w, c.y() + d * 0.7, w, h}};
      for (const QRectF& box : candidates) {
        if (!bounds.contains(box)) continue;
        if (std::any_of(taken.begin(), taken.end(),
                        [&](const QRectF& t) { return t.intersects(box); }))
          continue;
        placed[i] = {true, box, gap > 2.0};
        taken.push_back(box);
        break;
      }
      if (placed[i].shown) break;
    }
  }
  return placed;
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
