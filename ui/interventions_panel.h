#pragma once
// The interventions dock: switch on drop-first-token, sink removal (for the
// selected head, its layer or everywhere), ablation of the selected head and
// RoPE scaling; the list of active interventions is always visible, and a
// chooser says whether the panels show the run before, after, or the
// difference of the attention maps.
#include <QString>
#include <QWidget>
#include <optional>

class QComboBox;
class QDoubleSpinBox;
class QListWidget;
class QPushButton;

namespace sinkscope::ui {

class SelectionModel;
struct Intervention;

// What the panels draw while interventions are active. SideBySide: the
// attention map shows before | after, the plots overlay the plain run's
// curves (dashed), the other panels show the intervened run.
enum class Comparison { Before, After, Difference, SideBySide };
// Its name in sessions and on the command line: before, after, difference,
// side_by_side; comparison_of returns nothing for any other name.
QString comparison_name(Comparison c);
std::optional<Comparison> comparison_of(const QString& name);

class InterventionsPanel : public QWidget {
  Q_OBJECT

 public:
  InterventionsPanel(SelectionModel* selection, QWidget* parent = nullptr);
  Comparison comparison() const { return comparison_; }
  void setComparison(Comparison c);
  // The names of the two runs in the chooser: "before" and "after" for
  // interventions, the sentences' or models' names for a comparison.
  void setRunNames(const QString& left, const QString& right);

  // Named commands (buttons, tests).
  void dropFirstToken();
  void removeSinks(int scope);  // 0: selected head, 1: selected layer, 2: everywhere
  void ablateSelectedHead();
  void scaleRope(double factor);
  void clearAll();

 Q_SIGNALS:
  void comparisonChanged(sinkscope::ui::Comparison comparison);

 private:
  void refreshList();
  // Head-specific edits need a head: with the head average selected they are
  // disabled and say why (issue 17: ablating "the average" did nothing, silently).
  void refreshHeadButtons();

  SelectionModel* selection_;
  QPushButton* ablateHead_ = nullptr;
  QPushButton* removeHeadSinks_ = nullptr;
  Comparison comparison_ = Comparison::After;
  QComboBox* comparisonChooser_ = nullptr;
  QListWidget* list_ = nullptr;
  QDoubleSpinBox* ropeScale_ = nullptr;
};

}  // namespace sinkscope::ui
