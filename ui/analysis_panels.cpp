#include "ui/analysis_panels.h"

#include <QWidget>

#include "models/document/sentence_run.h"
#include "models/document/trace_analysis.h"
#include "ui/deferred_results.h"
#include "ui/layer_fetch.h"
#include "ui/panels/graph_panel.h"
#include "ui/panels/head_view_panel.h"
#include "ui/panels/layer_profiles_panel.h"
#include "ui/panels/persistence_panel.h"
#include "ui/panels/spectrum_panel.h"
#include "ui/panels/taxonomy_panel.h"
#include "ui/panels/value_space_panel.h"
#include "ui/selection_model.h"

namespace sinkscope::ui {

AnalysisPanels::AnalysisPanels(QWidget* host, SelectionModel* selection, JobRunner* jobs,
                               render::DrawnViews& drawn)
    : QObject(host) {
  inputs_.drawn = &drawn;
  // The inputs come first: panels connect to the selection as they are made.
  inputs_.selection = selection;
  inputs_.place = ShownPlace(selection);
  inputs_.deferred = new DeferredResults(jobs, this);
  overview_ = new OverviewPanel(inputs_, host);
  persistence_ = new PersistencePanel(inputs_, host);
  spectrum_ = new SpectrumPanel(inputs_, host);
  taxonomy_ = new TaxonomyPanel(inputs_, host);
  profiles_ = new LayerProfilesPanel(inputs_, host);
  graph_ = new GraphPanel(inputs_, host);
  valueSpace_ = new ValueSpacePanel(inputs_, host);
  headView_ = new HeadViewPanel(inputs_, host);
  panels_ = {overview_,  persistence_, spectrum_,  taxonomy_,
             profiles_,  graph_,       valueSpace_, headView_};

  connect(selection, &SelectionModel::changed, this, &AnalysisPanels::refresh);
  connect(inputs_.deferred, &DeferredResults::arrived, this, &AnalysisPanels::refresh);
}

render::HeatMapView* AnalysisPanels::overviewView() const { return overview_->view(); }
render::LinePlotView* AnalysisPanels::diagramView() const { return persistence_->diagramView(); }
render::LinePlotView* AnalysisPanels::bettiView() const { return persistence_->bettiView(); }
render::LinePlotView* AnalysisPanels::barcodeView() const { return persistence_->barcodeView(); }
render::LinePlotView* AnalysisPanels::spectrumView() const { return spectrum_->spectrumView(); }
render::HeatMapView* AnalysisPanels::taxonomyView() const { return taxonomy_->gridView(); }
render::LinePlotView* AnalysisPanels::taxonomyCountsView() const { return taxonomy_->countsView(); }
render::LinePlotView* AnalysisPanels::layerSinkView() const { return profiles_->sinkView(); }
render::LinePlotView* AnalysisPanels::layerTopologyView() const {
  return profiles_->topologyView();
}
render::LinePlotView* AnalysisPanels::layerFunctionView() const {
  return profiles_->functionView();
}
render::SceneView* AnalysisPanels::graphView() const { return graph_->view(); }
render::SceneView* AnalysisPanels::embeddingView() const { return spectrum_->embeddingView(); }
render::SceneView* AnalysisPanels::valueSpaceView() const { return valueSpace_->sceneView(); }
render::LinePlotView* AnalysisPanels::valueCurveView() const { return valueSpace_->curveView(); }
render::HeadView* AnalysisPanels::headView() const { return headView_->view(); }

void AnalysisPanels::setGraphLayout(int layout) { graph_->setLayout(layout); }

void AnalysisPanels::setRunNames(const document::RunNames& names) {
  inputs_.beforeName = QString::fromStdString(names.before);
  inputs_.afterName = QString::fromStdString(names.after);
  inputs_.comparing = names.comparison;
}

void AnalysisPanels::setRun(std::shared_ptr<const SentenceRun> run,
                            std::shared_ptr<const TraceAnalysis> before, ShownPlace place) {
  inputs_.run = std::move(run);
  inputs_.before = std::move(before);
  inputs_.place = std::move(place);
  inputs_.deferred->clear();
  inputs_.analysis = inputs_.run ? inputs_.run->analysis : nullptr;
  inputs_.source = inputs_.run ? QString::fromStdString(inputs_.run->source) : QString();
  refresh();
}

void AnalysisPanels::setExperiments(ExperimentResults results) {
  inputs_.experiments = std::move(results);
  refresh();
}

void AnalysisPanels::setScore(HeadScore score) { overview_->setScore(score); }

void AnalysisPanels::refresh() {
  const PanelInputs& in = inputs_;
  if (in.run && !in.analysis) {
    // The map is shown; the analyses are still being computed.
    const QString note =
        in.run->trace ? tr("Analysing every head of the run (T = %1)...").arg(in.run->tokenCount())
                      : tr("No model open: these panels need a model's attention (File > Open "
                           "model folder)");
    for (Panel* panel : panels_) panel->drawNote(note);
    return;
  }
  if (!in.selectionFits()) return;
  if (in.run && !in.run->layerAtHand(in.place.layer())) {
    // Every panel reads the selected layer (a head's topology, its graph, the
    // taxonomy's reason): they wait for it together.
    if (layerFetch_) layerFetch_->ensure(*in.run, in.place.layer());
    const QString note = in.layerNote(in.place.layer());
    for (Panel* panel : panels_) panel->drawNote(note);
    return;
  }
  in.deferred->beginPass();
  for (Panel* panel : panels_)
    if (drawOnly_.isEmpty() || drawOnly_.contains(panel->name())) panel->draw();
  in.deferred->endPass();  // work for selections left behind stops
}

}  // namespace sinkscope::ui
