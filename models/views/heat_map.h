#pragma once
// What a heat map draws (a matrix with its labels, colours and marks), apart
// from any view: the screen's HeatMapView and the figure exporter draw the
// same HeatMap, with the same colour range (heat_map_range).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/io/table_io.h"
#include "models/views/colours.h"

namespace sinkscope::views {

struct HeatMap {
  int rows = 0;
  int cols = 0;
  std::vector<float> values;           // rows * cols, row-major; row 0 drawn at the top
  std::vector<bool> hidden;            // optional rows * cols mask: true = not visible
  std::string title;                   // what is shown: model, layer, head, ...
  std::vector<std::string> rowLabels;  // optional: one per row (tokens), drawn left of the map
  // Side by side: the right map's own row labels, drawn right of the map
  // (its tokens may differ from the left's, e.g. after dropping the first).
  std::vector<std::string> rightRowLabels;
  std::vector<std::string> colLabels;  // optional: one per column, drawn above it, rotated
  std::string quantity;                // colour bar label, e.g. "attention weight"
  std::string rowTitle, colTitle;      // what rows and columns are, for the hover text ("query")
  bool fixedRange = false;             // use [rangeMin, rangeMax] instead of the data range
  bool diverging = false;              // differences: the diverging map, symmetric around 0
  bool logScale = false;  // colours by log10 of the value (from the smallest positive one)
  // Categorical maps: values are indices into `categories`, drawn in
  // `categoryColours` with a legend of names instead of a colour scale.
  std::vector<std::string> categories;
  std::vector<Rgb> categoryColours;
  std::vector<int> markedCols;        // columns drawn with the sink highlight (their labels in red)
  std::vector<int> highlighted;       // rows and columns whose labels are highlighted (orange)
  std::vector<int> rightHighlighted;  // side by side: the same for the right map's own tokens
  int outlineRow = -1, outlineCol = -1;          // a cell drawn with a frame (the selection)
  std::vector<std::pair<int, int>> framedCells;  // (row, col) framed in orange (highlights)
  int sideBySideSplit = -1;  // two maps next to each other: the left one's columns, else -1
  std::string leftRun = "before", rightRun = "after";  // their names (CSV "run")
  double rangeMin = 0.0;
  double rangeMax = 1.0;
  // The numbers drawn, as the document layer tabled them (analyze's columns
  // and formatting): the CSV export writes this table when it is set, and
  // the cells otherwise (an attention map: its weights as drawn).
  std::shared_ptr<const io::CsvTable> numbers = {};
};

// Two maps next to each other in one: `left`, an empty (hidden) column, then
// `right`, both from the top row (the shorter one padded with hidden rows).
// Labels, marked and framed cells follow their map; the colour settings and
// titles of `left` are kept. Column c of the result is column c of `left`
// for c < left.cols and column c - left.cols - 1 of `right` after the gap.
// The runs' names (drawn under the halves, the CSV's "run") are `leftRun`
// and `rightRun`. The result has no `numbers`: the caller tables both runs.
HeatMap heat_map_side_by_side(const HeatMap& left, const HeatMap& right, const std::string& leftRun,
                              const std::string& rightRun);
// Whether a label is highlighted: row r's (on the right map's side when
// `right`), or column c's as drawn (side by side: each map's own highlights).
bool heat_map_label_lit(const HeatMap& data, bool column, bool right, int index);
// A column as drawn -> the column within its own map (the right map's start
// after the gap); -1 for the gap or outside. Plain maps: the column itself.
int heat_map_own_column(const HeatMap& data, int col);

// Maps with more rows or columns than this get no token labels on screen
// (the view thins labels to the zoom; beyond this, a label per token is of
// no use even zoomed in, and the hover says each cell's tokens).
inline constexpr int kHeatMapMaxLabels = 4096;
// Maps with more rows or columns than this also get coarse levels of detail,
// each block showing its strongest cell (so a one-token sink column stays
// visible), drawn while a cell is smaller than a pixel.
inline constexpr int kHeatMapCoarseCells = 256;

// Throws std::invalid_argument when the values or the hidden mask do not
// match rows x cols.
void heat_map_check(const HeatMap& data);
// The map without the window's selection and highlights (the framed cell,
// orange cells and labels); the sinks' marks stay: they are data.
HeatMap heat_map_without_selection(HeatMap data);
// The colour range a map is drawn with, [lo, hi] with hi > lo: the data's
// range over visible finite cells (or the fixed one), from the smallest
// positive value on a log scale, symmetric around 0 when diverging, and
// 0 .. categories - 1 for categorical maps.
std::pair<double, double> heat_map_range(const HeatMap& data);

}  // namespace sinkscope::views
