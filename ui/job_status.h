#pragma once
// The status-bar corner that shows job progress (only for jobs slower than
// JobRunner::kProgressDelay) with a cancel button, and the last error with a
// "Details" button that opens the full report.
#include <QString>
#include <QWidget>
#include <vector>

class QLabel;
class QProgressBar;
class QToolButton;

namespace sinkscope::ui {

class JobRunner;

class JobStatus : public QWidget {
  Q_OBJECT

 public:
  JobStatus(JobRunner* runner, QWidget* parent = nullptr);

  // Shows `message` in the status bar and keeps `details` for the dialog.
  void showError(const QString& message, const QString& details);
  void clearError();
  QString lastError() const { return errorMessage_; }
  QString lastErrorDetails() const { return errorDetails_; }
  bool progressVisible() const;

 public Q_SLOTS:
  void showErrorDetails();

 private:
  JobRunner* runner_;
  quint64 shownJob_ = 0;
  struct SlowJob {
    quint64 id;
    QString name;
    double fraction;
  };
  std::vector<SlowJob> slowJobs_;  // running jobs past the progress delay, oldest first
  void showNewestJob();
  QLabel* jobLabel_;
  QProgressBar* progress_;
  QToolButton* cancel_;
  QLabel* error_;
  QToolButton* details_;
  QString errorMessage_;
  QString errorDetails_;
};

}  // namespace sinkscope::ui
