#pragma once
// A workspace and its panels as a session (ui/session.h): what they show,
// and a session applied to them in two steps: the model and the sentence
// first (opening the model when another one is shown), then, once that run
// is shown, the selection, the interventions, the comparison, the
// checkpoints, the study, the panels' options and cameras. The window adds
// its layout; `sinkscope figure` uses it as it is.
#include <QObject>
#include <QString>
#include <optional>

#include "ui/session.h"

namespace sinkscope::ui {

class PanelBoard;
class Workspace;

class WorkspaceSession : public QObject {
  Q_OBJECT

 public:
  WorkspaceSession(Workspace* workspace, PanelBoard* panels, QObject* parent = nullptr);
  // What the workspace and panels show now (no layout, no figure views).
  Session current() const;
  // Applies `session`; applied() follows once its run is shown (never when
  // its model or run fails: the workspace says why).
  void open(Session session);
  // The same from the run's capture (`captureFile`, the NPZ saved with the
  // session): no model is opened.
  void openWithCapture(Session session, const QString& captureFile);
  // Of the last session applied: the model's changes since it was saved, and
  // the places it names that the model, sentence or folders lack (empty: none).
  const QString& warning() const { return warning_; }
  const QString& placesOutside() const { return placesOutside_; }
  // The places outside the details: one per line.
  const QString& placesOutsideDetails() const { return outsideDetails_; }
  const QString& warningDetails() const { return warningDetails_; }

 Q_SIGNALS:
  void applied(const sinkscope::document::Session& session);
  // A place the session names that the compared run B lacks, found once B's
  // run is in (after `applied`); placesOutside() holds it too.
  void placesOutsideFound(const QString& message, const QString& details);

 private:
  void finish();
  void checkModelChanges(const Session& s);

  Workspace* workspace_;
  PanelBoard* panels_;
  std::optional<Session> pending_;  // applied once the next run is shown
  QString warning_, warningDetails_, placesOutside_, outsideDetails_;
};

}  // namespace sinkscope::ui
