#include "ui/panels/attention_map_panel.h"

#include <QCheckBox>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>

#include "models/document/panel_views.h"
#include "models/document/trace_analysis.h"
#include "render/figure_part.h"
#include "render/gl_support.h"
#include "render/heat_map_view.h"
#include "ui/panels/panel.h"
#include "ui/selection_model.h"

namespace sinkscope::ui {

namespace {
// From this many tokens the attention map's linear scale is clipped at the
// 99th percentile of the weights.
constexpr int kClippedScaleFrom = 128;
}  // namespace

AttentionMapPanel::AttentionMapPanel(Workspace* workspace, QWidget* parent)
    : QWidget(parent), workspace_(workspace), selection_(workspace->selection()) {
  auto* column = new QVBoxLayout(this);
  column->setContentsMargins(0, 0, 0, 0);
  column->setSpacing(0);
  // The classroom mode's key to the map (hidden otherwise).
  legend_ = new QLabel(
      tr("<b><font color='#b2182b'>Red token labels</font></b>: sinks, the tokens that take a large "
         "share of every query's attention whatever they mean. Keys: \u2191 \u2193 layer, "
         "\u2190 \u2192 head, S the strongest sink, N / P the next / previous sentence, Esc leaves."),
      this);
  legend_->setObjectName(QStringLiteral("presentLegend"));
  legend_->setWordWrap(true);
  legend_->setContentsMargins(8, 4, 8, 4);
  legend_->hide();
  column->addWidget(legend_);
  logScale_ = new QCheckBox(tr("log scale"), this);
  logScale_->setObjectName(QStringLiteral("logScale"));
  logScale_->setToolTip(
      tr("Colour by log10 of the weight: small weights away from the sink become visible"));
  connect(logScale_, &QCheckBox::toggled, this, qOverload<>(&AttentionMapPanel::draw));
  column->addWidget(logScale_);
  if (!render::gl_panels_available()) {
    standIn_ = new render::FigureStandIn(QStringLiteral("attentionView"), this);
    column->addWidget(standIn_, 1);
    return;
  }
  view_ = new render::HeatMapView(this);
  view_->setObjectName(QStringLiteral("attentionView"));
  const QString explanation =
      tr("Attention map: row = query token, column = key token, colour = attention weight: "
         "how much each token (row) takes from each earlier token (column) in the selected "
         "layer and head. Grey cells are future keys a causal model cannot see. A bright "
         "first column is a sink: most tokens dump their attention there whatever it says "
         "(red labels mark sinks: keys that get at least the head's 90th-percentile weight "
         "from at least 30% of all queries). Hover a cell for its weight, click to select that query "
         "and key. Drag to pan, wheel to zoom, 'r' to reset; long inputs are drawn "
         "coarser (each block its strongest cell) until you zoom in.");
  view_->setToolTip(explanation);
  view_->setWhatsThis(explanation);
  column->addWidget(view_, 1);
  connect(view_, &render::HeatMapView::cellHovered, this, [this](int row, int col) {
    // The hovered query and key light up in every panel that shows tokens.
    const auto [query, key] = cellInA(row, col);
    selection_->setHighlightedTokens(query < 0 || key < 0 ? QList<int>{} : QList<int>{query, key});
  });
  connect(view_, &render::HeatMapView::cellClicked, this, [this](int row, int col) {
    const auto [query, key] = cellInA(row, col);
    if (query < 0 || key < 0) return;  // the gap between two maps, or no token of A
    selection_->setQueryToken(query);
    selection_->setKeyToken(key);
  });
}

void AttentionMapPanel::draw() {
  try {
    draw(workspace_->drawnRuns());
  } catch (const std::exception& e) {
    Q_EMIT failed(QString::fromUtf8(e.what()), QString::fromUtf8(e.what()));
  }
}

QWidget* AttentionMapPanel::exportedView() const {
  return view_ ? static_cast<QWidget*>(view_) : standIn_;
}

void AttentionMapPanel::setLegendShown(bool shown) { legend_->setVisible(shown); }

void AttentionMapPanel::draw(const DrawnRuns& d) {
  if (!d.shown) return;
  const SentenceRun& shown = *d.shown;
  const SentenceRun& a = *workspace_->run();
  const int T = shown.tokenCount();
  const ShownPlace& place = d.place;
  const int layer = place.layer();
  const QString head = head_name(place.head());
  const analysis::AttentionMatrix& map = d.map;
  const analysis::AttentionMatrix& before = d.before;
  // A difference needs the same tokens in both runs: say so instead of
  // silently showing the "after" map.
  if (d.differenceRefused)
    Q_EMIT notice(
        tr("No difference map: the runs have different tokens (%1 and %2); showing \"%3\". "
           "Side by side compares them.")
            .arg(a.tokenCount())
            .arg(workspace_->runB()->tokenCount())
            .arg(workspace_->rightName()),
        10000);
  render::HeatMapData data = mapData(shown, place, map, d.difference ? &a : nullptr);
  data.title += place.note(workspace_->leftName());
  if (d.differenceRefused)
    data.title += tr(" | %1 (no difference: the runs have different tokens)").arg(workspace_->rightName());
  if (d.sideBySide) {
    // Before on the left, after on the right; clicks and hovers map back.
    render::HeatMapData left = mapData(a, workspace_->placeOf(a), before, nullptr);
    // Each run's name and place once (the names also stand under the halves).
    QString title = tr("%1: layer %2, %3 | %4: layer %5, %6")
                        .arg(workspace_->leftName())
                        .arg(selection_->layer())
                        .arg(head_name(selection_->head()))
                        .arg(workspace_->rightName())
                        .arg(layer)
                        .arg(head);
    if (d.comparingModels)
      title += QStringLiteral(" | ") + markUnalignedTokens(left, data, d.alignment);
    else if (a.tokenCount() == T)
      title += tr(" | %1 tokens").arg(T);
    else
      title += tr(" | %1 and %2 tokens").arg(a.tokenCount()).arg(T);
    const auto leftNumbers = left.numbers, rightNumbers = data.numbers;
    data = render::heat_map_side_by_side(left, data, workspace_->leftName(), workspace_->rightName());
    data.title = title;
    if (leftNumbers && rightNumbers)
      data.numbers = std::make_shared<const io::CsvTable>(
          document::tables_by_run({{workspace_->leftName().toStdString(), leftNumbers.get()},
                                   {workspace_->rightName().toStdString(), rightNumbers.get()}}));
  }
  render::show_or_keep(view_, standIn_, std::move(data));
}

render::HeatMapData AttentionMapPanel::mapData(const SentenceRun& shown, const ShownPlace& place,
                                               const analysis::AttentionMatrix& map,
                                               const SentenceRun* subtract) const {
  const int T = shown.tokenCount();
  const int layer = place.layer(), headIndex = place.head();
  const QString head = head_name(headIndex);
  const QString what =
      shown.trace ? tr("%1 tokens").arg(T) : tr("uniform causal baseline over %1 words").arg(T);
  render::HeatMapData data;
  data.rows = data.cols = T;
  data.values = map.weights;
  if (subtract) {
    const analysis::AttentionMatrix before = subtract->attention(selection_->layer(), selection_->head());
    for (std::size_t k = 0; k < data.values.size(); ++k) data.values[k] -= before.weights[k];
  }
  data.hidden.resize(data.values.size());
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j)
      data.hidden[static_cast<std::size_t>(i) * T + j] = map.causal && j > i;
  data.title = tr("%1 | layer %2, %3 | %4").arg(shown.source).arg(layer).arg(head, what);
  if (!shown.beyondTrainedContext.isEmpty()) data.title += tr(" (beyond the trained context)");
  if (subtract) data.title += tr(" | difference to the plain run");
  for (int t = 0; t < T; ++t) {
    // Index and display string, so repeated tokens stay distinguishable.
    const QString label = QStringLiteral("%1 %2").arg(t).arg(shown.tokens[t]);
    data.rowLabels.push_back(label);
    data.colLabels.push_back(label);
  }
  data.quantity = subtract ? tr("attention %1 - %2").arg(workspace_->rightName(), workspace_->leftName()) : tr("attention weight");
  data.rowTitle = tr("query");
  data.colTitle = tr("key");
  // The selected cell (query, key) is framed where the user clicked it.
  if (place.queryToken() >= 0 && place.keyToken() >= 0)
    data.outlineRow = place.queryToken(), data.outlineCol = place.keyToken();
  data.fixedRange = !subtract;
  data.diverging = subtract != nullptr;
  data.logScale = !subtract && logScale_->isChecked();
  // Sinks of the shown head (metrics.md s. 1) have red column labels.
  if (shown.analysis && !subtract)
    data.markedCols = shown.analysis->at(layer, headIndex).sinks.keys();
  // Highlights are A's tokens; on B of another tokenizer, where they land.
  for (int t : selection_->highlightedTokens())
    if (place.token(t) >= 0) data.highlighted.push_back(place.token(t));
  // A highlighted edge {a, b} frames its map cells (a, b) and (b, a).
  for (const auto& [a, b] : place.highlightedEdges())
    data.framedCells.insert(data.framedCells.end(), {{a, b}, {b, a}});
  // The numbers: `sinkscope-cli attention`'s rows for this head (a
  // difference map keeps the drawing's own table of cells).
  if (!subtract) {
    std::vector<std::string> tokens;
    for (const QString& t : shown.tokens) tokens.push_back(t.toStdString());
    data.numbers = std::make_shared<const io::CsvTable>(
        document::attention_table(map.view(), layer, headIndex, tokens));
  }
  data.rangeMin = 0.0;
  data.rangeMax = 1.0;
  // Long inputs: on a 0..1 scale almost every weight is near 0 and the map is
  // uniformly dark. Clip the linear scale at the 99th percentile of the
  // visible weights (the sink's larger weights share the top colour) and say
  // so. The log scale box shows the whole range instead.
  if (!subtract && !data.logScale && T > kClippedScaleFrom) {
    std::vector<float> visible;
    for (std::size_t k = 0; k < data.values.size(); ++k)
      if (!data.hidden[k]) visible.push_back(data.values[k]);
    if (!visible.empty()) {
      const auto at = visible.begin() + static_cast<std::ptrdiff_t>(0.99 * (visible.size() - 1));
      std::nth_element(visible.begin(), at, visible.end());
      const double top = std::clamp(static_cast<double>(*at), 1e-4, 1.0);
      if (top < 1.0) {
        data.rangeMax = top;
        data.quantity = tr("attention weight (clipped at %1)").arg(top, 0, 'g', 2);
        data.title += tr(" | linear scale clipped at the 99th percentile, %1").arg(top, 0, 'g', 2);
      }
    }
  }
  return data;
}

QString AttentionMapPanel::markUnalignedTokens(render::HeatMapData& left, render::HeatMapData& right,
                                               const TokenAlignment& alignment) const {
  const auto& [aToB, bToA] = alignment;
  auto mark = [](render::HeatMapData& d, const std::vector<int>& aligned) {
    for (std::size_t k = 0; k < aligned.size(); ++k) {
      if (aligned[k] >= 0) continue;
      if (k < d.rowLabels.size()) d.rowLabels[k] += QStringLiteral(" \u2260");
      if (k < d.colLabels.size()) d.colLabels[k] += QStringLiteral(" \u2260");
    }
  };
  mark(left, aToB);
  mark(right, bToA);
  const auto alignedCount = std::count_if(aToB.begin(), aToB.end(), [](int j) { return j >= 0; });
  return tr("%1 of %2 tokens align by their characters (\u2260: not one to one)")
      .arg(alignedCount)
      .arg(aToB.size());
}

std::pair<int, int> AttentionMapPanel::cellInA(int row, int col) const {
  const render::HeatMapData& map = view_->data();
  if (!workspace_->runB()) return {row, col};
  const bool ofB = map.sideBySideSplit >= 0 ? col > map.sideBySideSplit : workspace_->shownRun() == &*workspace_->runB();
  col = render::heat_map_own_column(map, col);
  if (row < 0 || col < 0) return {-1, -1};  // the gap
  if (!ofB) return {row, col};
  // B's tokens: the first token of A landing on each.
  const ShownPlace b = workspace_->placeOf(*workspace_->runB());
  const QList<int> queries = b.tokensOfA(row), keys = b.tokensOfA(col);
  return {queries.isEmpty() ? -1 : queries.front(), keys.isEmpty() ? -1 : keys.front()};
}

}  // namespace sinkscope::ui
