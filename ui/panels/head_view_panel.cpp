#include "ui/panels/head_view_panel.h"

#include <QCheckBox>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>

#include "analysis/attention_matrix.h"
#include "models/document/scene_views.h"
#include "models/document/sentence_run.h"
#include "render/drawn_views.h"
#include "render/head_view.h"
#include "ui/layer_fetch.h"
#include "ui/selection_model.h"

namespace sinkscope::ui {

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
  views::HeadViewData d;
  d.title = note.toStdString();
  drawn().show(view_, std::move(d));
}

void HeadViewPanel::draw() {
  if (!in_.run) return;
  if (!in_.run->layerAtHand(in_.place.layer())) return drawNote(in_.layerNote(in_.place.layer()));
  const std::vector<std::string> tokens = in_.run->tokenStrings();
  document::HeadViewInputs in;
  in.source = in_.source.toStdString();
  in.tokens = &tokens;
  in.layer = in_.place.layer();
  in.head = in_.place.head();
  in.heads = in_.headCount();
  in.allHeads = allHeads_->isChecked();
  const SentenceRun& run = *in_.run;
  in.mapOf = [&run, layer = in.layer](int h) { return run.attention(layer, h); };
  in.note = in_.place.note(in_.beforeName).toStdString();
  in.query = in_.place.queryToken();
  in.key = in_.place.keyToken();
  drawn().show(view_, document::head_view(in));
}

}  // namespace sinkscope::ui
