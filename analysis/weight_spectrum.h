#pragma once
// Weight spectra against the Marchenko-Pastur law (metrics.md section 9).
#include <span>
#include <string>
#include <vector>

namespace sinkscope::analysis {

struct WeightSpectrum {
  int rows = 0, cols = 0;           // m x n with m >= n (the matrix is transposed if needed)
  std::vector<double> eigenvalues;  // of W^T W / m, ascending
  double sigma2 = 0.0;              // fitted variance: the mean eigenvalue
  double ratio = 0.0;               // n / m
  double upperEdge = 0.0;           // sigma2 (1 + sqrt(ratio))^2
  double lowerEdge = 0.0;           // sigma2 (1 - sqrt(ratio))^2
  int outliers = 0;                 // eigenvalues above the upper bulk edge
};

// `weights` is row-major rows x cols. The Gram matrix and its eigenvalues are
// computed in float (LAPACK's ssyevd through OpenBLAS): single precision is
// what the weights carry, and it halves the work.
WeightSpectrum weight_spectrum(std::span<const float> weights, int rows, int cols);

// The spectrum's fitted quantities from eigenvalues of W^T W / m (any order).
WeightSpectrum weight_spectrum_of(std::vector<double> eigenvalues, int rows, int cols);

// The Marchenko-Pastur density at x for the given variance and ratio (<= 1).
double marchenko_pastur_density(double x, double sigma2, double ratio);

// One weight matrix of a model, as a view (models::WeightMatrix holds the values).
struct WeightMatrixView {
  int layer = 0;
  std::string name;  // "q", "k", ...
  int rows = 0, cols = 0;
  std::span<const float> values;  // row-major rows x cols
};

}  // namespace sinkscope::analysis
