#pragma once
// Key importance alpha_k of the selected head (Gu et al.'s sink metric,
// metrics.md s. 1) against the uniform baseline and the sink threshold eps;
// with two runs side by side, both runs' curves (B's at A's tokens when
// their tokens differ). Draws from the workspace.
#include <QObject>

#include "ui/workspace.h"

class QWidget;

namespace sinkscope::render {
class DrawnViews;
class LinePlotView;
}

namespace sinkscope::ui {

class KeyImportancePanel : public QObject {
  Q_OBJECT

 public:
  // The plot is made with `viewParent`: the window places it in its dock.
  KeyImportancePanel(Workspace* workspace, render::DrawnViews& drawn, QWidget* viewParent);
  render::LinePlotView* view() const { return view_; }

 public Q_SLOTS:
  void draw(const DrawnRuns& drawn);

 private:
  render::DrawnViews& drawn_;  // what the views draw, for exports
  Workspace* workspace_;
  render::LinePlotView* view_;
};

}  // namespace sinkscope::ui
