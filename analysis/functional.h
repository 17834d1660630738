#pragma once
// Numbers for the functional experiments of metrics.md sections 5 and 8 that
// need no model: log-likelihoods and divergences of output distributions given
// as plain logits, the effective rank of hidden states, relative changes of
// hidden states, and rank correlation.
#include <span>
#include <vector>

namespace sinkscope::analysis {

// Next-token negative log-likelihood (nats) of a decoder: entry t is
// -log softmax(logits[t])[ids[t + 1]], t = 0..T-2. `logits` is [T][vocab].
std::vector<double> next_token_nll(std::span<const float> logits, int vocab,
                                   const std::vector<int>& ids);

// -log softmax(logits[t])[targets[t]] per row t with targets[t] >= 0 (rows with
// a negative target are skipped).
std::vector<double> token_nll(std::span<const float> logits, int vocab,
                              const std::vector<int>& targets);

// KL(P || Q) per row, P and Q the softmax of each row of `p` and `q` ([rows][vocab]).
// Always >= 0, and exactly 0 for identical rows.
std::vector<double> kl_per_row(std::span<const float> p, std::span<const float> q, int vocab);

// Effective rank of a [rows][cols] matrix (metrics.md s. 5): exp of the Shannon
// entropy of its singular values normalised to sum 1 (0 for the zero matrix).
double effective_rank(std::span<const float> matrix, int rows, int cols);

// ||a_i - b_i|| / ||a_i|| per row of two [rows][cols] matrices (0 where a_i = 0).
std::vector<double> relative_change_per_row(std::span<const float> a, std::span<const float> b,
                                            int cols);

// Spearman's rank correlation (average ranks for ties; 0 when either is constant).
double spearman(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace sinkscope::analysis
