#include "analysis/graph_spectrum.h"

#include <lapacke.h>
#include <Eigen/Dense>
#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "analysis/ties.h"

namespace sinkscope::analysis {

double gini(const std::vector<double>& v) {
  if (v.empty()) return 0.0;
  double sum = 0.0, diff = 0.0;
  for (double a : v) {
    sum += a;
    for (double b : v) diff += std::abs(a - b);
  }
  if (sum <= 0.0) return 0.0;
  const double n = static_cast<double>(v.size());
  return diff / (2.0 * n * n * (sum / n));
}

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) throw std::invalid_argument("pearson: series of different lengths");
  const std::size_t n = x.size();
  const double undefined = std::numeric_limits<double>::quiet_NaN();
  if (n < 2) return undefined;
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  // Clamped: rounding can give 1 + 2e-16 for perfectly correlated series. A
  // constant series has no correlation: NaN (written empty, never 0).
  return (sxx > 0 && syy > 0) ? std::clamp(sxy / std::sqrt(sxx * syy), -1.0, 1.0) : undefined;
}

double threshold_effectiveness(const std::vector<GraphSpectrum>& layers) {
  if (layers.empty()) return 0.0;
  const auto effective = std::count_if(layers.begin(), layers.end(),
                                       [](const GraphSpectrum& g) { return g.effective; });
  return static_cast<double>(effective) / static_cast<double>(layers.size());
}

double fiedler_centralisation_correlation(const std::vector<GraphSpectrum>& graphs) {
  std::vector<double> fiedler, centralisation;
  for (const auto& g : graphs) {
    fiedler.push_back(g.fiedlerValue);
    centralisation.push_back(g.centralisation);
  }
  return pearson(fiedler, centralisation);
}

namespace {

// The thresholded graph of metrics.md s. 3, built once for both Laplacians.
struct ThresholdGraph {
  int n = 0;
  Eigen::MatrixXd W;  // (B + B^T) / 2: symmetric, zero diagonal
  Eigen::VectorXd degree;
  std::vector<int> inDegrees;  // of B
  int edges = 0;               // of B
  std::vector<int> component;  // of each token in W
  int components = 0;
};

ThresholdGraph threshold_graph(const AttentionView& a, double threshold) {
  ThresholdGraph g;
  const int n = g.n = a.size;
  g.W = Eigen::MatrixXd::Zero(n, n);
  g.inDegrees.assign(static_cast<std::size_t>(n), 0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const float w = a.at(i, j);
      if (i != j && reaches_threshold(w, threshold) && w > 0.0f) {
        g.W(i, j) += 0.5;
        g.W(j, i) += 0.5;
        ++g.inDegrees[static_cast<std::size_t>(j)];
        ++g.edges;
      }
    }
  g.degree = g.W.colwise().sum().transpose();
  // Components of W (Boost.Graph): exact where lambda_2 > 0 is a float comparison.
  boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS> graph(
      static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j)
    for (int i = j + 1; i < n; ++i)
      if (g.W(i, j) > 0)
        boost::add_edge(static_cast<std::size_t>(i), static_cast<std::size_t>(j), graph);
  g.component.resize(static_cast<std::size_t>(n));
  g.components = static_cast<int>(boost::connected_components(graph, g.component.data()));
  return g;
}

// The in-degree measures and connectivity, the same for both Laplacians.
void fill_structure(GraphSpectrum& s, const ThresholdGraph& g) {
  const int n = g.n;
  s.inDegrees = g.inDegrees;
  const int dMax = *std::max_element(g.inDegrees.begin(), g.inDegrees.end());
  if (n >= 2) {
    double spread = 0.0;
    for (int d : g.inDegrees) spread += dMax - d;
    s.centralisation = spread / ((n - 1.0) * (n - 1.0));
    s.starLikeness = dMax / (n - 1.0);
    s.density = g.edges / (static_cast<double>(n) * (n - 1.0));
  }
  s.starLikenessBlend = 0.3 * s.starLikeness +
                        0.7 * gini(std::vector<double>(g.inDegrees.begin(), g.inDegrees.end()));
  s.components = g.components;
  s.connected = g.components == 1;
  s.effective = s.connected && s.density >= 0.05 && s.density <= 0.95;
}

// 1 / sqrt(degree), 0 for isolated tokens (their row of the normalised Laplacian is 0).
double inverse_root(double degree) { return degree > 0 ? 1.0 / std::sqrt(degree) : 0.0; }

Eigen::MatrixXd laplacian(const ThresholdGraph& g, bool normalized) {
  if (!normalized) return Eigen::MatrixXd(g.degree.asDiagonal()) - g.W;
  const Eigen::VectorXd inv = g.degree.unaryExpr(&inverse_root);
  Eigen::MatrixXd L = -(inv.asDiagonal() * g.W * inv.asDiagonal());
  for (int i = 0; i < g.n; ++i) L(i, i) = g.degree(i) > 0 ? 1.0 : 0.0;
  return L;
}

// Eigenvalues of a symmetric matrix, ascending: Eigen's Householder
// tridiagonalisation, then LAPACK's root-free QR (dsterf), which is several
// times faster than Eigen's tridiagonal QR when no vectors are wanted and
// calls no BLAS (no OpenBLAS threads competing with the per-head workers).
std::vector<double> symmetric_eigenvalues(const Eigen::MatrixXd& A) {
  const Eigen::Tridiagonalization<Eigen::MatrixXd> tri(A);
  // Both are strided views into the packed matrix: copied out.
  Eigen::VectorXd diagonal = tri.diagonal();
  Eigen::VectorXd sub = tri.subDiagonal();
  if (LAPACKE_dsterf(static_cast<lapack_int>(diagonal.size()), diagonal.data(), sub.data()) != 0)
    throw std::runtime_error(
        "graph_spectrum: the tridiagonal eigenvalue iteration did not converge");
  return {diagonal.data(), diagonal.data() + diagonal.size()};  // ascending
}

// Tokens with identical rows of W ("twins": the leaves of a star, every
// isolated token) are interchangeable. A class of m twins is never adjacent
// within itself, so for twins u, v of degree d, e_u - e_v is an eigenvector of
// D - W with eigenvalue d (of the normalised Laplacian: 1, or 0 when isolated):
// m - 1 eigenvalues per class without a solver. The rest of the spectrum is
// that of L on the class indicators (an invariant subspace), the quotient
// Q(k,l) = sqrt(m_k m_l) L(r_k, r_l) for k != l and Q(k,k) = L(r_k, r_k) over
// representatives r, block-diagonal by connected component. A long input's
// graphs above a high threshold are mostly stars and isolated tokens, so the
// dense problems shrink from T to a handful of classes.
struct TwinClass {
  int representative = 0;
  int size = 0;
};

std::vector<std::vector<TwinClass>> twin_classes_by_component(const ThresholdGraph& g) {
  const int n = g.n;
  std::vector<std::uint64_t> hash(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {  // W is symmetric: column i is row i, contiguous
    std::uint64_t h = 1469598103934665603ull;
    const double* col = g.W.col(i).data();
    for (int j = 0; j < n; ++j)
      if (col[j] != 0.0)
        h = (h ^ (static_cast<std::uint64_t>(j) * 4 + (col[j] == 1.0))) * 1099511628211ull;
    hash[static_cast<std::size_t>(i)] = h;
  }
  const auto rowBytes = static_cast<std::size_t>(n) * sizeof(double);
  auto compare = [&](int u, int v) {
    if (hash[static_cast<std::size_t>(u)] != hash[static_cast<std::size_t>(v)])
      return hash[static_cast<std::size_t>(u)] < hash[static_cast<std::size_t>(v)] ? -1 : 1;
    return std::memcmp(g.W.col(u).data(), g.W.col(v).data(), rowBytes);
  };
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int u, int v) { return compare(u, v) < 0; });
  std::vector<std::vector<TwinClass>> byComponent(static_cast<std::size_t>(g.components));
  for (std::size_t k = 0; k < order.size();) {
    std::size_t end = k + 1;
    while (end < order.size() && compare(order[k], order[end]) == 0) ++end;
    const int r = order[k];
    byComponent[static_cast<std::size_t>(g.component[static_cast<std::size_t>(r)])].push_back(
        {r, static_cast<int>(end - k)});
    k = end;
  }
  return byComponent;
}

std::vector<double> laplacian_eigenvalues(const ThresholdGraph& g, bool normalized,
                                          const std::vector<std::vector<TwinClass>>& classes) {
  std::vector<double> values;
  values.reserve(static_cast<std::size_t>(g.n));
  auto diagonal = [&](int r) { return normalized ? (g.degree(r) > 0 ? 1.0 : 0.0) : g.degree(r); };
  auto weight = [&](int r, int s) {
    return normalized ? g.W(r, s) * inverse_root(g.degree(r)) * inverse_root(g.degree(s))
                      : g.W(r, s);
  };
  Eigen::MatrixXd Q;
  for (const auto& component : classes) {
    // Isolated tokens are one class, kept in its representative's component:
    // the other isolated tokens' components are empty here.
    const auto m = static_cast<int>(component.size());
    if (m == 0) continue;
    for (const TwinClass& c : component)
      values.insert(values.end(), static_cast<std::size_t>(c.size - 1), diagonal(c.representative));
    if (m == 1) {
      values.push_back(diagonal(component[0].representative));
      continue;
    }
    Q.resize(m, m);
    for (int k = 0; k < m; ++k) {
      const TwinClass& ck = component[static_cast<std::size_t>(k)];
      Q(k, k) = diagonal(ck.representative);
      for (int l = k + 1; l < m; ++l) {
        const TwinClass& cl = component[static_cast<std::size_t>(l)];
        Q(k, l) = Q(l, k) = -std::sqrt(static_cast<double>(ck.size) * cl.size) *
                            weight(ck.representative, cl.representative);
      }
    }
    const std::vector<double> v = symmetric_eigenvalues(Q);
    values.insert(values.end(), v.begin(), v.end());
  }
  std::sort(values.begin(), values.end());
  return values;
}

GraphSpectrum spectrum_of(const ThresholdGraph& g, double threshold, bool normalized, bool vectors,
                          const std::vector<std::vector<TwinClass>>* classes) {
  GraphSpectrum s;
  s.threshold = threshold;
  const int n = g.n;
  if (n == 0) return s;
  Eigen::MatrixXd eigenvectors;
  std::vector<double> values;
  if (vectors) {
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(laplacian(g, normalized));
    values.assign(solver.eigenvalues().data(), solver.eigenvalues().data() + n);  // ascending
    eigenvectors = solver.eigenvectors();
  } else {
    values = laplacian_eigenvalues(g, normalized, *classes);
  }
  for (double v : values) s.eigenvalues.push_back(std::abs(v) < 1e-12 ? 0.0 : v);
  if (n >= 2) s.fiedlerValue = s.eigenvalues[1];
  if (vectors) {
    if (n >= 2) {
      Eigen::VectorXd f = eigenvectors.col(1);
      for (int i = 0; i < n; ++i)
        if (std::abs(f(i)) > 1e-12) {
          if (f(i) < 0) f = -f;
          break;
        }
      s.fiedlerVector.assign(f.data(), f.data() + n);
    }
    s.embedding.assign(static_cast<std::size_t>(n), {0.0, 0.0, 0.0});
    for (int k = 1; k <= 3 && k < n; ++k)
      for (int i = 0; i < n; ++i)
        s.embedding[static_cast<std::size_t>(i)][static_cast<std::size_t>(k - 1)] =
            eigenvectors(i, k);
  }
  fill_structure(s, g);
  return s;
}

}  // namespace

GraphSpectrum graph_spectrum(const AttentionView& a, const GraphSpectrumParams& params) {
  attention_require_usable(a, "graph_spectrum");
  const ThresholdGraph g = threshold_graph(a, params.threshold);
  const auto classes =
      params.vectors ? std::vector<std::vector<TwinClass>>{} : twin_classes_by_component(g);
  return spectrum_of(g, params.threshold, params.normalized, params.vectors, &classes);
}

GraphSpectrumPair graph_spectrum_pair(const AttentionView& a, double threshold, bool vectors) {
  attention_require_usable(a, "graph_spectrum");
  const ThresholdGraph g = threshold_graph(a, threshold);
  const auto classes = twin_classes_by_component(g);
  return {spectrum_of(g, threshold, false, vectors, &classes),
          spectrum_of(g, threshold, true, false, &classes)};
}

}  // namespace sinkscope::analysis
