#pragma once
// A VTK panel that draws a matrix as a heat map (viridis) with a labelled
// colour bar and a title; left drag pans, the wheel zooms, 'r' resets.
// Cells marked invisible (e.g. the causal-masked future keys) are drawn in a
// neutral grey so they read as "not attended", not as weight 0.
#include <vtkSmartPointer.h>
#include <QPointF>
#include <QString>
#include <utility>
#include <vector>

#include "render/colormap.h"
#include "render/vtk_view_widget.h"

class vtkImageData;
class vtkActor;
class vtkImageActor;
class vtkImageMapToColors;
class vtkLookupTable;
class vtkScalarBarActor;
class vtkTextActor;

namespace sinkscope::render {

struct HeatMapData {
  int rows = 0;
  int cols = 0;
  std::vector<float> values;       // rows * cols, row-major; row 0 drawn at the top
  std::vector<bool> hidden;        // optional rows * cols mask: true = not visible
  QString title;                   // what is shown: model, layer, head, ...
  std::vector<QString> rowLabels;  // optional: one per row (tokens), drawn left of the map
  // Side by side: the right map's own row labels, drawn right of the map
  // (its tokens may differ from the left's, e.g. after dropping the first).
  std::vector<QString> rightRowLabels;
  std::vector<QString> colLabels;  // optional: one per column, drawn above it, rotated
  QString quantity;                // colour bar label, e.g. "attention weight"
  QString rowTitle, colTitle;      // what rows and columns are, for the hover text ("query")
  bool fixedRange = false;         // use [rangeMin, rangeMax] instead of the data range
  bool diverging = false;          // differences: the diverging map, symmetric around 0
  bool logScale = false;           // colours by log10 of the value (from the smallest positive one)
  // Categorical maps: values are indices into `categories`, drawn in
  // `categoryColours` with a legend of names instead of a colour scale.
  std::vector<QString> categories;
  std::vector<Rgb> categoryColours;
  std::vector<int> markedCols;   // columns drawn with the sink highlight (their labels in red)
  std::vector<int> highlighted;  // rows and columns whose labels are highlighted (orange)
  int outlineRow = -1, outlineCol = -1;          // a cell drawn with a frame (the selection)
  std::vector<std::pair<int, int>> framedCells;  // (row, col) framed in orange (highlights)
  int sideBySideSplit = -1;  // two maps next to each other: the left one's columns, else -1
  double rangeMin = 0.0;
  double rangeMax = 1.0;
};

// Two maps next to each other in one: `left`, an empty (hidden) column, then
// `right`, both from the top row (the shorter one padded with hidden rows).
// Labels, marked and framed cells follow their map; the colour settings and
// titles of `left` are kept. Column c of the result is column c of `left`
// for c < left.cols and column c - left.cols - 1 of `right` after the gap.
HeatMapData heat_map_side_by_side(const HeatMapData& left, const HeatMapData& right);
// A column as drawn -> the column within its own map (the right map's start
// after the gap); -1 for the gap or outside. Plain maps: the column itself.
int heat_map_own_column(const HeatMapData& data, int col);

class HeatMapView : public VtkViewWidget {
  Q_OBJECT

 public:
  explicit HeatMapView(QWidget* parent = nullptr);
  ~HeatMapView() override;

  // Throws std::invalid_argument when sizes disagree.
  void setData(HeatMapData data);
  const HeatMapData& data() const { return data_; }
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
  // The mouse left the view: nothing is hovered any more (issue 17, defect 9).
  void leaveEvent(QEvent* event) override;
  // A tooltip request over a cell shows the cell (not the widget's help text,
  // which would otherwise win once the pointer rests: issue 17, defect 1).
  bool event(QEvent* event) override;

 private:
  HeatMapData data_;
  double shownMin_ = 0.0;
  double shownMax_ = 1.0;
  QPointF pressedAt_{-1000, -1000};
  // Builds coarser images of a large map (block maxima, halving each level)
  // and shows the one whose blocks are about a screen pixel at the current
  // zoom: the full image once a cell covers a pixel.
  void buildCoarseLevels(const std::vector<float>& shown);
  void chooseLevelOfDetail();
  // One actor framing each of `cells` (row, col).
  vtkSmartPointer<vtkActor> frameActor(const std::vector<std::pair<int, int>>& cells,
                                       const Rgb& color, double width) const;
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
  vtkSmartPointer<vtkActor> outline_;
  vtkSmartPointer<vtkActor> frames_;
  std::vector<vtkSmartPointer<vtkTextActor>>
      labels_;  // in world coordinates: they pan and zoom with the map
};

// Maps with more rows or columns than this get no token labels (they would overlap).
inline constexpr int kHeatMapMaxLabels = 64;
// Maps with more rows or columns than this also get coarse levels of detail,
// each block showing its strongest cell (so a one-token sink column stays
// visible), drawn while a cell is smaller than a pixel.
inline constexpr int kHeatMapCoarseCells = 256;

}  // namespace sinkscope::render
