#include "analysis/graph_spectrum.h"

#include <Eigen/Dense>
#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>

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

GraphSpectrum graph_spectrum(const AttentionView& a, const GraphSpectrumParams& params) {
  attention_require_usable(a, "graph_spectrum");
  const int n = a.size;
  GraphSpectrum g;
  g.threshold = params.threshold;
  if (n == 0) return g;
  Eigen::MatrixXd B = Eigen::MatrixXd::Zero(n, n);
  int edges = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j && a.at(i, j) >= params.threshold && a.at(i, j) > 0.0f) {
        B(i, j) = 1.0;
        ++edges;
      }
  const Eigen::MatrixXd W = (B + B.transpose()) / 2.0;
  const Eigen::VectorXd degree = W.rowwise().sum();
  Eigen::MatrixXd L = Eigen::MatrixXd(degree.asDiagonal()) - W;
  if (params.normalized) {
    Eigen::VectorXd inv = Eigen::VectorXd::Zero(n);
    for (int i = 0; i < n; ++i) inv(i) = degree(i) > 0 ? 1.0 / std::sqrt(degree(i)) : 0.0;
    L = Eigen::MatrixXd::Zero(n, n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        L(i, j) = (i == j && degree(i) > 0 ? 1.0 : 0.0) - inv(i) * W(i, j) * inv(j);
  }
  // Eigen's solver, eigenvalues only where only they are shown. LAPACK's
  // dsyevd was tried (docs/performance.md): no faster at 64 tokens, 1.7x at
  // 1024 alone, but 4x slower inside analyze, where OpenBLAS's threads fight
  // the per-head workers for the two cores.
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(
      L, params.vectors ? Eigen::ComputeEigenvectors : Eigen::EigenvaluesOnly);
  const Eigen::VectorXd values = solver.eigenvalues();  // ascending
  for (int i = 0; i < n; ++i)
    g.eigenvalues.push_back(std::abs(values(i)) < 1e-12 ? 0.0 : values(i));
  if (n >= 2) g.fiedlerValue = g.eigenvalues[1];
  if (params.vectors) {
    const Eigen::MatrixXd vectors = solver.eigenvectors();
    if (n >= 2) {
      Eigen::VectorXd f = vectors.col(1);
      for (int i = 0; i < n; ++i)
        if (std::abs(f(i)) > 1e-12) {
          if (f(i) < 0) f = -f;
          break;
        }
      g.fiedlerVector.assign(f.data(), f.data() + n);
    }
    g.embedding.assign(static_cast<std::size_t>(n), {0.0, 0.0, 0.0});
    for (int k = 1; k <= 3 && k < n; ++k)
      for (int i = 0; i < n; ++i)
        g.embedding[static_cast<std::size_t>(i)][static_cast<std::size_t>(k - 1)] = vectors(i, k);
  }

  // In-degrees of B and the centralisation measures.
  g.inDegrees.assign(static_cast<std::size_t>(n), 0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) g.inDegrees[static_cast<std::size_t>(j)] += B(i, j) > 0 ? 1 : 0;
  const int dMax = *std::max_element(g.inDegrees.begin(), g.inDegrees.end());
  if (n >= 2) {
    double spread = 0.0;
    for (int d : g.inDegrees) spread += dMax - d;
    g.centralisation = spread / ((n - 1.0) * (n - 1.0));
    g.starLikeness = dMax / (n - 1.0);
    g.density = edges / (static_cast<double>(n) * (n - 1.0));
  }
  g.starLikenessBlend = 0.3 * g.starLikeness +
                        0.7 * gini(std::vector<double>(g.inDegrees.begin(), g.inDegrees.end()));

  // Components of W (Boost.Graph): exact where lambda_2 > 0 is a float comparison.
  boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS> graph(
      static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (W(i, j) > 0)
        boost::add_edge(static_cast<std::size_t>(i), static_cast<std::size_t>(j), graph);
  std::vector<int> component(static_cast<std::size_t>(n));
  g.components = static_cast<int>(boost::connected_components(graph, component.data()));
  g.connected = g.components == 1;
  g.effective = g.connected && g.density >= 0.05 && g.density <= 0.95;
  return g;
}

}  // namespace sinkscope::analysis
