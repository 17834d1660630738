#include "ui/panels/persistence_panel.h"

#include <QSplitter>

#include "models/document/plot_views.h"
#include "models/document/sentence_run.h"
#include "models/document/trace_analysis.h"
#include "render/drawn_views.h"
#include "render/line_plot_view.h"
#include "ui/docks.h"
#include "ui/selection_model.h"

namespace sinkscope::ui {

PersistencePanel::PersistencePanel(PanelInputs& inputs, QWidget* host)
    : Panel(inputs, host) {
  diagram_ = new render::LinePlotView(host);
  diagram_->setObjectName(QStringLiteral("persistenceDiagram"));
  betti_ = new render::LinePlotView(host);
  betti_->setObjectName(QStringLiteral("bettiCurves"));
  barcode_ = new render::LinePlotView(host);
  barcode_->setObjectName(QStringLiteral("barcode"));
  QSplitter* persistence = panel_splitter();
  persistence->addWidget(diagram_);
  persistence->addWidget(barcode_);
  persistence->addWidget(betti_);
  setContent(QStringLiteral("persistence"), persistence,
           tr("Topology of the attention graph: tokens are points at distance "
              "1 - (A_ij + A_ji)/2. As the distance scale e grows, tokens join into components "
              "(H0) and close loops (H1). Each dot is one feature, born and dying at the plotted "
              "scales; dots far from the diagonal last long. A sink joins everything through "
              "itself early, leaving no loops."));
  // Every point under the mouse: H0 points stacked at birth 0 light together.
  connect(diagram_, &render::LinePlotView::pointsHovered, this, &PersistencePanel::highlightBars);
  // A barcode's bar k is points 2k and 2k + 1 of its series.
  connect(barcode_, &render::LinePlotView::pointHovered, this, [this](int series, int index) {
    QList<QPair<int, int>> bars;
    if (index >= 0) bars << QPair<int, int>{series, index / 2};
    highlightBars(bars);
  });
}

document::PlotPlace PersistencePanel::plotPlace() const {
  return {in_.place.layer(), in_.place.head(), in_.place.note(in_.beforeName).toStdString()};
}

void PersistencePanel::drawNote(const QString& note) {
  for (render::LinePlotView* view : {diagram_, barcode_, betti_})
    drawn().show(view, document::note_plot(note.toStdString()));
}

void PersistencePanel::drawPersistence() {
  const auto topology = in_.topologyOf(in_.place.layer(), in_.place.head());
  if (!topology) {
    const QString waiting = computing_title(tr("Persistence"), in_.place.layer(),
                                            in_.place.head(), in_.analysis->tokens);
    for (render::LinePlotView* view : {diagram_, barcode_, betti_})
      drawn().show(view, document::note_plot(waiting.toStdString()));
    return;
  }
  const double minPersistence = in_.analysis->settings.minPersistence;
  drawn().show(diagram_, document::persistence_diagram_plot(*topology, plotPlace(), minPersistence,
                                                            in_.run->tokenStrings()));
  drawn().show(barcode_, document::barcode_plot(*topology, plotPlace()));
  // Side by side: the plain run's curves of the same head (A's own selection), dashed.
  const int layer = in_.selection->layer(), head = in_.selection->head();
  std::optional<document::BettiBefore> before;
  if (in_.before && in_.before->topologyForAllHeads && layer < in_.before->layers &&
      head < in_.before->heads)
    before = document::BettiBefore{&in_.before->at(layer, head).betti, layer, head, in_.runNames()};
  drawn().show(betti_, document::betti_plot(*topology, plotPlace(), minPersistence,
                                            before ? &*before : nullptr));
}

// Hovering bars (points of the diagram, bars of the barcode) highlights the
// tokens and edges that create and kill them.
void PersistencePanel::highlightBars(const QList<QPair<int, int>>& bars) {
  QList<int> tokens;
  QList<QPair<int, int>> edges;
  const auto topology = in_.analysis && in_.selectionFits()
                            ? in_.topologyOf(in_.place.layer(), in_.place.head(), false)
                            : nullptr;
  for (const auto& [series, index] : bars) {
    if (!topology || index < 0 || (series != 0 && series != 1)) continue;
    const auto& p = topology->persistence;
    const auto& list = series == 0 ? p.h0 : p.h1;
    if (index >= static_cast<int>(list.size())) continue;
    const analysis::PersistenceBar& b = list[static_cast<std::size_t>(index)];
    // H0: the edge whose merge kills the component; H1: the edge that
    // closes the loop, the loop itself and the triangle that fills it.
    for (int t : b.edge) tokens << t;
    edges << QPair<int, int>{b.edge[0], b.edge[1]};
    if (b.dimension == 1) {
      for (int t : b.triangle) tokens << t;
      for (const auto& e : b.cycle) tokens << e[0] << e[1], edges << QPair<int, int>{e[0], e[1]};
      const auto& f = b.triangle;
      if (f[0] >= 0)
        edges << QPair<int, int>{f[0], f[1]} << QPair<int, int>{f[1], f[2]}
              << QPair<int, int>{f[0], f[2]};
    }
  }
  in_.place.highlight(tokens, edges);  // the shown run's tokens
}

}  // namespace sinkscope::ui
