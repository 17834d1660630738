#include "ui/panels/layer_profiles_panel.h"

#include <QSplitter>
#include <algorithm>
#include <functional>
#include <cmath>
#include <limits>

#include "analysis/first_token_sink.h"
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
// Per layer: the mean attention to position 0 over heads, and the share of
// heads whose alpha_0 exceeds 0.3 (the sink rate), each layer at x(layer).
void sink_measures(const TraceAnalysis& a, render::LineSeries& sink, render::LineSeries& rate,
                   const std::function<double(int)>& x) {
  for (int l = 0; l < a.layers; ++l) {
    double attention = 0, above = 0;
    for (int h = 0; h < a.heads; ++h) {
      attention += a.at(l, h).meanOverQueries.sinkAttention;
      above += analysis::is_sink_rate_head(a.at(l, h).keyImportance[0]) ? 1 : 0;
    }
    sink.x.push_back(x(l)), rate.x.push_back(x(l));
    sink.y.push_back(attention / a.heads), rate.y.push_back(above / a.heads);
  }
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
  render::LineSeries sink{tr("attention to position 0 (mean over heads)"), {}, {}};
  render::LineSeries rate{
      tr("sink rate (share of heads, alpha_0 > %1)").arg(analysis::kDefaultSinkMetricEps), {}, {}};
  render::LineSeries central{
      tr("centralisation (head average, theta %1)").arg(in_.selection->threshold()), {}, {}};
  // Two runs of different depths overlay by relative depth (the index otherwise).
  const auto xOfShown = [&](int l) { return in_.layerX(l, a.layers); };
  sink_measures(a, sink, rate, xOfShown);
  for (int l = 0; l < a.layers; ++l) {
    // Long inputs: the per-layer topology is left out (NaN: no point drawn).
    const auto g = in_.cheap() ? in_.spectrumAt(l, SelectionModel::kHeadAverage) : nullptr;
    central.x.push_back(xOfShown(l));
    central.y.push_back(g ? g->centralisation : std::numeric_limits<double>::quiet_NaN());
  }
  render::LinePlotData top;
  top.title = tr("Sinks by layer | %1").arg(in_.source);
  top.xLabel = in_.layerAxisTitle();
  top.integerX = !in_.overlayByDepth();
  top.xPadding = in_.overlayByDepth() ? 0.05 : 0.5;
  top.yLabel = tr("share");
  top.series = {sink, rate, central};
  if (in_.before) {
    const TraceAnalysis& b = *in_.before;
    render::LineSeries sinkBefore{tr("attention to position 0, %1").arg(in_.beforeName), {}, {}};
    render::LineSeries rateBefore{tr("sink rate, %1").arg(in_.beforeName), {}, {}};
    sink_measures(b, sinkBefore, rateBefore, [&](int l) { return in_.layerX(l, b.layers); });
    sinkBefore.dashed = rateBefore.dashed = true;
    sinkBefore.colourOf = 0, rateBefore.colourOf = 1;  // of sink and rate
    top.series = {sink, rate, central, sinkBefore, rateBefore};
    top.title = tr("Sinks by layer | %1 (solid) and %2 (dashed) | %3").arg(in_.afterName, in_.beforeName, in_.source);
  }
  top.markedX = in_.place.layer();  // the selected layer
  layerSink_->setData(std::move(top));
}

// H0 and H1 bars, the effective rank and the Fiedler value by layer; side by
// side, the plain run's effective rank dashed (the rank is what sink removal
// is said to change: Barbero et al., over-mixing).
void LayerProfilesPanel::drawTopology() {
  const TraceAnalysis& a = *in_.analysis;
  render::LineSeries h0{tr("H0 bars > 0.05 (head average)"), {}, {}};
  render::LineSeries h1{tr("H1 bars > 0.05 (head average)"), {}, {}};
  render::LineSeries rank{tr("effective rank of the layer's input"), {}, {}};
  render::LineSeries fiedler{
      tr("Fiedler value (head average, theta %1)").arg(in_.selection->threshold()), {}, {}};
  for (int l = 0; l < a.layers; ++l) {
    const auto& avg = a.at(l, SelectionModel::kHeadAverage);
    for (auto* series : {&h0, &h1, &rank, &fiedler}) series->x.push_back(in_.layerX(l, a.layers));
    // Long inputs: the per-layer topology is left out (NaN: no point drawn).
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto g = in_.cheap() ? in_.spectrumAt(l, SelectionModel::kHeadAverage) : nullptr;
    fiedler.y.push_back(g ? g->fiedlerValue : nan);
    h0.y.push_back(in_.cheap() ? analysis::bars_above(avg.persistence.h0, 0.05) : nan);
    h1.y.push_back(in_.cheap() ? analysis::bars_above(avg.persistence.h1, 0.05) : nan);
    rank.y.push_back(a.effectiveRank[static_cast<std::size_t>(l)]);
  }
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
  if (in_.before && ranked) {
    render::LineSeries rankBefore{tr("effective rank, %1").arg(in_.beforeName), {}, {}};
    const auto& beforeRank = in_.before->effectiveRank;
    for (std::size_t l = 0; l < beforeRank.size() && l < static_cast<std::size_t>(in_.before->layers); ++l)
      rankBefore.x.push_back(in_.layerX(static_cast<int>(l), in_.before->layers)),
          rankBefore.y.push_back(beforeRank[l]);
    rankBefore.dashed = true;
    rankBefore.colourOf = 2;  // of rank
    bottom.series = {h0, h1, rank, fiedler, rankBefore};
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
