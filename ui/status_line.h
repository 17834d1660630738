#pragma once
// The window's status bar, right side: the open model, the token count (and
// a long input's warning), the device, the interventions and the jobs, all
// following the workspace; the bar's left stays for passing messages.
#include <QObject>

class QLabel;
class QStatusBar;

namespace sinkscope::ui {

class JobStatus;
class Workspace;

class StatusLine : public QObject {
  Q_OBJECT

 public:
  StatusLine(Workspace* workspace, QStatusBar* bar);
  JobStatus* jobStatus() const { return jobStatus_; }

 private:
  void showModel();
  void showTokenCount();
  void showInterventions();

  Workspace* workspace_;
  QLabel* model_;
  QLabel* tokens_;
  QLabel* device_;
  QLabel* interventions_;
  JobStatus* jobStatus_;
};

}  // namespace sinkscope::ui
