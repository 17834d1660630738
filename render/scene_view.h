#pragma once
// A VTK panel of points in 3-D (tokens, contributions) with optional edges
// between them and wireframe balls: the attention graph, the spectral
// embedding and the value-space projection draw through it. Left drag
// rotates, the wheel zooms, 'r' resets.
#include <vtkNew.h>
#include <vtkSmartPointer.h>

#include <QString>
#include <array>
#include <vector>

#include "render/colormap.h"
#include "render/vtk_view_widget.h"

class vtkActor;
class vtkProp;
class vtkTextActor;

namespace sinkscope::render {

struct ScenePoint {
  std::array<double, 3> position{};
  Rgb color{0.5, 0.5, 0.5};
  double size = 1.0;  // relative radius
  QString label;      // drawn beside the point when the scene has few points
  int token = -1;     // the token the point stands for (hover reports it), -1: none
};

struct SceneEdge {
  int from = 0, to = 0;
  double weight = 1.0;  // line opacity in [0, 1]
  bool lit = false;     // drawn in the selection colour (a highlighted edge)
};

struct SceneBall {
  std::array<double, 3> center{};
  double radius = 1.0;
  Rgb color{0.3, 0.3, 0.3};
};

struct SceneData {
  QString title;
  std::vector<ScenePoint> points;
  std::vector<SceneEdge> edges;
  std::vector<SceneBall> balls;
  QString legend;  // one line under the title: what the colours mean
};

class SceneView : public VtkViewWidget {
  Q_OBJECT

 public:
  explicit SceneView(QWidget* parent = nullptr);
  ~SceneView() override;

  // Throws std::invalid_argument when an edge names a missing point.
  // Keeps the camera when the points stay where they were (a highlight or a
  // colour changed), so a redraw does not undo the user's rotation.
  void setData(SceneData data);
  // The point drawn nearest to a widget-space position, within 10 pixels; -1: none.
  int pointAt(const QPointF& widgetPoint);

  // The scene as the camera shows it now, in widget coordinates (y down):
  // what a 2-D export draws.
  struct Projection {
    std::vector<QPointF> points;
    std::vector<double> pointRadii;
    std::vector<QPointF> ballCentres;
    std::vector<double> ballRadii;
  };
  Projection project();
  const SceneData& data() const { return data_; }
  void resetView();

 Q_SIGNALS:
  // The mouse moved onto a point standing for `token`; -1 when it left the points.
  void tokenHovered(int token);

 protected:
  void keyPressEvent(QKeyEvent* event) override;
  // Hovering a point shows its label and reports its token.
  void mouseMoveEvent(QMouseEvent* event) override;
  // The mouse left the view: no token is hovered any more (issue 17, defect 9).
  void leaveEvent(QEvent* event) override;
  void resizeGL(int w, int h) override;  // refits the scene to the new size

 private:
  void layoutTexts();

  SceneData data_;
  int hoveredToken_ = -1;
  double glyphUnit_ = 1.0;  // world length of a point of size 1
  std::vector<vtkSmartPointer<vtkActor>> actors_;
  std::vector<vtkSmartPointer<vtkProp>> labels_;
  std::vector<std::size_t> labelPoints_;  // the point each label belongs to
  // Hides the labels that would overlap larger points' labels in this frame.
  void placeLabels();
  vtkNew<vtkTextActor> title_;
  vtkNew<vtkTextActor> legend_;
};

// Scenes with up to this many points label every point; larger ones label
// only their kSceneTopLabels largest points. Either way a label that would
// overlap a larger point's label is left out (label_layout.h).
inline constexpr int kSceneMaxLabels = 64;
inline constexpr int kSceneTopLabels = 24;

// The points of `points` that get a label (before overlaps are removed).
std::vector<std::size_t> scene_labelled_points(const std::vector<ScenePoint>& points);

}  // namespace sinkscope::render
