#include "ui/selection_bar.h"

#include <QAction>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>

#include "ui/selection_model.h"

namespace sinkscope::ui {

namespace {
QSpinBox* token_box(QWidget* parent, const QString& tip) {
  auto* box = new QSpinBox(parent);
  box->setRange(SelectionModel::kNoToken, 0);
  box->setSpecialValueText(QStringLiteral("none"));
  box->setToolTip(tip);
  return box;
}
}  // namespace

SelectionBar::SelectionBar(SelectionModel* selection, QWidget* parent)
    : QToolBar(tr("Selection"), parent), selection_(selection) {
  setObjectName(QStringLiteral("selectionBar"));

  layer_ = new QSpinBox(this);
  layer_->setObjectName(QStringLiteral("layerBox"));
  layer_->setToolTip(tr("Layer (Up/Down)"));
  head_ = new QComboBox(this);
  head_->setObjectName(QStringLiteral("headBox"));
  head_->setToolTip(tr("Head, or the mean over the layer's heads (Left/Right, A)"));
  query_ = token_box(this, tr("Query token: the row of the attention map (Home/End)"));
  key_ = token_box(this, tr("Key token: the column of the attention map"));
  threshold_ = new QDoubleSpinBox(this);
  threshold_->setDecimals(3);
  threshold_->setRange(0.0, 1.0);
  threshold_->setSingleStep(0.01);
  threshold_->setToolTip(tr("Graph threshold θ: an edge i-j exists when A[i][j] >= θ"));
  topN_ = new QSpinBox(this);
  topN_->setRange(1, 1);
  topN_->setToolTip(tr("N: the number of top-attended keys selected in value space (s. 6)"));

  addWidget(new QLabel(tr(" Layer "), this));
  addWidget(layer_);
  addWidget(new QLabel(tr("  Head "), this));
  addWidget(head_);
  addWidget(new QLabel(tr("  Query "), this));
  addWidget(query_);
  addWidget(new QLabel(tr("  Key "), this));
  addWidget(key_);
  addWidget(new QLabel(tr("  Threshold "), this));
  addWidget(threshold_);
  addWidget(new QLabel(tr("  Top-N "), this));
  addWidget(topN_);

  // B of a comparison: by default at the same relative depth and the
  // corresponding head; either can be pinned to compare any head with any.
  counterpartLayer_ = new QComboBox(this);
  counterpartLayer_->setObjectName(QStringLiteral("counterpartLayerBox"));
  counterpartLayer_->setToolTip(
      tr("The compared run B's layer: 'auto' follows the selection at the same relative depth "
         "(first to first, last to last), or pin one of B's layers"));
  counterpartHead_ = new QComboBox(this);
  counterpartHead_->setObjectName(QStringLiteral("counterpartHeadBox"));
  counterpartHead_->setToolTip(
      tr("The compared run B's head: 'auto' is the selected head when B's layers have as many "
         "heads, else B's head average (heads of different models share no order); or pin one"));
  counterpartActions_ << addSeparator() << addWidget(new QLabel(tr(" B at layer "), this))
                      << addWidget(counterpartLayer_) << addWidget(new QLabel(tr(" head "), this))
                      << addWidget(counterpartHead_);

  connect(layer_, &QSpinBox::valueChanged, selection_, &SelectionModel::setLayer);
  connect(head_, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (index >= 0) selection_->setHead(head_->itemData(index).toInt());
  });
  connect(query_, &QSpinBox::valueChanged, selection_, &SelectionModel::setQueryToken);
  connect(key_, &QSpinBox::valueChanged, selection_, &SelectionModel::setKeyToken);
  connect(threshold_, &QDoubleSpinBox::valueChanged, selection_, &SelectionModel::setThreshold);
  connect(topN_, &QSpinBox::valueChanged, selection_, &SelectionModel::setTopN);

  connect(counterpartLayer_, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (index >= 0) selection_->setCounterpartLayer(counterpartLayer_->itemData(index).toInt());
  });
  connect(counterpartHead_, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (index >= 0) selection_->setCounterpartHead(counterpartHead_->itemData(index).toInt());
  });

  connect(selection_, &SelectionModel::boundsChanged, this, &SelectionBar::rebuildHeadChoices);
  connect(selection_, &SelectionModel::counterpartChanged, this,
          &SelectionBar::rebuildCounterpartChoices);
  connect(selection_, &SelectionModel::changed, this, &SelectionBar::syncFromModel);
  rebuildHeadChoices();
  rebuildCounterpartChoices();
  syncFromModel();
}

void SelectionBar::rebuildHeadChoices() {
  const QSignalBlocker block(head_);
  head_->clear();
  head_->addItem(tr("average"), SelectionModel::kHeadAverage);
  for (int h = 0; h < selection_->headCount(); ++h) head_->addItem(QString::number(h), h);
}

void SelectionBar::rebuildCounterpartChoices() {
  const QSignalBlocker b1(counterpartLayer_), b2(counterpartHead_);
  for (QAction* a : counterpartActions_) a->setVisible(selection_->hasCounterpart());
  // Only a new shape changes the choices; the current one follows in syncFromModel.
  if (counterpartLayer_->count() != selection_->counterpartLayerCount() + 1 ||
      counterpartHead_->count() != selection_->counterpartHeadCount() + 2) {
    counterpartLayer_->clear();
    counterpartLayer_->addItem(QString(), SelectionModel::kAutomatic);
    for (int l = 0; l < selection_->counterpartLayerCount(); ++l)
      counterpartLayer_->addItem(QString::number(l), l);
    counterpartHead_->clear();
    counterpartHead_->addItem(QString(), SelectionModel::kAutomatic);
    counterpartHead_->addItem(tr("average"), SelectionModel::kHeadAverage);
    for (int h = 0; h < selection_->counterpartHeadCount(); ++h)
      counterpartHead_->addItem(QString::number(h), h);
  }
  syncFromModel();
}

void SelectionBar::syncFromModel() {
  // Blocked so that showing the model's values does not write them back.
  const QSignalBlocker b1(layer_), b2(head_), b3(query_), b4(key_), b5(threshold_), b6(topN_);
  layer_->setRange(0, std::max(0, selection_->layerCount() - 1));
  layer_->setValue(selection_->layer());
  head_->setCurrentIndex(head_->findData(selection_->head()));
  const int lastToken = selection_->tokenCount() - 1;
  query_->setRange(SelectionModel::kNoToken, std::max(SelectionModel::kNoToken, lastToken));
  query_->setValue(selection_->queryToken());
  key_->setRange(SelectionModel::kNoToken, std::max(SelectionModel::kNoToken, lastToken));
  key_->setValue(selection_->keyToken());
  threshold_->setValue(selection_->threshold());
  topN_->setRange(1, std::max(1, selection_->tokenCount()));
  topN_->setValue(selection_->topN());
  if (selection_->hasCounterpart()) {
    // "auto" names where it lands now.
    const QSignalBlocker b7(counterpartLayer_), b8(counterpartHead_);
    const int head = selection_->counterpartHead();
    counterpartLayer_->setItemText(0, tr("auto (%1)").arg(selection_->counterpartLayer()));
    counterpartHead_->setItemText(
        0, tr("auto (%1)").arg(head == SelectionModel::kHeadAverage ? tr("average") : QString::number(head)));
    counterpartLayer_->setCurrentIndex(counterpartLayer_->findData(selection_->pinnedCounterpartLayer()));
    counterpartHead_->setCurrentIndex(counterpartHead_->findData(selection_->pinnedCounterpartHead()));
  }
}

}  // namespace sinkscope::ui
