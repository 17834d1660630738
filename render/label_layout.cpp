#include "render/label_layout.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace sinkscope::render {

namespace {

// Whether the segment from a to b passes through `box`.
bool segment_meets(const QPointF& a, const QPointF& b, const QRectF& box) {
  if (box.contains(a) || box.contains(b)) return true;
  const QLineF segment(a, b);
  const QPointF corners[] = {box.topLeft(), box.topRight(), box.bottomRight(), box.bottomLeft()};
  for (int k = 0; k < 4; ++k)
    if (segment.intersects(QLineF(corners[k], corners[(k + 1) % 4]), nullptr) ==
        QLineF::BoundedIntersection)
      return true;
  return false;
}

}  // namespace

QLineF leader_line(const QPointF& point, double radius, const QRectF& box) {
  const QPointF end(std::clamp(point.x(), box.left(), box.right()),
                    std::clamp(point.y(), box.top(), box.bottom()));
  const QLineF line(point, end);
  if (line.length() <= radius + 1) return {};
  return {line.pointAt(radius / line.length()), end};
}

std::vector<PlacedLabel> place_point_labels(const std::vector<PointLabel>& labels,
                                            const QRectF& bounds) {
  std::vector<std::size_t> order(labels.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return labels[a].priority > labels[b].priority;
  });
  // Every marker is in the way of every label (its own included).
  std::vector<QRectF> markers, boxes;
  for (const PointLabel& l : labels)
    markers.emplace_back(l.point.x() - l.radius, l.point.y() - l.radius, 2 * l.radius,
                         2 * l.radius);
  std::vector<QLineF> leaders;  // drawn so far: no later label covers one
  std::vector<PlacedLabel> placed(labels.size());
  for (std::size_t i : order) {
    const PointLabel& l = labels[i];
    if (l.text.isEmpty()) continue;  // a marker only
    const double w = l.text.width(), h = l.text.height();
    // Strict: nothing crosses a leader line; else (a crowd with no such
    // place) lines may cross, rather than a label be left out.
    const auto free = [&](const QRectF& box, const QLineF& leader, bool strict) {
      if (!bounds.contains(box)) return false;
      const auto hits = [&](const QRectF& t) { return t.intersects(box); };
      if (std::any_of(markers.begin(), markers.end(), hits) ||
          std::any_of(boxes.begin(), boxes.end(), hits))
        return false;
      if (!strict) return true;
      if (std::any_of(leaders.begin(), leaders.end(),
                      [&](const QLineF& d) { return segment_meets(d.p1(), d.p2(), box); }))
        return false;
      if (leader.isNull()) return true;
      // Its leader crosses no other label and no other marker.
      // (A marker under its own, where the line starts, cannot be avoided.)
      for (std::size_t k = 0; k < markers.size(); ++k)
        if (k != i && !markers[k].contains(leader.p1()) &&
            segment_meets(leader.p1(), leader.p2(), markers[k]))
          return false;
      return std::none_of(boxes.begin(), boxes.end(), [&](const QRectF& t) {
        return segment_meets(leader.p1(), leader.p2(), t);
      });
    };
    // Candidate boxes at `gap` from the marker: right, left, above, below and
    // the four diagonals; nearer rings first.
    for (const bool strict : {true, false})
      for (const double gap : {2.0, 2.0 + 1.2 * h, 2.0 + 2.5 * h}) {
        if (placed[i].shown) break;
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
          const QLineF leader = gap > 2.0 ? leader_line(c, l.radius, box) : QLineF();
          if (!free(box, leader, strict)) continue;
          placed[i] = {true, box, gap > 2.0};
          boxes.push_back(box);
          if (!leader.isNull()) leaders.push_back(leader);
          break;
        }
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
