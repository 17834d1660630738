#pragma once
// The analysis docks that follow the shared selection: model overview (a
// layers x heads grid of a chosen per-head score; a click selects), persistence
// (diagram and Betti curves), spectrum (Laplacian eigenvalues), taxonomy
// (class grid and counts per layer) and layer profiles. They draw from the
// run's RunAnalysis cache and never call each other.
#include <QObject>
#include <QString>
#include <functional>
#include <memory>

#include <vector>
#include "analysis/attention_matrix.h"
#include "analysis/graph_spectrum.h"
#include "analysis/head_analysis.h"

class QComboBox;
class QDockWidget;
class QMainWindow;
class QWidget;

namespace sinkscope::render {
class HeatMapView;
class LinePlotView;
class SceneView;
}  // namespace sinkscope::render

namespace sinkscope::ui {

class DeferredResults;
class JobRunner;
class SelectionModel;
struct RunAnalysis;
struct SentenceRun;

// Per-head scores the overview can show.
enum class HeadScore {
  SinkAttention,
  SinkBoost,
  Entropy,
  Fiedler,
  FScore,
  Taxonomy,
  Dnll,
  MiniatureMaps  // every head's attention map, shrunk, in its cell
};

// Results of the functional experiments (metrics.md s. 5 and 8) for the plain
// run, once the user has computed them (Experiments menu); empty = not yet.
struct ExperimentResults {
  std::vector<double> headDnll;            // [layer * heads + head]
  std::vector<double> klPerLayer;          // sinks removed in that layer
  std::vector<double> fisherPerParameter;  // per layer
};

class AnalysisPanels : public QObject {
  Q_OBJECT

 public:
  AnalysisPanels(QMainWindow* window, SelectionModel* selection, JobRunner* jobs);
  // Per-selection results of the shown run (tests look at what is pending).
  DeferredResults* deferredResults() const { return deferred_; }

  // Every dock this object made, in the order they were added.
  const std::vector<QDockWidget*>& docks() const { return docks_; }
  render::HeatMapView* overviewView() const { return overview_; }
  render::LinePlotView* diagramView() const { return diagram_; }
  render::LinePlotView* bettiView() const { return betti_; }
  render::LinePlotView* barcodeView() const { return barcode_; }
  render::LinePlotView* spectrumView() const { return spectrum_; }
  render::HeatMapView* taxonomyView() const { return taxonomy_; }
  render::LinePlotView* taxonomyCountsView() const { return taxonomyCounts_; }
  render::LinePlotView* layerSinkView() const { return layerSink_; }
  render::LinePlotView* layerTopologyView() const { return layerTopology_; }
  render::SceneView* graphView() const { return graph_; }
  render::SceneView* embeddingView() const { return embedding_; }
  // 0: spectral embedding (3-D), 1: force-directed (2-D).
  void setGraphLayout(int layout);
  render::SceneView* valueSpaceView() const { return valueSpace_; }
  render::LinePlotView* valueCurveView() const { return valueCurve_; }

  // The run the panels show (null: nothing); redraws. The panels share it, so
  // the window may replace its own runs at any time.
  void setRun(std::shared_ptr<const SentenceRun> run);
  void setScore(HeadScore score);
  void setExperiments(ExperimentResults results);
  const ExperimentResults& experiments() const { return experiments_; }
  render::LinePlotView* layerFunctionView() const { return layerFunction_; }

 public Q_SLOTS:
  void refresh();

 private:
  QDockWidget* addDock(const QString& title, const QString& name, QWidget* content,
                       const QString& explanation);
  // The Laplacian spectrum of a head (or the average) at the selection's
  // threshold: from the run's cache at the default thresholds, computed for
  // any other; null while computed in the background (see topologyOf).
  std::shared_ptr<const analysis::GraphSpectrum> spectrumAt(int layer, int head,
                                                            bool request = true);
  // What the panels show while the run's analysis is still being computed.
  void drawWaiting();
  void drawOverview();
  void drawMiniatureMaps();
  int miniatureSide_ = 0;  // cell side of the miniature-map grid (0: plain grid)
  void drawPersistence();
  void drawSpectrum();
  void drawSpectrumPlot(const analysis::HeadAnalysis& r, const analysis::GraphSpectrum& g);
  void drawSpectralEmbedding(const analysis::GraphSpectrum& full);
  void drawTaxonomy();
  void drawLayerProfiles();
  void drawGraph();
  void drawValueSpace();

  QMainWindow* window_;
  SelectionModel* selection_;
  std::shared_ptr<const RunAnalysis> analysis_;
  std::shared_ptr<const SentenceRun> run_;
  // Per-selection results (topology, spectra, eigenvectors, layouts, curves):
  // computed on the spot for short inputs, in the background for long ones.
  DeferredResults* deferred_;
  // Whether per-head topology is cheap enough to compute on the GUI thread.
  bool cheap() const;
  // A thread-safe source of the attention map of (layer, head) for a job.
  std::function<analysis::AttentionMatrix()> attentionSource(int layer, int head) const;
  // The head's analysis including persistence and spectra; null while it is
  // computed (long inputs). `request` false: only what is already there.
  std::shared_ptr<const analysis::HeadAnalysis> topologyOf(int layer, int head,
                                                           bool request = true);
  // The selected head's spectrum with eigenvectors at the selection's
  // threshold (graph and spectral embedding); null while computed.
  std::shared_ptr<const analysis::GraphSpectrum> selectedSpectrum();
  // Whether the selection lies inside the shown run (the window updates the
  // selection's bounds and the run one after the other).
  bool selectionFits() const;
  // A click on cell (row, col) of a layers x heads grid whose heads span `block` cells.
  void selectHeadCell(int row, int col, int block);
  QString source_;
  HeadScore score_ = HeadScore::SinkAttention;
  std::vector<QDockWidget*> docks_;
  QComboBox* scoreChooser_ = nullptr;
  QComboBox* layoutChooser_ = nullptr;  // graph: spectral 3-D or force-directed 2-D
  render::HeatMapView* overview_ = nullptr;
  render::LinePlotView* diagram_ = nullptr;
  render::LinePlotView* betti_ = nullptr;
  render::LinePlotView* barcode_ = nullptr;
  render::LinePlotView* spectrum_ = nullptr;
  render::HeatMapView* taxonomy_ = nullptr;
  render::LinePlotView* taxonomyCounts_ = nullptr;
  render::LinePlotView* layerSink_ = nullptr;
  render::LinePlotView* layerTopology_ = nullptr;
  render::LinePlotView* layerFunction_ = nullptr;
  ExperimentResults experiments_;
  render::SceneView* graph_ = nullptr;
  render::SceneView* valueSpace_ = nullptr;
  render::SceneView* embedding_ = nullptr;
  render::LinePlotView* valueCurve_ = nullptr;
};

}  // namespace sinkscope::ui
