#include "ui/panels/layer_profiles_panel.h"

#include <QSplitter>
#include <algorithm>
#include <functional>
#include <cmath>
#include <limits>

#include "models/document/panel_views.h"
#include "render/line_plot_view.h"
#include "ui/docks.h"
#include "ui/run_analysis.h"
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
    view->setData({note, {}, {}, {}});
}

namespace {
// A layer profile's measure as a curve, each layer at x(layer).
render::LineSeries profile_series(const QString& name, const document::LayerProfileView& view,
                                  const std::string& column, const std::function<double(int)>& x) {
  render::LineSeries s{name, {}, {}};
  const std::vector<double>& y = view.measure(column);
  for (std::size_t l = 0; l < y.size(); ++l) {
    s.x.push_back(x(static_cast<int>(l)));
    s.y.push_back(y[l]);
  }
  return s;
}

// The profile's table, both runs' rows when two are compared.
std::shared_ptr<const io::CsvTable> profile_numbers(const document::LayerProfileView& shown,
                                                    const document::LayerProfileView* before,
                                                    const QString& shownName,
                                                    const QString& beforeName) {
  if (!before) return std::make_shared<const io::CsvTable>(shown.table);
  return std::make_shared<const io::CsvTable>(document::tables_by_run(
      {{beforeName.toStdString(), &before->table}, {shownName.toStdString(), &shown.table}}));
}
}  // namespace

void LayerProfilesPanel::drawLayerProfiles() {
  drawSinks();
  drawTopology();
  drawFunction();
}

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
  // Two runs of different depths overlay by relative depth (the index otherwise).
  const auto xOfShown = [&](int l) { return in_.layerX(l, a.layers); };
  const render::LineSeries sink = profile_series(tr("attention to position 0 (mean over heads)"),
                                                 view, "sink_attention", xOfShown);
  const render::LineSeries rate =
      profile_series(tr("sink rate (share of heads, alpha_0 > %1)").arg(settings.eps), view,
                     "sink_rate", xOfShown);
  const render::LineSeries centralisation =
      profile_series(tr("centralisation (head average, theta %1)").arg(in_.selection->threshold()),
                     view, "centralisation", xOfShown);
  render::LinePlotData top;
  top.title = tr("Sinks by layer | %1").arg(in_.source);
  top.xLabel = in_.layerAxisTitle();
  top.integerX = !in_.overlayByDepth();
  top.xPadding = in_.overlayByDepth() ? 0.05 : 0.5;
  top.yLabel = tr("share");
  top.series = {sink, rate, centralisation};
  top.numbers = profile_numbers(view, nullptr, in_.afterName, in_.beforeName);
  if (in_.before) {
    const TraceAnalysis& b = *in_.before;
    // The plain run: its sink measures (its topology is not recomputed).
    const document::LayerProfileView plain = document::layer_sink_view(b, settings, threshold);
    const auto xOfPlain = [&](int l) { return in_.layerX(l, b.layers); };
    render::LineSeries sinkBefore = profile_series(
        tr("attention to position 0, %1").arg(in_.beforeName), plain, "sink_attention", xOfPlain);
    render::LineSeries rateBefore =
        profile_series(tr("sink rate, %1").arg(in_.beforeName), plain, "sink_rate", xOfPlain);
    sinkBefore.dashed = rateBefore.dashed = true;
    sinkBefore.colourOf = 0, rateBefore.colourOf = 1;  // of sink and rate
    top.series = {sink, rate, centralisation, sinkBefore, rateBefore};
    top.title = tr("Sinks by layer | %1 (solid) and %2 (dashed) | %3").arg(in_.afterName, in_.beforeName, in_.source);
    top.numbers = profile_numbers(view, &plain, in_.afterName, in_.beforeName);
  }
  top.markedX = in_.place.layer();  // the selected layer
  layerSink_->setData(std::move(top));
}

// H0 and H1 bars, the effective rank and the Fiedler value by layer; side by
// side, the plain run's effective rank dashed (the rank is what sink removal
// is said to change: Barbero et al., over-mixing).
void LayerProfilesPanel::drawTopology() {
  const TraceAnalysis& a = *in_.analysis;
  const document::AnalysisSettings& settings = a.settings;  // the run's analysis's
  const auto fiedlerOf = [&](int l) {
    // Long inputs: the per-layer topology is left out (NaN: no point drawn).
    const auto g = in_.cheap() ? in_.spectrumAt(l, SelectionModel::kHeadAverage) : nullptr;
    return g ? g->fiedlerValue : std::numeric_limits<double>::quiet_NaN();
  };
  const document::LayerProfileView view =
      document::layer_topology_view(a, settings, in_.selection->threshold(), fiedlerOf);
  const auto x = [&](int l) { return in_.layerX(l, a.layers); };
  const QString min = QString::number(settings.minPersistence);
  const render::LineSeries h0 =
      profile_series(tr("H0 bars > %1 (head average)").arg(min), view, "bars_h0_above_min", x);
  const render::LineSeries h1 =
      profile_series(tr("H1 bars > %1 (head average)").arg(min), view, "bars_h1_above_min", x);
  const render::LineSeries rank =
      profile_series(tr("effective rank of the layer's input"), view, "effective_rank", x);
  const render::LineSeries fiedler =
      profile_series(tr("Fiedler value (head average, theta %1)").arg(in_.selection->threshold()),
                     view, "fiedler", x);
  render::LinePlotData bottom;
  bottom.title = in_.cheap() ? tr("Topology and rank by layer")
                             : tr("Rank by layer | topology per layer only up to T = %1")
                                   .arg(kTopologyForAllHeadsMaxTokens);
  bottom.xLabel = in_.layerAxisTitle();
  bottom.integerX = !in_.overlayByDepth();
  bottom.xPadding = in_.overlayByDepth() ? 0.05 : 0.5;
  bottom.yLabel = tr("count");
  // A capture keeps no residual stream: no rank to plot, and none in the legend.
  const bool ranked = std::any_of(rank.y.begin(), rank.y.end(), [](double r) { return std::isfinite(r); });
  bottom.series = ranked ? std::vector<render::LineSeries>{h0, h1, rank, fiedler}
                         : std::vector<render::LineSeries>{h0, h1, fiedler};
  bottom.numbers = profile_numbers(view, nullptr, in_.afterName, in_.beforeName);
  if (in_.before && ranked) {
    const document::LayerProfileView plain =
        document::layer_topology_view(*in_.before, settings, in_.selection->threshold());
    render::LineSeries rankBefore =
        profile_series(tr("effective rank, %1").arg(in_.beforeName), plain, "effective_rank",
                       [&](int l) { return in_.layerX(l, in_.before->layers); });
    rankBefore.dashed = true;
    rankBefore.colourOf = 2;  // of rank
    bottom.series = {h0, h1, rank, fiedler, rankBefore};
    bottom.numbers = profile_numbers(view, &plain, in_.afterName, in_.beforeName);
  }
  bottom.markedX = in_.place.layer();  // the selected layer
  layerTopology_->setData(std::move(bottom));
}

// KL after sink removal and the Fisher trace by layer, each scaled to its maximum.
void LayerProfilesPanel::drawFunction() {
  render::LinePlotData function;
  function.xLabel = tr("layer");
  function.integerX = true;
  function.yLabel = tr("value / its maximum");
  const auto& e = in_.experiments;
  if (e.klPerLayer.empty() && e.fisherPerParameter.empty()) {
    function.title = tr("KL and Fisher by layer: not computed (Experiments menu)");
  } else {
    auto scaled = [](const QString& name, const std::vector<double>& v) {
      render::LineSeries s{name, {}, {}};
      double m = 0;
      for (double x : v) m = std::max(m, std::abs(x));
      for (std::size_t l = 0; l < v.size(); ++l) {
        s.x.push_back(static_cast<double>(l));
        s.y.push_back(m > 0 ? v[l] / m : 0.0);
      }
      return std::make_pair(s, m);
    };
    const auto [kl, klMax] = scaled(tr("KL(base || sinks removed)"), e.klPerLayer);
    const auto [fisher, fisherMax] = scaled(tr("Fisher trace per parameter"), e.fisherPerParameter);
    function.title = tr("Function by layer | max KL %1 nats, max Fisher/param %2")
                         .arg(klMax, 0, 'g', 3)
                         .arg(fisherMax, 0, 'g', 3);
    function.series = {kl, fisher};
  }
  function.markedX = in_.place.layer();  // the selected layer
  layerFunction_->setData(std::move(function));
}

}  // namespace sinkscope::ui
