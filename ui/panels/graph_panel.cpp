#include "ui/panels/graph_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "analysis/graph_layout.h"
#include "analysis/ties.h"
#include "models/views/colours.h"
#include "render/figure_part.h"
#include "render/gl_support.h"
#include "render/scene_view.h"
#include "ui/deferred_results.h"
#include "ui/docks.h"
#include "ui/run_analysis.h"
#include "ui/selection_model.h"
#include "ui/sentence_run.h"

namespace sinkscope::ui {

namespace {
// From this many tokens the graph keeps each token's kEdgesPerToken strongest edges.
constexpr int kThinGraphFrom = 64;
constexpr std::size_t kEdgesPerToken = 3;
}  // namespace

GraphPanel::GraphPanel(PanelInputs& inputs, QWidget* host) : Panel(inputs, host) {
  // Highlights (a hovered persistence bar) redraw the graph alone.
  connect(in_.selection, &SelectionModel::highlightChanged, this, [this] { drawGraph(); });
  const bool gl = render::gl_panels_available();
  auto* graphBox = new QWidget(host);
  auto* graphLayout = new QVBoxLayout(graphBox);
  graphLayout->setContentsMargins(2, 2, 2, 2);
  layoutChooser_ = new QComboBox(graphBox);
  layoutChooser_->setObjectName(QStringLiteral("graphLayout"));
  layoutChooser_->addItem(tr("spectral embedding (3-D)"));
  layoutChooser_->addItem(tr("force-directed (2-D, Fruchterman-Reingold, seeded)"));
  connect(layoutChooser_, &QComboBox::currentIndexChanged, this, [this] { drawGraph(); });
  // The threshold theta as a slider (the selection's, shared by every panel).
  auto* controls = new QHBoxLayout;
  controls->addWidget(layoutChooser_, 1);
  controls->addWidget(new QLabel(tr("theta"), graphBox));
  thresholdSlider_ = new QSlider(Qt::Horizontal, graphBox);
  thresholdSlider_->setObjectName(QStringLiteral("graphThreshold"));
  thresholdSlider_->setRange(0, 500);  // theta in thousandths, up to 0.5
  thresholdSlider_->setValue(static_cast<int>(std::lround(in_.selection->threshold() * 1000)));
  thresholdSlider_->setToolTip(tr("Edges are drawn where a query gives a key at least theta"));
  controls->addWidget(thresholdSlider_, 1);
  auto* thresholdValue = new QLabel(graphBox);
  thresholdValue->setMinimumWidth(40);
  controls->addWidget(thresholdValue);
  auto showThreshold = [this, thresholdValue](double theta) {
    thresholdValue->setText(QString::number(theta, 'f', 3));
    const int position = static_cast<int>(std::lround(theta * 1000));
    if (thresholdSlider_->value() != position) thresholdSlider_->setValue(position);
  };
  showThreshold(in_.selection->threshold());
  connect(in_.selection, &SelectionModel::thresholdChanged, this, showThreshold);
  connect(thresholdSlider_, &QSlider::valueChanged, this,
          [this](int position) { in_.selection->setThreshold(position / 1000.0); });
  graphLayout->addLayout(controls);
  if (gl) {
    graph_ = new render::SceneView(graphBox);
    highlightHoveredTokens(graph_);
    graph_->setObjectName(QStringLiteral("graphView"));
    graphLayout->addWidget(graph_, 1);
  } else {
    graphStandIn_ = new render::FigureStandIn(QStringLiteral("graphView"), graphBox);
    graphLayout->addWidget(graphStandIn_, 1);
  }
  setContent(
      QStringLiteral("graph"), graphBox,
      tr("The attention graph: an edge where a query gives a key at least theta. Tokens "
         "are placed by one of two layouts. Spectral embedding (3-D): eigenvectors 2-4 of "
         "the graph's Laplacian at theta; drag to rotate. Force-directed (2-D): edges pull "
         "like springs and tokens push each other apart (Fruchterman-Reingold, seeded), "
         "each token also pulled to the key it attends to most. Point size: mean attention "
         "the token receives; red: sinks. A sink pulls the graph into a star around itself."));
  layoutChooser_->setToolTip(
      tr("Spectral: Laplacian eigenvectors 2-4 (3-D). Force-directed: springs along the edges at "
         "theta and to each token's strongest key, repulsion between all tokens (2-D)."));
}

void GraphPanel::setLayout(int layout) { layoutChooser_->setCurrentIndex(layout); }

void GraphPanel::drawNote(const QString& note) {
  render::show_or_keep(graph_, graphStandIn_, render::SceneData{note, {}, {}, {}, {}});
}

void GraphPanel::drawGraph() {
  if (!in_.run || !in_.selectionFits()) return;
  const int layer = in_.place.layer(), head = in_.place.head();
  const double theta = in_.selection->threshold();
  const bool force = layoutChooser_->currentIndex() == 1;
  std::shared_ptr<const std::vector<std::array<double, 3>>> positions;
  if (force) {
    positions = in_.deferred->get<std::vector<std::array<double, 3>>>(
        QStringLiteral("force-directed layout of layer %1, %2, theta %3")
            .arg(layer)
            .arg(head_name(head))
            .arg(theta),
        in_.cheap(),
        [source = in_.attentionSource(layer, head), theta](const analysis::AnalysisProgress&) {
          const analysis::AttentionMatrix m = source();
          return analysis::graph_layout_force(m.view(), {theta, 100, 1});
        });
  } else if (const auto spectrum = in_.selectedSpectrum()) {
    positions = {spectrum, &spectrum->embedding};
  }
  if (!positions) {
    render::show_or_keep(
        graph_, graphStandIn_,
        render::SceneData{computing_title(tr("Attention graph"), layer, head, in_.analysis->tokens),
                          {},
                          {},
                          {},
                          {}});
    return;
  }
  const analysis::AttentionMatrix map = in_.run->attention(layer, head);
  const analysis::HeadAnalysis& r = in_.analysis->at(layer, head);
  render::SceneData d;
  d.title =
      tr("Attention graph | layer %1, %2 | theta %3").arg(layer).arg(head_name(head)).arg(theta) +
      in_.place.note(in_.beforeName);
  d.legend = tr("%1 layout; size: attention received; red: sinks (%2)")
                 .arg(force ? tr("force-directed") : tr("spectral"))
                 .arg(r.sinks.sinks.size());
  std::vector<bool> sink(static_cast<std::size_t>(map.size), false);
  for (int k : r.sinks.keys()) sink[static_cast<std::size_t>(k)] = true;
  double maxAlpha = 1e-12;
  for (double a : r.keyImportance) maxAlpha = std::max(maxAlpha, a);
  for (int t = 0; t < map.size; ++t) {
    render::ScenePoint p;
    p.position = (*positions)[static_cast<std::size_t>(t)];
    const double alpha = r.keyImportance[static_cast<std::size_t>(t)];
    p.size = 0.6 + 1.6 * std::sqrt(alpha / maxAlpha);
    const bool lit = in_.place.lit(t);
    p.color = lit                                 ? views::kSelectedHighlight
              : sink[static_cast<std::size_t>(t)] ? views::kSinkHighlight
                                                  : views::Rgb{0.23, 0.32, 0.55};
    if (lit) p.size *= 1.4;
    p.label = QStringLiteral("%1 %2").arg(t).arg(in_.run->tokens.value(t));
    p.token = t;
    d.points.push_back(p);
  }
  // Long inputs: every edge above theta is a hairball; each token keeps its
  // strongest few, and the legend says so.
  const bool thinned = map.size > kThinGraphFrom;
  for (int i = 0; i < map.size; ++i) {
    std::vector<std::pair<double, int>> row;
    for (int j = 0; j < map.size; ++j)
      if (i != j && analysis::reaches_threshold(map.view().at(i, j), theta))
        row.emplace_back(map.view().at(i, j), j);
    if (thinned && row.size() > kEdgesPerToken) {
      std::partial_sort(row.begin(), row.begin() + kEdgesPerToken, row.end(),
                        [](const auto& a, const auto& b) { return a.first > b.first; });
      row.resize(kEdgesPerToken);
    }
    for (const auto& [w, j] : row) d.edges.push_back({i, j, w});
  }
  if (thinned) d.legend += tr("; each token's %1 strongest edges above theta").arg(kEdgesPerToken);
  // The hovered persistence bar's edges, drawn lit whatever their weight.
  for (const auto& [a, b] : in_.place.highlightedEdges())
    if (a < map.size && b < map.size) d.edges.push_back({a, b, 1.0, true});
  render::show_or_keep(graph_, graphStandIn_, std::move(d));
}

}  // namespace sinkscope::ui
