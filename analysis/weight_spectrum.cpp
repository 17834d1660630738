#include "analysis/weight_spectrum.h"

#include <cblas.h>
#include <lapacke.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numbers>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "analysis/attention_matrix.h"
#include "analysis/head_analysis.h"

namespace sinkscope::analysis {


WeightSpectrum weight_spectrum_of(std::vector<double> eigenvalues, int rows, int cols) {
  WeightSpectrum s;
  s.rows = std::max(rows, cols);
  s.cols = std::min(rows, cols);
  for (double& e : eigenvalues) e = std::max(0.0, e);
  std::sort(eigenvalues.begin(), eigenvalues.end());
  s.eigenvalues = std::move(eigenvalues);
  s.sigma2 = s.eigenvalues.empty()
                 ? 0.0
                 : std::accumulate(s.eigenvalues.begin(), s.eigenvalues.end(), 0.0) / s.cols;
  s.ratio = static_cast<double>(s.cols) / s.rows;
  s.upperEdge = s.sigma2 * std::pow(1.0 + std::sqrt(s.ratio), 2.0);
  s.lowerEdge = s.sigma2 * std::pow(1.0 - std::sqrt(s.ratio), 2.0);
  for (double e : s.eigenvalues) s.outliers += e > s.upperEdge ? 1 : 0;
  return s;
}

WeightSpectrum weight_spectrum(std::span<const float> w, int rows, int cols) {
  if (rows <= 0 || cols <= 0 ||
      w.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols))
    throw std::invalid_argument("weight_spectrum: weights must be rows x cols");
  values_require_finite(w, "weight_spectrum");
  // Row-major rows x cols is column-major Wc = W^T (cols x rows, leading
  // dimension cols). The Gram matrix is taken over the longer side so that it
  // is n x n with n = min(rows, cols): W^T W = Wc Wc^T, or W W^T = Wc^T Wc.
  // BLAS's ssyrk (OpenBLAS's kernels for this CPU) writes its lower triangle,
  // at several times the rate of a generic product: at real model sizes
  // (8192 x 3072 MLP matrices) this is most of the spectra's time.
  const int m = std::max(rows, cols), n = std::min(rows, cols);
  std::vector<float> gram(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0.0f);
  cblas_ssyrk(CblasColMajor, CblasLower, rows >= cols ? CblasNoTrans : CblasTrans, n, m, 1.0f,
              w.data(), cols, 0.0f, gram.data(), n);
  std::vector<float> eig(static_cast<std::size_t>(n));
  // Column-major lower triangle = what LAPACK reads as 'L'.
  const lapack_int info =
      LAPACKE_ssyevd(LAPACK_COL_MAJOR, 'N', 'L', n, gram.data(), n, eig.data());
  if (info != 0)
    throw std::runtime_error("weight_spectrum: LAPACK ssyevd failed (info " +
                             std::to_string(info) + ")");
  std::vector<double> eigenvalues(eig.size());
  for (std::size_t k = 0; k < eig.size(); ++k) eigenvalues[k] = static_cast<double>(eig[k]) / m;
  return weight_spectrum_of(std::move(eigenvalues), rows, cols);
}

double marchenko_pastur_density(double x, double sigma2, double ratio) {
  const double lo = sigma2 * std::pow(1.0 - std::sqrt(ratio), 2.0),
               hi = sigma2 * std::pow(1.0 + std::sqrt(ratio), 2.0);
  if (x <= lo || x >= hi || x <= 0.0) return 0.0;
  return std::sqrt((hi - x) * (x - lo)) / (2.0 * std::numbers::pi * sigma2 * ratio * x);
}

}  // namespace sinkscope::analysis
