#include "ui/job_status.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QToolButton>

#include "ui/job_runner.h"

namespace sinkscope::ui {

JobStatus::JobStatus(JobRunner* runner, QWidget* parent) : QWidget(parent), runner_(runner) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  jobLabel_ = new QLabel(this);
  jobLabel_->setObjectName(QStringLiteral("jobLabel"));
  progress_ = new QProgressBar(this);
  progress_->setObjectName(QStringLiteral("jobProgress"));
  progress_->setRange(0, 1000);
  progress_->setMaximumWidth(160);
  progress_->setTextVisible(false);
  cancel_ = new QToolButton(this);
  cancel_->setObjectName(QStringLiteral("jobCancel"));
  cancel_->setText(tr("Cancel"));
  error_ = new QLabel(this);
  error_->setObjectName(QStringLiteral("errorLabel"));
  error_->setStyleSheet(QStringLiteral("color: #b2182b;"));
  details_ = new QToolButton(this);
  details_->setObjectName(QStringLiteral("errorDetails"));
  details_->setText(tr("Details..."));
  for (QWidget* w : {static_cast<QWidget*>(error_), static_cast<QWidget*>(details_),
                     static_cast<QWidget*>(jobLabel_), static_cast<QWidget*>(progress_),
                     static_cast<QWidget*>(cancel_)}) {
    layout->addWidget(w);
    w->hide();
  }

  // Several slow jobs may run at once (a sentence, background results): the
  // newest one still running is shown; when it ends, the one before it.
  connect(runner_, &JobRunner::jobProgressShown, this, [this](quint64 id, const QString& name) {
    slowJobs_.push_back({id, name, 0.0});
    showNewestJob();
  });
  connect(runner_, &JobRunner::jobProgress, this, [this](quint64 id, double f) {
    for (auto& job : slowJobs_)
      if (job.id == id) job.fraction = f;
    if (id == shownJob_) showNewestJob();
  });
  auto hideProgress = [this](quint64 id) {
    std::erase_if(slowJobs_, [id](const SlowJob& job) { return job.id == id; });
    showNewestJob();
  };
  connect(runner_, &JobRunner::jobFinished, this, hideProgress);
  connect(runner_, &JobRunner::jobCancelled, this, hideProgress);
  connect(runner_, &JobRunner::jobFailed, this,
          [this, hideProgress](quint64 id, const QString&, const QString& message,
                               const QString& details) {
            hideProgress(id);
            showError(message, details);
          });
  connect(cancel_, &QToolButton::clicked, this, [this] {
    if (shownJob_) runner_->cancel(shownJob_);
  });
  connect(details_, &QToolButton::clicked, this, &JobStatus::showErrorDetails);
}

void JobStatus::showNewestJob() {
  if (slowJobs_.empty()) {
    shownJob_ = 0;
    jobLabel_->hide();
    progress_->hide();
    cancel_->hide();
    return;
  }
  const SlowJob& job = slowJobs_.back();
  shownJob_ = job.id;
  jobLabel_->setText(slowJobs_.size() > 1
                         ? tr("%1 (+%2 more)").arg(job.name).arg(slowJobs_.size() - 1)
                         : job.name);
  // A job that reports no fraction (a single long analysis) shows a busy bar.
  if (job.fraction > 0) {
    progress_->setRange(0, 1000);
    progress_->setValue(static_cast<int>(job.fraction * 1000));
  } else {
    progress_->setRange(0, 0);
  }
  jobLabel_->show();
  progress_->show();
  cancel_->show();
}

bool JobStatus::progressVisible() const { return !progress_->isHidden(); }

void JobStatus::showError(const QString& message, const QString& details) {
  errorMessage_ = message;
  errorDetails_ = details.isEmpty() ? message : details;
  error_->setText(message);
  error_->setToolTip(errorDetails_);
  error_->show();
  details_->show();
}

void JobStatus::clearError() {
  errorMessage_.clear();
  errorDetails_.clear();
  error_->hide();
  details_->hide();
}

void JobStatus::showErrorDetails() {
  if (errorMessage_.isEmpty()) return;
  QMessageBox box(QMessageBox::Warning, tr("SinkScope: error"), errorMessage_, QMessageBox::Ok,
                  window());
  box.setDetailedText(errorDetails_);
  box.exec();
}

}  // namespace sinkscope::ui
