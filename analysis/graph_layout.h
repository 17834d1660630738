#pragma once
// A force-directed layout of the thresholded attention graph (metrics.md s. 3's
// graph W): Fruchterman-Reingold from Boost.Graph, seeded so a figure is
// reproducible. The alternative to the spectral embedding in the graph panel.
#include <array>
#include <cstdint>
#include <vector>

#include "analysis/attention_matrix.h"

namespace sinkscope::analysis {

struct ForceLayoutParams {
  double threshold = 0.05;  // an edge where A[i][j] or A[j][i] >= threshold, i != j
  int iterations = 100;
  std::uint64_t seed = 1;
};

// 2-D positions in [-1, 1]^2 (z = 0), one per token: Fruchterman-Reingold on
// the edges at `threshold`, and from each token to the key it attends to most
// (so that no token floats free: a long input's diffuse heads have few edges
// at the threshold).
std::vector<std::array<double, 3>> graph_layout_force(const AttentionView& attention,
                                                      const ForceLayoutParams& params = {});

}  // namespace sinkscope::analysis
