#include "ui/panels/layer_profiles_panel.h"

#include <QSplitter>
#include <limits>
#include <optional>

#include "models/document/plot_views.h"
#include "models/document/trace_analysis.h"
#include "render/drawn_views.h"
#include "render/line_plot_view.h"
#include "ui/docks.h"
#include "ui/selection_model.h"

namespace sinkscope::ui {

LayerProfilesPanel::LayerProfilesPanel(PanelInputs& inputs, QWidget* host)
    : Panel(inputs, host) {
  layerSink_ = new render::LinePlotView(host);
  layerSink_->setObjectName(QStringLiteral("layerSinkProfile"));
  layerTopology_ = new render::LinePlotView(host);
  layerTopology_->setObjectName(QStringLiteral("layerTopologyProfile"));
  layerFunction_ = new render::LinePlotView(host);
  layerFunction_->setObjectName(QStringLiteral("layerFunctionProfile"));
  QSplitter* profiles = panel_splitter();
  profiles->addWidget(layerSink_);
  profiles->addWidget(layerTopology_);
  profiles->addWidget(layerFunction_);
  setContent(QStringLiteral("layer-profiles"), profiles,
           tr("How sink measures change with depth: attention to the first token, the share of "
              "heads whose mean attention to it exceeds 0.3 (the sink rate), degree "
              "centralisation, bar counts and the effective rank of the hidden states."));
}

void LayerProfilesPanel::drawNote(const QString& note) {
  for (render::LinePlotView* view : {layerSink_, layerTopology_, layerFunction_})
    drawn().show(view, document::note_plot(note.toStdString()));
}

void LayerProfilesPanel::drawLayerProfiles() {
  drawSinks();
  drawTopology();
  drawFunction();
}

document::RunNames LayerProfilesPanel::runNames() const { return in_.runNames(); }

// Attention to position 0, the sink rate and the centralisation by layer;
// side by side, the plain run's sink measures dashed, in the same colours.
void LayerProfilesPanel::drawSinks() {
  const TraceAnalysis& a = *in_.analysis;
  const document::AnalysisSettings& settings = a.settings;  // the run's analysis's
  const double threshold = in_.selection->threshold();
  // Long inputs: the per-layer topology is left out (NaN: no point drawn).
  const auto central = [&](int l) {
    const auto g = in_.cheap() ? in_.spectrumAt(l, SelectionModel::kHeadAverage) : nullptr;
    return g ? g->centralisation : std::numeric_limits<double>::quiet_NaN();
  };
  const document::LayerProfileView view =
      document::layer_sink_view(a, settings, threshold, central);
  // The plain run: its sink measures (its topology is not recomputed).
  std::optional<document::LayerProfileView> plain;
  if (in_.before) plain = document::layer_sink_view(*in_.before, settings, threshold);
  drawn().show(layerSink_,
               document::layer_sinks_plot(view, plain ? &*plain : nullptr, a.layers,
                                          in_.before ? in_.before->layers : 0,
                                          in_.source.toStdString(), settings.eps, threshold,
                                          in_.layerAxis(), runNames(), in_.place.layer()));
}

// H0 and H1 bars, the effective rank and the Fiedler value by layer; side by
// side, the plain run's effective rank dashed (the rank is what sink removal
// is said to change: Barbero et al., over-mixing).
void LayerProfilesPanel::drawTopology() {
  const TraceAnalysis& a = *in_.analysis;
  const document::AnalysisSettings& settings = a.settings;  // the run's analysis's
  const double threshold = in_.selection->threshold();
  const auto fiedlerOf = [&](int l) {
    // Long inputs: the per-layer topology is left out (NaN: no point drawn).
    const auto g = in_.cheap() ? in_.spectrumAt(l, SelectionModel::kHeadAverage) : nullptr;
    return g ? g->fiedlerValue : std::numeric_limits<double>::quiet_NaN();
  };
  const document::LayerProfileView view =
      document::layer_topology_view(a, settings, threshold, fiedlerOf);
  std::optional<document::LayerProfileView> plain;
  if (in_.before) plain = document::layer_topology_view(*in_.before, settings, threshold);
  drawn().show(layerTopology_, document::layer_topology_plot(
                                   view, plain ? &*plain : nullptr, a.layers,
                                   in_.before ? in_.before->layers : 0, settings.minPersistence,
                                   threshold, in_.cheap(), document::kTopologyForAllHeadsMaxTokens,
                                   in_.layerAxis(), runNames(), in_.place.layer()));
}

// KL after sink removal and the Fisher trace by layer, each scaled to its maximum.
void LayerProfilesPanel::drawFunction() {
  drawn().show(layerFunction_, document::layer_function_plot(in_.experiments.klPerLayer,
                                                             in_.experiments.fisherPerParameter,
                                                             in_.place.layer()));
}

}  // namespace sinkscope::ui
