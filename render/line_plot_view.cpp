#include "render/line_plot_view.h"

#include <QMouseEvent>
#include <QResizeEvent>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include "render/qcustomplot_include.h"

#include "render/colormap.h"
#include "render/text_wrap.h"

namespace sinkscope::render {

namespace {
QColor series_color(std::size_t index, std::size_t count) {
  // Spread data series over the dark two thirds of viridis (the yellow end is
  // too light on white).
  const double t = count <= 1 ? 0.0 : 0.66 * static_cast<double>(index) / (count - 1);
  const Rgb c = colormap_viridis(t);
  return QColor::fromRgbF(static_cast<float>(c.r), static_cast<float>(c.g),
                          static_cast<float>(c.b));
}
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
    for (std::size_t s = 0; s < data_.series.size(); ++s) {
      const LineSeries& series = data_.series[s];
      if (series.reference || series.threshold) continue;
      for (std::size_t k = 0; k < series.x.size(); ++k) {
        const double px = plot_->xAxis->coordToPixel(series.x[k]);
        const double py = plot_->yAxis->coordToPixel(series.y[k]);
        const double d = std::hypot(px - event->position().x(), py - event->position().y());
        if (d < bestDistance) {
          bestDistance = d;
          best = {static_cast<int>(s), static_cast<int>(k)};
        }
      }
    }
    if (best != hovered_) {
      hovered_ = best;
      Q_EMIT pointHovered(best.first, best.second);
    }
  });
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
  if (auto* title = qobject_cast<QCPTextElement*>(plot_->plotLayout()->element(0, 0)))
    title->setFont(sized(title->font(), 2));
  plot_->legend->setFont(sized(plot_->legend->font(), 0));
  for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
    axis->setTickLabelFont(sized(axis->tickLabelFont(), 0));
    axis->setLabelFont(sized(axis->labelFont(), 1));
  }
  fitToSize();
}

void LinePlotView::placeLegendInside() {
  if (legendInside_ || data_.series.empty()) return;
  QFont small = plot_->legend->font();
  small.setPixelSize(std::max(4, small.pixelSize() > 0 ? small.pixelSize() - 1 : 7));
  plot_->legend->setFont(small);
  plot_->legend->setIconSize(16, 8);
  // Only a legend small beside the axes goes inside; a long one stays below.
  const QFontMetrics metrics(small);
  int widest = 0;
  for (const auto& series : data_.series) widest = std::max(widest, metrics.horizontalAdvance(series.name));
  const double legendWidth = widest + 16 + 14, legendHeight = data_.series.size() * (metrics.height() + 1) + 6;
  if (legendWidth > 0.5 * width() || legendHeight > 0.4 * height()) {
    // Below the axes, in a narrow figure: a smaller font rather than cut-off entries.
    const double room = width() - 16.0;
    if (legendWidth > room && small.pixelSize() > 5) {
      small.setPixelSize(std::max(5, static_cast<int>(small.pixelSize() * room / legendWidth)));
      plot_->legend->setFont(small);
    }
    fitToSize();
    return;
  }
  legendInside_ = true;
  // The corner of the axes with the fewest points under it.
  const QCPRange x = plot_->xAxis->range(), y = plot_->yAxis->range();
  int counts[4] = {0, 0, 0, 0};  // top right, top left, bottom right, bottom left
  for (const LineSeries& s : data_.series)
    for (std::size_t k = 0; k < s.x.size() && k < s.y.size(); ++k) {
      const double u = (s.x[k] - x.lower) / std::max(x.size(), 1e-300);
      const double v = (s.y[k] - y.lower) / std::max(y.size(), 1e-300);
      if (!std::isfinite(u) || !std::isfinite(v)) continue;
      if (v > 0.5) ++counts[u > 0.5 ? 0 : 1];
      else ++counts[u > 0.5 ? 2 : 3];
    }
  const int best = static_cast<int>(std::min_element(counts, counts + 4) - counts);
  const Qt::Alignment corner[4] = {Qt::AlignTop | Qt::AlignRight, Qt::AlignTop | Qt::AlignLeft,
                                   Qt::AlignBottom | Qt::AlignRight,
                                   Qt::AlignBottom | Qt::AlignLeft};
  plot_->plotLayout()->take(plot_->legend);
  plot_->plotLayout()->simplify();
  plot_->axisRect()->insetLayout()->addElement(plot_->legend, corner[best]);
  plot_->legend->setBrush(QColor(255, 255, 255, 225));
  plot_->legend->setBorderPen(QPen(QColor(200, 200, 200), 0.5));
  plot_->legend->setWrap(1);
  plot_->legend->setMargins(QMargins(4, 2, 4, 2));
  fitToSize();
}

void LinePlotView::setTitleIndent(int indent) {
  if (auto* title = qobject_cast<QCPTextElement*>(plot_->plotLayout()->element(0, 0))) {
    QMargins m = title->margins();
    m.setLeft(indent);
    m.setRight(indent);  // the title stays centred
    title->setMargins(m);
  }
  titleIndent_ = indent;
  fitToSize();
}

void LinePlotView::fitToSize() {
  // As many ticks as fit without overlapping labels.
  plot_->xAxis->ticker()->setTickCount(std::clamp(width() / 90, 2, 8));
  plot_->yAxis->ticker()->setTickCount(std::clamp(height() / 50, 2, 8));

  // As many legend entries per row as the widest one allows.
  const QFontMetrics legendFont(plot_->legend->font());
  int widest = 0;
  for (const auto& series : data_.series)
    widest = std::max(widest, legendFont.horizontalAdvance(series.name));
  const int entry = widest + plot_->legend->iconSize().width() + 24;  // icon, padding, margins
  const int spacing = plot_->legend->columnSpacing();
  const int columns =
      legendInside_ ? 1 : std::clamp((width() - 16 + spacing) / std::max(1, entry + spacing), 1, 4);
  if (plot_->legend->wrap() != columns) plot_->legend->setWrap(columns);
  plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);

  // A title too long for one line breaks at its " | " separators.
  if (auto* title = qobject_cast<QCPTextElement*>(plot_->plotLayout()->element(0, 0))) {
    const QFontMetrics titleFont(title->font());
    const QStringList lines = text_wrap(
        data_.title, [&](const QString& t) { return titleFont.horizontalAdvance(t); },
        width() - 12 - 2 * titleIndent_);
    // A word longer than the line (a long model name) is shortened in its middle, not cut off.
    QStringList fitted;
    for (const QString& line : lines)
      fitted << titleFont.elidedText(line, Qt::ElideMiddle, std::max(20, width() - 12 - 2 * titleIndent_));
    title->setText(fitted.join(QLatin1Char('\n')));
  }
}

void LinePlotView::leaveEvent(QEvent* event) {
  QWidget::leaveEvent(event);
  if (hovered_ == std::pair<int, int>{-1, -1}) return;
  hovered_ = {-1, -1};
  Q_EMIT pointHovered(-1, -1);
}

void LinePlotView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitToSize();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void LinePlotView::setData(LinePlotData data) {
  for (const auto& s : data.series) {
    if (s.x.size() != s.y.size())
      throw std::invalid_argument("LinePlotView: series \"" + s.name.toStdString() +
                                  "\" has x and y of different lengths");
    if (s.lo.size() != s.hi.size() || (!s.lo.empty() && s.lo.size() != s.x.size()))
      throw std::invalid_argument("LinePlotView: series \"" + s.name.toStdString() +
                                  "\" has an interval of another length");
  }
  data_ = std::move(data);

  plot_->clearPlottables();  // graphs and their error bars
  plot_->xAxis->setLabel(data_.xLabel);
  plot_->yAxis->setLabel(data_.yLabel);

  // Data series share out viridis; one that borrows another's colour (a
  // "before" curve) takes no share, so the others look as they do alone.
  auto spreads = [](const LineSeries& s) { return !s.reference && !s.threshold && s.colourOf < 0; };
  std::size_t dataSeries = 0;
  for (const auto& s : data_.series) dataSeries += spreads(s) ? 1 : 0;
  std::vector<QColor> colours(data_.series.size());
  for (std::size_t k = 0, dataIndex = 0; k < data_.series.size(); ++k)
    if (spreads(data_.series[k])) {
      const QColor spread = series_color(dataIndex++, dataSeries);
      colours[k] = data_.series[k].color.isValid() ? data_.series[k].color : spread;
    }
  for (std::size_t k = 0; k < data_.series.size(); ++k) {
    const int from = data_.series[k].colourOf;
    if (from >= 0 && from < static_cast<int>(colours.size()))
      colours[k] = colours[static_cast<std::size_t>(from)];
    else if (!colours[k].isValid())
      colours[k] = data_.series[k].color.isValid() ? data_.series[k].color : QColor(110, 110, 110);
  }
  for (std::size_t k = 0; k < data_.series.size(); ++k) {
    const LineSeries& s = data_.series[k];
    QCPGraph* g = plot_->addGraph();
    g->setName(s.name);
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
    if (s.threshold) {
      g->setPen(QPen(QColor(178, 24, 43), 1.5, Qt::DotLine));
    } else if (s.reference) {
      g->setPen(QPen(QColor(120, 120, 120), 1.5, Qt::DashLine));
    } else {
      const QColor c = colours[k];
      g->setPen(QPen(c, s.dashed ? 1.5 : 2.0, s.dashed ? Qt::DashLine : Qt::SolidLine));
      if (s.markers || s.scatter)
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, c, c, s.scatter ? 7 : 5));
      if (s.scatter) g->setLineStyle(QCPGraph::lsNone);
    }
    if (!s.inLegend) g->removeFromLegend();
    if (!s.lo.empty()) {
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
      bars->setPen(QPen(colours[k].isValid() ? colours[k] : QColor(110, 110, 110), 1.2));
      bars->setWhiskerWidth(6);
    }
  }
  for (auto [axis, integer] :
       {std::pair{plot_->xAxis, data_.integerX}, {plot_->yAxis, data_.integerY}}) {
    if (integer) {
      // Multiples of 1 only: whole-number ticks, as many as fit.
      auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
      ticker->setTickStep(1.0);
      ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
      axis->setTicker(ticker);
    } else if (qSharedPointerDynamicCast<QCPAxisTickerFixed>(axis->ticker())) {
      axis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    }
  }
  // A plot with nothing to draw shows its title only (e.g. "not computed").
  const bool empty = data_.series.empty();
  for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
    axis->setVisible(!empty);
    axis->grid()->setVisible(!empty);
  }
  plot_->legend->setVisible(!empty);
  fitToSize();
  plot_->rescaleAxes();
  // Leave a little air above the highest point and include 0 on y.
  const QCPRange y = plot_->yAxis->range();
  const double lowest = data_.includeZero ? std::min(0.0, y.lower) : y.lower;
  const double air = 0.08 * (y.upper - y.lower) + 1e-9;
  plot_->yAxis->setRange(data_.airBelow ? lowest - air : lowest, y.upper + air);
  const QCPRange x = plot_->xAxis->range();
  plot_->xAxis->setRange(x.lower - data_.xPadding, x.upper + data_.xPadding);
  plot_->replot();
}

}  // namespace sinkscope::render
