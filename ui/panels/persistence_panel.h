#pragma once
// Persistence: the diagram (H0, H1) with the minimum-persistence line, the
// barcode and the Betti curves of the selected head; hovering points of the
// diagram (or a bar) highlights the tokens and edges that create and kill
// those bars, and a tip lists them.
#include <QList>
#include <QPair>

#include "models/document/plot_views.h"
#include "ui/panels/panel.h"

namespace sinkscope::render {
class LinePlotView;
}

namespace sinkscope::ui {

class PersistencePanel : public Panel {
  Q_OBJECT

 public:
  PersistencePanel(PanelInputs& inputs, QWidget* host);
  render::LinePlotView* diagramView() const { return diagram_; }
  render::LinePlotView* barcodeView() const { return barcode_; }
  render::LinePlotView* bettiView() const { return betti_; }
  void draw() override { drawPersistence(); }
  void drawNote(const QString& note) override;

 private:
  void drawPersistence();  // the three plots
  // The shown head and how the titles place it.
  document::PlotPlace plotPlace() const;
  // (series, index) pairs: H0 is series 0, H1 series 1.
  void highlightBars(const QList<QPair<int, int>>& bars);
  render::LinePlotView* diagram_ = nullptr;
  render::LinePlotView* barcode_ = nullptr;
  render::LinePlotView* betti_ = nullptr;
};

}  // namespace sinkscope::ui
