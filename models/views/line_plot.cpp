#include "models/views/line_plot.h"

#include <stdexcept>

namespace sinkscope::views {

LinePlot line_plot_without_selection(LinePlot plot) {
  plot.markedX = std::numeric_limits<double>::quiet_NaN();
  return plot;
}

void line_plot_check(const LinePlot& plot) {
  for (const PlotSeries& s : plot.series) {
    auto fail = [&](const char* what) {
      throw std::invalid_argument("plot \"" + plot.title + "\": series \"" + s.name + "\" has " +
                                  what);
    };
    if (s.x.size() != s.y.size()) fail("x and y of different lengths");
    if (s.lo.size() != s.hi.size() || (!s.lo.empty() && s.lo.size() != s.x.size()))
      fail("an interval of another length");
  }
}

}  // namespace sinkscope::views
