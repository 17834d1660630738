#pragma once
// Where the labels of a picture's points go so that none covers another
// label or a marker (the 3-D views on every frame and their flat exports),
// and which labels along a grid's axis (tokens of a map, layers and heads of
// the overview) are drawn at any cell size.
#include <QLineF>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <vector>

namespace sinkscope::render {

// A label of a point in a flat picture: where it may go is decided by
// place_point_labels.
struct PointLabel {
  QPointF point;          // the marker's centre
  double radius = 0;      // the marker's
  QSizeF text;            // the text's width and height
  double priority = 0.0;  // larger first (a point's size)
};
struct PlacedLabel {
  bool shown = false;
  QRectF box;           // the text's box
  bool leader = false;  // drawn away from its point: a line joins them
};
// Every label beside its point (right, left, above, below, then farther out
// with a leader line), covering no marker, label or leader line placed before
// it, its own leader crossing no other marker or label,
// inside `bounds`; a label with no free place is left out (an empty text: a
// marker only, in the way of the others). Taken in priority order (ties by
// index).
std::vector<PlacedLabel> place_point_labels(const std::vector<PointLabel>& labels,
                                            const QRectF& bounds);
// The leader line from a marker's edge (centre `point`, `radius`) to the
// nearest side of its label's `box`; null when the label touches the marker.
QLineF leader_line(const QPointF& point, double radius, const QRectF& box);

// How the labels along one axis of a grid are drawn when a cell is
// `pixelsPerCell` tall: the font follows the cells down to `smallestFontPx`;
// below that every `stride`-th label is kept so that no two touch.
struct GridLabelPlan {
  int fontPx = 11;
  int stride = 1;
};
GridLabelPlan grid_label_plan(double pixelsPerCell, int largestFontPx = 11,
                              int smallestFontPx = 7);

// Which of `count` labels to draw, `stride` apart from the first; a `lit`
// label (the selection) is always drawn and the kept labels closer to it than
// `stride` give way.
std::vector<bool> grid_labels_shown(int count, int stride, const std::vector<int>& lit = {});

}  // namespace sinkscope::render
