#include "ui/main_window.h"

#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMimeData>
#include <QResizeEvent>
#include <QSettings>
#include <QShowEvent>
#include <QStatusBar>
#include <QTimer>

#include "models/model_discovery.h"
#include "models/model_identity.h"
#include "ui/checkpoints_panel.h"
#include "ui/comparison_chooser.h"
#include "ui/docks.h"
#include "ui/example_picker.h"
#include "ui/figure_writer.h"
#include "ui/interventions_panel.h"
#include "ui/job_runner.h"
#include "ui/job_status.h"
#include "ui/model_panel.h"
#include "ui/panel_board.h"
#include "ui/panel_registry.h"
#include "ui/panels/attention_map_panel.h"
#include "ui/panels/key_importance_panel.h"
#include "ui/panels/panel.h"
#include "ui/analysis_panels.h"
#include "ui/recent_models.h"
#include "ui/selection_bar.h"
#include "ui/selection_model.h"
#include "ui/status_line.h"
#include "ui/study_panel.h"
#include "ui/workspace.h"
#include "ui/workspace_session.h"

namespace sinkscope::ui {

namespace {

QStringList example_sentences() { return resource_lines(QStringLiteral(":/examples/sentences.txt")); }

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      workspace_(new Workspace(this)),
      selection_(workspace_->selection()),
      jobs_(workspace_->jobs()),
      board_(new PanelBoard(workspace_, this)),
      session_(new WorkspaceSession(workspace_, board_, this)) {
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
  statusLine_ = new StatusLine(workspace_, statusBar());
  jobStatus_ = statusLine_->jobStatus();

  // The default layout is captured at the first show, once docks have sizes.
  restoreGeometry(QSettings().value(QStringLiteral("window/geometry")).toByteArray());

  connectWorkspace();
  connect(session_, &WorkspaceSession::applied, this, &MainWindow::finishSession);
  // The classroom caption follows the selection and the runs.
  connect(selection_, &SelectionModel::layerChanged, this, &MainWindow::updatePresentCaption);
  connect(selection_, &SelectionModel::headChanged, this, &MainWindow::updatePresentCaption);
  connect(workspace_, &Workspace::runShown, this, &MainWindow::updatePresentCaption);
  connect(workspace_, &Workspace::analysisFinished, this, &MainWindow::updatePresentCaption);

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
  if (presentWhenShown_) {
    presentWhenShown_ = false;
    QTimer::singleShot(0, this, [this] { setPresenting(true); });
  }
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
  if (!layoutAfterResize_.isEmpty() && size() == sizeBeforePresenting_) {
    applyLayoutAfterResize();  // back from the classroom mode at the old size
    return;
  }
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

void MainWindow::buildDocks() {
  buildMapDocks();
  buildAnalysisDocks();
  buildHiddenDocks();
  connectPanels();
}

// The model dock on the left; the attention map over key importance on the right.
void MainWindow::buildMapDocks() {
  modelPanel_ = new ModelPanel(workspace_, this);
  connect(modelPanel_, &ModelPanel::recentModelsChanged, this, &MainWindow::refreshRecentModels);
  modelDock_ = dock_make(tr("Model and sentence"), QStringLiteral("modelDock"), modelPanel_, this);
  addDockWidget(Qt::LeftDockWidgetArea, modelDock_);

  // The map (or, without OpenGL, its stand-in keeping what it would draw)
  // under a row of display options; key importance under it.
  connect(board_, &PanelBoard::failed, this, [this](const QString& message, const QString& details) {
    jobStatus_->showError(message, details);
  });
  connect(board_, &PanelBoard::notice, statusBar(), &QStatusBar::showMessage);
  attentionDock_ = panelDock(QStringLiteral("attention-map"));
  addDockWidget(Qt::RightDockWidgetArea, attentionDock_);
  profileDock_ = panelDock(QStringLiteral("key-importance"));
  // No central widget: every panel is a dock, so every panel can float. The
  // plots sit under the attention map, beside the model dock.
  addDockWidget(Qt::RightDockWidgetArea, profileDock_);
  splitDockWidget(attentionDock_, profileDock_, Qt::Vertical);
}

QDockWidget* MainWindow::panelDock(const QString& name) {
  const PanelEntry& entry = panel_entry(name);
  return dock_make(entry.title, entry.dock, board_->content(name), this);
}

void MainWindow::buildAnalysisDocks() {
  // The analysis panels: the overview under the model dock, the others
  // tabbed beside the key-importance plot.
  for (Panel* panel : board_->analysisPanels()->panels())
    analysisDocks_.push_back(panelDock(panel->name()));
  const auto& docks = analysisDocks_;
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
  auto hiddenTab = [this](QDockWidget* dock, const QString& explanation, QDockWidget* beside) {
    dock->setWhatsThis(explanation);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    tabifyDockWidget(beside, dock);
    dock->hide();
    return dock;
  };
  studyPanel_ = new StudyPanel(board_->drawnViews(), this);
  studyDock_ = hiddenTab(
      dock_make(tr("Study"), QStringLiteral("studyDock"), studyPanel_, this),
      tr("A corpus study (sinkscope-cli study): numbers pooled over many sentences, each with "
         "its 95% bootstrap interval. The grid colours every head by a pooled number; the "
         "profiles show per-layer means; click a head to list the sentences where it sinks "
         "hardest, double-click one to run it here with that head selected."),
      analysisDocks_.back());
  checkpointsDock_ = hiddenTab(
      panelDock(QStringLiteral("emergence")),
      tr("The checkpoints of a training run (sinkscope-cli train writes them as "
         "checkpoints/step-N): the slider opens each one and every panel follows; the plot "
         "shows the sentence's first-token attention α₀ (or its boost, or the sink "
         "rate) per layer against the training step, the grid every head's α₀, so you "
         "can see when the sink appears."),
      studyDock_);
  profileDock_->raise();  // hiding the newest tab would leave its neighbour in front
}

// What the study dock asks for, and its grid following the selection.
void MainWindow::connectPanels() {
  connect(studyPanel_, &StudyPanel::headChosen, this, [this](int layer, int head) {
    if (!workspace_->studyMatchesModel()) return;
    selection_->setLayer(layer);
    selection_->setHead(head);
  });
  connect(studyPanel_, &StudyPanel::sentenceOpened, workspace_, &Workspace::openStudySentence);
  auto follow = [this] {  // the study's grid follows the selection
    if (workspace_->studyMatchesModel() && selection_->head() >= 0)
      studyPanel_->chooseHead(selection_->layer(), selection_->head());
  };
  connect(selection_, &SelectionModel::layerChanged, this, follow);
  connect(selection_, &SelectionModel::headChanged, this, follow);
}

QString MainWindow::sentence() const { return workspace_->sentence(); }

void MainWindow::setSentence(const QString& text) { workspace_->setSentence(text); }

void MainWindow::runSentence() {
  // A capture's run stays until a model opens (or an example is picked):
  // Run would replace it with a run of no model.
  if (workspace_->showingCapture() && !workspace_->model()) {
    jobStatus_->showError(tr("A capture holds its attention only: open a model to run a sentence"),
                          {});
    return;
  }
  workspace_->runSentence();
}
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
render::HeatMapView* MainWindow::attentionView() const { return board_->attentionMap()->view(); }
render::LinePlotView* MainWindow::profileView() const { return board_->keyImportance()->view(); }
AnalysisPanels* MainWindow::analysisPanels() const { return board_->analysisPanels(); }
CheckpointsPanel* MainWindow::checkpointsPanel() const { return board_->checkpoints(); }

void MainWindow::connectWorkspace() {
  Workspace* w = workspace_;
  connect(w, &Workspace::modelOpened, this, &MainWindow::showModel);
  connect(w, &Workspace::captureOpened, this, [this](const QString& path) {
    modelPanel_->showCapture(path);
    modelTrainingAction_->setEnabled(false);
    Q_EMIT captureOpened(path);
  });
  // The panels redraw first (the board connected before the window).
  auto comparable = [this] { comparisonChooser_->setAvailable(workspace_->runB().has_value()); };
  connect(w, &Workspace::runShown, this, comparable);
  connect(w, &Workspace::runFinished, this, &MainWindow::runFinished);
  connect(w, &Workspace::analysisFinished, this, [this, comparable] {
    comparable();
    Q_EMIT analysisFinished();
  });
  connect(w, &Workspace::runBChanged, this, comparable);
  connect(w, &Workspace::comparisonChanged, this, comparable);
  connect(w, &Workspace::interventionsFinished, this, &MainWindow::interventionsFinished);
  connect(session_, &WorkspaceSession::placesOutsideFound, this,
          [this](const QString& message, const QString& details) {
            jobStatus_->showError(message, details);
          });
  connect(w, &Workspace::comparisonFinished, this, &MainWindow::comparisonFinished);
  connect(w, &Workspace::runNamesChanged, this, [this](const QString& left, const QString& right) {
    if (comparisonChooser_) comparisonChooser_->setRunNames(left, right);
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
    bringForward(studyDock_);
  });
  connect(w, &Workspace::checkpointsOpened, this, [this] { bringForward(checkpointsDock_); });
  connect(w, &Workspace::emergenceComputed, this, &MainWindow::emergenceFinished);
}

void MainWindow::chooseModelFolder() { modelPanel_->chooseModelFolder(); }

void MainWindow::showModel() {
  const std::filesystem::path folder = workspace_->model()->model->folder();
  // A training checkpoint visited with the slider is not a model the user
  // opened, and only a run's final model offers its training.
  const bool intermediate = checkpointsPanel()->isIntermediateStep(folder);
  modelPanel_->showModel(!intermediate);
  if (!intermediate)
    modelTrainingAction_->setEnabled(models::training_checkpoints(folder).steps.size() > 1);
  Q_EMIT modelOpened(QString::fromStdString(folder.string()));
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
  bringForward(studyDock_);
  // The study's tables and plots would take the map's height: the two share
  // the column evenly once the dock has its size.
  if (wasHidden)
    QTimer::singleShot(0, this, [this] {
      const int both = attentionDock_->height() + studyDock_->height();
      resizeDocks({attentionDock_, studyDock_}, {both / 2, both - both / 2}, Qt::Vertical);
    });
}

void MainWindow::selectAfterNextRun(int layer, int head) { workspace_->selectAfterNextRun(layer, head); }
void MainWindow::openStudySentence(const QString& text, int layer, int head) {
  workspace_->openStudySentence(text, layer, head);
}

void MainWindow::setBuiltinModelsDir(const QString& dir) { modelPanel_->setBuiltinModelsDir(dir); }

// File > Recent models, as the model chooser lists them.
void MainWindow::refreshRecentModels() {
  if (!recentMenu_) return;
  const QStringList recent = RecentModels().load();
  recentMenu_->clear();
  for (const QString& folder : recent)
    recentMenu_->addAction(folder, this, [this, folder] { openModelFolder(folder); });
  recentMenu_->setEnabled(!recent.isEmpty());
}

void MainWindow::saveLayout() const {
  QSettings settings;
  // Closed while presenting: the layout the classroom mode would come back to.
  settings.setValue(QStringLiteral("window/geometry"),
                    presenting_ ? geometryBeforePresenting_ : saveGeometry());
  settings.setValue(QStringLiteral("window/state"),
                    presenting_ ? beforePresenting_ : saveState(kLayoutVersion));
}

void MainWindow::restoreLayout() {
  QSettings settings;
  restoreState(settings.value(QStringLiteral("window/state")).toByteArray(), kLayoutVersion);
}

void MainWindow::resetLayout() {
  setPresenting(false);
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
