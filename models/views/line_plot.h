#pragma once
// A plot of curves, points or bars over a shared x axis, as plain data: what
// each series is and how it is drawn (a reference, a threshold, dashed, in
// another series' colour), the axes, the selection's mark, and the table of
// the numbers drawn. The document layer builds it; the screen (QCustomPlot),
// the figure writers (PDF, SVG, PNG), the CSV writer and Python all read this
// one description.
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/io/table_io.h"
#include "models/views/colours.h"

namespace sinkscope::views {

struct PlotSeries {
  std::string name;  // its legend entry
  std::vector<double> x;
  std::vector<double> y;
  bool reference = false;          // drawn as a grey dashed line (baselines)
  bool threshold = false;          // drawn as a dark red dotted line (thresholds such as eps)
  bool scatter = false;            // points only, no connecting line (diagrams, spectra)
  bool segments = false;           // points 2k and 2k+1 are the ends of one segment (barcodes)
  bool stacked = false;  // a bar at each x on top of the stacked series before it (shares, counts)
  std::optional<Rgb> colour = {};  // a data series' colour; none: the categorical palette's next
  bool dashed = false;  // a data series drawn dashed (e.g. the run before an intervention)
  int colourOf = -1;    // >= 0: drawn in the colour of that series (a "before" curve)
  // Optional: each point's interval (e.g. a 95% bootstrap interval), drawn as
  // error bars; empty, or as long as x (NaN: no bar at that point).
  std::vector<double> lo = {}, hi = {};
  // Optional: what each point stands for (a token string), as long as x.
  std::vector<std::string> labels = {};
  // The run a series belongs to when two are compared ("before", "A", a model's name).
  std::string run = {};
  bool markers = true;   // a circle at every point (dense curves: a plain line)
  bool inLegend = true;  // listed in the legend (a layer's baseline may not be)
  // Optional: what hovering each point says, as long as x.
  std::vector<std::string> tips = {};
};

struct LinePlot {
  std::string title;
  std::string xLabel;
  std::string yLabel;
  std::vector<PlotSeries> series;
  bool includeZero = true;  // the y axis always shows 0
  double xPadding = 0.5;    // air left and right of the data (0.5: integer positions)
  bool integerX = false;    // ticks only at whole numbers (layers, indices, N)
  bool integerY = false;    // (counts)
  bool log2X = false;       // x on a log2 scale, ticks at powers of two (N, context lengths)
  bool equalScale = false;  // a unit as long on x as on y (a persistence diagram's diagonal at 45°)
  // What each whole number x = 0, 1, ... stands for (key importance: the
  // tokens): written at the ticks, upright, where every one fits; else the
  // numbers are.
  std::vector<std::string> xTickLabels = {};
  bool airBelow =
      false;  // a little air under the lowest value: a curve along 0 is not hidden by the axis
  // Values the y axis reaches beyond the data (NaN: none): plots drawn side by
  // side for comparison share one range.
  double yReachLow = std::numeric_limits<double>::quiet_NaN();
  double yReachHigh = std::numeric_limits<double>::quiet_NaN();
  // The selection on the x axis (a key, a layer, a training step); NaN: none.
  double markedX = std::numeric_limits<double>::quiet_NaN();
  // The numbers drawn, as the document layer tabled them (analyze's columns
  // and formatting): the CSV export writes this table when it is set, and
  // the series otherwise.
  std::shared_ptr<const io::CsvTable> numbers = {};
};

// Throws std::invalid_argument naming the series whose x and y, or whose
// interval's ends, differ in length.
void line_plot_check(const LinePlot& plot);
// The plot without the window's selection (the marked x): what a paper
// figure draws unless asked for the selection.
LinePlot line_plot_without_selection(LinePlot plot);

}  // namespace sinkscope::views
