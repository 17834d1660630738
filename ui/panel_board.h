#pragma once
// Every panel of ui/panel_registry.h drawing one workspace: made once,
// redrawn when the workspace or its selection changes, their options and 3-D
// cameras read and set as a session keeps them. No layout: the panels'
// widgets are made under `host`; the window moves them into docks, and
// `sinkscope figure` draws them without a window.
#include <QObject>
#include <QString>
#include <QStringList>
#include <utility>
#include <vector>

#include "render/drawn_views.h"
#include "render/scene_data.h"
#include "ui/session.h"

class QTimer;
class QWidget;

namespace sinkscope::ui {

class AnalysisPanels;
class AttentionMapPanel;
class CheckpointsPanel;
class KeyImportancePanel;
class LayerFetch;
struct PanelEntry;
class Workspace;

class PanelBoard : public QObject {
  Q_OBJECT

 public:
  PanelBoard(Workspace* workspace, QWidget* host);

  Workspace* workspace() const { return workspace_; }
  AttentionMapPanel* attentionMap() const { return attentionMap_; }
  KeyImportancePanel* keyImportance() const { return keyImportance_; }
  AnalysisPanels* analysisPanels() const { return analysis_; }
  CheckpointsPanel* checkpoints() const { return checkpoints_; }
  // What every view was last given to draw (exports read it, never a widget).
  render::DrawnViews& drawnViews() { return drawn_; }
  const render::DrawnViews& drawnViews() const { return drawn_; }
  // What the dock of registry row `name` holds.
  QWidget* content(const QString& name) const;
  // The exportable views with these object names, in this order (a name
  // with no view is skipped).
  std::vector<QWidget*> viewsNamed(const QStringList& names) const;
  // The panels' own options (log scale, overview score, graph layout,
  // normalised Laplacian) and the 3-D views' cameras, into a session and back.
  void storeOptions(Session& session) const;
  void applyOptions(const Session& session);
  // Looks at the named 3-D views (graphView, spectralEmbedding, valueSpaceView) from these cameras.
  void setSceneCameras(const std::vector<std::pair<QString, views::SceneCamera>>& cameras);
  // Only the panels holding these views draw (a figure's): the others ask for
  // no background work, so the figure waits for what it shows alone.
  void drawOnlyPanelsOf(const QStringList& views);

 public Q_SLOTS:
  // Draws the workspace's runs in every panel now.
  void redraw();
  // Draws now what selection changes have left for the next event-loop turn
  // (a figure is written only after them).
  void flushDraws();

 Q_SIGNALS:
  // A panel cannot draw (message, details), or has a passing note.
  void failed(const QString& message, const QString& details);
  void notice(const QString& message, int milliseconds);

 private:
  void connectWorkspace();
  void drawMaps();  // the attention map and key importance
  void drawAnalysis();
  template <class T>
  T* findOption(const QString& objectName) const;

  Workspace* workspace_;
  render::DrawnViews drawn_;  // before the panels, which draw into it
  // Before the panels: its handler of a selection change (forgetting a
  // stopped fetch) must run before theirs, which draw and may ask again.
  LayerFetch* layerFetch_;
  AttentionMapPanel* attentionMap_;
  KeyImportancePanel* keyImportance_;
  AnalysisPanels* analysis_;
  CheckpointsPanel* checkpoints_;
  QTimer* batchedDraw_;  // many selection changes in one event-loop turn: one draw
};

}  // namespace sinkscope::ui
