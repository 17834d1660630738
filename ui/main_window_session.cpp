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
#include "models/trace_export.h"

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
#include "ui/panel_board.h"
#include "ui/workspace_session.h"
#include "ui/workspace.h"
#include "ui/selection_model.h"

namespace sinkscope::ui {

namespace {
const QString kRecentKey = QStringLiteral("sessions/recent");
const QString kLastKey = QStringLiteral("sessions/last");
constexpr int kRecentCount = 8;
}  // namespace

Session MainWindow::currentSession() const {
  Session s = session_->current();
  // Saved while presenting: the layout the classroom mode comes back to.
  s.layout = (presenting_ ? beforePresenting_ : saveState()).toStdString();
  for (const QString& view : figureViews_) s.figureViews.push_back(view.toStdString());
  s.figureColumns = figureColumns_;
  return s;
}

const QString& MainWindow::lastSessionWarning() const { return session_->warning(); }
const QString& MainWindow::lastSessionPlacesOutside() const { return session_->placesOutside(); }

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

bool MainWindow::saveSessionWithRun(const QString& path) {
  Session s = currentSession();
  const auto& run = workspace_->run();
  if (s.model.empty() || !run || !run->trace) {
    jobStatus_->showError(tr("Save session with its run: no model's run is shown"), QString());
    return false;
  }
  const std::filesystem::path file = path.toStdString();
  s.capture = file.stem().string() + ".capture.npz";
  const std::filesystem::path capture = file.parent_path() / s.capture;
  try {
    models::TraceExportOptions options;
    options.overwrite = true;
    options.modelName = s.model;
    models::trace_write_npz(*run->trace, run->tokenStrings(), capture, options);
  } catch (const std::exception& e) {
    jobStatus_->showError(tr("Save session with its run failed"), QString::fromUtf8(e.what()));
    return false;
  }
  try {
    session_write(s, file);
  } catch (const SessionError& e) {
    std::error_code ignored;
    std::filesystem::remove(capture, ignored);  // both or neither
    jobStatus_->showError(tr("Save session with its run failed"), QString::fromStdString(e.what()));
    return false;
  }
  rememberSession(path);
  return true;
}

void MainWindow::chooseSessionWithRunToSave() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Save session with its run (the session and NAME.capture.npz beside it)"),
      QDir::home().filePath(QStringLiteral("session.sinkscope")),
      tr("SinkScope session (*.sinkscope)"));
  if (!path.isEmpty()) saveSessionWithRun(path);
}

void MainWindow::openSession(const QString& path) {
  jobStatus_->clearError();
  try {
    bool found = false;
    Session s = session_read_here(path.toStdString(), &found);
    const std::filesystem::path capture =
        s.capture.empty() ? std::filesystem::path()
                          : std::filesystem::path(path.toStdString()).parent_path() / s.capture;
    std::error_code missing;
    if (!found && !capture.empty() && std::filesystem::is_regular_file(capture, missing)) {
      // Saved with its run: it opens from the capture, no model needed.
      session_->openWithCapture(std::move(s), QString::fromStdString(capture.string()));
      rememberSession(path);
      return;
    }
    if (!found) {
      // Not where it was, not beside the session, not in the Hugging Face
      // cache: the user says where it is (its hashes are checked on opening).
      const QString folder = QFileDialog::getExistingDirectory(
          this,
          tr("Where is the session's model %1? (not at %2, beside the session, or in the Hugging "
             "Face cache)")
              .arg(QString::fromStdString(s.hubName.empty() ? s.model : s.hubName),
                   QString::fromStdString(s.modelFolder)));
      if (folder.isEmpty()) {
        jobStatus_->showError(
            tr("Open session: its model %1 was not found").arg(QString::fromStdString(s.model)),
            QString());
        return;
      }
      s.modelFolder = folder.toStdString();
    }
    session_->open(std::move(s));
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
    session_->open(session_from_json(last.toStdString(), tr("the last session").toStdString()));
  } catch (const SessionError& e) {
    jobStatus_->showError(tr("The last session could not be restored"),
                          QString::fromStdString(e.what()));
    return false;
  }
  return true;
}

void MainWindow::finishSession(const Session& s) {
  QStringList views;
  for (const std::string& view : s.figureViews) views << QString::fromStdString(view);
  setFigureLayout(views, s.figureColumns);
  if (!s.layout.empty()) applyLayout(QByteArray::fromStdString(s.layout));
  const QString& warning = session_->warning();
  const QString& outside = session_->placesOutside();
  if (!warning.isEmpty()) jobStatus_->showError(warning, session_->warningDetails());
  if (!outside.isEmpty())
    jobStatus_->showError(warning.isEmpty() ? outside : outside + QLatin1Char(' ') + warning,
                          session_->placesOutsideDetails());
  Q_EMIT sessionApplied();
}

void MainWindow::setSceneCameras(
    const std::vector<std::pair<QString, views::SceneCamera>>& cameras) {
  board_->setSceneCameras(cameras);
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
