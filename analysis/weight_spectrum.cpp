#include "analysis/weight_spectrum.h"

#include "analysis/attention_matrix.h"

#include <Eigen/Dense>
#include <cmath>
#include <numbers>
#include <numeric>
#include <stdexcept>

namespace sinkscope::analysis {

WeightSpectrum weight_spectrum(const std::vector<float>& w, int rows, int cols) {
  if (rows <= 0 || cols <= 0 ||
      w.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols))
    throw std::invalid_argument("weight_spectrum: weights must be rows x cols");
  values_require_finite(w, "weight_spectrum");
  Eigen::MatrixXd W(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) W(r, c) = w[static_cast<std::size_t>(r) * cols + c];
  if (rows < cols) W.transposeInPlace();
  WeightSpectrum s;
  s.rows = static_cast<int>(W.rows());
  s.cols = static_cast<int>(W.cols());
  const Eigen::MatrixXd gram = W.transpose() * W / static_cast<double>(s.rows);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(gram, Eigen::EigenvaluesOnly);
  for (int i = 0; i < s.cols; ++i) s.eigenvalues.push_back(std::max(0.0, solver.eigenvalues()(i)));
  s.sigma2 = std::accumulate(s.eigenvalues.begin(), s.eigenvalues.end(), 0.0) / s.cols;
  s.ratio = static_cast<double>(s.cols) / s.rows;
  s.upperEdge = s.sigma2 * std::pow(1.0 + std::sqrt(s.ratio), 2.0);
  s.lowerEdge = s.sigma2 * std::pow(1.0 - std::sqrt(s.ratio), 2.0);
  for (double e : s.eigenvalues) s.outliers += e > s.upperEdge ? 1 : 0;
  return s;
}

double marchenko_pastur_density(double x, double sigma2, double ratio) {
  const double lo = sigma2 * std::pow(1.0 - std::sqrt(ratio), 2.0),
               hi = sigma2 * std::pow(1.0 + std::sqrt(ratio), 2.0);
  if (x <= lo || x >= hi || x <= 0.0) return 0.0;
  return std::sqrt((hi - x) * (x - lo)) / (2.0 * std::numbers::pi * sigma2 * ratio * x);
}

}  // namespace sinkscope::analysis
