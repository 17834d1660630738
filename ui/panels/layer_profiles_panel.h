#pragma once
// Layer profiles: per-layer sink measures, topology and effective rank, and
// KL and Fisher once the Experiments menu has computed them.
#include "ui/panels/panel.h"

namespace sinkscope::render {
class LinePlotView;
}

namespace sinkscope::ui {

class LayerProfilesPanel : public Panel {
  Q_OBJECT

 public:
  LayerProfilesPanel(PanelInputs& inputs, QWidget* host);
  render::LinePlotView* sinkView() const { return layerSink_; }
  render::LinePlotView* topologyView() const { return layerTopology_; }
  render::LinePlotView* functionView() const { return layerFunction_; }
  void draw() override { drawLayerProfiles(); }
  void drawNote(const QString& note) override;

 private:
  void drawLayerProfiles();  // the three plots:
  void drawSinks();
  void drawTopology();
  void drawFunction();
  document::RunNames runNames() const;  // the compared runs' names
  render::LinePlotView* layerSink_ = nullptr;
  render::LinePlotView* layerTopology_ = nullptr;
  render::LinePlotView* layerFunction_ = nullptr;
};

}  // namespace sinkscope::ui
