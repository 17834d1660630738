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
  int topN = 3;
  int query = -1;          // negative: the last position
  int randomSubsets = 64;  // K of the random baseline
  std::uint64_t seed = 7;  // fixed: the baseline is reproducible
};

struct SelectionScores {
  double precision = 0.0;  // P(r_max, N), closed ball
  double recall = 0.0;     // R(r_min, N), open ball
  double f = 0.0;          // harmonic mean (0 when both are 0)
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
  double looMargin = 0.0;  // min_{j not in I} ||y_j - s_N|| - max_{i in I} ||y_i - s_{N,-i}||
  // PCA of {y_j} (visible keys) and s_N (last entry).
  std::vector<std::array<double, 2>> pca2;
  std::vector<std::array<double, 3>> pca3;
};

// `values`: the head's [T][headDim] value vectors.
ValueSpace value_space(const AttentionView& attention, std::span<const float> values, int headDim,
                       const ValueSpaceParams& params = {});

// The selection scores of an arbitrary subset (used for the baseline; tests).
SelectionScores selection_scores(const std::vector<std::vector<double>>& contributions,
                                 const std::vector<bool>& inSubset);

}  // namespace sinkscope::analysis
