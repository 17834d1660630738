#include "ui/present_stage.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace sinkscope::ui {

namespace {
// A 1080-pixel-high screen is the projector the sizes are set for.
constexpr double kReferenceHeight = 1080.0;
// Caption text in pixels at that height: the sentence, then the finding.
constexpr double kSentencePx = 40.0, kFindingPx = 30.0;
// The line explaining the red labels and the keys, under the views.
constexpr double kKeysPx = 20.0;

void set_pixel_size(QLabel* label, double px, bool bold) {
  QFont font = label->font();
  font.setPixelSize(std::max(8, static_cast<int>(std::lround(px))));
  font.setBold(bold);
  label->setFont(font);
}
}  // namespace

PresentStage::PresentStage(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("presentStage"));
  auto* column = new QVBoxLayout(this);
  column->setContentsMargins(24, 8, 24, 8);
  column->setSpacing(4);
  sentence_ = new QLabel(this);
  sentence_->setObjectName(QStringLiteral("presentSentence"));
  sentence_->setWordWrap(true);
  finding_ = new QLabel(this);
  finding_->setObjectName(QStringLiteral("presentFinding"));
  finding_->setWordWrap(true);
  column->addWidget(sentence_);
  column->addWidget(finding_);
  row_ = new QHBoxLayout;
  row_->setSpacing(16);
  column->addLayout(row_, 1);
  // The panel's column holds the key line too: the map keeps the full height.
  panelColumn_ = new QVBoxLayout;
  panelColumn_->setSpacing(8);
  keys_ = new QLabel(
      tr("<b><font color='#b2182b'>Red token labels</font></b>: sinks, the tokens that take a "
         "large "
         "share of every query's attention whatever they mean. Keys: \u2191 \u2193 layer, "
         "\u2190 \u2192 head, S the strongest sink, N / P the next / previous sentence, Esc "
         "leaves."),
      this);
  keys_->setObjectName(QStringLiteral("presentLegend"));
  keys_->setWordWrap(true);
  panelColumn_->addWidget(keys_);
  row_->addLayout(panelColumn_, 2);
}

void PresentStage::take(QWidget* map, QWidget* panel) {
  map_ = map;
  panel_ = panel;
  // The map a little wider than the panel: it is what the room reads.
  row_->insertWidget(0, map, 3);
  if (panel) panelColumn_->insertWidget(0, panel, 1);
  map->show();
  if (panel) panel->show();
}

QWidget* PresentStage::swapPanel(QWidget* panel) {
  QWidget* old = panel_.data();
  if (old) panelColumn_->removeWidget(old);
  panel_ = panel;
  if (panel) {
    panelColumn_->insertWidget(0, panel, 1);
    panel->show();
  }
  return old;
}

std::pair<QWidget*, QWidget*> PresentStage::giveBack() {
  if (map_) row_->removeWidget(map_);
  if (panel_) panelColumn_->removeWidget(panel_);
  std::pair<QWidget*, QWidget*> taken{map_.data(), panel_.data()};
  map_.clear();
  panel_.clear();
  return taken;
}

void PresentStage::setCaption(const QString& sentence, const QString& finding) {
  sentence_->setText(sentence);
  finding_->setText(finding);
}

QString PresentStage::sentenceShown() const { return sentence_->text(); }
QString PresentStage::findingShown() const { return finding_->text(); }

double PresentStage::labelScale(int height) { return 28.0 / 11.0 * height / kReferenceHeight; }
double PresentStage::plotScale(int height) { return 1.9 * height / kReferenceHeight; }

void PresentStage::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  const double k = height() / kReferenceHeight;
  set_pixel_size(sentence_, kSentencePx * k, true);
  set_pixel_size(finding_, kFindingPx * k, false);
  set_pixel_size(keys_, kKeysPx * k, false);
}

}  // namespace sinkscope::ui
