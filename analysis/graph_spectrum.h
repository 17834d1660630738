#pragma once
// Spectra of the thresholded attention graph (metrics.md section 3).
#include <array>
#include <vector>

#include "analysis/attention_matrix.h"

namespace sinkscope::analysis {

struct GraphSpectrumParams {
  double threshold = 0.05;  // B[i][j] = 1 when A[i][j] >= threshold and i != j
  bool normalized = false;  // I - D^-1/2 W D^-1/2 instead of D - W
  // The Fiedler vector and the spectral embedding need the eigenvectors, which
  // cost about 2.5x the eigenvalues alone; summaries over every head skip them.
  bool vectors = true;
};

struct GraphSpectrum {
  double threshold = 0.0;
  std::vector<double> eigenvalues;               // of the Laplacian, ascending
  double fiedlerValue = 0.0;                     // lambda_2 (algebraic connectivity)
  std::vector<double> fiedlerVector;             // sign fixed: first non-zero entry positive
  std::vector<std::array<double, 3>> embedding;  // eigenvectors 2..4 per token (0 where T < 4)
                                                 // (both empty without params.vectors)
  std::vector<int> inDegrees;      // of B: how many queries attend to each key above threshold
  double centralisation = 0.0;     // Freeman: sum_i (d_max - d_i) / (n - 1)^2
  double starLikeness = 0.0;       // d_max / (n - 1)
  double starLikenessBlend = 0.0;  // released-code variant: 0.3 d_max/(n-1) + 0.7 Gini(in-degrees)
  double density = 0.0;            // |B| / (n (n - 1))
  int components = 0;              // of the undirected graph W (Boost.Graph)
  bool connected = false;          // one component (lambda_2 > 0)
  bool effective = false;          // density in [0.05, 0.95] and connected
};

GraphSpectrum graph_spectrum(const AttentionView& attention,
                             const GraphSpectrumParams& params = {});

// Both Laplacians of one thresholded graph, which is built once: what every
// per-head summary needs. `vectors` applies to the combinatorial one.
struct GraphSpectrumPair {
  GraphSpectrum combinatorial;
  GraphSpectrum normalised;
};
GraphSpectrumPair graph_spectrum_pair(const AttentionView& attention, double threshold,
                                      bool vectors);

// The default thresholds of metrics.md section 3.
inline const std::vector<double> kDefaultGraphThresholds{0.01, 0.05, 0.1, 0.2};

// Effectiveness of one threshold (reading of 000's "algebraic connectivity
// effectiveness"): the share of `layers` (one graph per layer, all at that
// threshold) where it is effective. 0 for no layers.
double threshold_effectiveness(const std::vector<GraphSpectrum>& layers);

// The sign-flip signature of metrics.md s. 3 at one threshold: the Pearson
// correlation between Fiedler value and degree centralisation across `graphs`
// (the heads of a layer, or the layers of a model).
double fiedler_centralisation_correlation(const std::vector<GraphSpectrum>& graphs);

// Gini coefficient of non-negative values (0 for equal values, towards 1 for one holder).
double gini(const std::vector<double>& values);

// Pearson correlation of two equally long series; NaN (undefined, metrics.md
// s. 3) when either is constant or shorter than 2. Written empty in CSV.
double pearson(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace sinkscope::analysis
