#pragma once
// The sink metric of Gu et al. (ICLR 2025), as metrics.md section 1 defines it:
// a key's importance is the mean attention it receives from the queries that
// can see it, judged against what a uniform head would give it.
#include <vector>

#include "analysis/attention_matrix.h"

namespace sinkscope::analysis {

// alpha_k = (1 / #queries that see k) * sum over those queries i of A[i][k],
// for every key k = 0..T-1.
std::vector<double> sink_key_importance(const AttentionView& attention);

// The alpha_k a uniform head would give key k: (H_T - H_k) / (T - k) in a
// causal model (H_n the n-th harmonic number; H_T / T for k = 0), 1 / T in a
// bidirectional one.
double sink_uniform_baseline(int size, int key, bool causal);

// The same for every key at once in O(T) (bit for bit the values above: both
// sum 1 / (i + 1) from the last query down, small terms first).
std::vector<double> sink_uniform_baselines(int size, bool causal);

// alpha_k divided by its uniform baseline, for every key.
std::vector<double> sink_boost(const AttentionView& attention);

}  // namespace sinkscope::analysis
