// MainWindow's session commands: save, open, recent
// sessions, and the last session restored on launch. A session is applied in
// two steps: the model and the sentence first (opening the model when another
// one is shown), then, once that run is on screen, the selection, the
// interventions and the layout.
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>
#include <filesystem>

#include "models/model_identity.h"
#include "render/figure_part.h"
#include "render/scene_view.h"
#include "ui/comparison_chooser.h"
#include "ui/export_dialog.h"
#include "ui/checkpoints_panel.h"
#include "ui/study_panel.h"
#include "ui/interventions_panel.h"
#include "ui/job_status.h"
#include "ui/main_window.h"
#include "ui/workspace.h"
#include "ui/selection_model.h"

namespace sinkscope::ui {

namespace {
// The 3-D views whose cameras a session keeps.
const QStringList kSceneViews{QStringLiteral("graphView"), QStringLiteral("spectralEmbedding"),
                              QStringLiteral("valueSpaceView")};

const QString kRecentKey = QStringLiteral("sessions/recent");
const QString kLastKey = QStringLiteral("sessions/last");
constexpr int kRecentCount = 8;
}  // namespace

Session MainWindow::currentSession() const {
  Session s;
  if (workspace_->model()) {
    s.model = workspace_->model()->name;
    s.modelFolder = workspace_->model()->model->folder().string();
    try {
      const models::ModelIdentity id = models::model_identity(workspace_->model()->model->folder());
      s.configSha256 = id.configSha256;
      s.tokenizerSha256 = id.tokenizerSha256;
    } catch (const std::exception&) {
      // the folder changed under us: the session names it without hashes
    }
  }
  s.text = sentence().toStdString();
  s.layer = selection_->layer();
  s.head = selection_->head();
  s.query = selection_->queryToken();
  s.key = selection_->keyToken();
  s.threshold = selection_->threshold();
  s.topN = selection_->topN();
  s.interventions = selection_->interventions();
  if (auto* box = findChild<QCheckBox*>(QStringLiteral("logScale"))) s.logScale = box->isChecked();
  if (auto* score = findChild<QComboBox*>(QStringLiteral("overviewScore")))
    s.overviewScore = score->currentText().toStdString();
  s.comparison = comparison_name(workspace_->comparison()).toStdString();
  if (workspace_->comparing()) {
    s.compareModel = workspace_->comparedModelFolder().toStdString();
    s.compareSentence = workspace_->comparedSentence().toStdString();
    s.compareLayer = selection_->pinnedCounterpartLayer();
    s.compareHead = selection_->pinnedCounterpartHead();
  }
  if (!workspace_->checkpoints().steps.empty()) s.checkpoints = workspace_->checkpointsFolder().toStdString();
  if (workspace_->study()) s.study = workspace_->studyFolder().toStdString();
  if (auto* layout = findChild<QComboBox*>(QStringLiteral("graphLayout")))
    s.graphLayout = layout->currentIndex();
  if (auto* box = findChild<QCheckBox*>(QStringLiteral("normalisedLaplacian")))
    s.normalisedLaplacian = box->isChecked();
  std::vector<std::pair<QString, render::SceneCamera>> cameras;
  for (const QString& view : kSceneViews)
    if (const auto part = render::figure_part(findChild<QWidget*>(view)); part && part->scene)
      cameras.emplace_back(view, part->camera);
  s.cameras = session_cameras_of(cameras);
  s.layout = saveState().toStdString();
  for (const QString& view : figureViews_) s.figureViews.push_back(view.toStdString());
  s.figureColumns = figureColumns_;
  return s;
}

bool MainWindow::saveSession(const QString& path) {
  const Session s = currentSession();
  if (s.model.empty()) {
    jobStatus_->showError(tr("Save session: no model is open"), QString());
    return false;
  }
  try {
    session_write(s, path.toStdString());
  } catch (const SessionError& e) {
    jobStatus_->showError(tr("Save session failed"), QString::fromStdString(e.what()));
    return false;
  }
  rememberSession(path);
  return true;
}

void MainWindow::openSession(const QString& path) {
  jobStatus_->clearError();
  try {
    applySession(session_read(path.toStdString()));
  } catch (const SessionError& e) {
    jobStatus_->showError(tr("Open session failed: %1").arg(QString::fromStdString(e.what())),
                          QString::fromStdString(e.what()));
    return;
  }
  rememberSession(path);
}

bool MainWindow::restoreLastSession() {
  const QByteArray last = QSettings().value(kLastKey).toByteArray();
  if (last.isEmpty()) return false;
  try {
    applySession(session_from_json(last.toStdString(), tr("the last session").toStdString()));
  } catch (const SessionError& e) {
    jobStatus_->showError(tr("The last session could not be restored"),
                          QString::fromStdString(e.what()));
    return false;
  }
  return true;
}

void MainWindow::applySession(Session s) {
  sessionWarning_.clear();
  sessionPlacesOutside_.clear();
  setSentence(QString::fromStdString(s.text));
  if (auto* box = findChild<QCheckBox*>(QStringLiteral("logScale"))) box->setChecked(s.logScale);
  if (auto* score = findChild<QComboBox*>(QStringLiteral("overviewScore"))) {
    const int at = score->findText(QString::fromStdString(s.overviewScore));
    if (at >= 0) score->setCurrentIndex(at);
  }
  const std::filesystem::path folder = s.modelFolder;
  const auto& model = workspace_->model();
  const bool shown = model && ((!folder.empty() && model->model->folder() == folder) || model->name == s.model);
  std::error_code ec;
  const QString open = QString::fromStdString(
      !folder.empty() && std::filesystem::is_directory(folder, ec) ? s.modelFolder : s.model);
  pendingSession_ = std::move(s);
  if (shown)
    runSentence();
  else
    openModelFolder(open);  // runs the sentence once the model is open
}

void MainWindow::finishSession() {
  if (!pendingSession_) return;
  const Session s = std::move(*pendingSession_);
  pendingSession_.reset();
  QStringList views;
  for (const std::string& view : s.figureViews) views << QString::fromStdString(view);
  setFigureLayout(views, s.figureColumns);
  // A place the model or sentence does not have is said, never moved silently.
  QStringList outside;
  for (const std::string& place : session_places_outside(s, selection_->layerCount(),
                                                         selection_->headCount(),
                                                         selection_->tokenCount()))
    outside << QString::fromStdString(place);
  auto q = [](const std::string& text) { return QString::fromStdString(text); };
  selection_->setLayer(s.layer);
  selection_->setHead(s.head);
  selection_->setQueryToken(s.query);
  selection_->setKeyToken(s.key);
  selection_->setThreshold(s.threshold);
  selection_->setTopN(s.topN);
  selection_->setInterventions(s.interventions);
  // B's pinned layer and head apply once B's run (and shape) is in.
  static_assert(Session::kAutomatic == SelectionModel::kAutomatic);
  if (!s.compareSentence.empty() || !s.compareModel.empty())
    workspace_->pinNextComparedRun(s.compareLayer, s.compareHead);
  if (!s.compareSentence.empty()) compareWithSentence(q(s.compareSentence));
  if (!s.compareModel.empty()) compareWithModel(q(s.compareModel));
  if (const auto c = comparison_of(q(s.comparison))) comparisonChooser_->setComparison(*c);
  if (!s.checkpoints.empty() && !showCheckpoints(q(s.checkpoints)))
    outside << tr("checkpoints: %1 holds no checkpoint (step-N folders with a config.json)")
                   .arg(q(s.checkpoints));
  // The study opens in a job of its own; a study that is gone or damaged
  // says so in its dock, as when opened by hand.
  if (!s.study.empty()) openStudy(q(s.study));
  if (auto* layout = findChild<QComboBox*>(QStringLiteral("graphLayout")))
    layout->setCurrentIndex(s.graphLayout);
  if (auto* box = findChild<QCheckBox*>(QStringLiteral("normalisedLaplacian")))
    box->setChecked(s.normalisedLaplacian);
  setSceneCameras(session_cameras(s));
  if (!s.layout.empty()) restoreState(QByteArray::fromStdString(s.layout));
  // A model that changed since the session was saved: say what differs.
  if (workspace_->model()) {
    std::string config, tokenizer;
    try {
      const models::ModelIdentity id = models::model_identity(workspace_->model()->model->folder());
      config = id.configSha256;
      tokenizer = id.tokenizerSha256;
    } catch (const std::exception&) {
    }
    QStringList changes;
    for (const std::string& change : session_model_changes(s, config, tokenizer))
      changes << q(change);
    if (!changes.isEmpty()) {
      sessionWarning_ = tr("The model changed since this session was saved: %1. The numbers "
                           "shown may differ from the session's figures.")
                            .arg(changes.join(QStringLiteral("; ")));
      jobStatus_->showError(sessionWarning_, changes.join(QLatin1Char('\n')));
    }
  }
  if (!outside.isEmpty())
    sessionPlacesOutside_ = tr("This session names what the model, sentence or folders shown "
                               "lack: %1. The nearest places are shown.")
                                .arg(outside.join(QStringLiteral("; ")));
  if (!sessionPlacesOutside_.isEmpty())
    jobStatus_->showError(
        sessionWarning_.isEmpty() ? sessionPlacesOutside_
                                  : sessionPlacesOutside_ + QLatin1Char(' ') + sessionWarning_,
        outside.join(QLatin1Char('\n')));
  Q_EMIT sessionApplied();
}

void MainWindow::setSceneCameras(
    const std::vector<std::pair<QString, render::SceneCamera>>& cameras) {
  for (const auto& [name, camera] : cameras) {
    if (!kSceneViews.contains(name)) continue;
    if (auto* view = findChild<render::SceneView*>(name)) view->setCamera(camera);
    if (auto* standIn = findChild<render::FigureStandIn*>(name)) standIn->setCamera(camera);
  }
}

void MainWindow::chooseSessionToSave() {
  const QString folder = user_folder(QSettings().value(QStringLiteral("sessions/folder")).toString());
  QString path = QFileDialog::getSaveFileName(this, tr("Save session"),
                                              QDir(folder).filePath(QStringLiteral("session.sinkscope")),
                                              tr("SinkScope sessions (*.sinkscope)"));
  if (path.isEmpty()) return;
  QSettings().setValue(QStringLiteral("sessions/folder"), QFileInfo(path).absolutePath());
  if (!path.endsWith(QLatin1String(".sinkscope"))) path += QLatin1String(".sinkscope");
  saveSession(path);
}

void MainWindow::chooseSessionToOpen() {
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open session"), user_folder(QSettings().value(QStringLiteral("sessions/folder")).toString()),
      tr("SinkScope sessions (*.sinkscope)"));
  if (!path.isEmpty()) openSession(path);
}

void MainWindow::rememberSession(const QString& path) {
  QSettings settings;
  QStringList recent = settings.value(kRecentKey).toStringList();
  const QString absolute = QFileInfo(path).absoluteFilePath();
  recent.removeAll(absolute);
  recent.prepend(absolute);
  while (recent.size() > kRecentCount) recent.removeLast();
  settings.setValue(kRecentKey, recent);
  refreshRecentSessions();
}

void MainWindow::refreshRecentSessions() {
  if (!recentSessionsMenu_) return;
  recentSessionsMenu_->clear();
  const QStringList recent = QSettings().value(kRecentKey).toStringList();
  if (recent.isEmpty()) recentSessionsMenu_->addAction(tr("(none yet)"))->setEnabled(false);
  for (const QString& path : recent)
    recentSessionsMenu_->addAction(QDir::toNativeSeparators(path), this,
                                   [this, path] { openSession(path); });
}

}  // namespace sinkscope::ui
