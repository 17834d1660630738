#include "render/line_plot_view.h"

#include "render/token_label.h"

#include <QList>
#include <QMouseEvent>
#include <QPair>
#include <QToolTip>
#include <QResizeEvent>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include "render/qcustomplot_include.h"

#include "models/views/colours.h"
#include "render/text_wrap.h"

namespace sinkscope::render {

namespace {

// Whole numbers (counts, layers, N) step by 1, 2 or 5 times a power of ten, the
// smallest such step giving no more ticks than asked: QCustomPlot's fixed
// ticker rounds a step of 1.4 up to 3, which labels 0 and 3 where data reach 4.
class WholeNumberTicker : public QCPAxisTicker {
 protected:
  double getTickStep(const QCPRange& range) override {
    const double wanted = range.size() / std::max(1, tickCount());
    // Never so coarse that fewer than two labelled ticks fall on the axis.
    const auto ticksOn = [&](double step) {
      return std::floor(range.upper / step + 1e-9) - std::ceil(range.lower / step - 1e-9) + 1;
    };
    double previous = 1.0;
    for (double decade = 1.0; decade < 1e15; decade *= 10.0)
      for (double factor : {1.0, 2.0, 5.0}) {
        const double step = factor * decade;
        if (step >= wanted - 1e-9) return ticksOn(step) >= 2 ? step : previous;
        previous = step;
      }
    return previous;
  }
};
// `c` mixed with white: a lighter shade of the same hue.
QColor tint(const QColor& c, double white) {
  auto mix = [&](int v) { return static_cast<int>(std::lround(v + (255 - v) * white)); };
  return QColor(mix(c.red()), mix(c.green()), mix(c.blue()), c.alpha());
}
QColor to_colour(const views::Rgb& c) {
  return QColor::fromRgbF(static_cast<float>(c.r), static_cast<float>(c.g), static_cast<float>(c.b));
}
constexpr Qt::PenStyle kDashes[4] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine};
}  // namespace

LinePlotView::LinePlotView(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);
  setMinimumSize(160, 120);
  setFocusPolicy(Qt::ClickFocus);  // Ctrl+E exports the focused panel
  plot_->setFocusPolicy(Qt::ClickFocus);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->plotLayout()->insertRow(0);
  plot_->plotLayout()->addElement(0, 0, new QCPTextElement(plot_, QString(), QFont("sans", 11)));
  // The legend goes in a row of its own below the axes, entries side by side:
  // inside the axes it hides data in the small plots of a dock.
  plot_->legend->setVisible(true);
  plot_->legend->setFont(QFont("sans", 8));
  plot_->legend->setBorderPen(Qt::NoPen);
  plot_->legend->setBrush(Qt::NoBrush);
  plot_->legend->setRowSpacing(0);
  plot_->legend->setColumnSpacing(12);
  plot_->axisRect()->insetLayout()->take(plot_->legend);
  plot_->plotLayout()->addElement(2, 0, plot_->legend);
  plot_->plotLayout()->setRowStretchFactor(2, 0.001);
  plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
    axis->setTickLabelFont(QFont("sans", 8));
    axis->setLabelFont(QFont("sans", 9));
  }
  connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
    std::pair<int, int> best{-1, -1};
    double bestDistance = 8.0;  // pixels
    std::vector<std::pair<double, std::pair<int, int>>> near;  // distance, (series, index)
    for (std::size_t s = 0; s < data_.series.size(); ++s) {
      const views::PlotSeries& series = data_.series[s];
      if (series.reference || series.threshold) continue;
      if (series.segments) {  // a bar is hovered anywhere along it: its first point's index
        for (std::size_t k = 0; k + 1 < series.x.size(); k += 2) {
          const QPointF a(plot_->xAxis->coordToPixel(series.x[k]), plot_->yAxis->coordToPixel(series.y[k]));
          const QPointF b(plot_->xAxis->coordToPixel(series.x[k + 1]),
                          plot_->yAxis->coordToPixel(series.y[k + 1]));
          const QPointF ab = b - a, am = event->position() - a;
          const double length2 = QPointF::dotProduct(ab, ab);
          const double t = length2 > 0 ? std::clamp(QPointF::dotProduct(am, ab) / length2, 0.0, 1.0) : 0.0;
          const QPointF nearest = a + t * ab;
          const double d = std::hypot(nearest.x() - event->position().x(), nearest.y() - event->position().y());
          if (d < bestDistance) {
            bestDistance = d;
            best = {static_cast<int>(s), static_cast<int>(k)};
          }
        }
        continue;
      }
      for (std::size_t k = 0; k < series.x.size(); ++k) {
        const double px = plot_->xAxis->coordToPixel(series.x[k]);
        const double py = plot_->yAxis->coordToPixel(drawnTop(s, k));
        const double d = std::hypot(px - event->position().x(), py - event->position().y());
        if (d < 8.0) near.push_back({d, {static_cast<int>(s), static_cast<int>(k)}});
        if (d < bestDistance) {
          bestDistance = d;
          best = {static_cast<int>(s), static_cast<int>(k)};
        }
      }
    }
    std::stable_sort(near.begin(), near.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    QList<QPair<int, int>> under;
    for (const auto& [d, point] : near) under << QPair<int, int>{point.first, point.second};
    if (best != hovered_) {
      hovered_ = best;
      Q_EMIT pointHovered(best.first, best.second);
    }
    if (under != under_) {
      under_ = under;
      showTips(event->globalPosition().toPoint());
      Q_EMIT pointsHovered(under_);
    }
  });
  // Until its first data the view is an empty plot: no axes (QCustomPlot's
  // default 0..5 axes crowd their ticks in a narrow dock and mean nothing).
  for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
    axis->setVisible(false);
    axis->grid()->setVisible(false);
  }
  // x = 0 is a layer, a position or a scale like any other: no solid line there.
  plot_->xAxis->grid()->setZeroLinePen(Qt::NoPen);
  plot_->legend->setVisible(false);
}

// The tips of the points under the mouse, one line each, at most a dozen.
void LinePlotView::showTips(const QPoint& where) {
  QStringList lines;
  int more = 0;
  for (const auto& [series, index] : under_) {
    const views::PlotSeries& s = data_.series[static_cast<std::size_t>(series)];
    if (index >= static_cast<int>(s.tips.size())) continue;
    if (lines.size() < 12)
      lines << QString::fromStdString(s.tips[static_cast<std::size_t>(index)]);
    else
      ++more;
  }
  if (more > 0) lines << tr("... and %1 more").arg(more);
  if (lines.isEmpty())
    QToolTip::hideText();
  else
    QToolTip::showText(where, lines.join(QLatin1Char('\n')), plot_);
}

void LinePlotView::setTextScale(double scale) {
  // The screen's sizes (see the constructor) times `scale`.
  const double k = std::clamp(scale, 0.5, 4.0);
  auto sized = [k](QFont f, double points) {
    f.setPointSizeF(points * k);
    return f;
  };
  if (auto* title = qobject_cast<QCPTextElement*>(plot_->plotLayout()->element(0, 0)))
    title->setFont(sized(title->font(), 11));
  plot_->legend->setFont(sized(plot_->legend->font(), 8));
  for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
    axis->setTickLabelFont(sized(axis->tickLabelFont(), 8));
    axis->setLabelFont(sized(axis->labelFont(), 9));
  }
  fitToSize();
  plot_->replot();
}

void LinePlotView::setFigureFonts(const QString& family, double pointSize) {
  // In pixels of the figure's page, where a pixel is a point: the layout
  // (margins, legend columns, title lines) is measured in the units it is
  // drawn in, whatever the screen's DPI.
  auto sized = [&](QFont f, double extra) {
    f.setFamily(family);
    const double size = pointSize > 0 ? pointSize + extra : f.pointSizeF();
    if (size > 0) f.setPixelSize(std::max(1, static_cast<int>(std::lround(size))));
    return f;
  };
  if (auto* title = qobject_cast<QCPTextElement*>(plot_->plotLayout()->element(0, 0))) {
    QFont bold = sized(title->font(), 0);  // the text's size, told apart by weight
    bold.setBold(true);
    title->setFont(bold);
  }
  plot_->legend->setFont(sized(plot_->legend->font(), 0));
  for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
    axis->setTickLabelFont(sized(axis->tickLabelFont(), 0));
    axis->setLabelFont(sized(axis->labelFont(), 0));
    axis->setTickLabelPadding(3);
    axis->setLabelPadding(3);
  }
  // Print weights: thinner lines, markers about half the text's height.
  const double scale = pointSize > 0 ? pointSize / 8.0 : 1.0;
  for (int k = 0; k < plot_->graphCount(); ++k) {
    QCPGraph* g = plot_->graph(k);
    QPen pen = g->pen();
    pen.setWidthF(pen.widthF() * 0.75 * scale);
    g->setPen(pen);
    QCPScatterStyle marker = g->scatterStyle();
    if (!marker.isNone()) {
      marker.setSize((g->lineStyle() == QCPGraph::lsNone ? 4.5 : 3.5) * scale);
      g->setScatterStyle(marker);
    }
  }
  // The selection's line: on paper a thin grey rule behind the data, not the
  // screen's orange, which a reader would take for one more series.
  for (int k = 0; k < plot_->itemCount(); ++k)
    if (auto* mark = qobject_cast<QCPItemStraightLine*>(plot_->item(k))) {
      mark->setPen(QPen(QColor(0x80, 0x80, 0x80), 0.75 * scale, Qt::DotLine));
      mark->setLayer(QStringLiteral("grid"));
    }
  fitToSize();
}

void LinePlotView::setFigureTitle(const QString& title, int indent) {
  titleIndent_ = indent;
  auto* element = qobject_cast<QCPTextElement*>(plot_->plotLayout()->element(0, 0));
  if (!element) return;
  // No title: an empty line's height keeps the room of a sub-figure's
  // letter, or none. (A drawn blank would reach an SVG as an empty text that
  // SVG readers turn into an empty path.)
  data_.title = title.toStdString();
  element->setText(title);
  element->setMinimumSize(0,
                          title.isEmpty() && indent > 0
                              ? static_cast<int>(std::ceil(QFontMetricsF(element->font()).height()))
                              : 0);
  element->setVisible(!title.isEmpty() || indent > 0);
  QMargins m = element->margins();
  m.setLeft(indent);
  m.setRight(indent);
  if (title.isEmpty()) {
    // Only the letter's line: no room above or below it (each row of a
    // stacked figure would otherwise give its axes up for empty bands).
    m.setTop(0);
    m.setBottom(0);
    plot_->plotLayout()->setRowSpacing(0);
  }
  element->setMargins(m);
  if (!element->visible()) {
    plot_->plotLayout()->take(element);
    plot_->plotLayout()->simplify();
    delete element;
  }
  fitToSize();
}

std::vector<LegendEntry> LinePlotView::takeLegend() {
  std::vector<LegendEntry> entries;
  for (int k = 0; k < plot_->graphCount(); ++k) {
    QCPGraph* g = plot_->graph(k);
    if (const auto bars = bars_.find(k); bars != bars_.end()) {
      if (plot_->legend->hasItemWithPlottable(bars->second))
        entries.push_back(
            {bars->second->name(), QPen(Qt::NoPen), 0.0, {}, {}, bars->second->brush().color()});
      continue;
    }
    if (!plot_->legend->hasItemWithPlottable(g)) continue;
    LegendEntry e;
    e.text = g->name();
    e.pen = g->lineStyle() == QCPGraph::lsNone ? QPen(Qt::NoPen) : g->pen();
    if (!g->scatterStyle().isNone()) {
      e.markerSize = g->scatterStyle().size();
      e.markerColour = g->scatterStyle().brush().color();
      if (g->scatterStyle().pen().style() != Qt::NoPen) e.markerEdge = g->scatterStyle().pen().color();
    }
    entries.push_back(std::move(e));
  }
  plot_->legend->setVisible(false);
  if (plot_->plotLayout()->hasElement(plot_->plotLayout()->rowCount() - 1, 0) &&
      plot_->plotLayout()->element(plot_->plotLayout()->rowCount() - 1, 0) == plot_->legend) {
    plot_->plotLayout()->take(plot_->legend);
    plot_->plotLayout()->simplify();
  }
  return entries;
}

void LinePlotView::fitToSize() {
  // As many ticks as fit without crowding their labels: on y, two and a half
  // label lines apart within the height the axes get (the widget's less the
  // x axis's labels and title, and the title and legend rows).
  const QFontMetrics tickFont(plot_->yAxis->tickLabelFont());
  const int axesHeight = height() - 5 * tickFont.height();
  // On x, a tick per six label heights of width (a one-column figure's
  // 85 mm gets four or five, not the two a fixed pixel pitch gave it).
  plot_->xAxis->ticker()->setTickCount(
      std::clamp(width() / std::max(1, 6 * tickFont.height()), 2, 8));
  // Whole numbers (layers, heads, N) up to a dozen of them: every one is
  // labelled where its label fits, a reader should not count gridlines.
  if (data_.log2X) {  // every power of two that fits
    const QCPRange x = plot_->xAxis->range();
    const int doublings =
        static_cast<int>(std::floor(std::log2(x.upper / std::max(x.lower, 1e-9))));
    plot_->xAxis->ticker()->setTickCount(std::clamp(doublings, 1, std::max(1, width() / 40)));
  }
  if (data_.integerX && !data_.log2X) {
    const QCPRange x = plot_->xAxis->range();
    const int span = static_cast<int>(std::floor(x.upper + 1e-9) - std::ceil(x.lower - 1e-9));
    const double label = QFontMetricsF(plot_->xAxis->tickLabelFont())
                             .horizontalAdvance(QString::number(static_cast<long long>(
                                 std::max(std::abs(x.lower), std::abs(x.upper)))));
    if (span >= 1 && span <= 12 && width() * 0.8 / (span + 1) >= 2.0 * label)
      // Steps of 1: as many ticks as whole units in the range with its air
      // (bars widen it by their half-width).
      plot_->xAxis->ticker()->setTickCount(
          std::max(span + 1, static_cast<int>(std::ceil(x.upper - x.lower - 1e-9))));
  }
  fitXTickLabels();
  // QCustomPlot's readable steps (1, 2, 2.5, 5) may give half again as many
  // ticks as asked: ask for two thirds of what fits (whole numbers step by
  // 1, 2, 5 or 10: every one that fits; thinTicks takes out a crowded one).
  const int fit = axesHeight / std::max(1, static_cast<int>(2.5 * tickFont.height()));
  plot_->yAxis->ticker()->setTickCount(std::clamp(
      data_.integerY ? axesHeight / std::max(1, static_cast<int>(1.5 * tickFont.height()))
                     : fit * 2 / 3,
      2, data_.integerY ? 12 : 8));

  // As many legend entries per row as the widest one allows.
  const QFontMetrics legendFont(plot_->legend->font());
  int widest = 0;
  for (const auto& series : data_.series)
    widest = std::max(widest, legendFont.horizontalAdvance(QString::fromStdString(series.name)));
  const int entry = widest + plot_->legend->iconSize().width() + 24;  // icon, padding, margins
  const int spacing = plot_->legend->columnSpacing();
  const int columns = std::clamp((width() - 16 + spacing) / std::max(1, entry + spacing), 1, 4);
  if (plot_->legend->wrap() != columns) plot_->legend->setWrap(columns);
  plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
  // Room under each entry: an underscore ("beta_0") lies below the font's
  // descent at some sizes, and an entry clips what leaves its rectangle.
  for (int i = 0; i < plot_->legend->itemCount(); ++i)
    if (QCPAbstractLegendItem* item = plot_->legend->item(i))
      item->setMargins(QMargins(0, 0, 0, std::max(1, legendFont.descent() / 2)));

  // A title too long for one line breaks at its " | " separators.
  if (auto* title = qobject_cast<QCPTextElement*>(plot_->plotLayout()->element(0, 0))) {
    const QFontMetrics titleFont(title->font());
    const QStringList lines = text_wrap(
        QString::fromStdString(data_.title),
        [&](const QString& t) { return titleFont.horizontalAdvance(t); },
        width() - 12 - 2 * titleIndent_);
    // A word longer than the line (a long model name) is shortened in its middle, not cut off.
    QStringList fitted;
    for (const QString& line : lines)
      fitted << titleFont.elidedText(line, Qt::ElideMiddle, std::max(20, width() - 12 - 2 * titleIndent_));
    title->setText(fitted.join(QLatin1Char('\n')));
  }
}

// Tokens under their positions (key importance): every one, upright, where a
// line of text fits between neighbours; the positions otherwise (a reader
// would not know which tokens a thinned row leaves out).
void LinePlotView::fitXTickLabels() {
  QCPAxis* x = plot_->xAxis;
  const auto& labels = data_.xTickLabels;
  const QFontMetricsF metrics(x->tickLabelFont());
  double longest = 0;
  for (const std::string& label : labels)
    longest = std::max(longest, metrics.horizontalAdvance(token_shown(label)));
  // Upright words take their length in height: the axes keep at least one
  // and a half times that (besides the title's, the axis title's and the
  // numbers' lines).
  const bool words =
      data_.integerX && !labels.empty() &&
      width() * 0.8 / static_cast<double>(labels.size()) >= 1.15 * metrics.height() &&
      longest <= (height() - 4.0 * metrics.height()) / 2.5;
  auto text = qSharedPointerDynamicCast<QCPAxisTickerText>(x->ticker());
  if (words) {
    if (!text) {
      text = QSharedPointer<QCPAxisTickerText>::create();
      x->setTicker(text);
    }
    text->clear();
    for (std::size_t k = 0; k < labels.size(); ++k)
      text->addTick(static_cast<double>(k), token_shown(labels[k]));
  } else if (text) {
    x->setTicker(QSharedPointer<WholeNumberTicker>::create());
  }
  x->setTickLabelRotation(words ? -90 : 0);
}

void LinePlotView::layOutAsFigure(QSize size) {
  resize(size);
  fitToSize();
  thinTicks();
  fitYLabel();
  fitEqualScale();
}

void LinePlotView::fitYLabel() {
  const QString label = QString::fromStdString(data_.yLabel);
  plot_->yAxis->setLabel(label);
  if (label.isEmpty()) return;
  plot_->replot(QCustomPlot::rpImmediateRefresh);  // lays out the axes
  const double room = plot_->axisRect()->height();
  const QFontMetricsF metrics(plot_->yAxis->labelFont());
  if (room <= 0 || metrics.horizontalAdvance(label) <= room) return;
  const QStringList lines = text_wrap(
      label, [&](const QString& t) { return metrics.horizontalAdvance(t); }, room);
  plot_->yAxis->setLabel(lines.join(QLatin1Char('\n')));
}

void LinePlotView::fitEqualScale() {
  equalScaleGivenUp_ = QSize();
  if (!data_.equalScale || data_.series.empty()) return;
  QCPAxisRect* rect = plot_->axisRect();
  rect->setMinimumMargins(QMargins(0, 0, 0, 0));
  plot_->replot(QCustomPlot::rpImmediateRefresh);
  const double xSpan = plot_->xAxis->range().size(), ySpan = plot_->yAxis->range().size();
  const double w = rect->width(), h = rect->height();
  if (!(xSpan > 0 && ySpan > 0 && w > 0 && h > 0)) return;
  const QMargins m = rect->margins();
  const double wanted = h * xSpan / ySpan;  // the width at the height's scale
  if (w > wanted) {
    const int extra = static_cast<int>(std::floor((w - wanted) / 2));
    rect->setMinimumMargins(QMargins(m.left() + extra, 0, m.right() + extra, 0));
    equalScaleGivenUp_ = QSize(2 * extra, 0);
  } else {
    const int extra = static_cast<int>(std::floor((h - w * ySpan / xSpan) / 2));
    rect->setMinimumMargins(QMargins(0, m.top() + extra, 0, m.bottom() + extra));
    equalScaleGivenUp_ = QSize(0, 2 * extra);
  }
  plot_->replot(QCustomPlot::rpImmediateRefresh);
}

QSize LinePlotView::decoration() const {
  const QRect axes = plot_->axisRect()->rect();
  return plot_->viewport().size() - axes.size() - equalScaleGivenUp_;
}

bool LinePlotView::drawsInside(const QRectF& pixels) const {
  const QRectF near = pixels.adjusted(-3, -3, 3, 3);  // a marker's radius, a line's width
  const auto at = [this](double x, double y) {
    return QPointF(plot_->xAxis->coordToPixel(x), plot_->yAxis->coordToPixel(y));
  };
  const auto segmentEnters = [&](QPointF a, QPointF b) {
    for (int t = 0; t <= 16; ++t)
      if (near.contains(a + (b - a) * (t / 16.0))) return true;
    return false;
  };
  for (std::size_t s = 0; s < data_.series.size(); ++s) {
    const views::PlotSeries& series = data_.series[s];
    std::vector<QPointF> points;
    for (std::size_t k = 0; k < series.x.size(); ++k)
      if (std::isfinite(series.x[k]) && std::isfinite(series.y[k]))
        points.push_back(at(series.x[k], drawnTop(s, k)));
    for (std::size_t k = 0; k < series.lo.size() && k < series.x.size(); ++k)
      if (std::isfinite(series.lo[k]) && std::isfinite(series.hi[k]) &&
          segmentEnters(at(series.x[k], series.lo[k]), at(series.x[k], series.hi[k])))
        return true;
    if (series.stacked) {
      for (std::size_t k = 0; k < series.x.size(); ++k) {
        const double base = drawnTop(s, k) - series.y[k];
        const QRectF bar =
            QRectF(at(series.x[k] - 0.35, base), at(series.x[k] + 0.35, drawnTop(s, k)))
                .normalized();
        if (bar.intersects(near)) return true;
      }
      continue;
    }
    for (const QPointF& p : points)
      if (near.contains(p)) return true;
    if (series.scatter) continue;
    const std::size_t step = series.segments ? 2 : 1;
    for (std::size_t k = 0; k + 1 < points.size(); k += step)
      if (segmentEnters(points[k], points[k + 1])) return true;
  }
  return false;
}

void LinePlotView::thinTicks() {
  // A widget never shown has not laid out its plot (nor had a resize event to
  // set its viewport): measure at the figure's size.
  plot_->resize(size());
  plot_->setViewport(QRect(QPoint(0, 0), size()));
  const double line = QFontMetricsF(plot_->yAxis->tickLabelFont()).height();
  // Start from as many ticks as the axes' own height holds two lines apart
  // (fitToSize guessed the height before the axes' labels took theirs).
  plot_->replot(QCustomPlot::rpImmediateRefresh);
  plot_->yAxis->ticker()->setTickCount(std::clamp(
      static_cast<int>(plot_->axisRect()->height() / (2.0 * line)), 2, data_.integerY ? 12 : 8));
  for (int pass = 0; pass < 8; ++pass) {
    plot_->replot(QCustomPlot::rpImmediateRefresh);
    const QVector<double> ticks = plot_->yAxis->tickVector();
    double closest = std::numeric_limits<double>::infinity();
    for (int k = 1; k < ticks.size(); ++k)
      closest = std::min(closest, std::abs(plot_->yAxis->coordToPixel(ticks[k]) -
                                           plot_->yAxis->coordToPixel(ticks[k - 1])));
    const int count = plot_->yAxis->ticker()->tickCount();
    if (closest >= 1.4 * line || count <= 2) return;  // two ticks: at least the scale
    plot_->yAxis->ticker()->setTickCount(count - 1);
  }
}

// Where point k of series s is drawn: a stacked bar's top is the sum of the
// stacked series up to it at that x.
double LinePlotView::drawnTop(std::size_t s, std::size_t k) const {
  const views::PlotSeries& series = data_.series[s];
  if (!series.stacked) return series.y[k];
  double top = 0;
  for (std::size_t i = 0; i <= s; ++i)
    if (data_.series[i].stacked && k < data_.series[i].y.size()) top += data_.series[i].y[k];
  return top;
}

void LinePlotView::leaveEvent(QEvent* event) {
  QWidget::leaveEvent(event);
  if (!under_.isEmpty()) {
    under_.clear();
    QToolTip::hideText();
    Q_EMIT pointsHovered(under_);
  }
  if (hovered_ == std::pair<int, int>{-1, -1}) return;
  hovered_ = {-1, -1};
  Q_EMIT pointHovered(-1, -1);
}

void LinePlotView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitToSize();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

namespace {

// How each series is drawn when it is neither a reference nor a threshold.
struct SeriesPens {
  std::vector<QColor> colours;
  std::vector<Qt::PenStyle> styles;
};

// Data series take the categorical palette in turn, with a line style as a
// second cue; one that borrows another's colour (a "before" curve, drawn
// dashed) takes no turn, and then the styles stay solid, dashes meaning
// "before".
SeriesPens series_pens(const std::vector<views::PlotSeries>& series) {
  auto takesTurn = [](const views::PlotSeries& s) {
    return !s.reference && !s.threshold && s.colourOf < 0;
  };
  // Twins (a quantity in two runs): dashes mean the other run.
  const bool comparison = std::any_of(series.begin(), series.end(),
                                      [](const views::PlotSeries& s) { return s.colourOf >= 0; });
  SeriesPens pens{std::vector<QColor>(series.size()),
                  std::vector<Qt::PenStyle>(series.size(), Qt::SolidLine)};
  for (std::size_t k = 0, turn = 0; k < series.size(); ++k)
    if (takesTurn(series[k])) {
      const int t = static_cast<int>(turn++);
      const views::PlotSeries& s = series[k];
      pens.colours[k] = to_colour(s.colour.value_or(views::colormap_categorical(t)));
      // Points and bars (diagrams, barcodes) are told apart by colour alone.
      if (!comparison && !s.colour && !s.scatter && !s.segments)
        pens.styles[k] = kDashes[views::categorical_dash(t)];
    }
  // A compared run's curve (colourOf: the same quantity in the other run) is
  // told apart by colour as well as by its dashes: with one quantity the
  // palette's next hue, with several a light tint of its twin's hue (the
  // quantities keep their hues).
  const auto turns = std::count_if(series.begin(), series.end(), takesTurn);
  for (std::size_t k = 0; k < series.size(); ++k) {
    const int from = series[k].colourOf;
    if (from >= 0 && from < static_cast<int>(pens.colours.size()))
      pens.colours[k] = turns == 1 ? to_colour(views::colormap_categorical(1))
                                   : tint(pens.colours[static_cast<std::size_t>(from)], 0.5);
    else if (!pens.colours[k].isValid())
      pens.colours[k] = series[k].colour ? to_colour(*series[k].colour) : QColor(110, 110, 110);
  }
  return pens;
}

}  // namespace

void LinePlotView::setData(views::LinePlot data) {
  views::line_plot_check(data);
  data_ = std::move(data);
  under_.clear();  // the points it listed belong to the old data

  plot_->clearPlottables();  // graphs, bars and error bars
  bars_.clear();
  plot_->clearItems();       // the selection's line
  plot_->xAxis->setLabel(QString::fromStdString(data_.xLabel));
  plot_->yAxis->setLabel(QString::fromStdString(data_.yLabel));
  const SeriesPens pens = series_pens(data_.series);
  for (std::size_t k = 0; k < data_.series.size(); ++k)
    addSeries(data_.series[k], pens.colours[k], pens.styles[k]);
  setTickers();
  if (std::isfinite(data_.markedX) && !data_.series.empty()) {  // an empty plot marks nothing
    auto* mark = new QCPItemStraightLine(plot_);
    mark->point1->setCoords(data_.markedX, 0.0);
    mark->point2->setCoords(data_.markedX, 1.0);
    mark->setPen(QPen(to_colour(views::kSelectedHighlight), 1.5, Qt::DashLine));
    mark->setSelectable(false);
  }
  // A plot with nothing to draw shows its title only (e.g. "not computed").
  const bool empty = data_.series.empty();
  for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
    axis->setVisible(!empty);
    axis->grid()->setVisible(!empty);
  }
  plot_->legend->setVisible(!empty);
  fitRanges();
  fitToSize();  // reads the ranges (whole-number axes label each number that fits)
  plot_->replot();
}

void LinePlotView::addSeries(const views::PlotSeries& s, const QColor& colour, Qt::PenStyle style) {
  QCPGraph* g = plot_->addGraph();
  g->setName(QString::fromStdString(s.name));
  if (s.segments) {
    // NaN between segments: QCustomPlot leaves a gap there.
    QVector<double> x, y;
    const double gap = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t k = 0; k + 1 < s.x.size(); k += 2)
      x << s.x[k] << s.x[k + 1] << gap, y << s.y[k] << s.y[k + 1] << gap;
    g->setData(x, y, true);
  } else {
    g->setData(QVector<double>(s.x.begin(), s.x.end()), QVector<double>(s.y.begin(), s.y.end()),
               true);
  }
  if (s.stacked) {
    // The bars draw it; the graph keeps its place (graph k is series k) unseen.
    g->setPen(Qt::NoPen);
    g->removeFromLegend();
    auto* bars = new QCPBars(plot_->xAxis, plot_->yAxis);
    bars->setName(QString::fromStdString(s.name));
    bars->setData(QVector<double>(s.x.begin(), s.x.end()), QVector<double>(s.y.begin(), s.y.end()),
                  true);
    double spacing = 1.0;  // between neighbouring bars (layers: 1, relative depth: less)
    for (std::size_t k = 1; k < s.x.size(); ++k)
      if (s.x[k] > s.x[k - 1]) spacing = std::min(spacing, s.x[k] - s.x[k - 1]);
    bars->setWidth(0.7 * spacing);
    bars->setBrush(colour);
    bars->setPen(Qt::NoPen);
    QCPBars* below = nullptr;
    for (const auto& [k, b] : bars_) below = b;  // the last stacked so far
    if (below) bars->moveAbove(below);
    if (!s.inLegend) bars->removeFromLegend();
    bars_[static_cast<int>(plot_->graphCount() - 1)] = bars;
    return;
  }
  if (s.threshold) {
    g->setPen(QPen(QColor(178, 24, 43), 1.5, Qt::DotLine));
  } else if (s.reference) {
    g->setPen(QPen(QColor(120, 120, 120), 1.5, Qt::DashLine));
  } else {
    g->setPen(QPen(colour, s.dashed ? 1.5 : 2.0, s.dashed ? Qt::DashLine : style));
    // Scattered points are filled half-transparent: points stacked on one
    // spot read darker than one alone.
    QColor fill = colour;
    if (s.scatter) fill.setAlphaF(0.45);
    if (s.markers || s.scatter)
      g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colour, fill, s.scatter ? 7 : 5));
    if (s.scatter) g->setLineStyle(QCPGraph::lsNone);
  }
  if (!s.inLegend) g->removeFromLegend();
  if (s.lo.empty()) return;
  // Bars from lo to hi around each point (asymmetric errors); NaN: none.
  auto* bars = new QCPErrorBars(plot_->xAxis, plot_->yAxis);
  bars->removeFromLegend();
  bars->setDataPlottable(g);
  QVector<double> below, above;
  for (std::size_t i = 0; i < s.y.size(); ++i) {
    const bool known = std::isfinite(s.lo[i]) && std::isfinite(s.hi[i]);
    below << (known ? std::max(0.0, s.y[i] - s.lo[i]) : 0.0);
    above << (known ? std::max(0.0, s.hi[i] - s.y[i]) : 0.0);
  }
  bars->setData(below, above);
  bars->setPen(QPen(colour.isValid() ? colour : QColor(110, 110, 110), 1.2));
  bars->setWhiskerWidth(6);
}

void LinePlotView::setTickers() {
  plot_->xAxis->setScaleType(data_.log2X ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  if (data_.log2X) {
    auto powers = QSharedPointer<QCPAxisTickerLog>::create();
    powers->setLogBase(2);
    powers->setSubTickCount(0);
    plot_->xAxis->setTicker(powers);
    plot_->xAxis->setNumberFormat(QStringLiteral("g"));
  } else if (qSharedPointerDynamicCast<QCPAxisTickerLog>(plot_->xAxis->ticker())) {
    plot_->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
  }
  for (auto [axis, integer] :
       {std::pair{plot_->xAxis, data_.integerX && !data_.log2X}, {plot_->yAxis, data_.integerY}}) {
    if (integer) {
      axis->setTicker(QSharedPointer<WholeNumberTicker>::create());
    } else if (qSharedPointerDynamicCast<WholeNumberTicker>(axis->ticker()) ||
               qSharedPointerDynamicCast<QCPAxisTickerText>(axis->ticker())) {
      axis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    }
  }
}

// The data's range with a little air above the highest point, 0 on y when asked.
void LinePlotView::fitRanges() {
  plot_->rescaleAxes();
  QCPRange y = plot_->yAxis->range();
  if (std::isfinite(data_.yReachLow)) y.lower = std::min(y.lower, data_.yReachLow);
  if (std::isfinite(data_.yReachHigh)) y.upper = std::max(y.upper, data_.yReachHigh);
  const double lowest = data_.includeZero ? std::min(0.0, y.lower) : y.lower;
  const double air = 0.08 * (y.upper - y.lower) + 1e-9;
  plot_->yAxis->setRange(data_.airBelow ? lowest - air : lowest, y.upper + air);
  const QCPRange x = plot_->xAxis->range();
  if (data_.log2X)  // air as a share of a doubling at each end
    plot_->xAxis->setRange(x.lower / 1.25, x.upper * 1.25);
  else
    plot_->xAxis->setRange(x.lower - data_.xPadding, x.upper + data_.xPadding);
}

}  // namespace sinkscope::render
