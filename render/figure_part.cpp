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

std::optional<FigurePart> figure_part(const QWidget* view) {
  if (!view) return std::nullopt;
  FigurePart part;
  part.name = view->objectName();
  part.screenSize = view->size();
  if (auto* plot = qobject_cast<const LinePlotView*>(view)) {
    part.plot = std::make_shared<const views::LinePlot>(plot->data());
  } else if (auto* map = qobject_cast<const HeatMapView*>(view)) {
    part.map = std::make_shared<const views::HeatMap>(map->data());
  } else if (auto* scene = qobject_cast<const SceneView*>(view)) {
    part.scene = std::make_shared<const views::Scene>(scene->data());
    part.camera = scene->camera();
  } else if (auto* head = qobject_cast<const HeadView*>(view)) {
    part.headView = std::make_shared<const views::HeadViewData>(head->data());
  } else if (auto* standIn = qobject_cast<const FigureStandIn*>(view)) {
    if (!standIn->heatMap() && !standIn->scene()) return std::nullopt;
    part.map = standIn->heatMap();
    part.scene = standIn->scene();
    part.camera = standIn->camera();
    part.screenSize = QSize(640, 480);  // no size on screen of its own
  } else {
    return std::nullopt;
  }
  return part;
}

FigureStandIn::FigureStandIn(const QString& viewName, QWidget* parent)
    : QLabel(gl_unavailable_message(), parent) {
  setObjectName(viewName);
  setAlignment(Qt::AlignCenter);
  setWordWrap(true);
  setMargin(24);
}

void FigureStandIn::setData(views::HeatMap data) {
  views::heat_map_check(data);
  map_ = std::make_shared<const views::HeatMap>(std::move(data));
  scene_.reset();
}

void FigureStandIn::setData(views::Scene data) {
  views::scene_check(data);
  scene_ = std::make_shared<const views::Scene>(std::move(data));
  map_.reset();
}

}  // namespace sinkscope::render
