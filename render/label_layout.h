#pragma once
// Which labels of a picture to draw so that none overlaps another (issue 17,
// defect 12): the labels are taken in priority order (larger first, ties by
// index) and one is kept when its box meets no box kept before it. Used by
// the 3-D views on every frame and by their flat exports.
#include <QRectF>
#include <vector>

namespace sinkscope::render {

struct LabelBox {
  QRectF box;             // where the label would be drawn
  double priority = 0.0;  // larger first (a point's size)
};

// true for the labels to draw; `at most` keeps at most that many (0: no limit).
std::vector<bool> label_layout(const std::vector<LabelBox>& labels, std::size_t atMost = 0);

}  // namespace sinkscope::render
