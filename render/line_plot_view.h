#pragma once
// A QCustomPlot panel of one or more curves over a shared x axis, with a
// legend; drag pans and the wheel zooms. Raster only, so it works on every
// Qt platform, offscreen included.
#include <QColor>
#include <QList>
#include <QPair>
#include <QPoint>
#include <QRectF>
#include <QString>
#include <QWidget>
#include <limits>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "models/views/line_plot.h"
#include "render/figure_legend.h"

class QCustomPlot;
class QCPBars;

namespace sinkscope::render {

class LinePlotView : public QWidget {
  Q_OBJECT

 public:
  explicit LinePlotView(QWidget* parent = nullptr);

  // Throws std::invalid_argument when a series' x and y (or lo and hi) differ
  // in length (views::line_plot_check).
  void setData(views::LinePlot data);
  // The screen: every text at `scale` times its usual size (a classroom's
  // projector: larger).
  void setTextScale(double scale);
  // Figures (a page of points): every text in `family` at pointSize (> 0;
  // else the screen's sizes), the title in bold, sized in page units so the
  // layout is measured as drawn; lines and markers at print weights.
  void setFigureFonts(const QString& family, double pointSize);
  // Figures: the title shown (or none, with no room kept for it but `indent`'s
  // line for a sub-figure's letter), with room left and right of it.
  void setFigureTitle(const QString& title, int indent);
  // Figures: the legend's entries as drawn (pen and marker of every series it
  // lists); the plot's own legend is then hidden (figure_legend.h draws it
  // beside or below the axes).
  std::vector<struct LegendEntry> takeLegend();
  // Lays out ticks, legend columns and the title for the current size (a
  // widget never shown gets no resize event).
  void refit() { fitToSize(); }
  // Figures: fewer y ticks while any two labels are closer than 1.4 lines
  // (a low plot in a multi-panel figure), after laying the plot out.
  void thinTicks();
  // A plot of equal scale (LinePlot::equalScale) gives up width or height of
  // its axes, centred, until a unit is as long on x as on y (figures).
  void fitEqualScale();
  // A y-axis title longer than the axes are high breaks into lines (a stacked
  // figure's short axes would otherwise push it over its neighbours).
  void fitYLabel();
  // At `size` as a figure lays it out: ticks, title, tick thinning and equal scale.
  void layOutAsFigure(QSize size);
  // Whether anything drawn (a point, a line between points, a bar, an error
  // bar) reaches into `pixels` (the plot's coordinates, as laid out now).
  bool drawsInside(const QRectF& pixels) const;
  // As laid out now: the width and height that ticks, axis labels and the
  // title take of the plot (what equal scale gives up is not counted).
  QSize decoration() const;
  const views::LinePlot& data() const { return data_; }
  // The title as drawn (before a figure's own title replaces it).
  QString title() const { return QString::fromStdString(data_.title); }
  QCustomPlot* plot() const { return plot_; }

 Q_SIGNALS:
  // The mouse is over point `index` of series `series` (-1, -1: over none);
  // within 8 pixels of a plotted point, or of a segment of a `segments`
  // series (then `index` is the segment's first point, 2k for bar k).
  void pointHovered(int series, int index);
  // Every point within 8 pixels of the mouse, nearest first, as (series,
  // index) pairs (empty: over none); points stacked on one spot (a
  // diagram's H0 points at birth 0) come together. Segments are not listed.
  void pointsHovered(const QList<QPair<int, int>>& points);

 protected:
  void resizeEvent(QResizeEvent* event) override;
  // The mouse left the plot: no point is hovered any more.
  void leaveEvent(QEvent* event) override;

 private:
  double drawnTop(std::size_t series, std::size_t point) const;
  void fitXTickLabels();
  void fitToSize();
  // setData's parts: one series (with its error bars), whole-number ticks
  // where asked, and the axes' ranges.
  void addSeries(const views::PlotSeries& series, const QColor& colour, Qt::PenStyle style);
  void setTickers();
  void fitRanges();
  void showTips(const QPoint& where);
  views::LinePlot data_;
  QCustomPlot* plot_;
  std::map<int, QCPBars*> bars_;  // a stacked series' bars, by its graph's index
  std::pair<int, int> hovered_{-1, -1};
  QList<QPair<int, int>> under_;
  int titleIndent_ = 0;
  QSize equalScaleGivenUp_;  // the axes' width or height that fitEqualScale left empty
};

}  // namespace sinkscope::render
