#pragma once
// Weight spectra against the Marchenko-Pastur law (metrics.md section 9).
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

// `weights` is row-major rows x cols.
WeightSpectrum weight_spectrum(const std::vector<float>& weights, int rows, int cols);

// The Marchenko-Pastur density at x for the given variance and ratio (<= 1).
double marchenko_pastur_density(double x, double sigma2, double ratio);

}  // namespace sinkscope::analysis
