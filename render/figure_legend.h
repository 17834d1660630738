#pragma once
// A figure's legend beside or below its axes, never on the data: each entry a
// line sample (with its marker) and its text, in the figure's font. The
// placement is whichever of the two leaves the axes the larger area. Below,
// entries take as many columns as their full texts fit; a text wider than
// the whole figure breaks between words (only a single word wider still is
// shortened, in the middle).
#include <QColor>
#include <QFont>
#include <QFontMetricsF>
#include <QPen>
#include <QRectF>
#include <QSizeF>
#include <QString>
#include <vector>

class QPainter;

namespace sinkscope::render {

struct LegendEntry {
  QString text;
  QPen pen;                 // the line (Qt::NoPen: markers only)
  double markerSize = 0.0;  // a filled circle's diameter; 0: none
  QColor markerColour;      // its fill
  QColor markerEdge = {};   // its outline (invalid: none)
  QColor fill = {};         // bars: a filled box instead of the line (invalid: none)
};

struct LegendLayout {
  bool beside = false;         // right of the axes (else below them)
  bool inside = false;         // in a corner of the axes that no data reaches
  QRectF box;                  // in the area's coordinates
  std::vector<QRectF> samples;  // where each entry's line sample goes
  std::vector<QRectF> texts;    // and its text
  std::vector<QString> shown;   // each text as drawn, its lines joined by '\n'
  double linePitch = 0;         // from one line of a text to the next
  QSizeF plotArea;              // what is left for the axes, at the area's top left
};

// The legend of `texts` in a `area`-sized figure, measured with `metrics`.
// `squareAxes`: the axes keep a square of what is left (a plot of equal
// scale), so the placement leaving the larger square wins. `decoration`: the
// width and height the axes' ticks and labels take of the area (the axes are
// what is left of it).
LegendLayout legend_layout(const std::vector<QString>& texts, const QFontMetricsF& metrics,
                           QSizeF area, bool squareAxes = false, QSizeF decoration = {});

// The legend of `texts` in one column inside `axes` (a rectangle of the
// `area`-sized figure) at `corner` (0 top right, 1 top left, 2 bottom right,
// 3 bottom left); an empty box when it would take more than 60% of the axes'
// width or 65% of their height. The axes keep the whole area.
LegendLayout legend_inside(const std::vector<QString>& texts, const QFontMetricsF& metrics,
                           QSizeF area, const QRectF& axes, int corner);

// Draws the entries where `layout` put them.
void legend_paint(QPainter& p, const LegendLayout& layout, const std::vector<LegendEntry>& entries,
                  const QFont& font);

}  // namespace sinkscope::render
