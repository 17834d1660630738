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

#include "models/views/colours.h"
#include "render/gl_support.h"
#include "render/heat_map_view.h"
#include "render/line_plot_view.h"
#include "ui/docks.h"

namespace sinkscope::ui {

namespace {

// The pooled numbers the grid can show.
enum GridChoice { SampleShare, SinkVotes, CurrentVotes, HeadClass };

int class_index(const std::string& label) {
  return label == "Retriever" ? 0 : label == "Mixer" ? 1 : 2;
}

// A model as people name it: a folder's own name, or a cache name as given.
QString model_name(const std::string& model) {
  const QString name = QString::fromStdString(model);
  const QFileInfo info(name);
  return info.isAbsolute() || name.startsWith(QLatin1Char('.')) ? info.fileName() : name;
}

QString with_interval(const Interval& i, int decimals = 2, double scale = 1.0) {
  QString text = QString::number(i.value * scale, 'f', decimals);
  if (std::isfinite(i.lo) && std::isfinite(i.hi))
    text += QStringLiteral(" [%1, %2]")
                .arg(i.lo * scale, 0, 'f', decimals)
                .arg(i.hi * scale, 0, 'f', decimals);
  return text;
}

// Layer-profile choices: a label and the metrics (file names) it plots.
struct ProfileChoice {
  QString label;
  QString yLabel;
  std::vector<std::string> metrics;  // each one series (graph metrics: one per threshold)
  std::string reference;             // drawn as a baseline: a metric, "uniform" or "one"
};

std::vector<ProfileChoice> profile_choices(const StudyTables& s) {
  auto tr = [](const char* t) { return QObject::tr(t); };
  auto withPrefix = [&](const std::string& prefix) {
    std::vector<std::string> out;
    for (const auto& m : s.profileOrder)
      if (m.rfind(prefix + "@", 0) == 0) out.push_back(m);
    return out;
  };
  std::vector<ProfileChoice> out = {
      {tr("Sink concentration"), tr("% of attention on sinks"), {"sink_concentration_percent"}, ""},
      {tr("Sink metric alpha_0 of the first token"), tr("alpha_0"), {"alpha0"}, "uniform"},
      {tr("Sink boost alpha_0 / uniform baseline"), tr("boost"), {"boost"}, "one"},
      {tr("Persistence: bars above min persistence"), tr("bars (mean over heads)"),
       {"bars0_above_min_persistence", "bars1_above_min_persistence"}, ""},
      {tr("Fiedler value of the head-averaged graph"), tr("lambda_2"), withPrefix("fiedler"), ""},
      {tr("Degree centralisation of the head-averaged graph"), tr("centralisation"),
       withPrefix("centralisation"), ""},
      {tr("F_N at the last token against random subsets"), tr("F_N"), {"f_n"}, "f_n_random"}};
  std::vector<ProfileChoice> present;
  for (auto& c : out) {
    bool all = !c.metrics.empty();
    for (const auto& m : c.metrics) all = all && s.profiles.count(m);
    if (all) present.push_back(std::move(c));
  }
  if (!s.functional.empty())
    present.push_back({tr("KL of sink removal, per layer"), tr("mean KL (nats)"), {"kl"}, ""});
  return present;
}

QString metric_name(const std::string& metric) {
  if (metric == "bars0_above_min_persistence") return QObject::tr("H0 bars");
  if (metric == "bars1_above_min_persistence") return QObject::tr("H1 bars");
  if (metric == "sink_concentration_percent") return QObject::tr("sink concentration");
  if (metric == "f_n") return QObject::tr("F_N of the top-N keys");
  const auto at = metric.find('@');
  if (at != std::string::npos)
    return QObject::tr("theta = %1").arg(QString::fromStdString(metric.substr(at + 1)));
  return QString::fromStdString(metric);
}

}  // namespace

StudyPanel::StudyPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("studyPanel"));
  summary_ = new QLabel(tr("No study open. File > Open study... shows a merged corpus study "
                           "(sinkscope-cli study merge)."),
                        this);
  summary_->setObjectName(QStringLiteral("studySummary"));
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  gridChooser_ = new QComboBox(this);
  gridChooser_->setObjectName(QStringLiteral("studyGridChooser"));
  gridChooser_->addItems({tr("Share of sentences with a sink"), tr("Taxonomy: sink vote share"),
                          tr("Taxonomy: current-token vote share"), tr("Head class (pooled votes)")});
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
  const QString last =
      s.lastToken.empty() ? QString()
                          : tr(", %1 on the last \"%2\"")
                                .arg(with_interval(s.lastTokenShare))
                                .arg(QString::fromStdString(s.lastToken).toHtmlEscaped());
  summary_->setText(
      tr("<b>%1</b>: %2 sentences%3. Frame: <b>%4</b>; of %5 specialised heads, %6 specialise on "
         "the first token \"%7\"%8, %9 elsewhere. Sink rate (alpha_0 > eps): %10% of heads and "
         "sentences; mean boost %11. Brackets: 95% bootstrap intervals over the sentences.")
          .arg(model_name(s.model).toHtmlEscaped())
          .arg(s.sentences)
          .arg(missing.toHtmlEscaped())
          .arg(QString::fromStdString(s.frame).toHtmlEscaped())
          .arg(s.specialisedHeads)
          .arg(with_interval(s.firstTokenShare))
          .arg(QString::fromStdString(s.firstToken).toHtmlEscaped())
          .arg(last)
          .arg(with_interval(s.otherShare))
          .arg(with_interval(s.sinkRatePercent, 1))
          .arg(with_interval(s.meanBoost)));
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
  views::HeatMap grid;
  if (!study_) return grid;
  const StudyTables& s = *study_;
  const auto choice = static_cast<GridChoice>(std::max(0, gridChooser_->currentIndex()));
  grid.rows = s.layers;
  grid.cols = s.heads;
  grid.rowTitle = "layer";
  grid.colTitle = "head";
  grid.outlineRow = layer_;
  grid.outlineCol = head_;
  for (int l = 0; l < s.layers; ++l) grid.rowLabels.push_back("L" + std::to_string(l));
  for (int h = 0; h < s.heads; ++h) grid.colLabels.push_back("H" + std::to_string(h));
  auto pick = [&](const StudyHead& h) -> const Interval& {
    return choice == SinkVotes ? h.sinkShare : choice == CurrentVotes ? h.currentShare : h.sampleShare;
  };
  for (int l = 0; l < s.layers; ++l)
    for (int h = 0; h < s.heads; ++h) {
      const StudyHead& head = s.head(l, h);
      grid.values.push_back(choice == HeadClass ? static_cast<float>(class_index(head.label))
                                                : static_cast<float>(pick(head).value));
    }
  const StudyHead& chosen = s.head(layer_, head_);
  QString value;
  if (choice == HeadClass) {
    grid.quantity = "head class";
    grid.categories = {"Retriever", "Mixer", "Reset"};
    grid.categoryColours = {views::kHeadClassColours[0], views::kHeadClassColours[1],
                            views::kHeadClassColours[2]};
    value = QString::fromStdString(chosen.label);
  } else {
    grid.fixedRange = true;
    grid.rangeMin = 0.0;
    grid.rangeMax = 1.0;
    grid.quantity = gridChooser_->currentText().toLower().toStdString();
    value = with_interval(pick(chosen));
  }
  grid.title = tr("%1 | layer %2, head %3: %4")
                   .arg(gridChooser_->currentText())
                   .arg(layer_)
                   .arg(head_)
                   .arg(value)
                   .toStdString();
  return grid;
}

void StudyPanel::drawGrid() {
  if (grid_ && study_) grid_->setData(gridData());
}

void StudyPanel::fillProfileChooser() {
  const QString previous = profileChooser_->currentText();
  QSignalBlocker block(profileChooser_);
  profileChooser_->clear();
  for (const auto& c : profile_choices(*study_)) profileChooser_->addItem(c.label);
  const int at = profileChooser_->findText(previous);
  profileChooser_->setCurrentIndex(at >= 0 ? at : 0);
  drawProfile();
}

void StudyPanel::drawProfile() {
  if (!study_) return;
  const StudyTables& s = *study_;
  const auto choices = profile_choices(s);
  const int index = profileChooser_->currentIndex();
  views::LinePlot plot;
  plot.xLabel = "layer";
  plot.integerX = true;
  if (index < 0 || index >= static_cast<int>(choices.size())) {
    plot.title = tr("No layer profiles in this study").toStdString();
    profile_->setData(std::move(plot));
    return;
  }
  const ProfileChoice& c = choices[static_cast<std::size_t>(index)];
  plot.title =
      tr("%1 | mean over %2 sentences, 95% intervals").arg(c.label).arg(s.sentences).toStdString();
  plot.yLabel = c.yLabel.toStdString();
  auto seriesOf = [&](const std::vector<Interval>& values, const QString& name) {
    views::PlotSeries series;
    series.name = name.toStdString();
    for (std::size_t l = 0; l < values.size(); ++l) {
      series.x.push_back(static_cast<double>(l));
      series.y.push_back(values[l].value);
      series.lo.push_back(values[l].lo);
      series.hi.push_back(values[l].hi);
    }
    return series;
  };
  if (c.metrics.front() == "kl") {  // functional.csv: one row per layer, then "all"
    std::vector<Interval> kl(static_cast<std::size_t>(s.layers),
                             Interval{std::nan(""), std::nan(""), std::nan("")});
    for (const auto& [key, value] : s.functional)
      for (int l = 0; l < s.layers; ++l)
        if (key == "kl_sink_removal " + std::to_string(l)) kl[static_cast<std::size_t>(l)] = value;
    plot.series.push_back(seriesOf(kl, tr("sinks removed in that layer")));
  } else {
    for (const auto& metric : c.metrics)
      plot.series.push_back(seriesOf(s.profiles.at(metric), metric_name(metric)));
  }
  if (!c.reference.empty()) {
    views::PlotSeries ref;
    ref.reference = true;
    for (int l = 0; l < s.layers; ++l) {
      ref.x.push_back(l);
      if (c.reference == "one") {
        ref.y.push_back(1.0);
      } else if (c.reference == "uniform") {
        ref.y.push_back(s.meanUniformBaseline);
      } else {
        ref.y.push_back(s.profiles.at(c.reference)[static_cast<std::size_t>(l)].value);
      }
    }
    ref.name = c.reference == "one"       ? "no boost (1)"
               : c.reference == "uniform" ? "uniform baseline (mean over sentences)"
                                          : "random subsets of N keys";
    plot.series.push_back(std::move(ref));
  }
  profile_->setData(std::move(plot));
}

void StudyPanel::drawClasses() {
  const StudyTables& s = *study_;
  views::LinePlot plot;
  plot.title =
      tr("Head classes per layer (votes pooled over %1 sentences)").arg(s.sentences).toStdString();
  plot.xLabel = "layer";
  plot.yLabel = "heads";
  plot.integerX = plot.integerY = true;
  plot.airBelow = true;  // a class with no head in any layer stays visible above the axis
  const QString names[3] = {tr("Retriever"), tr("Mixer"), tr("Reset")};
  for (int c = 0; c < 3; ++c) {
    views::PlotSeries series;
    series.name = names[c].toStdString();
    series.colour = views::kHeadClassColours[c];
    for (int l = 0; l < s.layers; ++l) {
      int n = 0;
      for (int h = 0; h < s.heads; ++h) n += class_index(s.head(l, h).label) == c ? 1 : 0;
      series.x.push_back(l);
      series.y.push_back(n);
    }
    plot.series.push_back(std::move(series));
  }
  classes_->setData(std::move(plot));
}

void StudyPanel::fillSentences() {
  sentences_->clear();
  const auto& list = study_->topSentences[static_cast<std::size_t>(layer_ * study_->heads + head_)];
  sentencesTitle_->setText(tr("Sentences where layer %1, head %2 sinks hardest (highest alpha_0); "
                              "double-click one to run it with this head selected:")
                               .arg(layer_)
                               .arg(head_));
  for (const StudySentence& sentence : list) {
    auto* item = new QListWidgetItem(tr("alpha_0 %1 (boost %2), %3 tokens, #%4: %5")
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
