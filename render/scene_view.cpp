#include "render/scene_view.h"
#include "render/token_label.h"
#include "render/vtk_text.h"

#include <vtkCallbackCommand.h>
#include <cstring>

#include "render/label_layout.h"

#include "render/text_wrap.h"

#include <QMouseEvent>
#include <QToolTip>

#include <vtkActor.h>
#include <vtkActor2D.h>
#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkCoordinate.h>
#include <vtkFloatArray.h>
#include <vtkGlyph3DMapper.h>
#include <vtkInteractorStyleTrackballCamera.h>
#include <vtkLookupTable.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkPolyDataMapper2D.h>
#include <vtkPolyDataSilhouette.h>
#include <vtkProp.h>
#include <vtkProperty.h>
#include <vtkProperty2D.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkScalarBarActor.h>
#include <vtkSphereSource.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>
#include <vtkUnsignedCharArray.h>

#include <QKeyEvent>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sinkscope::render {

namespace {
unsigned char byte(double x) { return static_cast<unsigned char>(std::clamp(x, 0.0, 1.0) * 255.0); }
}  // namespace

SceneView::SceneView(QWidget* parent) : VtkViewWidget(parent) {
  vtkNew<vtkInteractorStyleTrackballCamera> style;
  setInteractorStyle(style);
  renderer()->SetViewport(0.0, 0.0, 1.0, 0.88);
  for (vtkTextActor* t : {title_.Get(), legend_.Get()}) {
    // DejaVu Sans: VTK's own fonts lack the math (θ, sₙ, rₘₐₓ) and token glyphs.
    vtk_text_use_unicode_font(t->GetTextProperty());
    t->GetTextProperty()->SetColor(0.1, 0.1, 0.1);
    t->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
    overlayRenderer()->AddActor2D(t);
  }
  // Every frame: leave out the labels that would overlap (the camera may have moved).
  vtkNew<vtkCallbackCommand> beforeRender;
  beforeRender->SetClientData(this);
  beforeRender->SetCallback([](vtkObject*, unsigned long, void* self, void*) {
    static_cast<SceneView*>(self)->placeLabels();
  });
  renderer()->AddObserver(vtkCommand::StartEvent, beforeRender);
  // Leader lines from crowded points to their labels, in the display's pixels.
  vtkNew<vtkPoints> leaderPoints;
  vtkNew<vtkCellArray> leaderLines;
  leaders_->SetPoints(leaderPoints);
  leaders_->SetLines(leaderLines);
  vtkNew<vtkCoordinate> displayPixels;
  displayPixels->SetCoordinateSystemToDisplay();
  vtkNew<vtkPolyDataMapper2D> leaderMapper;
  leaderMapper->SetInputData(leaders_);
  leaderMapper->SetTransformCoordinate(displayPixels);
  leaderActor_->SetMapper(leaderMapper);
  leaderActor_->GetProperty()->SetColor(0.47, 0.47, 0.47);
  leaderActor_->GetProperty()->SetLineWidth(1.0);
  renderer()->AddActor2D(leaderActor_);
  // The colour bar of a scene coloured by a number (the diverging map), at the right.
  colourBar_->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
  colourBar_->GetPositionCoordinate()->SetValue(0.84, 0.12);
  colourBar_->SetWidth(0.1);
  colourBar_->SetHeight(0.6);
  colourBar_->SetNumberOfLabels(3);
  colourBar_->UnconstrainedFontSizeOn();
  for (vtkTextProperty* p :
       {colourBar_->GetTitleTextProperty(), colourBar_->GetLabelTextProperty()}) {
    vtk_text_use_unicode_font(p);
    p->SetColor(0.1, 0.1, 0.1);
    p->SetFontSize(11);
    p->BoldOff();
    p->ItalicOff();
    p->ShadowOff();
  }
  colourBar_->VisibilityOff();
  overlayRenderer()->AddActor2D(colourBar_);
  title_->GetTextProperty()->SetFontSize(14);
  legend_->GetTextProperty()->SetFontSize(11);
  for (vtkTextActor* t : {title_.Get(), legend_.Get()}) {
    t->GetTextProperty()->SetVerticalJustificationToTop();
    t->GetPositionCoordinate()->SetCoordinateSystemToDisplay();
  }
}

void SceneView::layoutTexts() {
  // Title and legend wrap to the view's width and stack from its top edge.
  // Character widths are estimated from the font size (VTK's fonts are narrow).
  const int w = std::max(1, width()), h = std::max(1, height());
  auto wrapped = [w](const QString& text, double charWidth) {
    return text_wrap(
        text, [charWidth](const QString& t) { return t.size() * charWidth; }, w - 16.0);
  };
  const double k = textScale_;
  const QStringList title = wrapped(QString::fromStdString(data_.title), 8.0 * k);
  const QStringList legend = wrapped(QString::fromStdString(data_.legend), 6.2 * k);
  const double ratio = devicePixelRatioF();
  title_->SetInput(title.join(QLatin1Char('\n')).toUtf8().constData());
  legend_->SetInput(legend.join(QLatin1Char('\n')).toUtf8().constData());
  title_->GetTextProperty()->SetFontSize(static_cast<int>(std::lround(14 * k)));
  legend_->GetTextProperty()->SetFontSize(static_cast<int>(std::lround(11 * k)));
  title_->SetPosition(8 * ratio, (h - 6) * ratio);
  legend_->SetPosition(8 * ratio, (h - 8 - 18 * k * title.size()) * ratio);
  // The 3-D scene gets the space below the texts.
  const double top = 1.0 - (10.0 + k * (18.0 * title.size() + 14.0 * legend.size())) / h;
  renderer()->SetViewport(0.0, 0.0, 1.0, std::clamp(top, 0.3, 1.0));
}

void SceneView::showColourBar() {
  colourBar_->SetVisibility(data_.colourBar.has_value());
  if (!data_.colourBar) return;
  vtkNew<vtkLookupTable> colours;
  colours->SetNumberOfTableValues(256);
  colours->SetRange(data_.colourBar->lo, data_.colourBar->hi);
  for (int i = 0; i < 256; ++i) {
    const views::Rgb c = views::colormap_diverging(-1.0 + 2.0 * i / 255.0);
    colours->SetTableValue(i, c.r, c.g, c.b, 1.0);
  }
  colourBar_->SetLookupTable(colours);
  colourBar_->SetTitle(
      vtk_text_drawable(QString::fromStdString(data_.colourBar->name)).toUtf8().constData());
}

SceneView::~SceneView() = default;

void SceneView::setTextScale(double scale) {
  textScale_ = std::clamp(scale, 0.5, 4.0);
  for (auto& label : labels_)
    label->GetTextProperty()->SetFontSize(static_cast<int>(std::lround(11 * textScale_)));
  layoutTexts();
  requestRender();
}

void SceneView::setData(views::Scene data) {
  views::scene_check(data);
  auto samePlaces = [&] {
    if (data.points.size() != data_.points.size() || data.balls.size() != data_.balls.size())
      return false;
    for (std::size_t k = 0; k < data.points.size(); ++k)
      if (data.points[k].position != data_.points[k].position) return false;
    return true;
  };
  const bool keepCamera = !data.points.empty() && samePlaces();
  data_ = std::move(data);
  for (auto& a : actors_) renderer()->RemoveActor(a);
  for (auto& l : labels_) renderer()->RemoveActor2D(l);
  actors_.clear();
  labels_.clear();
  labelPoints_.clear();
  layoutTexts();
  showColourBar();

  // The scale of the scene, so glyphs and lines look alike whatever the units.
  const double unit = views::scene_glyph_unit(data_);
  unit_ = unit;
  if (!data_.points.empty()) {
    vtkNew<vtkPoints> points;
    for (const auto& p : data_.points) points->InsertNextPoint(p.position.data());
    addPoints(points, unit);
    if (!data_.edges.empty()) addEdges(points);
    addLabels();
  }
  for (const views::SceneBall& b : data_.balls) addBall(b);
  for (auto& a : actors_) renderer()->AddActor(a);
  if (keepCamera)
    requestRender();
  else
    resetView();
}

// A sphere's outline as the camera sees it, a line of `colour`.
vtkSmartPointer<vtkActor> SceneView::silhouette(vtkSphereSource* sphere, const views::Rgb& colour,
                                                double width, double opacity) {
  vtkNew<vtkPolyDataSilhouette> outline;
  outline->SetInputConnection(sphere->GetOutputPort());
  outline->SetCamera(renderer()->GetActiveCamera());
  outline->SetDirectionToCameraOrigin();
  vtkNew<vtkPolyDataMapper> mapper;
  mapper->SetInputConnection(outline->GetOutputPort());
  auto actor = vtkSmartPointer<vtkActor>::New();
  actor->SetMapper(mapper);
  actor->GetProperty()->SetColor(colour.r, colour.g, colour.b);
  actor->GetProperty()->SetLineWidth(width);
  actor->GetProperty()->SetOpacity(opacity);
  actor->GetProperty()->LightingOff();
  return actor;
}

// The points as spheres of their colours and sizes.
void SceneView::addPoints(vtkPoints* points, double unit) {
  vtkNew<vtkUnsignedCharArray> colors;
  colors->SetName("colors");
  colors->SetNumberOfComponents(3);
  vtkNew<vtkFloatArray> sizes;
  sizes->SetName("sizes");
  for (const auto& p : data_.points) {
    colors->InsertNextTuple3(byte(p.color.r), byte(p.color.g), byte(p.color.b));
    sizes->InsertNextValue(static_cast<float>(p.size * unit));
  }
  vtkNew<vtkPolyData> cloud;
  cloud->SetPoints(points);
  cloud->GetPointData()->AddArray(colors);
  cloud->GetPointData()->AddArray(sizes);
  vtkNew<vtkSphereSource> sphere;
  sphere->SetThetaResolution(16);
  sphere->SetPhiResolution(12);
  sphere->SetRadius(1.0);
  vtkNew<vtkGlyph3DMapper> glyphs;
  glyphs->SetInputData(cloud);
  glyphs->SetSourceConnection(sphere->GetOutputPort());
  glyphs->SetScaleArray("sizes");
  glyphs->SetScaleModeToScaleByMagnitude();
  glyphs->SetScalarModeToUsePointFieldData();
  glyphs->SelectColorArray("colors");
  glyphs->SetColorModeToDirectScalars();
  glyphs->ScalarVisibilityOn();
  auto actor = vtkSmartPointer<vtkActor>::New();
  actor->SetMapper(glyphs);
  actors_.push_back(actor);
  // Sinks whose fill shows another number: a ring in the sink colour, the
  // outline of a sphere a little larger than the point as the camera sees it.
  for (std::size_t k = 0; k < data_.points.size(); ++k) {
    const views::ScenePoint& p = data_.points[k];
    if (!p.sinkRing) continue;
    vtkNew<vtkSphereSource> shell;
    shell->SetCenter(points->GetPoint(static_cast<vtkIdType>(k)));
    shell->SetRadius(1.5 * p.size * unit);
    shell->SetThetaResolution(32);
    shell->SetPhiResolution(24);
    auto ring = silhouette(shell.Get(), views::kSinkHighlight, 2.0, 1.0);
    actors_.push_back(ring);
  }
}

// The edges as lines, dark with their weight as opacity; lit ones highlighted.
void SceneView::addEdges(vtkPoints* points) {
  vtkNew<vtkCellArray> lines;
  vtkNew<vtkUnsignedCharArray> lineColors;
  lineColors->SetNumberOfComponents(4);
  lineColors->SetName("lineColors");
  for (const views::SceneEdge& e : data_.edges) {
    const vtkIdType ids[2] = {e.from, e.to};
    lines->InsertNextCell(2, ids);
    if (e.lit)
      lineColors->InsertNextTuple4(byte(views::kSelectedHighlight.r),
                                   byte(views::kSelectedHighlight.g),
                                   byte(views::kSelectedHighlight.b), 255);
    else
      lineColors->InsertNextTuple4(70, 70, 70, byte(0.15 + 0.85 * e.weight));
  }
  vtkNew<vtkPolyData> graph;
  graph->SetPoints(points);
  graph->SetLines(lines);
  graph->GetCellData()->SetScalars(lineColors);
  vtkNew<vtkPolyDataMapper> mapper;
  mapper->SetInputData(graph);
  mapper->SetScalarModeToUseCellData();
  mapper->SetColorModeToDirectScalars();
  auto lineActor = vtkSmartPointer<vtkActor>::New();
  lineActor->SetMapper(mapper);
  lineActor->GetProperty()->SetLineWidth(1.5);
  actors_.push_back(lineActor);
}

// The labelled points' labels, beside their spheres, always facing the camera.
void SceneView::addLabels() {
  for (std::size_t k : views::scene_labelled_points(data_.points)) {
    const views::ScenePoint& p = data_.points[k];
    auto label = vtkSmartPointer<vtkTextActor>::New();
    label->SetInput(vtk_text_drawable(token_shown(p.label)).toUtf8().constData());
    label->GetPositionCoordinate()->SetCoordinateSystemToDisplay();
    vtk_text_use_unicode_font(label->GetTextProperty());
    label->GetTextProperty()->SetFontSize(static_cast<int>(std::lround(11 * textScale_)));
    label->GetTextProperty()->SetColor(0.15, 0.15, 0.15);
    label->GetTextProperty()->SetJustificationToLeft();
    label->GetTextProperty()->SetVerticalJustificationToBottom();
    labels_.push_back(label);
    labelPoints_.push_back(k);
    renderer()->AddActor2D(label);
  }
}

// The ball's far half only, faint, and its outline as the camera sees it:
// nothing of the ball is ever in front of a point inside or behind it (a
// whole shaded shell covered them twice; a wireframe's many lines drowned
// them).
void SceneView::addBall(const views::SceneBall& b) {
  vtkNew<vtkSphereSource> sphere;
  sphere->SetCenter(b.center.data());
  sphere->SetRadius(b.radius);
  sphere->SetThetaResolution(48);
  sphere->SetPhiResolution(32);
  vtkNew<vtkPolyDataMapper> mapper;
  mapper->SetInputConnection(sphere->GetOutputPort());
  auto actor = vtkSmartPointer<vtkActor>::New();
  actor->SetMapper(mapper);
  actor->GetProperty()->SetColor(b.color.r, b.color.g, b.color.b);
  actor->GetProperty()->SetOpacity(0.10);
  actor->GetProperty()->SetSpecular(0.0);
  actor->GetProperty()->FrontfaceCullingOn();
  actors_.push_back(actor);
  auto rim = silhouette(sphere.Get(), b.color, 1.5, 0.8);
  actors_.push_back(rim);
}

int SceneView::pointAt(const QPointF& widgetPoint) {
  const QPointF d = toDisplay(widgetPoint);
  vtkRenderer* r = renderer();
  int best = -1;
  double bestDistance = 10.0 * devicePixelRatioF();
  for (std::size_t k = 0; k < data_.points.size(); ++k) {
    const auto& p = data_.points[k].position;
    r->SetWorldPoint(p[0], p[1], p[2], 1.0);
    r->WorldToDisplay();
    const double* q = r->GetDisplayPoint();
    const double distance = std::hypot(q[0] - d.x(), q[1] - d.y());
    if (distance < bestDistance) bestDistance = distance, best = static_cast<int>(k);
  }
  return best;
}

void SceneView::mouseMoveEvent(QMouseEvent* event) {
  VtkViewWidget::mouseMoveEvent(event);
  if (event->buttons() != Qt::NoButton) return;  // rotating
  const int k = pointAt(event->position());
  const int token = k < 0 ? -1 : data_.points[static_cast<std::size_t>(k)].token;
  if (k >= 0 && !data_.points[static_cast<std::size_t>(k)].label.empty())
    QToolTip::showText(event->globalPosition().toPoint(),
                       QString::fromStdString(data_.points[static_cast<std::size_t>(k)].label),
                       this);
  else
    QToolTip::hideText();
  if (token != hoveredToken_) {
    hoveredToken_ = token;
    Q_EMIT tokenHovered(token);
  }
}

void SceneView::placeLabels() {
  vtkRenderer* r = renderer();
  vtkPoints* leaderPoints = leaders_->GetPoints();
  leaderPoints->Reset();
  leaders_->GetLines()->Reset();
  leaders_->Modified();
  shownLabels_.clear();
  if (labels_.empty()) return;
  // Where each point is drawn this frame, in the display's pixels with y
  // down (as place_point_labels lays out a picture), and its radius there.
  const int* windowSize = r->GetRenderWindow()->GetSize();
  const double windowHeight = windowSize[1];
  double up[3];
  r->GetActiveCamera()->GetViewUp(up);
  const auto display = [&](const std::array<double, 3>& world) {
    r->SetWorldPoint(world[0], world[1], world[2], 1.0);
    r->WorldToDisplay();
    const double* d = r->GetDisplayPoint();
    return QPointF(d[0], windowHeight - d[1]);
  };
  std::vector<QPointF> centres;
  std::vector<double> radii;
  for (const views::ScenePoint& p : data_.points) {
    const double world = p.size * unit_ * (p.sinkRing ? 1.5 : 1.0);
    const std::array<double, 3> top = {p.position[0] + world * up[0], p.position[1] + world * up[1],
                                       p.position[2] + world * up[2]};
    const QPointF c = display(p.position);
    centres.push_back(c);
    radii.push_back(std::max(2.0, QLineF(c, display(top)).length()));
  }
  std::vector<PointLabel> wanted;
  for (std::size_t i = 0; i < labels_.size(); ++i) {
    double box[4];
    labels_[i]->GetBoundingBox(r, box);
    const std::size_t k = labelPoints_[i];
    wanted.push_back(
        {centres[k], radii[k], QSizeF(box[1] - box[0], box[3] - box[2]), data_.points[k].size});
  }
  // Points without a label are in the way too.
  for (std::size_t k = 0; k < data_.points.size(); ++k)
    if (std::find(labelPoints_.begin(), labelPoints_.end(), k) == labelPoints_.end())
      wanted.push_back({centres[k], radii[k], QSizeF(), -1e9});
  // Inside the scene's part of the window, left of a colour bar.
  int* size = r->GetSize();
  int* lowerLeft = r->GetOrigin();
  double right = lowerLeft[0] + size[0];
  if (colourBar_->GetVisibility()) right = std::min(right, 0.83 * windowSize[0]);
  const QRectF bounds(lowerLeft[0], windowHeight - (lowerLeft[1] + size[1]), right - lowerLeft[0],
                      size[1]);
  const std::vector<PlacedLabel> placed = place_point_labels(wanted, bounds);
  for (std::size_t i = 0; i < labels_.size(); ++i) {
    labels_[i]->SetVisibility(placed[i].shown ? 1 : 0);
    if (!placed[i].shown) continue;
    const QRectF& b = placed[i].box;
    labels_[i]->SetPosition(b.left(), windowHeight - b.bottom());
    const double ratio = devicePixelRatioF();
    shownLabels_.push_back(
        {labelPoints_[i], QRectF(b.topLeft() / ratio, b.size() / ratio), placed[i].leader});
    if (!placed[i].leader) continue;
    // From the point's edge to the label's nearest side.
    const QLineF line = leader_line(wanted[i].point, wanted[i].radius, b);
    if (line.isNull()) continue;
    const vtkIdType a = leaderPoints->InsertNextPoint(line.x1(), windowHeight - line.y1(), 0.0);
    const vtkIdType e = leaderPoints->InsertNextPoint(line.x2(), windowHeight - line.y2(), 0.0);
    const vtkIdType ids[2] = {a, e};
    leaders_->GetLines()->InsertNextCell(2, ids);
  }
}

void SceneView::leaveEvent(QEvent* event) {
  VtkViewWidget::leaveEvent(event);
  QToolTip::hideText();
  if (hoveredToken_ != -1) {
    hoveredToken_ = -1;
    Q_EMIT tokenHovered(-1);
  }
}

views::SceneCamera SceneView::camera() const {
  vtkCamera* c = renderer()->GetActiveCamera();
  double position[3], focal[3], up[3];
  c->GetPosition(position);
  c->GetFocalPoint(focal);
  c->GetViewUp(up);
  return views::scene_camera_normalised(
      {{position[0] - focal[0], position[1] - focal[1], position[2] - focal[2]},
       {up[0], up[1], up[2]}});
}

void SceneView::setCamera(const views::SceneCamera& camera) {
  const views::SceneCamera valid = views::scene_camera_normalised(camera);
  vtkCamera* c = renderer()->GetActiveCamera();
  c->SetFocalPoint(0.0, 0.0, 0.0);
  c->SetPosition(valid.direction[0], valid.direction[1], valid.direction[2]);
  c->SetViewUp(valid.up[0], valid.up[1], valid.up[2]);
  resetView();  // keeps the direction, fits the distance
}

void SceneView::resetView() {
  vtkRenderer* r = renderer();
  r->ResetCamera();
  // ResetCamera fits the bounding sphere, which leaves a flat or elongated
  // scene small: zoom until the points' on-screen box fills most of the view.
  const int* size = r->GetSize();
  if (data_.points.size() < 2 || size[0] <= 0 || size[1] <= 0) {
    requestRender();
    return;
  }
  double lo[2] = {1e300, 1e300}, hi[2] = {-1e300, -1e300};
  auto extend = [&](const std::array<double, 3>& p, double radius) {
    for (double dx : {-radius, radius})
      for (double dy : {-radius, radius}) {
        r->SetWorldPoint(p[0] + dx, p[1] + dy, p[2], 1.0);
        r->WorldToDisplay();
        const double* d = r->GetDisplayPoint();
        lo[0] = std::min(lo[0], d[0]), hi[0] = std::max(hi[0], d[0]);
        lo[1] = std::min(lo[1], d[1]), hi[1] = std::max(hi[1], d[1]);
      }
  };
  for (const views::ScenePoint& p : data_.points) extend(p.position, 0.0);
  for (const views::SceneBall& b : data_.balls) extend(b.center, b.radius);
  const double w = std::max(1.0, hi[0] - lo[0]), h = std::max(1.0, hi[1] - lo[1]);
  // 0.8: room for labels; the title and legend take the top 15% of the view.
  const double zoom = std::clamp(0.8 * std::min(size[0] / w, 0.85 * size[1] / h), 1.0, 4.0);
  r->GetActiveCamera()->Zoom(zoom);
  requestRender();
}

void SceneView::resizeGL(int w, int h) {
  VtkViewWidget::resizeGL(w, h);
  layoutTexts();
  resetView();
}

void SceneView::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_R) {
    resetView();
    return;
  }
  VtkViewWidget::keyPressEvent(event);
}

}  // namespace sinkscope::render
