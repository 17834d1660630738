#include "analysis/value_space.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

#include "analysis/sinks.h"

namespace sinkscope::analysis {

namespace {

double norm2(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return s;
}

std::vector<double> minus(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> r(a.size());
  for (std::size_t k = 0; k < a.size(); ++k) r[k] = a[k] - b[k];
  return r;
}

double cosine(std::span<const float> a, std::span<const float> b) {
  double ab = 0, aa = 0, bb = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    ab += static_cast<double>(a[k]) * b[k];
    aa += static_cast<double>(a[k]) * a[k];
    bb += static_cast<double>(b[k]) * b[k];
  }
  return (aa > 0 && bb > 0) ? ab / std::sqrt(aa * bb) : 0.0;
}

}  // namespace

SelectionScores selection_scores(const std::vector<std::vector<double>>& y,
                                 const std::vector<bool>& in) {
  SelectionScores s;
  const std::size_t n = y.size();
  if (n == 0) return s;
  const std::size_t d = y.front().size();
  std::vector<double> sum(d, 0.0);
  int N = 0;
  for (std::size_t j = 0; j < n; ++j)
    if (in[j]) {
      ++N;
      for (std::size_t k = 0; k < d; ++k) sum[k] += y[j][k];
    }
  if (N == 0) return s;
  std::vector<double> D(n);
  double dMax = 0.0, dMin = std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < n; ++j) {
    D[j] = norm2(minus(y[j], sum));
    if (in[j])
      dMax = std::max(dMax, D[j]);
    else
      dMin = std::min(dMin, D[j]);
  }
  int inClosed = 0, selectedInClosed = 0, selectedInOpen = 0;
  for (std::size_t j = 0; j < n; ++j) {
    if (D[j] <= dMax) {
      ++inClosed;
      selectedInClosed += in[j] ? 1 : 0;
    }
    if (in[j] && D[j] < dMin) ++selectedInOpen;
  }
  s.precision = inClosed > 0 ? static_cast<double>(selectedInClosed) / inClosed : 0.0;
  s.recall = static_cast<double>(selectedInOpen) / N;
  s.f = (s.precision + s.recall) > 0 ? 2 * s.precision * s.recall / (s.precision + s.recall) : 0.0;
  return s;
}

ValueSpace value_space(const AttentionView& a, std::span<const float> values, int headDim,
                       const ValueSpaceParams& p) {
  const int T = a.size;
  if (values.size() != static_cast<std::size_t>(T) * static_cast<std::size_t>(headDim))
    throw std::invalid_argument("value_space: values must be T x head_dim");
  ValueSpace r;
  if (T == 0) return r;
  r.query = p.query < 0 ? T - 1 : p.query;
  if (r.query >= T) throw std::out_of_range("value_space: query outside the sequence");
  for (int j = 0; j < T; ++j)
    if (a.visible(r.query, j)) r.keys.push_back(j);
  const int n = static_cast<int>(r.keys.size());
  r.topN = std::clamp(p.topN, 1, n);
  auto vec = [&](int j) {
    return values.subspan(static_cast<std::size_t>(j) * headDim, static_cast<std::size_t>(headDim));
  };

  // Contributions and the top-N selection (ties to the lower index).
  std::vector<std::vector<double>> y(static_cast<std::size_t>(n),
                                     std::vector<double>(static_cast<std::size_t>(headDim)));
  for (int k = 0; k < n; ++k) {
    const double w = a.at(r.query, r.keys[static_cast<std::size_t>(k)]);
    const auto v = vec(r.keys[static_cast<std::size_t>(k)]);
    for (int c = 0; c < headDim; ++c)
      y[static_cast<std::size_t>(k)][static_cast<std::size_t>(c)] =
          w * v[static_cast<std::size_t>(c)];
  }
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int z) {
    return a.at(r.query, r.keys[static_cast<std::size_t>(x)]) >
           a.at(r.query, r.keys[static_cast<std::size_t>(z)]);
  });
  std::vector<bool> in(static_cast<std::size_t>(n), false);
  for (int k = 0; k < r.topN; ++k) {
    in[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])] = true;
    r.selected.push_back(r.keys[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])]);
  }
  r.sN.assign(static_cast<std::size_t>(headDim), 0.0);
  for (int k = 0; k < n; ++k)
    if (in[static_cast<std::size_t>(k)])
      for (int c = 0; c < headDim; ++c)
        r.sN[static_cast<std::size_t>(c)] +=
            y[static_cast<std::size_t>(k)][static_cast<std::size_t>(c)];
  r.distance2.resize(static_cast<std::size_t>(n));
  double dMax = 0.0, dMin = std::numeric_limits<double>::infinity();
  for (int k = 0; k < n; ++k) {
    const double D = norm2(minus(y[static_cast<std::size_t>(k)], r.sN));
    r.distance2[static_cast<std::size_t>(k)] = D;
    if (in[static_cast<std::size_t>(k)])
      dMax = std::max(dMax, D);
    else
      dMin = std::min(dMin, D);
  }
  r.rMax = std::sqrt(dMax);
  r.rMin = std::sqrt(dMin);
  r.scores = selection_scores(y, in);

  // Inversions and the bounds they give.
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (in[static_cast<std::size_t>(i)] && !in[static_cast<std::size_t>(j)] &&
          r.distance2[static_cast<std::size_t>(j)] <= r.distance2[static_cast<std::size_t>(i)])
        ++r.inversions;
  r.precisionBound = static_cast<double>(r.topN) / (r.topN + r.inversions);
  r.recallBound = 1.0 - static_cast<double>(r.inversions) / r.topN;

  // Random baseline: K seeded subsets of size N.
  std::mt19937_64 rng(p.seed);
  std::vector<SelectionScores> random;
  for (int s = 0; s < p.randomSubsets; ++s) {
    std::vector<int> idx(static_cast<std::size_t>(n));
    std::iota(idx.begin(), idx.end(), 0);
    for (int k = 0; k < r.topN; ++k)
      std::swap(idx[static_cast<std::size_t>(k)],
                idx[static_cast<std::size_t>(k) + rng() % static_cast<std::size_t>(n - k)]);
    std::vector<bool> subset(static_cast<std::size_t>(n), false);
    for (int k = 0; k < r.topN; ++k)
      subset[static_cast<std::size_t>(idx[static_cast<std::size_t>(k)])] = true;
    random.push_back(selection_scores(y, subset));
  }
  auto stats = [&](auto field, double& mean, double& sd) {
    mean = sd = 0;
    if (random.empty()) return;
    for (const auto& s : random) mean += field(s);
    mean /= random.size();
    for (const auto& s : random) sd += (field(s) - mean) * (field(s) - mean);
    sd = std::sqrt(sd / random.size());
  };
  stats([](const SelectionScores& s) { return s.precision; }, r.randomMean.precision,
        r.randomStd.precision);
  stats([](const SelectionScores& s) { return s.recall; }, r.randomMean.recall, r.randomStd.recall);
  stats([](const SelectionScores& s) { return s.f; }, r.randomMean.f, r.randomStd.f);

  // Sink geometry on the value vectors.
  std::vector<double> norms;
  for (int k = 1; k < n; ++k)
    norms.push_back(
        std::sqrt(norm2(std::vector<double>(vec(r.keys[static_cast<std::size_t>(k)]).begin(),
                                            vec(r.keys[static_cast<std::size_t>(k)]).end()))));
  if (!norms.empty()) {
    std::vector<double> sorted = norms;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted.size() % 2
                              ? sorted[sorted.size() / 2]
                              : 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);
    const auto v0 = vec(0);
    const double n0 = std::sqrt(norm2(std::vector<double>(v0.begin(), v0.end())));
    r.lambda = median > 0 ? n0 / median : 0.0;
    const double mean = std::accumulate(norms.begin(), norms.end(), 0.0) / norms.size();
    double var = 0;
    for (double x : norms) var += (x - mean) * (x - mean);
    r.normCv = mean > 0 ? std::sqrt(var / norms.size()) / mean : 0.0;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (int k = 1; k < n; ++k) {
      const double c = cosine(v0, vec(r.keys[static_cast<std::size_t>(k)]));
      lo = std::min(lo, c);
      hi = std::max(hi, c);
    }
    r.sinkAlignmentRange = hi - lo;
  }
  std::vector<int> nonSinkSelected;
  for (int j : r.selected) {
    if (j == 0)
      r.sinkSelected = true;
    else
      nonSinkSelected.push_back(j);
  }
  std::vector<double> coherence;
  for (std::size_t x = 0; x < nonSinkSelected.size(); ++x)
    for (std::size_t z = x + 1; z < nonSinkSelected.size(); ++z)
      coherence.push_back(std::abs(cosine(vec(nonSinkSelected[x]), vec(nonSinkSelected[z]))));
  if (!coherence.empty()) {
    r.coherenceMax = *std::max_element(coherence.begin(), coherence.end());
    r.coherence95 = percentile_linear(coherence, 95.0);
  }

  // Leave-one-out margin.
  double worstInside = 0.0;
  for (int k = 0; k < n; ++k)
    if (in[static_cast<std::size_t>(k)]) {
      const auto without = minus(r.sN, y[static_cast<std::size_t>(k)]);
      worstInside =
          std::max(worstInside, std::sqrt(norm2(minus(y[static_cast<std::size_t>(k)], without))));
    }
  r.looMargin = r.rMin - worstInside;

  // PCA of the contributions and s_N.
  const int points = n + 1;
  Eigen::MatrixXd X(points, headDim);
  for (int k = 0; k < n; ++k)
    for (int c = 0; c < headDim; ++c)
      X(k, c) = y[static_cast<std::size_t>(k)][static_cast<std::size_t>(c)];
  for (int c = 0; c < headDim; ++c) X(n, c) = r.sN[static_cast<std::size_t>(c)];
  const Eigen::RowVectorXd mean = X.colwise().mean();
  const Eigen::MatrixXd centred = X.rowwise() - mean;
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(centred.transpose() * centred);
  Eigen::MatrixXd axes = Eigen::MatrixXd::Zero(headDim, 3);
  for (int c = 0; c < std::min(3, headDim); ++c) {
    Eigen::VectorXd v = solver.eigenvectors().col(headDim - 1 - c);  // largest variance first
    Eigen::Index big = 0;
    v.cwiseAbs().maxCoeff(&big);
    if (v(big) < 0) v = -v;  // deterministic sign
    axes.col(c) = v;
  }
  const Eigen::MatrixXd projected = centred * axes;
  for (int k = 0; k < points; ++k) {
    r.pca2.push_back({projected(k, 0), projected(k, 1)});
    r.pca3.push_back({projected(k, 0), projected(k, 1), projected(k, 2)});
  }
  return r;
}

}  // namespace sinkscope::analysis
