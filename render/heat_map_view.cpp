#include "render/heat_map_view.h"
#include "render/token_label.h"

#include "render/label_layout.h"

#include <QFont>
#include <QFontMetricsF>
#include <QMouseEvent>
#include <QHelpEvent>
#include <QToolTip>

#include <vtkActor.h>
#include <vtkCallbackCommand.h>
#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkCommand.h>
#include <vtkFloatArray.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkImageActor.h>
#include <vtkImageData.h>
#include <vtkImageMapToColors.h>
#include <vtkImageMapper3D.h>
#include <vtkLookupTable.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>
#include <vtkScalarBarActor.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>
#include <vtkVariant.h>
#include <QKeyEvent>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "models/views/colours.h"
#include "render/pan_zoom_style.h"
#include "render/text_wrap.h"
#include "render/vtk_text.h"

namespace sinkscope::render {

namespace {
constexpr int kLutSize = 256;
// The image takes the left part of the window; the colour bar and title the rest.
constexpr double kImageViewport[4] = {0.0, 0.02, 0.82, 0.90};
// The pixels a band of token labels needs: its longest label at the
// largest label font (11 px times the view's text scale) and a margin, at most
// 90 (scaled alike).
double labelBand(const std::vector<std::string>& labels, double scale) {
  QFont font(QStringLiteral("DejaVu Sans"));  // the labels' font (vtk_text.h)
  font.setPixelSize(static_cast<int>(std::lround(11 * scale)));
  const QFontMetricsF metrics(font);
  double widest = 0;
  for (const std::string& label : labels)
    widest = std::max(widest, metrics.horizontalAdvance(QString::fromStdString(label)));
  return std::min(90.0 * scale, widest + 14.0);
}
}  // namespace

HeatMapView::HeatMapView(QWidget* parent) : VtkViewWidget(parent) {
  vtkNew<PanZoomStyle> style;
  setInteractorStyle(style);

  lut_->SetNumberOfTableValues(kLutSize);
  for (int i = 0; i < kLutSize; ++i) {
    const views::Rgb c = views::colormap_viridis(static_cast<double>(i) / (kLutSize - 1));
    lut_->SetTableValue(i, c.r, c.g, c.b, 1.0);
  }
  lut_->SetNanColor(0.90, 0.90, 0.90, 1.0);
  lut_->SetRange(0.0, 1.0);

  colors_->SetLookupTable(lut_);
  colors_->SetOutputFormatToRGB();
  colors_->SetInputData(image_);
  actor_->GetMapper()->SetInputConnection(colors_->GetOutputPort());
  actor_->InterpolateOff();         // one crisp square per cell
  actor_->GetMapper()->BorderOn();  // edge cells full size, not half
  // Pick the level of detail for every frame (the zoom may have changed).
  vtkNew<vtkCallbackCommand> beforeRender;
  beforeRender->SetClientData(this);
  beforeRender->SetCallback([](vtkObject*, unsigned long, void* self, void*) {
    static_cast<HeatMapView*>(self)->chooseLevelOfDetail();
  });
  renderer()->AddObserver(vtkCommand::StartEvent, beforeRender);

  renderer()->SetViewport(kImageViewport[0], kImageViewport[1], kImageViewport[2],
                          kImageViewport[3]);
  renderer()->GetActiveCamera()->ParallelProjectionOn();

  colorBar_->SetLookupTable(lut_);
  colorBar_->SetNumberOfLabels(5);
  colorBar_->SetLabelFormat("%.3g");
  colorBar_->SetMaximumWidthInPixels(90);
  colorBar_->SetBarRatio(0.25);
  colorBar_->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
  colorBar_->GetPositionCoordinate()->SetValue(0.84, 0.06);
  colorBar_->SetWidth(0.14);
  colorBar_->SetHeight(0.80);
  colorBar_->UnconstrainedFontSizeOn();
  for (vtkTextProperty* p : {colorBar_->GetTitleTextProperty(), colorBar_->GetLabelTextProperty(),
                             colorBar_->GetAnnotationTextProperty()}) {
    p->SetColor(0.1, 0.1, 0.1);
    p->SetFontSize(12);
    p->BoldOff();
    p->ItalicOff();
    p->ShadowOff();
  }
  colorBar_->VisibilityOff();

  // Titles carry math (α₀) and tokens: a font that has their glyphs.
  vtk_text_use_unicode_font(title_->GetTextProperty());
  title_->GetTextProperty()->SetColor(0.1, 0.1, 0.1);
  title_->GetTextProperty()->SetFontSize(14);
  title_->GetTextProperty()->SetVerticalJustificationToTop();
  title_->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
  title_->GetPositionCoordinate()->SetValue(0.01, 0.985);

  overlayRenderer()->AddActor2D(colorBar_);
  overlayRenderer()->AddActor2D(title_);
  for (vtkTextActor* name : {leftRunName_.Get(), rightRunName_.Get()}) {
    vtkTextProperty* p = name->GetTextProperty();
    vtk_text_use_unicode_font(p, true);
    p->SetColor(0.1, 0.1, 0.1);
    p->SetFontSize(13);
    p->BoldOn();
    p->SetJustificationToCentered();
    p->SetVerticalJustificationToTop();
    name->GetPositionCoordinate()->SetCoordinateSystemToWorld();
    name->VisibilityOff();
    renderer()->AddActor2D(name);
  }
}

HeatMapView::~HeatMapView() = default;

void HeatMapView::setData(views::HeatMap data) {
  setData(std::make_shared<const views::HeatMap>(std::move(data)));
}

void HeatMapView::setData(std::shared_ptr<const views::HeatMap> data) {
  if (!data) throw std::invalid_argument("heat map: no data");
  views::heat_map_check(*data);
  const auto cells = static_cast<std::size_t>(data->rows) * static_cast<std::size_t>(data->cols);
  data_ = std::move(data);
  const std::vector<float> shown = setImage();
  setLookupTable();
  placeActors(shown);
  chooseLevelOfDetail();
  setColorBarTitle();
  colorBar_->SetVisibility(cells > 0);
  fitTitle();
  placeRunNames();
  makeLabelSlots();
  resetView();
}

std::vector<float> HeatMapView::setImage() {
  const auto cells = static_cast<std::size_t>(data_->rows) * static_cast<std::size_t>(data_->cols);
  // VTK images grow upwards: row r of the matrix goes to image row rows-1-r.
  std::vector<float> shown(cells);  // hidden cells as NaN, in matrix order
  vtkNew<vtkFloatArray> scalars;
  scalars->SetNumberOfValues(static_cast<vtkIdType>(cells));
  for (int r = 0; r < data_->rows; ++r) {
    for (int c = 0; c < data_->cols; ++c) {
      const std::size_t src = static_cast<std::size_t>(r) * data_->cols + c;
      float v = data_->values[src];
      if (!data_->hidden.empty() && data_->hidden[src]) v = std::numeric_limits<float>::quiet_NaN();
      scalars->SetValue(static_cast<vtkIdType>(data_->rows - 1 - r) * data_->cols + c, v);
      shown[src] = v;
    }
  }
  image_->SetDimensions(std::max(data_->cols, 1), std::max(data_->rows, 1), 1);
  image_->GetPointData()->SetScalars(scalars);
  image_->Modified();
  return shown;
}

void HeatMapView::setLookupTable() {
  const auto [lo, hi] = views::heat_map_range((*data_));  // the exporter draws the same range
  lut_->SetScale(data_->logScale ? VTK_SCALE_LOG10 : VTK_SCALE_LINEAR);
  lut_->ResetAnnotations();
  if (!data_->categories.empty()) {
    // One table entry per category, looked up by value; the bar lists names.
    const auto n = static_cast<int>(data_->categories.size());
    lut_->SetNumberOfTableValues(n);
    for (int k = 0; k < n; ++k) {
      const views::Rgb c = data_->categoryColours[static_cast<std::size_t>(k)];
      lut_->SetTableValue(k, c.r, c.g, c.b, 1.0);
      lut_->SetAnnotation(vtkVariant(static_cast<double>(k)),
                          data_->categories[static_cast<std::size_t>(k)].c_str());
    }
    lut_->SetScale(VTK_SCALE_LINEAR);
    lut_->IndexedLookupOn();
  } else {
    lut_->IndexedLookupOff();
    lut_->SetNumberOfTableValues(kLutSize);
    for (int i = 0; i < kLutSize; ++i) {
      const double t = static_cast<double>(i) / (kLutSize - 1);
      const views::Rgb c =
          data_->diverging ? views::colormap_diverging(2 * t - 1) : views::colormap_viridis(t);
      lut_->SetTableValue(i, c.r, c.g, c.b, 1.0);
    }
  }
  shownMin_ = lo;
  shownMax_ = hi;
  lut_->SetRange(lo, hi);
}

// The image (and its coarser levels) with the outlined and framed cells.
void HeatMapView::placeActors(const std::vector<float>& shown) {
  renderer()->RemoveActor(actor_);
  for (const CoarseLevel& level : coarse_) renderer()->RemoveActor(level.actor);
  buildCoarseLevels(shown);
  if (outline_) renderer()->RemoveActor(outline_);
  if (frames_) renderer()->RemoveActor(frames_);
  outline_ = frames_ = nullptr;
  if (data_->outlineRow >= 0 && data_->outlineRow < data_->rows && data_->outlineCol >= 0 &&
      data_->outlineCol < data_->cols)
    outline_ = frameActor({{data_->outlineRow, data_->outlineCol}}, views::kSinkHighlight, 3.0);
  std::vector<std::pair<int, int>> framed;  // inside the map and visible
  for (const auto& [r, c] : data_->framedCells)
    if (r >= 0 && r < data_->rows && c >= 0 && c < data_->cols &&
        (data_->hidden.empty() || !data_->hidden[static_cast<std::size_t>(r) * data_->cols + c]))
      framed.push_back({r, c});
  if (!framed.empty()) frames_ = frameActor(framed, views::kSelectedHighlight, 2.0);
  for (auto* actor : {outline_.Get(), frames_.Get()})
    if (actor) renderer()->AddActor(actor);
  if (!shown.empty()) renderer()->AddActor(actor_);
  for (const CoarseLevel& level : coarse_) renderer()->AddActor(level.actor);
}

// The bar is narrow: its title goes on as many short lines as it needs.
void HeatMapView::setColorBarTitle() {
  QStringList titleLines;
  for (const QString& word :
       QString::fromStdString(data_->quantity).split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
    if (!titleLines.isEmpty() && titleLines.back().size() + 1 + word.size() <= 12)
      titleLines.back() += QLatin1Char(' ') + word;
    else
      titleLines << word;
  }
  colorBar_->SetTitle(titleLines.join(QLatin1Char('\n')).toUtf8().constData());
}

// Side by side: which run is which, under each half (world coordinates: they
// follow the map when it pans).
void HeatMapView::placeRunNames() {
  const bool sideBySide = data_->sideBySideSplit >= 0 && data_->sideBySideSplit < data_->cols;
  leftRunName_->SetVisibility(sideBySide);
  rightRunName_->SetVisibility(sideBySide);
  if (!sideBySide) return;
  const int split = data_->sideBySideSplit;
  leftRunName_->GetPositionCoordinate()->SetValue(0.5 * (split - 1), -0.7, 0.0);
  rightRunName_->GetPositionCoordinate()->SetValue(0.5 * (split + 1 + data_->cols - 1), -0.7, 0.0);
}

// Slots only: a label's actor is made the first time it is shown (a long
// input shows every k-th label until zoomed in).
void HeatMapView::makeLabelSlots() {
  for (auto& label : labels_)
    if (label) renderer()->RemoveActor2D(label);
  labels_.clear();
  labelSlots_.clear();
  if (!hasLabels()) return;
  auto slot = [&](const std::string& text, double x, double y, int axis, int index) {
    const bool column = axis == 1, right = axis == 2;
    const bool marked = column && std::find(data_->markedCols.begin(), data_->markedCols.end(),
                                            index) != data_->markedCols.end();
    const bool lit = views::heat_map_label_lit((*data_), column, right, index);
    LabelSlot s;
    s.axis = axis;
    s.index = index;
    s.lit = lit || marked;
    s.selected = lit;
    s.text = QString::fromStdString(text);
    s.x = x;
    s.y = y;
    labelSlots_.push_back(std::move(s));
  };
  for (int r = 0; r < data_->rows; ++r)
    slot(data_->rowLabels[static_cast<std::size_t>(r)], -0.65, data_->rows - 1 - r, 0, r);
  for (int c = 0; c < data_->cols; ++c)
    slot(data_->colLabels[static_cast<std::size_t>(c)], c, data_->rows - 1 + 0.65, 1, c);
  if (static_cast<int>(data_->rightRowLabels.size()) == data_->rows)
    for (int r = 0; r < data_->rows; ++r)
      slot(data_->rightRowLabels[static_cast<std::size_t>(r)], data_->cols - 1 + 0.65,
           data_->rows - 1 - r, 2, r);
  labels_.resize(labelSlots_.size());
}

vtkSmartPointer<vtkActor> HeatMapView::frameActor(const std::vector<std::pair<int, int>>& cells,
                                                  const views::Rgb& color, double width) const {
  // A square around each cell, in world coordinates (cell (r, c) is centred
  // on (c, rows-1-r)), a little in front of the image.
  vtkNew<vtkPoints> corners;
  vtkNew<vtkCellArray> loops;
  for (const auto& [row, col] : cells) {
    const double x = col, y = data_->rows - 1 - row;
    const vtkIdType first = corners->GetNumberOfPoints();
    for (const auto& [dx, dy] : {std::pair{-0.5, -0.5}, {0.5, -0.5}, {0.5, 0.5}, {-0.5, 0.5}})
      corners->InsertNextPoint(x + dx, y + dy, 0.01);
    const vtkIdType ids[5] = {first, first + 1, first + 2, first + 3, first};
    loops->InsertNextCell(5, ids);
  }
  vtkNew<vtkPolyData> frame;
  frame->SetPoints(corners);
  frame->SetLines(loops);
  vtkNew<vtkPolyDataMapper> mapper;
  mapper->SetInputData(frame);
  auto actor = vtkSmartPointer<vtkActor>::New();
  actor->SetMapper(mapper);
  actor->GetProperty()->SetColor(color.r, color.g, color.b);
  actor->GetProperty()->SetLineWidth(width);
  return actor;
}

void HeatMapView::buildCoarseLevels(const std::vector<float>& shown) {
  coarse_.clear();
  shownLevel_ = -1;
  int R = data_->rows, C = data_->cols;
  if (R <= views::kHeatMapCoarseCells && C <= views::kHeatMapCoarseCells) return;
  // The strongest of two cells (by magnitude for differences); NaN (hidden)
  // only when both are hidden.
  auto stronger = [diverging = data_->diverging](float a, float b) {
    if (std::isnan(a)) return b;
    if (std::isnan(b)) return a;
    return (diverging ? std::abs(b) > std::abs(a) : b > a) ? b : a;
  };
  std::vector<float> level = shown;  // matrix order, top row first
  int factor = 1;
  while (R > 32 || C > 32) {
    const int r2 = (R + 1) / 2, c2 = (C + 1) / 2;
    std::vector<float> next(static_cast<std::size_t>(r2) * c2);
    for (int r = 0; r < r2; ++r)
      for (int c = 0; c < c2; ++c) {
        float v = std::numeric_limits<float>::quiet_NaN();
        for (int dr = 0; dr < 2; ++dr)
          for (int dc = 0; dc < 2; ++dc)
            if (2 * r + dr < R && 2 * c + dc < C)
              v = stronger(v, level[static_cast<std::size_t>(2 * r + dr) * C + 2 * c + dc]);
        next[static_cast<std::size_t>(r) * c2 + c] = v;
      }
    level = std::move(next);
    R = r2, C = c2, factor *= 2;

    CoarseLevel l;
    l.factor = factor;
    l.image = vtkSmartPointer<vtkImageData>::New();
    vtkNew<vtkFloatArray> scalars;
    scalars->SetNumberOfValues(static_cast<vtkIdType>(R) * C);
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c)
        scalars->SetValue(static_cast<vtkIdType>(R - 1 - r) * C + c,
                          level[static_cast<std::size_t>(r) * C + c]);
    // Block (r, c) covers cells factor*r .. factor*(r+1)-1 (the last block of
    // an odd size reaches past the edge by less than a block, under a pixel
    // at the zoom it is shown). Cell (i, j) sits at (j, rows-1-i).
    const double f = factor;
    l.image->SetDimensions(C, R, 1);
    l.image->SetSpacing(f, f, 1.0);
    l.image->SetOrigin(0.5 * (f - 1), data_->rows - 1 - 0.5 * (f - 1) - (R - 1) * f, 0.0);
    l.image->GetPointData()->SetScalars(scalars);
    l.colors = vtkSmartPointer<vtkImageMapToColors>::New();
    l.colors->SetLookupTable(lut_);
    l.colors->SetOutputFormatToRGB();
    l.colors->SetInputData(l.image);
    l.actor = vtkSmartPointer<vtkImageActor>::New();
    l.actor->GetMapper()->SetInputConnection(l.colors->GetOutputPort());
    l.actor->InterpolateOff();
    l.actor->GetMapper()->BorderOn();
    l.actor->SetVisibility(false);
    coarse_.push_back(std::move(l));
  }
}

void HeatMapView::chooseLevelOfDetail() {
  // Cells per screen pixel at the current zoom (parallel projection): the
  // finest level whose blocks are at least that big.
  const int* size = renderer()->GetSize();
  const double scale = renderer()->GetActiveCamera()->GetParallelScale();
  const double cellsPerPixel = size[1] > 0 ? 2.0 * scale / size[1] : 1e9;
  shownLevel_ = -1;
  if (cellsPerPixel > 1.0)
    for (std::size_t k = 0; k < coarse_.size(); ++k) {
      shownLevel_ = static_cast<int>(k);
      if (coarse_[k].factor >= cellsPerPixel) break;
    }
  actor_->SetVisibility(shownLevel_ < 0);
  for (std::size_t k = 0; k < coarse_.size(); ++k)
    coarse_[k].actor->SetVisibility(static_cast<int>(k) == shownLevel_);
  shownCellPixels_ = cellsPerPixel > 0.0 ? 1.0 / cellsPerPixel : 0.0;
  fitLabels(shownCellPixels_);
}

void HeatMapView::fitLabels(double pixelsPerCell) {
  // Labels live in world coordinates but keep their pixel size: zoomed out
  // they would overlap, so the font follows the cells and then labels thin out.
  const GridLabelPlan plan = grid_label_plan(pixelsPerCell, scaled(11));
  for (int axis = 0; axis < 3; ++axis) {
    int count = 0;
    std::vector<int> lit;
    for (const LabelSlot& s : labelSlots_)
      if (s.axis == axis) {
        count = std::max(count, s.index + 1);
        if (s.lit) lit.push_back(s.index);
      }
    const std::vector<bool> shown = grid_labels_shown(count, plan.stride, lit);
    for (std::size_t k = 0; k < labelSlots_.size() && k < labels_.size(); ++k) {
      const LabelSlot& s = labelSlots_[k];
      if (s.axis != axis) continue;
      const bool show = shown[static_cast<std::size_t>(s.index)];
      if (!show && !labels_[k]) continue;
      if (!labels_[k]) labels_[k] = makeLabel(s);
      labels_[k]->SetVisibility(show);
      labels_[k]->GetTextProperty()->SetFontSize(plan.fontPx);
    }
  }
}

vtkSmartPointer<vtkTextActor> HeatMapView::makeLabel(const LabelSlot& s) {
  auto label = vtkSmartPointer<vtkTextActor>::New();
  // Spelled as every other view spells tokens ("␣" for a space).
  label->SetInput(vtk_text_drawable(token_shown(s.text)).toUtf8().constData());
  vtkTextProperty* p = label->GetTextProperty();
  vtk_text_use_unicode_font(p, s.lit);
  p->SetFontSize(11);
  if (s.selected)
    p->SetColor(views::kSelectedHighlight.r, views::kSelectedHighlight.g,
                views::kSelectedHighlight.b),
        p->BoldOn();
  else if (s.lit)
    p->SetColor(views::kSinkHighlight.r, views::kSinkHighlight.g, views::kSinkHighlight.b),
        p->BoldOn();
  else
    p->SetColor(0.15, 0.15, 0.15);
  p->SetVerticalJustificationToCentered();
  if (s.axis == 1) {
    p->SetOrientation(90.0);
    p->SetJustificationToLeft();
  } else if (s.axis == 2) {
    p->SetJustificationToLeft();
  } else {
    p->SetJustificationToRight();
  }
  label->GetPositionCoordinate()->SetCoordinateSystemToWorld();
  label->GetPositionCoordinate()->SetValue(s.x, s.y, 0.0);
  renderer()->AddActor2D(label);
  return label;
}

int HeatMapView::shownLabelFontPx() const {
  for (std::size_t k = 0; k < labels_.size(); ++k)
    if (labels_[k] && labels_[k]->GetVisibility()) return labels_[k]->GetTextProperty()->GetFontSize();
  return 0;
}

std::vector<int> HeatMapView::shownLabels(int axis) const {
  std::vector<int> shown;
  for (std::size_t k = 0; k < labelSlots_.size() && k < labels_.size(); ++k)
    if (labelSlots_[k].axis == axis && labels_[k] && labels_[k]->GetVisibility())
      shown.push_back(labelSlots_[k].index);
  return shown;
}

int HeatMapView::shownPoolingFactor() const {
  return shownLevel_ < 0 ? 1 : coarse_[static_cast<std::size_t>(shownLevel_)].factor;
}


std::pair<int, int> HeatMapView::cellAt(const QPointF& widgetPoint) {
  const QPointF d = toDisplay(widgetPoint);
  vtkRenderer* r = renderer();
  r->SetDisplayPoint(d.x(), d.y(), 0.0);
  r->DisplayToWorld();
  const double* w = r->GetWorldPoint();
  if (w[3] == 0.0) return {-1, -1};
  const int col = static_cast<int>(std::lround(w[0] / w[3]));
  const int row = data_->rows - 1 - static_cast<int>(std::lround(w[1] / w[3]));
  if (row < 0 || row >= data_->rows || col < 0 || col >= data_->cols) return {-1, -1};
  return {row, col};
}

void HeatMapView::mousePressEvent(QMouseEvent* event) {
  pressedAt_ = event->position();
  VtkViewWidget::mousePressEvent(event);
}

void HeatMapView::mouseReleaseEvent(QMouseEvent* event) {
  VtkViewWidget::mouseReleaseEvent(event);
  if (event->button() != Qt::LeftButton) return;
  if ((event->position() - pressedAt_).manhattanLength() > 4) return;  // a drag, not a click
  const auto [row, col] = cellAt(event->position());
  if (row >= 0) Q_EMIT cellClicked(row, col);
}

void HeatMapView::leaveEvent(QEvent* event) {
  VtkViewWidget::leaveEvent(event);
  QToolTip::hideText();
  Q_EMIT cellHovered(-1, -1);
}

void HeatMapView::mouseMoveEvent(QMouseEvent* event) {
  VtkViewWidget::mouseMoveEvent(event);
  if (event->buttons() != Qt::NoButton) return;
  const auto [row, col] = cellAt(event->position());
  Q_EMIT cellHovered(row, col);
  if (row < 0) {
    QToolTip::hideText();
    return;
  }
  QToolTip::showText(event->globalPosition().toPoint(), cellText(row, col), this);
}

QString HeatMapView::cellText(int row, int col) const {
  const std::size_t k = static_cast<std::size_t>(row) * data_->cols + col;
  const bool hidden = !data_->hidden.empty() && data_->hidden[k];
  auto name = [](const std::vector<std::string>& labels, int i) {
    return i < static_cast<int>(labels.size())
               ? QString::fromStdString(labels[static_cast<std::size_t>(i)])
               : QString::number(i);
  };
  auto valueText = [this](float v) {
    const int category = static_cast<int>(v);
    if (!data_->categories.empty() && category >= 0 &&
        category < static_cast<int>(data_->categories.size()))
      return QString::fromStdString(data_->categories[static_cast<std::size_t>(category)]);
    return QString::number(v, 'g', 4);
  };
  const bool rightSide = data_->sideBySideSplit >= 0 && col > data_->sideBySideSplit &&
                         data_->rightRowLabels.size() == data_->rowLabels.size();
  return tr("%1: %2\n%3: %4\n%5: %6")
      .arg(data_->rowTitle.empty() ? tr("row") : QString::fromStdString(data_->rowTitle),
           name(rightSide ? data_->rightRowLabels : data_->rowLabels, row),
           data_->colTitle.empty() ? tr("column") : QString::fromStdString(data_->colTitle),
           name(data_->colLabels, col), QString::fromStdString(data_->quantity),
           hidden ? tr("not visible") : valueText(data_->values[k]));
}

bool HeatMapView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const auto [row, col] = cellAt(help->pos());
    if (row >= 0) {
      QToolTip::showText(help->globalPos(), cellText(row, col), this);
      return true;
    }
  }
  return VtkViewWidget::event(event);
}

bool HeatMapView::hasLabels() const {
  return !data_->rowLabels.empty() && static_cast<int>(data_->rowLabels.size()) == data_->rows &&
         static_cast<int>(data_->colLabels.size()) == data_->cols &&
         data_->rows <= views::kHeatMapMaxLabels && data_->cols <= views::kHeatMapMaxLabels;
}

void HeatMapView::resizeGL(int w, int h) {
  VtkViewWidget::resizeGL(w, h);
  fitTitle();
  resetView();  // a resized panel shows the whole matrix again
}

void HeatMapView::fitTitle() {
  // VTK draws the title at its font size in pixels; Qt's metrics of a sans
  // font of that size measure it closely enough, with a tenth to spare.
  QFont font(QStringLiteral("DejaVu Sans"));  // the title's font (vtk_text.h)
  font.setPixelSize(title_->GetTextProperty()->GetFontSize());
  const QFontMetricsF metrics(font);
  const double room = 0.9 * std::max(1, width()) - 10;
  QStringList lines = text_wrap(
      QString::fromStdString(data_->title),
      [&](const QString& t) { return metrics.horizontalAdvance(t); }, room);
  if (lines.size() > 2) {
    const QString rest = lines.mid(1).join(QLatin1Char(' '));
    lines = {lines.front(), metrics.elidedText(rest, Qt::ElideRight, room)};
  }
  title_->SetInput(vtk_text_drawable(lines.join(QLatin1Char('\n'))).toUtf8().constData());
  fitColorBarTitle();
}

void HeatMapView::fitColorBarTitle() {
  // The bar's title is centred on its frame at the view's right edge: in a
  // narrow view its longest line would leave the view, so it gets a smaller
  // font (never below 7 px) rather than lose its ends.
  const double w = std::max(1, width());
  const double frame = std::min(0.14 * w, 90.0);
  const double room = 2.0 * (w - (0.84 * w + frame / 2)) - 4;
  QFont font(QStringLiteral("DejaVu Sans"));
  font.setPixelSize(scaled(12));
  const QFontMetricsF metrics(font);
  double widest = 0;
  for (const QString& line : QString::fromUtf8(colorBar_->GetTitle() ? colorBar_->GetTitle() : "")
                                 .split(QLatin1Char('\n')))
    widest = std::max(widest, metrics.horizontalAdvance(line));
  const int size = widest > room && widest > 0
                       ? std::max(7, static_cast<int>(std::floor(scaled(12) * room / widest)))
                       : scaled(12);
  colorBar_->GetTitleTextProperty()->SetFontSize(size);
}

void HeatMapView::fitRunNames(double pixelsPerCell) {
  if (data_->sideBySideSplit < 0) return;
  // Each name shortened in the middle to its half and half the gap.
  QFont font(QStringLiteral("DejaVu Sans"));
  font.setPixelSize(leftRunName_->GetTextProperty()->GetFontSize());
  font.setBold(true);
  const QFontMetricsF metrics(font);
  const int split = data_->sideBySideSplit;
  auto fit = [&](vtkTextActor* actor, const std::string& name, int cells) {
    const QString shown = metrics.elidedText(QString::fromStdString(name), Qt::ElideMiddle,
                                             (cells + 1) * pixelsPerCell);
    actor->SetInput(vtk_text_drawable(shown).toUtf8().constData());
  };
  fit(leftRunName_, data_->leftRun, split);
  fit(rightRunName_, data_->rightRun, data_->cols - split - 1);
}

int HeatMapView::scaled(int px) const { return static_cast<int>(std::lround(px * textScale_)); }

void HeatMapView::setTextScale(double scale) {
  textScale_ = std::clamp(scale, 0.5, 4.0);
  title_->GetTextProperty()->SetFontSize(scaled(14));
  for (vtkTextProperty* p : {colorBar_->GetTitleTextProperty(), colorBar_->GetLabelTextProperty(),
                             colorBar_->GetAnnotationTextProperty()})
    p->SetFontSize(scaled(12));
  for (vtkTextActor* name : {leftRunName_.Get(), rightRunName_.Get()})
    name->GetTextProperty()->SetFontSize(scaled(13));
  fitTitle();
  resetView();  // the label bands and the labels' sizes follow
}

QString HeatMapView::shownTitle() const { return QString::fromUtf8(title_->GetInput()); }

std::pair<QString, QString> HeatMapView::shownRunNames() const {
  if (!leftRunName_->GetVisibility()) return {};
  return {QString::fromUtf8(leftRunName_->GetInput()), QString::fromUtf8(rightRunName_->GetInput())};
}

void HeatMapView::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_R && event->modifiers() == Qt::NoModifier) {
    resetView();
    event->accept();
    return;
  }
  VtkViewWidget::keyPressEvent(event);
}

void HeatMapView::resetView() {
  renderer()->ResetCamera();
  // Fit the taller of the two sides tightly (ResetCamera leaves a wide margin).
  vtkCamera* camera = renderer()->GetActiveCamera();
  const double aspect = [&] {
    const int* size = renderWindow()->GetSize();
    const double w = size[0] * (kImageViewport[2] - kImageViewport[0]);
    const double h = size[1] * (kImageViewport[3] - kImageViewport[1]);
    return (w > 0 && h > 0) ? w / h : 1.0;
  }();
  const double halfHeight = 0.5 * std::max<double>(data_->rows, 1);
  const double halfWidth = 0.5 * std::max<double>(data_->cols, 1);
  if (!hasLabels()) {
    // Side by side: room under the map for the runs' names.
    const double margin = data_->sideBySideSplit >= 0 ? 1.14 : 1.05;
    camera->SetParallelScale(margin * std::max(halfHeight, halfWidth / aspect));
    const int* size = renderWindow()->GetSize();
    fitRunNames(size[1] * (kImageViewport[3] - kImageViewport[1]) / (2 * camera->GetParallelScale()));
    requestRender();
    return;
  }
  // Leave a band of pixels left of and above the map for the token labels.
  const int* size = renderWindow()->GetSize();
  const double W = std::max(1.0, size[0] * (kImageViewport[2] - kImageViewport[0]));
  const double H = std::max(1.0, size[1] * (kImageViewport[3] - kImageViewport[1]));
  // Bands as wide as the longest label in each (at most 90 px): short
  // labels (a head grid's "L0", "H0") leave the cells the room.
  const double leftBand = labelBand(data_->rowLabels, textScale_),
               topBand = labelBand(data_->colLabels, textScale_);
  const double pad = 6.0;
  // Side by side with the right map's own row labels: a band right of the map too.
  // A categorical bar writes its names left of itself, into the image's
  // right edge: room for them too.
  const double rightBand =
      std::max(static_cast<int>(data_->rightRowLabels.size()) == data_->rows
                   ? labelBand(data_->rightRowLabels, textScale_)
                   : 0.0,
               data_->categories.empty() ? 0.0 : labelBand(data_->categories, textScale_));
  // Side by side: a line under the map for the runs' names.
  const double bottomBand = data_->sideBySideSplit >= 0 ? 22.0 * textScale_ : 0.0;
  const double unitsPerPixel =
      std::max(data_->rows / std::max(1.0, H - topBand - pad - bottomBand),
               data_->cols / std::max(1.0, W - leftBand - rightBand - pad));
  const double blockWidth = leftBand + data_->cols / unitsPerPixel + rightBand;  // labels and map
  const double offset = std::max(0.0, 0.5 * (W - blockWidth));
  const double cx = -0.5 - (leftBand + offset) * unitsPerPixel + 0.5 * W * unitsPerPixel;
  const double cy = (data_->rows - 0.5) + topBand * unitsPerPixel - 0.5 * H * unitsPerPixel;
  double position[3], focal[3];
  camera->GetPosition(position);
  camera->GetFocalPoint(focal);
  const double distance = position[2] - focal[2];
  camera->SetFocalPoint(cx, cy, focal[2]);
  camera->SetPosition(cx, cy, focal[2] + distance);
  camera->SetParallelScale(0.5 * H * unitsPerPixel);
  fitRunNames(1.0 / unitsPerPixel);
  requestRender();
}

}  // namespace sinkscope::render
