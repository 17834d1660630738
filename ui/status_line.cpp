#include "ui/status_line.h"

#include <QLabel>
#include <QStatusBar>

#include "models/model_identity.h"
#include "models/runtime_info.h"
#include "ui/job_status.h"
#include "ui/selection_model.h"
#include "ui/workspace.h"

namespace sinkscope::ui {

StatusLine::StatusLine(Workspace* workspace, QStatusBar* bar)
    : QObject(bar),
      workspace_(workspace),
      model_(new QLabel(tr("no model"), bar)),
      tokens_(new QLabel(tr("T = 0"), bar)),
      device_(new QLabel(bar)),
      interventions_(new QLabel(bar)),
      jobStatus_(new JobStatus(workspace->jobs(), bar)) {
  tokens_->setObjectName(QStringLiteral("tokenStatus"));
  device_->setObjectName(QStringLiteral("deviceStatus"));
  interventions_->setObjectName(QStringLiteral("interventionStatus"));
  try {
    const models::RuntimeInfo info = models::runtime_info_query();
    device_->setText(QString::fromStdString(models::runtime_device_label(info)));
    device_->setToolTip(tr("libtorch %1").arg(QString::fromStdString(info.torch_version)));
  } catch (const std::exception& e) {
    device_->setText(tr("device unknown"));
    device_->setToolTip(QString::fromUtf8(e.what()));
  }
  // All on the right, never hidden: the bar's messages (a comparison's
  // sentences, a warning) take the left and are not drawn over them.
  for (QWidget* w : {static_cast<QWidget*>(model_), static_cast<QWidget*>(tokens_),
                     static_cast<QWidget*>(device_), static_cast<QWidget*>(interventions_),
                     static_cast<QWidget*>(jobStatus_)})
    bar->addPermanentWidget(w);
  connect(workspace, &Workspace::modelOpened, this, &StatusLine::showModel);
  connect(workspace, &Workspace::captureOpened, this, [this] {
    model_->setText(tr("capture: %1").arg(QString::fromStdString(workspace_->run()->source)));
  });
  connect(workspace, &Workspace::runShown, this, &StatusLine::showTokenCount);
  connect(workspace->selection(), &SelectionModel::interventionsChanged, this,
          &StatusLine::showInterventions);
  connect(workspace, &Workspace::failed, jobStatus_, &JobStatus::showError);
  connect(workspace, &Workspace::errorsCleared, jobStatus_, &JobStatus::clearError);
  connect(workspace, &Workspace::notice, bar, &QStatusBar::showMessage);
  showInterventions();
}

void StatusLine::showModel() {
  const auto& model = workspace_->model()->model;
  model_->setText(tr("model: %1 (%2)")
                      .arg(QString::fromStdString(models::model_display_name(model->folder())),
                           QString::fromStdString(model->config().model_type)));
}

void StatusLine::showTokenCount() {
  const SentenceRun& run = *workspace_->run();
  const int T = run.tokenCount();
  // Beyond the trained context a model's sink may vanish: say so where T is
  // shown (it stays), and in the status bar (the workspace's notice).
  const bool beyond = !run.beyondTrainedContext.empty();
  tokens_->setText(beyond ? tr("T = %1 (beyond the trained context)").arg(T) : tr("T = %1").arg(T));
  tokens_->setStyleSheet(beyond ? QStringLiteral("color: #b35806; font-weight: bold;") : QString());
  tokens_->setToolTip(beyond ? QString::fromStdString(run.beyondTrainedContext) : QString());
}

void StatusLine::showInterventions() {
  QStringList labels;
  for (const std::string& label : workspace_->selection()->interventions().labels())
    labels << QString::fromStdString(label);
  interventions_->setText(labels.isEmpty() ? tr("no interventions")
                                           : tr("interventions: %1").arg(labels.join(tr("; "))));
}

}  // namespace sinkscope::ui
