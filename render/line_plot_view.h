#pragma once
// A QCustomPlot panel of one or more curves over a shared x axis, with a
// legend; drag pans and the wheel zooms. Raster only, so it works on every
// Qt platform, offscreen included.
#include <QColor>
#include <QList>
#include <QPair>
#include <QPoint>
#include <QString>
#include <QWidget>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "models/io/table_io.h"
#include "render/figure_legend.h"

class QCustomPlot;

namespace sinkscope::render {

struct LineSeries {
  QString name;
  std::vector<double> x;
  std::vector<double> y;
  bool reference = false;   // drawn as a grey dashed line (baselines)
  bool threshold = false;   // drawn as a dark dotted line (thresholds such as eps)
  bool scatter = false;     // points only, no connecting line (diagrams, spectra)
  bool segments = false;    // points 2k and 2k+1 are the ends of one segment (barcodes)
  QColor color = QColor();  // a data series' colour; invalid: spread over viridis
  bool dashed = false;      // a data series drawn dashed (e.g. the run before an intervention)
  int colourOf = -1;        // >= 0: drawn in the colour of that series (a "before" curve)
  // Optional: each point's interval (e.g. a 95% bootstrap interval), drawn as
  // error bars; empty, or as long as x (NaN: no bar at that point).
  std::vector<double> lo = {}, hi = {};
  // Optional: what each point stands for (a token string), as long as x;
  // exported CSVs carry it in a "label" column.
  std::vector<QString> labels = {};
  // "before" or "after" when two runs are compared; exported CSVs carry a "run" column.
  QString run = {};
  bool markers = true;   // a circle at every point (dense curves: a plain line)
  bool inLegend = true;  // listed in the legend (a layer's baseline may not be)
  // Optional: what hovering each point says (a tooltip), as long as x; not
  // exported. Points under the cursor together are all listed.
  std::vector<QString> tips = {};
};

struct LinePlotData {
  QString title;
  QString xLabel;
  QString yLabel;
  std::vector<LineSeries> series;
  bool includeZero = true;  // the y axis always shows 0
  double xPadding = 0.5;    // air left and right of the data (0.5: integer positions)
  bool integerX = false;    // ticks only at whole numbers (layers, indices, N)
  bool integerY = false;    // (counts)
  bool airBelow = false;    // a little air under the lowest value: a curve along 0 is not hidden by the axis
  // The selection on the x axis (a key, a layer, a training step), drawn as
  // an orange line; NaN: none.
  double markedX = std::numeric_limits<double>::quiet_NaN();
  // The numbers drawn, as the document layer tabled them (analyze's columns
  // and formatting): the CSV export writes this table when it is set, and
  // the series otherwise.
  std::shared_ptr<const io::CsvTable> numbers = {};
};

class LinePlotView : public QWidget {
  Q_OBJECT

 public:
  explicit LinePlotView(QWidget* parent = nullptr);

  // Throws std::invalid_argument when a series' x and y (or lo and hi) differ in length.
  void setData(LinePlotData data);
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
  const LinePlotData& data() const { return data_; }
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
  void fitToSize();
  // setData's parts: one series (with its error bars), whole-number ticks
  // where asked, and the axes' ranges.
  void addSeries(const LineSeries& series, const QColor& colour, Qt::PenStyle style);
  void setTickers();
  void fitRanges();
  void showTips(const QPoint& where);
  LinePlotData data_;
  QCustomPlot* plot_;
  std::pair<int, int> hovered_{-1, -1};
  QList<QPair<int, int>> under_;
  int titleIndent_ = 0;
};

}  // namespace sinkscope::render
