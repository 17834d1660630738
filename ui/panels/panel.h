#pragma once
// The analysis panels: one class per panel, each in its own dock, on the
// shared base Panel. They all draw from one PanelInputs (the shown run, its
// analysis, the selection and the per-selection results) and never call each
// other; AnalysisPanels owns them and tells them when to draw.
#include <QList>
#include <QObject>
#include <QPair>
#include <QString>
#include <functional>
#include <memory>
#include <vector>

#include "analysis/attention_matrix.h"
#include "analysis/graph_spectrum.h"
#include "analysis/head_analysis.h"

class QDockWidget;
class QMainWindow;
class QWidget;

namespace sinkscope::render {
class SceneView;
struct HeatMapData;
}

namespace sinkscope::ui {

class DeferredResults;
class SelectionModel;
struct RunAnalysis;
struct SentenceRun;

// Results of the functional experiments (metrics.md s. 5 and 8) for the plain
// run, once the user has computed them (Experiments menu); empty = not yet.
struct ExperimentResults {
  std::vector<double> headDnll;            // [layer * heads + head]
  std::vector<double> klPerLayer;          // sinks removed in that layer
  std::vector<double> fisherPerParameter;  // per layer
};

// What every panel draws from, and the per-selection results they share.
struct PanelInputs {
  SelectionModel* selection = nullptr;
  DeferredResults* deferred = nullptr;
  std::shared_ptr<const SentenceRun> run;
  std::shared_ptr<const RunAnalysis> analysis;
  // The plain run's analysis when the panels compare it side by side with an
  // intervened run (the one above); null otherwise.
  std::shared_ptr<const RunAnalysis> before;
  ExperimentResults experiments;
  QString source;  // the run's model name
  // The two runs' names when `before` is set: "before" and "after" for an
  // intervention, "A" and "B" (or the models' names) for a comparison.
  QString beforeName = QStringLiteral("before"), afterName = QStringLiteral("after");
  // Whether `run` is run B of a comparison (Run > Compare): the selection is
  // made on A, so the panels draw `run` at its counterpart (layer(), head(),
  // queryToken(), keyToken()) and `before` (A) at the selection itself.
  bool runIsCounterpart = false;
  // Two models' tokens: A's token k is B's tokenCounterparts[k]
  // (analysis::token_counterparts); empty: the same positions.
  std::vector<int> tokenCounterparts;

  // The selection in the shown run: the selection's own values, or its
  // counterpart in B (SelectionModel::counterpartLayer and -Head).
  int layer() const;
  int head() const;
  int shownToken(int selectionToken) const;  // SelectionModel::kNoToken when B has none
  int queryToken() const;  // SelectionModel::kNoToken when B has no such token
  int keyToken() const;
  int headCount() const;  // of the shown run
  // Tokens between the selection (A's tokens) and the shown run's: the
  // shown token's tokens in A (none when no token of A lands on it), whether
  // a shown token is highlighted, and a highlight given in shown tokens.
  QList<int> selectionTokensOf(int shownToken) const;
  bool tokenLit(int shownToken) const;
  std::vector<std::pair<int, int>> shownHighlightedEdges() const;
  void highlightShown(const QList<int>& tokens, const QList<QPair<int, int>>& edges) const;
  // " | A at layer 1, head 2" when the shown run is B at another place than
  // the selection's (a side-by-side title names both places); else empty.
  QString placeNote() const;
  // Plots by layer that overlay A and B of different depths put both on
  // relative depth, layer / (layers - 1); runs of one depth keep the index.
  bool overlayByDepth() const;
  double layerX(int layer, int layers) const;
  QString layerAxisTitle() const;

  // Whether the selection lies inside the shown run (the window updates the
  // selection's bounds and the run one after the other).
  bool selectionFits() const;
  // Whether per-head topology is cheap enough to compute on the GUI thread.
  bool cheap() const;
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
  QDockWidget* dock() const { return dock_; }
  // Draws the selection from the inputs (called only when it fits the run).
  virtual void draw() = 0;
  // Nothing to draw yet: every view of the panel shows `note` instead.
  virtual void drawNote(const QString& note) = 0;

 protected:
  // The panel's dock; `explanation` is its "what am I looking at" text.
  void makeDock(QMainWindow* window, const QString& title, const QString& objectName,
                QWidget* content, const QString& explanation);
  // Hovering a token in `view` lights it in every panel that shows tokens.
  void highlightHoveredTokens(render::SceneView* view);
  PanelInputs& in_;

 private:
  QDockWidget* dock_ = nullptr;
};

// "head 3" or "head average".
QString head_name(int head);
// " | A at layer 1, head 2" when run B is drawn at (layer, head) and that is
// not the selection's own place in run A (named `runA`); else empty.
QString place_note(const QString& runA, const SelectionModel& selection, int layer, int head);
// What a panel says while its numbers are computed in the background.
QString computing_title(const QString& what, int layer, int head, int tokens);
// A click on cell (row, col) of a layers x heads grid whose heads span
// `block` cells (1, or a miniature map's side plus a gap); side by side, A's
// grid | B's. Selects that head; on B's grid of another shape than A's, pins
// B's counterpart instead (the selection's layers and heads are A's).
void select_head_cell(const PanelInputs& in, const render::HeatMapData& grid, int row, int col,
                      int block);

}  // namespace sinkscope::ui
