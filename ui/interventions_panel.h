#pragma once
// The interventions dock: switch on drop-first-token, sink removal (for the
// selected head, its layer or everywhere), ablation of the selected head and
// RoPE scaling; the list of active interventions is always visible. Which
// run the panels show is the ComparisonChooser's (the selection bar).
#include <QString>
#include <QWidget>

class QDoubleSpinBox;
class QListWidget;
class QPushButton;

namespace sinkscope::ui {

class SelectionModel;

class InterventionsPanel : public QWidget {
  Q_OBJECT

 public:
  InterventionsPanel(SelectionModel* selection, QWidget* parent = nullptr);

  // Named commands (buttons, tests).
  void dropFirstToken();
  void removeSinks(int scope);  // 0: selected head, 1: selected layer, 2: everywhere
  void ablateSelectedHead();
  void scaleRope(double factor);
  void clearAll();

 private:
  void refreshList();
  // Head-specific edits need a head: with the head average selected they are
  // disabled and say why (ablating "the average" would do nothing, silently).
  void refreshHeadButtons();

  SelectionModel* selection_;
  QPushButton* ablateHead_ = nullptr;
  QPushButton* removeHeadSinks_ = nullptr;
  QListWidget* list_ = nullptr;
  QDoubleSpinBox* ropeScale_ = nullptr;
};

}  // namespace sinkscope::ui
