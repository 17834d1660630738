#include "ui/analysis_panels.h"

#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QMainWindow>
#include <QSplitter>
#include <QVBoxLayout>
#include <cmath>
#include <limits>

#include "analysis/graph_layout.h"
#include "analysis/sink_metric.h"
#include "analysis/taxonomy.h"
#include "models/model.h"
#include "render/gl_support.h"
#include "render/heat_map_view.h"
#include "render/line_plot_view.h"
#include "render/scene_view.h"
#include "ui/deferred_results.h"
#include "ui/docks.h"
#include "ui/run_analysis.h"
#include "ui/selection_model.h"
#include "ui/sentence_run.h"

namespace sinkscope::ui {

namespace {

QString head_name(int head) {
  return head == SelectionModel::kHeadAverage ? QObject::tr("head average")
                                              : QObject::tr("head %1").arg(head);
}

// What a panel says while its numbers are computed in the background.
QString computing_title(const QString& what, int layer, int head, int tokens) {
  return QObject::tr("%1 | layer %2, %3 | computing in the background (T = %4)...")
      .arg(what)
      .arg(layer)
      .arg(head_name(head))
      .arg(tokens);
}

QWidget* stack(QWidget* a, QWidget* b) {
  QSplitter* split = panel_splitter();
  split->addWidget(a);
  split->addWidget(b);
  return split;
}

}  // namespace

AnalysisPanels::AnalysisPanels(QMainWindow* window, SelectionModel* selection, JobRunner* jobs)
    : QObject(window),
      window_(window),
      selection_(selection),
      deferred_(new DeferredResults(jobs, this)) {
  const bool gl = render::gl_panels_available();

  // Model overview: the score chooser above the layers x heads grid.
  auto* overviewBox = new QWidget(window);
  auto* layout = new QVBoxLayout(overviewBox);
  layout->setContentsMargins(2, 2, 2, 2);
  scoreChooser_ = new QComboBox(overviewBox);
  scoreChooser_->setObjectName(QStringLiteral("overviewScore"));
  scoreChooser_->addItem(tr("sink attention (mean A[i][0])"), int(HeadScore::SinkAttention));
  scoreChooser_->addItem(tr("sink boost (alpha_0 / uniform)"), int(HeadScore::SinkBoost));
  scoreChooser_->addItem(tr("entropy (mean over queries)"), int(HeadScore::Entropy));
  scoreChooser_->addItem(tr("Fiedler value (at the threshold)"), int(HeadScore::Fiedler));
  scoreChooser_->addItem(tr("F_N (value space, last query)"), int(HeadScore::FScore));
  scoreChooser_->addItem(tr("taxonomy class"), int(HeadScore::Taxonomy));
  scoreChooser_->addItem(tr("dNLL of ablating the head (Experiments menu)"), int(HeadScore::Dnll));
  scoreChooser_->addItem(tr("miniature attention maps"), int(HeadScore::MiniatureMaps));
  scoreChooser_->setToolTip(tr("The per-head score the grid is coloured by"));
  layout->addWidget(scoreChooser_);
  if (gl) {
    overview_ = new render::HeatMapView(overviewBox);
    overview_->setObjectName(QStringLiteral("overviewView"));
    layout->addWidget(overview_, 1);
    connect(overview_, &render::HeatMapView::cellClicked, this, [this](int row, int col) {
      // In miniature-map mode every head occupies a block of (side + 1) cells.
      selectHeadCell(row, col, miniatureSide_ > 0 ? miniatureSide_ + 1 : 1);
    });
  }
  connect(scoreChooser_, &QComboBox::currentIndexChanged, this, [this](int index) {
    setScore(static_cast<HeadScore>(scoreChooser_->itemData(index).toInt()));
  });
  addDock(tr("Model overview"), QStringLiteral("overviewDock"), overviewBox,
          tr("Every head of the model at once: rows are layers, columns heads, the colour is "
             "the chosen score. Heads that dump their attention on the first token (sinks) "
             "stand out under 'sink attention'. Click a cell to select that layer and head in "
             "every panel."));

  diagram_ = new render::LinePlotView(window);
  diagram_->setObjectName(QStringLiteral("persistenceDiagram"));
  betti_ = new render::LinePlotView(window);
  betti_->setObjectName(QStringLiteral("bettiCurves"));
  barcode_ = new render::LinePlotView(window);
  barcode_->setObjectName(QStringLiteral("barcode"));
  QSplitter* persistence = panel_splitter();
  persistence->addWidget(diagram_);
  persistence->addWidget(barcode_);
  persistence->addWidget(betti_);
  addDock(tr("Persistence"), QStringLiteral("persistenceDock"), persistence,
          tr("Topology of the attention graph (metrics.md s. 2): tokens are points at distance "
             "1 - (A_ij + A_ji)/2. As the distance scale e grows, tokens join into components "
             "(H0) and close loops (H1). Each dot is one feature, born and dying at the plotted "
             "scales; dots far from the diagonal last long. A sink joins everything through "
             "itself early, leaving no loops."));

  spectrum_ = new render::LinePlotView(window);
  spectrum_->setObjectName(QStringLiteral("spectrumView"));
  QSplitter* spectrumBox = panel_splitter(window);
  spectrumBox->addWidget(spectrum_);
  if (gl) {
    embedding_ = new render::SceneView(spectrumBox);
    embedding_->setObjectName(QStringLiteral("spectralEmbedding"));
    spectrumBox->addWidget(embedding_);
  }
  addDock(tr("Spectrum"), QStringLiteral("spectrumDock"), spectrumBox,
          tr("Eigenvalues of the Laplacian of the graph 'query attends to key with weight >= "
             "theta' (metrics.md s. 3), one series per threshold. The second smallest, the "
             "Fiedler value, measures how well connected the graph is; a star into one sink "
             "gives centralisation 1. Below: the tokens placed by eigenvectors 2-4 (the "
             "spectral embedding), coloured by the Fiedler vector (blue negative, red "
             "positive): the cut the graph would most easily split along."));

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
            [this](int row, int col) { selectHeadCell(row, col, 1); });
  addDock(tr("Taxonomy"), QStringLiteral("taxonomyDock"), stack(taxonomyTop, taxonomyCounts_),
          tr("For each query the key with the largest A[i][j] * ||v_j|| wins (004, metrics.md "
             "s. 7). A head whose winners are mostly the current token is a Retriever, mostly "
             "the first token (the sink) a Mixer, otherwise a Reset. Below: how many heads of "
             "each kind every layer has."));

  layerSink_ = new render::LinePlotView(window);
  layerSink_->setObjectName(QStringLiteral("layerSinkProfile"));
  layerTopology_ = new render::LinePlotView(window);
  layerTopology_->setObjectName(QStringLiteral("layerTopologyProfile"));
  layerFunction_ = new render::LinePlotView(window);
  layerFunction_->setObjectName(QStringLiteral("layerFunctionProfile"));
  QSplitter* profiles = panel_splitter();
  profiles->addWidget(layerSink_);
  profiles->addWidget(layerTopology_);
  profiles->addWidget(layerFunction_);
  addDock(tr("Layer profiles"), QStringLiteral("layerProfileDock"), profiles,
          tr("How sink measures change with depth: attention to the first token, the share of "
             "heads whose mean attention to it exceeds 0.3 (the sink rate), degree "
             "centralisation, bar counts and the effective rank of the hidden states."));

  auto* graphBox = new QWidget(window);
  auto* graphLayout = new QVBoxLayout(graphBox);
  graphLayout->setContentsMargins(2, 2, 2, 2);
  layoutChooser_ = new QComboBox(graphBox);
  layoutChooser_->setObjectName(QStringLiteral("graphLayout"));
  layoutChooser_->addItem(tr("spectral embedding (3-D)"));
  layoutChooser_->addItem(tr("force-directed (2-D, Fruchterman-Reingold, seeded)"));
  connect(layoutChooser_, &QComboBox::currentIndexChanged, this, [this] { drawGraph(); });
  graphLayout->addWidget(layoutChooser_);
  if (gl) {
    graph_ = new render::SceneView(graphBox);
    graph_->setObjectName(QStringLiteral("graphView"));
    graphLayout->addWidget(graph_, 1);
  } else {
    graphLayout->addWidget(gl_unavailable_label(graphBox), 1);
  }
  addDock(tr("Attention graph"), QStringLiteral("graphDock"), graphBox,
          tr("Tokens as points placed by the spectral embedding of the attention graph "
             "(eigenvectors 2-4 of its Laplacian at the selected threshold), an edge where a "
             "query gives a key at least theta. Point size: mean attention the token "
             "receives; red: sinks. A sink pulls the graph into a star around itself. Drag to "
             "rotate."));

  QSplitter* valueBox = panel_splitter(window);
  if (gl) {
    valueSpace_ = new render::SceneView(valueBox);
    valueSpace_->setObjectName(QStringLiteral("valueSpaceView"));
    valueBox->addWidget(valueSpace_);
  }
  valueCurve_ = new render::LinePlotView(valueBox);
  valueCurve_->setObjectName(QStringLiteral("valueCurve"));
  valueBox->addWidget(valueCurve_);
  addDock(tr("Value space"), QStringLiteral("valueSpaceDock"), valueBox,
          tr("What the selected head adds up for one query (004): each key's value vector "
             "scaled by its attention, y_j = A[i][j] v_j, projected on its three main axes "
             "(PCA). Orange: the top-N keys, whose sum s_N (black) is what the head mostly "
             "returns; red: the first token. The balls have radius r_max (every selected key "
             "inside) and r_min (no other key inside) in the full space. Below: how well a "
             "ball around s_N separates the selection (F_N) for every N, against random "
             "selections."));

  connect(selection_, &SelectionModel::changed, this, &AnalysisPanels::refresh);
  connect(deferred_, &DeferredResults::arrived, this, &AnalysisPanels::refresh);
  connect(selection_, &SelectionModel::highlightChanged, this, [this] { drawGraph(); });
  // Hovering a bar of the diagram highlights the tokens that create and kill it.
  connect(diagram_, &render::LinePlotView::pointHovered, this, [this](int series, int index) {
    QList<int> tokens;
    QList<QPair<int, int>> edges;
    const auto topology = analysis_ && selectionFits()
                              ? topologyOf(selection_->layer(), selection_->head(), false)
                              : nullptr;
    if (topology && index >= 0 && (series == 0 || series == 1)) {
      const auto& p = topology->persistence;
      const auto& bars = series == 0 ? p.h0 : p.h1;
      if (index < static_cast<int>(bars.size())) {
        const analysis::PersistenceBar& b = bars[static_cast<std::size_t>(index)];
        // H0: the edge whose merge kills the component; H1: the edge that
        // closes the loop, the loop itself and the triangle that fills it.
        for (int t : b.edge) tokens << t;
        edges << QPair<int, int>{b.edge[0], b.edge[1]};
        if (b.dimension == 1) {
          for (int t : b.triangle) tokens << t;
          for (const auto& e : b.cycle)
            tokens << e[0] << e[1], edges << QPair<int, int>{e[0], e[1]};
          const auto& f = b.triangle;
          if (f[0] >= 0)
            edges << QPair<int, int>{f[0], f[1]} << QPair<int, int>{f[1], f[2]}
                  << QPair<int, int>{f[0], f[2]};
        }
      }
    }
    selection_->setHighlight(tokens, edges);
  });
}

QDockWidget* AnalysisPanels::addDock(const QString& title, const QString& name, QWidget* content,
                                     const QString& explanation) {
  content->setToolTip(explanation);
  content->setWhatsThis(explanation);
  QDockWidget* dock = dock_make(title, name, content, window_);
  docks_.push_back(dock);
  return dock;
}

void AnalysisPanels::setRun(std::shared_ptr<const SentenceRun> run) {
  run_ = std::move(run);
  deferred_->clear();
  analysis_ = run_ ? run_->analysis : nullptr;
  source_ = run_ ? run_->source : QString();
  refresh();
}

void AnalysisPanels::selectHeadCell(int row, int col, int block) {
  selection_->setLayer(row / block);
  selection_->setHead(col / block);
}

bool AnalysisPanels::selectionFits() const {
  return analysis_ && selection_->layer() < analysis_->layers &&
         selection_->head() < analysis_->heads && selection_->queryToken() < analysis_->tokens;
}

bool AnalysisPanels::cheap() const { return !analysis_ || analysis_->topologyForAllHeads; }

std::function<analysis::AttentionMatrix()> AnalysisPanels::attentionSource(int layer,
                                                                           int head) const {
  if (!run_->trace) {
    auto map = std::make_shared<const analysis::AttentionMatrix>(run_->attention(layer, head));
    return [map] { return *map; };
  }
  // The run's cached layer is immutable once made: jobs may read it.
  std::shared_ptr<const models::LayerCapture> capture = run_->layer(layer);
  return [capture, head]() -> analysis::AttentionMatrix {
    if (head == SelectionModel::kHeadAverage) return capture->headAverage();
    const analysis::AttentionView v = capture->attentionOf(head);
    return {std::vector<float>(v.weights.begin(), v.weights.end()), v.size, v.causal};
  };
}

std::shared_ptr<const analysis::HeadAnalysis> AnalysisPanels::topologyOf(int layer, int head,
                                                                         bool request) {
  if (analysis_->topologyForAllHeads)  // a view into the run's cache
    return {analysis_, &analysis_->at(layer, head)};
  const QString key = QStringLiteral("topology %1 %2").arg(layer).arg(head);
  if (!request) return deferred_->peek<analysis::HeadAnalysis>(key);
  analysis::HeadAnalysisParams params = analysis_->params;
  params.topology = true;
  return deferred_->get<analysis::HeadAnalysis>(
      key, false, [source = attentionSource(layer, head), params] {
        const analysis::AttentionMatrix m = source();
        return analysis::analyse_head(m.view(), {}, 0, params);
      });
}

std::shared_ptr<const analysis::GraphSpectrum> AnalysisPanels::selectedSpectrum() {
  const int layer = selection_->layer(), head = selection_->head();
  const double theta = selection_->threshold();
  return deferred_->get<analysis::GraphSpectrum>(
      QStringLiteral("eigen %1 %2 %3").arg(layer).arg(head).arg(theta), cheap(),
      [source = attentionSource(layer, head), theta] {
        const analysis::AttentionMatrix m = source();
        return analysis::graph_spectrum(m.view(), {theta, false, true});
      });
}

std::shared_ptr<const analysis::GraphSpectrum> AnalysisPanels::spectrumAt(int layer, int head,
                                                                          bool request) {
  const double theta = selection_->threshold();
  const int ti = analysis_->thresholdIndex(theta);
  if (ti >= 0) {
    const auto topology = topologyOf(layer, head, request);
    if (!topology || topology->spectra.empty()) return nullptr;
    return {topology, &topology->spectra[static_cast<std::size_t>(ti)]};
  }
  // A threshold outside the cached set: eigenvalues for this head only.
  const QString key = QStringLiteral("spectrum %1 %2 %3").arg(layer).arg(head).arg(theta);
  if (!request) return deferred_->peek<analysis::GraphSpectrum>(key);
  return deferred_->get<analysis::GraphSpectrum>(
      key, cheap(), [source = attentionSource(layer, head), theta] {
        const analysis::AttentionMatrix m = source();
        return analysis::graph_spectrum(m.view(), {theta, false, false});
      });
}

void AnalysisPanels::setGraphLayout(int layout) { layoutChooser_->setCurrentIndex(layout); }

void AnalysisPanels::setExperiments(ExperimentResults results) {
  experiments_ = std::move(results);
  refresh();
}

void AnalysisPanels::setScore(HeadScore score) {
  score_ = score;
  const int index = scoreChooser_->findData(int(score));
  if (index >= 0 && scoreChooser_->currentIndex() != index) scoreChooser_->setCurrentIndex(index);
  drawOverview();
}

void AnalysisPanels::drawWaiting() {
  const QString note =
      run_->trace ? tr("Analysing every head of the run (T = %1)...").arg(run_->tokenCount())
                  : tr("No model open: these panels need a model's attention (File > Open "
                       "model folder)");
  for (render::LinePlotView* view : {diagram_, barcode_, betti_, spectrum_, taxonomyCounts_,
                                     layerSink_, layerTopology_, layerFunction_, valueCurve_})
    view->setData({note, {}, {}, {}});
  for (render::HeatMapView* view : {overview_, taxonomy_})
    if (view) {
      render::HeatMapData empty;
      empty.title = note;
      view->setData(std::move(empty));
    }
  for (render::SceneView* view : {graph_, embedding_, valueSpace_})
    if (view) view->setData({note, {}, {}, {}, {}});
}

void AnalysisPanels::refresh() {
  if (run_ && !analysis_) {
    drawWaiting();  // the map is shown; the analyses are still being computed
    return;
  }
  if (!selectionFits()) return;
  deferred_->beginPass();
  drawOverview();
  drawPersistence();
  drawSpectrum();
  drawTaxonomy();
  drawLayerProfiles();
  drawGraph();
  drawValueSpace();
  deferred_->endPass();  // work for selections left behind stops
}

void AnalysisPanels::drawMiniatureMaps() {
  const RunAnalysis& a = *analysis_;
  // Each map shrunk to at most 24 x 24 cells (block means), one empty cell between maps.
  const int T = a.tokens, side = std::min(T, 24), block = side + 1;
  miniatureSide_ = side;
  render::HeatMapData d;
  d.rows = a.layers * block - 1;
  d.cols = a.heads * block - 1;
  d.values.assign(static_cast<std::size_t>(d.rows) * d.cols, 0.0f);
  d.hidden.assign(d.values.size(), true);
  for (int l = 0; l < a.layers; ++l)
    for (int h = 0; h < a.heads; ++h) {
      const analysis::AttentionMatrix m = run_->attention(l, h);
      for (int r = 0; r < side; ++r)
        for (int c = 0; c < side; ++c) {
          // The block of original cells this miniature cell stands for.
          const int r0 = r * T / side, r1 = (r + 1) * T / side, c0 = c * T / side,
                    c1 = (c + 1) * T / side;
          double sum = 0;
          int visible = 0;
          for (int i = r0; i < r1; ++i)
            for (int j = c0; j < c1; ++j)
              if (m.view().visible(i, j)) sum += m.view().at(i, j), ++visible;
          const std::size_t k = static_cast<std::size_t>(l * block + r) * d.cols +
                                static_cast<std::size_t>(h * block + c);
          if (visible > 0) {
            d.values[k] = static_cast<float>(sum / visible);
            d.hidden[k] = false;
          }
        }
    }
  d.fixedRange = true;
  d.rangeMin = 0;
  d.rangeMax = 1;
  d.quantity = tr("attention weight (block mean)");
  d.rowTitle = tr("layer block");
  d.colTitle = tr("head block");
  d.title =
      tr("selected: layer %1, %2").arg(selection_->layer()).arg(head_name(selection_->head()));
  overview_->setData(std::move(d));
}

void AnalysisPanels::drawOverview() {
  if (!overview_ || !selectionFits()) return;
  if (score_ == HeadScore::MiniatureMaps && run_ && run_->trace) {
    drawMiniatureMaps();
    return;
  }
  miniatureSide_ = 0;
  const RunAnalysis& a = *analysis_;
  render::HeatMapData d;
  d.rows = a.layers;
  d.cols = a.heads;
  d.rowTitle = tr("layer");
  d.colTitle = tr("head");
  QString name;
  for (int l = 0; l < a.layers; ++l)
    for (int h = 0; h < a.heads; ++h) {
      const analysis::HeadAnalysis& r = a.at(l, h);
      double v = 0;
      switch (score_) {
        case HeadScore::SinkBoost:
          v = r.keyImportance.empty()
                  ? 0.0
                  : r.keyImportance[0] / analysis::sink_uniform_baseline(a.tokens, 0, a.causal);
          name = tr("sink boost");
          break;
        case HeadScore::Entropy:
          v = r.meanOverQueries.entropy;
          name = tr("entropy (nats)");
          break;
        case HeadScore::Fiedler: {
          // Long inputs: only heads whose spectrum has been computed (the
          // selected ones); the others are left blank.
          const auto g =
              spectrumAt(l, h, cheap() || (l == selection_->layer() && h == selection_->head()));
          v = g ? g->fiedlerValue : std::numeric_limits<double>::quiet_NaN();
          name = cheap() ? tr("Fiedler value, theta %1").arg(selection_->threshold())
                         : tr("Fiedler value, theta %1 (heads visited so far)")
                               .arg(selection_->threshold());
          break;
        }
        case HeadScore::FScore:
          v = r.valueSpace ? r.valueSpace->scores.f : 0.0;
          name = tr("F_N, N = %1").arg(a.params.valueSpace.topN);
          break;
        case HeadScore::Taxonomy:
          v = r.taxonomy ? static_cast<int>(analysis::taxonomy_label(*r.taxonomy)) : 0;
          name = tr("0 Retriever, 1 Mixer, 2 Reset");
          break;
        case HeadScore::MiniatureMaps:  // drawn by drawMiniatureMaps; no run: sink attention
        case HeadScore::SinkAttention:
          v = r.meanOverQueries.sinkAttention;
          name = tr("sink attention");
          break;
        case HeadScore::Dnll:
          v = experiments_.headDnll.size() == static_cast<std::size_t>(a.layers * a.heads)
                  ? experiments_.headDnll[static_cast<std::size_t>(l * a.heads + h)]
                  : 0.0;
          name = experiments_.headDnll.empty() ? tr("dNLL: not computed (Experiments menu)")
                                               : tr("dNLL of ablating the head (nats)");
          break;
      }
      d.values.push_back(static_cast<float>(v));
      d.hidden.push_back(!std::isfinite(v));
    }
  if (score_ == HeadScore::SinkAttention) d.fixedRange = true, d.rangeMin = 0, d.rangeMax = 1;
  if (score_ == HeadScore::Taxonomy) d.fixedRange = true, d.rangeMin = 0, d.rangeMax = 2;
  for (int l = 0; l < a.layers; ++l) d.rowLabels.push_back(tr("L%1").arg(l));
  for (int h = 0; h < a.heads; ++h) d.colLabels.push_back(tr("H%1").arg(h));
  d.quantity = name;
  d.title =
      tr("selected: layer %1, %2").arg(selection_->layer()).arg(head_name(selection_->head()));
  d.outlineRow = selection_->layer();
  d.outlineCol = selection_->head();  // the head average (-1) has no cell
  overview_->setData(std::move(d));
}

void AnalysisPanels::drawPersistence() {
  const auto topology = topologyOf(selection_->layer(), selection_->head());
  if (!topology) {
    const QString waiting = computing_title(tr("Persistence"), selection_->layer(),
                                            selection_->head(), analysis_->tokens);
    for (render::LinePlotView* view : {diagram_, barcode_, betti_})
      view->setData({waiting, {}, {}, {}});
    return;
  }
  const analysis::HeadAnalysis& r = *topology;
  const double minP = 0.05;
  render::LinePlotData d;
  d.title = tr("Persistence diagram | layer %1, %2")
                .arg(selection_->layer())
                .arg(head_name(selection_->head()));
  d.xLabel = tr("birth (distance e)");
  d.yLabel = tr("death");
  render::LineSeries h0{tr("H0 (%1 bars)").arg(r.persistence.h0.size()), {}, {}};
  render::LineSeries h1{tr("H1 (%1 bars)").arg(r.persistence.h1.size()), {}, {}};
  h0.scatter = h1.scatter = true;
  for (const auto& b : r.persistence.h0) h0.x.push_back(b.birth), h0.y.push_back(b.death);
  for (const auto& b : r.persistence.h1) h1.x.push_back(b.birth), h1.y.push_back(b.death);
  render::LineSeries diagonal{tr("birth = death"), {0, 1}, {0, 1}, true};
  render::LineSeries minLine{
      tr("min persistence %1").arg(minP), {0, 1 - minP}, {minP, 1}, false, true};
  d.series = {h0, h1, diagonal, minLine};
  d.xPadding = 0.02;
  diagram_->setData(std::move(d));

  render::LinePlotData code;
  code.title = tr("Barcode | one bar per feature, from birth to death");
  code.xLabel = tr("distance scale e");
  code.integerY = true;
  code.yLabel = tr("bar");
  render::LineSeries c0{tr("H0"), {}, {}}, c1{tr("H1"), {}, {}};
  c0.segments = c1.segments = true;
  int row = 0;
  for (const auto* list : {&r.persistence.h0, &r.persistence.h1})
    for (const auto& bar : *list) {
      auto& s = list == &r.persistence.h0 ? c0 : c1;
      s.x.push_back(bar.birth), s.x.push_back(bar.death);
      s.y.push_back(row), s.y.push_back(row);
      ++row;
    }
  code.series = {c0, c1};
  code.xPadding = 0.02;
  barcode_->setData(std::move(code));

  render::LinePlotData b;
  b.title = tr("Betti curves | bars above %1: H0 %2, H1 %3")
                .arg(minP)
                .arg(analysis::bars_above(r.persistence.h0, minP))
                .arg(analysis::bars_above(r.persistence.h1, minP));
  b.xLabel = tr("distance scale e");
  b.integerY = true;
  b.yLabel = tr("Betti number");
  render::LineSeries b0{tr("beta_0 (components)"), r.betti.grid, {}};
  render::LineSeries b1{tr("beta_1 (loops)"), r.betti.grid, {}};
  for (int v : r.betti.beta0) b0.y.push_back(v);
  for (int v : r.betti.beta1) b1.y.push_back(v);
  b.series = {b0, b1};
  b.xPadding = 0.02;
  betti_->setData(std::move(b));
}

void AnalysisPanels::drawSpectrum() {
  const RunAnalysis& a = *analysis_;
  const auto topology = topologyOf(selection_->layer(), selection_->head());
  const auto chosen = spectrumAt(selection_->layer(), selection_->head());
  const auto full = embedding_ ? selectedSpectrum() : nullptr;
  const QString waiting =
      computing_title(tr("Laplacian spectrum"), selection_->layer(), selection_->head(), a.tokens);
  if (!topology || !chosen) {
    spectrum_->setData({waiting, {}, {}, {}});
  } else {
    drawSpectrumPlot(*topology, *chosen);
  }
  if (!embedding_ || !run_) return;
  if (!full) {
    embedding_->setData({waiting, {}, {}, {}, {}});
    return;
  }
  drawSpectralEmbedding(*full);
}

void AnalysisPanels::drawSpectrumPlot(const analysis::HeadAnalysis& r,
                                      const analysis::GraphSpectrum& g) {
  const RunAnalysis& a = *analysis_;
  render::LinePlotData d;
  d.title = tr("Laplacian spectrum | layer %1, %2 | theta %3: Fiedler %4, centralisation %5, "
               "star-likeness %6")
                .arg(selection_->layer())
                .arg(head_name(selection_->head()))
                .arg(g.threshold)
                .arg(g.fiedlerValue, 0, 'g', 3)
                .arg(g.centralisation, 0, 'g', 3)
                .arg(g.starLikeness, 0, 'g', 3);
  d.xLabel = tr("eigenvalue index (ascending)");
  d.integerX = true;
  d.yLabel = tr("eigenvalue");
  std::vector<analysis::GraphSpectrum> shown = r.spectra;
  if (a.thresholdIndex(selection_->threshold()) < 0) shown.push_back(g);  // the chosen theta too
  for (const analysis::GraphSpectrum& s : shown) {
    render::LineSeries e{tr("theta %1").arg(s.threshold), {}, s.eigenvalues};
    for (std::size_t k = 0; k < s.eigenvalues.size(); ++k) e.x.push_back(static_cast<double>(k));
    d.series.push_back(std::move(e));
  }
  spectrum_->setData(std::move(d));
}

void AnalysisPanels::drawSpectralEmbedding(const analysis::GraphSpectrum& full) {
  render::SceneData scene;
  scene.title = tr("Spectral embedding | theta %1").arg(selection_->threshold());
  scene.legend = tr("eigenvectors 2-4 of the Laplacian; colour: Fiedler vector");
  double extent = 1e-12;
  for (double v : full.fiedlerVector) extent = std::max(extent, std::abs(v));
  for (int t = 0; t < static_cast<int>(full.embedding.size()); ++t) {
    render::ScenePoint p;
    p.position = full.embedding[static_cast<std::size_t>(t)];
    p.color = render::colormap_diverging(
        full.fiedlerVector.empty() ? 0.0
                                   : full.fiedlerVector[static_cast<std::size_t>(t)] / extent);
    p.size = 1.6;  // near-zero Fiedler entries are near white: large enough to see shaded
    p.label = QStringLiteral("%1 %2").arg(t).arg(run_->tokens.value(t));
    scene.points.push_back(p);
  }
  embedding_->setData(std::move(scene));
}

void AnalysisPanels::drawTaxonomy() {
  const RunAnalysis& a = *analysis_;
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
  grid.outlineRow = selection_->layer();
  grid.outlineCol = selection_->head();
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
  const auto& sel = a.at(selection_->layer(), std::max(0, selection_->head())).taxonomy;
  const int total = sel ? std::max(1, sel->total()) : 1;
  grid.title = tr("Taxonomy | layer %1, head %2: sink %3%, current %4%, other %5%")
                   .arg(selection_->layer())
                   .arg(std::max(0, selection_->head()))
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

void AnalysisPanels::drawLayerProfiles() {
  const RunAnalysis& a = *analysis_;
  render::LineSeries sink{tr("attention to position 0 (mean over heads)"), {}, {}};
  render::LineSeries rate{tr("sink rate (share of heads, alpha_0 > 0.3)"), {}, {}};
  render::LineSeries central{
      tr("centralisation (head average, theta %1)").arg(selection_->threshold()), {}, {}};
  render::LineSeries h0{tr("H0 bars > 0.05 (head average)"), {}, {}};
  render::LineSeries h1{tr("H1 bars > 0.05 (head average)"), {}, {}};
  render::LineSeries rank{tr("effective rank of the layer's input"), {}, {}};
  for (int l = 0; l < a.layers; ++l) {
    double s = 0, above = 0;
    for (int h = 0; h < a.heads; ++h) {
      s += a.at(l, h).meanOverQueries.sinkAttention;
      above += a.at(l, h).keyImportance[0] > 0.3 ? 1 : 0;
    }
    const auto& avg = a.at(l, SelectionModel::kHeadAverage);
    for (auto* series : {&sink, &rate, &central, &h0, &h1, &rank}) series->x.push_back(l);
    sink.y.push_back(s / a.heads);
    rate.y.push_back(above / a.heads);
    // Long inputs: the per-layer topology is left out (NaN: no point drawn).
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto g = cheap() ? spectrumAt(l, SelectionModel::kHeadAverage) : nullptr;
    central.y.push_back(g ? g->centralisation : nan);
    h0.y.push_back(cheap() ? analysis::bars_above(avg.persistence.h0, 0.05) : nan);
    h1.y.push_back(cheap() ? analysis::bars_above(avg.persistence.h1, 0.05) : nan);
    rank.y.push_back(a.effectiveRank[static_cast<std::size_t>(l)]);
  }
  render::LinePlotData top;
  top.title = tr("Sinks by layer | %1").arg(source_);
  top.xLabel = tr("layer");
  top.integerX = true;
  top.yLabel = tr("share");
  top.series = {sink, rate, central};
  layerSink_->setData(std::move(top));
  render::LinePlotData bottom;
  bottom.title = cheap() ? tr("Topology and rank by layer")
                         : tr("Rank by layer | topology per layer only up to T = %1")
                               .arg(kTopologyForAllHeadsMaxTokens);
  bottom.xLabel = tr("layer");
  bottom.integerX = true;
  bottom.yLabel = tr("count");
  bottom.series = {h0, h1, rank};
  layerTopology_->setData(std::move(bottom));

  render::LinePlotData function;
  function.xLabel = tr("layer");
  function.integerX = true;
  function.yLabel = tr("value / its maximum");
  const auto& e = experiments_;
  if (e.klPerLayer.empty() && e.fisherPerParameter.empty()) {
    function.title = tr("KL and Fisher by layer: not computed (Experiments menu)");
  } else {
    auto scaled = [](const QString& name, const std::vector<double>& v) {
      render::LineSeries s{name, {}, {}};
      double m = 0;
      for (double x : v) m = std::max(m, std::abs(x));
      for (std::size_t l = 0; l < v.size(); ++l) {
        s.x.push_back(static_cast<double>(l));
        s.y.push_back(m > 0 ? v[l] / m : 0.0);
      }
      return std::make_pair(s, m);
    };
    const auto [kl, klMax] = scaled(tr("KL(base || sinks removed)"), e.klPerLayer);
    const auto [fisher, fisherMax] = scaled(tr("Fisher trace per parameter"), e.fisherPerParameter);
    function.title = tr("Function by layer | max KL %1 nats, max Fisher/param %2")
                         .arg(klMax, 0, 'g', 3)
                         .arg(fisherMax, 0, 'g', 3);
    function.series = {kl, fisher};
  }
  layerFunction_->setData(std::move(function));
}

}  // namespace sinkscope::ui

namespace sinkscope::ui {

void AnalysisPanels::drawGraph() {
  if (!graph_ || !run_ || !selectionFits()) return;
  const int layer = selection_->layer(), head = selection_->head();
  const double theta = selection_->threshold();
  const bool force = layoutChooser_->currentIndex() == 1;
  std::shared_ptr<const std::vector<std::array<double, 3>>> positions;
  if (force) {
    positions = deferred_->get<std::vector<std::array<double, 3>>>(
        QStringLiteral("force %1 %2 %3").arg(layer).arg(head).arg(theta), cheap(),
        [source = attentionSource(layer, head), theta] {
          const analysis::AttentionMatrix m = source();
          return analysis::graph_layout_force(m.view(), {theta, 100, 1});
        });
  } else if (const auto spectrum = selectedSpectrum()) {
    positions = {spectrum, &spectrum->embedding};
  }
  if (!positions) {
    graph_->setData(
        {computing_title(tr("Attention graph"), layer, head, analysis_->tokens), {}, {}, {}, {}});
    return;
  }
  const analysis::AttentionMatrix map = run_->attention(layer, head);
  const analysis::HeadAnalysis& r = analysis_->at(layer, head);
  render::SceneData d;
  d.title =
      tr("Attention graph | layer %1, %2 | theta %3").arg(layer).arg(head_name(head)).arg(theta);
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
    const bool lit = selection_->highlightedTokens().contains(t);
    p.color = lit                                 ? render::kSelectedHighlight
              : sink[static_cast<std::size_t>(t)] ? render::kSinkHighlight
                                                  : render::Rgb{0.23, 0.32, 0.55};
    if (lit) p.size *= 1.4;
    p.label = QStringLiteral("%1 %2").arg(t).arg(run_->tokens.value(t));
    d.points.push_back(p);
  }
  for (int i = 0; i < map.size; ++i)
    for (int j = 0; j < map.size; ++j)
      if (i != j && map.view().at(i, j) >= theta) d.edges.push_back({i, j, map.view().at(i, j)});
  // The hovered persistence bar's edges, drawn lit whatever their weight.
  for (const auto& [a, b] : selection_->highlightedEdges())
    if (a < map.size && b < map.size) d.edges.push_back({a, b, 1.0, true});
  graph_->setData(std::move(d));
}

void AnalysisPanels::drawValueSpace() {
  if (!run_ || !analysis_ || !run_->trace) return;
  const int layer = selection_->layer(), head = selection_->head();
  render::LinePlotData curve;
  curve.xLabel = tr("N (keys selected)");
  curve.integerX = true;
  curve.yLabel = tr("score");
  curve.includeZero = true;
  if (head == SelectionModel::kHeadAverage) {
    curve.title = tr("Value space needs one head (the average has no values of its own)");
    valueCurve_->setData(std::move(curve));
    if (valueSpace_) valueSpace_->setData({curve.title, {}, {}, {}, {}});
    return;
  }
  const auto capture = run_->layer(layer);  // the run's cached layer, not a fresh copy
  const models::LayerCapture& cap = *capture;
  const analysis::AttentionView A = cap.attentionOf(head);
  const int query = selection_->queryToken() >= 0 ? selection_->queryToken() : A.size - 1;
  analysis::ValueSpaceParams p;
  p.topN = selection_->topN();
  p.query = query;
  const analysis::ValueSpace vs = analysis::value_space(A, cap.valuesOf(head), cap.head_dim, p);

  if (valueSpace_) {
    render::SceneData d;
    d.title = tr("Value space | layer %1, head %2, query %3 | N = %4: P %5, R %6, F %7 (random %8)")
                  .arg(layer)
                  .arg(head)
                  .arg(query)
                  .arg(vs.topN)
                  .arg(vs.scores.precision, 0, 'f', 2)
                  .arg(vs.scores.recall, 0, 'f', 2)
                  .arg(vs.scores.f, 0, 'f', 2)
                  .arg(vs.randomMean.f, 0, 'f', 2);
    d.legend =
        tr("orange: top-N; red: first token; black: s_N; balls: r_max, r_min (full-space "
           "radii around the projected s_N)");
    std::vector<bool> selected(vs.keys.size(), false);
    for (int j : vs.selected) selected[static_cast<std::size_t>(j)] = true;  // keys 0..i
    for (std::size_t k = 0; k < vs.keys.size(); ++k) {
      render::ScenePoint pt;
      pt.position = vs.pca3[k];
      pt.color = vs.keys[k] == 0 ? render::kSinkHighlight
                 : selected[k]   ? render::kSelectedHighlight
                                 : render::Rgb{0.6, 0.6, 0.6};
      pt.label = QStringLiteral("%1 %2").arg(vs.keys[k]).arg(run_->tokens.value(vs.keys[k]));
      d.points.push_back(pt);
    }
    render::ScenePoint s;
    s.position = vs.pca3.back();
    s.color = {0.05, 0.05, 0.05};
    s.size = 1.6;
    s.label = QStringLiteral("s_N");
    d.points.push_back(s);
    d.balls.push_back({s.position, vs.rMax, render::kSelectedHighlight});
    if (std::isfinite(vs.rMin)) d.balls.push_back({s.position, vs.rMin, {0.3, 0.3, 0.3}});
    valueSpace_->setData(std::move(d));
  }

  analysis::ValueSpaceParams cp = p;
  cp.randomSubsets = 16;  // the curve's baseline: fewer subsets, every N
  const auto curvePoints = deferred_->get<std::vector<analysis::ValueSpace>>(
      QStringLiteral("curve %1 %2 %3").arg(layer).arg(head).arg(query), cheap(),
      [capture, head, cp] {
        return analysis::value_space_curve(capture->attentionOf(head), capture->valuesOf(head),
                                           capture->head_dim, cp);
      });
  if (!curvePoints) {
    curve.title = computing_title(tr("Separability against N"), layer, head, A.size);
    valueCurve_->setData(std::move(curve));
    return;
  }
  const auto& points = *curvePoints;
  render::LineSeries f{tr("F_N (top-N)"), {}, {}}, pr{tr("precision"), {}, {}},
      rc{tr("recall"), {}, {}}, random{tr("F_N of random N-subsets (mean)"), {}, {}, true};
  for (const auto& v : points) {
    for (auto* s : {&f, &pr, &rc, &random}) s->x.push_back(v.topN);
    f.y.push_back(v.scores.f);
    pr.y.push_back(v.scores.precision);
    rc.y.push_back(v.scores.recall);
    random.y.push_back(v.randomMean.f);
  }
  render::LineSeries now{
      tr("selected N"), {double(vs.topN), double(vs.topN)}, {0.0, 1.0}, false, true};
  curve.title =
      tr("Separability against N | layer %1, head %2, query %3").arg(layer).arg(head).arg(query);
  curve.series = {f, pr, rc, random, now};
  valueCurve_->setData(std::move(curve));
}

}  // namespace sinkscope::ui
