#pragma once
// A VTK panel that draws a matrix as a heat map (viridis) with a labelled
// colour bar and a title; left drag pans, the wheel zooms, 'r' resets.
// Cells marked invisible (e.g. the causal-masked future keys) are drawn in a
// neutral grey so they read as "not attended", not as weight 0.
#include <vtkSmartPointer.h>
#include <QPointF>
#include <QString>
#include <memory>
#include <utility>
#include <vector>

#include "models/views/heat_map.h"
#include "render/vtk_view_widget.h"

class vtkImageData;
class vtkActor;
class vtkImageActor;
class vtkImageMapToColors;
class vtkLookupTable;
class vtkScalarBarActor;
class vtkTextActor;

namespace sinkscope::render {

class HeatMapView : public VtkViewWidget {
  Q_OBJECT

 public:
  explicit HeatMapView(QWidget* parent = nullptr);
  ~HeatMapView() override;

  // Throws std::invalid_argument when sizes disagree.
  void setData(views::HeatMap data);
  // The same, sharing the description (a large map is not copied).
  void setData(std::shared_ptr<const views::HeatMap> data);
  const views::HeatMap& data() const { return *data_; }
  // The pooling factor on screen now: 1 for the full image, 2, 4, ... for the
  // coarse levels of a large map seen zoomed out.
  int shownPoolingFactor() const;
  // The colour range in use (data range unless fixed).
  double displayedMin() const { return shownMin_; }
  double displayedMax() const { return shownMax_; }

  // Fits the whole matrix (and its labels) in the view.
  void resetView();
  // Whether token labels are drawn (given for every row and column, and few enough).
  bool hasLabels() const;
  // The cell under a widget-space point, or {-1, -1} outside the matrix.
  std::pair<int, int> cellAt(const QPointF& widgetPoint);
  // What hovering the cell (row, col) says: its labels and value.
  QString cellText(int row, int col) const;
  // The labels drawn at the current zoom along an axis (0: rows, 1: columns,
  // 2: the right map's rows) and their font size in pixels (0: none drawn).
  std::vector<int> shownLabels(int axis) const;
  int shownLabelFontPx() const;
  // Pixels per cell at the current zoom: the drawn map is rows times this high.
  double shownCellPixels() const { return shownCellPixels_; }
  // Every text at `scale` times its screen size (1: the screen's; a
  // classroom's projector: larger), labels still thinned to the cells.
  void setTextScale(double scale);
  double textScale() const { return textScale_; }
  // The title as drawn (wrapped to the view's width), and the runs' names
  // under the halves of a side-by-side map (empty when not side by side).
  QString shownTitle() const;
  std::pair<QString, QString> shownRunNames() const;

 Q_SIGNALS:
  // A click (press and release without dragging) on cell (row, col).
  void cellClicked(int row, int col);
  // The mouse moved onto cell (row, col); (-1, -1) when it left the matrix.
  void cellHovered(int row, int col);

 protected:
  void resizeGL(int w, int h) override;
  // 'r' resets the view; other keys go on to the window (layer/head commands).
  void keyPressEvent(QKeyEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  // The mouse left the view: nothing is hovered any more.
  void leaveEvent(QEvent* event) override;
  // A tooltip request over a cell shows the cell (not the widget's help text,
  // which would otherwise win once the pointer rests).
  bool event(QEvent* event) override;

 private:
  std::shared_ptr<const views::HeatMap> data_ = std::make_shared<const views::HeatMap>();
  double textScale_ = 1.0;
  double shownCellPixels_ = 0.0;
  int scaled(int px) const;
  double shownMin_ = 0.0;
  double shownMax_ = 1.0;
  QPointF pressedAt_{-1000, -1000};
  // Builds coarser images of a large map (block maxima, halving each level)
  // and shows the one whose blocks are about a screen pixel at the current
  // zoom: the full image once a cell covers a pixel.
  void buildCoarseLevels(const std::vector<float>& shown);
  // setData's steps: the image (returns its cells as shown, hidden ones NaN,
  // in matrix order), the colours, the actors, the bar's title, the runs'
  // names and the label slots.
  std::vector<float> setImage();
  void setLookupTable();
  void placeActors(const std::vector<float>& shown);
  void setColorBarTitle();
  void fitColorBarTitle();  // its font, so that its lines stay inside the view
  void placeRunNames();
  void makeLabelSlots();
  void chooseLevelOfDetail();
  // Sizes the labels to the cells on screen and hides those that would touch.
  void fitLabels(double pixelsPerCell);
  // Side by side: the runs' names, each shortened to its half at this scale.
  void fitRunNames(double pixelsPerCell);
  // The title on at most two lines of the view's width (the rest elided).
  void fitTitle();
  // One actor framing each of `cells` (row, col).
  vtkSmartPointer<vtkActor> frameActor(const std::vector<std::pair<int, int>>& cells,
                                       const views::Rgb& color, double width) const;
  vtkNew<vtkImageData> image_;
  vtkNew<vtkLookupTable> lut_;
  vtkNew<vtkImageMapToColors> colors_;
  vtkNew<vtkImageActor> actor_;
  // Level k of the pyramid pools blocks of 2^(k+1) x 2^(k+1) cells.
  struct CoarseLevel {
    int factor = 1;
    vtkSmartPointer<vtkImageData> image;
    vtkSmartPointer<vtkImageMapToColors> colors;
    vtkSmartPointer<vtkImageActor> actor;
  };
  std::vector<CoarseLevel> coarse_;
  int shownLevel_ = -1;  // -1: the full image
  vtkNew<vtkScalarBarActor> colorBar_;
  vtkNew<vtkTextActor> title_;
  // Side by side: each run's name under its half of the map.
  vtkNew<vtkTextActor> leftRunName_, rightRunName_;
  vtkSmartPointer<vtkActor> outline_;
  vtkSmartPointer<vtkActor> frames_;
  // In world coordinates (they pan and zoom with the map); null until first shown.
  std::vector<vtkSmartPointer<vtkTextActor>> labels_;
  struct LabelSlot {
    int axis = 0;  // 0: rows, 1: columns, 2: the right map's rows
    int index = 0;
    bool lit = false;       // selected or marked: drawn whatever the zoom
    bool selected = false;  // highlighted (orange; else a marked sink column, red)
    QString text;
    double x = 0, y = 0;  // world coordinates
  };
  std::vector<LabelSlot> labelSlots_;  // one per label, in the same order
  vtkSmartPointer<vtkTextActor> makeLabel(const LabelSlot& slot);
};

}  // namespace sinkscope::render
