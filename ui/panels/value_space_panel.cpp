#include "ui/panels/value_space_panel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "analysis/value_space.h"
#include "models/document/analysis_settings.h"
#include "models/document/plot_views.h"
#include "models/document/scene_views.h"
#include "models/document/sentence_run.h"
#include "models/document/trace_analysis.h"
#include "models/model.h"
#include "render/drawn_views.h"
#include "render/figure_part.h"
#include "render/gl_support.h"
#include "render/line_plot_view.h"
#include "render/scene_view.h"
#include "ui/deferred_results.h"
#include "ui/docks.h"
#include "ui/selection_model.h"

namespace sinkscope::ui {

ValueSpacePanel::ValueSpacePanel(PanelInputs& inputs, QWidget* host) : Panel(inputs, host) {
  const bool gl = render::gl_panels_available();
  QSplitter* valueBox = panel_splitter(host);
  if (gl) {
    valueSpace_ = new render::SceneView(valueBox);
    highlightHoveredTokens(valueSpace_);
    valueSpace_->setObjectName(QStringLiteral("valueSpaceView"));
    valueBox->addWidget(valueSpace_);
  } else {
    valueSpaceStandIn_ = new render::FigureStandIn(QStringLiteral("valueSpaceView"), valueBox);
    valueBox->addWidget(valueSpaceStandIn_);
  }
  valueCurve_ = new render::LinePlotView(valueBox);
  valueCurve_->setObjectName(QStringLiteral("valueCurve"));
  valueBox->addWidget(valueCurve_);
  // N, the number of keys selected, as a slider (the selection's top-N).
  auto* valueDock = new QWidget(host);
  auto* valueLayout = new QVBoxLayout(valueDock);
  valueLayout->setContentsMargins(2, 2, 2, 2);
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("N (top keys)"), valueDock));
  topNSlider_ = new QSlider(Qt::Horizontal, valueDock);
  topNSlider_->setObjectName(QStringLiteral("valueSpaceTopN"));
  topNSlider_->setToolTip(tr("How many of the most attended keys form the selection"));
  controls->addWidget(topNSlider_, 1);
  auto* topNValue = new QLabel(valueDock);
  topNValue->setMinimumWidth(30);
  controls->addWidget(topNValue);
  valueLayout->addLayout(controls);
  valueLayout->addWidget(valueBox, 1);
  auto showTopN = [this, topNValue] {
    const QSignalBlocker quiet(topNSlider_);
    topNSlider_->setRange(1, std::max(1, in_.selection->tokenCount()));
    topNSlider_->setValue(in_.selection->topN());
    topNValue->setText(QString::number(in_.selection->topN()));
  };
  showTopN();
  connect(in_.selection, &SelectionModel::topNChanged, this, showTopN);
  connect(in_.selection, &SelectionModel::boundsChanged, this, showTopN);
  connect(topNSlider_, &QSlider::valueChanged, this, [this](int n) { in_.selection->setTopN(n); });
  setContent(
      QStringLiteral("value-space"), valueDock,
      tr("What the selected head adds up for one query (Mudarisov et al.): each key's value vector "
         "scaled by its attention, y_j = A[i][j] v_j, projected on its three main axes "
         "(PCA). Orange: the top-N keys, whose sum sₙ (black) is what the head mostly "
         "returns; red: the first token. The balls have radius r_max (every selected key "
         "inside) and r_min (no other key inside) in the full space. Below: how well a "
         "ball around sₙ separates the selection (Fₙ) for every N, against random "
         "selections."));
}

void ValueSpacePanel::drawNote(const QString& note) {
  drawn().show(valueCurve_, document::note_plot(note.toStdString()));
  drawn().show(valueSpace_, valueSpaceStandIn_, document::note_scene(note.toStdString()));
}

void ValueSpacePanel::drawValueSpace() {
  if (!in_.run || !in_.analysis || !in_.run->trace) return;
  if (!in_.hasValues()) return drawNote(tr("Value space needs values: this capture has none"));
  const int layer = in_.place.layer(), head = in_.place.head();
  if (head == SelectionModel::kHeadAverage) {
    // Both views say why (the scene's title is copied before the curve is handed over).
    const QString why =
        in_.place.isCounterpart()
            ? tr("Value space needs one head: %1 is drawn at its head average (the models' heads "
                 "do not correspond); pin one of its heads in the selection bar (B at ... head)")
                  .arg(in_.afterName)
            : tr("Value space needs one head (the average has no values of its own)");
    drawn().show(valueCurve_, document::value_curve_note(why.toStdString()));
    drawn().show(valueSpace_, valueSpaceStandIn_, document::note_scene(why.toStdString()));
    return;
  }
  const auto capture = in_.run->layer(layer);  // the run's cached layer, not a fresh copy
  const models::LayerCapture& cap = *capture;
  const analysis::AttentionView A = cap.attentionOf(head);
  const int query = in_.place.queryToken() >= 0 ? in_.place.queryToken() : A.size - 1;
  analysis::ValueSpaceParams p;
  p.topN = in_.selection->topN();
  p.query = query;
  const analysis::ValueSpace vs = analysis::value_space(A, cap.valuesOf(head), cap.head_dim, p);

  drawn().show(valueSpace_, valueSpaceStandIn_,
               document::value_space_scene(vs, in_.run->tokenStrings(), layer, head, query,
                                           in_.place.note(in_.beforeName).toStdString()));
  drawCurve(capture, head, query, p, vs.topN);
}

void ValueSpacePanel::drawCurve(std::shared_ptr<const models::LayerCapture> capture, int head,
                                int query, const analysis::ValueSpaceParams& p, int topN) {
  const int layer = in_.place.layer();
  // The curve's random baseline is analyze's (value_space_curve.csv): the same
  // subsets from the same seed, so the panel's numbers and its CSV are
  // analyze's rows for this head and query.
  const document::AnalysisSettings settings =
      in_.analysis ? in_.analysis->settings : document::AnalysisSettings{};
  analysis::ValueSpaceParams cp = p;
  cp.randomSubsets = settings.randomSubsets;
  cp.seed = settings.seed;
  const auto curvePoints = in_.deferred->get<analysis::ValueSpaceCurve>(
      QStringLiteral("F_N curve of layer %1, %2, query %3")
          .arg(layer)
          .arg(head_name(head))
          .arg(query),
      in_.cheap(), [capture, head, cp](const analysis::AnalysisProgress&) {
        return analysis::value_space_curve(capture->attentionOf(head), capture->valuesOf(head),
                                           capture->head_dim, cp);
      });
  if (!curvePoints)
    return drawn().show(valueCurve_, document::value_curve_note(
                                         computing_title(tr("Separability against N"), layer, head,
                                                         capture->attentionOf(head).size)
                                             .toStdString()));
  drawn().show(valueCurve_, document::value_curve_plot(*curvePoints, layer, head, query, topN));
}

}  // namespace sinkscope::ui
