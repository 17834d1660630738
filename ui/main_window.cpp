#include "ui/comparison_chooser.h"
#include "ui/main_window.h"

#include "models/document/study_tables.h"
#include "models/experiments.h"
#include "models/fisher.h"
#include "render/panel_export.h"
#include "ui/analysis_panels.h"
#include "ui/panels/attention_map_panel.h"
#include "ui/panels/key_importance_panel.h"
#include "ui/checkpoints_panel.h"
#include "ui/docks.h"
#include "ui/example_picker.h"
#include "ui/export_dialog.h"
#include "ui/interventions_panel.h"
#include "ui/panels/panel.h"
#include "ui/run_analysis.h"
#include "ui/study_panel.h"
#include "ui/workspace.h"

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

QStringList example_sentences() { return resource_lines(QStringLiteral(":/examples/sentences.txt")); }

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      workspace_(new Workspace(this)),
      selection_(workspace_->selection()),
      jobs_(workspace_->jobs()) {
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

  connectWorkspace();
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
  buildMapDocks();
  buildAnalysisDocks();
  buildHiddenDocks();
  connectPanels();
}

// The model dock on the left; the attention map over key importance on the right.
void MainWindow::buildMapDocks() {
  modelDock_ =
      dock_make(tr("Model and sentence"), QStringLiteral("modelDock"), buildModelPanel(), this);
  addDockWidget(Qt::LeftDockWidgetArea, modelDock_);

  // The map (or, without OpenGL, its stand-in keeping what it would draw)
  // under a row of display options.
  attentionPanel_ = new AttentionMapPanel(workspace_, this);
  connect(attentionPanel_, &AttentionMapPanel::failed, this,
          [this](const QString& message, const QString& details) {
            jobStatus_->showError(message, details);
          });
  connect(attentionPanel_, &AttentionMapPanel::notice, statusBar(), &QStatusBar::showMessage);
  attentionDock_ =
      dock_make(tr("Attention map"), QStringLiteral("attentionDock"), attentionPanel_, this);
  addDockWidget(Qt::RightDockWidgetArea, attentionDock_);

  keyImportancePanel_ = new KeyImportancePanel(workspace_, this);
  profileDock_ = dock_make(tr("Key importance"), QStringLiteral("profileDock"),
                           keyImportancePanel_->view(), this);
  // No central widget: every panel is a dock, so every panel can float. The
  // plots sit under the attention map, beside the model dock.
  addDockWidget(Qt::RightDockWidgetArea, profileDock_);
  splitDockWidget(attentionDock_, profileDock_, Qt::Vertical);
}

void MainWindow::buildAnalysisDocks() {
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
}

void MainWindow::buildHiddenDocks() {
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
      panels_->docks().back());
  checkpointsPanel_ = new CheckpointsPanel(this);
  checkpointsDock_ = hiddenTab(
      tr("Checkpoints"), QStringLiteral("checkpointsDock"), checkpointsPanel_,
      tr("The checkpoints of a training run (sinkscope-cli train writes them as "
         "checkpoints/step-N): the slider opens each one and every panel follows; the plot "
         "shows the sentence's first-token attention alpha_0 (or its boost, or the sink "
         "rate) per layer against the training step, the grid every head's alpha_0, so you "
         "can see when the sink appears."),
      studyDock_);
  profileDock_->raise();  // hiding the newest tab would leave its neighbour in front
}

// What the study and checkpoint docks ask for, and what follows a finished run.
void MainWindow::connectPanels() {
  connect(checkpointsPanel_, &CheckpointsPanel::checkpointChosen, this, &MainWindow::openModelFolder);
  connect(checkpointsPanel_, &CheckpointsPanel::emergenceRequested, workspace_,
          &Workspace::computeEmergence);
  connect(studyPanel_, &StudyPanel::headChosen, this, [this](int layer, int head) {
    if (!workspace_->studyMatchesModel()) return;
    selection_->setLayer(layer);
    selection_->setHead(head);
  });
  connect(studyPanel_, &StudyPanel::sentenceOpened, this, &MainWindow::openStudySentence);
  auto follow = [this] {  // the study's grid follows the selection
    if (workspace_->studyMatchesModel() && selection_->head() >= 0)
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
  connect(jobs_, &JobRunner::jobFailed, this, [this](quint64 id) {
    if (workspace_->isModelOrRunJob(id)) pendingSession_.reset();  // its model or run failed
  });
}

bool MainWindow::exportPanel(QWidget* view, const QString& path, int dpi, bool overwrite) {
  render::FigureOptions options;
  options.dpi = dpi;
  return exportPanel(view, path, options, overwrite);
}

bool MainWindow::exportPanel(QWidget* view, const QString& path,
                             const render::FigureOptions& options, bool overwrite) {
  const QStringList comments = workspace_->provenance();
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
  const QString name = QStringLiteral("%1-run.npz").arg(workspace_->run() ? workspace_->run()->source : QStringLiteral("sinkscope"));
  const QString path = QFileDialog::getSaveFileName(this, tr("Export run tensors"),
                                                    QDir::home().filePath(name),
                                                    tr("NumPy NPZ (*.npz)"));
  if (!path.isEmpty()) exportRunTensors(path);
}

void MainWindow::exportRunTensors(const QString& path, bool overwrite) {
  workspace_->exportRunTensors(path, overwrite);
}

void MainWindow::showAnalysis() {
  comparisonChooser_->setAvailable(workspace_->runB().has_value());
  const SentenceRun* shown = workspace_->shownRun();
  panels_->setRunNames(workspace_->leftName(), workspace_->rightName());
  const bool sideBySide =
      workspace_->runB() && workspace_->comparison() == Comparison::SideBySide;
  // B of a comparison: the panels draw it at the selection's counterpart, A's
  // tokens through the two models' token correspondence.
  panels_->setRun(shown ? std::make_shared<const SentenceRun>(*shown) : nullptr,
                  sideBySide && workspace_->run() ? workspace_->run()->analysis : nullptr,
                  shown ? workspace_->placeOf(*shown) : ShownPlace(selection_));
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
  for (const models::Checkpoint& step : workspace_->checkpoints().steps) {
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

void MainWindow::buildActions() {
  buildFileMenu();
  buildRunMenu();
  buildExperimentsMenu();
  buildNavigateMenu();
  buildViewMenu();
  buildHelpMenu();
}

void MainWindow::buildFileMenu() {
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
}

void MainWindow::buildRunMenu() {
  QMenu* run = menuBar()->addMenu(tr("&Run"));
  QAction* runAction = run->addAction(tr("&Run sentence"), this, &MainWindow::runSentence);
  runAction->setObjectName(QStringLiteral("runAction"));
  runAction->setShortcuts(
      {QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)});
  run->addSeparator();
  run->addAction(tr("Compare with another &sentence..."), this, &MainWindow::chooseComparisonSentence);
  run->addAction(tr("Compare with another &model..."), this, &MainWindow::chooseComparisonModel);
  run->addAction(tr("S&top comparing"), workspace_, &Workspace::stopComparing);
  comparisonChooser_ = new ComparisonChooser(selectionBar_, run->addMenu(tr("Show compared r&uns")));
  comparisonChooser_->placeIn(selectionBar_);
  comparisonChooser_->setRunNames(workspace_->leftName(), workspace_->rightName());
  comparisonChooser_->setComparison(workspace_->comparison());
  // One state, the workspace's: the chooser shows it and changes it.
  connect(comparisonChooser_, &ComparisonChooser::comparisonChanged, workspace_,
          &Workspace::setComparison);
  connect(workspace_, &Workspace::comparisonChanged, comparisonChooser_,
          &ComparisonChooser::setComparison);
  run->addSeparator();
  run->addAction(tr("Next demonstration sentence\tN"), this, [this] { stepDemonstration(+1); });
  run->addAction(tr("Previous demonstration sentence\tP"), this, [this] { stepDemonstration(-1); });
  run->addSeparator();
  cancelAction_ = run->addAction(tr("&Cancel all jobs"), jobs_, &JobRunner::cancelAll);
  cancelAction_->setShortcut(QKeySequence(Qt::Key_Escape));
}

void MainWindow::buildExperimentsMenu() {
  QMenu* experiments = menuBar()->addMenu(tr("E&xperiments"));
  experiments->addAction(tr("Head ablation: dNLL of every head"), workspace_,
                         &Workspace::computeHeadAblation);
  experiments->addAction(tr("KL after sink removal and Fisher trace per layer"), workspace_,
                         &Workspace::computeLayerFunction);
}

// Navigation commands. Their keys (arrows, A, S, N, P, Home/End) reach the window
// only when no text field has focus; see keyPressEvent.
void MainWindow::buildNavigateMenu() {
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
}

void MainWindow::buildViewMenu() {
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
}

// Every panel carries a plain-words "what am I looking at" text.
void MainWindow::buildHelpMenu() {
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

QString MainWindow::sentence() const { return workspace_->sentence(); }

void MainWindow::setSentence(const QString& text) { workspace_->setSentence(text); }

void MainWindow::runSentence() { workspace_->runSentence(); }
void MainWindow::openModelFolder(const QString& folderOrName) { workspace_->openModel(folderOrName); }
void MainWindow::computeHeadAblation() { workspace_->computeHeadAblation(); }
void MainWindow::computeLayerFunction() { workspace_->computeLayerFunction(); }
void MainWindow::compareWithSentence(const QString& text) { workspace_->compareWithSentence(text); }
void MainWindow::compareWithModel(const QString& folderOrName) { workspace_->compareWithModel(folderOrName); }
void MainWindow::pinComparedRun(int layer, int head) { workspace_->pinComparedRun(layer, head); }
void MainWindow::stopComparing() { workspace_->stopComparing(); }
void MainWindow::setDevice(const QString& device) { workspace_->setDevice(device); }
void MainWindow::setPrecision(models::ComputePrecision precision) { workspace_->setPrecision(precision); }
QString MainWindow::leftRunName() const { return workspace_->leftName(); }
QString MainWindow::rightRunName() const { return workspace_->rightName(); }
const std::optional<SentenceRun>& MainWindow::intervenedRun() const { return workspace_->runB(); }
const std::optional<SentenceRun>& MainWindow::lastRun() const { return workspace_->run(); }
const std::optional<models::LoadedModel>& MainWindow::model() const { return workspace_->model(); }
render::HeatMapView* MainWindow::attentionView() const { return attentionPanel_->view(); }
render::LinePlotView* MainWindow::profileView() const { return keyImportancePanel_->view(); }

void MainWindow::connectWorkspace() {
  Workspace* w = workspace_;
  connect(w, &Workspace::sentenceChanged, this, [this](const QString& text) {
    if (sentenceBox_->toPlainText() != text) sentenceBox_->setPlainText(text);
  });
  connect(sentenceBox_, &QPlainTextEdit::textChanged, w,
          [this] { workspace_->setSentence(sentenceBox_->toPlainText()); });
  connect(w, &Workspace::modelOpened, this, &MainWindow::showModel);
  auto redraw = [this] {
    refreshPanels();
    showAnalysis();
  };
  connect(w, &Workspace::runShown, this, [this, redraw] {
    showTokenCount();
    redraw();
  });
  connect(w, &Workspace::runFinished, this, &MainWindow::runFinished);
  connect(w, &Workspace::analysisFinished, this, [this, redraw] {
    redraw();  // the map marks the sinks now
    Q_EMIT analysisFinished();
  });
  connect(w, &Workspace::runBChanged, this, redraw);
  connect(w, &Workspace::comparisonChanged, this, redraw);
  connect(w, &Workspace::interventionsFinished, this, &MainWindow::interventionsFinished);
  connect(w, &Workspace::comparisonFinished, this, &MainWindow::comparisonFinished);
  connect(w, &Workspace::runNamesChanged, this, [this](const QString& left, const QString& right) {
    if (comparisonChooser_) comparisonChooser_->setRunNames(left, right);
    panels_->setRunNames(left, right);
  });
  connect(w, &Workspace::experimentsChanged, this, [this] {
    // The overview turns to the ablation's dNLL when it has just been computed.
    const bool newDnll =
        panels_->experiments().headDnll.empty() && !workspace_->experiments().headDnll.empty();
    panels_->setExperiments(workspace_->experiments());
    if (newDnll) panels_->setScore(HeadScore::Dnll);
  });
  connect(w, &Workspace::experimentsFinished, this, &MainWindow::experimentsFinished);
  connect(w, &Workspace::studyOpened, this, [this](const QString& folder) {
    showStudy();
    Q_EMIT studyOpened(folder);
  });
  // A refused study says why in its own dock, where a later run's clearing
  // of the status bar does not reach.
  connect(w, &Workspace::studyRefused, this, [this](const QString& folder, const QString& message) {
    studyPanel_->showRefusal(folder, message);
    studyDock_->show();
    studyDock_->raise();
  });
  connect(w, &Workspace::checkpointsOpened, this, [this](const QString& folder) {
    checkpointsPanel_->setCheckpoints(folder, workspace_->checkpoints());
    checkpointsDock_->show();
    checkpointsDock_->raise();
  });
  connect(w, &Workspace::emergenceComputed, this,
          [this](const document::CheckpointAlpha0& alpha0, const QString& text) {
            checkpointsPanel_->setEmergence(alpha0, text);
            Q_EMIT emergenceFinished();
          });
  connect(w, &Workspace::failed, jobStatus_, &JobStatus::showError);
  connect(w, &Workspace::errorsCleared, jobStatus_, &JobStatus::clearError);
  connect(w, &Workspace::notice, statusBar(), &QStatusBar::showMessage);
}

void MainWindow::showTokenCount() {
  const SentenceRun& run = *workspace_->run();
  const int T = run.tokenCount();
  // Beyond the trained context a model's sink may vanish: say so where T is
  // shown (it stays), and in the status bar (the workspace's notice).
  const bool beyond = !run.beyondTrainedContext.isEmpty();
  tokenStatus_->setText(beyond ? tr("T = %1 (beyond the trained context)").arg(T) : tr("T = %1").arg(T));
  tokenStatus_->setStyleSheet(beyond ? QStringLiteral("color: #b35806; font-weight: bold;") : QString());
  tokenStatus_->setToolTip(beyond ? run.beyondTrainedContext : QString());
}

void MainWindow::chooseModelFolder() {
  const QString folder = QFileDialog::getExistingDirectory(
      this, tr("Open a Hugging Face model folder"),
      workspace_->model() ? QString::fromStdString(workspace_->model()->model->folder().string()) : QDir::homePath());
  if (!folder.isEmpty()) openModelFolder(folder);
}

void MainWindow::showModel() {
  const models::ModelConfig& c = workspace_->model()->model->config();
  const QString folder = QString::fromStdString(workspace_->model()->model->folder().string());
  // A training checkpoint visited with the slider is not a model the user opened.
  if (!checkpointsPanel_ || !checkpointsPanel_->isIntermediateStep(workspace_->model()->model->folder())) {
    RecentModels().remember(QString::fromStdString(workspace_->model()->name));
    refreshRecentModels();
  }
  const QString name = QString::fromStdString(models::model_display_name(workspace_->model()->model->folder()));
  const QString type = QString::fromStdString(c.model_type);
  modelStatus_->setText(tr("model: %1 (%2)").arg(name, type));
  modelSummary_->setText(
      tr("%1: %2, %3 layers x %4 heads (%5 KV), hidden %6, %7 M parameters; tokenizer: %8")
          .arg(name, type)
          .arg(c.num_layers)
          .arg(c.num_heads)
          .arg(c.num_kv_heads)
          .arg(c.hidden_size)
          .arg(static_cast<double>(workspace_->model()->model->parameterCount()) / 1e6, 0, 'f', 2)
          .arg(workspace_->model()->tokenizer ? QString::fromStdString(workspace_->model()->tokenizer->kind()) : tr("none")));
  // Only a run's final model offers its training (a visited step is inside it).
  const bool intermediate =
      checkpointsPanel_ && checkpointsPanel_->isIntermediateStep(workspace_->model()->model->folder());
  if (!intermediate)
    modelTrainingAction_->setEnabled(
        models::training_checkpoints(workspace_->model()->model->folder()).steps.size() > 1);
  Q_EMIT modelOpened(folder);
}

void MainWindow::openCheckpoints(const QString& folder) { workspace_->openCheckpoints(folder); }
bool MainWindow::showCheckpoints(const QString& folder) { return workspace_->showCheckpoints(folder); }
void MainWindow::computeEmergence() { workspace_->computeEmergence(); }
void MainWindow::openStudy(const QString& folder) { workspace_->openStudy(folder); }

void MainWindow::openModelTraining() {
  if (workspace_->model()) openCheckpoints(QString::fromStdString(workspace_->model()->model->folder().string()));
}

void MainWindow::chooseCheckpointsFolder() {
  const QString folder = QFileDialog::getExistingDirectory(
      this, tr("Open training checkpoints (the train --out folder, or its checkpoints/)"));
  if (!folder.isEmpty()) openCheckpoints(folder);
}

void MainWindow::chooseStudyFolder() {
  const QString folder = QFileDialog::getExistingDirectory(
      this, tr("Open study (a folder with study.json and merged/)"));
  if (!folder.isEmpty()) openStudy(folder);
}

void MainWindow::showStudy() {
  studyPanel_->setStudy(*workspace_->study());
  if (workspace_->studyMatchesModel() && selection_->head() >= 0)
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
  const auto& study = workspace_->study();
  if (!study) return;
  pendingHead_ = std::make_pair(layer, head);
  setSentence(text);
  // The study's model, unless it is the one open: its folder when it still
  // exists, else the name it was given (a cache name).
  const std::filesystem::path folder = study->modelFolder;
  std::error_code ec;
  const bool same = workspace_->model() && (workspace_->model()->model->folder() == folder || workspace_->model()->name == study->model);
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

void MainWindow::refreshPanels() {
  if (!workspace_->run()) return;
  try {
    const DrawnRuns drawn = workspace_->drawnRuns();
    attentionPanel_->draw(drawn);
    keyImportancePanel_->draw(drawn);
  } catch (const std::exception& e) {
    jobStatus_->showError(QString::fromUtf8(e.what()), QString::fromUtf8(e.what()));
  }
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
  if (workspace_->model())  // what File > Restore the last session on launch brings back
    QSettings().setValue(QStringLiteral("sessions/last"),
                      QByteArray::fromStdString(session_to_json(currentSession())));
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
