#include "ui/comparison_chooser.h"

#include <QAction>
#include <QActionGroup>
#include <QComboBox>
#include <QKeySequence>
#include <QLabel>
#include <QToolBar>
#include <QMenu>

namespace sinkscope::ui {

namespace {
constexpr Comparison kAll[] = {Comparison::Before, Comparison::After, Comparison::Difference,
                               Comparison::SideBySide};
}

ComparisonChooser::ComparisonChooser(QWidget* boxParent, QMenu* menu) : QObject(boxParent) {
  box_ = new QComboBox(boxParent);
  box_->setObjectName(QStringLiteral("comparisonChooser"));
  box_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  box_->setToolTip(
      tr("Which run the panels draw when there are two (interventions, or a comparison): one "
         "or the other, (attention map) the right-hand map minus the left-hand one, or both: "
         "the maps next to each other and both runs' curves in the plots"));
  group_ = new QActionGroup(this);
  group_->setExclusive(true);
  for (Comparison c : kAll) {
    box_->addItem(QString(), int(c));
    QAction* action = menu->addAction(QString());
    action->setCheckable(true);
    action->setObjectName(QStringLiteral("show_") +
                          QString::fromStdString(document::comparison_name(c)));
    group_->addAction(action);
    actions_ << action;
    connect(action, &QAction::triggered, this, [this, c] { setComparison(c); });
    // Ctrl+Shift+1..4: the four views in their order.
    action->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | static_cast<Qt::Key>(Qt::Key_1 + int(c))));
  }
  box_->setCurrentIndex(int(comparison_));
  actions_[int(comparison_)]->setChecked(true);
  connect(box_, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (index >= 0) setComparison(static_cast<Comparison>(box_->itemData(index).toInt()));
  });
  setRunNames(tr("before"), tr("after"));
  setAvailable(false);
}

void ComparisonChooser::setRunNames(const QString& left, const QString& right) {
  const QString texts[] = {left, right,
                           tr("difference (%1 - %2)").arg(right, left),
                           tr("side by side (%1 | %2)").arg(left, right)};
  for (int k = 0; k < 4; ++k) {
    box_->setItemText(k, texts[k]);
    actions_[k]->setText(texts[k]);
  }
}

void ComparisonChooser::placeIn(QToolBar* bar) {
  inBar_ << bar->addSeparator() << bar->addWidget(new QLabel(tr(" Show "), bar)) << bar->addWidget(box_);
  setAvailable(box_->isEnabled());
}

void ComparisonChooser::setAvailable(bool available) {
  box_->setEnabled(available);
  for (QAction* a : actions_) a->setEnabled(available);
  for (QAction* a : inBar_) a->setVisible(available);
}

void ComparisonChooser::setComparison(Comparison c) {
  if (c == comparison_) return;
  comparison_ = c;
  if (box_->currentIndex() != int(c)) box_->setCurrentIndex(int(c));
  actions_[int(c)]->setChecked(true);
  Q_EMIT comparisonChanged(c);
}

}  // namespace sinkscope::ui
