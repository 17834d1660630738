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
#include "models/document/scene_views.h"
#include "models/document/sentence_run.h"
#include "models/document/trace_analysis.h"
#include "render/drawn_views.h"
#include "render/figure_part.h"
#include "render/gl_support.h"
#include "render/scene_view.h"
#include "ui/deferred_results.h"
#include "ui/docks.h"
#include "ui/layer_fetch.h"
#include "ui/selection_model.h"

namespace sinkscope::ui {

namespace {}  // namespace

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
  controls->addWidget(new QLabel(tr("θ"), graphBox));
  thresholdSlider_ = new QSlider(Qt::Horizontal, graphBox);
  thresholdSlider_->setObjectName(QStringLiteral("graphThreshold"));
  thresholdSlider_->setRange(0, 500);  // theta in thousandths, up to 0.5
  thresholdSlider_->setValue(static_cast<int>(std::lround(in_.selection->threshold() * 1000)));
  thresholdSlider_->setToolTip(tr("Edges are drawn where a query gives a key at least θ"));
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
      tr("The attention graph: an edge where a query gives a key at least θ. Tokens "
         "are placed by one of two layouts. Spectral embedding (3-D): eigenvectors 2-4 of "
         "the graph's Laplacian at θ; drag to rotate. Force-directed (2-D): edges pull "
         "like springs and tokens push each other apart (Fruchterman-Reingold, seeded), "
         "each token also pulled to the key it attends to most. Point size: mean attention "
         "the token receives; red: sinks. A sink pulls the graph into a star around itself."));
  layoutChooser_->setToolTip(
      tr("Spectral: Laplacian eigenvectors 2-4 (3-D). Force-directed: springs along the edges at "
         "θ and to each token's strongest key, repulsion between all tokens (2-D)."));
}

void GraphPanel::setLayout(int layout) { layoutChooser_->setCurrentIndex(layout); }

void GraphPanel::drawNote(const QString& note) {
  drawn().show(graph_, graphStandIn_, document::note_scene(note.toStdString()));
}

void GraphPanel::drawGraph() {
  if (!in_.run || !in_.selectionFits()) return;
  const int layer = in_.place.layer(), head = in_.place.head();
  if (!in_.run->layerAtHand(layer)) return drawNote(in_.layerNote(layer));
  const double theta = in_.selection->threshold();
  const bool force = layoutChooser_->currentIndex() == 1;
  std::shared_ptr<const std::vector<std::array<double, 3>>> positions;
  if (force) {
    positions = in_.deferred->get<std::vector<std::array<double, 3>>>(
        QStringLiteral("force-directed layout of layer %1, %2, theta %3")
            .arg(layer)
            .arg(head_name(head))
            .arg(theta),
        in_.cheapAt(layer),
        [source = in_.attentionSource(layer, head), theta](const analysis::AnalysisProgress&) {
          const analysis::AttentionMatrix m = source();
          return analysis::graph_layout_force(m.view(), {theta, 100, 1});
        });
  } else if (const auto spectrum = in_.selectedSpectrum()) {
    positions = {spectrum, &spectrum->embedding};
  }
  if (!positions) {
    drawn().show(graph_, graphStandIn_,
                 document::note_scene(
                     computing_title(tr("Attention graph"), layer, head, in_.analysis->tokens)
                         .toStdString()));
    return;
  }
  const analysis::AttentionMatrix map = in_.run->attention(layer, head);
  const std::vector<std::string> tokens = in_.run->tokenStrings();
  document::GraphSceneInputs graph;
  graph.map = &map;
  graph.analysis = &in_.analysis->at(layer, head);
  graph.positions = positions.get();
  graph.tokens = &tokens;
  graph.layer = layer;
  graph.head = head;
  graph.note = in_.place.note(in_.beforeName).toStdString();
  graph.theta = theta;
  graph.force = force;
  graph.lit = [this](int t) { return in_.place.lit(t); };
  graph.highlightedEdges = in_.place.highlightedEdges();
  drawn().show(graph_, graphStandIn_, document::graph_scene(graph));
}

}  // namespace sinkscope::ui
