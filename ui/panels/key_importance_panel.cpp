#include "ui/panels/key_importance_panel.h"

#include <algorithm>
#include <limits>

#include "analysis/first_token_sink.h"
#include "analysis/sink_metric.h"
#include "models/document/panel_views.h"
#include "models/document/trace_analysis.h"
#include "render/line_plot_view.h"
#include "ui/panels/panel.h"
#include "ui/selection_model.h"

namespace sinkscope::ui {

namespace {

// sinks.csv's rows (analyze's) for the head `place` shows in `run`; null
// before the run's analysis is in.
std::shared_ptr<const io::CsvTable> sink_rows(const SentenceRun& run, const ShownPlace& place) {
  if (!run.analysis || place.layer() >= run.analysis->layers) return nullptr;
  std::vector<std::string> tokens;
  for (const QString& t : run.tokens) tokens.push_back(t.toStdString());
  auto table = std::make_shared<io::CsvTable>();
  table->columns = document::sink_key_columns();
  const int head = place.head();
  document::append_sink_key_rows(*table, std::to_string(place.layer()),
                                 head < 0 ? "average" : std::to_string(head),
                                 run.analysis->at(place.layer(), head), tokens, run.causal);
  return table;
}

// alpha_k of `map`, each key named by its token (the CSV names them).
render::LineSeries key_importance_series(const SentenceRun& run, const analysis::AttentionMatrix& map,
                                         const QString& name) {
  render::LineSeries alpha{name, {}, analysis::sink_key_importance(map.view()), false};
  for (int k = 0; k < run.tokenCount(); ++k) {
    alpha.x.push_back(k);
    alpha.labels.push_back(run.tokens.value(k));  // the CSV names each key's token
  }
  return alpha;
}

}  // namespace

KeyImportancePanel::KeyImportancePanel(Workspace* workspace, QWidget* viewParent)
    : QObject(viewParent), workspace_(workspace), view_(new render::LinePlotView(viewParent)) {
  view_->setObjectName(QStringLiteral("profileView"));
  view_->setToolTip(
      tr("Key importance alpha_k: the mean attention key k receives from the queries that "
         "can see it (Gu et al.'s sink metric). A key is counted as a sink "
         "when alpha_k > eps."));
  view_->setWhatsThis(
      tr("How much attention each token receives, on average, from the tokens after it "
         "(alpha_k). The dashed grey curve is what a head that spreads its "
         "attention evenly would give; the red line is the sink threshold eps. A token far "
         "above both, usually the first, is an attention sink."));
}

void KeyImportancePanel::draw(const DrawnRuns& d) {
  if (!d.shown) return;
  const SentenceRun& shown = *d.shown;
  const SentenceRun& a = *workspace_->run();
  const ShownPlace& place = d.place;
  const int T = shown.tokenCount();
  const int layer = place.layer();
  const QString head = head_name(place.head());
  const analysis::AttentionMatrix& map = d.map;
  const analysis::AttentionMatrix& before = d.before;
  render::LinePlotData plot;
  plot.title = tr("Key importance alpha_k | %1, layer %2, %3").arg(shown.source).arg(layer).arg(head) +
               place.note(workspace_->leftName());
  plot.xLabel = tr("key position k");
  plot.integerX = true;
  plot.yLabel = tr("alpha_k");
  render::LineSeries alpha =
      key_importance_series(shown, map, shown.trace ? tr("alpha_k") : tr("alpha_k (uniform head)"));
  render::LineSeries baseline{tr("uniform baseline"), {}, {}, true};
  // The sink threshold the run's heads were analysed with.
  const double epsValue =
      shown.analysis ? shown.analysis->settings.eps : analysis::kDefaultSinkMetricEps;
  render::LineSeries eps{tr("eps = %1 (sink threshold)").arg(epsValue), {}, {}, false, true};
  baseline.y = analysis::sink_uniform_baselines(T, map.causal);
  for (int k = 0; k < T; ++k) baseline.x.push_back(k);
  eps.x = {0.0, static_cast<double>(std::max(T - 1, 1))};
  eps.y = {epsValue, epsValue};
  // The numbers: analyze's sinks.csv rows for the shown head.
  plot.numbers = sink_rows(shown, place);
  plot.series = shown.trace ? std::vector<render::LineSeries>{alpha, baseline, eps}
                            : std::vector<render::LineSeries>{alpha, eps};
  // The selected key, on the shown run's axis.
  if (place.keyToken() >= 0) plot.markedX = place.keyToken();
  if (d.sideBySide) {
    alpha.name = tr("alpha_k %1").arg(workspace_->rightName());
    alpha.run = workspace_->rightName();
    render::LineSeries plain = key_importance_series(a, before, tr("alpha_k %1").arg(workspace_->leftName()));
    plain.run = workspace_->leftName();
    // Dashed in the after curve's own colour: the grey dashed line is the
    // uniform baseline, and the two must not look alike.
    plain.dashed = true;
    plain.colourOf = 0;
    if (d.byToken) {
      // Two tokenizers: B's points at the positions of A's tokens covering the
      // same characters (the others have no place on A's axis), A's baseline;
      // without the first token, each point at its own token's place in A.
      const std::vector<int>& bToA = d.alignment.second;
      render::LineSeries byToken = alpha;
      byToken.x.clear(), byToken.y.clear(), byToken.labels.clear();
      for (std::size_t j = 0; j < bToA.size() && j < alpha.y.size(); ++j)
        if (bToA[j] >= 0) {
          byToken.x.push_back(bToA[j]);
          byToken.y.push_back(alpha.y[j]);
          byToken.labels.push_back(j < alpha.labels.size() ? alpha.labels[j] : QString());
        }
      byToken.name = tr("alpha_k %1, at %2's tokens").arg(workspace_->rightName(), workspace_->leftName());
      alpha = std::move(byToken);
      baseline.x.clear(), baseline.y.clear();
      baseline.y = analysis::sink_uniform_baselines(a.tokenCount(), before.causal);
      for (int k = 0; k < a.tokenCount(); ++k) baseline.x.push_back(k);
      eps.x = {0.0, static_cast<double>(std::max(a.tokenCount() - 1, 1))};
      plot.xLabel = tr("key position k (%1's tokens)").arg(workspace_->leftName());
      plot.markedX = workspace_->selection()->keyToken() >= 0 ? workspace_->selection()->keyToken() : std::numeric_limits<double>::quiet_NaN();
    }
    plot.series = {alpha, plain, baseline, eps};
    const auto plainRows = sink_rows(a, workspace_->placeOf(a));
    plot.numbers = plainRows && plot.numbers && !d.byToken
                       ? std::make_shared<const io::CsvTable>(document::tables_by_run(
                             {{workspace_->leftName().toStdString(), plainRows.get()},
                              {workspace_->rightName().toStdString(), plot.numbers.get()}}))
                       : nullptr;
  }
  view_->setData(std::move(plot));
}

}  // namespace sinkscope::ui
