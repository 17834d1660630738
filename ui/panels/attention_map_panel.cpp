#include "ui/panels/attention_map_panel.h"

#include <QCheckBox>
#include <QVBoxLayout>
#include <algorithm>

#include "models/document/map_views.h"
#include "models/document/trace_analysis.h"
#include "render/drawn_views.h"
#include "render/figure_part.h"
#include "render/gl_support.h"
#include "render/heat_map_view.h"
#include "ui/layer_fetch.h"
#include "ui/panels/panel.h"
#include "ui/selection_model.h"

namespace sinkscope::ui {

AttentionMapPanel::AttentionMapPanel(Workspace* workspace, render::DrawnViews& drawn,
                                     QWidget* parent)
    : QWidget(parent), drawn_(drawn), workspace_(workspace), selection_(workspace->selection()) {
  auto* column = new QVBoxLayout(this);
  column->setContentsMargins(0, 0, 0, 0);
  column->setSpacing(0);
  logScale_ = new QCheckBox(tr("log scale"), this);
  logScale_->setObjectName(QStringLiteral("logScale"));
  logScale_->setToolTip(
      tr("Colour by log10 of the weight: small weights away from the sink become visible"));
  connect(logScale_, &QCheckBox::toggled, this, &AttentionMapPanel::redrawWanted);
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
    // A masked cell (a key the query cannot see) selects its query only.
    const auto& shown = view_->data();
    const std::size_t cell = static_cast<std::size_t>(row) * shown.cols + col;
    if (cell < shown.hidden.size() && shown.hidden[cell]) return;
    selection_->setKeyToken(key);
  });
}

void AttentionMapPanel::setPresenting(bool on) { logScale_->setVisible(!on); }

QWidget* AttentionMapPanel::exportedView() const {
  return view_ ? static_cast<QWidget*>(view_) : standIn_;
}

void AttentionMapPanel::draw(const DrawnRuns& d) {
  if (!d.shown) return;
  if (d.waitingForLayer >= 0)
    return drawn_.show(view_, standIn_, document::note_map(d.waitingNote.toStdString()));
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
  // The difference subtracts A's map at the selection.
  const analysis::AttentionMatrix plainMap =
      d.difference ? a.attention(selection_->layer(), selection_->head())
                   : analysis::AttentionMatrix{};
  views::HeatMap data = mapData(shown, place, map, d.difference ? &plainMap : nullptr);
  data.title += place.note(workspace_->leftName()).toStdString();
  if (d.differenceRefused)
    data.title += tr(" | %1 (no difference: the runs have different tokens)")
                      .arg(workspace_->rightName())
                      .toStdString();
  if (d.sideBySide) {
    // Before on the left, after on the right; clicks and hovers map back.
    views::HeatMap left = mapData(a, workspace_->placeOf(a), before, nullptr);
    // Each run's name and place once (the names also stand under the halves).
    QString title = tr("%1: layer %2, %3 | %4: layer %5, %6")
                        .arg(workspace_->leftName())
                        .arg(selection_->layer())
                        .arg(head_name(selection_->head()))
                        .arg(workspace_->rightName())
                        .arg(layer)
                        .arg(head);
    if (d.comparingModels)
      title += QStringLiteral(" | ") + QString::fromStdString(document::mark_unaligned_tokens(
                                           left, data, d.alignment.first, d.alignment.second));
    else if (a.tokenCount() == T)
      title += tr(" | %1 tokens").arg(T);
    else
      title += tr(" | %1 and %2 tokens").arg(a.tokenCount()).arg(T);
    data = document::maps_side_by_side(left, data, workspace_->runNames(), title.toStdString());
  }
  drawn_.show(view_, standIn_, std::move(data));
}

views::HeatMap AttentionMapPanel::mapData(const SentenceRun& shown, const ShownPlace& place,
                                          const analysis::AttentionMatrix& map,
                                          const analysis::AttentionMatrix* subtract) const {
  const std::vector<std::string> tokens = shown.tokenStrings();
  document::AttentionMapInputs in;
  in.source = shown.source;
  in.tokens = &tokens;
  in.map = &map;
  in.layer = place.layer();
  in.head = place.head();
  in.uniform = !shown.trace;
  in.beyondTrainedContext = !shown.beyondTrainedContext.empty();
  in.analysis = shown.analysis.get();
  in.subtract = subtract;
  in.names = workspace_->runNames();
  if (place.queryToken() >= 0 && place.keyToken() >= 0)
    in.query = place.queryToken(), in.key = place.keyToken();
  in.logScale = logScale_->isChecked();
  // Highlights are A's tokens; on B of another tokenizer, where they land.
  for (int t : selection_->highlightedTokens())
    if (place.token(t) >= 0) in.highlighted.push_back(place.token(t));
  in.highlightedEdges = place.highlightedEdges();
  return document::attention_map(in);
}

std::pair<int, int> AttentionMapPanel::cellInA(int row, int col) const {
  const views::HeatMap& map = view_->data();
  if (!workspace_->runB()) return {row, col};
  const bool ofB = map.sideBySideSplit >= 0 ? col > map.sideBySideSplit : workspace_->shownRun() == &*workspace_->runB();
  col = views::heat_map_own_column(map, col);
  if (row < 0 || col < 0) return {-1, -1};  // the gap
  if (!ofB) return {row, col};
  // B's tokens: the first token of A landing on each.
  const ShownPlace b = workspace_->placeOf(*workspace_->runB());
  const QList<int> queries = b.tokensOfA(row), keys = b.tokensOfA(col);
  return {queries.isEmpty() ? -1 : queries.front(), keys.isEmpty() ? -1 : keys.front()};
}

}  // namespace sinkscope::ui
