#include "ui/panels/overview_panel.h"

#include <QComboBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "analysis/sink_metric.h"
#include "analysis/taxonomy.h"
#include "render/figure_part.h"
#include "render/gl_support.h"
#include "render/heat_map_view.h"
#include "ui/run_analysis.h"
#include "ui/selection_model.h"
#include "ui/sentence_run.h"

namespace sinkscope::ui {

OverviewPanel::OverviewPanel(PanelInputs& inputs, QWidget* host) : Panel(inputs, host) {
  const bool gl = render::gl_panels_available();
  // Model overview: the score chooser above the layers x heads grid.
  auto* overviewBox = new QWidget(host);
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
      select_head_cell(in_, overview_->data(), row, col, miniatureSide_ > 0 ? miniatureSide_ + 1 : 1);
    });
  } else {
    overviewStandIn_ = new render::FigureStandIn(QStringLiteral("overviewView"), overviewBox);
    layout->addWidget(overviewStandIn_, 1);
  }
  connect(scoreChooser_, &QComboBox::currentIndexChanged, this, [this](int index) {
    setScore(static_cast<HeadScore>(scoreChooser_->itemData(index).toInt()));
  });
  setContent(QStringLiteral("overview"), overviewBox,
           tr("Every head of the model at once: rows are layers, columns heads, the colour is "
              "the chosen score. Heads that dump their attention on the first token (sinks) "
              "stand out under 'sink attention'. Click a cell to select that layer and head in "
              "every panel. Comparing with a model of another shape, its grid stands beside "
              "this one: a click there pins the compared model's head (the selection bar's 'B "
              "at')."));
}

void OverviewPanel::setScore(HeadScore score) {
  score_ = score;
  const int index = scoreChooser_->findData(int(score));
  if (index >= 0 && scoreChooser_->currentIndex() != index) scoreChooser_->setCurrentIndex(index);
  if (in_.selectionFits()) drawOverview();
}

void OverviewPanel::draw() { drawOverview(); }

void OverviewPanel::drawNote(const QString& note) {
  render::HeatMapData empty;
  empty.title = note;
  render::show_or_keep(overview_, overviewStandIn_, std::move(empty));
}

render::HeatMapData OverviewPanel::scoreGrid(const TraceAnalysis& a, bool before) const {
  document::HeadScoreSources sources;
  sources.threshold = in_.selection->threshold();
  sources.headDnll = in_.experiments.headDnll;
  // Long inputs: only heads whose spectrum has been computed (the selected
  // ones) have a Fiedler value; the plain run beside an intervened one has
  // its cached spectra only.
  if (!before)
    sources.fiedler = [this](int l, int h) {
      const auto g =
          in_.spectrumAt(l, h, in_.cheap() || (l == in_.place.layer() && h == in_.place.head()));
      return g ? g->fiedlerValue : std::numeric_limits<double>::quiet_NaN();
    };
  const document::HeadGridView view = document::head_score_view(a, score_, sources);
  render::HeatMapData d;
  d.rows = a.layers;
  d.cols = a.heads;
  d.rowTitle = tr("layer");
  d.colTitle = tr("head");
  for (double v : view.values) {
    d.values.push_back(static_cast<float>(v));
    d.hidden.push_back(!std::isfinite(v));
  }
  d.numbers = std::make_shared<const io::CsvTable>(view.table);
  const bool values = in_.hasValues();
  QString name;
  switch (score_) {
    case HeadScore::SinkBoost:
      name = tr("sink boost");
      break;
    case HeadScore::Entropy:
      name = tr("entropy (nats)");
      break;
    case HeadScore::Fiedler:
      name = in_.cheap() ? tr("Fiedler value, theta %1").arg(in_.selection->threshold())
                         : tr("Fiedler value, theta %1 (heads visited so far)")
                               .arg(in_.selection->threshold());
      break;
    // Both need the heads' values; a capture without them leaves the cells
    // blank and says why, never a scale of zeros.
    case HeadScore::FScore:
      name = values ? tr("F_N, N = %1").arg(a.params.valueSpace.topN)
                    : tr("F_N needs the heads' values (this capture has none)");
      break;
    case HeadScore::Taxonomy:
      name = values ? tr("0 Retriever, 1 Mixer, 2 Reset")
                    : tr("the taxonomy needs the heads' values (this capture has none)");
      break;
    case HeadScore::MiniatureMaps:  // drawn by drawMiniatureMaps; no run: sink attention
    case HeadScore::SinkAttention:
      name = tr("sink attention");
      break;
    case HeadScore::Dnll:
      // Not computed: blank cells and words, never a colour scale of zeros.
      name = in_.experiments.headDnll.empty()
                 ? tr("dNLL not computed yet (Experiments > Head ablation)")
                 : tr("dNLL of ablating the head (nats)");
      break;
  }
  if (score_ == HeadScore::SinkAttention) d.fixedRange = true, d.rangeMin = 0, d.rangeMax = 1;
  // dNLL is signed (an ablation can help): a diverging scale centred at 0.
  if (score_ == HeadScore::Dnll) d.diverging = true;
  if (score_ == HeadScore::Taxonomy) d.fixedRange = true, d.rangeMin = 0, d.rangeMax = 2;
  for (int l = 0; l < a.layers; ++l) d.rowLabels.push_back(tr("L%1").arg(l));
  for (int h = 0; h < a.heads; ++h) d.colLabels.push_back(tr("H%1").arg(h));
  d.quantity = name;
  // In a paper's words: the model and the score; the frame marks the selected head.
  d.title = tr("%1 per head | layer %2, %3 framed")
                .arg(name)
                .arg(in_.place.layer())
                .arg(head_name(in_.place.head()));
  // The head average (-1) has no cell; A's grid beside B's frames A's own selection.
  d.outlineRow = before ? in_.selection->layer() : in_.place.layer();
  d.outlineCol = before ? in_.selection->head() : in_.place.head();
  return d;
}

void OverviewPanel::drawOverview() {
  if (!in_.selectionFits()) return;
  if (score_ == HeadScore::MiniatureMaps && in_.run && in_.run->trace) {
    drawMiniatureMaps();
    return;
  }
  miniatureSide_ = 0;
  render::HeatMapData d = scoreGrid(*in_.analysis, false);
  if (in_.before) {
    // Side by side: the plain run's grid left of the intervened one, one colour scale.
    render::HeatMapData left = scoreGrid(*in_.before, true);
    left.outlineRow = -1;
    // The runs' names stand under their grids.
    const QString title = d.title + in_.place.note(in_.beforeName);
    const auto right = d.numbers;
    d = render::heat_map_side_by_side(left, d, in_.beforeName, in_.afterName);
    d.title = title;
    d.numbers = std::make_shared<const io::CsvTable>(
        document::tables_by_run({{in_.beforeName.toStdString(), left.numbers.get()},
                                 {in_.afterName.toStdString(), right.get()}}));
  }
  render::show_or_keep(overview_, overviewStandIn_, std::move(d));
}

void OverviewPanel::drawMiniatureMaps() {
  const TraceAnalysis& a = *in_.analysis;
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
      const analysis::AttentionMatrix m = in_.run->attention(l, h);
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
  d.title = tr("Every head's attention map | layer %1, %2 framed")
                .arg(in_.place.layer())
                .arg(head_name(in_.place.head()));
  render::show_or_keep(overview_, overviewStandIn_, std::move(d));
}

}  // namespace sinkscope::ui
