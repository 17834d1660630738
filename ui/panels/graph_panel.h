#pragma once
// Attention graph: tokens as nodes (sinks red, size by attention received),
// edges above the selection's threshold, spectral (3-D) or force-directed
// (2-D) layout; the hovered persistence bar's tokens and edges lit.
#include "ui/panels/panel.h"

class QComboBox;
class QSlider;
namespace sinkscope::render {
class FigureStandIn;
class SceneView;
}

namespace sinkscope::ui {

class GraphPanel : public Panel {
  Q_OBJECT

 public:
  GraphPanel(PanelInputs& inputs, QWidget* host);
  render::SceneView* view() const { return graph_; }
  // 0: spectral embedding (3-D), 1: force-directed (2-D).
  void setLayout(int layout);
  void draw() override { drawGraph(); }
  void drawNote(const QString& note) override;

 private:
  void drawGraph();
  QComboBox* layoutChooser_ = nullptr;
  QSlider* thresholdSlider_ = nullptr;
  render::SceneView* graph_ = nullptr;
  render::FigureStandIn* graphStandIn_ = nullptr;  // in its place without OpenGL
};

}  // namespace sinkscope::ui
