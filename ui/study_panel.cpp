#include "ui/study_panel.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QVBoxLayout>
#include <cmath>

#include "models/document/study_views.h"
#include "render/drawn_views.h"
#include "render/gl_support.h"
#include "render/heat_map_view.h"
#include "render/line_plot_view.h"
#include "ui/docks.h"

namespace sinkscope::ui {

namespace {

// A model as people name it: a folder's own name, or a cache name as given.
QString model_name(const std::string& model) {
  const QString name = QString::fromStdString(model);
  const QFileInfo info(name);
  return info.isAbsolute() || name.startsWith(QLatin1Char('.')) ? info.fileName() : name;
}

QString shown_interval(const Interval& i, int decimals = 2, double scale = 1.0) {
  return QString::fromStdString(document::with_interval(i, decimals, scale));
}

}  // namespace

StudyPanel::StudyPanel(render::DrawnViews& drawn, QWidget* parent)
    : QWidget(parent), drawn_(drawn) {
  setObjectName(QStringLiteral("studyPanel"));
  summary_ = new QLabel(tr("No study open. File > Open study... shows a merged corpus study "
                           "(sinkscope-cli study merge)."),
                        this);
  summary_->setObjectName(QStringLiteral("studySummary"));
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  gridChooser_ = new QComboBox(this);
  gridChooser_->setObjectName(QStringLiteral("studyGridChooser"));
  for (const std::string& name : document::study_grid_names())
    gridChooser_->addItem(QString::fromStdString(name));
  profileChooser_ = new QComboBox(this);
  profileChooser_->setObjectName(QStringLiteral("studyProfileChooser"));
  connect(gridChooser_, &QComboBox::currentIndexChanged, this, [this] { drawGrid(); });
  connect(profileChooser_, &QComboBox::currentIndexChanged, this, [this] { drawProfile(); });

  if (render::gl_panels_available()) {
    grid_ = new render::HeatMapView(this);
    grid_->setObjectName(QStringLiteral("studyGrid"));
    connect(grid_, &render::HeatMapView::cellClicked, this, [this](int row, int col) {
      if (!study_ || row < 0 || col < 0 || row >= study_->layers || col >= study_->heads) return;
      chooseHead(row, col);
      Q_EMIT headChosen(row, col);
    });
  }
  profile_ = new render::LinePlotView(this);
  profile_->setObjectName(QStringLiteral("studyProfile"));
  classes_ = new render::LinePlotView(this);
  classes_->setObjectName(QStringLiteral("studyClasses"));
  sentencesTitle_ = new QLabel(this);
  sentencesTitle_->setWordWrap(true);
  sentences_ = new QListWidget(this);
  sentences_->setObjectName(QStringLiteral("studySentences"));
  sentences_->setWordWrap(true);
  sentences_->setToolTip(tr("Double-click (or Enter) runs the sentence with this head selected"));
  auto open = [this](QListWidgetItem* item) {
    if (item && !item->data(Qt::UserRole).toString().isEmpty())
      Q_EMIT sentenceOpened(item->data(Qt::UserRole).toString(), layer_, head_);
  };
  connect(sentences_, &QListWidget::itemActivated, this, open);

  auto* gridBox = new QWidget(this);
  auto* gridLayout = new QVBoxLayout(gridBox);
  gridLayout->setContentsMargins(0, 0, 0, 0);
  gridLayout->addWidget(gridChooser_);
  gridLayout->addWidget(grid_ ? static_cast<QWidget*>(grid_) : gl_unavailable_label(this), 1);
  auto* profileBox = new QWidget(this);
  auto* profileLayout = new QVBoxLayout(profileBox);
  profileLayout->setContentsMargins(0, 0, 0, 0);
  profileLayout->addWidget(profileChooser_);
  profileLayout->addWidget(profile_, 1);
  auto* sentenceBox = new QWidget(this);
  auto* sentenceLayout = new QVBoxLayout(sentenceBox);
  sentenceLayout->setContentsMargins(0, 0, 0, 0);
  sentenceLayout->addWidget(sentencesTitle_);
  sentenceLayout->addWidget(sentences_, 1);

  QSplitter* views = panel_splitter(this);
  views->addWidget(gridBox);
  views->addWidget(profileBox);
  views->addWidget(classes_);
  views->addWidget(sentenceBox);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(summary_);
  layout->addWidget(views, 1);
}

void StudyPanel::showRefusal(const QString& folder, const QString& reason) {
  const QString refused = tr("%1 could not be opened: %2").arg(folder, reason);
  summary_->setTextFormat(Qt::PlainText);  // a folder or message is never markup
  summary_->setText(study_ ? refused + tr(" The study shown is the one opened before.")
                           : tr("No study open. ") + refused);
}

void StudyPanel::setStudy(StudyTables study) {
  study_ = std::move(study);
  const StudyTables& s = *study_;
  QString missing;
  if (s.sentencesMissing != "none")
    missing = tr(" (missing: %1)").arg(QString::fromStdString(s.sentencesMissing));
  if (!s.interventions.empty() && s.interventions.rfind("none", 0) != 0)
    missing += tr(", every sentence run with: %1").arg(QString::fromStdString(s.interventions));
  // The last token's share only where it can be a frame's anchor (an encoder's closing token).
  const QString last = s.lastToken.empty()
                           ? QString()
                           : tr(", %1 on the last \"%2\"")
                                 .arg(shown_interval(s.lastTokenShare))
                                 .arg(QString::fromStdString(s.lastToken).toHtmlEscaped());
  summary_->setText(
      tr("<b>%1</b>: %2 sentences%3. Frame: <b>%4</b>; of %5 specialised heads, %6 specialise on "
         "the first token \"%7\"%8, %9 elsewhere. Sink rate (α₀ > ε): %10% of heads and "
         "sentences; mean boost %11. Brackets: 95% bootstrap intervals over the sentences.")
          .arg(model_name(s.model).toHtmlEscaped())
          .arg(s.sentences)
          .arg(missing.toHtmlEscaped())
          .arg(QString::fromStdString(s.frame).toHtmlEscaped())
          .arg(s.specialisedHeads)
          .arg(shown_interval(s.firstTokenShare))
          .arg(QString::fromStdString(s.firstToken).toHtmlEscaped())
          .arg(last)
          .arg(shown_interval(s.otherShare))
          .arg(shown_interval(s.sinkRatePercent, 1))
          .arg(shown_interval(s.meanBoost)));
  summary_->setToolTip(QString::fromStdString(s.model));
  fillProfileChooser();
  layer_ = std::min(layer_, s.layers - 1);
  head_ = std::min(head_, s.heads - 1);
  drawClasses();
  chooseHead(layer_, head_);
}

void StudyPanel::chooseHead(int layer, int head) {
  if (!study_) return;
  layer_ = std::clamp(layer, 0, study_->layers - 1);
  head_ = std::clamp(head, 0, study_->heads - 1);
  drawGrid();
  fillSentences();
}

views::HeatMap StudyPanel::gridData() const {
  if (!study_) return {};
  const int choice = std::max(0, gridChooser_->currentIndex());
  return document::study_grid(*study_, static_cast<document::StudyGrid>(choice), layer_, head_);
}

void StudyPanel::drawGrid() {
  if (grid_ && study_) drawn_.show(grid_, nullptr, gridData());
}

void StudyPanel::fillProfileChooser() {
  const QString previous = profileChooser_->currentText();
  QSignalBlocker block(profileChooser_);
  profileChooser_->clear();
  for (const auto& c : document::study_profiles(*study_))
    profileChooser_->addItem(QString::fromStdString(c.label));
  const int at = profileChooser_->findText(previous);
  profileChooser_->setCurrentIndex(at >= 0 ? at : 0);
  drawProfile();
}

void StudyPanel::drawProfile() {
  if (study_)
    drawn_.show(profile_, document::study_profile_plot(*study_, profileChooser_->currentIndex()));
}

void StudyPanel::drawClasses() {
  drawn_.show(classes_, document::study_head_classes_plot(*study_));
}

void StudyPanel::fillSentences() {
  sentences_->clear();
  const auto& list = study_->topSentences[static_cast<std::size_t>(layer_ * study_->heads + head_)];
  sentencesTitle_->setText(tr("Sentences where layer %1, head %2 sinks hardest (highest α₀); "
                              "double-click one to run it with this head selected:")
                               .arg(layer_)
                               .arg(head_));
  for (const StudySentence& sentence : list) {
    auto* item = new QListWidgetItem(tr("α₀ %1 (boost %2), %3 tokens, #%4: %5")
                                         .arg(sentence.alpha0, 0, 'f', 3)
                                         .arg(sentence.boost, 0, 'f', 2)
                                         .arg(sentence.tokens)
                                         .arg(sentence.index)
                                         .arg(QString::fromStdString(sentence.text)));
    item->setData(Qt::UserRole, QString::fromStdString(sentence.text));
    sentences_->addItem(item);
  }
  if (list.empty()) sentences_->addItem(tr("(no sentence recorded for this head)"));
}

}  // namespace sinkscope::ui
