#include "render/figure_part.h"

#include "render/gl_support.h"
#include "render/heat_map_view.h"
#include "render/line_plot_view.h"
#include "render/scene_view.h"

namespace sinkscope::render {

FigurePart figure_part(views::LinePlot plot, const QString& name, QSize screenSize) {
  views::line_plot_check(plot);
  FigurePart part;
  part.name = name;
  part.screenSize = screenSize;
  part.plot = std::make_shared<const views::LinePlot>(std::move(plot));
  return part;
}

FigureStandIn::FigureStandIn(const QString& viewName, QWidget* parent)
    : QLabel(gl_unavailable_message(), parent) {
  setObjectName(viewName);
  setAlignment(Qt::AlignCenter);
  setWordWrap(true);
  setMargin(24);
}

}  // namespace sinkscope::render
