#pragma once
// The analysis docks that follow the shared selection: model overview,
// persistence, spectrum, taxonomy, layer profiles, attention graph and value
// space, one Panel class each (ui/panels/). This object owns them and their
// shared inputs, and tells them when to draw: on a new run, a selection
// change, or a background result arriving. They never call each other.
#include <QObject>
#include <QString>
#include <memory>
#include <vector>

#include "ui/panels/overview_panel.h"
#include "ui/panels/panel.h"

class QWidget;

namespace sinkscope::render {
class DrawnViews;
class HeadView;
class HeatMapView;
class LinePlotView;
class SceneView;
}  // namespace sinkscope::render

namespace sinkscope::ui {

class DeferredResults;
class GraphPanel;
class HeadViewPanel;
class JobRunner;
class LayerFetch;
class LayerProfilesPanel;
class PersistencePanel;
class SpectrumPanel;
class TaxonomyPanel;
class ValueSpacePanel;

class AnalysisPanels : public QObject {
  Q_OBJECT

 public:
  // The panels' widgets are made with `host` as their parent (the window
  // moves them into docks).
  AnalysisPanels(QWidget* host, SelectionModel* selection, JobRunner* jobs,
                 render::DrawnViews& drawn);
  // Per-selection results of the shown run (tests look at what is pending).
  DeferredResults* deferredResults() const { return inputs_.deferred; }

  // Every panel this object made, in registry order.
  const std::vector<Panel*>& panels() const { return panels_; }
  // Only these panels (registry names) draw, and so ask for background work
  // (a figure of some panels waits for theirs alone); empty: every panel.
  void drawOnly(const QStringList& panelNames) { drawOnly_ = panelNames; }
  render::HeatMapView* overviewView() const;
  render::LinePlotView* diagramView() const;
  render::LinePlotView* bettiView() const;
  render::LinePlotView* barcodeView() const;
  render::LinePlotView* spectrumView() const;
  render::HeatMapView* taxonomyView() const;
  render::LinePlotView* taxonomyCountsView() const;
  render::LinePlotView* layerSinkView() const;
  render::LinePlotView* layerTopologyView() const;
  render::LinePlotView* layerFunctionView() const;
  render::SceneView* graphView() const;
  render::SceneView* embeddingView() const;
  render::SceneView* valueSpaceView() const;
  render::LinePlotView* valueCurveView() const;
  render::HeadView* headView() const;
  // 0: spectral embedding (3-D), 1: force-directed (2-D).
  void setGraphLayout(int layout);

  // The run the panels show (null: nothing); redraws. The panels share it, so
  // the window may replace its own runs at any time.
  // `before`: the plain run's analysis, for plots that overlay it (side by side).
  // The names of the compared runs (before/after, A/B, two models).
  void setRunNames(const document::RunNames& names);
  // `place`: where the selection lands in `run` (B of a comparison: its counterpart).
  void setRun(std::shared_ptr<const SentenceRun> run, std::shared_ptr<const TraceAnalysis> before,
              ShownPlace place);
  void setScore(HeadScore score);
  // Where a layer the run does not keep is recomputed off this thread (null:
  // on the spot, as a figure without a window may).
  void setLayerFetch(LayerFetch* fetch) {
    layerFetch_ = fetch;
    inputs_.layerFetch = fetch;
  }
  void setExperiments(ExperimentResults results);
  const ExperimentResults& experiments() const { return inputs_.experiments; }

 public Q_SLOTS:
  void refresh();

 private:
  PanelInputs inputs_;
  OverviewPanel* overview_;
  PersistencePanel* persistence_;
  SpectrumPanel* spectrum_;
  TaxonomyPanel* taxonomy_;
  LayerProfilesPanel* profiles_;
  GraphPanel* graph_;
  ValueSpacePanel* valueSpace_;
  HeadViewPanel* headView_;
  std::vector<Panel*> panels_;  // all of the above, in dock order
  QStringList drawOnly_;
  LayerFetch* layerFetch_ = nullptr;
};

}  // namespace sinkscope::ui
