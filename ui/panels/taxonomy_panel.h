#pragma once
// Taxonomy: Retriever / Mixer / Reset per head as a grid (a click selects the
// head; the title gives the selected head's vote shares) and the counts per layer.
#include "ui/panels/panel.h"

namespace sinkscope::render {
class FigureStandIn;
class HeatMapView;
class LinePlotView;
}  // namespace sinkscope::render

namespace sinkscope::ui {

class TaxonomyPanel : public Panel {
  Q_OBJECT

 public:
  TaxonomyPanel(PanelInputs& inputs, QWidget* host);
  render::HeatMapView* gridView() const { return taxonomy_; }
  render::LinePlotView* countsView() const { return taxonomyCounts_; }
  void draw() override { drawTaxonomy(); }
  void drawNote(const QString& note) override;

 private:
  void drawTaxonomy();
  QString sinkReason() const;
  render::HeatMapView* taxonomy_ = nullptr;
  render::FigureStandIn* taxonomyStandIn_ = nullptr;  // in its place without OpenGL
  render::LinePlotView* taxonomyCounts_ = nullptr;
};

}  // namespace sinkscope::ui
