#include "ui/panels/taxonomy_panel.h"

#include <QSplitter>
#include <algorithm>
#include <optional>
#include <utility>

#include "analysis/taxonomy.h"
#include "models/document/map_views.h"
#include "models/document/sentence_run.h"
#include "models/document/trace_analysis.h"
#include "models/model.h"
#include "models/views/colours.h"
#include "render/drawn_views.h"
#include "render/figure_part.h"
#include "render/gl_support.h"
#include "render/heat_map_view.h"
#include "render/line_plot_view.h"
#include "ui/docks.h"
#include "ui/selection_model.h"

namespace sinkscope::ui {

TaxonomyPanel::TaxonomyPanel(PanelInputs& inputs, QWidget* host) : Panel(inputs, host) {
  const bool gl = render::gl_panels_available();
  if (gl) {
    taxonomy_ = new render::HeatMapView(host);
    taxonomy_->setObjectName(QStringLiteral("taxonomyView"));
  }
  taxonomyCounts_ = new render::LinePlotView(host);
  taxonomyCounts_->setObjectName(QStringLiteral("taxonomyCounts"));
  if (!gl) taxonomyStandIn_ = new render::FigureStandIn(QStringLiteral("taxonomyView"), host);
  QWidget* taxonomyTop =
      taxonomy_ ? static_cast<QWidget*>(taxonomy_) : static_cast<QWidget*>(taxonomyStandIn_);
  if (taxonomy_)
    connect(taxonomy_, &render::HeatMapView::cellClicked, this, [this](int row, int col) {
      select_head_cell(in_, taxonomy_->data(), row, col, 1);
    });
  QSplitter* stacked = panel_splitter();
  stacked->addWidget(taxonomyTop);
  stacked->addWidget(taxonomyCounts_);
  setContent(QStringLiteral("taxonomy"), stacked,
           tr("For each query the key with the largest A[i][j] * ||v_j|| wins (Mudarisov et al.), "
              "among the keys the query sees: earlier ones in a decoder, every key in an "
              "encoder. A head whose winners are mostly the current token is a Retriever, mostly "
              "the first token (the sink) a Mixer, otherwise a Reset. A sink with most of the "
              "attention but a short value (sinks usually carry little) loses the vote: such a "
              "head is a Reset, and the title says so with the sink's attention and value length. "
              "Below: how many heads of each kind every layer has."));
}

void TaxonomyPanel::drawNote(const QString& note) {
  drawn().show(taxonomyCounts_, document::note_plot(note.toStdString()));
  drawn().show(taxonomy_, taxonomyStandIn_, document::note_map(note.toStdString()));
}

// Why the selected head's sink wins the votes it does, on screen rather than
// in the help: a sink taking most of the attention loses the A[i][j] * ||v_j||
// vote when its value is short, and the head is then a Reset.
QString TaxonomyPanel::sinkReason() const {
  const int layer = in_.place.layer(), head = in_.place.head();
  if (head < 0 || !in_.run || !in_.run->trace || !in_.run->layerAtHand(layer)) return {};
  try {
    const auto capture = in_.run->layer(layer);
    const analysis::SinkVoteReason r =
        analysis::sink_vote_reason(capture->attentionOf(head), capture->valuesOf(head), capture->head_dim);
    QString text = tr(" | sink: %1% of attention, value %2x median length")
                       .arg(100.0 * r.sinkAttention, 0, 'f', 0)
                       .arg(r.sinkValueRatio, 0, 'f', 2);
    if (r.sinkAttention >= 0.5 && r.sinkValueRatio < 1.0) text += tr(": too short to win");
    return text;
  } catch (const std::exception&) {
    return {};  // a map the analysis refuses has no reason to give
  }
}

void TaxonomyPanel::drawTaxonomy() {
  if (!in_.hasValues())
    return drawNote(tr("The taxonomy needs values: this capture has none"));
  const TraceAnalysis& a = *in_.analysis;
  // A and B of different shapes: counts as shares of each layer's heads, by relative depth.
  const bool shares = in_.before && in_.before->heads != a.heads;
  const document::TaxonomyView now = document::taxonomy_view(a);
  const auto& sel = a.at(in_.place.layer(), std::max(0, in_.place.head())).taxonomy;
  const int total = sel ? std::max(1, sel->total()) : 1;
  QString title =
      tr("layer %1, head %2: %3 (winners: sink %4%, current %5%, other %6%)")
          .arg(in_.place.layer())
          .arg(std::max(0, in_.place.head()))
          .arg(sel ? QString::fromUtf8(analysis::head_class_name(analysis::taxonomy_label(*sel)))
                   : tr("none"))
          .arg(sel ? 100.0 * sel->sink / total : 0.0, 0, 'f', 0)
          .arg(sel ? 100.0 * sel->current / total : 0.0, 0, 'f', 0)
          .arg(sel ? 100.0 * sel->other / total : 0.0, 0, 'f', 0);
  title += sinkReason();
  views::HeatMap grid =
      document::taxonomy_grid(now, in_.place.layer(), in_.place.head(), title.toStdString());
  const document::RunNames names = in_.runNames();
  std::optional<document::TaxonomyView> before;
  if (in_.before) {
    // Side by side: the plain run's grid on the left (no selection frame), its counts dashed;
    // the runs' names stand under their grids.
    before = document::taxonomy_view(*in_.before);
    grid = document::maps_side_by_side(document::taxonomy_grid(*before, -1, -1, {}), grid, names,
                                       (title + in_.place.note(in_.beforeName)).toStdString());
  }
  drawn().show(taxonomy_, taxonomyStandIn_, std::move(grid));
  drawn().show(taxonomyCounts_, document::taxonomy_counts_plot(now, before ? &*before : nullptr,
                                                               shares, in_.layerAxis(), names));
}

}  // namespace sinkscope::ui
