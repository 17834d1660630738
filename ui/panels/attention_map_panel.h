#pragma once
// The attention map of the selection, with its display options: the shown
// run's map, B minus A, or A | B side by side (two tokenizers' tokens
// aligned by their characters). Hovering a cell lights its tokens in every
// panel, clicking selects them: as A's tokens, also on B's half. Draws from
// the workspace; the window only places it.
#include <QWidget>
#include <utility>

#include "ui/workspace.h"

class QCheckBox;

namespace sinkscope::views {
struct HeatMap;
}

namespace sinkscope::analysis {
struct AttentionMatrix;
}

namespace sinkscope::render {
class DrawnViews;
class FigureStandIn;
class HeatMapView;
}  // namespace sinkscope::render

namespace sinkscope::ui {

class SelectionModel;

class AttentionMapPanel : public QWidget {
  Q_OBJECT

 public:
  AttentionMapPanel(Workspace* workspace, render::DrawnViews& drawn, QWidget* parent = nullptr);
  // Null when the platform cannot do OpenGL (the stand-in keeps what it would draw).
  render::HeatMapView* view() const { return view_; }
  // What an export of the panel draws: the map or its stand-in.
  QWidget* exportedView() const;
  // The classroom mode shows the map alone (no display options above it).
  void setPresenting(bool on);

 public Q_SLOTS:
  void draw(const DrawnRuns& drawn);

 Q_SIGNALS:
  // The panel's own options changed: the board draws the maps again (asking
  // for the layer first when the run does not keep it).
  void redrawWanted();
  void failed(const QString& message, const QString& details);
  void notice(const QString& message, int milliseconds);

 private:
  render::DrawnViews& drawn_;  // what the views draw, for exports
  // The map of `shown` at its place as drawn (minus `subtract` when given).
  views::HeatMap mapData(const SentenceRun& shown, const ShownPlace& place,
                         const analysis::AttentionMatrix& map,
                         const analysis::AttentionMatrix* subtract) const;
  // A cell of the map as (query, key) tokens of A: B's half (or B shown
  // alone) through the two runs' tokens; -1 for the gap or no token.
  std::pair<int, int> cellInA(int row, int col) const;

  Workspace* workspace_;
  SelectionModel* selection_;
  QCheckBox* logScale_ = nullptr;
  render::HeatMapView* view_ = nullptr;
  render::FigureStandIn* standIn_ = nullptr;
};

}  // namespace sinkscope::ui
