#include "render/figure_legend.h"

#include <QPainter>
#include <algorithm>
#include <cmath>

#include "render/text_wrap.h"

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

LegendLayout legend_layout(const std::vector<QString>& texts, const QFontMetricsF& metrics,
                           QSizeF area, bool squareAxes, QSizeF decoration) {
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
  // A square plot leaves a wide area's right side empty: its legend may take more of it.
  const bool besideFits =
      besideWidth <= (squareAxes ? 0.6 : 0.45) * area.width() && besideHeight <= area.height();
  // Below: as many columns as the width holds.
  const auto columns = static_cast<std::size_t>(std::clamp(
      std::floor((area.width() - 2 * u.pad + u.columnGap) / (entry + u.columnGap)), 1.0,
      static_cast<double>(n)));
  const auto rows = (n + columns - 1) / columns;
  const double belowHeight = static_cast<double>(rows) * u.line + 2 * u.pad;
  const bool belowFits = entry + 2 * u.pad <= area.width();
  // The axes' own area: what the ticks and axis labels leave of the plot's.
  const auto axes = [&](double w, double h) {
    const double aw = std::max(0.0, w - decoration.width()),
                 ah = std::max(0.0, h - decoration.height());
    return squareAxes ? std::pow(std::min(aw, ah), 2) : aw * ah;
  };
  const double besideArea = axes(area.width() - besideWidth, area.height());
  const double belowArea = axes(area.width(), area.height() - belowHeight);
  // Below only while the axes keep most of the height (a low figure's plot
  // would become a strip).
  const bool belowKeepsAxes = belowHeight <= 0.4 * area.height();
  out.beside = besideFits && (!belowFits || !belowKeepsAxes || besideArea > belowArea);
  // A text is never shortened while it fits the figure's width: a long
  // legend takes more of the height instead (a reader cannot guess an
  // elided series name).
  const double textRoom = out.beside || belowFits
                              ? widest
                              : std::max(10.0, area.width() - 2 * u.pad - u.sample - u.gap);
  const std::size_t perRow = out.beside ? 1 : (belowFits ? columns : 1);
  // A text wider than the figure breaks between words (a word wider still is
  // shortened): its entry takes as many lines.
  std::vector<QStringList> lines;
  std::size_t lineCount = 0;
  for (const QString& t : texts) {
    QStringList wrapped =
        metrics.horizontalAdvance(t) <= textRoom + 0.5
            ? QStringList{t}
            : text_wrap(t, [&](const QString& piece) { return metrics.horizontalAdvance(piece); }, textRoom);
    for (QString& line : wrapped) line = metrics.elidedText(line, Qt::ElideMiddle, textRoom + 0.5);
    lineCount += static_cast<std::size_t>(wrapped.size());
    lines.push_back(std::move(wrapped));
  }
  const std::size_t rowCount = perRow == 1 ? lineCount : (n + perRow - 1) / perRow;
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
  out.linePitch = u.line;
  const double columnWidth = u.sample + u.gap + textRoom + u.columnGap;
  std::size_t line = 0;  // in one column: the entry's first line
  for (std::size_t k = 0; k < n; ++k) {
    // Filled by columns (as a reader reads a list), rows first when below.
    const std::size_t row = perRow == 1 ? line : k / perRow, column = perRow == 1 ? 0 : k % perRow;
    line += static_cast<std::size_t>(lines[k].size());
    const double x = out.box.left() + u.pad + static_cast<double>(column) * columnWidth;
    const double y = out.box.top() + u.pad + static_cast<double>(row) * u.line;
    out.samples.emplace_back(x, y, u.sample, u.line);
    double wide = 0;
    for (const QString& l : lines[k]) wide = std::max(wide, metrics.horizontalAdvance(l));
    out.shown.push_back(lines[k].join(QLatin1Char('\n')));
    out.texts.emplace_back(x + u.sample + u.gap, y + (u.line - metrics.height()) / 2, wide,
                           static_cast<double>(lines[k].size() - 1) * u.line + metrics.height());
  }
  return out;
}

LegendLayout legend_inside(const std::vector<QString>& texts, const QFontMetricsF& metrics,
                           QSizeF area, const QRectF& axes, int corner) {
  LegendLayout out;
  out.plotArea = area;
  out.inside = true;
  if (texts.empty()) return out;
  const Metrics u(metrics);
  double widest = 0;
  for (const QString& t : texts) widest = std::max(widest, metrics.horizontalAdvance(t));
  const double width = u.sample + u.gap + widest + 2 * u.pad;
  const double height = static_cast<double>(texts.size()) * u.line + 2 * u.pad;
  if (width > 0.6 * axes.width() || height > 0.65 * axes.height()) return out;
  const double inset = u.pad;  // off the axes' lines
  const double x = corner % 2 == 0 ? axes.right() - width - inset : axes.left() + inset;
  const double y = corner < 2 ? axes.top() + inset : axes.bottom() - height - inset;
  out.box = QRectF(x, y, width, height);
  out.linePitch = u.line;
  for (std::size_t k = 0; k < texts.size(); ++k) {
    const double top = y + u.pad + static_cast<double>(k) * u.line;
    out.samples.emplace_back(x + u.pad, top, u.sample, u.line);
    out.shown.push_back(texts[k]);
    out.texts.emplace_back(x + u.pad + u.sample + u.gap, top + (u.line - metrics.height()) / 2,
                           metrics.horizontalAdvance(texts[k]), metrics.height());
  }
  return out;
}

void legend_paint(QPainter& p, const LegendLayout& layout, const std::vector<LegendEntry>& entries,
                  const QFont& font) {
  p.save();
  p.setRenderHint(QPainter::Antialiasing, true);
  p.setFont(font);
  if (layout.inside) {  // over the grid's lines (no data there): a white ground, no frame
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(255, 255, 255, 220));
    p.drawRect(layout.box);
  }
  for (std::size_t k = 0; k < entries.size() && k < layout.samples.size(); ++k) {
    const LegendEntry& e = entries[k];
    const QRectF s = layout.samples[k];
    const double y = s.center().y();
    if (e.fill.isValid()) {  // a bar's colour: a box as high as the text's x-height
      const double side = 0.55 * s.height();
      p.setPen(Qt::NoPen);
      p.setBrush(e.fill);
      p.drawRect(QRectF(s.center().x() - side, y - side / 2, 2 * side, side));
    } else if (e.pen.style() != Qt::NoPen) {
      p.setPen(e.pen);
      p.drawLine(QPointF(s.left(), y), QPointF(s.right(), y));
    }
    if (e.markerSize > 0) {
      p.setPen(e.markerEdge.isValid() ? QPen(e.markerEdge, 0.8) : QPen(Qt::NoPen));
      p.setBrush(e.markerColour);
      p.drawEllipse(QPointF(s.center().x(), y), e.markerSize / 2, e.markerSize / 2);
    }
    p.setPen(Qt::black);
    const QStringList lines = layout.shown[k].split(QLatin1Char('\n'));
    QRectF line = layout.texts[k];
    line.setHeight(layout.texts[k].height() - static_cast<double>(lines.size() - 1) * layout.linePitch);
    for (const QString& text : lines) {
      p.drawText(line, Qt::AlignLeft | Qt::AlignVCenter, text);
      line.translate(0, layout.linePitch);
    }
  }
  p.restore();
}

}  // namespace sinkscope::render
