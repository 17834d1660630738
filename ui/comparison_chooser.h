#pragma once
// Which of two runs the panels draw (a run with interventions and the plain
// one, or a comparison's A and B): one state, shown as a chooser in the
// selection bar and as checkable actions with keys (Run > Compared runs), both
// enabled only while there is a second run.
#include <QList>
#include <QObject>
#include <QString>
#include <optional>

#include "ui/workspace.h"

class QAction;
class QActionGroup;
class QComboBox;
class QMenu;
class QToolBar;
class QWidget;

namespace sinkscope::ui {

class ComparisonChooser : public QObject {
  Q_OBJECT

 public:
  // The combo box is made with `boxParent`; the actions go into `menu`.
  ComparisonChooser(QWidget* boxParent, QMenu* menu);
  Comparison comparison() const { return comparison_; }
  void setComparison(Comparison c);
  // The runs' names: "before" and "after" for interventions, the sentences'
  // or models' names (A, B) for a comparison.
  void setRunNames(const QString& left, const QString& right);
  // Adds "Show" and the chooser to `bar`, shown only while available.
  void placeIn(QToolBar* bar);
  // Whether a second run exists to choose between (else the actions are
  // disabled and the chooser hidden).
  void setAvailable(bool available);
  QComboBox* box() const { return box_; }
  const QList<QAction*>& actions() const { return actions_; }

 Q_SIGNALS:
  void comparisonChanged(sinkscope::ui::Comparison comparison);

 private:
  Comparison comparison_ = Comparison::After;
  QComboBox* box_ = nullptr;
  QActionGroup* group_ = nullptr;
  QList<QAction*> actions_;  // in the order of Comparison
  QList<QAction*> inBar_;    // the separator, label and chooser in the bar
};

}  // namespace sinkscope::ui
