#include "ui/panels/head_view_panel.h"

#include <QCheckBox>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>

#include "analysis/attention_matrix.h"
#include "models/document/panel_views.h"
#include "render/head_view.h"
#include "ui/selection_model.h"
#include "ui/sentence_run.h"

namespace sinkscope::ui {

namespace {
// Okabe-Ito's colours (distinct for colour-blind readers), then viridis steps.
views::Rgb head_colour(int head, int heads) {
  static const views::Rgb kPalette[] = {
      {0.0, 0.447, 0.698},   {0.835, 0.369, 0.0}, {0.0, 0.620, 0.451},   {0.800, 0.475, 0.655},
      {0.337, 0.706, 0.914}, {0.902, 0.624, 0.0}, {0.941, 0.894, 0.259}, {0.0, 0.0, 0.0}};
  if (heads <= 8) return kPalette[head];
  return views::colormap_viridis(static_cast<double>(head) / std::max(1, heads - 1));
}
}  // namespace

HeadViewPanel::HeadViewPanel(PanelInputs& inputs, QWidget* host) : Panel(inputs, host) {
  auto* box = new QWidget(host);
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(2, 2, 2, 2);
  allHeads_ = new QCheckBox(tr("all heads of the layer, each in its colour"), box);
  allHeads_->setObjectName(QStringLiteral("headViewAllHeads"));
  allHeads_->setToolTip(tr("Draw every head of the selected layer at once (as the head average does)"));
  connect(allHeads_, &QCheckBox::toggled, this, [this] {
    if (in_.selectionFits()) draw();
  });
  layout->addWidget(allHeads_);
  view_ = new render::HeadView(box);
  view_->setObjectName(QStringLiteral("headView"));
  layout->addWidget(view_, 1);
  connect(view_, &render::HeadView::tokenClicked, this, [this](int side, int token) {
    // The view shows the shown run's tokens; the selection holds A's.
    const QList<int> inA = in_.place.tokensOfA(token);
    if (inA.isEmpty()) return;  // no token of A lands on it
    if (side == 0)
      in_.selection->setQueryToken(inA.front());
    else
      in_.selection->setKeyToken(inA.front());
  });
  connect(view_, &render::HeadView::tokenHovered, this, [this](int, int token) {
    in_.place.highlight(token >= 0 ? QList<int>{token} : QList<int>{}, {});
  });
  setContent(QStringLiteral("head-view"), box,
           tr("The selected layer's attention for teaching, in the manner of BertViz's head "
              "view: each token on the left (a query) sends a line to every token on the right "
              "(a key) it attends to, as opaque as the weight. With a sink, most lines run to "
              "the first token whatever it says. Tick 'all heads' (or select the head average) "
              "to see every head of the layer in its colour. Hover a token to see its lines "
              "alone; click one to select it as the query (left) or key (right)."));
}

void HeadViewPanel::drawNote(const QString& note) {
  render::HeadViewData d;
  d.title = note;
  view_->setData(std::move(d));
}

void HeadViewPanel::draw() {
  if (!in_.run) return;
  const int layer = in_.place.layer(), selected = in_.place.head();
  const int heads = in_.headCount();
  const bool all = allHeads_->isChecked() || selected == SelectionModel::kHeadAverage;
  const int T = in_.run->tokenCount();
  const int shown = std::min(T, render::kHeadViewMaxTokens);
  render::HeadViewData d;
  d.title = all ? tr("Head view | %1, layer %2, every head").arg(in_.source).arg(layer)
                : tr("Head view | %1, layer %2, head %3").arg(in_.source).arg(layer).arg(selected);
  d.title += in_.place.note(in_.beforeName);
  if (shown < T)
    d.note = tr("the first %1 of %2 tokens (a longer view would be a wall of lines)").arg(shown).arg(T);
  for (int k = 0; k < shown; ++k) d.tokens.push_back(in_.run->tokens.value(k));
  std::vector<std::string> tokens;
  for (const QString& t : d.tokens) tokens.push_back(t.toStdString());
  auto numbers = std::make_shared<io::CsvTable>();
  numbers->columns = document::attention_columns();
  for (int h = all ? 0 : selected; h < (all ? heads : selected + 1); ++h) {
    const analysis::AttentionMatrix map = in_.run->attention(layer, h);
    // The drawn tokens' block of the map: `sinkscope-cli attention`'s rows for them.
    analysis::AttentionMatrix block{std::vector<float>(static_cast<std::size_t>(shown) * shown),
                                    shown, map.causal};
    for (int q = 0; q < shown; ++q)
      for (int k = 0; k < shown; ++k)
        block.weights[static_cast<std::size_t>(q) * shown + k] = map.view().at(q, k);
    document::append_attention_rows(*numbers, block.view(), layer, h, tokens);
    render::HeadViewHead head{tr("head %1").arg(h), head_colour(h, heads), {}};
    head.weights.resize(static_cast<std::size_t>(shown) * static_cast<std::size_t>(shown));
    for (int q = 0; q < shown; ++q)
      for (int k = 0; k < shown; ++k)
        head.weights[static_cast<std::size_t>(q) * shown + k] =
            map.view().visible(q, k) ? static_cast<float>(map.view().at(q, k))
                                     : std::numeric_limits<float>::quiet_NaN();
    d.heads.push_back(std::move(head));
  }
  d.numbers = std::move(numbers);
  d.selectedQuery = in_.place.queryToken();
  d.selectedKey = in_.place.keyToken();
  view_->setData(std::move(d));
}

}  // namespace sinkscope::ui
