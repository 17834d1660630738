#pragma once
// One view of a figure as the exporter draws it, whatever shows it on screen:
// a line plot, a heat map's data or a 3-D scene's data with the camera it is
// seen from. The parts come from the document's descriptions (DrawnViews),
// so a figure made with a display (Ctrl+E) and one made without (sinkscope
// --figure, Qt's offscreen platform) go through the same drawing code.
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
  // In a figure of several views, written after the view's letter ("(a) gpt2"):
  // what tells the views apart when they draw the same thing (models side by side).
  QString letterNote;
};

// A line plot's part, drawn from its description alone (no widget on screen).
FigurePart figure_part(views::LinePlot plot, const QString& name, QSize screenSize);

// Takes the place of a heat map or 3-D view where the Qt platform has no
// OpenGL (offscreen, minimal): says so in words under the view's object name
// and keeps a 3-D view's camera (a session's), so that figures of what the
// view would draw (DrawnViews) can be made (Ctrl+E, sessions, sinkscope --figure).
class FigureStandIn : public QLabel {
  Q_OBJECT

 public:
  FigureStandIn(const QString& viewName, QWidget* parent);
  void setCamera(const views::SceneCamera& camera) {
    camera_ = views::scene_camera_normalised(camera);
  }
  const views::SceneCamera& camera() const { return camera_; }

 private:
  views::SceneCamera camera_;
};

}  // namespace sinkscope::render
