#pragma once
// The plots of the per-head and per-layer panels, built once from analysis
// results: series, axes, legend entries and the table of the numbers drawn
// (analyze's rows). The window's panels hand them to the screen; figures,
// CSVs and Python read the same description.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/attention_matrix.h"
#include "analysis/graph_spectrum.h"
#include "analysis/head_analysis.h"
#include "analysis/value_space.h"
#include "models/document/panel_views.h"
#include "models/views/line_plot.h"

namespace sinkscope::document {

struct TraceAnalysis;

// A number as the titles print it: printf's %g at `digits` significant digits.
std::string short_number(double v, int digits = 6);
// "head 3", or "head average" for -1.
std::string head_name(int head);
// A plot's title while its numbers are computed in the background.
std::string computing_title(const std::string& what, int layer, int head, int tokens);
// A plot with nothing drawn but its title, which says why (a note, "computing ...").
views::LinePlot note_plot(const std::string& title);

// The head a plot shows and what its title adds: where the selection landed
// in this run when it is not run A's own place (" | A at layer 2, head 1").
struct PlotPlace {
  int layer = 0;
  int head = 0;  // -1: the layer's average
  std::string note;
};

// The two runs' names when a plain run is drawn beside an intervened or
// compared one ("before"/"after", "A"/"B", two models' names).
struct RunNames {
  std::string before = "before";
  std::string after = "after";
  // A comparison of two sentences or models (A = before, B = after) rather
  // than an intervention: plots draw A solid and B dashed; around an
  // intervention the intervened run is solid and the plain run dashed.
  bool comparison = false;
};

// "A (solid) and B (dashed)": which run each line style draws.
std::string runs_styles(const RunNames& names);

// Two runs' curves of the same quantities (after[k] and before[k]) in one
// plot: the solid run's curves in their colours, the other's dashed in a tint
// of its twin's colour (a quantity the other run lacks has no twin). One
// quantity: each curve names its run in the legend; several: each quantity is
// named once and two entries say which run each line style is.
std::vector<views::PlotSeries> overlaid_runs(std::vector<views::PlotSeries> after,
                                             std::vector<views::PlotSeries> before,
                                             const RunNames& names);

// Key importance alpha_k with its uniform baseline and the sink threshold
// eps; the numbers are sinks.csv's rows. `tokens` names each key; without a
// trace (`uniform`) the map is the uniform head and has no baseline drawn.
struct KeyImportanceInputs {
  std::string source;  // the model's name
  PlotPlace place;
  const analysis::AttentionMatrix* map = nullptr;
  const std::vector<std::string>* tokens = nullptr;
  const TraceAnalysis* analysis = nullptr;  // null: no numbers yet
  bool uniform = false;
  int keyToken = -1;  // the selected key, marked; -1: none
};
// Side by side with a plain run: its map and tokens (and analysis for the
// table); `bToA` places the shown run's keys at the plain run's tokens when
// the two runs have other tokenizers (-1: no place), empty otherwise.
struct KeyImportanceBefore {
  const analysis::AttentionMatrix* map = nullptr;
  const std::vector<std::string>* tokens = nullptr;
  const TraceAnalysis* analysis = nullptr;
  PlotPlace place;
  RunNames names;
  std::vector<int> bToA;
  bool byToken = false;
  int keyToken = -1;  // the selection's key on the plain run's axis
};
views::LinePlot key_importance_plot(const KeyImportanceInputs& in,
                                    const KeyImportanceBefore* before = nullptr);

// The persistence diagram, barcode and Betti curves of one head; the
// numbers are persistence.csv's and betti.csv's rows. `tokens` name the
// edges in each bar's hover text.
views::LinePlot persistence_diagram_plot(const analysis::HeadAnalysis& r, const PlotPlace& place,
                                         double minPersistence,
                                         const std::vector<std::string>& tokens);
views::LinePlot barcode_plot(const analysis::HeadAnalysis& r, const PlotPlace& place);
// `before`: the plain run's curves of the same head (run A's own layer and head), dashed.
struct BettiBefore {
  const analysis::BettiCurves* curves = nullptr;
  int layer = 0, head = 0;
  RunNames names;
};
views::LinePlot betti_plot(const analysis::HeadAnalysis& r, const PlotPlace& place,
                           double minPersistence, const BettiBefore* before = nullptr);

// The Laplacian spectrum of one head at each threshold in `shown` (the
// chosen one's graph measures in the title); the numbers are
// eigenvalues.csv's rows. `before`: the plain run's eigenvalues at the chosen
// threshold, dashed grey.
struct SpectrumBefore {
  const analysis::GraphSpectrum* spectrum = nullptr;
  int layer = 0, head = 0;
  RunNames names;
};
views::LinePlot spectrum_plot(const std::vector<analysis::GraphSpectrum>& shown,
                              const analysis::GraphSpectrum& chosen, const PlotPlace& place,
                              bool normalised, std::optional<int> onlyChosenAbove,
                              const SpectrumBefore* before = nullptr);

// F_N, precision and recall of the top-N keys against N, with the random
// N-subsets' mean and the selected N; the numbers are value_space_curve.csv's rows.
views::LinePlot value_curve_plot(const analysis::ValueSpaceCurve& curve, int layer, int head,
                                 int query, int topN);
// The same plot while the curve is computed, or why there is none.
views::LinePlot value_curve_note(const std::string& title);

// The axis of plots by layer: the layer's index, or its relative depth
// layer / (layers - 1) when runs of two depths are overlaid (`byDepth`).
struct LayerAxis {
  bool byDepth = false;
  double x(int layer, int layers) const;
  std::string title() const;
};
// Attention to position 0, the sink rate and centralisation by layer; side by
// side, the plain run's sink measures dashed in the same colours.
views::LinePlot layer_sinks_plot(const LayerProfileView& shown, const LayerProfileView* before,
                                 int layers, int beforeLayers, const std::string& source,
                                 double eps, double threshold, const LayerAxis& axis,
                                 const RunNames& names, int selectedLayer);
// H0 and H1 bars, effective rank and Fiedler value by layer; side by side,
// the plain run's effective rank dashed. `perLayerTopology` false: long
// inputs, the title says topology is left out.
views::LinePlot layer_topology_plot(const LayerProfileView& shown, const LayerProfileView* before,
                                    int layers, int beforeLayers, double minPersistence,
                                    double threshold, bool perLayerTopology, int topologyMaxTokens,
                                    const LayerAxis& axis, const RunNames& names,
                                    int selectedLayer);
// KL after sink removal and the Fisher trace per parameter by layer, each
// scaled to its maximum; a note when neither was computed.
views::LinePlot layer_function_plot(const std::vector<double>& klPerLayer,
                                    const std::vector<double>& fisherPerParameter,
                                    int selectedLayer);

// How many heads of each class (Retriever, Mixer, Reset) every layer has, or
// their share of the layer's heads (`shares`: runs of other head counts);
// side by side, the plain run's counts dashed. The numbers: analyze's
// taxonomy counts rows.
views::LinePlot taxonomy_counts_plot(const TaxonomyView& shown, const TaxonomyView* before,
                                     bool shares, const LayerAxis& axis, const RunNames& names);

}  // namespace sinkscope::document
