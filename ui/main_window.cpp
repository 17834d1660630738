#include "ui/comparison_chooser.h"
#include "ui/main_window.h"

#include "models/document/study_tables.h"
#include "models/experiments.h"
#include "models/fisher.h"
#include "render/panel_export.h"
#include "ui/analysis_panels.h"
#include "ui/checkpoints_panel.h"
#include "ui/docks.h"
#include "ui/example_picker.h"
#include "ui/export_dialog.h"
#include "ui/interventions_panel.h"
#include "ui/panels/panel.h"
#include "ui/run_analysis.h"
#include "ui/study_panel.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QInputDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QShowEvent>
#include <QStatusBar>
#include <QResizeEvent>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWhatsThis>
#include <QWidgetAction>

#include "analysis/first_token_sink.h"
#include "analysis/run_correspondence.h"
#include "analysis/sink_metric.h"
#include "analysis/token_alignment.h"
#include "models/document/study_tables.h"
#include "models/loaded_model.h"
#include "models/model_discovery.h"
#include "models/model_identity.h"
#include "models/runtime_info.h"
#include "models/trace_export.h"
#include "render/figure_part.h"
#include "render/gl_support.h"
#include "render/heat_map_view.h"
#include "render/line_plot_view.h"
#include "render/scene_view.h"
#include "ui/job_runner.h"
#include "ui/job_status.h"
#include "ui/recent_models.h"
#include "ui/selection_bar.h"
#include "ui/selection_model.h"
#include "ui/study_panel.h"

namespace sinkscope::ui {

namespace {
// From this many tokens the attention map's linear scale is clipped at the
// 99th percentile of the weights.
constexpr int kClippedScaleFrom = 128;

QStringList example_sentences() { return resource_lines(QStringLiteral(":/examples/sentences.txt")); }

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), selection_(new SelectionModel(this)), jobs_(new JobRunner(this)) {
  setObjectName(QStringLiteral("mainWindow"));
  setWindowTitle(tr("SinkScope"));
  setWindowIcon(QIcon(QStringLiteral(":/icons/sinkscope.svg")));
  setAcceptDrops(true);
  setDockNestingEnabled(true);
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowNestedDocks |
                 QMainWindow::AllowTabbedDocks);

  baseFontPoints_ = font().pointSizeF();
  selectionBar_ = new SelectionBar(selection_, this);
  addToolBar(Qt::TopToolBarArea, selectionBar_);
  buildDocks();
  buildActions();
  buildStatusBar();

  // The default layout is captured at the first show, once docks have sizes.
  restoreGeometry(QSettings().value(QStringLiteral("window/geometry")).toByteArray());

  selection_->setBounds(1, 1, 0);
  // Redraws are batched: many selection changes in one event-loop turn cost one redraw.
  auto* redraw = new QTimer(this);
  redraw->setSingleShot(true);
  redraw->setInterval(0);
  connect(redraw, &QTimer::timeout, this, &MainWindow::refreshPanels);
  connect(selection_, &SelectionModel::changed, redraw, qOverload<>(&QTimer::start));
  connect(selection_, &SelectionModel::highlightChanged, redraw, qOverload<>(&QTimer::start));
  connect(selection_, &SelectionModel::interventionsChanged, this,
          &MainWindow::updateInterventionsLabel);

  const QStringList examples = example_sentences();
  if (!examples.isEmpty()) setSentence(examples.front());
  if (!QSettings().contains(QStringLiteral("window/geometry"))) resize(1400, 900);
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (layoutInitialised_) return;
  layoutInitialised_ = true;
  resizeDocks({modelDock_, attentionDock_}, {320, width() - 320}, Qt::Horizontal);
  resizeDocks({attentionDock_, profileDock_}, {11 * height() / 20, 9 * height() / 20},
              Qt::Vertical);
  defaultLayout_ = saveState(kLayoutVersion);
  restoreLayout();
  modelDock_->installEventFilter(this);  // its width as the user leaves it (eventFilter)
  QTimer::singleShot(0, this, [this] {
    lastWindowSize_ = size();
    modelDockWidth_ = modelDock_->width();
  });
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
  // The model dock's width as the user leaves it: its resizes while the
  // window keeps its size (a dragged separator), not those a resize of the
  // window causes.
  if (watched == modelDock_ && event->type() == QEvent::Resize && size() == lastWindowSize_)
    modelDockWidth_ = modelDock_->width();
  return QMainWindow::eventFilter(watched, event);
}

void MainWindow::resizeEvent(QResizeEvent* event) {
  QMainWindow::resizeEvent(event);
  if (!layoutInitialised_) return;
  // Extra width goes to the map and the plots: the model dock on the left
  // keeps its width (Qt shares the change among the dock areas), once the
  // dock layout has applied the new size.
  QTimer::singleShot(0, this, [this] {
    const bool keepLeft = modelDock_->isVisible() && !modelDock_->isFloating() &&
                          dockWidgetArea(modelDock_) == Qt::LeftDockWidgetArea && modelDockWidth_ > 0;
    const int extra = modelDock_->width() - modelDockWidth_;
    if (keepLeft && extra != 0)
      resizeDocks({modelDock_, attentionDock_}, {modelDockWidth_, attentionDock_->width() + extra},
                  Qt::Horizontal);
    lastWindowSize_ = size();
    modelDockWidth_ = modelDock_->width();
  });
}

MainWindow::~MainWindow() { jobs_->cancelAll(); }

QWidget* MainWindow::buildModelPanel() {
  auto* panel = new QWidget(this);
  auto* layout = new QVBoxLayout(panel);

  auto* modelRow = new QHBoxLayout;
  modelChooser_ = new QComboBox(panel);
  modelChooser_->setObjectName(QStringLiteral("modelChooser"));
  modelChooser_->setToolTip(tr("Recently opened model folders"));
  modelChooser_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  modelChooser_->setMinimumContentsLength(16);
  auto* browse = new QToolButton(panel);
  browse->setText(tr("Open..."));
  browse->setToolTip(tr("Open a Hugging Face model folder (or drop one onto the window)"));
  connect(browse, &QToolButton::clicked, this, &MainWindow::chooseModelFolder);
  connect(modelChooser_, &QComboBox::activated, this, [this](int index) {
    const QString folder = modelChooser_->itemData(index).toString();
    if (!folder.isEmpty()) openModelFolder(folder);
  });
  modelRow->addWidget(modelChooser_, 1);
  modelRow->addWidget(browse);
  layout->addWidget(new QLabel(tr("<b>Model</b>"), panel));
  layout->addLayout(modelRow);

  modelSummary_ = new QLabel(tr("No model open: choose a model folder."), panel);
  modelSummary_->setObjectName(QStringLiteral("modelSummary"));
  modelSummary_->setWordWrap(true);
  layout->addWidget(modelSummary_);

  auto* sentenceRow = new QHBoxLayout;
  sentenceRow->addWidget(new QLabel(tr("<b>Sentence</b>"), panel), 1);
  auto* examples = new QToolButton(panel);
  examples->setText(tr("Examples"));
  examples->setPopupMode(QToolButton::InstantPopup);
  examplesMenu_ = new QMenu(examples);
  // A search box and a short list, not a screen-filling menu; a pick runs.
  auto* picker = new ExamplePicker(example_sentences(), examplesMenu_);
  auto* pickerAction = new QWidgetAction(examplesMenu_);
  pickerAction->setDefaultWidget(picker);
  examplesMenu_->addAction(pickerAction);
  connect(examplesMenu_, &QMenu::aboutToShow, picker, [picker] { picker->searchBox()->setFocus(); });
  connect(picker, &ExamplePicker::picked, this, [this](const QString& sentence) {
    examplesMenu_->close();
    setSentence(sentence);
    runSentence();
  });
  examples->setMenu(examplesMenu_);
  sentenceRow->addWidget(examples);
  layout->addLayout(sentenceRow);

  sentenceBox_ = new QPlainTextEdit(panel);
  sentenceBox_->setObjectName(QStringLiteral("sentenceBox"));
  sentenceBox_->setPlaceholderText(tr("Type a sentence, then Ctrl+Enter"));
  sentenceBox_->setMaximumHeight(110);
  layout->addWidget(sentenceBox_);

  runButton_ = new QPushButton(tr("Run"), panel);
  runButton_->setObjectName(QStringLiteral("runButton"));
  runButton_->setToolTip(tr("Run the sentence (Ctrl+Enter)"));
  connect(runButton_, &QPushButton::clicked, this, &MainWindow::runSentence);
  layout->addWidget(runButton_);
  layout->addStretch(1);
  refreshRecentModels();
  return panel;
}

void MainWindow::buildDocks() {
  modelDock_ =
      dock_make(tr("Model and sentence"), QStringLiteral("modelDock"), buildModelPanel(), this);
  addDockWidget(Qt::LeftDockWidgetArea, modelDock_);

  // The map (or, without OpenGL, its stand-in keeping what it would draw)
  // under a row of display options.
  auto* attentionContent = new QWidget(this);
  auto* column = new QVBoxLayout(attentionContent);
  column->setContentsMargins(0, 0, 0, 0);
  column->setSpacing(0);
  // The classroom mode's key to the map (hidden otherwise).
  presentLegend_ = new QLabel(
      tr("<b><font color='#b2182b'>Red token labels</font></b>: sinks, the tokens that take a large "
         "share of every query's attention whatever they mean. Keys: \u2191 \u2193 layer, "
         "\u2190 \u2192 head, S the strongest sink, N / P the next / previous sentence, Esc leaves."),
      attentionContent);
  presentLegend_->setObjectName(QStringLiteral("presentLegend"));
  presentLegend_->setWordWrap(true);
  presentLegend_->setContentsMargins(8, 4, 8, 4);
  presentLegend_->hide();
  column->addWidget(presentLegend_);
  logScaleBox_ = new QCheckBox(tr("log scale"), attentionContent);
  logScaleBox_->setObjectName(QStringLiteral("logScale"));
  logScaleBox_->setToolTip(
      tr("Colour by log10 of the weight: small weights away from the sink become visible"));
  connect(logScaleBox_, &QCheckBox::toggled, this, &MainWindow::refreshPanels);
  column->addWidget(logScaleBox_);
  if (render::gl_panels_available()) {
    attentionView_ = new render::HeatMapView(this);
    attentionView_->setObjectName(QStringLiteral("attentionView"));
    const QString explanation =
        tr("Attention map: row = query token, column = key token, colour = attention weight: "
           "how much each token (row) takes from each earlier token (column) in the selected "
           "layer and head. Grey cells are future keys a causal model cannot see. A bright "
           "first column is a sink: most tokens dump their attention there whatever it says "
           "(red labels mark sinks: keys that get at least the head's 90th-percentile weight "
           "from at least 30% of all queries). Hover a cell for its weight, click to select that query "
           "and key. Drag to pan, wheel to zoom, 'r' to reset; long inputs are drawn "
           "coarser (each block its strongest cell) until you zoom in.");
    attentionView_->setToolTip(explanation);
    attentionView_->setWhatsThis(explanation);
    column->addWidget(attentionView_, 1);
  } else {
    attentionStandIn_ = new render::FigureStandIn(QStringLiteral("attentionView"), attentionContent);
    column->addWidget(attentionStandIn_, 1);
  }
  attentionDock_ =
      dock_make(tr("Attention map"), QStringLiteral("attentionDock"), attentionContent, this);
  addDockWidget(Qt::RightDockWidgetArea, attentionDock_);

  profileView_ = new render::LinePlotView(this);
  profileView_->setObjectName(QStringLiteral("profileView"));
  profileView_->setToolTip(
      tr("Key importance alpha_k: the mean attention key k receives from the queries that "
         "can see it (Gu et al.'s sink metric). A key is counted as a sink "
         "when alpha_k > eps."));
  profileView_->setWhatsThis(
      tr("How much attention each token receives, on average, from the tokens after it "
         "(alpha_k). The dashed grey curve is what a head that spreads its "
         "attention evenly would give; the red line is the sink threshold eps. A token far "
         "above both, usually the first, is an attention sink."));
  profileDock_ = dock_make(tr("Key importance"), QStringLiteral("profileDock"), profileView_, this);
  // No central widget: every panel is a dock, so every panel can float. The
  // plots sit under the attention map, beside the model dock.
  addDockWidget(Qt::RightDockWidgetArea, profileDock_);
  splitDockWidget(attentionDock_, profileDock_, Qt::Vertical);

  if (attentionView_) {
    connect(attentionView_, &render::HeatMapView::cellHovered, this, [this](int row, int col) {
      // The hovered query and key light up in every panel that shows tokens.
      const auto [query, key] = mapCellInA(row, col);
      selection_->setHighlightedTokens(query < 0 || key < 0 ? QList<int>{} : QList<int>{query, key});
    });
    connect(attentionView_, &render::HeatMapView::cellClicked, this, [this](int row, int col) {
      const auto [query, key] = mapCellInA(row, col);
      if (query < 0 || key < 0) return;  // the gap between two maps, or no token of A
      selection_->setQueryToken(query);
      selection_->setKeyToken(key);
    });
  }

  // The analysis panels: the overview under the model dock, the others
  // tabbed beside the key-importance plot.
  panels_ = new AnalysisPanels(this, selection_, jobs_);
  const auto& docks = panels_->docks();
  addDockWidget(Qt::LeftDockWidgetArea, docks[0]);
  splitDockWidget(modelDock_, docks[0], Qt::Vertical);
  for (std::size_t k = 1; k < docks.size(); ++k) {
    addDockWidget(Qt::RightDockWidgetArea, docks[k]);
    tabifyDockWidget(k == 1 ? profileDock_ : docks[k - 1], docks[k]);
  }
  profileDock_->raise();

  interventionsPanel_ = new InterventionsPanel(selection_, this);
  interventionsDock_ = dock_make(tr("Interventions"), QStringLiteral("interventionsDock"),
                                 interventionsPanel_, this);
  addDockWidget(Qt::LeftDockWidgetArea, interventionsDock_);
  tabifyDockWidget(docks[0], interventionsDock_);
  docks[0]->raise();

  // Docks hidden until their content is opened, then tabbed with the plots.
  auto hiddenTab = [this](const QString& title, const QString& name, QWidget* content,
                          const QString& explanation, QDockWidget* beside) {
    QDockWidget* dock = dock_make(title, name, content, this);
    dock->setWhatsThis(explanation);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    tabifyDockWidget(beside, dock);
    dock->hide();
    return dock;
  };
  studyPanel_ = new StudyPanel(this);
  studyDock_ = hiddenTab(
      tr("Study"), QStringLiteral("studyDock"), studyPanel_,
      tr("A corpus study (sinkscope-cli study): numbers pooled over many sentences, each with "
         "its 95% bootstrap interval. The grid colours every head by a pooled number; the "
         "profiles show per-layer means; click a head to list the sentences where it sinks "
         "hardest, double-click one to run it here with that head selected."),
      docks.back());
  checkpointsPanel_ = new CheckpointsPanel(this);
  checkpointsDock_ = hiddenTab(
      tr("Checkpoints"), QStringLiteral("checkpointsDock"), checkpointsPanel_,
      tr("The checkpoints of a training run (sinkscope-cli train writes them as "
         "checkpoints/step-N): the slider opens each one and every panel follows; the plot "
         "shows the sentence's first-token attention alpha_0 (or its boost, or the sink "
         "rate) per layer against the training step, the grid every head's alpha_0, so you "
         "can see when the sink appears."),
      studyDock_);
  connect(checkpointsPanel_, &CheckpointsPanel::checkpointChosen, this, &MainWindow::openModelFolder);
  connect(checkpointsPanel_, &CheckpointsPanel::emergenceRequested, this, &MainWindow::computeEmergence);
  profileDock_->raise();  // hiding the newest tab would leave its neighbour in front
  connect(studyPanel_, &StudyPanel::headChosen, this, [this](int layer, int head) {
    if (!studyMatchesModel()) return;
    selection_->setLayer(layer);
    selection_->setHead(head);
  });
  connect(studyPanel_, &StudyPanel::sentenceOpened, this, &MainWindow::openStudySentence);
  auto follow = [this] {  // the study's grid follows the selection
    if (studyPanel_->study() && studyMatchesModel() && selection_->head() >= 0)
      studyPanel_->chooseHead(selection_->layer(), selection_->head());
  };
  connect(selection_, &SelectionModel::layerChanged, this, follow);
  connect(selection_, &SelectionModel::headChanged, this, follow);
  connect(this, &MainWindow::runFinished, this, [this] {
    finishSession();
    if (!pendingHead_) return;
    const auto [layer, head] = *pendingHead_;
    pendingHead_.reset();
    // A place the model does not have is said, never clamped silently.
    if (layer >= selection_->layerCount() || head >= selection_->headCount()) {
      QStringList place;
      if (layer >= 0) place << tr("Layer %1").arg(layer);
      if (head != SelectionModel::kAutomatic) place << head_name(head);
      jobStatus_->showError(
          tr("%1: the model has %2 layers of %3 heads (0..%4, 0..%5); the selection stays where "
             "it was")
              .arg(place.join(QStringLiteral(", ")))
              .arg(selection_->layerCount())
              .arg(selection_->headCount())
              .arg(selection_->layerCount() - 1)
              .arg(selection_->headCount() - 1),
          QString());
      return;
    }
    if (layer >= 0) selection_->setLayer(layer);
    if (head != SelectionModel::kAutomatic) selection_->setHead(head);
  });
  connect(selection_, &SelectionModel::interventionsChanged, this, &MainWindow::runInterventions);
  // A model that fails to open before anything is shown leaves the uniform
  // baseline on screen, as with no model at all.
  connect(jobs_, &JobRunner::jobFailed, this, [this](quint64 id, const QString&, const QString& message,
                                                     const QString&) {
    if (id == modelJob_ || id == runJob_) pendingSession_.reset();  // its model or run failed
    // A refused study says why in its own dock, where a later run's clearing
    // of the status bar does not reach.
    if (id == studyJob_) {
      studyPanel_->showRefusal(studyFolder_, message);
      studyDock_->show();
      studyDock_->raise();
    }
    // The baseline only where it can be drawn: a failed baseline would hide
    // the model's error, which is the one the user needs.
    if (id == modelJob_ && !run_ && !model_ && sentence_words(sentence()).size() <= kMaxBaselineWords)
      runSentence();
    // The sentence failed on a newly opened model (too long for it, say): the
    // panels must not go on showing the previous model's run under the new
    // model's name. Show the sentence's uniform baseline;
    // the error stays in the status bar.
    if (id == runJob_ && run_ && run_->model && model_ && run_->model != model_->model.get()) {
      try {
        showRun(sentence_run_baseline(sentence()));
      } catch (const std::exception&) {
        // no word to show: keep what is shown, the error says why
      }
    }
  });
}

bool MainWindow::exportPanel(QWidget* view, const QString& path, int dpi, bool overwrite) {
  render::FigureOptions options;
  options.dpi = dpi;
  return exportPanel(view, path, options, overwrite);
}

bool MainWindow::exportPanel(QWidget* view, const QString& path,
                             const render::FigureOptions& options, bool overwrite) {
  QStringList comments{QStringLiteral("tool: sinkscope ") + QCoreApplication::applicationVersion()};
  if (run_) {
    // The model by its name (a cache snapshot's repository and revision), and its folder.
    comments << QStringLiteral("model: ") + run_->source;
    if (model_)
      comments << QStringLiteral("model_folder: ") +
                      QString::fromStdString(model_->model->folder().string());
    comments << QStringLiteral("text: ") + run_->sentence;
    // The model's identity (config and tokenizer hashes, weight files).
    if (model_) try {
        for (const auto& [k, v] : models::model_identity_header(
                 models::model_identity(model_->model->folder())))
          comments << QString::fromStdString(k + ": " + v);
      } catch (const std::exception&) {
        comments << QStringLiteral("model_config_sha256: unavailable (the folder changed)");
      }
    // The sink reading the red marks used (metrics.md s. 1).
    const analysis::SinkSetParams sinks =
        run_->analysis ? run_->analysis->params.sinks : analysis::SinkSetParams{};
    comments << QStringLiteral(
                    "sink_set: percentile mode, p = %1, gamma = %2 (reading: A >= tau and A > 0); "
                    "frequency over %3 queries")
                    .arg(sinks.percentile)
                    .arg(sinks.gamma)
                    .arg(sinks.denominator == analysis::SinkSetParams::Denominator::AllQueries
                             ? QStringLiteral("all T")
                             : QStringLiteral("the visible"));
  }
  comments << QStringLiteral("selection: layer %1, %2, threshold %3, top-N %4")
                  .arg(selection_->layer())
                  .arg(selection_->headAveraged()
                           ? QStringLiteral("head average")
                           : QStringLiteral("head %1").arg(selection_->head()))
                  .arg(selection_->threshold())
                  .arg(selection_->topN());
  if (comparing_ && selection_->hasCounterpart()) {
    // Where run B was drawn, and how that place was chosen.
    auto how = [](bool pinned, const char* automatic) {
      return pinned ? QStringLiteral("pinned") : QString::fromLatin1(automatic);
    };
    comments << QStringLiteral("compared run %1 at layer %2 (%3), %4 (%5)")
                    .arg(rightName_)
                    .arg(selection_->counterpartLayer())
                    .arg(how(selection_->pinnedCounterpartLayer() != SelectionModel::kAutomatic,
                             "same relative depth"))
                    .arg(head_name(selection_->counterpartHead()))
                    .arg(how(selection_->pinnedCounterpartHead() != SelectionModel::kAutomatic,
                             "the same head when the layers have as many, else the average"));
    if (comparing_->model)
      comments << QStringLiteral("compared_model_folder: ") +
                      QString::fromStdString(comparing_->model->model->folder().string());
  }
  for (const std::string& line : selection_->interventions().describe())
    comments << QStringLiteral("intervention: ") + QString::fromStdString(line);
  return reportExport(path, [&] {
    const std::optional<render::FigurePart> part = render::figure_part(view);
    if (!part) throw std::invalid_argument("export: this panel has nothing to export");
    render::figure_part_export(*part, path, options, comments, overwrite);
  });
}

bool MainWindow::reportExport(const QString& path, const std::function<void()>& write) {
  lastExportError_.clear();
  try {
    write();
  } catch (const std::exception& e) {
    lastExportError_ = QString::fromUtf8(e.what());
    jobStatus_->showError(lastExportError_, lastExportError_);
    return false;
  }
  statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
  return true;
}

void MainWindow::chooseRunTensorsFile() {
  const QString name = QStringLiteral("%1-run.npz").arg(run_ ? run_->source : QStringLiteral("sinkscope"));
  const QString path = QFileDialog::getSaveFileName(this, tr("Export run tensors"),
                                                    QDir::home().filePath(name),
                                                    tr("NumPy NPZ (*.npz)"));
  if (!path.isEmpty()) exportRunTensors(path);
}

void MainWindow::exportRunTensors(const QString& path, bool overwrite) {
  const SentenceRun* shown = shownRun();
  if (!shown || !shown->trace) {
    jobStatus_->showError(tr("Open a model and run a sentence first"), {});
    return;
  }
  QJsonObject params{
      {QStringLiteral("schema_version"), 1},
      {QStringLiteral("tool"), QStringLiteral("sinkscope ") + QCoreApplication::applicationVersion()},
      {QStringLiteral("command"), QStringLiteral("export run tensors")},
      {QStringLiteral("model"), model_ ? QString::fromStdString(model_->model->folder().string())
                                       : shown->source},
      {QStringLiteral("text"), shown->sentence},
      {QStringLiteral("tokens"), shown->tokenCount()},
      {QStringLiteral("layers"), shown->trace->layers()},
      {QStringLiteral("heads"), shown->trace->heads()},
      {QStringLiteral("hidden_size"), shown->trace->hiddenSize()},
      {QStringLiteral("causal"), shown->trace->causal()}};
  if (model_) try {
      for (const auto& [k, v] :
           models::model_identity_header(models::model_identity(model_->model->folder())))
        params.insert(QString::fromStdString(k), QString::fromStdString(v));
    } catch (const std::exception&) {
    }
  QJsonArray interventions;
  if (shown != &*run_)
    for (const std::string& line : selection_->interventions().describe())
      interventions.append(QString::fromStdString(line));
  params.insert(QStringLiteral("interventions"), interventions);
  models::TraceExportOptions options;
  options.overwrite = overwrite;
  options.paramsJson = QJsonDocument(params).toJson(QJsonDocument::Compact).toStdString();
  std::vector<std::string> tokens;
  for (const QString& t : shown->tokens) tokens.push_back(t.toStdString());
  const auto trace = shown->trace;
  const std::string file = path.toStdString();
  jobs_->submit<bool>(
      tr("Export run tensors"),
      [trace, tokens, file, options](const JobProgress&) {
        models::trace_write_npz(*trace, tokens, file, options);
        return true;
      },
      [this, path](bool) { statusBar()->showMessage(tr("Exported %1").arg(path), 5000); });
}

void MainWindow::computeHeadAblation() {
  if (!run_ || !run_->trace || !model_) {
    jobStatus_->showError(tr("Open a model and run a sentence first"), {});
    return;
  }
  const auto trace = run_->trace;
  const models::LoadedModel model = *model_;
  jobs_->submit<std::vector<double>>(
      tr("Head ablation"),
      [trace, model](const JobProgress& progress) {
        try {
          return models::head_ablation_dnll(*model.model, *trace, true, progress);
        } catch (const models::RunCancelled&) {
          throw JobCancelled();
        }
      },
      [this, trace](std::vector<double> dnll) {
        if (!run_ || run_->trace != trace) return;  // a newer run replaced it
        ExperimentResults e = panels_->experiments();
        e.headDnll = std::move(dnll);
        panels_->setExperiments(std::move(e));
        panels_->setScore(HeadScore::Dnll);
        Q_EMIT experimentsFinished();
      },
      QStringLiteral("experiments"));
}

void MainWindow::computeLayerFunction() {
  if (!run_ || !run_->trace || !model_) {
    jobStatus_->showError(tr("Open a model and run a sentence first"), {});
    return;
  }
  const auto trace = run_->trace;
  const models::LoadedModel model = *model_;
  using Result = std::pair<std::vector<double>, std::vector<double>>;
  jobs_->submit<Result>(
      tr("KL and Fisher per layer"),
      [trace, model](const JobProgress& progress) {
        try {
          Result r;
          for (const auto& row : models::kl_sink_removal(*model.model, *trace, {}, progress))
            if (row.scope != "all") r.first.push_back(row.meanKl);
          std::vector<double> fisher(static_cast<std::size_t>(trace->layers()), 0.0);
          for (const auto& f : models::fisher_per_layer(*model.model, trace->ids(), progress))
            if (f.layer >= 0) fisher[static_cast<std::size_t>(f.layer)] = f.perParameter;
          r.second = std::move(fisher);
          return r;
        } catch (const models::RunCancelled&) {
          throw JobCancelled();
        }
      },
      [this, trace](Result r) {
        if (!run_ || run_->trace != trace) return;
        ExperimentResults e = panels_->experiments();
        e.klPerLayer = std::move(r.first);
        e.fisherPerParameter = std::move(r.second);
        panels_->setExperiments(std::move(e));
        Q_EMIT experimentsFinished();
      },
      QStringLiteral("experiments"));
}

const SentenceRun* MainWindow::shownRun() const {
  if (!run_) return nullptr;
  if (intervened_ && comparisonChooser_->comparison() != Comparison::Before) return &*intervened_;
  return &*run_;
}

void MainWindow::showAnalysis() {
  comparisonChooser_->setAvailable(intervened_.has_value());
  const SentenceRun* shown = shownRun();
  panels_->setRunNames(leftName_, rightName_);
  const bool sideBySide =
      intervened_ && comparisonChooser_->comparison() == Comparison::SideBySide;
  // B of a comparison: the panels draw it at the selection's counterpart, A's
  // tokens through the two models' token correspondence.
  panels_->setRun(shown ? std::make_shared<const SentenceRun>(*shown) : nullptr,
                  sideBySide && run_ ? run_->analysis : nullptr,
                  shown ? placeOf(*shown) : ShownPlace(selection_));
}

std::pair<std::vector<analysis::TokenSpan>, std::vector<analysis::TokenSpan>>
MainWindow::comparedTokenSpans() const {
  if (!run_ || !intervened_) return {};
  return {run_->offsets, intervened_->offsets};
}

std::pair<std::vector<int>, std::vector<int>> MainWindow::comparedTokenAlignment() const {
  // Two tokenizers' tokens of one sentence, aligned by the characters they cover.
  const auto [a, b] = comparedTokenSpans();
  if (!run_ || !intervened_) return {};
  // Special tokens (<s>, [CLS]) cover no characters: they pair by string.
  auto strings = [](const QStringList& tokens) {
    std::vector<std::string> out;
    for (const QString& t : tokens) out.push_back(t.toStdString());
    return out;
  };
  const std::vector<std::string> ta = strings(run_->tokens), tb = strings(intervened_->tokens);
  return {analysis::token_alignment(a, b, ta, tb), analysis::token_alignment(b, a, tb, ta)};
}

std::vector<int> MainWindow::comparedTokenCounterparts() const {
  const auto [a, b] = comparedTokenSpans();
  return analysis::token_counterparts(a, b);
}

QString MainWindow::markUnalignedTokens(render::HeatMapData& left, render::HeatMapData& right,
                                     const std::pair<std::vector<int>, std::vector<int>>& alignment) {
  const auto& [aToB, bToA] = alignment;
  auto mark = [](render::HeatMapData& d, const std::vector<int>& aligned) {
    for (std::size_t k = 0; k < aligned.size(); ++k) {
      if (aligned[k] >= 0) continue;
      if (k < d.rowLabels.size()) d.rowLabels[k] += QStringLiteral(" \u2260");
      if (k < d.colLabels.size()) d.colLabels[k] += QStringLiteral(" \u2260");
    }
  };
  mark(left, aToB);
  mark(right, bToA);
  const auto alignedCount = std::count_if(aToB.begin(), aToB.end(), [](int j) { return j >= 0; });
  return tr("%1 of %2 tokens align by their characters (\u2260: not one to one)")
      .arg(alignedCount)
      .arg(aToB.size());
}

void MainWindow::setRunNames(const QString& left, const QString& right) {
  leftName_ = left;
  rightName_ = right;
  if (comparisonChooser_) comparisonChooser_->setRunNames(left, right);
  panels_->setRunNames(left, right);
}

void MainWindow::compareWithSentence(const QString& text) {
  if (text.trimmed().isEmpty()) return;
  selection_->setInterventions({});
  comparing_ = ComparisonSource{text, std::nullopt};
  comparisonChooser_->setComparison(Comparison::SideBySide);
  runComparison();
}

void MainWindow::compareWithModel(const QString& folderOrName) {
  loadModel(folderOrName, tr("Open the compared model"), QStringLiteral("compare"),
            [this](models::LoadedModel loaded) {
              selection_->setInterventions({});
              comparing_ = ComparisonSource{QString(), std::move(loaded)};
              comparisonChooser_->setComparison(Comparison::SideBySide);
              runComparison();
            });
}

void MainWindow::pinComparedRun(int layer, int head) {
  if (!selection_->hasCounterpart()) {
    pendingCounterpart_ = {layer, head};  // for the comparison still running
    return;
  }
  selection_->setCounterpartLayer(layer);
  selection_->setCounterpartHead(head);
}

void MainWindow::stopComparing() {
  if (!comparing_) return;
  comparing_.reset();
  setIntervened(std::nullopt);
  selection_->setCounterpartBounds(0, 0);
  setRunNames(tr("before"), tr("after"));
  refreshPanels();
  showAnalysis();
}

void MainWindow::chooseComparisonSentence() {
  bool ok = false;
  const QString text = QInputDialog::getMultiLineText(
      this, tr("Compare with another sentence"),
      tr("Sentence B (shown beside the current one, A, in every panel):"), QString(), &ok);
  if (ok) compareWithSentence(text);
}

void MainWindow::chooseComparisonModel() {
  QStringList names;
  QStringList opens;
  for (int k = 0; k < modelChooser_->count(); ++k)
    if (!modelChooser_->itemData(k).toString().isEmpty()) {
      names << modelChooser_->itemText(k);
      opens << modelChooser_->itemData(k).toString();
    }
  // The open training run's checkpoints: compare two points of training.
  for (const models::Checkpoint& step : checkpointsPanel_->checkpoints()) {
    names << QString::fromStdString(models::model_display_name(step.folder));
    opens << QString::fromStdString(step.folder.string());
  }
  names << tr("Another folder...");
  bool ok = false;
  const QString chosen = QInputDialog::getItem(
      this, tr("Compare with another model"),
      tr("Model B (the sentence runs on both; another shape is compared layer by relative depth):"), names, 0, false, &ok);
  if (!ok) return;
  const qsizetype at = names.indexOf(chosen);
  if (at >= 0 && at < opens.size()) {
    compareWithModel(opens[at]);
    return;
  }
  const QString folder = QFileDialog::getExistingDirectory(this, tr("Model B: a Hugging Face model folder"));
  if (!folder.isEmpty()) compareWithModel(folder);
}

void MainWindow::runComparison() {
  if (!run_ || !comparing_) return;
  if (!run_->trace || !model_) {
    jobStatus_->showError(tr("Compare: open a model first"), QString());
    comparing_.reset();
    return;
  }
  const bool otherModel = comparing_->model.has_value();
  setRunNames(otherModel ? QString::fromStdString(models::model_display_name(model_->model->folder()))
                         : tr("A"),
              otherModel ? QString::fromStdString(models::model_display_name(comparing_->model->model->folder()))
                         : tr("B"));
  const models::LoadedModel model = otherModel ? *comparing_->model : *model_;
  const QString text = otherModel ? run_->sentence : comparing_->sentence;
  const std::shared_ptr<const models::Trace> base = run_->trace;
  jobs_->submit<SentenceRun>(
      otherModel ? tr("Run the sentence on the compared model") : tr("Run the compared sentence"),
      [model, text](const JobProgress& progress) {
        SentenceRun run = sentence_run_model(model, text, progress);
        run.analysis = run_analysis_compute(*run.trace, progress);
        return run;
      },
      [this, base](SentenceRun b) {
        if (!run_ || run_->trace != base || !comparing_) return;  // a newer run, or stopped
        QString shape;
        if (b.trace->layers() != base->layers() || b.trace->heads() != base->heads())
          shape = tr(" (%1 x %2 heads against %3 x %4: B's layer at the same relative depth, "
                     "B's head average unless the layers have as many heads; pin B's layer and head "
                     "in the selection bar)")
                      .arg(base->layers())
                      .arg(base->heads())
                      .arg(b.trace->layers())
                      .arg(b.trace->heads());
        statusBar()->showMessage(tr("Comparing %1: \"%2\" with %3: \"%4\"%5")
                                     .arg(leftName_, run_->sentence, rightName_, b.sentence, shape),
                                 10000);
        selection_->setCounterpartBounds(b.trace->layers(), b.trace->heads());
        if (pendingCounterpart_) {  // a session's pinned place in B
          selection_->setCounterpartLayer(pendingCounterpart_->first);
          selection_->setCounterpartHead(pendingCounterpart_->second);
          pendingCounterpart_.reset();
        }
        setIntervened(std::move(b));
        // Two tokenizers: where each token of A lands in B, once per pair of runs.
        comparedTokens_ = comparing_->model ? comparedTokenCounterparts() : std::vector<int>{};
        refreshPanels();
        showAnalysis();
        Q_EMIT comparisonFinished();
      },
      QStringLiteral("interventions"));
}

void MainWindow::runInterventions() {
  if (comparing_ && selection_->interventions().empty()) {
    runComparison();  // a new sentence: its B again
    return;
  }
  if (comparing_) {  // interventions end a comparison
    comparing_.reset();
    selection_->setCounterpartBounds(0, 0);
    setRunNames(tr("before"), tr("after"));
  }
  const models::Intervention list = selection_->interventions();
  if (list.empty() || !run_ || !run_->trace || !model_) {
    const bool had = intervened_.has_value();
    setIntervened(std::nullopt);
    if (had) {
      refreshPanels();
      showAnalysis();
    }
    return;
  }
  const SentenceRun base = *run_;
  const models::LoadedModel model = *model_;
  jobs_->submit<SentenceRun>(
      tr("Run interventions"),
      [base, model, list](const JobProgress& progress) {
        job_check(progress, 0.0);
        return sentence_run_intervened(model, base, list, progress);
      },
      [this](SentenceRun after) {
        setIntervened(std::move(after));
        refreshPanels();
        showAnalysis();
        Q_EMIT interventionsFinished();
      },
      QStringLiteral("interventions"));
}

void MainWindow::buildActions() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open =
      file->addAction(tr("&Open model folder..."), this, &MainWindow::chooseModelFolder);
  open->setShortcut(QKeySequence::Open);
  recentMenu_ = file->addMenu(tr("Recent models"));
  file->addSeparator();
  QAction* exportAction =
      file->addAction(tr("&Export panel..."), this, &MainWindow::exportFocusedPanel);
  exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  file->addAction(tr("Export &figure of several panels..."), this, &MainWindow::chooseFigureViews);
  file->addAction(tr("Export run &tensors (NPZ)..."), this, &MainWindow::chooseRunTensorsFile);
  file->addSeparator();
  QAction* saveSessionAction =
      file->addAction(tr("&Save session..."), this, &MainWindow::chooseSessionToSave);
  saveSessionAction->setShortcut(QKeySequence::Save);
  file->addAction(tr("Open s&ession..."), this, &MainWindow::chooseSessionToOpen);
  recentSessionsMenu_ = file->addMenu(tr("Recent sessions"));
  refreshRecentSessions();
  QAction* restoreOnLaunch = file->addAction(tr("Restore the last session on launch"));
  restoreOnLaunch->setObjectName(QStringLiteral("restoreOnLaunch"));
  restoreOnLaunch->setCheckable(true);
  restoreOnLaunch->setChecked(QSettings().value(QStringLiteral("sessions/restoreOnLaunch"), true).toBool());
  connect(restoreOnLaunch, &QAction::toggled, this, [](bool on) {
    QSettings().setValue(QStringLiteral("sessions/restoreOnLaunch"), on);
  });
  file->addSeparator();
  file->addAction(tr("Open &study..."), this, &MainWindow::chooseStudyFolder);
  file->addAction(tr("Open training &checkpoints..."), this, &MainWindow::chooseCheckpointsFolder);
  // The built-in model ships its own training run: the sink's emergence, one click away.
  modelTrainingAction_ =
      file->addAction(tr("Open this model's &training"), this, &MainWindow::openModelTraining);
  modelTrainingAction_->setObjectName(QStringLiteral("modelTrainingAction"));
  modelTrainingAction_->setEnabled(false);
  modelTrainingAction_->setToolTip(
      tr("The checkpoints the open model was trained through (its checkpoints/ folder): the "
         "slider steps through them and the plot shows the sink emerging"));
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  QAction* runAction = run->addAction(tr("&Run sentence"), this, &MainWindow::runSentence);
  runAction->setObjectName(QStringLiteral("runAction"));
  runAction->setShortcuts(
      {QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)});
  run->addSeparator();
  run->addAction(tr("Compare with another &sentence..."), this, &MainWindow::chooseComparisonSentence);
  run->addAction(tr("Compare with another &model..."), this, &MainWindow::chooseComparisonModel);
  run->addAction(tr("S&top comparing"), this, &MainWindow::stopComparing);
  comparisonChooser_ = new ComparisonChooser(selectionBar_, run->addMenu(tr("Show compared r&uns")));
  comparisonChooser_->placeIn(selectionBar_);
  comparisonChooser_->setRunNames(leftName_, rightName_);
  connect(comparisonChooser_, &ComparisonChooser::comparisonChanged, this, [this] {
    refreshPanels();
    showAnalysis();
  });
  run->addSeparator();
  run->addAction(tr("Next demonstration sentence\tN"), this, [this] { stepDemonstration(+1); });
  run->addAction(tr("Previous demonstration sentence\tP"), this, [this] { stepDemonstration(-1); });
  run->addSeparator();
  cancelAction_ = run->addAction(tr("&Cancel all jobs"), jobs_, &JobRunner::cancelAll);
  cancelAction_->setShortcut(QKeySequence(Qt::Key_Escape));

  QMenu* experiments = menuBar()->addMenu(tr("E&xperiments"));
  experiments->addAction(tr("Head ablation: dNLL of every head"), this,
                         &MainWindow::computeHeadAblation);
  experiments->addAction(tr("KL after sink removal and Fisher trace per layer"), this,
                         &MainWindow::computeLayerFunction);

  // Navigation commands. Their keys (arrows, A, S, N, P, Home/End) reach the window
  // only when no text field has focus; see keyPressEvent.
  QMenu* nav = menuBar()->addMenu(tr("&Navigate"));
  nav->addAction(tr("Previous layer\tUp"), this, [this] { selection_->stepLayer(-1); });
  nav->addAction(tr("Next layer\tDown"), this, [this] { selection_->stepLayer(+1); });
  nav->addAction(tr("Previous head\tLeft"), this, [this] { selection_->stepHead(-1); });
  nav->addAction(tr("Next head\tRight"), this, [this] { selection_->stepHead(+1); });
  nav->addAction(tr("Head with the strongest sink\tS"), this, &MainWindow::goToStrongestSink);
  nav->addAction(tr("Head average\tA"), this,
                 [this] { selection_->setHead(SelectionModel::kHeadAverage); });
  nav->addAction(tr("First query token\tHome"), this, [this] { selection_->setQueryToken(0); });
  nav->addAction(tr("Last query token\tEnd"), this,
                 [this] { selection_->setQueryToken(selection_->tokenCount() - 1); });

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* dock : {modelDock_, attentionDock_, profileDock_})
    view->addAction(dock->toggleViewAction());
  for (QDockWidget* dock : panels_->docks()) view->addAction(dock->toggleViewAction());
  view->addAction(interventionsDock_->toggleViewAction());
  view->addAction(studyDock_->toggleViewAction());
  view->addAction(checkpointsDock_->toggleViewAction());
  view->addAction(selectionBar_->toggleViewAction());
  view->addSeparator();
  presentAction_ = view->addAction(tr("&Present (classroom mode)"));
  presentAction_->setObjectName(QStringLiteral("presentAction"));
  presentAction_->setCheckable(true);
  presentAction_->setShortcut(QKeySequence(Qt::Key_F5));
  connect(presentAction_, &QAction::triggered, this, [this](bool on) { setPresenting(on); });
  view->addAction(tr("&Reset layout"), this, &MainWindow::resetLayout);

  // Every panel carries a plain-words "what am I looking at" text.
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* whatsThis = QWhatsThis::createAction(this);
  whatsThis->setText(tr("What am I looking at? (then click a panel)"));
  help->addAction(whatsThis);
}

void MainWindow::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
    case Qt::Key_Up:
      selection_->stepLayer(-1);
      break;
    case Qt::Key_Down:
      selection_->stepLayer(+1);
      break;
    case Qt::Key_Left:
      selection_->stepHead(-1);
      break;
    case Qt::Key_Right:
      selection_->stepHead(+1);
      break;
    case Qt::Key_A:
      selection_->setHead(SelectionModel::kHeadAverage);
      break;
    case Qt::Key_S:
      goToStrongestSink();
      break;
    case Qt::Key_N:
      stepDemonstration(+1);
      break;
    case Qt::Key_P:
      stepDemonstration(-1);
      break;
    case Qt::Key_Home:
      selection_->setQueryToken(0);
      break;
    case Qt::Key_End:
      selection_->setQueryToken(selection_->tokenCount() - 1);
      break;
    default:
      QMainWindow::keyPressEvent(event);
      return;
  }
  event->accept();
}

void MainWindow::buildStatusBar() {
  modelStatus_ = new QLabel(tr("no model"), this);
  tokenStatus_ = new QLabel(tr("T = 0"), this);
  tokenStatus_->setObjectName(QStringLiteral("tokenStatus"));
  deviceStatus_ = new QLabel(this);
  deviceStatus_->setObjectName(QStringLiteral("deviceStatus"));
  try {
    const models::RuntimeInfo info = models::runtime_info_query();
    deviceStatus_->setText(QString::fromStdString(models::runtime_device_label(info)));
    deviceStatus_->setToolTip(tr("libtorch %1").arg(QString::fromStdString(info.torch_version)));
  } catch (const std::exception& e) {
    deviceStatus_->setText(tr("device unknown"));
    deviceStatus_->setToolTip(QString::fromUtf8(e.what()));
  }
  interventionStatus_ = new QLabel(this);
  interventionStatus_->setObjectName(QStringLiteral("interventionStatus"));
  jobStatus_ = new JobStatus(jobs_, this);
  // All on the right, never hidden: the bar's messages (a comparison's
  // sentences, a warning) take the left and are not drawn over them.
  statusBar()->addPermanentWidget(modelStatus_);
  statusBar()->addPermanentWidget(tokenStatus_);
  statusBar()->addPermanentWidget(deviceStatus_);
  statusBar()->addPermanentWidget(interventionStatus_);
  statusBar()->addPermanentWidget(jobStatus_);
  updateInterventionsLabel();
}

void MainWindow::updateInterventionsLabel() {
  QStringList labels;
  for (const std::string& label : selection_->interventions().labels())
    labels << QString::fromStdString(label);
  interventionStatus_->setText(labels.isEmpty()
                                   ? tr("no interventions")
                                   : tr("interventions: %1").arg(labels.join(tr("; "))));
}

QString MainWindow::sentence() const { return sentenceBox_->toPlainText(); }

void MainWindow::setSentence(const QString& text) { sentenceBox_->setPlainText(text); }

void MainWindow::runSentence() {
  const QString text = sentence();
  jobStatus_->clearError();
  jobs_->cancelGroup(QStringLiteral("analysis"));  // of the run this one replaces
  std::optional<models::LoadedModel> model = model_;
  runJob_ = jobs_->submit<SentenceRun>(
      tr("Run sentence"),
      [text, model](const JobProgress& progress) {
        job_check(progress, 0.0);
        SentenceRun run =
            model ? sentence_run_model(*model, text, progress) : sentence_run_baseline(text);
        job_check(progress, 1.0);
        return run;
      },
      [this](SentenceRun run) { showRun(std::move(run)); }, QStringLiteral("run"));
}

void MainWindow::showRun(SentenceRun run) {
  panels_->setExperiments({});  // they belonged to the previous run
  run_ = std::move(run);
  const int T = run_->tokenCount();
  // Beyond the trained context a model's sink may vanish: say so where T is
  // shown (it stays) and in the status bar.
  const bool beyond = !run_->beyondTrainedContext.isEmpty();
  tokenStatus_->setText(beyond ? tr("T = %1 (beyond the trained context)").arg(T) : tr("T = %1").arg(T));
  tokenStatus_->setStyleSheet(beyond ? QStringLiteral("color: #b35806; font-weight: bold;") : QString());
  tokenStatus_->setToolTip(beyond ? run_->beyondTrainedContext : QString());
  if (beyond) statusBar()->showMessage(run_->beyondTrainedContext, 20000);
  const int layers = run_->trace ? run_->trace->layers() : 1;
  const int heads = run_->trace ? run_->trace->heads() : 1;
  selection_->setBounds(layers, heads, T);
  setIntervened(std::nullopt);
  refreshPanels();
  showAnalysis();
  runInterventions();
  Q_EMIT runFinished();
  analyseRun();
}

void MainWindow::analyseRun() {
  if (!run_ || !run_->trace || run_->analysis) return;
  const std::shared_ptr<const models::Trace> trace = run_->trace;
  jobs_->submit<std::shared_ptr<const TraceAnalysis>>(
      tr("Analyse every head"),
      [trace](const JobProgress& progress) { return run_analysis_compute(*trace, progress); },
      [this, trace](std::shared_ptr<const TraceAnalysis> analysis) {
        if (!run_ || run_->trace != trace) return;  // a newer run is shown
        run_->analysis = std::move(analysis);
        refreshPanels();  // the map marks the sinks now
        showAnalysis();
        Q_EMIT analysisFinished();
      },
      QStringLiteral("analysis"));
}

void MainWindow::chooseModelFolder() {
  const QString folder = QFileDialog::getExistingDirectory(
      this, tr("Open a Hugging Face model folder"),
      model_ ? QString::fromStdString(model_->model->folder().string()) : QDir::homePath());
  if (!folder.isEmpty()) openModelFolder(folder);
}

void MainWindow::openModelFolder(const QString& folderOrName) {
  modelJob_ = loadModel(folderOrName, tr("Open model"), QStringLiteral("model"),
                        [this](models::LoadedModel loaded) { showModel(std::move(loaded)); });
}

quint64 MainWindow::loadModel(const QString& folderOrName, const QString& jobName, const QString& group,
                            std::function<void(models::LoadedModel)> onLoaded) {
  jobStatus_->clearError();
  const std::string spec =
      folderOrName.contains(QLatin1Char('/')) && QFileInfo(folderOrName).isDir()
          ? QDir::cleanPath(folderOrName).toStdString()
          : folderOrName.toStdString();
  models::LoadOptions options;
  options.device = device_.toStdString();
  options.precision = precision_;
  // Every file read of the load happens in the job (a hostile folder can make
  // reads slow, never the GUI); Cancel stops it between weight tensors.
  return jobs_->submit<models::LoadedModel>(
      jobName,
      [spec, options](const JobProgress& progress) {
        models::LoadOptions withProgress = options;
        withProgress.progress = [&progress](double f) { return progress(0.95 * f); };
        try {
          return models::loaded_model_open(spec, withProgress);
        } catch (const models::RunCancelled&) {
          throw JobCancelled();
        }
      },
      std::move(onLoaded), group);
}

void MainWindow::showModel(models::LoadedModel loaded) {
  model_ = std::move(loaded);
  const models::ModelConfig& c = model_->model->config();
  const QString folder = QString::fromStdString(model_->model->folder().string());
  // A training checkpoint visited with the slider is not a model the user opened.
  if (!checkpointsPanel_ || !checkpointsPanel_->isIntermediateStep(model_->model->folder())) {
    RecentModels().remember(QString::fromStdString(model_->name));
    refreshRecentModels();
  }
  const QString name = QString::fromStdString(models::model_display_name(model_->model->folder()));
  const QString type = QString::fromStdString(c.model_type);
  modelStatus_->setText(tr("model: %1 (%2)").arg(name, type));
  modelSummary_->setText(
      tr("%1: %2, %3 layers x %4 heads (%5 KV), hidden %6, %7 M parameters; tokenizer: %8")
          .arg(name, type)
          .arg(c.num_layers)
          .arg(c.num_heads)
          .arg(c.num_kv_heads)
          .arg(c.hidden_size)
          .arg(static_cast<double>(model_->model->parameterCount()) / 1e6, 0, 'f', 2)
          .arg(model_->tokenizer ? QString::fromStdString(model_->tokenizer->kind()) : tr("none")));
  // Only a run's final model offers its training (a visited step is inside it).
  const bool intermediate =
      checkpointsPanel_ && checkpointsPanel_->isIntermediateStep(model_->model->folder());
  if (!intermediate)
    modelTrainingAction_->setEnabled(
        models::training_checkpoints(model_->model->folder()).steps.size() > 1);
  Q_EMIT modelOpened(folder);
  runSentence();  // show the new model on the current sentence
}

void MainWindow::openModelTraining() {
  if (model_) openCheckpoints(QString::fromStdString(model_->model->folder().string()));
}

void MainWindow::openCheckpoints(const QString& folder) {
  if (!showCheckpoints(folder)) {
    const QString message =
        tr("%1: no checkpoints (step-N folders with a config.json, in the folder or its "
           "checkpoints/ folder)")
            .arg(folder);
    jobStatus_->showError(message, message);
    return;
  }
  // Every panel shows the last checkpoint.
  openModelFolder(QString::fromStdString(checkpointsPanel_->checkpoints().back().folder.string()));
}

bool MainWindow::showCheckpoints(const QString& folder) {
  models::CheckpointList steps = models::training_checkpoints(folder.toStdString());
  if (steps.steps.empty()) return false;
  checkpointsFolder_ = folder;
  checkpointsPanel_->setCheckpoints(folder, std::move(steps));
  checkpointsDock_->show();
  checkpointsDock_->raise();
  computeEmergence();
  return true;
}

void MainWindow::chooseCheckpointsFolder() {
  const QString folder = QFileDialog::getExistingDirectory(
      this, tr("Open training checkpoints (the train --out folder, or its checkpoints/)"));
  if (!folder.isEmpty()) openCheckpoints(folder);
}

void MainWindow::computeEmergence() {
  const std::vector<models::Checkpoint> steps = checkpointsPanel_->checkpoints();
  const QString text = sentence();
  if (steps.empty() || text.trimmed().isEmpty()) return;
  jobs_->submit<CheckpointAlpha0>(
      tr("Sink emergence over %1 checkpoints").arg(steps.size()),
      [steps, text = text.toStdString()](const JobProgress& progress) {
        try {
          return checkpoint_alpha0(steps, text, progress);
        } catch (const models::RunCancelled&) {
          throw JobCancelled();
        }
      },
      [this, steps, text](CheckpointAlpha0 alpha0) {
        if (steps.size() != checkpointsPanel_->checkpoints().size()) return;  // another run opened since
        checkpointsPanel_->setEmergence(alpha0, text);
        Q_EMIT emergenceFinished();
      },
      QStringLiteral("emergence"));
}

void MainWindow::chooseStudyFolder() {
  const QString folder = QFileDialog::getExistingDirectory(
      this, tr("Open study (a folder with study.json and merged/)"));
  if (!folder.isEmpty()) openStudy(folder);
}

void MainWindow::openStudy(const QString& folder) {
  jobStatus_->clearError();
  const std::filesystem::path path = folder.toStdString();
  studyFolder_ = folder;
  studyJob_ = jobs_->submit<StudyTables>(
      tr("Open study"), [path](const JobProgress&) { return document::study_tables_read(path); },
      [this, folder](StudyTables study) {
        showStudy(std::move(study));
        Q_EMIT studyOpened(folder);
      },
      QStringLiteral("study"));
}

bool MainWindow::studyMatchesModel() const {
  const auto& study = studyPanel_->study();
  return study && model_ && model_->model->config().num_layers == study->layers &&
         model_->model->config().num_heads == study->heads;
}

void MainWindow::showStudy(StudyTables study) {
  studyPanel_->setStudy(std::move(study));
  if (studyMatchesModel() && selection_->head() >= 0)
    studyPanel_->chooseHead(selection_->layer(), selection_->head());
  const bool wasHidden = studyDock_->isHidden();
  studyDock_->show();
  studyDock_->raise();
  // The study's tables and plots would take the map's height: the two share
  // the column evenly once the dock has its size.
  if (wasHidden)
    QTimer::singleShot(0, this, [this] {
      const int both = attentionDock_->height() + studyDock_->height();
      resizeDocks({attentionDock_, studyDock_}, {both / 2, both - both / 2}, Qt::Vertical);
    });
}

void MainWindow::selectAfterNextRun(int layer, int head) { pendingHead_ = std::make_pair(layer, head); }

void MainWindow::openStudySentence(const QString& text, int layer, int head) {
  const auto& study = studyPanel_->study();
  if (!study) return;
  pendingHead_ = std::make_pair(layer, head);
  setSentence(text);
  // The study's model, unless it is the one open: its folder when it still
  // exists, else the name it was given (a cache name).
  const std::filesystem::path folder = study->modelFolder;
  std::error_code ec;
  const bool same = model_ && (model_->model->folder() == folder || model_->name == study->model);
  if (same) {
    runSentence();
  } else {
    openModelFolder(std::filesystem::is_directory(folder, ec)
                        ? QString::fromStdString(folder.string())
                        : QString::fromStdString(study->model));
  }
}

void MainWindow::setBuiltinModelsDir(const QString& dir) {
  builtinDir_ = dir;
  refreshRecentModels();
}

void MainWindow::refreshRecentModels() {
  const QStringList recent = RecentModels().load();
  if (modelChooser_) {
    const QSignalBlocker block(modelChooser_);
    modelChooser_->clear();
    const auto cached = models::hf_cache_models();
    if (recent.isEmpty() && cached.empty())
      modelChooser_->addItem(tr("(no recent models)"), QString());
    // Each entry: its name (a cache snapshot's repository and revision), family and size.
    auto add = [this](const QString& name, const QString& open, const std::filesystem::path& folder) {
      const models::ModelFolderSummary s = models::model_folder_summary(folder);
      modelChooser_->addItem(tr("%1 \u2014 %2, %3")
                                 .arg(name, QString::fromStdString(s.family),
                                      QString::fromStdString(models::byte_size_text(s.weightBytes))),
                             open);
      modelChooser_->setItemData(modelChooser_->count() - 1, QString::fromStdString(folder.string()),
                                 Qt::ToolTipRole);
    };
    for (const QString& folder : recent) {
      std::error_code ec;
      std::filesystem::path path;
      try {
        path = models::model_location_resolve(folder.toStdString());
      } catch (const std::exception&) {
        path = folder.toStdString();  // gone: listed by its name, the open says why
      }
      add(std::filesystem::is_directory(path, ec)
              ? QString::fromStdString(models::model_display_name(path))
              : QFileInfo(folder).fileName(),
          folder, path);
    }
    // SinkScope's built-in models.
    if (!builtinDir_.isEmpty()) {
      const QStringList builtins =
          QDir(builtinDir_).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
      for (const QString& b : builtins) {
        const QString folder = QDir(builtinDir_).filePath(b);
        if (recent.contains(folder) ||
            !QFileInfo::exists(QDir(folder).filePath(QStringLiteral("config.json"))))
          continue;
        add(tr("%1 (built-in)").arg(b), folder, folder.toStdString());
      }
    }
    // Models in the Hugging Face cache, by their org/name.
    if (!cached.empty() && !recent.isEmpty())
      modelChooser_->insertSeparator(modelChooser_->count());
    for (const auto& m : cached) {
      const QString name = QString::fromStdString(m.name);
      if (recent.contains(name)) continue;
      add(tr("%1 (cache)").arg(QString::fromStdString(models::model_display_name(m.folder))), name,
          m.folder);
    }
  }
  if (recentMenu_) {
    recentMenu_->clear();
    for (const QString& folder : recent)
      recentMenu_->addAction(folder, this, [this, folder] { openModelFolder(folder); });
    recentMenu_->setEnabled(!recent.isEmpty());
  }
}

std::pair<int, int> MainWindow::mapCellInA(int row, int col) const {
  const render::HeatMapData& map = attentionView_->data();
  if (!intervened_) return {row, col};
  const bool ofB = map.sideBySideSplit >= 0 ? col > map.sideBySideSplit : shownRun() == &*intervened_;
  col = render::heat_map_own_column(map, col);
  if (row < 0 || col < 0) return {-1, -1};  // the gap
  if (!ofB) return {row, col};
  // B's tokens: the first token of A landing on each.
  const ShownPlace b = placeOf(*intervened_);
  const QList<int> queries = b.tokensOfA(row), keys = b.tokensOfA(col);
  return {queries.isEmpty() ? -1 : queries.front(), keys.isEmpty() ? -1 : keys.front()};
}

const std::vector<int>& MainWindow::comparedModelTokens() const {
  static const std::vector<int> none;
  return comparing_ && comparing_->model && intervened_ ? comparedTokens_ : none;
}

ShownPlace MainWindow::placeOf(const SentenceRun& run) const {
  if (comparing_ && intervened_ && &run == &*intervened_)
    return ShownPlace(selection_, run.tokenCount(), comparedModelTokens());
  // Without its first token the run's tokens are A's shifted by one: the
  // selection follows its token, not its position.
  if (intervened_ && &run == &*intervened_)
    if (const auto dropped = droppedFirstAlignment())
      return ShownPlace(selection_, run.tokenCount(), dropped->first, true);
  return ShownPlace(selection_);
}

void MainWindow::setIntervened(std::optional<SentenceRun> run) {
  intervened_ = std::move(run);
  droppedFirst_ = computeDroppedFirstAlignment();
}

std::optional<std::pair<std::vector<int>, std::vector<int>>>
MainWindow::computeDroppedFirstAlignment() const {
  if (comparing_ || !run_ || !intervened_ || intervened_->tokenCount() != run_->tokenCount() - 1)
    return std::nullopt;
  if (!selection_->interventions().dropFirstToken) return std::nullopt;
  std::vector<int> aToB(static_cast<std::size_t>(run_->tokenCount())), bToA(static_cast<std::size_t>(intervened_->tokenCount()));
  for (std::size_t k = 0; k < aToB.size(); ++k) aToB[k] = static_cast<int>(k) - 1;
  for (std::size_t j = 0; j < bToA.size(); ++j) bToA[j] = static_cast<int>(j) + 1;
  return std::pair{std::move(aToB), std::move(bToA)};
}

render::HeatMapData MainWindow::attentionMapData(const SentenceRun& shown, const ShownPlace& place,
                                                 const analysis::AttentionMatrix& map,
                                                 const SentenceRun* subtract) const {
  const int T = shown.tokenCount();
  const int layer = place.layer(), headIndex = place.head();
  const QString head = head_name(headIndex);
  const QString what =
      shown.trace ? tr("%1 tokens").arg(T) : tr("uniform causal baseline over %1 words").arg(T);
  render::HeatMapData data;
  data.rows = data.cols = T;
  data.values = map.weights;
  if (subtract) {
    const analysis::AttentionMatrix before = subtract->attention(selection_->layer(), selection_->head());
    for (std::size_t k = 0; k < data.values.size(); ++k) data.values[k] -= before.weights[k];
  }
  data.hidden.resize(data.values.size());
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j)
      data.hidden[static_cast<std::size_t>(i) * T + j] = map.causal && j > i;
  data.title = tr("%1 | layer %2, %3 | %4").arg(shown.source).arg(layer).arg(head, what);
  if (!shown.beyondTrainedContext.isEmpty()) data.title += tr(" (beyond the trained context)");
  if (subtract) data.title += tr(" | difference to the plain run");
  for (int t = 0; t < T; ++t) {
    // Index and display string, so repeated tokens stay distinguishable.
    const QString label = QStringLiteral("%1 %2").arg(t).arg(shown.tokens[t]);
    data.rowLabels.push_back(label);
    data.colLabels.push_back(label);
  }
  data.quantity = subtract ? tr("attention %1 - %2").arg(rightName_, leftName_) : tr("attention weight");
  data.rowTitle = tr("query");
  data.colTitle = tr("key");
  // The selected cell (query, key) is framed where the user clicked it.
  if (place.queryToken() >= 0 && place.keyToken() >= 0)
    data.outlineRow = place.queryToken(), data.outlineCol = place.keyToken();
  data.fixedRange = !subtract;
  data.diverging = subtract != nullptr;
  data.logScale = !subtract && logScaleBox_ && logScaleBox_->isChecked();
  // Sinks of the shown head (metrics.md s. 1) have red column labels.
  if (shown.analysis && !subtract)
    data.markedCols = shown.analysis->at(layer, headIndex).sinks.keys();
  // Highlights are A's tokens; on B of another tokenizer, where they land.
  for (int t : selection_->highlightedTokens())
    if (place.token(t) >= 0) data.highlighted.push_back(place.token(t));
  // A highlighted edge {a, b} frames its map cells (a, b) and (b, a).
  for (const auto& [a, b] : place.highlightedEdges())
    data.framedCells.insert(data.framedCells.end(), {{a, b}, {b, a}});
  data.rangeMin = 0.0;
  data.rangeMax = 1.0;
  // Long inputs: on a 0..1 scale almost every weight is near 0 and the map is
  // uniformly dark. Clip the linear scale at the 99th percentile of the
  // visible weights (the sink's larger weights share the top colour) and say
  // so. The log scale box shows the whole range instead.
  if (!subtract && !data.logScale && T > kClippedScaleFrom) {
    std::vector<float> visible;
    for (std::size_t k = 0; k < data.values.size(); ++k)
      if (!data.hidden[k]) visible.push_back(data.values[k]);
    if (!visible.empty()) {
      const auto at = visible.begin() + static_cast<std::ptrdiff_t>(0.99 * (visible.size() - 1));
      std::nth_element(visible.begin(), at, visible.end());
      const double top = std::clamp(static_cast<double>(*at), 1e-4, 1.0);
      if (top < 1.0) {
        data.rangeMax = top;
        data.quantity = tr("attention weight (clipped at %1)").arg(top, 0, 'g', 2);
        data.title += tr(" | linear scale clipped at the 99th percentile, %1").arg(top, 0, 'g', 2);
      }
    }
  }
  return data;
}

render::LineSeries MainWindow::keyImportanceSeries(const SentenceRun& run,
                                                   const analysis::AttentionMatrix& map,
                                                   const QString& name) const {
  render::LineSeries alpha{name, {}, analysis::sink_key_importance(map.view()), false};
  for (int k = 0; k < run.tokenCount(); ++k) {
    alpha.x.push_back(k);
    alpha.labels.push_back(run.tokens.value(k));  // the CSV names each key's token
  }
  return alpha;
}

void MainWindow::refreshPanels() {
  if (!run_) return;
  const SentenceRun& shown = *shownRun();
  const Comparison comparison = comparisonChooser_->comparison();
  // A difference needs the same tokens in both runs (not just as many).
  const bool difference = intervened_ && comparison == Comparison::Difference &&
                          intervened_->tokens == run_->tokens;
  const bool sideBySide = intervened_ && comparison == Comparison::SideBySide;
  // Two models side by side: their tokens matched by characters, once per refresh.
  const bool comparingModels = sideBySide && comparing_ && comparing_->model;
  // Without its first token, the intervened run's tokens are A's shifted by one.
  const auto dropped = sideBySide ? droppedFirstAlignment() : std::nullopt;
  const bool byToken = comparingModels || dropped.has_value();
  const auto alignment = dropped ? *dropped : comparingModels ? comparedTokenAlignment()
                                         : std::pair<std::vector<int>, std::vector<int>>{};
  const int T = shown.tokenCount();
  // B of a comparison is drawn at the selection's counterpart (another shape: the same relative depth).
  const ShownPlace place = placeOf(shown);
  const int layer = place.layer();
  const QString head = head_name(place.head());
  analysis::AttentionMatrix map, before;
  try {
    map = shown.attention(layer, place.head());
    if (sideBySide) before = run_->attention(selection_->layer(), selection_->head());
  } catch (const std::exception& e) {
    jobStatus_->showError(QString::fromUtf8(e.what()), QString::fromUtf8(e.what()));
    return;
  }
  // A difference needs the same tokens in both runs: say so instead of
  // silently showing the "after" map.
  const bool differenceRefused = intervened_ && comparison == Comparison::Difference && !difference;
  if (differenceRefused)
    statusBar()->showMessage(
        tr("No difference map: the runs have different tokens (%1 and %2); showing \"%3\". "
           "Side by side compares them.")
            .arg(run_->tokenCount())
            .arg(intervened_->tokenCount())
            .arg(rightName_),
        10000);
  {
    render::HeatMapData data = attentionMapData(shown, place, map, difference ? &*run_ : nullptr);
    data.title += place.note(leftName_);
    if (differenceRefused)
      data.title += tr(" | %1 (no difference: the runs have different tokens)").arg(rightName_);
    if (sideBySide) {
      // Before on the left, after on the right; clicks and hovers map back.
      render::HeatMapData left = attentionMapData(*run_, placeOf(*run_), before, nullptr);
      // Each run's name and place once (the names also stand under the halves).
      QString title = tr("%1: layer %2, %3 | %4: layer %5, %6")
                          .arg(leftName_)
                          .arg(selection_->layer())
                          .arg(head_name(selection_->head()))
                          .arg(rightName_)
                          .arg(layer)
                          .arg(head);
      if (comparingModels)
        title += QStringLiteral(" | ") + markUnalignedTokens(left, data, alignment);
      else if (run_->tokenCount() == T)
        title += tr(" | %1 tokens").arg(T);
      else
        title += tr(" | %1 and %2 tokens").arg(run_->tokenCount()).arg(T);
      data = render::heat_map_side_by_side(left, data, leftName_, rightName_);
      data.title = title;
    }
    render::show_or_keep(attentionView_, attentionStandIn_, std::move(data));
  }
  render::LinePlotData plot;
  plot.title = tr("Key importance alpha_k | %1, layer %2, %3").arg(shown.source).arg(layer).arg(head) +
               place.note(leftName_);
  plot.xLabel = tr("key position k");
  plot.integerX = true;
  plot.yLabel = tr("alpha_k");
  render::LineSeries alpha =
      keyImportanceSeries(shown, map, shown.trace ? tr("alpha_k") : tr("alpha_k (uniform head)"));
  render::LineSeries baseline{tr("uniform baseline"), {}, {}, true};
  render::LineSeries eps{
      tr("eps = %1 (sink threshold)").arg(analysis::kDefaultSinkMetricEps), {}, {}, false, true};
  for (int k = 0; k < T; ++k) {
    baseline.x.push_back(k);
    baseline.y.push_back(analysis::sink_uniform_baseline(T, k, map.causal));
  }
  eps.x = {0.0, static_cast<double>(std::max(T - 1, 1))};
  eps.y = {analysis::kDefaultSinkMetricEps, analysis::kDefaultSinkMetricEps};
  plot.series = shown.trace ? std::vector<render::LineSeries>{alpha, baseline, eps}
                            : std::vector<render::LineSeries>{alpha, eps};
  // The selected key, on the shown run's axis.
  if (place.keyToken() >= 0) plot.markedX = place.keyToken();
  if (sideBySide) {
    alpha.name = tr("alpha_k %1").arg(rightName_);
    alpha.run = rightName_;
    render::LineSeries plain = keyImportanceSeries(*run_, before, tr("alpha_k %1").arg(leftName_));
    plain.run = leftName_;
    // Dashed in the after curve's own colour: the grey dashed line is the
    // uniform baseline, and the two must not look alike.
    plain.dashed = true;
    plain.colourOf = 0;
    if (byToken) {
      // Two tokenizers: B's points at the positions of A's tokens covering the
      // same characters (the others have no place on A's axis), A's baseline;
      // without the first token, each point at its own token's place in A.
      const std::vector<int>& bToA = alignment.second;
      render::LineSeries byToken = alpha;
      byToken.x.clear(), byToken.y.clear(), byToken.labels.clear();
      for (std::size_t j = 0; j < bToA.size() && j < alpha.y.size(); ++j)
        if (bToA[j] >= 0) {
          byToken.x.push_back(bToA[j]);
          byToken.y.push_back(alpha.y[j]);
          byToken.labels.push_back(j < alpha.labels.size() ? alpha.labels[j] : QString());
        }
      byToken.name = tr("alpha_k %1, at %2's tokens").arg(rightName_, leftName_);
      alpha = std::move(byToken);
      baseline.x.clear(), baseline.y.clear();
      for (int k = 0; k < run_->tokenCount(); ++k) {
        baseline.x.push_back(k);
        baseline.y.push_back(analysis::sink_uniform_baseline(run_->tokenCount(), k, before.causal));
      }
      eps.x = {0.0, static_cast<double>(std::max(run_->tokenCount() - 1, 1))};
      plot.xLabel = tr("key position k (%1's tokens)").arg(leftName_);
      plot.markedX = selection_->keyToken() >= 0 ? selection_->keyToken() : std::numeric_limits<double>::quiet_NaN();
    }
    plot.series = {alpha, plain, baseline, eps};
  }
  profileView_->setData(std::move(plot));
}

void MainWindow::saveLayout() const {
  QSettings settings;
  settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("window/state"), saveState(kLayoutVersion));
}

void MainWindow::restoreLayout() {
  QSettings settings;
  restoreState(settings.value(QStringLiteral("window/state")).toByteArray(), kLayoutVersion);
}

void MainWindow::resetLayout() {
  for (QDockWidget* dock : {modelDock_, attentionDock_, profileDock_}) {
    dock->setFloating(false);
    dock->show();
  }
  restoreState(defaultLayout_, kLayoutVersion);
  selectionBar_->show();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  saveLayout();
  if (model_)  // what File > Restore the last session on launch brings back
    QSettings().setValue(QStringLiteral("sessions/last"), session_to_json(currentSession()));
  jobs_->cancelAll();
  QMainWindow::closeEvent(event);
}

namespace {
// What a drop opens: a model folder or a session file.
bool droppable(const QUrl& url) {
  return url.isLocalFile() && (QFileInfo(url.toLocalFile()).isDir() ||
                               url.toLocalFile().endsWith(QLatin1String(".sinkscope")));
}
}  // namespace

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  for (const QUrl& url : event->mimeData()->urls())
    if (droppable(url)) {
      event->acceptProposedAction();
      return;
    }
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const QUrl& url : event->mimeData()->urls())
    if (droppable(url)) {
      if (QFileInfo(url.toLocalFile()).isDir())
        openModelFolder(url.toLocalFile());
      else
        openSession(url.toLocalFile());
      event->acceptProposedAction();
      return;
    }
}

}  // namespace sinkscope::ui
