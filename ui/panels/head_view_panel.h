#pragma once
// Head view: for teaching, the selected layer's attention
// as lines from each query (left) to the keys it attends to (right), as
// opaque as the weight, in the manner of BertViz's head view: the selected
// head, or every head of the layer in its colour (the head average selected,
// or "all heads" ticked). Hovering a token shows its lines alone and lights
// it in every panel; a click selects it as the query (left) or key (right).
#include "ui/panels/panel.h"

class QCheckBox;

namespace sinkscope::render {
class HeadView;
}

namespace sinkscope::ui {

class HeadViewPanel : public Panel {
  Q_OBJECT

 public:
  HeadViewPanel(PanelInputs& inputs, QWidget* host);
  render::HeadView* view() const { return view_; }
  void draw() override;
  void drawNote(const QString& note) override;

 private:
  render::HeadView* view_ = nullptr;
  QCheckBox* allHeads_ = nullptr;
};

}  // namespace sinkscope::ui
