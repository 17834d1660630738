#pragma once
// Persistence: the diagram (H0, H1) with the minimum-persistence line, the
// barcode and the Betti curves of the selected head; hovering a point of the
// diagram highlights the tokens and edges that create and kill that bar.
#include "ui/panels/panel.h"

namespace sinkscope::render {
class LinePlotView;
}

namespace sinkscope::ui {

class PersistencePanel : public Panel {
  Q_OBJECT

 public:
  PersistencePanel(PanelInputs& inputs, QMainWindow* window);
  render::LinePlotView* diagramView() const { return diagram_; }
  render::LinePlotView* barcodeView() const { return barcode_; }
  render::LinePlotView* bettiView() const { return betti_; }
  void draw() override { drawPersistence(); }
  void drawNote(const QString& note) override;

 private:
  void drawPersistence();
  void highlightBar(int series, int index);
  render::LinePlotView* diagram_ = nullptr;
  render::LinePlotView* barcode_ = nullptr;
  render::LinePlotView* betti_ = nullptr;
};

}  // namespace sinkscope::ui
