#include "analysis/value_space.h"

#include "analysis/random.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <tuple>

#include "analysis/sinks.h"
#include "analysis/ties.h"

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

// ||v|| of a value vector, summed in double.
double value_norm(std::span<const float> v) {
  double s = 0;
  for (float x : v) s += static_cast<double>(x) * x;
  return std::sqrt(s);
}

// The median (the mean of the middle two for an even count); 0 when empty.
double median_of(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
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
  auto vnorm = [&](int k) { return value_norm(vec(keys[static_cast<std::size_t>(k)])); };
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

namespace {

// Subset s of the random baseline: the first `length` keys of the s-th seeded
// ordering of n keys (a Fisher-Yates shuffle with its own generator, so every
// subset is uniform and the prefixes of one ordering are nested over N).
void random_ordering(int n, std::uint64_t seed, int s, int length, std::vector<int>& order) {
  SplitMix64 rng(SplitMix64(seed)() ^ (0xd1b54a32d192ed03ull * (static_cast<std::uint64_t>(s) + 1)));
  order.resize(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  for (int k = 0; k < std::min(length, n - 1); ++k)
    std::swap(order[static_cast<std::size_t>(k)],
              order[static_cast<std::size_t>(k) + rng() % static_cast<std::size_t>(n - k)]);
}

// Mean and population standard deviation of the baseline's scores, in subset order.
void score_stats(const std::vector<SelectionScores>& random, SelectionScores& mean,
                 SelectionScores& sd) {
  auto stats = [&](auto field, double& m, double& s) {
    m = s = 0;
    if (random.empty()) return;
    for (const auto& x : random) m += field(x);
    m /= static_cast<double>(random.size());
    for (const auto& x : random) s += (field(x) - m) * (field(x) - m);
    s = std::sqrt(s / static_cast<double>(random.size()));
  };
  stats([](const SelectionScores& x) { return x.precision; }, mean.precision, sd.precision);
  stats([](const SelectionScores& x) { return x.recall; }, mean.recall, sd.recall);
  stats([](const SelectionScores& x) { return x.f; }, mean.f, sd.f);
}

SelectionScores scores_of(int inClosed, int selectedInClosed, int selectedInOpen, int N) {
  SelectionScores s;
  s.precision = inClosed > 0 ? static_cast<double>(selectedInClosed) / inClosed : 0.0;
  s.recall = static_cast<double>(selectedInOpen) / N;
  s.f = (s.precision + s.recall) > 0 ? 2 * s.precision * s.recall / (s.precision + s.recall) : 0.0;
  return s;
}

// How far apart two squared distances to s may lie and still be equal as real
// numbers: the tie tolerance relative to the largest terms they are computed
// from (||y_j||^2 and ||s||^2), since D_j itself may cancel to near zero.
double distance_tie(double largestNorm2, double sumNorm2) {
  return kTieTolerance * (largestNorm2 + sumNorm2);
}

// Precision in the closed ball of radius r_max, recall in the open ball of
// radius r_min (metrics.md s. 6), a distance within `tie` of a radius counting
// as equal to it, so float rounding never moves a key across a ball's edge.
template <class Selected>
SelectionScores ball_scores(const std::vector<double>& D, Selected selected, int N, double tie) {
  double dMax = 0.0, dMin = std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < D.size(); ++j) {
    if (selected(j))
      dMax = std::max(dMax, D[j]);
    else
      dMin = std::min(dMin, D[j]);
  }
  int inClosed = 0, selectedInClosed = 0, selectedInOpen = 0;
  for (std::size_t j = 0; j < D.size(); ++j) {
    if (D[j] <= dMax + tie) {
      ++inClosed;
      selectedInClosed += selected(j) ? 1 : 0;
    }
    if (selected(j) && D[j] < dMin - tie) ++selectedInOpen;
  }
  return scores_of(inClosed, selectedInClosed, selectedInOpen, N);
}

// The checks every entry point makes; the visible keys of the query.
int value_space_query(const AttentionView& a, std::span<const float> values, int headDim,
                      const ValueSpaceParams& p, std::vector<int>& keys) {
  const int T = a.size;
  attention_require_usable(a, "value_space");
  if (headDim < 1) throw std::invalid_argument("value_space: head_dim must be positive");
  if (values.size() != static_cast<std::size_t>(T) * static_cast<std::size_t>(headDim))
    throw std::invalid_argument("value_space: values must be T x head_dim");
  values_require_finite(values, "value_space");
  if (T == 0) return 0;
  const int query = p.query < 0 ? T - 1 : p.query;
  if (query >= T) throw std::out_of_range("value_space: query outside the sequence");
  for (int j = 0; j < T; ++j)
    if (a.visible(query, j)) keys.push_back(j);
  return query;
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
  double largest = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    largest = std::max(largest, norm2(y[j]));
    if (in[j]) {
      ++N;
      for (std::size_t k = 0; k < d; ++k) sum[k] += y[j][k];
    }
  }
  if (N == 0) return s;
  std::vector<double> D(n);
  for (std::size_t j = 0; j < n; ++j) D[j] = distance2(y[j], sum);
  return ball_scores(D, [&](std::size_t j) { return static_cast<bool>(in[j]); }, N,
                     distance_tie(largest, norm2(sum)));
}

namespace {

// The growing selection of one sweep: s = the sum of the selected
// contributions, kept as its dot products with every contribution (from the
// Gram matrix G) and its squared norm, so D_j = G_jj - 2 (y_j . s) + ||s||^2
// costs O(1) per key after each step. The random baseline runs K sweeps of T
// steps over T keys, so scoring is written without branches on membership
// (a random subset's membership defeats branch prediction) and as min/max and
// count reductions the compiler vectorises; both are exact in any order.
class GrowingSelection {
 public:
  explicit GrowingSelection(const Eigen::MatrixXd& gram)
      : G_(gram),
        diagonal_(static_cast<std::size_t>(gram.rows())),
        dot_(static_cast<std::size_t>(gram.rows()), 0.0),
        mark_(static_cast<std::size_t>(gram.rows()), kOut),
        D_(static_cast<std::size_t>(gram.rows()), 0.0) {
    for (std::size_t j = 0; j < diagonal_.size(); ++j) {
      diagonal_[j] = gram(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(j));
      largest_ = std::max(largest_, diagonal_[j]);
    }
  }

  // Back to the empty selection (one object serves every random subset).
  void reset() {
    std::fill(dot_.begin(), dot_.end(), 0.0);
    std::fill(mark_.begin(), mark_.end(), kOut);
    ss_ = 0.0;
    size_ = 0;
  }

  // AVX2 doubles the lanes where the CPU has it; the same operations in the
  // same order per key (no FMA), so the results do not depend on the CPU.
  __attribute__((target_clones("avx2", "default"))) void add(int e) {
    const double se = dot_[static_cast<std::size_t>(e)];
    const double* column = G_.col(e).data();
    double* dot = dot_.data();
    const std::size_t n = dot_.size();
#pragma omp simd
    for (std::size_t j = 0; j < n; ++j) dot[j] += column[j];
    ss_ += 2 * se + diagonal_[static_cast<std::size_t>(e)];
    mark_[static_cast<std::size_t>(e)] = kIn;
    ++size_;
  }

  // Fills the distances and returns the selection's scores (as ball_scores()).
  __attribute__((target_clones("avx2", "default"))) SelectionScores scores() {
    const std::size_t n = dot_.size();
    const double* diagonal = diagonal_.data();
    const double* dot = dot_.data();
    const double* mark = mark_.data();
    double* D = D_.data();
    const double ss = ss_;
    // min(D_j, mark_j) is D_j for a selected key and -inf otherwise;
    // max(D_j, mark_j) is D_j for an unselected key and +inf otherwise.
    double dMax = 0.0, dMin = kIn;
#pragma omp simd reduction(max : dMax) reduction(min : dMin)
    for (std::size_t j = 0; j < n; ++j) {
      const double d = diagonal[j] - 2 * dot[j] + ss;
      D[j] = d;
      const double inside = d < mark[j] ? d : mark[j];
      const double outside = d > mark[j] ? d : mark[j];
      dMax = dMax > inside ? dMax : inside;
      dMin = dMin < outside ? dMin : outside;
    }
    // Every selected key lies within the closed ball of radius r_max.
    const double t = tie(), closed = dMax + t, open = dMin - t;
    // Counted in doubles (exact below 2^53) so that the loop vectorises;
    // max(D_j, -mark_j) is D_j for a selected key and +inf otherwise.
    double inClosed = 0.0, selectedInOpen = 0.0;
#pragma omp simd reduction(+ : inClosed, selectedInOpen)
    for (std::size_t j = 0; j < n; ++j) {
      const double ifSelected = D[j] > -mark[j] ? D[j] : -mark[j];
      inClosed += D[j] <= closed ? 1.0 : 0.0;
      selectedInOpen += ifSelected < open ? 1.0 : 0.0;
    }
    return scores_of(static_cast<int>(inClosed), size_, static_cast<int>(selectedInOpen), size_);
  }

  // Two distances closer than this are equal (see distance_tie).
  double tie() const { return distance_tie(largest_, ss_); }

  const std::vector<double>& distances() const { return D_; }
  bool selected(int j) const { return mark_[static_cast<std::size_t>(j)] > 0; }
  // s_N . y_j for every key, and ||s_N||^2.
  const std::vector<double>& dots() const { return dot_; }
  double sumSquared() const { return ss_; }

 private:
  static constexpr double kIn = std::numeric_limits<double>::infinity(), kOut = -kIn;
  const Eigen::MatrixXd& G_;
  std::vector<double> diagonal_;  // G_jj, contiguous (the diagonal's stride is T + 1)
  std::vector<double> dot_;
  std::vector<double> mark_;  // kIn for a selected key, kOut for the others
  std::vector<double> D_;
  double ss_ = 0.0;
  double largest_ = 0.0;
  int size_ = 0;
};

}  // namespace

namespace {

// A head's value vectors by token, and their cosines.
struct ValueRows {
  std::span<const float> values;
  int headDim;
  std::span<const float> operator()(int j) const {
    return values.subspan(static_cast<std::size_t>(j) * headDim, static_cast<std::size_t>(headDim));
  }
  double cosineOf(int x, int z) const { return cosine((*this)(x), (*this)(z)); }
};

// Each visible key's contribution y_k = A[query][k] v_k.
std::vector<std::vector<double>> contributions(const AttentionView& a, const ValueSpace& r,
                                               const ValueRows& vec) {
  const auto n = r.keys.size();
  std::vector<std::vector<double>> y(n, std::vector<double>(static_cast<std::size_t>(vec.headDim)));
  for (std::size_t k = 0; k < n; ++k) {
    const double w = a.at(r.query, r.keys[k]);
    const auto v = vec(r.keys[k]);
    for (std::size_t c = 0; c < y[k].size(); ++c) y[k][c] = w * v[c];
  }
  return y;
}

// The top-N keys by weight (ties to the lower index): r.selected, and `in` per key.
std::vector<bool> select_top_n(const AttentionView& a, ValueSpace& r) {
  const int n = static_cast<int>(r.keys.size());
  const std::vector<int> order = descending_order_with_ties(
      n, [&](int k) { return a.at(r.query, r.keys[static_cast<std::size_t>(k)]); });
  std::vector<bool> in(static_cast<std::size_t>(n), false);
  for (int k = 0; k < r.topN; ++k) {
    in[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])] = true;
    r.selected.push_back(r.keys[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])]);
  }
  return in;
}

// s_N, every contribution's squared distance to it and the balls' radii;
// returns the largest squared distance of a selected key.
double aggregate_and_distances(const std::vector<std::vector<double>>& y,
                               const std::vector<bool>& in, ValueSpace& r) {
  const std::size_t n = y.size();
  r.sN.assign(y.front().size(), 0.0);
  for (std::size_t k = 0; k < n; ++k)
    if (in[k])
      for (std::size_t c = 0; c < r.sN.size(); ++c) r.sN[c] += y[k][c];
  r.distance2.resize(n);
  double dMax = 0.0, dMin = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < n; ++k) {
    const double D = distance2(y[k], r.sN);
    r.distance2[k] = D;
    if (in[k])
      dMax = std::max(dMax, D);
    else
      dMin = std::min(dMin, D);
  }
  r.rMax = std::sqrt(dMax);
  r.rMin = std::sqrt(dMin);
  return dMax;
}

// Inversions (D_j <= D_i counts equal distances within the tie) and the bounds they give.
void count_inversions(const std::vector<bool>& in, double tie, ValueSpace& r) {
  const std::size_t n = in.size();
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      if (in[i] && !in[j] && r.distance2[j] <= r.distance2[i] + tie) ++r.inversions;
  r.precisionBound = static_cast<double>(r.topN) / (r.topN + r.inversions);
  r.recallBound = 1.0 - static_cast<double>(r.inversions) / r.topN;
}

// Random baseline: K seeded subsets of size N, grown as the F_N curve grows
// them (value_space_curve), so both give the same numbers.
void random_baseline(const std::vector<std::vector<double>>& y, const ValueSpaceParams& p,
                     ValueSpace& r) {
  const int n = static_cast<int>(y.size());
  const int headDim = static_cast<int>(y.front().size());
  Eigen::MatrixXd Y(n, headDim);
  for (int k = 0; k < n; ++k)
    for (int c = 0; c < headDim; ++c)
      Y(k, c) = y[static_cast<std::size_t>(k)][static_cast<std::size_t>(c)];
  const Eigen::MatrixXd G = Y * Y.transpose();
  std::vector<SelectionScores> random;
  std::vector<int> idx;
  GrowingSelection subset(G);
  for (int s = 0; s < p.randomSubsets; ++s) {
    random_ordering(n, p.seed, s, r.topN, idx);
    subset.reset();
    for (int k = 0; k < r.topN; ++k) subset.add(idx[static_cast<std::size_t>(k)]);
    random.push_back(subset.scores());
  }
  score_stats(random, r.randomMean, r.randomStd);
}

// The sink's value vector against the others' (lambda, the norms' spread, the
// range of its cosines); returns the median norm of the non-sink values.
double sink_value_geometry(const ValueRows& vec, ValueSpace& r) {
  const int n = static_cast<int>(r.keys.size());
  std::vector<double> norms;
  for (int k = 1; k < n; ++k) norms.push_back(value_norm(vec(r.keys[static_cast<std::size_t>(k)])));
  const double median = median_of(norms);
  if (norms.empty()) return median;
  const auto v0 = vec(0);
  const double n0 = value_norm(v0);
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
  return median;
}

// Whether the sink is selected, and how coherent the other selected values are.
void selected_coherence(const ValueRows& vec, ValueSpace& r) {
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
      coherence.push_back(std::abs(vec.cosineOf(nonSinkSelected[x], nonSinkSelected[z])));
  if (!coherence.empty()) {
    r.coherenceMax = *std::max_element(coherence.begin(), coherence.end());
    r.coherence95 = percentile_linear(coherence, 95.0);
  }
}

// The sink's effect on the selection: its share of s_N and the turn it gives
// it when selected, whether it intrudes into the selected ball when not.
SinkSelectionDiagnostics sink_selection(const std::vector<std::vector<double>>& y,
                                        const std::vector<bool>& in, double dMax, double tie,
                                        const ValueSpace& r) {
  SinkSelectionDiagnostics d;
  const std::size_t n = y.size();
  d.selected = in[0];
  const std::vector<double>& y0 = y[0];
  std::vector<double> sPlus(y0.size(), 0.0);
  for (std::size_t k = 1; k < n; ++k)
    if (in[k])
      for (std::size_t c = 0; c < sPlus.size(); ++c) sPlus[c] += y[k][c];
  d.alignmentWithSelected = norm2(y0) > 0 && norm2(sPlus) > 0 ? cosine(y0, sPlus) : kNaN;
  if (d.selected) {
    const double sNorm = std::sqrt(norm2(r.sN));
    d.shareOfAggregate = sNorm > 0 ? std::sqrt(norm2(y0)) / sNorm : kNaN;
    d.directionChange = 1.0 - cosine(r.sN, minus(r.sN, y0));
    d.intrusion = d.invertedShare = kNaN;
  } else {
    d.shareOfAggregate = d.directionChange = kNaN;
    const double D0 = r.distance2[0];
    d.intrusion = D0 <= dMax + tie ? 1.0 : 0.0;
    int above = 0;
    for (std::size_t k = 0; k < n; ++k)
      if (in[k] && r.distance2[k] > D0 + tie) ++above;
    d.invertedShare = static_cast<double>(above) / r.topN;
  }
  return d;
}

// Leave-one-out margin: r_min against the farthest a selected key lies from
// the aggregate of the others.
double leave_one_out_margin(const std::vector<std::vector<double>>& y, const std::vector<bool>& in,
                            const ValueSpace& r) {
  double worstInside = 0.0;
  for (std::size_t k = 0; k < y.size(); ++k)
    if (in[k]) {
      const auto without = minus(r.sN, y[k]);
      worstInside = std::max(worstInside, std::sqrt(distance2(y[k], without)));
    }
  return r.rMin - worstInside;
}

// Values at least this wide (and four times wider than there are points)
// take the Gram matrix's eigenvectors for their PCA.
constexpr int kPcaGramMinHeadDim = 256;

// PCA of the contributions and s_N (2-D and 3-D, largest variance first).
void project_contributions(const std::vector<std::vector<double>>& y, ValueSpace& r) {
  const int n = static_cast<int>(y.size());
  const int headDim = static_cast<int>(r.sN.size());
  const int points = n + 1;
  Eigen::MatrixXd X(points, headDim);
  for (int k = 0; k < n; ++k)
    for (int c = 0; c < headDim; ++c)
      X(k, c) = y[static_cast<std::size_t>(k)][static_cast<std::size_t>(c)];
  for (int c = 0; c < headDim; ++c) X(n, c) = r.sN[static_cast<std::size_t>(c)];
  const Eigen::RowVectorXd mean = X.colwise().mean();
  const Eigen::MatrixXd centred = X.rowwise() - mean;
  // The axes: eigenvectors of the head_dim x head_dim scatter matrix, or,
  // for values much wider than there are points (a capture's head_dim of
  // thousands), of the points x points Gram matrix carried back through the
  // data (v = X^T u / |X^T u|): the same axes at a cost in the points.
  const bool wide = headDim > kPcaGramMinHeadDim && headDim > 4 * points;
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(
      wide ? Eigen::MatrixXd(centred * centred.transpose())
           : Eigen::MatrixXd(centred.transpose() * centred));
  const int order = wide ? points : headDim;
  Eigen::MatrixXd axes = Eigen::MatrixXd::Zero(headDim, 3);
  for (int c = 0; c < std::min(3, order); ++c) {
    Eigen::VectorXd v = solver.eigenvectors().col(order - 1 - c);  // largest variance first
    if (wide) {
      v = centred.transpose() * v;
      const double length = v.norm();
      if (!(length > 0)) continue;  // no variance left along any further axis
      v /= length;
    }
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
}

}  // namespace

ValueSpace value_space(const AttentionView& a, std::span<const float> values, int headDim,
                       const ValueSpaceParams& p) {
  ValueSpace r;
  r.query = value_space_query(a, values, headDim, p, r.keys);
  const int n = static_cast<int>(r.keys.size());
  if (n == 0) return r;
  r.topN = std::clamp(p.topN, 1, n);
  const ValueRows vec{values, headDim};
  const std::vector<std::vector<double>> y = contributions(a, r, vec);
  const std::vector<bool> in = select_top_n(a, r);
  const double dMax = aggregate_and_distances(y, in, r);
  r.scores = selection_scores(y, in);
  double largest = 0.0;
  for (const auto& yk : y) largest = std::max(largest, norm2(yk));
  const double tie = distance_tie(largest, norm2(r.sN));
  count_inversions(in, tie, r);
  if (p.randomSubsets > 0) random_baseline(y, p, r);
  const double median = sink_value_geometry(vec, r);
  selected_coherence(vec, r);
  // The sink-aware certificate and the sink's effect on the selection.
  std::vector<double> weight(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k)
    weight[static_cast<std::size_t>(k)] = a.at(r.query, r.keys[static_cast<std::size_t>(k)]);
  r.sinkBound = sink_aware_bound(
      r.keys, in, weight, vec, [&vec](int x, int z) { return vec.cosineOf(x, z); }, median, r.topN);
  r.sink = sink_selection(y, in, dMax, tie, r);
  r.looMargin = leave_one_out_margin(y, in, r);
  if (p.projections) project_contributions(y, r);
  return r;
}

namespace {

// The number of pairs (a, b), a from `left` and b from the ascending `right`, with a + b <= limit.
int pairs_at_most(const std::vector<double>& left, const std::vector<double>& sortedRight,
                  double limit) {
  int count = 0;
  for (double x : left)
    count += static_cast<int>(std::upper_bound(sortedRight.begin(), sortedRight.end(), limit - x) -
                              sortedRight.begin());
  return count;
}

}  // namespace

namespace {

// The leave-one-out control of the selection `top` (A.5) from the Gram
// matrix G of the contributions: with d_k = s_N . y_k, s_{N,-i} . y_i = d_i - G_ii,
// ||s_{N,-i}||^2 = ||s_N||^2 - 2 d_i + G_ii and ||y_i - s_{N,-i}||^2 =
// 4 G_ii - 4 d_i + ||s_N||^2. A cosine needs two nonzero vectors; s_{N,-i}
// shorter than 1e-6 of its parts counts as zero (that subtraction's rounding
// must not make up a direction).
void leave_one_out_point(const GrowingSelection& top, const Eigen::MatrixXd& G,
                         ValueSpaceCurvePoint& pt) {
  constexpr double kZeroShare = 1e-12;  // of the squared norms, so 1e-6 of the length
  const std::vector<double>& dot = top.dots();
  const std::vector<double>& D = top.distances();
  const double ss = top.sumSquared();
  const auto n = static_cast<int>(dot.size());
  double worstInside = 0.0, nearestOutside = std::numeric_limits<double>::infinity();
  double insideSum = 0.0, outsideSum = 0.0;
  int insideCount = 0, outsideCount = 0, positive = 0;
  for (int k = 0; k < n; ++k) {
    const double yy = G(k, k), d = dot[static_cast<std::size_t>(k)];
    if (top.selected(k)) {
      worstInside = std::max(worstInside, std::sqrt(std::max(0.0, 4 * yy - 4 * d + ss)));
      const double rest = ss - 2 * d + yy;  // ||s_{N,-i}||^2
      if (!(yy > 0) || rest <= kZeroShare * (ss + yy)) continue;
      const double c = (d - yy) / (std::sqrt(yy) * std::sqrt(rest));
      insideSum += c;
      ++insideCount;
      if (c > 1e-9) ++positive;
    } else {
      nearestOutside =
          std::min(nearestOutside, std::sqrt(std::max(0.0, D[static_cast<std::size_t>(k)])));
      if (!(yy > 0) || !(ss > 0)) continue;
      outsideSum += d / (std::sqrt(yy) * std::sqrt(ss));
      ++outsideCount;
    }
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  pt.looMargin = nearestOutside - worstInside;
  pt.looAlignmentMargin = insideCount > 0 && outsideCount > 0
                              ? insideSum / insideCount - outsideSum / outsideCount
                              : nan;
  pt.positiveLooShare = insideCount > 0 ? static_cast<double>(positive) / insideCount : nan;
}

// The sink diagnostics of one N from the Gram matrix (as sink_selection()
// computes them from vectors), with d_0 = y_0 . s_N and ss = ||s_N||^2:
// s_N . (s_N - y_0) = ss - d_0, ||s_N - y_0||^2 = ss - 2 d_0 + G_00. A
// difference shorter than 1e-6 of its parts counts as zero, as in
// leave_one_out_point().
void sink_point(const GrowingSelection& top, const Eigen::MatrixXd& G, int N,
                SinkSelectionDiagnostics& d) {
  constexpr double kZeroShare = 1e-12;
  const std::vector<double>& D = top.distances();
  const double ss = top.sumSquared(), d0 = top.dots()[0], g00 = G(0, 0);
  d.selected = top.selected(0);
  d.shareOfAggregate = d.directionChange = d.intrusion = d.invertedShare = kNaN;
  // s_N+ = s_N less y_0 when the sink is selected.
  const double plusDot = d.selected ? d0 - g00 : d0;
  const double plusNorm2 = d.selected ? ss - 2 * d0 + g00 : ss;
  const bool plusNonZero = d.selected ? plusNorm2 > kZeroShare * (ss + g00) : ss > 0;
  d.alignmentWithSelected =
      g00 > 0 && plusNonZero ? plusDot / (std::sqrt(g00) * std::sqrt(plusNorm2)) : kNaN;
  if (d.selected) {
    d.shareOfAggregate = ss > 0 ? std::sqrt(g00) / std::sqrt(ss) : kNaN;
    // 1 - cos(s_N, s_N+), with cos = 0 where s_N+ is zero (as cosine() reads it).
    d.directionChange =
        1.0 - (ss > 0 && plusNonZero ? (ss - d0) / (std::sqrt(ss) * std::sqrt(plusNorm2)) : 0.0);
    return;
  }
  const double tie = top.tie();
  double dMax = 0.0;
  for (std::size_t k = 0; k < D.size(); ++k)
    if (top.selected(static_cast<int>(k))) dMax = std::max(dMax, D[k]);
  const double D0 = D[0];
  d.intrusion = D0 <= dMax + tie ? 1.0 : 0.0;
  int above = 0;
  for (std::size_t k = 0; k < D.size(); ++k)
    if (top.selected(static_cast<int>(k)) && D[k] > D0 + tie) ++above;
  d.invertedShare = static_cast<double>(above) / N;
}

// cos(s_N, v_k) and ||s_N - y_k|| / ||s_N|| of the key at index k (-1: not
// visible) from the Gram matrix: s_N . y_k = d_k, so cos(s_N, v_k) = d_k /
// (||s_N|| ||y_k||) (y_k = a_k v_k, a_k > 0; NaN when a_k or v_k is zero, the
// direction then unseen in contribution space) and ||s_N - y_k||^2 = ss - 2 d_k + G_kk.
std::pair<double, double> privileged_key(const GrowingSelection& top, const Eigen::MatrixXd& G,
                                         int k) {
  const double ss = top.sumSquared();
  if (k < 0 || !(ss > 0)) return {kNaN, kNaN};
  const double d = top.dots()[static_cast<std::size_t>(k)], g = G(k, k);
  const double cosine = g > 0 ? d / (std::sqrt(ss) * std::sqrt(g)) : kNaN;
  const double removed =
      top.selected(k) ? std::sqrt(std::max(0.0, ss - 2 * d + g)) / std::sqrt(ss) : 1.0;
  return {cosine, removed};
}

}  // namespace

ValueSpaceCurve value_space_curve(const AttentionView& a, std::span<const float> values,
                                  int headDim, const ValueSpaceParams& p) {
  ValueSpaceCurve curve;
  std::vector<int> keys;
  curve.query = value_space_query(a, values, headDim, p, keys);
  const int n = static_cast<int>(keys.size());
  if (n == 0) return curve;
  const auto d = static_cast<Eigen::Index>(headDim);
  auto vec = [&](int k) {
    return values.subspan(static_cast<std::size_t>(keys[static_cast<std::size_t>(k)]) * headDim,
                          static_cast<std::size_t>(headDim));
  };
  std::vector<double> weight(static_cast<std::size_t>(n)), vnorm(static_cast<std::size_t>(n));
  Eigen::MatrixXd V(n, d), Y(n, d);
  for (int k = 0; k < n; ++k) {
    const double w = a.at(curve.query, keys[static_cast<std::size_t>(k)]);
    weight[static_cast<std::size_t>(k)] = w;
    const auto v = vec(k);
    for (Eigen::Index c = 0; c < d; ++c) {
      const double x = v[static_cast<std::size_t>(c)];
      V(k, c) = x;
      Y(k, c) = w * x;
    }
    vnorm[static_cast<std::size_t>(k)] = value_norm(v);
  }
  const Eigen::MatrixXd G = Y * Y.transpose();
  // Cosines of the value vectors (the sink-aware bound's coherence and alignment).
  Eigen::MatrixXd C = V * V.transpose();
  for (int x = 0; x < n; ++x)
    for (int z = 0; z < n; ++z) {
      const double xx = vnorm[static_cast<std::size_t>(x)], zz = vnorm[static_cast<std::size_t>(z)];
      C(x, z) = (xx > 0 && zz > 0) ? C(x, z) / (xx * zz) : 0.0;
    }

  // The sink-aware bound's fixed parts (as sink_aware_bound above).
  const double median = median_of(std::vector<double>(vnorm.begin() + 1, vnorm.end()));
  const double scale = median > 0 ? median : 1.0;
  std::vector<double> beta(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k)
    beta[static_cast<std::size_t>(k)] =
        weight[static_cast<std::size_t>(k)] * vnorm[static_cast<std::size_t>(k)] / scale;
  double nuMinus = 0.0, nuPlus = 0.0;
  if (n > 1) {
    double cosMax = -1.0, cosMin = 1.0;
    for (int k = 1; k < n; ++k) {
      cosMax = std::max(cosMax, C(0, k));
      cosMin = std::min(cosMin, C(0, k));
    }
    nuMinus = -cosMax;
    nuPlus = -cosMin;
  }
  const double b0 = beta[0];
  constexpr double kSlack = 1e-12;  // as in sink_aware_bound

  // The query's own key (the current token), when it sees itself.
  const auto self = std::find(keys.begin(), keys.end(), curve.query);
  const int current = self == keys.end() ? -1 : static_cast<int>(self - keys.begin());

  // The top-N sweep (ties to the lower index, as value_space()).
  const std::vector<int> order =
      descending_order_with_ties(n, [&](int k) { return weight[static_cast<std::size_t>(k)]; });
  GrowingSelection top(G);
  double aPlus = 0.0, mu = 0.0;
  std::vector<double> outside, inside, P, Q;
  curve.points.resize(static_cast<std::size_t>(n));
  for (int N = 1; N <= n; ++N) {
    const int e = order[static_cast<std::size_t>(N - 1)];
    top.add(e);
    ValueSpaceCurvePoint& pt = curve.points[static_cast<std::size_t>(N - 1)];
    pt.topN = N;
    pt.scores = top.scores();
    const std::vector<double>& D = top.distances();
    outside.clear();
    inside.clear();
    for (int j = 0; j < n; ++j)
      (top.selected(j) ? inside : outside).push_back(D[static_cast<std::size_t>(j)]);
    std::sort(outside.begin(), outside.end());
    // Inversions: pairs (selected i, unselected j) with D_j <= D_i.
    int inv = 0;
    for (double Di : inside)
      inv += static_cast<int>(std::upper_bound(outside.begin(), outside.end(), Di + top.tie()) -
                              outside.begin());
    pt.inversions = inv;
    pt.precisionBound = static_cast<double>(N) / (N + inv);
    pt.recallBound = 1.0 - static_cast<double>(inv) / N;
    pt.sinkSelected = top.selected(0) && keys[0] == 0;

    // K_N^sink: the bound L_ij of every selected/unselected pair, as in sink_aware_bound.
    if (e > 0) {
      aPlus += beta[static_cast<std::size_t>(e)];
      for (int q = 1; q < n; ++q)
        if (q != e) mu = std::max(mu, std::abs(C(e, q)));
    }
    const bool sinkIn = top.selected(0);
    const double sigma = sinkIn ? 1.0 : 0.0, ap = aPlus;
    int count = 0;
    P.clear();
    Q.clear();
    for (int k = 1; k < n; ++k) {
      const double bk = beta[static_cast<std::size_t>(k)];
      if (top.selected(k)) {
        if (!sinkIn) {  // the unselected sink against this selected key
          const double L = bk * bk + b0 * b0 - 2 * mu * bk * (ap - bk) + 2 * b0 * nuMinus * ap;
          if (L <= kSlack * (1.0 + bk * bk + b0 * b0)) ++count;
        }
        // For two non-sink keys L_ij = P_i + Q_j, and the slack splits the same way.
        P.push_back(bk * bk - 2 * mu * bk * (ap - bk) - 2 * sigma * b0 * nuPlus * bk -
                    kSlack * bk * bk);
      } else {
        if (sinkIn) {  // the selected sink against this unselected key
          const double L = b0 * b0 + bk * bk - 2 * b0 * nuPlus * ap + 2 * bk * b0 * nuMinus -
                           2 * mu * bk * ap;
          if (L <= kSlack * (1.0 + b0 * b0 + bk * bk)) ++count;
        }
        Q.push_back(bk * bk - 2 * mu * bk * ap + 2 * sigma * b0 * nuMinus * bk - kSlack * bk * bk);
      }
    }
    std::sort(Q.begin(), Q.end());
    pt.sinkAwareCount = count + pairs_at_most(P, Q, kSlack);
    leave_one_out_point(top, G, pt);
    std::tie(pt.privileged.sinkCosine, pt.privileged.sinkRemovedNorm) =
        privileged_key(top, G, keys[0] == 0 ? 0 : -1);
    std::tie(pt.privileged.currentCosine, pt.privileged.currentRemovedNorm) =
        privileged_key(top, G, current);
    if (keys[0] == 0) {
      sink_point(top, G, N, pt.sink);
    } else {
      pt.sink.shareOfAggregate = pt.sink.directionChange = pt.sink.intrusion =
          pt.sink.invertedShare = pt.sink.alignmentWithSelected = kNaN;
    }
  }

  // The random baseline: each seeded ordering grows one key per step.
  const int K = std::max(0, p.randomSubsets);
  std::vector<std::vector<SelectionScores>> random(
      static_cast<std::size_t>(n), std::vector<SelectionScores>(static_cast<std::size_t>(K)));
  std::vector<int> ordering;
  GrowingSelection subset(G);
  for (int s = 0; s < K; ++s) {
    random_ordering(n, p.seed, s, n, ordering);
    subset.reset();
    for (int N = 1; N <= n; ++N) {
      subset.add(ordering[static_cast<std::size_t>(N - 1)]);
      random[static_cast<std::size_t>(N - 1)][static_cast<std::size_t>(s)] = subset.scores();
    }
  }
  for (int N = 1; N <= n; ++N) {
    ValueSpaceCurvePoint& pt = curve.points[static_cast<std::size_t>(N - 1)];
    score_stats(random[static_cast<std::size_t>(N - 1)], pt.randomMean, pt.randomStd);
  }
  return curve;
}

}  // namespace sinkscope::analysis
