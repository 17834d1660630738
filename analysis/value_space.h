#pragma once
// Value-space geometry of token selection (metrics.md section 6; 004): for a
// head and a query, the attention-scaled value contributions y_j = A[i][j] v_j,
// the top-N selection and how well a ball around s_N separates it.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "analysis/attention_matrix.h"

namespace sinkscope::analysis {

struct ValueSpaceParams {
  int topN = 3;             // N; clamped to [1, number of visible keys] (N > T selects every key)
  int query = -1;           // negative: the last position
  int randomSubsets = 64;   // K of the random baseline
  // Fixed: the baseline is reproducible. Subset s of size N is the first N keys
  // of the s-th seeded random ordering of the visible keys, so each is uniform
  // among the N-subsets and the subsets of one ordering are nested over N.
  std::uint64_t seed = 7;
  bool projections = true;  // PCA of the contributions (off for curves over N)
};

struct SelectionScores {
  double precision = 0.0;  // P(r_max, N), closed ball
  double recall = 0.0;     // R(r_min, N), open ball
  double f = 0.0;          // harmonic mean (0 when both are 0)
};

// The sink-aware certificate of 004, appendix A.1. With C = median_{j>0} ||v_j||
// and beta_j = A[i][j] ||v_j|| / C (reading: the paper's constant-norm
// assumption makes beta_j = A[i][j] for j > 0; using the actual norms keeps the
// bound exact on every input) and beta_0 = lambda * A[i][0], every
// selected/unselected pair (i, j) gets the worst-case lower bound L_ij <= X_ij / C^2
// of X_ij = D_j - D_i; the pairs with L_ij <= 0 are K_N^sink. Coherence and sink
// alignment are taken over the pairs the bound needs, so A_N <= K_N^sink always.
struct SinkAwareBound {
  double scale = 0.0;           // C
  double beta0 = 0.0;           // lambda * A[i][0]
  double aPlus = 0.0;           // A_+: sum of beta over the selected non-sink keys
  double mu = 0.0;              // max |cos(v_p, v_q)|, p selected non-sink, q non-sink, p != q
  double nuMinus = 0.0;         // -max_{k>0} cos(v_0, v_k)
  double nuPlus = 0.0;          // -min_{k>0} cos(v_0, v_k)
  int count = 0;                // K_N^sink
  double precisionBound = 1.0;  // 1 / (1 + K / N)
  double recallBound = 1.0;     // max(0, 1 - K / N)
};

// How the first token shapes the selection (004, A.8). NaN where a quantity
// does not apply (the first two need the sink selected, the intrusion ones need
// it unselected).
struct SinkSelectionDiagnostics {
  bool selected = false;
  double shareOfAggregate = 0.0;       // ||y_0|| / ||s_N||
  double directionChange = 0.0;        // 1 - cos(s_N, s_N - y_0)
  double intrusion = 0.0;              // 1 when D_0 <= r_max^2, else 0
  double invertedShare = 0.0;          // share of selected i with D_i > D_0
  // cos(y_0, s_N+), s_N+ = selected non-sink sum; NaN when either is zero
  // (s_N+ is when the sink is the only key selected).
  double alignmentWithSelected = 0.0;
};

struct ValueSpace {
  int query = 0;
  int topN = 0;
  std::vector<int> keys;          // the keys the query sees, 0..
  std::vector<int> selected;      // I_N, by decreasing weight (ties: lower index first)
  std::vector<double> sN;         // sum of the selected contributions
  std::vector<double> distance2;  // D_j = ||y_j - s_N||^2 per visible key
  double rMax = 0.0, rMin = 0.0;  // rMin is +inf when every key is selected
  SelectionScores scores;
  SelectionScores randomMean, randomStd;
  int inversions = 0;           // A_N
  double precisionBound = 0.0;  // N / (N + A_N)
  double recallBound = 0.0;     // 1 - A_N / N
  // Sink geometry.
  double lambda = 0.0;              // ||v_0|| / median_{j>0} ||v_j||
  double normCv = 0.0;              // coefficient of variation of ||v_j||, j > 0
  double coherenceMax = 0.0;        // mu_N: max |cos| over selected non-sink pairs
  double coherence95 = 0.0;         // its 0.95 quantile
  double sinkAlignmentRange = 0.0;  // nu: range of cos(v_0, v_k), k > 0
  bool sinkSelected = false;
  SinkAwareBound sinkBound;
  SinkSelectionDiagnostics sink;
  double looMargin = 0.0;  // min_{j not in I} ||y_j - s_N|| - max_{i in I} ||y_i - s_{N,-i}||
  // PCA of {y_j} (visible keys) and s_N (last entry).
  std::vector<std::array<double, 2>> pca2;
  std::vector<std::array<double, 3>> pca3;
};

// `values`: the head's [T][headDim] value vectors.
ValueSpace value_space(const AttentionView& attention, std::span<const float> values, int headDim,
                       const ValueSpaceParams& params = {});

// One point of the F_N curve: what the curve's plots and value_space_curve.csv
// show for the top-N selection at one N. Equal to the same fields of
// value_space() at that N (tests/analysis/value_space_test.cpp checks it).
// The aggregate against the two privileged keys, the sink (position 0) and
// the current token (the query's own key), at one N (004, Fig. 4b). Each is
// NaN where undefined: s_N, or the key's value, a zero vector; the sink's
// where the query does not see position 0.
struct PrivilegedKeys {
  double sinkCosine = 0.0;     // cos(s_N, v_0)
  double currentCosine = 0.0;  // cos(s_N, v_cur)
  // ||s_N - y_k|| / ||s_N||, the aggregate's length after removing that key's
  // contribution (1 when it is not selected):
  double sinkRemovedNorm = 0.0, currentRemovedNorm = 0.0;
};

struct ValueSpaceCurvePoint {
  int topN = 0;
  SelectionScores scores;
  SelectionScores randomMean, randomStd;  // over the same seeded subsets value_space() draws
  int inversions = 0;                     // A_N
  double precisionBound = 0.0, recallBound = 0.0;
  int sinkAwareCount = 0;  // K_N^sink
  bool sinkSelected = false;
  // Leave-one-out control (A.5), with s_{N,-i} = s_N - y_i:
  // gamma_N^loo = min_{j not in I} ||y_j - s_N|| - max_{i in I} ||y_i - s_{N,-i}||
  // (+inf when every key is selected, as value_space()'s looMargin);
  double looMargin = 0.0;
  // M_N^loo = mean_{i in I} cos(y_i, s_{N,-i}) - mean_{j not in I} cos(y_j, s_N), over
  // the cosines that are defined (no zero vector); NaN when either side has none;
  double looAlignmentMargin = 0.0;
  // the share of the selected keys with a defined cos(y_i, s_{N,-i}) whose cosine is
  // positive (beyond a relative 1e-9); NaN when none is defined (N = 1).
  double positiveLooShare = 0.0;
  // The sink's effect on the top-N selection at this N, as value_space()'s
  // (all NaN, selected false, when the query does not see position 0).
  SinkSelectionDiagnostics sink;
  PrivilegedKeys privileged;
};

struct ValueSpaceCurve {
  int query = 0;
  std::vector<ValueSpaceCurvePoint> points;  // N = 1 .. the number of visible keys
};

// The F_N curve of 004's figures for every N from 1 to the number of visible
// keys, in one sweep: the selection grows by one key per step, the distances
// to s_N follow from the Gram matrix of the contributions in O(T) per step,
// and each random subset grows the same way (its subsets are nested), so a
// head costs O(K T^2 + T^2 d) rather than O(K T^3 d). `params.topN` is ignored.
ValueSpaceCurve value_space_curve(const AttentionView& attention, std::span<const float> values,
                                  int headDim, const ValueSpaceParams& params = {});

// The selection scores of an arbitrary subset (used for the baseline; tests).
SelectionScores selection_scores(const std::vector<std::vector<double>>& contributions,
                                 const std::vector<bool>& inSubset);

}  // namespace sinkscope::analysis
