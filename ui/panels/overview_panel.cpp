#include "ui/panels/overview_panel.h"

#include <QComboBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "analysis/sink_metric.h"
#include "analysis/taxonomy.h"
#include "models/document/sentence_run.h"
#include "models/document/trace_analysis.h"
#include "models/model.h"
#include "render/drawn_views.h"
#include "render/figure_part.h"
#include "render/gl_support.h"
#include "render/heat_map_view.h"
#include "ui/selection_model.h"

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
  scoreChooser_->addItem(tr("sink boost (α₀ / uniform)"), int(HeadScore::SinkBoost));
  scoreChooser_->addItem(tr("entropy (mean over queries)"), int(HeadScore::Entropy));
  scoreChooser_->addItem(tr("Fiedler value (at the threshold)"), int(HeadScore::Fiedler));
  scoreChooser_->addItem(tr("Fₙ (value space, last query)"), int(HeadScore::FScore));
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
  drawn().show(overview_, overviewStandIn_, document::note_map(note.toStdString()));
}

views::HeatMap OverviewPanel::scoreGrid(const TraceAnalysis& a, bool before) const {
  document::HeadScoreMapInputs in;
  in.score = score_;
  in.sources.threshold = in_.selection->threshold();
  in.sources.headDnll = in_.experiments.headDnll;
  // Long inputs: only heads whose spectrum has been computed (the selected
  // ones) have a Fiedler value; the plain run beside an intervened one has
  // its cached spectra only.
  if (!before)
    in.sources.fiedler = [this](int l, int h) {
      const auto g =
          in_.spectrumAt(l, h, in_.cheap() || (l == in_.place.layer() && h == in_.place.head()));
      return g ? g->fiedlerValue : std::numeric_limits<double>::quiet_NaN();
    };
  in.hasValues = in_.hasValues();
  in.allFiedlers = in_.cheap();
  in.framedLayer = in_.place.layer();
  in.framedHead = in_.place.head();
  // The head average (-1) has no cell; A's grid beside B's frames A's own selection.
  in.outlineLayer = before ? in_.selection->layer() : in_.place.layer();
  in.outlineHead = before ? in_.selection->head() : in_.place.head();
  return document::head_score_map(a, in);
}

void OverviewPanel::drawOverview() {
  if (!in_.selectionFits()) return;
  if (score_ == HeadScore::MiniatureMaps && in_.run && in_.run->trace) {
    const TraceAnalysis& a = *in_.analysis;
    for (int l = 0; l < a.layers; ++l)
      if (!in_.run->trace->layerStored(l))  // recomputing every layer would hold the window
        return drawNote(
            tr("Miniature maps need every layer's attention at once: this input's "
               "maps are too large to keep for every layer. Choose another score."));
    miniatureSide_ = document::miniature_side(a.tokens);
    const SentenceRun& run = *in_.run;
    drawn().show(
        overview_, overviewStandIn_,
        document::miniature_maps(
            a.layers, a.heads, a.tokens, [&run](int l, int h) { return run.attention(l, h); },
            in_.place.layer(), in_.place.head()));
    return;
  }
  miniatureSide_ = 0;
  views::HeatMap d = scoreGrid(*in_.analysis, false);
  if (in_.before) {
    // Side by side: the plain run's grid left of the intervened one, one colour scale.
    views::HeatMap left = scoreGrid(*in_.before, true);
    left.outlineRow = -1;
    // The runs' names stand under their grids.
    d = document::maps_side_by_side(left, d, in_.runNames(),
                                    d.title + in_.place.note(in_.beforeName).toStdString());
  }
  drawn().show(overview_, overviewStandIn_, std::move(d));
}

}  // namespace sinkscope::ui
