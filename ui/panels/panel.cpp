#include "ui/panels/panel.h"

#include <QWidget>

#include "models/document/sentence_run.h"
#include "models/document/trace_analysis.h"
#include "models/model.h"
#include "models/views/heat_map.h"
#include "render/scene_view.h"
#include "ui/deferred_results.h"
#include "ui/docks.h"
#include "ui/layer_fetch.h"
#include "ui/selection_model.h"

namespace sinkscope::ui {

bool PanelInputs::selectionFits() const {
  return analysis && place.layer() < analysis->layers && place.head() < analysis->heads &&
         place.queryToken() < analysis->tokens;
}

document::RunNames PanelInputs::runNames() const {
  return {beforeName.toStdString(), afterName.toStdString(), comparing};
}

int PanelInputs::headCount() const {
  return run && run->trace ? run->trace->heads() : selection->headCount();
}

bool PanelInputs::hasValues() const { return run && run->trace && run->hasValues; }

bool PanelInputs::cheap() const { return !analysis || analysis->topologyForAllHeads; }

bool PanelInputs::cheapAt(int layer) const { return cheap() && (!run || run->layerAtHand(layer)); }

QString PanelInputs::layerNote(int layer) const {
  return layerFetch && run ? layerFetch->note(*run, layer) : layer_fetch_note(layer);
}

std::function<analysis::AttentionMatrix()> PanelInputs::attentionSource(int layer, int head) const {
  if (!run->trace) {
    auto map = std::make_shared<const analysis::AttentionMatrix>(run->attention(layer, head));
    return [map] { return *map; };
  }
  if (!run->layerAtHand(layer))
    // Recomputed when the work runs (in a job), leaving the run's kept layer,
    // which the panels draw, in place.
    return [trace = run->trace, layer, head]() -> analysis::AttentionMatrix {
      const models::LayerCapture capture = trace->layer(layer);
      if (head == SelectionModel::kHeadAverage) return capture.headAverage();
      const analysis::AttentionView v = capture.attentionOf(head);
      return {std::vector<float>(v.weights.begin(), v.weights.end()), v.size, v.causal};
    };
  // The run's cached layer is immutable once made: jobs may read it.
  std::shared_ptr<const models::LayerCapture> capture = run->layer(layer);
  return [capture, head]() -> analysis::AttentionMatrix {
    if (head == SelectionModel::kHeadAverage) return capture->headAverage();
    const analysis::AttentionView v = capture->attentionOf(head);
    return {std::vector<float>(v.weights.begin(), v.weights.end()), v.size, v.causal};
  };
}

std::shared_ptr<const analysis::HeadAnalysis> PanelInputs::topologyOf(int layer, int head,
                                                                      bool request) const {
  if (analysis->topologyForAllHeads)  // a view into the run's cache
    return {analysis, &analysis->at(layer, head)};
  const QString key = QStringLiteral("persistence of layer %1, %2").arg(layer).arg(head_name(head));
  if (!request) return deferred->peek<analysis::HeadAnalysis>(key);
  analysis::HeadAnalysisParams params = analysis->params;
  params.topology = true;
  params.thresholds.clear();  // spectra: one threshold at a time (spectrumAt), O(T^3) each
  return deferred->get<analysis::HeadAnalysis>(
      key, false,
      [source = attentionSource(layer, head), params](const analysis::AnalysisProgress& progress) {
        const analysis::AttentionMatrix m = source();
        analysis::HeadAnalysisParams p = params;
        p.progress = progress;
        return analysis::analyse_head(m.view(), {}, 0, p);
      });
}

std::shared_ptr<const analysis::GraphSpectrum> PanelInputs::selectedSpectrum() const {
  const int layer = place.layer(), head = place.head();
  const double theta = selection->threshold();
  return deferred->get<analysis::GraphSpectrum>(
      QStringLiteral("spectral embedding of layer %1, %2, theta %3")
          .arg(layer)
          .arg(head_name(head))
          .arg(theta),
      cheapAt(layer),
      [source = attentionSource(layer, head), theta](const analysis::AnalysisProgress&) {
        const analysis::AttentionMatrix m = source();
        return analysis::graph_spectrum(m.view(), {theta, false, true});
      });
}

std::shared_ptr<const analysis::GraphSpectrum> PanelInputs::spectrumAt(int layer, int head,
                                                                       bool request,
                                                                       bool normalised) const {
  const double theta = selection->threshold();
  const int ti = analysis->thresholdIndex(theta);
  if (ti >= 0 && analysis->topologyForAllHeads) {
    const auto topology = topologyOf(layer, head, request);
    if (!topology) return nullptr;
    const auto& spectra = normalised ? topology->normalisedSpectra : topology->spectra;
    if (spectra.empty()) return nullptr;
    return {topology, &spectra[static_cast<std::size_t>(ti)]};
  }
  // A threshold outside the cached set, or a long input: this head and theta only.
  const QString key = (normalised ? QStringLiteral("normalised spectrum of layer %1, %2, theta %3")
                                  : QStringLiteral("spectrum of layer %1, %2, theta %3"))
                          .arg(layer)
                          .arg(head_name(head))
                          .arg(theta);
  if (!request) return deferred->peek<analysis::GraphSpectrum>(key);
  return deferred->get<analysis::GraphSpectrum>(
      key, cheapAt(layer),
      [source = attentionSource(layer, head), theta,
       normalised](const analysis::AnalysisProgress&) {
        const analysis::AttentionMatrix m = source();
        return analysis::graph_spectrum(m.view(), {theta, normalised, false});
      });
}

bool PanelInputs::overlayByDepth() const {
  return before && analysis && before->layers != analysis->layers;
}

void Panel::setContent(const QString& name, QWidget* content, const QString& explanation) {
  content->setToolTip(explanation);
  content->setWhatsThis(explanation);
  name_ = name;
  content_ = content;
}

void Panel::highlightHoveredTokens(render::SceneView* view) {
  connect(view, &render::SceneView::tokenHovered, this, [this](int token) {
    in_.place.highlight(token < 0 ? QList<int>{} : QList<int>{token}, {});
  });
}

// The document layer's wording, so that the window's titles and the views it
// builds say the same.
QString head_name(int head) { return QString::fromStdString(document::head_name(head)); }

QString computing_title(const QString& what, int layer, int head, int tokens) {
  return QString::fromStdString(document::computing_title(what.toStdString(), layer, head, tokens));
}

void select_head_cell(const PanelInputs& in, const views::HeatMap& grid, int row, int col,
                      int block) {
  const bool rightHalf = grid.sideBySideSplit >= 0 && col > grid.sideBySideSplit;
  col = views::heat_map_own_column(grid, col);
  if (col < 0 || row < 0) return;  // the gap
  const int layer = row / block, head = col / block;
  SelectionModel* s = in.selection;
  const bool ofB = in.place.isCounterpart() && (grid.sideBySideSplit < 0 || rightHalf);
  const bool shapesDiffer = s->hasCounterpart() && (s->counterpartLayerCount() != s->layerCount() ||
                                                    s->counterpartHeadCount() != s->headCount());
  if (ofB && shapesDiffer) {
    if (layer >= s->counterpartLayerCount() || head >= s->counterpartHeadCount()) return;  // padding
    s->setCounterpartLayer(layer);
    s->setCounterpartHead(head);
    return;
  }
  if (layer >= s->layerCount() || head >= s->headCount()) return;  // padding below a shallower grid
  s->setLayer(layer);
  s->setHead(head);
}

}  // namespace sinkscope::ui
