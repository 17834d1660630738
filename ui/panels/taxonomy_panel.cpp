#include "ui/panels/taxonomy_panel.h"

#include <QMainWindow>
#include <QSplitter>
#include <algorithm>

#include "analysis/taxonomy.h"
#include "render/colormap.h"
#include "render/gl_support.h"
#include "render/heat_map_view.h"
#include "render/line_plot_view.h"
#include "ui/docks.h"
#include "ui/run_analysis.h"
#include "ui/selection_model.h"

namespace sinkscope::ui {

TaxonomyPanel::TaxonomyPanel(PanelInputs& inputs, QMainWindow* window) : Panel(inputs, window) {
  const bool gl = render::gl_panels_available();
  if (gl) {
    taxonomy_ = new render::HeatMapView(window);
    taxonomy_->setObjectName(QStringLiteral("taxonomyView"));
  }
  taxonomyCounts_ = new render::LinePlotView(window);
  taxonomyCounts_->setObjectName(QStringLiteral("taxonomyCounts"));
  QWidget* taxonomyTop =
      taxonomy_ ? static_cast<QWidget*>(taxonomy_) : gl_unavailable_label(window);
  if (taxonomy_)
    connect(taxonomy_, &render::HeatMapView::cellClicked, this,
            [this](int row, int col) { select_head_cell(in_.selection, row, col, 1); });
  QSplitter* stacked = panel_splitter();
  stacked->addWidget(taxonomyTop);
  stacked->addWidget(taxonomyCounts_);
  makeDock(window, tr("Taxonomy"), QStringLiteral("taxonomyDock"), stacked,
           tr("For each query the key with the largest A[i][j] * ||v_j|| wins (004, metrics.md "
              "s. 7). A head whose winners are mostly the current token is a Retriever, mostly "
              "the first token (the sink) a Mixer, otherwise a Reset. Below: how many heads of "
              "each kind every layer has."));
}

void TaxonomyPanel::drawNote(const QString& note) {
  taxonomyCounts_->setData({note, {}, {}, {}});
  if (!taxonomy_) return;
  render::HeatMapData empty;
  empty.title = note;
  taxonomy_->setData(std::move(empty));
}

void TaxonomyPanel::drawTaxonomy() {
  const RunAnalysis& a = *in_.analysis;
  render::LinePlotData counts;
  counts.title = tr("Head classes per layer");
  counts.xLabel = tr("layer");
  counts.integerX = counts.integerY = true;
  counts.yLabel = tr("heads");
  render::LineSeries retriever{tr("Retriever"), {}, {}}, mixer{tr("Mixer"), {}, {}},
      reset{tr("Reset"), {}, {}};
  render::HeatMapData grid;
  grid.rows = a.layers;
  grid.cols = a.heads;
  grid.rowTitle = tr("layer");
  grid.colTitle = tr("head");
  grid.quantity = tr("head class");
  // Okabe-Ito colours: distinct for colour-blind readers and in print.
  grid.categories = {tr("Retriever"), tr("Mixer"), tr("Reset")};
  grid.categoryColours = {{0.0, 0.447, 0.698}, {0.835, 0.369, 0.0}, {0.0, 0.620, 0.451}};
  grid.outlineRow = in_.selection->layer();
  grid.outlineCol = in_.selection->head();
  for (int l = 0; l < a.layers; ++l) {
    int n[3] = {0, 0, 0};
    for (int h = 0; h < a.heads; ++h) {
      const auto& votes = a.at(l, h).taxonomy;
      const int c = votes ? static_cast<int>(analysis::taxonomy_label(*votes)) : 2;
      ++n[c];
      grid.values.push_back(static_cast<float>(c));
    }
    retriever.x.push_back(l), mixer.x.push_back(l), reset.x.push_back(l);
    retriever.y.push_back(n[0]), mixer.y.push_back(n[1]), reset.y.push_back(n[2]);
    grid.rowLabels.push_back(tr("L%1").arg(l));
  }
  for (int h = 0; h < a.heads; ++h) grid.colLabels.push_back(tr("H%1").arg(h));
  const auto& sel = a.at(in_.selection->layer(), std::max(0, in_.selection->head())).taxonomy;
  const int total = sel ? std::max(1, sel->total()) : 1;
  grid.title = tr("Taxonomy | layer %1, head %2: sink %3%, current %4%, other %5%")
                   .arg(in_.selection->layer())
                   .arg(std::max(0, in_.selection->head()))
                   .arg(sel ? 100.0 * sel->sink / total : 0.0, 0, 'f', 0)
                   .arg(sel ? 100.0 * sel->current / total : 0.0, 0, 'f', 0)
                   .arg(sel ? 100.0 * sel->other / total : 0.0, 0, 'f', 0);
  if (taxonomy_) taxonomy_->setData(std::move(grid));
  retriever.color = QColor::fromRgbF(0.0f, 0.447f, 0.698f);  // as in the grid
  mixer.color = QColor::fromRgbF(0.835f, 0.369f, 0.0f);
  reset.color = QColor::fromRgbF(0.0f, 0.620f, 0.451f);
  counts.series = {retriever, mixer, reset};
  taxonomyCounts_->setData(std::move(counts));
}

}  // namespace sinkscope::ui
