#pragma once
// One view of a figure as the exporter draws it, whatever shows it on screen:
// a line plot, a heat map's data or a 3-D scene's data
// with the camera it is seen from. Views and their stand-ins hand their
// part to the exporter, so a figure made with a display (Ctrl+E) and one made
// without (sinkscope --figure, Qt's offscreen platform) go through the same
// drawing code.
#include <QLabel>
#include <QSize>
#include <QString>
#include <memory>
#include <optional>

#include "models/views/heat_map.h"
#include "models/views/line_plot.h"
#include "render/head_view.h"
#include "render/scene_data.h"

namespace sinkscope::render {

struct FigurePart {
  QString name;       // the view's object name
  QSize screenSize;   // its size on screen, in pixels (the Screen preset's size)
  std::shared_ptr<const views::LinePlot> plot;  // a line plot (QCustomPlot draws it)
  std::shared_ptr<const views::HeatMap> map;    // or a heat map
  std::shared_ptr<const views::Scene> scene;    // or a 3-D scene, seen from `camera`
  views::SceneCamera camera;
  std::shared_ptr<const views::HeadViewData> headView;  // or the head view
};

// A line plot's part, drawn from its description alone (no widget on screen).
FigurePart figure_part(views::LinePlot plot, const QString& name, QSize screenSize);

// The part a widget exports: a HeatMapView, LinePlotView, SceneView,
// HeadView or a FigureStandIn holding data; nothing for any other widget.
std::optional<FigurePart> figure_part(const QWidget* view);

// Takes the place of a heat map or 3-D view where the Qt platform has no
// OpenGL (offscreen, minimal): says so in words, and keeps what the view
// would draw, under the view's object name, so that figures of it can be
// made (Ctrl+E, sessions, sinkscope --figure).
class FigureStandIn : public QLabel {
  Q_OBJECT

 public:
  FigureStandIn(const QString& viewName, QWidget* parent);
  // Throw std::invalid_argument as the views do (sizes, edges).
  void setData(views::HeatMap data);
  void setData(views::Scene data);
  void setCamera(const views::SceneCamera& camera) {
    camera_ = views::scene_camera_normalised(camera);
  }
  const views::SceneCamera& camera() const { return camera_; }
  std::shared_ptr<const views::HeatMap> heatMap() const { return map_; }
  std::shared_ptr<const views::Scene> scene() const { return scene_; }

 private:
  std::shared_ptr<const views::HeatMap> map_;
  std::shared_ptr<const views::Scene> scene_;
  views::SceneCamera camera_;
};

// Shows `data` in `view` when there is one, else keeps it in `standIn`.
template <class View, class Data>
void show_or_keep(View* view, FigureStandIn* standIn, Data data) {
  if (view)
    view->setData(std::move(data));
  else if (standIn)
    standIn->setData(std::move(data));
}

}  // namespace sinkscope::render
