#pragma once
// Persistent homology of the attention graph (metrics.md section 2): the
// Vietoris-Rips filtration of d_ij = 1 - (A[i][j] + A[j][i]) / 2 (or with max),
// exactly, in dimensions 0 and 1 over Z/2. H0 by union-find over the sorted
// edges; H1 by persistent cohomology with clearing and implicit coboundaries
// (the approach of Ripser), so no token cap is needed.
#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "analysis/progress.h"

#include "analysis/attention_matrix.h"

namespace sinkscope::analysis {

struct PersistenceBar {
  int dimension = 0;
  double birth = 0.0;
  double death = 1.0;  // the one infinite H0 class dies at 1
  // H0: the pair of tokens whose edge merges the component (kills the bar);
  //     {-1, -1} for the infinite class.
  // H1: the edge that creates the loop.
  std::array<int, 2> edge{-1, -1};
  // H1: the triangle whose entry kills the loop.
  std::array<int, 3> triangle{-1, -1, -1};
  // H1: a cycle through `edge` in the graph of shorter edges (token pairs):
  // the tokens and edges to highlight.
  std::vector<std::array<int, 2>> cycle;

  double persistence() const { return death - birth; }
};

struct PersistenceDiagram {
  std::vector<PersistenceBar> h0;  // sorted by death, then birth
  std::vector<PersistenceBar> h1;  // sorted by birth, then death
};

struct DistanceParams {
  bool symmetriseByMax = false;  // reading option: 1 - max(A_ij, A_ji) instead of the mean
};

// Symmetric n x n distances, row-major, zero diagonal.
std::vector<double> attention_distances(const AttentionView& attention,
                                        const DistanceParams& params = {});

// Filtration values within this tolerance are equal as real numbers (float
// rounding, which differs between BLAS kernels, must not decide a count):
// relative to the largest distance for a bar's length, absolute on the
// [0, 1] scale of attention distances for the Betti grid and min_persistence.
inline constexpr double kBarTolerance = 1e-6;

// Exact persistence has a cost no size bound can state in advance: a sink
// map reduces in milliseconds, a dense random encoder map at T = 900 needed
// 10 GB and more than five minutes. Past these bounds (entries held at once:
// 128 MiB of keys, up to twice that while their buffer grows, per analysis
// thread, so that two threads at 2048 tokens stay within 2 GiB with the
// capture; coboundary entries visited) it stops with PersistenceTooLarge, the
// same on every machine.
struct PersistenceBounds {
  std::uint64_t heldEntries = std::uint64_t{1} << 24;
  std::uint64_t work = std::uint64_t{1} << 29;
};
class PersistenceTooLarge : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Exact persistence of the Rips filtration of `distances` (n x n). Bars no
// longer than kBarTolerance times the largest distance are not reported.
// `progress` hears the fraction done every few hundred columns (long inputs
// take seconds to minutes); a false answer throws AnalysisStopped. Past the
// bounds above: PersistenceTooLarge, saying which and the map's size.
// `distances` is taken by value and released once ranked: pass a temporary
// (or std::move) and a long input's n^2 doubles are not held twice.
PersistenceDiagram persistence_rips(std::vector<double> distances, int n,
                                    const AnalysisProgress& progress = {},
                                    const PersistenceBounds& bounds = {});

struct BettiCurves {
  std::vector<double> grid;  // e in [0, 1]
  std::vector<int> beta0, beta1;
};

// beta_k(e) = number of bars of dimension k with birth <= e < death, both
// read at e + kBarTolerance (the infinite H0 bar counts up to and including e = 1).
BettiCurves betti_curves(const PersistenceDiagram& diagram, int points = 101);

// Bars with persistence above `minPersistence` (default 0.05) by more than kBarTolerance.
int bars_above(const std::vector<PersistenceBar>& bars, double minPersistence = 0.05);

}  // namespace sinkscope::analysis
