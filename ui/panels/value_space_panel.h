#pragma once
// Value space: the selected query's value contributions in 3-D (PCA), top-N
// versus the rest, the sink, s_N and the r_min / r_max balls; beside it P, R
// and F_N against N with the random baseline.
#include <memory>

#include "analysis/value_space.h"
#include "render/line_plot_view.h"
#include "render/scene_data.h"
#include "ui/panels/panel.h"

class QSlider;

namespace sinkscope::models {
struct LayerCapture;
}

namespace sinkscope::render {
class FigureStandIn;
class LinePlotView;
class SceneView;
}  // namespace sinkscope::render

namespace sinkscope::ui {

class ValueSpacePanel : public Panel {
  Q_OBJECT

 public:
  ValueSpacePanel(PanelInputs& inputs, QWidget* host);
  render::SceneView* sceneView() const { return valueSpace_; }
  render::LinePlotView* curveView() const { return valueCurve_; }
  void draw() override { drawValueSpace(); }
  void drawNote(const QString& note) override;

 private:
  void drawValueSpace();
  // F_N, precision and recall against N (computed in the background).
  void drawCurve(std::shared_ptr<const models::LayerCapture> capture, int head, int query,
                 const analysis::ValueSpaceParams& p, int topN);
  render::SceneView* valueSpace_ = nullptr;
  render::FigureStandIn* valueSpaceStandIn_ = nullptr;  // in its place without OpenGL
  render::LinePlotView* valueCurve_ = nullptr;
  QSlider* topNSlider_ = nullptr;
};

}  // namespace sinkscope::ui
