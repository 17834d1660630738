#pragma once
// A figure by names (ui/figure_request.h) of a workspace's panels: the
// request's selection, comparison and camera applied, then, once the run and
// every background result the panels asked for are drawn, the figure written
// by the same code as Ctrl+E (one view: with its CSV and provenance; several:
// (a), (b), ... in a grid). Needs no window: `sinkscope figure` and the GUI
// both use it.
#include <QObject>
#include <QString>
#include <QStringList>
#include <vector>

#include "render/panel_export.h"
#include "ui/figure_request.h"

class QWidget;

namespace sinkscope::render {
class DrawnViews;
}

namespace sinkscope::ui {

class PanelBoard;
class Workspace;

// One view to `path` (.png, .pdf, .svg, or .csv of its numbers) with the
// provenance lines in its header; throws std::exception saying why not.
void figure_write_view(const render::DrawnViews& drawn, QWidget* view, const QString& path,
                       const render::FigureOptions& options, const QStringList& provenance,
                       bool overwrite);

class FigureWriter : public QObject {
  Q_OBJECT

 public:
  FigureWriter(Workspace* workspace, PanelBoard* panels, QObject* parent = nullptr);
  // Emits written(true, path) or written(false, reason); one request at a time.
  void writeWhenReady(const FigureRequest& request);
  // What the last figure left out (views with nothing to draw); empty if nothing.
  const QString& lastNote() const { return note_; }

 Q_SIGNALS:
  void written(bool ok, const QString& pathOrReason);

 private:
  // The request's selection and camera; empty, or why not.
  QString applySelection(const FigureRequest& request);
  // The request's pinned place in B and comparison mode; empty, or why not.
  QString applyComparison(const FigureRequest& request);
  // One look at the jobs: the figure is written after two quiet looks in a
  // row, each one event-loop turn apart; a look while jobs run waits for the
  // runner to go idle.
  void look();
  void write();
  void finish(bool ok, const QString& pathOrReason);

  Workspace* workspace_;
  PanelBoard* panels_;
  std::optional<FigureRequest> request_;  // the one being written
  QStringList views_;
  int quietLooks_ = 0;
  bool comparisonApplied_ = false;
  QString note_;
};

}  // namespace sinkscope::ui
