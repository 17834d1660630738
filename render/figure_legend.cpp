#include "render/figure_legend.h"

#include <QPainter>
#include <algorithm>
#include <cmath>

namespace sinkscope::render {

namespace {

// Sizes in units of the text's height, as matplotlib's legend measures them.
struct Metrics {
  double line, sample, gap, pad, columnGap;
  explicit Metrics(const QFontMetricsF& m)
      : line(m.height() * 1.1), sample(m.height() * 2.0), gap(m.height() * 0.4),
        pad(m.height() * 0.3), columnGap(m.height() * 1.0) {}
};

}  // namespace

LegendLayout legend_layout(const std::vector<QString>& texts, const QFontMetricsF& metrics, QSizeF area) {
  LegendLayout out;
  out.plotArea = area;
  const std::size_t n = texts.size();
  if (n == 0) return out;
  const Metrics u(metrics);
  double widest = 0;
  for (const QString& t : texts) widest = std::max(widest, metrics.horizontalAdvance(t));
  const double entry = u.sample + u.gap + widest;
  // Beside: one column at the right, from the top.
  const double besideWidth = entry + 2 * u.pad;
  const double besideHeight = static_cast<double>(n) * u.line + 2 * u.pad;
  const bool besideFits = besideWidth <= 0.45 * area.width() && besideHeight <= area.height();
  // Below: as many columns as the width holds.
  const auto columns = static_cast<std::size_t>(std::clamp(
      std::floor((area.width() - 2 * u.pad + u.columnGap) / (entry + u.columnGap)), 1.0,
      static_cast<double>(n)));
  const auto rows = (n + columns - 1) / columns;
  const double belowHeight = static_cast<double>(rows) * u.line + 2 * u.pad;
  const bool belowFits = entry + 2 * u.pad <= area.width();
  // A long legend below, in one column, would leave a strip of axes: then
  // more columns with texts shortened in the middle, as few as keep the
  // legend within 30% of the height.
  std::size_t squeezedColumns = 0;
  double squeezedText = widest;
  if (!besideFits && belowHeight > 0.3 * area.height())
    for (std::size_t c = columns + 1; c <= std::min<std::size_t>(n, 4); ++c) {
      const double room = (area.width() - 2 * u.pad - static_cast<double>(c - 1) * u.columnGap) /
                              static_cast<double>(c) - u.sample - u.gap;
      const double height = static_cast<double>((n + c - 1) / c) * u.line + 2 * u.pad;
      if (room < 3 * metrics.averageCharWidth()) break;
      squeezedColumns = c, squeezedText = room;
      if (height <= 0.3 * area.height()) break;
    }
  const double besideArea = (area.width() - besideWidth) * area.height();
  const double belowArea = area.width() * (area.height() - belowHeight);
  // Below only while the axes keep most of the height (a low figure's plot
  // would become a strip).
  const bool belowKeepsAxes = belowHeight <= 0.4 * area.height();
  out.beside = besideFits && (!belowFits || !belowKeepsAxes || besideArea > belowArea);
  const bool squeezed = !out.beside && squeezedColumns > 0;
  const double textRoom = squeezed ? squeezedText
                          : out.beside || belowFits ? widest
                                                    : std::max(10.0, area.width() - 2 * u.pad - u.sample - u.gap);
  const std::size_t perRow = out.beside ? 1 : squeezed ? squeezedColumns : (belowFits ? columns : 1);
  const std::size_t rowCount = (n + perRow - 1) / perRow;
  const double boxWidth = out.beside ? besideWidth
                                     : static_cast<double>(perRow) * (u.sample + u.gap + textRoom) +
                                           static_cast<double>(perRow - 1) * u.columnGap + 2 * u.pad;
  const double boxHeight = static_cast<double>(rowCount) * u.line + 2 * u.pad;
  if (out.beside) {
    out.box = QRectF(area.width() - boxWidth, 0, boxWidth, boxHeight);
    out.plotArea = QSizeF(area.width() - boxWidth, area.height());
  } else {
    // Centred under the axes.
    out.box = QRectF(std::max(0.0, (area.width() - boxWidth) / 2), area.height() - boxHeight,
                     std::min(boxWidth, area.width()), boxHeight);
    out.plotArea = QSizeF(area.width(), area.height() - boxHeight);
  }
  const double columnWidth = u.sample + u.gap + textRoom + u.columnGap;
  for (std::size_t k = 0; k < n; ++k) {
    // Filled by columns (as a reader reads a list), rows first when below.
    const std::size_t row = out.beside ? k : k / perRow, column = out.beside ? 0 : k % perRow;
    const double x = out.box.left() + u.pad + static_cast<double>(column) * columnWidth;
    const double y = out.box.top() + u.pad + static_cast<double>(row) * u.line;
    out.samples.emplace_back(x, y, u.sample, u.line);
    const QString shown = metrics.elidedText(texts[k], Qt::ElideMiddle, textRoom + 0.5);
    out.shown.push_back(shown);
    out.texts.emplace_back(x + u.sample + u.gap, y + (u.line - metrics.height()) / 2,
                           metrics.horizontalAdvance(shown), metrics.height());
  }
  return out;
}

void legend_paint(QPainter& p, const LegendLayout& layout, const std::vector<LegendEntry>& entries,
                  const QFont& font) {
  p.save();
  p.setRenderHint(QPainter::Antialiasing, true);
  p.setFont(font);
  for (std::size_t k = 0; k < entries.size() && k < layout.samples.size(); ++k) {
    const LegendEntry& e = entries[k];
    const QRectF s = layout.samples[k];
    const double y = s.center().y();
    if (e.pen.style() != Qt::NoPen) {
      p.setPen(e.pen);
      p.drawLine(QPointF(s.left(), y), QPointF(s.right(), y));
    }
    if (e.markerSize > 0) {
      p.setPen(e.markerEdge.isValid() ? QPen(e.markerEdge, 0.8) : QPen(Qt::NoPen));
      p.setBrush(e.markerColour);
      p.drawEllipse(QPointF(s.center().x(), y), e.markerSize / 2, e.markerSize / 2);
    }
    p.setPen(Qt::black);
    p.drawText(layout.texts[k], Qt::AlignLeft | Qt::AlignVCenter, layout.shown[k]);
  }
  p.restore();
}

}  // namespace sinkscope::render
