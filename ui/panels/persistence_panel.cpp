#include "ui/panels/persistence_panel.h"

#include <QSplitter>

#include "models/document/panel_views.h"
#include "render/line_plot_view.h"
#include "ui/docks.h"
#include "ui/run_analysis.h"
#include "ui/selection_model.h"
#include "ui/sentence_run.h"

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

// "H0: born 0, dies 0.702 (edge cat–<s>)": a bar's scales and the edge that
// ends it (H0) or closes its loop (H1).
QString PersistencePanel::barTip(const analysis::PersistenceBar& bar) const {
  const QStringList& tokens = in_.run->tokens;
  auto token = [&](int t) { return QStringLiteral("%1 %2").arg(t).arg(tokens.value(t)); };
  return tr("H%1: born %2, dies %3 (edge %4 \u2013 %5)")
      .arg(bar.dimension)
      .arg(bar.birth, 0, 'g', 4)
      .arg(bar.death, 0, 'g', 4)
      .arg(token(bar.edge[0]), token(bar.edge[1]));
}

// persistence.csv's rows (analyze's) for the shown head's bars.
std::shared_ptr<const io::CsvTable> PersistencePanel::barRows(
    const analysis::HeadAnalysis& r) const {
  auto rows = std::make_shared<io::CsvTable>();
  rows->columns = document::bar_columns();
  document::append_bar_rows(*rows, std::to_string(in_.place.layer()),
                            document::head_text(in_.place.head()), r.persistence);
  return rows;
}

void PersistencePanel::drawNote(const QString& note) {
  for (render::LinePlotView* view : {diagram_, barcode_, betti_}) view->setData({note, {}, {}, {}});
}

void PersistencePanel::drawPersistence() {
  const auto topology = in_.topologyOf(in_.place.layer(), in_.place.head());
  if (!topology) {
    const QString waiting = computing_title(tr("Persistence"), in_.place.layer(),
                                            in_.place.head(), in_.analysis->tokens);
    for (render::LinePlotView* view : {diagram_, barcode_, betti_})
      view->setData({waiting, {}, {}, {}});
    return;
  }
  drawDiagram(*topology);
  drawBarcode(*topology);
  drawBetti(*topology);
}

void PersistencePanel::drawDiagram(const analysis::HeadAnalysis& r) {
  render::LinePlotData d;
  d.title = tr("Persistence diagram | layer %1, %2")
                .arg(in_.place.layer())
                .arg(head_name(in_.place.head())) +
            in_.place.note(in_.beforeName);
  d.xLabel = tr("birth (distance e)");
  d.yLabel = tr("death");
  auto bars = [](std::size_t n) { return n == 1 ? tr("1 bar") : tr("%1 bars").arg(n); };
  render::LineSeries h0{tr("H0 (%1)").arg(bars(r.persistence.h0.size())), {}, {}};
  render::LineSeries h1{tr("H1 (%1)").arg(bars(r.persistence.h1.size())), {}, {}};
  h0.scatter = h1.scatter = true;
  for (const auto& b : r.persistence.h0)
    h0.x.push_back(b.birth), h0.y.push_back(b.death), h0.tips.push_back(barTip(b));
  for (const auto& b : r.persistence.h1)
    h1.x.push_back(b.birth), h1.y.push_back(b.death), h1.tips.push_back(barTip(b));
  render::LineSeries diagonal{tr("birth = death"), {0, 1}, {0, 1}, true};
  const double minPersistence = in_.analysis->settings.minPersistence;
  render::LineSeries minLine{tr("min persistence %1").arg(minPersistence),
                             {0, 1 - minPersistence},
                             {minPersistence, 1},
                             false,
                             true};
  d.series = {h0, h1, diagonal, minLine};
  d.xPadding = 0.04;  // H0 points sit at birth 0: clear of the y axis
  d.numbers = barRows(r);
  diagram_->setData(std::move(d));
}

void PersistencePanel::drawBarcode(const analysis::HeadAnalysis& r) {
  render::LinePlotData code;
  code.title = tr("Barcode | layer %1, %2").arg(in_.place.layer()).arg(head_name(in_.place.head())) +
               in_.place.note(in_.beforeName);
  code.xLabel = tr("distance scale e");
  code.integerY = true;
  code.yLabel = tr("bar");
  render::LineSeries c0{tr("H0"), {}, {}}, c1{tr("H1"), {}, {}};
  c0.segments = c1.segments = true;
  c0.markers = c1.markers = false;  // bars, not points: ends would merge in a dense barcode
  int row = 0;
  for (const auto* list : {&r.persistence.h0, &r.persistence.h1})
    for (const auto& bar : *list) {
      auto& s = list == &r.persistence.h0 ? c0 : c1;
      s.x.push_back(bar.birth), s.x.push_back(bar.death);
      s.y.push_back(row), s.y.push_back(row);
      ++row;
    }
  code.series = {c0, c1};
  code.numbers = barRows(r);
  code.xPadding = 0.02;
  code.airBelow = true;  // bar 0 lies at y = 0: clear of the axis
  barcode_->setData(std::move(code));
}

void PersistencePanel::drawBetti(const analysis::HeadAnalysis& r) {
  render::LinePlotData b;
  const double minPersistence = in_.analysis->settings.minPersistence;
  b.title = tr("Betti curves | bars above %1: H0 %2, H1 %3")
                .arg(minPersistence)
                .arg(analysis::bars_above(r.persistence.h0, minPersistence))
                .arg(analysis::bars_above(r.persistence.h1, minPersistence));
  b.xLabel = tr("distance scale e");
  b.integerY = true;
  b.yLabel = tr("Betti number");
  render::LineSeries b0{tr("beta_0 (components)"), r.betti.grid, {}};
  render::LineSeries b1{tr("beta_1 (loops)"), r.betti.grid, {}};
  for (int v : r.betti.beta0) b0.y.push_back(v);
  for (int v : r.betti.beta1) b1.y.push_back(v);
  b0.markers = b1.markers = false;  // a dense grid: markers would hide the steps
  b.series = {b0, b1};
  auto rows = std::make_shared<io::CsvTable>();
  rows->columns = document::betti_columns();
  document::append_betti_rows(*rows, std::to_string(in_.place.layer()),
                              document::head_text(in_.place.head()), r.betti);
  b.numbers = rows;
  // Side by side: the plain run's curves of the same head (A's own selection), dashed.
  const int layer = in_.selection->layer(), head = in_.selection->head();
  if (in_.before && in_.before->topologyForAllHeads && layer < in_.before->layers &&
      head < in_.before->heads) {
    const analysis::BettiCurves& old = in_.before->at(layer, head).betti;
    render::LineSeries a0{tr("beta_0 %1").arg(in_.beforeName), old.grid, {}};
    render::LineSeries a1{tr("beta_1 %1").arg(in_.beforeName), old.grid, {}};
    for (int v : old.beta0) a0.y.push_back(v);
    for (int v : old.beta1) a1.y.push_back(v);
    a0.dashed = a1.dashed = true;
    a0.markers = a1.markers = false;
    a0.colourOf = 0, a1.colourOf = 1;  // of beta_0 and beta_1
    b.series = {b0, b1, a0, a1};
    io::CsvTable plain;
    plain.columns = document::betti_columns();
    document::append_betti_rows(plain, std::to_string(layer), document::head_text(head), old);
    b.numbers = std::make_shared<const io::CsvTable>(document::tables_by_run(
        {{in_.beforeName.toStdString(), &plain}, {in_.afterName.toStdString(), rows.get()}}));
  }
  b.xPadding = 0.02;
  betti_->setData(std::move(b));
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
