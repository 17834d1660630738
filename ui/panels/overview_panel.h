#pragma once
// Model overview: a layers x heads grid coloured by a chosen per-head score
// (or every head's miniature map); a click selects that layer and head.
#include "models/document/map_views.h"
#include "ui/panels/panel.h"

class QComboBox;
namespace sinkscope::views {
struct HeatMap;
}

namespace sinkscope::render {
class FigureStandIn;
class HeatMapView;
}  // namespace sinkscope::render

namespace sinkscope::ui {

// Per-head scores the overview can show (the document layer builds their numbers).
using document::HeadScore;

class OverviewPanel : public Panel {
  Q_OBJECT

 public:
  OverviewPanel(PanelInputs& inputs, QWidget* host);
  render::HeatMapView* view() const { return overview_; }
  void setScore(HeadScore score);
  void draw() override;
  void drawNote(const QString& note) override;

 private:
  void drawOverview();
  // The layers x heads grid of the chosen score for `a` (`before`: the plain
  // run beside an intervened one, which has no background results).
  views::HeatMap scoreGrid(const TraceAnalysis& a, bool before) const;
  HeadScore score_ = HeadScore::SinkAttention;
  int miniatureSide_ = 0;    // cell side of the miniature-map grid (0: plain grid)
  QComboBox* scoreChooser_ = nullptr;
  render::HeatMapView* overview_ = nullptr;
  render::FigureStandIn* overviewStandIn_ = nullptr;  // in its place without OpenGL
};

}  // namespace sinkscope::ui
