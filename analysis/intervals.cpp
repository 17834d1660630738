#include "analysis/intervals.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace sinkscope::analysis {

namespace {
constexpr double kZ = 1.959963984540054;  // the 97.5% normal quantile
// A rare outcome's between-sentence variance rests on the sentences that hold
// it; with fewer than this many it is not trusted (it underestimates).
constexpr int kFewestClustersForVariance = 5;
}  // namespace

ProportionInterval clopper_pearson(double x, double n, double confidence) {
  if (!(n > 0) || !(x >= 0) || x > n || !std::isfinite(n))
    throw std::invalid_argument("clopper_pearson: need 0 <= successes <= trials and trials > 0");
  if (!(confidence > 0.0 && confidence < 1.0))
    throw std::invalid_argument("clopper_pearson: the confidence must lie in (0, 1)");
  const double tail = (1.0 - confidence) / 2.0;
  ProportionInterval r;
  r.estimate = x / n;
  r.effectiveSize = n;
  r.lo = x > 0 ? boost::math::ibeta_inv(x, n - x + 1, tail) : 0.0;
  r.hi = x < n ? boost::math::ibeta_inv(x + 1, n - x, 1.0 - tail) : 1.0;
  return r;
}

ProportionInterval clopper_pearson95(double x, double n) { return clopper_pearson(x, n, 0.95); }

ProportionInterval clustered_proportion95(std::span<const double> successes,
                                          std::span<const double> trials) {
  if (successes.size() != trials.size())
    throw std::invalid_argument("clustered_proportion95: successes and trials differ in length");
  double X = 0.0, M = 0.0, M2 = 0.0;
  int clusters = 0, withSuccess = 0, withFailure = 0;
  for (std::size_t i = 0; i < trials.size(); ++i) {
    const double x = successes[i], m = trials[i];
    if (!(m >= 0) || !(x >= 0) || x > m || !std::isfinite(m))
      throw std::invalid_argument("clustered_proportion95: cluster " + std::to_string(i) +
                                  " has successes outside [0, trials]");
    if (m == 0) continue;
    X += x;
    M += m;
    M2 += m * m;
    ++clusters;
    withSuccess += x > 0 ? 1 : 0;
    withFailure += x < m ? 1 : 0;
  }
  if (clusters == 0) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {nan, nan, nan, 0.0};
  }
  const double p = std::min(1.0, X / M);
  double n = M * M / M2;  // Kish
  if (std::min(withSuccess, withFailure) >= kFewestClustersForVariance) {
    double ss = 0.0;
    for (std::size_t i = 0; i < trials.size(); ++i)
      if (trials[i] > 0) ss += (successes[i] - p * trials[i]) * (successes[i] - p * trials[i]);
    const double variance = ss / (M * M) * clusters / (clusters - 1.0);
    // Scaled for the few clusters V rests on, also where V is 0 (every
    // sentence alike), so that case is no narrower than its neighbours.
    const boost::math::students_t t(clusters - 1.0);
    const double ratio = kZ / boost::math::quantile(t, 0.975);
    n = (variance > 0.0 ? std::min(M, p * (1 - p) / variance) : M) * ratio * ratio;
  }
  return clopper_pearson95(p * n, n);
}

}  // namespace sinkscope::analysis
