#include "render/head_view.h"
#include "render/token_label.h"

#include <QFontMetricsF>
#include <QMouseEvent>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "render/panel_export.h"
#include "render/text_wrap.h"

namespace sinkscope::render {

namespace {

QColor qcolour(const views::Rgb& c, double alpha = 1.0) {
  QColor q = QColor::fromRgbF(static_cast<float>(c.r), static_cast<float>(c.g), static_cast<float>(c.b));
  q.setAlphaF(static_cast<float>(std::clamp(alpha, 0.0, 1.0)));
  return q;
}

// Where things are in a w x h drawing: the band above the columns, each
// token row's height, the two columns' inner edges and the labels' size.
struct Geometry {
  double top = 0, row = 0, leftEdge = 0, rightEdge = 0, labelPt = 8;
  double titlePt = 10;
};

// The title broken into lines that fit (at " | ", then between words).
QStringList title_lines(const views::HeadViewData& d, double w, const QFont& font,
                        QPaintDevice* device) {
  const QFontMetricsF metrics = device ? QFontMetricsF(font, device) : QFontMetricsF(font);
  return text_wrap(
      QString::fromStdString(d.title),
      [&](const QString& t) { return metrics.horizontalAdvance(t); }, w - 16);
}

Geometry geometry(const views::HeadViewData& d, double w, double h, double fontPt, int titleLines) {
  Geometry g;
  g.titlePt = fontPt + 2;
  const double lines = (d.note.empty() ? 0.0 : 1.0) + (d.heads.size() > 1 ? 1.0 : 0.0);
  g.top = 6 + g.titlePt * 1.5 * std::max(1, titleLines) + lines * fontPt * 1.5 + fontPt * 0.8;
  const auto n = std::max<std::size_t>(1, d.tokens.size());
  g.row = std::min(fontPt * 1.6, std::max(1.0, (h - g.top - 6) / static_cast<double>(n)));
  g.labelPt = std::max(3.0, std::min(fontPt, g.row / 1.3));
  g.leftEdge = w * 0.36;
  g.rightEdge = w * 0.64;
  return g;
}

double row_centre(const Geometry& g, int k) { return g.top + (k + 0.5) * g.row; }

}  // namespace

void paint_head_view(QPainter& p, const views::HeadViewData& d, double w, double h, double fontPt,
                     const QString& fontFamily, bool visibleSpaces) {
  QFont title(fontFamily);
  title.setPointSizeF(fontPt + 2);
  const QStringList titleText = title_lines(d, w, title, p.device());
  const Geometry g = geometry(d, w, h, fontPt, static_cast<int>(titleText.size()));
  p.setRenderHint(QPainter::Antialiasing, true);
  QFont text(fontFamily);
  text.setPointSizeF(fontPt);
  p.setPen(Qt::black);
  p.setFont(title);
  double y = 6;
  for (const QString& line : titleText) {
    p.drawText(QRectF(8, y - 2, w - 16, g.titlePt * 1.5), Qt::AlignLeft | Qt::AlignVCenter, line);
    y += g.titlePt * 1.5;
  }
  p.setFont(text);
  const QFontMetricsF textMetrics(text, p.device());
  if (!d.note.empty()) {
    p.setPen(QColor(90, 90, 90));
    p.drawText(QPointF(8, y + textMetrics.ascent()),
               textMetrics.elidedText(QString::fromStdString(d.note), Qt::ElideRight, w - 16));
    y += fontPt * 1.5;
  }
  if (d.heads.size() > 1) {  // which colour is which head
    double x = 8;
    for (const views::HeadViewHead& head : d.heads) {
      const QString name = QString::fromStdString(head.name);
      const double advance = textMetrics.horizontalAdvance(name) + fontPt * 2.2;
      if (x + advance > w) break;
      p.fillRect(QRectF(x, y + 1, fontPt * 0.9, fontPt * 0.9), qcolour(head.colour));
      p.setPen(Qt::black);
      p.drawText(QPointF(x + fontPt * 1.2, y + textMetrics.ascent()), name);
      x += advance;
    }
  }
  // The lines first, the labels over their ends.
  const std::vector<views::HeadViewLine> lines = views::head_view_lines(d);
  const bool focused = d.focusQuery >= 0 || d.focusKey >= 0;
  for (const views::HeadViewLine& l : lines) {
    QPen pen(qcolour(d.heads[static_cast<std::size_t>(l.head)].colour, l.opacity), focused ? 2.0 : 1.4);
    pen.setCapStyle(Qt::RoundCap);
    p.setPen(pen);
    p.drawLine(QPointF(g.leftEdge, row_centre(g, l.query)), QPointF(g.rightEdge, row_centre(g, l.key)));
  }
  QFont label(fontFamily);
  label.setPointSizeF(g.labelPt);
  p.setFont(label);
  for (int k = 0; k < static_cast<int>(d.tokens.size()); ++k) {
    const QString token =
        figure_label(token_shown(d.tokens[static_cast<std::size_t>(k)]), visibleSpaces);
    const double c = row_centre(g, k);
    for (int side : {0, 1}) {
      const bool focus = side == 0 ? k == d.focusQuery : k == d.focusKey;
      const bool selected = side == 0 ? k == d.selectedQuery : k == d.selectedKey;
      const QRectF box = side == 0 ? QRectF(4, c - g.row / 2, g.leftEdge - 10, g.row)
                                   : QRectF(g.rightEdge + 6, c - g.row / 2, w - g.rightEdge - 10, g.row);
      if (focus) p.fillRect(box, QColor(255, 236, 200));
      QFont f = label;
      f.setBold(selected);
      p.setFont(f);
      p.setPen(selected ? qcolour(views::kSelectedHighlight) : QColor(30, 30, 30));
      p.drawText(box, (side == 0 ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter,
                 QStringLiteral("%1 %2").arg(k).arg(token));
    }
  }
}

std::pair<int, int> head_view_token_at(const views::HeadViewData& d, double w, double h,
                                       double fontPt, QPointF at, const QString& fontFamily) {
  QFont title(fontFamily);
  title.setPointSizeF(fontPt + 2);
  const Geometry g = geometry(d, w, h, fontPt, static_cast<int>(title_lines(d, w, title, nullptr).size()));
  const int row = static_cast<int>(std::floor((at.y() - g.top) / g.row));
  if (at.y() < g.top || row < 0 || row >= static_cast<int>(d.tokens.size())) return {-1, -1};
  if (at.x() < g.leftEdge) return {0, row};
  if (at.x() > g.rightEdge) return {1, row};
  return {-1, -1};
}

namespace {
constexpr double kScreenFontPt = 9.0;
}

HeadView::HeadView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumSize(200, 160);
  setFocusPolicy(Qt::ClickFocus);  // Ctrl+E exports the focused view
  setAttribute(Qt::WA_OpaquePaintEvent, false);
}

void HeadView::setData(views::HeadViewData data) {
  views::head_view_check(data);
  data_ = std::move(data);
  hoverSide_ = hoverToken_ = -1;
  update();
}

void HeadView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), Qt::white);
  views::HeadViewData shown = data_;
  if (hoverSide_ == 0) shown.focusQuery = hoverToken_;
  if (hoverSide_ == 1) shown.focusKey = hoverToken_;
  paint_head_view(p, shown, width(), height(), kScreenFontPt, font().family(), true);
}

void HeadView::setHover(int side, int token) {
  if (side == hoverSide_ && token == hoverToken_) return;
  hoverSide_ = side;
  hoverToken_ = token;
  update();
  Q_EMIT tokenHovered(side, token);
}

void HeadView::mouseMoveEvent(QMouseEvent* event) {
  const auto [side, token] =
      head_view_token_at(data_, width(), height(), kScreenFontPt, event->position(), font().family());
  setHover(side, token);
}

void HeadView::mousePressEvent(QMouseEvent* event) {
  const auto [side, token] =
      head_view_token_at(data_, width(), height(), kScreenFontPt, event->position(), font().family());
  if (token >= 0) Q_EMIT tokenClicked(side, token);
}

void HeadView::leaveEvent(QEvent* event) {
  QWidget::leaveEvent(event);
  setHover(-1, -1);  // nothing hovered: every line again (as every view does)
}

}  // namespace sinkscope::render
