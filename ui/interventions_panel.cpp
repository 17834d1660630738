#include "ui/interventions_panel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>

#include "ui/selection_model.h"

namespace sinkscope::ui {

InterventionsPanel::InterventionsPanel(SelectionModel* selection, QWidget* parent)
    : QWidget(parent), selection_(selection) {
  setObjectName(QStringLiteral("interventionsPanel"));
  auto* grid = new QGridLayout(this);
  auto button = [&](const QString& text, const QString& tip, int row, int col, auto slot) {
    auto* b = new QPushButton(text, this);
    b->setToolTip(tip);
    connect(b, &QPushButton::clicked, this, slot);
    grid->addWidget(b, row, col);
    return b;
  };
  button(tr("Drop first token"),
         tr("Run without position 0 (BOS removal, Barbero et al.): refused when the tokenizer added no "
            "special first token"),
         0, 0, [this] { dropFirstToken(); });
  ablateHead_ = button(tr("Ablate selected head"),
                       tr("Zero the selected head's output"), 0, 1,
                       [this] { ablateSelectedHead(); });
  ablateHead_->setObjectName(QStringLiteral("ablateHeadButton"));
  removeHeadSinks_ = button(
      tr("Remove sinks: head"),
      tr("Zero the selected head's sink keys after softmax and renormalise"), 1,
      0, [this] { removeSinks(0); });
  removeHeadSinks_->setObjectName(QStringLiteral("removeHeadSinksButton"));
  button(tr("Remove sinks: layer"), tr("The same for every head of the selected layer"), 1, 1,
         [this] { removeSinks(1); });
  button(tr("Remove sinks: all"), tr("The same for every head of every layer"), 2, 0,
         [this] { removeSinks(2); });
  ropeScale_ = new QDoubleSpinBox(this);
  ropeScale_->setRange(0.1, 64.0);
  ropeScale_->setValue(4.0);
  ropeScale_->setPrefix(tr("x"));
  ropeScale_->setToolTip(tr("NTK-aware RoPE scaling: base * s^(d / (d - 2))"));
  auto* rope = new QWidget(this);
  auto* ropeRow = new QHBoxLayout(rope);
  ropeRow->setContentsMargins(0, 0, 0, 0);
  ropeRow->addWidget(ropeScale_);
  auto* ropeButton = new QPushButton(tr("Scale RoPE"), rope);
  connect(ropeButton, &QPushButton::clicked, this, [this] { scaleRope(ropeScale_->value()); });
  ropeRow->addWidget(ropeButton);
  grid->addWidget(rope, 2, 1);

  grid->addWidget(new QLabel(tr("Active interventions"), this), 3, 0, 1, 2);
  list_ = new QListWidget(this);
  list_->setObjectName(QStringLiteral("interventionList"));
  grid->addWidget(list_, 4, 0, 1, 2);
  button(tr("Remove selected"), tr("Switch the selected intervention off"), 5, 0, [this] {
    const int row = list_->currentRow();
    if (row >= 0 && static_cast<std::size_t>(row) < selection_->interventions().labels().size())
      selection_->removeIntervention(static_cast<std::size_t>(row));
  });
  button(tr("Clear all"), tr("Switch every intervention off"), 5, 1, [this] { clearAll(); });

  grid->setRowStretch(4, 1);
  setToolTip(
      tr("Change the model and compare: each intervention produces a second run, and every "
         "panel can show it instead of the first, or both (the chooser in the selection bar)."));
  connect(selection_, &SelectionModel::interventionsChanged, this, [this] { refreshList(); });
  connect(selection_, &SelectionModel::headChanged, this, [this] { refreshHeadButtons(); });
  connect(selection_, &SelectionModel::boundsChanged, this, [this] { refreshHeadButtons(); });
  refreshList();
  refreshHeadButtons();
}

void InterventionsPanel::dropFirstToken() {
  models::Intervention i;
  i.dropFirstToken = true;
  selection_->addIntervention(i);
}

void InterventionsPanel::removeSinks(int scope) {
  models::SinkRemoval removal;
  if (scope <= 1) removal.layers = {selection_->layer()};
  if (scope == 0 && !selection_->headAveraged()) removal.heads = {selection_->head()};
  models::Intervention i;
  i.removeSinks = {removal};
  selection_->addIntervention(i);
}

void InterventionsPanel::refreshHeadButtons() {
  const bool head = !selection_->headAveraged();
  const QString why = tr("Select a head first: the head average is not a head of its own");
  ablateHead_->setEnabled(head);
  ablateHead_->setToolTip(head ? tr("Zero the selected head's output") : why);
  removeHeadSinks_->setEnabled(head);
  removeHeadSinks_->setToolTip(
      head ? tr("Zero the selected head's sink keys after softmax and renormalise")
           : why);
}

void InterventionsPanel::ablateSelectedHead() {
  if (selection_->headAveraged()) return;  // the average is not a head
  models::Intervention i;
  i.ablateHeads = {{selection_->layer(), selection_->head()}};
  selection_->addIntervention(i);
}

void InterventionsPanel::scaleRope(double factor) {
  models::Intervention scaled = selection_->interventions();
  scaled.ntkScale = factor;  // replaces the scale before
  selection_->setInterventions(scaled);
}

void InterventionsPanel::clearAll() { selection_->setInterventions({}); }

void InterventionsPanel::refreshList() {
  list_->clear();
  for (const std::string& label : selection_->interventions().labels())
    list_->addItem(QString::fromStdString(label));
  if (list_->count() == 0) list_->addItem(tr("(none: the panels show the plain run)"));
}

}  // namespace sinkscope::ui
