// MainWindow's menus and keys: File, Run, Experiments, Navigate, View and
// Help, each naming a command of the workspace or the window, and the
// dialogs that ask what a comparison compares.
#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QInputDialog>
#include <QKeyEvent>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QWhatsThis>

#include "models/model_identity.h"
#include "ui/analysis_settings_dialog.h"
#include "ui/comparison_chooser.h"
#include "ui/help_dialogs.h"
#include "ui/job_runner.h"
#include "ui/main_window.h"
#include "ui/model_panel.h"
#include "ui/panel_registry.h"
#include "ui/selection_bar.h"
#include "ui/selection_model.h"
#include "ui/workspace.h"

namespace sinkscope::ui {

void MainWindow::chooseComparisonSentence() {
  bool ok = false;
  const QString text = QInputDialog::getMultiLineText(
      this, tr("Compare with another sentence"),
      tr("Sentence B (shown beside the current one, A, in every panel):"), QString(), &ok);
  if (ok) compareWithSentence(text);
}

void MainWindow::chooseAnalysisSettings() {
  AnalysisSettingsDialog dialog(workspace_->analysisSettings(), this);
  document::AnalysisSettings chosen;
  if (dialog.exec() == QDialog::Accepted && dialog.read(chosen))
    workspace_->setAnalysisSettings(chosen);
}

void MainWindow::chooseComparisonModel() {
  QStringList names;
  QStringList opens;
  for (const auto& [name, open] : modelPanel_->knownModels()) {
    names << name;
    opens << open;
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
  refreshRecentModels();
  file->addSeparator();
  QAction* exportAction =
      file->addAction(tr("&Export panel..."), this, &MainWindow::exportFocusedPanel);
  exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  file->addAction(tr("Export &figure of several panels..."), this, &MainWindow::chooseFigureViews);
  file->addAction(tr("Export run &tensors (NPZ)..."), this, &MainWindow::chooseRunTensorsFile);
  QAction* share =
      file->addAction(tr("Share as &web page..."), this, &MainWindow::chooseWebPageFile);
  share->setObjectName(QStringLiteral("shareWebPageAction"));
  share->setStatusTip(
      tr("The run as one HTML file with every head's views and numbers: opens "
         "in any browser from disk or an e-mail, no network"));
  file->addAction(tr("Open c&apture (NPZ)..."), this, &MainWindow::chooseCaptureFile);
  file->addSeparator();
  QAction* saveSessionAction =
      file->addAction(tr("&Save session..."), this, &MainWindow::chooseSessionToSave);
  saveSessionAction->setShortcut(QKeySequence::Save);
  QAction* withRun = file->addAction(tr("Save session with its &run..."), this,
                                     &MainWindow::chooseSessionWithRunToSave);
  withRun->setObjectName(QStringLiteral("saveSessionWithRunAction"));
  withRun->setStatusTip(
      tr("The session and the run's capture beside it: it opens on a "
         "machine without the model"));
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
  run->addSeparator();
  QAction* settings =
      run->addAction(tr("Analysis &settings..."), this, &MainWindow::chooseAnalysisSettings);
  settings->setObjectName(QStringLiteral("analysisSettingsAction"));
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
  for (const KeyCommand& command : keyCommands())
    if (command.demonstration) run->addAction(command.menuText, this, command.run);
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

// The keys of the selection and the demonstrations: each a menu entry that
// names its key, and the key itself (keyPressEvent), which reaches the window
// only when no text field has focus, so typing a sentence never moves the
// selection.
std::vector<MainWindow::KeyCommand> MainWindow::keyCommands() {
  SelectionModel* s = selection_;
  return {
      {Qt::Key_Up, tr("Previous layer\tUp"), [s] { s->stepLayer(-1); }},
      {Qt::Key_Down, tr("Next layer\tDown"), [s] { s->stepLayer(+1); }},
      {Qt::Key_Left, tr("Previous head\tLeft"), [s] { s->stepHead(-1); }},
      {Qt::Key_Right, tr("Next head\tRight"), [s] { s->stepHead(+1); }},
      {Qt::Key_S, tr("Head with the strongest sink\tS"), [this] { goToStrongestSink(); }},
      {Qt::Key_A, tr("Head average\tA"), [s] { s->setHead(SelectionModel::kHeadAverage); }},
      {Qt::Key_Home, tr("First query token\tHome"), [s] { s->setQueryToken(0); }},
      {Qt::Key_End, tr("Last query token\tEnd"), [s] { s->setQueryToken(s->tokenCount() - 1); }},
      {Qt::Key_N, tr("Next demonstration sentence\tN"), [this] { stepDemonstration(+1); }, true},
      {Qt::Key_P, tr("Previous demonstration sentence\tP"), [this] { stepDemonstration(-1); }, true},
  };
}

void MainWindow::buildNavigateMenu() {
  QMenu* nav = menuBar()->addMenu(tr("&Navigate"));
  for (const KeyCommand& command : keyCommands())
    if (!command.demonstration) nav->addAction(command.menuText, this, command.run);
}

void MainWindow::buildViewMenu() {
  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->addAction(modelDock_->toggleViewAction());
  for (const PanelEntry& panel : panel_registry())
    if (auto* dock = findChild<QDockWidget*>(panel.dock)) view->addAction(dock->toggleViewAction());
  view->addAction(interventionsDock_->toggleViewAction());
  view->addAction(studyDock_->toggleViewAction());
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
  help->addAction(tr("&Metric definitions"), this, [this] { show_metric_definitions(this); })
      ->setObjectName(QStringLiteral("metricDefinitionsAction"));
  help->addAction(tr("&Keyboard shortcuts"), this, [this] { show_keyboard_shortcuts(this); })
      ->setObjectName(QStringLiteral("keyboardShortcutsAction"));
}


void MainWindow::keyPressEvent(QKeyEvent* event) {
  // Esc leaves the classroom mode even where its shortcut does not reach (a
  // window the window system has not made active).
  if (presenting_ && event->key() == Qt::Key_Escape) {
    setPresenting(false);
    event->accept();
    return;
  }
  for (const KeyCommand& command : keyCommands())
    if (event->key() == command.key) {
      command.run();
      event->accept();
      return;
    }
  QMainWindow::keyPressEvent(event);
}

}  // namespace sinkscope::ui
