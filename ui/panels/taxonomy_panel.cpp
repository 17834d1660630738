#include "ui/panels/taxonomy_panel.h"

#include <QSplitter>
#include <algorithm>
#include <functional>
#include <utility>

#include "analysis/taxonomy.h"
#include "models/document/panel_views.h"
#include "models/model.h"
#include "render/colormap.h"
#include "render/figure_part.h"
#include "render/gl_support.h"
#include "render/heat_map_view.h"
#include "render/line_plot_view.h"
#include "ui/docks.h"
#include "ui/run_analysis.h"
#include "ui/selection_model.h"
#include "ui/sentence_run.h"

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
  taxonomyCounts_->setData({note, {}, {}, {}});
  render::HeatMapData empty;
  empty.title = note;
  render::show_or_keep(taxonomy_, taxonomyStandIn_, std::move(empty));
}

namespace {
// Okabe-Ito colours: distinct for colour-blind readers and in print.
const render::Rgb kClassColours[3] = {
    {0.0, 0.447, 0.698}, {0.835, 0.369, 0.0}, {0.0, 0.620, 0.451}};
QColor class_colour(int c) {
  const render::Rgb& r = kClassColours[c];
  return QColor::fromRgbF(static_cast<float>(r.r), static_cast<float>(r.g),
                          static_cast<float>(r.b));
}

// The class grid and the per-layer counts of `a` (`before`: the plain run
// beside an intervened one: counts dashed, no selection frame), drawn from
// the document layer's taxonomy view (whose tables the CSVs write).
struct Classes {
  document::TaxonomyView view;
  render::HeatMapData grid;
  render::LineSeries counts[3];  // Retriever, Mixer, Reset
};

// `outline`: the selected (layer, head) to frame, or none; `x`: a layer's place on
// the counts' axis; `shares`: counts as shares of the layer's heads.
Classes classes_of(const TraceAnalysis& a, std::pair<int, int> outline, bool before,
                   const QString& beforeName, const std::function<double(int)>& x, bool shares) {
  auto tr = [](const char* text) { return QObject::tr(text); };
  Classes out;
  out.view = document::taxonomy_view(a);
  render::HeatMapData& grid = out.grid;
  grid.rows = a.layers;
  grid.cols = a.heads;
  grid.rowTitle = tr("layer");
  grid.colTitle = tr("head");
  grid.quantity = tr("head class");
  grid.categories = {tr("Retriever"), tr("Mixer"), tr("Reset")};
  grid.categoryColours = {kClassColours[0], kClassColours[1], kClassColours[2]};
  grid.outlineRow = outline.first;
  grid.outlineCol = outline.second;
  grid.numbers = std::make_shared<const io::CsvTable>(out.view.heads_table);
  const QString suffix = before ? QStringLiteral(" ") + beforeName : QString();
  for (int c = 0; c < 3; ++c) {
    out.counts[c].name = grid.categories[static_cast<std::size_t>(c)] + suffix;
    out.counts[c].color = class_colour(c);
    out.counts[c].dashed = before;
  }
  for (int l = 0; l < a.layers; ++l) {
    int n[3] = {0, 0, 0};
    for (int h = 0; h < a.heads; ++h) {
      const int c = out.view.classes[static_cast<std::size_t>(l * a.heads + h)];
      if (c >= 0) ++n[c];
      grid.values.push_back(static_cast<float>(std::max(c, 0)));
      grid.hidden.push_back(c < 0);
    }
    for (int c = 0; c < 3; ++c)
      out.counts[c].x.push_back(x(l)),
          out.counts[c].y.push_back(shares ? static_cast<double>(n[c]) / std::max(1, a.heads) : n[c]);
    grid.rowLabels.push_back(tr("L%1").arg(l));
  }
  for (int h = 0; h < a.heads; ++h) grid.colLabels.push_back(tr("H%1").arg(h));
  return out;
}
}  // namespace

// Why the selected head's sink wins the votes it does, on screen rather than
// in the help: a sink taking most of the attention loses the A[i][j] * ||v_j||
// vote when its value is short, and the head is then a Reset.
QString TaxonomyPanel::sinkReason() const {
  const int layer = in_.place.layer(), head = in_.place.head();
  if (head < 0 || !in_.run || !in_.run->trace) return {};
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
  Classes now = classes_of(a, {in_.place.layer(), in_.place.head()}, false, in_.beforeName,
                           [&](int l) { return in_.layerX(l, a.layers); }, shares);
  const auto& sel = a.at(in_.place.layer(), std::max(0, in_.place.head())).taxonomy;
  const int total = sel ? std::max(1, sel->total()) : 1;
  now.grid.title =
      tr("layer %1, head %2: %3 (winners: sink %4%, current %5%, other %6%)")
          .arg(in_.place.layer())
          .arg(std::max(0, in_.place.head()))
          .arg(sel ? QString::fromUtf8(analysis::head_class_name(analysis::taxonomy_label(*sel))) : tr("none"))
          .arg(sel ? 100.0 * sel->sink / total : 0.0, 0, 'f', 0)
          .arg(sel ? 100.0 * sel->current / total : 0.0, 0, 'f', 0)
          .arg(sel ? 100.0 * sel->other / total : 0.0, 0, 'f', 0);
  now.grid.title += sinkReason();
  render::LinePlotData counts;
  counts.title = tr("Head classes per layer");
  counts.xLabel = in_.layerAxisTitle();
  counts.integerX = !in_.overlayByDepth();
  counts.xPadding = in_.overlayByDepth() ? 0.05 : 0.5;
  counts.integerY = !shares;
  counts.airBelow = true;  // a class no layer has (a line along 0) stays above the axis
  counts.yLabel = shares ? tr("share of the layer's heads") : tr("heads");
  counts.series = {now.counts[0], now.counts[1], now.counts[2]};
  counts.numbers = std::make_shared<const io::CsvTable>(now.view.counts_table);
  if (in_.before) {
    // Side by side: the plain run's grid on the left, its counts dashed.
    Classes before = classes_of(*in_.before, {-1, -1}, true, in_.beforeName,
                                [&](int l) { return in_.layerX(l, in_.before->layers); }, shares);
    // The runs' names stand under their grids.
    const QString title = now.grid.title + in_.place.note(in_.beforeName);
    now.grid = render::heat_map_side_by_side(before.grid, now.grid, in_.beforeName, in_.afterName);
    now.grid.title = title;
    const std::string beforeRun = in_.beforeName.toStdString(),
                      afterRun = in_.afterName.toStdString();
    now.grid.numbers = std::make_shared<const io::CsvTable>(document::tables_by_run(
        {{beforeRun, &before.view.heads_table}, {afterRun, &now.view.heads_table}}));
    counts.numbers = std::make_shared<const io::CsvTable>(document::tables_by_run(
        {{beforeRun, &before.view.counts_table}, {afterRun, &now.view.counts_table}}));
    for (auto& series : before.counts) counts.series.push_back(series);
    counts.title = tr("Head classes per layer | %1 (solid) and %2 (dashed)").arg(in_.afterName, in_.beforeName);
  }
  render::show_or_keep(taxonomy_, taxonomyStandIn_, std::move(now.grid));
  taxonomyCounts_->setData(std::move(counts));
}

}  // namespace sinkscope::ui
