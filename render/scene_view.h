#pragma once
// A VTK panel of points in 3-D (tokens, contributions) with optional edges
// between them and wireframe balls: the attention graph, the spectral
// embedding and the value-space projection draw through it. Left drag
// rotates, the wheel zooms, 'r' resets.
#include <vtkNew.h>
#include <vtkSmartPointer.h>

#include <QRectF>
#include <QString>
#include <array>
#include <vector>

#include "render/scene_data.h"
#include "render/vtk_view_widget.h"

class vtkActor;
class vtkActor2D;
class vtkPolyData;
class vtkSphereSource;
class vtkPoints;
class vtkProp;
class vtkTextActor;
class vtkScalarBarActor;

namespace sinkscope::render {

class SceneView : public VtkViewWidget {
  Q_OBJECT

 public:
  explicit SceneView(QWidget* parent = nullptr);
  ~SceneView() override;

  // Throws std::invalid_argument when an edge names a missing point.
  // Keeps the camera when the points stay where they were (a highlight or a
  // colour changed), so a redraw does not undo the user's rotation.
  void setData(views::Scene data);
  // Every text at `scale` times its screen size (a classroom's projector: larger).
  void setTextScale(double scale);
  // The point drawn nearest to a widget-space position, within 10 pixels; -1: none.
  int pointAt(const QPointF& widgetPoint);

  const views::Scene& data() const { return data_; }
  // The labels drawn in the last frame: each one's point and its text's box
  // in the widget's coordinates.
  struct ShownLabel {
    std::size_t point;
    QRectF box;
    bool leader;  // joined to its point by a line
  };
  const std::vector<ShownLabel>& shownLabels() const { return shownLabels_; }
  // Where the camera looks from and which way is up (what a figure of the
  // view is drawn from, and what a session keeps).
  views::SceneCamera camera() const;
  // Looks from `camera` at the scene, fitted to the view.
  void setCamera(const views::SceneCamera& camera);
  void resetView();

 Q_SIGNALS:
  // The mouse moved onto a point standing for `token`; -1 when it left the points.
  void tokenHovered(int token);

 protected:
  void keyPressEvent(QKeyEvent* event) override;
  // Hovering a point shows its label and reports its token.
  void mouseMoveEvent(QMouseEvent* event) override;
  // The mouse left the view: no token is hovered any more.
  void leaveEvent(QEvent* event) override;
  void resizeGL(int w, int h) override;  // refits the scene to the new size

 private:
  double textScale_ = 1.0;
  void layoutTexts();
  // setData's parts: actors for the points, edges, labels and balls.
  void addPoints(vtkPoints* points, double unit);
  void addEdges(vtkPoints* points);
  void addLabels();
  void addBall(const views::SceneBall& ball);
  void showColourBar();
  vtkSmartPointer<vtkActor> silhouette(vtkSphereSource* sphere, const views::Rgb& colour,
                                       double width, double opacity);

  views::Scene data_;
  int hoveredToken_ = -1;
  std::vector<vtkSmartPointer<vtkActor>> actors_;
  std::vector<vtkSmartPointer<vtkTextActor>> labels_;
  std::vector<std::size_t> labelPoints_;  // the point each label belongs to
  double unit_ = 1.0;                     // the scene's glyph unit (a point's radius per size)
  // Puts every label beside its point as drawn in this frame, covering no
  // point and no other label (farther out with a leader line when crowded);
  // a label with no free place is hidden.
  void placeLabels();
  std::vector<ShownLabel> shownLabels_;
  vtkNew<vtkPolyData> leaders_;
  vtkNew<vtkActor2D> leaderActor_;
  vtkNew<vtkTextActor> title_;
  vtkNew<vtkTextActor> legend_;
  vtkNew<vtkScalarBarActor> colourBar_;  // what the points' colours stand for, when a number
};

}  // namespace sinkscope::render
