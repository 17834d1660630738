#pragma once
// The classroom mode's stage: the sentence and what the selected head shows,
// as a large caption that stays, above the attention map and one panel side
// by side, sized for a projector at any screen size. It borrows the two
// widgets from their docks and gives them back, so the window's dock layout
// (saved, restored, floating or tabbed) never decides what the room sees.
#include <QPointer>
#include <QWidget>
#include <utility>

class QLabel;
class QHBoxLayout;
class QVBoxLayout;

namespace sinkscope::ui {

class PresentStage : public QWidget {
  Q_OBJECT

 public:
  explicit PresentStage(QWidget* parent = nullptr);

  // Shows `map` and `panel` on the stage (they leave their docks).
  void take(QWidget* map, QWidget* panel);
  // Shows `panel` in place of the panel taken; returns that one.
  QWidget* swapPanel(QWidget* panel);
  // The widgets taken, now children of the stage, to go back to their docks.
  std::pair<QWidget*, QWidget*> giveBack();
  void setCaption(const QString& sentence, const QString& finding);
  QString sentenceShown() const;
  QString findingShown() const;

  // The views' text scale for a stage `height` pixels high: token labels (11
  // px at scale 1) at least 28 px at 1080 and as large relatively on any
  // screen; the plots and widgets a little smaller.
  static double labelScale(int height);
  static double plotScale(int height);

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  QLabel* sentence_ = nullptr;
  QLabel* finding_ = nullptr;
  QLabel* keys_ = nullptr;
  QHBoxLayout* row_ = nullptr;
  QVBoxLayout* panelColumn_ = nullptr;
  QPointer<QWidget> map_, panel_;
};

}  // namespace sinkscope::ui
