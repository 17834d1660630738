#pragma once
// The analysis panels: one class per panel, each in its own dock, on the
// shared base Panel. They all draw from one PanelInputs (the shown run, its
// analysis, the selection and the per-selection results) and never call each
// other; AnalysisPanels owns them and tells them when to draw.
#include <QObject>
#include <QString>
#include <functional>
#include <memory>
#include <vector>

#include "analysis/attention_matrix.h"
#include "analysis/graph_spectrum.h"
#include "analysis/head_analysis.h"
#include "models/document/plot_views.h"
#include "models/document/run_comparison.h"
#include "ui/shown_place.h"

class QWidget;

namespace sinkscope::views {
struct HeatMap;
}

namespace sinkscope::render {
class DrawnViews;
class SceneView;
}

namespace sinkscope::document {
struct TraceAnalysis;
struct SentenceRun;
}

namespace sinkscope::ui {

using document::ExperimentResults;
using document::SentenceRun;
using document::TraceAnalysis;
class DeferredResults;
class LayerFetch;
class SelectionModel;

// What every panel draws from, and the per-selection results they share.
struct PanelInputs {
  SelectionModel* selection = nullptr;
  DeferredResults* deferred = nullptr;
  // What every view was given to draw, by view name (exports read it).
  render::DrawnViews* drawn = nullptr;
  std::shared_ptr<const SentenceRun> run;
  std::shared_ptr<const TraceAnalysis> analysis;
  // The plain run's analysis when the panels compare it side by side with an
  // intervened run (the one above); null otherwise.
  std::shared_ptr<const TraceAnalysis> before;
  ExperimentResults experiments;
  QString source;  // the run's model name
  // The two runs' names when `before` is set: "before" and "after" for an
  // intervention, "A" and "B" (or the models' names) for a comparison.
  QString beforeName = QStringLiteral("before"), afterName = QStringLiteral("after");
  bool comparing = false;  // two sentences or models (not an intervention)
  document::RunNames runNames() const;
  // Where the selection (made on run A) lands in `run`: the selection
  // itself, or for run B of a comparison its counterpart (ShownPlace).
  ShownPlace place;
  int headCount() const;  // of the shown run
  // Plots by layer that overlay A and B of different depths put both on
  // relative depth, layer / (layers - 1); runs of one depth keep the index.
  bool overlayByDepth() const;
  document::LayerAxis layerAxis() const { return {overlayByDepth()}; }

  // Whether the selection lies inside the shown run (the window updates the
  // selection's bounds and the run one after the other).
  bool selectionFits() const;
  // Whether the shown run has its heads' values (a capture may not).
  bool hasValues() const;
  // Whether per-head topology is cheap enough to compute on the GUI thread.
  bool cheap() const;
  // cheap(), and `layer` at hand (a layer the run does not keep is recomputed
  // in a job, never on the window's thread).
  bool cheapAt(int layer) const;
  // Recomputes layers the run does not keep; null: panels drawn without one (tests).
  const LayerFetch* layerFetch = nullptr;
  // What a panel says while `layer` is not at hand (LayerFetch::note).
  QString layerNote(int layer) const;
  // A thread-safe source of the attention map of (layer, head) for a job.
  std::function<analysis::AttentionMatrix()> attentionSource(int layer, int head) const;
  // The head's analysis including persistence (and, for short inputs, the
  // spectra at every default threshold; long inputs compute spectra one theta
  // at a time in spectrumAt); null while it is computed. `request` false:
  // only what is already there.
  std::shared_ptr<const analysis::HeadAnalysis> topologyOf(int layer, int head,
                                                           bool request = true) const;
  // The Laplacian spectrum of a head (or the average) at the selection's
  // threshold: from the run's cache at the default thresholds, computed for
  // any other; null while computed in the background (see topologyOf).
  // `normalised`: of the normalised Laplacian (metrics.md s. 3: optional).
  std::shared_ptr<const analysis::GraphSpectrum> spectrumAt(int layer, int head,
                                                            bool request = true,
                                                            bool normalised = false) const;
  // The selected head's spectrum with eigenvectors at the selection's
  // threshold (graph and spectral embedding); null while computed.
  std::shared_ptr<const analysis::GraphSpectrum> selectedSpectrum() const;
};

class Panel : public QObject {
  Q_OBJECT

 public:
  Panel(PanelInputs& inputs, QObject* parent) : QObject(parent), in_(inputs) {}
  // Its row in ui/panel_registry.h, and what its dock holds.
  const QString& name() const { return name_; }
  QWidget* content() const { return content_; }
  // Draws the selection from the inputs (called only when it fits the run).
  virtual void draw() = 0;
  // Nothing to draw yet: every view of the panel shows `note` instead.
  virtual void drawNote(const QString& note) = 0;

 protected:
  // What the panel shows, under its registry name; `explanation` is its
  // "what am I looking at" text. The window puts it in a dock.
  void setContent(const QString& name, QWidget* content, const QString& explanation);
  // Hovering a token in `view` lights it in every panel that shows tokens.
  void highlightHoveredTokens(render::SceneView* view);
  // Shows descriptions in the panel's views and records them for exports.
  render::DrawnViews& drawn() const { return *in_.drawn; }
  PanelInputs& in_;

 private:
  QString name_;
  QWidget* content_ = nullptr;
};

// "head 3" or "head average".
QString head_name(int head);
// What a panel says while its numbers are computed in the background.
QString computing_title(const QString& what, int layer, int head, int tokens);
// A click on cell (row, col) of a layers x heads grid whose heads span
// `block` cells (1, or a miniature map's side plus a gap); side by side, A's
// grid | B's. Selects that head; on B's grid of another shape than A's, pins
// B's counterpart instead (the selection's layers and heads are A's).
void select_head_cell(const PanelInputs& in, const views::HeatMap& grid, int row, int col,
                      int block);

}  // namespace sinkscope::ui
