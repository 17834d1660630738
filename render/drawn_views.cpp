#include "render/drawn_views.h"

#include "render/head_view.h"
#include "render/heat_map_view.h"
#include "render/line_plot_view.h"
#include "render/scene_view.h"

namespace sinkscope::render {

namespace {
QString name_of(const QWidget* view, const QWidget* standIn) {
  return view ? view->objectName() : standIn ? standIn->objectName() : QString();
}
}  // namespace

void DrawnViews::show(LinePlotView* view, views::LinePlot data) {
  if (!view) return;
  auto shared = std::make_shared<const views::LinePlot>(std::move(data));
  view->setData(*shared);
  record(view->objectName(), &FigurePart::plot, std::move(shared));
}

void DrawnViews::show(HeadView* view, views::HeadViewData data) {
  if (!view) return;
  auto shared = std::make_shared<const views::HeadViewData>(std::move(data));
  view->setData(*shared);
  record(view->objectName(), &FigurePart::headView, std::move(shared));
}

void DrawnViews::show(HeatMapView* view, FigureStandIn* standIn, views::HeatMap data) {
  if (!view && !standIn) return;
  auto shared = std::make_shared<const views::HeatMap>(std::move(data));
  if (view)
    view->setData(shared);
  else
    views::heat_map_check(*shared);
  record(name_of(view, standIn), &FigurePart::map, std::move(shared));
}

void DrawnViews::show(SceneView* view, FigureStandIn* standIn, views::Scene data) {
  if (!view && !standIn) return;
  auto shared = std::make_shared<const views::Scene>(std::move(data));
  if (view)
    view->setData(*shared);
  else
    views::scene_check(*shared);
  record(name_of(view, standIn), &FigurePart::scene, std::move(shared));
}

std::optional<FigurePart> DrawnViews::part(const QWidget* view) const {
  if (!view) return std::nullopt;
  const auto it = parts_.find(view->objectName());
  if (it == parts_.end()) return std::nullopt;
  FigurePart part = it->second;
  part.name = view->objectName();
  part.screenSize = view->size();
  if (auto* scene = qobject_cast<const SceneView*>(view)) {
    part.camera = scene->camera();
  } else if (auto* standIn = qobject_cast<const FigureStandIn*>(view)) {
    part.camera = standIn->camera();
    part.screenSize = QSize(640, 480);  // no size on screen of its own
  }
  return part;
}

std::vector<FigurePart> DrawnViews::parts(const std::vector<QWidget*>& views) const {
  std::vector<FigurePart> out;
  for (const QWidget* v : views) {
    std::optional<FigurePart> p = part(v);
    if (!p) throw std::invalid_argument("figure: a view has nothing to draw");
    out.push_back(std::move(*p));
  }
  return out;
}

}  // namespace sinkscope::render
