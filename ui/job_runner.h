#pragma once
// Runs long work off the GUI thread. Work gets a progress callback
// (bool(double): report a fraction, false back = stop now); results and
// errors come back to the GUI thread through one queued path; a job's
// progress is announced only once it has run for kProgressDelay, so short jobs
// never flash a progress bar. Submitting to a group cancels the group's
// earlier jobs (a new sentence supersedes the one still running).
#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QTimer>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>

namespace sinkscope::ui {

using JobProgress = std::function<bool(double fraction)>;

// Thrown by work that notices it was cancelled (or use job_check); the
// libraries' own models::RunCancelled and analysis::AnalysisStopped count too.
class JobCancelled : public std::runtime_error {
 public:
  JobCancelled() : std::runtime_error("cancelled") {}
};

// Reports `fraction` and throws JobCancelled when the job should stop.
inline void job_check(const JobProgress& progress, double fraction) {
  if (!progress(fraction)) throw JobCancelled();
}

class JobRunner : public QObject {
  Q_OBJECT

 public:
  using JobId = quint64;
  static constexpr std::chrono::milliseconds kProgressDelay{150};

  explicit JobRunner(QObject* parent = nullptr, int maxThreads = 2);
  ~JobRunner() override;  // cancels every job and waits for the workers

  // Runs work(progress) on a worker; on success calls onResult(result) on the
  // GUI thread. Exceptions become jobFailed; cancelled jobs deliver nothing.
  template <class Result>
  JobId submit(const QString& name, std::function<Result(const JobProgress&)> work,
               std::function<void(Result)> onResult, const QString& group = {}) {
    auto erased = [work = std::move(work),
                   onResult = std::move(onResult)](const JobProgress& p) -> std::function<void()> {
      auto result = std::make_shared<Result>(work(p));
      return [onResult, result] {
        if (onResult) onResult(std::move(*result));
      };
    };
    return submitErased(name, std::move(erased), group);
  }

  void cancel(JobId id);
  void cancelGroup(const QString& group);
  void cancelAll();
  int activeJobCount() const { return static_cast<int>(jobs_.size()); }
  bool isActive(JobId id) const { return jobs_.count(id) > 0; }
  // Blocks (processing events) until no job is active or the timeout passes.
  bool waitForIdle(int timeoutMs);

 Q_SIGNALS:
  void jobStarted(quint64 id, const QString& name);
  // The job has run longer than kProgressDelay: show its progress now.
  void jobProgressShown(quint64 id, const QString& name);
  void jobProgress(quint64 id, double fraction);
  void jobFinished(quint64 id, const QString& name);
  void jobCancelled(quint64 id, const QString& name);
  // message: one line for the status bar; details: everything known.
  void jobFailed(quint64 id, const QString& name, const QString& message, const QString& details);
  void idle();

 private:
  struct Job {
    QString name;
    QString group;
    QElapsedTimer clock;
    std::atomic<double> fraction{0.0};
    std::atomic<bool> cancelRequested{false};
    double shownFraction = -1.0;
    bool progressShown = false;
  };
  using ErasedWork = std::function<std::function<void()>(const JobProgress&)>;

  JobId submitErased(const QString& name, ErasedWork work, const QString& group);
  // The one way back to the GUI thread.
  void deliver(JobId id, std::function<void()> onGuiThread, bool failed, const QString& message,
               const QString& details);
  void pollProgress();

  QThreadPool pool_;
  QTimer poll_;
  std::map<JobId, std::shared_ptr<Job>> jobs_;
  JobId nextId_ = 1;
};

}  // namespace sinkscope::ui
