#include "ui/job_runner.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QThread>
#include <vector>

#include "analysis/progress.h"
#include "models/model.h"

namespace sinkscope::ui {

JobRunner::JobRunner(QObject* parent, int maxThreads) : QObject(parent) {
  pool_.setMaxThreadCount(std::max(1, maxThreads));
  poll_.setInterval(30);
  connect(&poll_, &QTimer::timeout, this, &JobRunner::pollProgress);
}

JobRunner::~JobRunner() {
  for (auto& [id, job] : jobs_) job->cancelRequested = true;
  pool_.waitForDone();
}

JobRunner::JobId JobRunner::submitErased(const QString& name, ErasedWork work,
                                         const QString& group) {
  if (!group.isEmpty()) cancelGroup(group);
  const JobId id = nextId_++;
  auto job = std::make_shared<Job>();
  job->name = name;
  job->group = group;
  job->clock.start();
  jobs_[id] = job;
  Q_EMIT jobStarted(id, name);
  if (!poll_.isActive()) poll_.start();

  pool_.start([this, id, job, work = std::move(work)] {
    const JobProgress progress = [job](double fraction) {
      job->fraction = std::clamp(fraction, 0.0, 1.0);
      return !job->cancelRequested.load();
    };
    std::function<void()> onGui;
    QString message, details;
    bool failed = false;
    try {
      onGui = work(progress);
    } catch (const JobCancelled&) {
      job->cancelRequested = true;
    } catch (const models::RunCancelled&) {  // the model's way of saying "stopped on request"
      job->cancelRequested = true;
    } catch (const analysis::AnalysisStopped&) {  // the analyses' way
      job->cancelRequested = true;
    } catch (const std::exception& e) {
      failed = true;
      details = QString::fromUtf8(e.what());
      message = details.section(QLatin1Char('\n'), 0, 0);
    } catch (...) {
      failed = true;
      message = details = QStringLiteral("unknown error (a non-standard exception)");
    }
    QMetaObject::invokeMethod(
        this,
        [this, id, onGui = std::move(onGui), failed, message, details] {
          deliver(id, onGui, failed, message, details);
        },
        Qt::QueuedConnection);
  });
  return id;
}

void JobRunner::deliver(JobId id, std::function<void()> onGuiThread, bool failed,
                        const QString& message, const QString& details) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return;
  const std::shared_ptr<Job> job = it->second;
  jobs_.erase(it);
  if (job->cancelRequested) {
    Q_EMIT jobCancelled(id, job->name);
  } else if (failed) {
    Q_EMIT jobFailed(id, job->name, message, job->name + QStringLiteral(": ") + details);
  } else {
    bool callbackFailed = false;
    QString callbackError;
    try {
      if (onGuiThread) onGuiThread();
    } catch (const std::exception& e) {
      callbackFailed = true;
      callbackError = QString::fromUtf8(e.what());
    }
    if (callbackFailed)
      Q_EMIT jobFailed(id, job->name, callbackError.section(QLatin1Char('\n'), 0, 0),
                       job->name + QStringLiteral(": ") + callbackError);
    else
      Q_EMIT jobFinished(id, job->name);
  }
  if (jobs_.empty()) {
    poll_.stop();
    Q_EMIT idle();
  }
}

void JobRunner::pollProgress() {
  for (auto& [id, job] : jobs_) {
    if (!job->progressShown && job->clock.elapsed() >= kProgressDelay.count()) {
      job->progressShown = true;
      Q_EMIT jobProgressShown(id, job->name);
    }
    const double f = job->fraction.load();
    if (job->progressShown && f != job->shownFraction) {
      job->shownFraction = f;
      Q_EMIT jobProgress(id, f);
    }
  }
}

void JobRunner::cancel(JobId id) {
  if (auto it = jobs_.find(id); it != jobs_.end()) it->second->cancelRequested = true;
}

void JobRunner::cancelGroup(const QString& group) {
  for (auto& [id, job] : jobs_)
    if (job->group == group) job->cancelRequested = true;
}

void JobRunner::cancelAll() {
  for (auto& [id, job] : jobs_) job->cancelRequested = true;
}

bool JobRunner::waitForIdle(int timeoutMs) {
  QDeadlineTimer deadline(timeoutMs);
  while (!jobs_.empty() && !deadline.hasExpired()) {
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(2);
  }
  return jobs_.empty();
}

}  // namespace sinkscope::ui
