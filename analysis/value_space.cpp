#include "analysis/value_space.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <functional>
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

// ||a - b||^2 without a temporary.
double distance2(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t k = 0; k < a.size(); ++k) s += (a[k] - b[k]) * (a[k] - b[k]);
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

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t k = 0; k < a.size(); ++k) s += a[k] * b[k];
  return s;
}

double cosine(const std::vector<double>& a, const std::vector<double>& b) {
  const double aa = norm2(a), bb = norm2(b);
  return (aa > 0 && bb > 0) ? dot(a, b) / std::sqrt(aa * bb) : 0.0;
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// 004, appendix A.1; see SinkAwareBound. `in[k]` marks the selected visible
// keys; keys[0] is the sink (position 0), which every query sees.
SinkAwareBound sink_aware_bound(const std::vector<int>& keys, const std::vector<bool>& in,
                                const std::vector<double>& weight,
                                const std::function<std::span<const float>(int)>& vec,
                                const std::function<double(int, int)>& cosineOf, double medianNorm,
                                int topN) {
  SinkAwareBound b;
  const int n = static_cast<int>(keys.size());
  b.scale = medianNorm > 0 ? medianNorm : 1.0;
  auto vnorm = [&](int k) {
    double s = 0;
    for (float x : vec(keys[static_cast<std::size_t>(k)])) s += static_cast<double>(x) * x;
    return std::sqrt(s);
  };
  std::vector<double> beta(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k)
    beta[static_cast<std::size_t>(k)] = weight[static_cast<std::size_t>(k)] * vnorm(k) / b.scale;
  b.beta0 = beta[0];
  const bool sinkIn = in[0];
  double cosMax = -1.0, cosMin = 1.0;
  for (int k = 1; k < n; ++k) {
    if (in[static_cast<std::size_t>(k)]) b.aPlus += beta[static_cast<std::size_t>(k)];
    const double c = cosineOf(keys[0], keys[static_cast<std::size_t>(k)]);
    cosMax = std::max(cosMax, c);
    cosMin = std::min(cosMin, c);
    if (!in[static_cast<std::size_t>(k)]) continue;
    for (int q = 1; q < n; ++q)
      if (q != k)
        b.mu = std::max(b.mu, std::abs(cosineOf(keys[static_cast<std::size_t>(k)],
                                                keys[static_cast<std::size_t>(q)])));
  }
  if (n > 1) {
    b.nuMinus = -cosMax;
    b.nuPlus = -cosMin;
  }
  const double sigma = sinkIn ? 1.0 : 0.0, mu = b.mu, b0 = b.beta0, ap = b.aPlus;
  // Rounding slack: a pair whose bound is zero up to rounding counts as a potential inversion.
  constexpr double kSlack = 1e-12;
  for (int i = 0; i < n; ++i) {
    if (!in[static_cast<std::size_t>(i)]) continue;
    const double bi = beta[static_cast<std::size_t>(i)];
    for (int j = 0; j < n; ++j) {
      if (in[static_cast<std::size_t>(j)]) continue;
      const double bj = beta[static_cast<std::size_t>(j)];
      double L;
      if (i > 0 && j > 0)
        L = bi * bi + bj * bj - 2 * mu * (bi * (ap - bi) + bj * ap) +
            2 * sigma * b0 * (b.nuMinus * bj - b.nuPlus * bi);
      else if (j == 0)  // the unselected sink against a selected non-sink key
        L = bi * bi + b0 * b0 - 2 * mu * bi * (ap - bi) + 2 * b0 * b.nuMinus * ap;
      else  // the selected sink against an unselected non-sink key
        L = b0 * b0 + bj * bj - 2 * b0 * b.nuPlus * ap + 2 * bj * b0 * b.nuMinus - 2 * mu * bj * ap;
      if (L <= kSlack * (1.0 + bi * bi + bj * bj)) ++b.count;
    }
  }
  const double N = topN;
  b.precisionBound = 1.0 / (1.0 + b.count / N);
  b.recallBound = std::max(0.0, 1.0 - b.count / N);
  return b;
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
    D[j] = distance2(y[j], sum);
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

namespace {

// Cosines of the value vectors of positions a and b, looked up in a T x T table.
using CosineTable = std::vector<double>;

CosineTable cosine_table(std::span<const float> values, int T, int headDim) {
  CosineTable table(static_cast<std::size_t>(T) * static_cast<std::size_t>(T), 0.0);
  for (int a = 0; a < T; ++a)
    for (int b = a; b < T; ++b) {
      const double c = cosine(values.subspan(static_cast<std::size_t>(a) * headDim, headDim),
                              values.subspan(static_cast<std::size_t>(b) * headDim, headDim));
      table[static_cast<std::size_t>(a) * T + b] = table[static_cast<std::size_t>(b) * T + a] = c;
    }
  return table;
}

ValueSpace value_space_with(const AttentionView& a, std::span<const float> values, int headDim,
                            const ValueSpaceParams& p, const CosineTable* table);

}  // namespace

ValueSpace value_space(const AttentionView& a, std::span<const float> values, int headDim,
                       const ValueSpaceParams& p) {
  return value_space_with(a, values, headDim, p, nullptr);
}

namespace {

ValueSpace value_space_with(const AttentionView& a, std::span<const float> values, int headDim,
                            const ValueSpaceParams& p, const CosineTable* table) {
  const int T = a.size;
  attention_require_usable(a, "value_space");
  if (headDim < 1) throw std::invalid_argument("value_space: head_dim must be positive");
  if (values.size() != static_cast<std::size_t>(T) * static_cast<std::size_t>(headDim))
    throw std::invalid_argument("value_space: values must be T x head_dim");
  values_require_finite(values, "value_space");
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
  auto cosineOf = [&](int x, int z) {
    return table ? (*table)[static_cast<std::size_t>(x) * static_cast<std::size_t>(T) +
                            static_cast<std::size_t>(z)]
                 : cosine(vec(x), vec(z));
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
    const double D = distance2(y[static_cast<std::size_t>(k)], r.sN);
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
  double median = 0.0;
  if (!norms.empty()) {
    std::vector<double> sorted = norms;
    std::sort(sorted.begin(), sorted.end());
    median = sorted.size() % 2 ? sorted[sorted.size() / 2]
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
      coherence.push_back(std::abs(cosineOf(nonSinkSelected[x], nonSinkSelected[z])));
  if (!coherence.empty()) {
    r.coherenceMax = *std::max_element(coherence.begin(), coherence.end());
    r.coherence95 = percentile_linear(coherence, 95.0);
  }

  // The sink-aware certificate and the sink's effect on the selection.
  {
    std::vector<double> weight(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k)
      weight[static_cast<std::size_t>(k)] = a.at(r.query, r.keys[static_cast<std::size_t>(k)]);
    r.sinkBound = sink_aware_bound(r.keys, in, weight, vec, cosineOf, median, r.topN);
    SinkSelectionDiagnostics& d = r.sink;
    d.selected = in[0];
    const std::vector<double>& y0 = y[0];
    std::vector<double> sPlus(static_cast<std::size_t>(headDim), 0.0);
    for (int k = 1; k < n; ++k)
      if (in[static_cast<std::size_t>(k)])
        for (int c = 0; c < headDim; ++c)
          sPlus[static_cast<std::size_t>(c)] +=
              y[static_cast<std::size_t>(k)][static_cast<std::size_t>(c)];
    d.alignmentWithSelected = cosine(y0, sPlus);
    if (d.selected) {
      const double sNorm = std::sqrt(norm2(r.sN));
      d.shareOfAggregate = sNorm > 0 ? std::sqrt(norm2(y0)) / sNorm : kNaN;
      d.directionChange = 1.0 - cosine(r.sN, minus(r.sN, y0));
      d.intrusion = d.invertedShare = kNaN;
    } else {
      d.shareOfAggregate = d.directionChange = kNaN;
      const double D0 = r.distance2[0];
      d.intrusion = D0 <= dMax ? 1.0 : 0.0;
      int above = 0;
      for (int k = 0; k < n; ++k)
        if (in[static_cast<std::size_t>(k)] && r.distance2[static_cast<std::size_t>(k)] > D0)
          ++above;
      d.invertedShare = static_cast<double>(above) / r.topN;
    }
  }

  // Leave-one-out margin.
  double worstInside = 0.0;
  for (int k = 0; k < n; ++k)
    if (in[static_cast<std::size_t>(k)]) {
      const auto without = minus(r.sN, y[static_cast<std::size_t>(k)]);
      worstInside =
          std::max(worstInside, std::sqrt(distance2(y[static_cast<std::size_t>(k)], without)));
    }
  r.looMargin = r.rMin - worstInside;

  if (!p.projections) return r;
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

}  // namespace

std::vector<ValueSpace> value_space_curve(const AttentionView& attention,
                                          std::span<const float> values, int headDim,
                                          ValueSpaceParams params) {
  std::vector<ValueSpace> curve;
  if (attention.size == 0) return curve;
  params.projections = false;
  params.topN = 1;
  curve.push_back(value_space(attention, values, headDim, params));  // checks the input
  // Every N needs the same cosines: compute them once.
  const CosineTable table = cosine_table(values, attention.size, headDim);
  const int keys = static_cast<int>(curve.front().keys.size());
  for (int N = 2; N <= keys; ++N) {
    params.topN = N;
    curve.push_back(value_space_with(attention, values, headDim, params, &table));
  }
  return curve;
}

}  // namespace sinkscope::analysis
