#include "analysis/functional.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "analysis/graph_spectrum.h"

namespace sinkscope::analysis {

namespace {

void require_rows(std::span<const float> m, int cols, const char* who) {
  if (cols <= 0 || m.size() % static_cast<std::size_t>(cols) != 0)
    throw std::invalid_argument(std::string(who) + ": buffer of " + std::to_string(m.size()) +
                                " values is not a whole number of rows of " + std::to_string(cols));
}

// log sum exp of one row, in double.
double log_sum_exp(std::span<const float> row) {
  double mx = -INFINITY;
  for (float x : row) mx = std::max(mx, static_cast<double>(x));
  double s = 0;
  for (float x : row) s += std::exp(static_cast<double>(x) - mx);
  return mx + std::log(s);
}

}  // namespace

std::vector<double> token_nll(std::span<const float> logits, int vocab,
                              const std::vector<int>& targets) {
  require_rows(logits, vocab, "token_nll");
  const std::size_t T = logits.size() / static_cast<std::size_t>(vocab);
  if (T != targets.size())
    throw std::invalid_argument("token_nll: " + std::to_string(T) + " rows of logits for " +
                                std::to_string(targets.size()) + " targets");
  std::vector<double> nll;
  for (std::size_t t = 0; t < T; ++t) {
    if (targets[t] < 0) continue;
    if (targets[t] >= vocab)
      throw std::invalid_argument("token_nll: token id " + std::to_string(targets[t]) +
                                  " outside the vocabulary");
    const auto row =
        logits.subspan(t * static_cast<std::size_t>(vocab), static_cast<std::size_t>(vocab));
    nll.push_back(log_sum_exp(row) -
                  static_cast<double>(row[static_cast<std::size_t>(targets[t])]));
  }
  return nll;
}

std::vector<double> next_token_nll(std::span<const float> logits, int vocab,
                                   const std::vector<int>& ids) {
  std::vector<int> targets(ids.size(), -1);
  for (std::size_t t = 0; t + 1 < ids.size(); ++t) targets[t] = std::max(ids[t + 1], 0);
  for (std::size_t t = 0; t + 1 < ids.size(); ++t)
    if (ids[t + 1] < 0)
      throw std::invalid_argument("next_token_nll: token id " + std::to_string(ids[t + 1]) +
                                  " outside the vocabulary");
  return token_nll(logits, vocab, targets);
}

std::vector<double> kl_per_row(std::span<const float> p, std::span<const float> q, int vocab) {
  require_rows(p, vocab, "kl_per_row");
  if (p.size() != q.size()) throw std::invalid_argument("kl_per_row: P and Q differ in size");
  const std::size_t rows = p.size() / static_cast<std::size_t>(vocab);
  std::vector<double> kl(rows, 0.0);
  for (std::size_t r = 0; r < rows; ++r) {
    const auto a = p.subspan(r * static_cast<std::size_t>(vocab), static_cast<std::size_t>(vocab));
    const auto b = q.subspan(r * static_cast<std::size_t>(vocab), static_cast<std::size_t>(vocab));
    if (std::equal(a.begin(), a.end(), b.begin())) continue;  // exactly 0 for the identity
    const double za = log_sum_exp(a), zb = log_sum_exp(b);
    double sum = 0;
    for (std::size_t k = 0; k < a.size(); ++k) {
      const double la = a[k] - za, lb = b[k] - zb;
      sum += std::exp(la) * (la - lb);
    }
    kl[r] = std::max(0.0, sum);  // rounding can leave -1e-17 where P ~ Q
  }
  return kl;
}

double effective_rank(std::span<const float> matrix, int rows, int cols) {
  if (rows < 0 || cols < 0 ||
      matrix.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols))
    throw std::invalid_argument("effective_rank: buffer is not rows x cols");
  if (rows == 0 || cols == 0) return 0.0;
  Eigen::MatrixXd m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      m(i, j) = matrix[static_cast<std::size_t>(i) * static_cast<std::size_t>(cols) +
                       static_cast<std::size_t>(j)];
  const Eigen::VectorXd s = Eigen::BDCSVD<Eigen::MatrixXd>(m).singularValues();
  const double total = s.sum();
  if (total <= 0) return 0.0;
  double entropy = 0;
  for (Eigen::Index k = 0; k < s.size(); ++k) {
    const double p = s(k) / total;
    if (p > 0) entropy -= p * std::log(p);
  }
  return std::exp(entropy);
}

std::vector<double> relative_change_per_row(std::span<const float> a, std::span<const float> b,
                                            int cols) {
  require_rows(a, cols, "relative_change_per_row");
  if (a.size() != b.size())
    throw std::invalid_argument("relative_change_per_row: the matrices differ in size");
  const std::size_t rows = a.size() / static_cast<std::size_t>(cols);
  std::vector<double> out(rows, 0.0);
  for (std::size_t r = 0; r < rows; ++r) {
    double diff = 0, base = 0;
    for (std::size_t k = r * static_cast<std::size_t>(cols);
         k < (r + 1) * static_cast<std::size_t>(cols); ++k) {
      diff += (static_cast<double>(a[k]) - b[k]) * (static_cast<double>(a[k]) - b[k]);
      base += static_cast<double>(a[k]) * a[k];
    }
    out[r] = base > 0 ? std::sqrt(diff / base) : 0.0;
  }
  return out;
}

namespace {
std::vector<double> average_ranks(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> rank(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double r = 0.5 * static_cast<double>(i + j) + 1.0;
    for (std::size_t k = i; k <= j; ++k) rank[order[k]] = r;
    i = j + 1;
  }
  return rank;
}
}  // namespace

double spearman(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) throw std::invalid_argument("spearman: series of different lengths");
  for (std::size_t k = 0; k < x.size(); ++k)
    if (!std::isfinite(x[k]) || !std::isfinite(y[k]))
      throw std::invalid_argument("spearman: entry " + std::to_string(k) + " is not finite");
  return pearson(average_ranks(x), average_ranks(y));
}

}  // namespace sinkscope::analysis
