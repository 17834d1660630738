#pragma once
// The one place where the selection is shown and edited: layer, head (or
// the head average), query and key token, threshold and top-N. Its widgets
// write to the SelectionModel and follow it; they never talk to a panel.
#include <QList>
#include <QToolBar>

class QAction;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;

namespace sinkscope::ui {

class SelectionModel;

class SelectionBar : public QToolBar {
  Q_OBJECT

 public:
  SelectionBar(SelectionModel* selection, QWidget* parent = nullptr);

  QSpinBox* layerBox() const { return layer_; }
  QComboBox* headBox() const { return head_; }
  // Comparing two runs: where the selection lands in B ("auto" or pinned).
  QComboBox* counterpartLayerBox() const { return counterpartLayer_; }
  QComboBox* counterpartHeadBox() const { return counterpartHead_; }

 private:
  void syncFromModel();
  void rebuildHeadChoices();
  void rebuildCounterpartChoices();

  SelectionModel* selection_;
  QSpinBox* layer_;
  QComboBox* head_;
  QSpinBox* query_;
  QSpinBox* key_;
  QDoubleSpinBox* threshold_;
  QSpinBox* topN_;
  QComboBox* counterpartLayer_;
  QComboBox* counterpartHead_;
  QList<QAction*> counterpartActions_;  // shown only while comparing
};

}  // namespace sinkscope::ui
