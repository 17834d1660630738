// Intervals of pooled proportions: Clopper-Pearson's closed forms, and the coverage of
// the clustered interval by simulation (the one property that matters, where
// a percentile bootstrap collapses to a point at 0 and 1).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "analysis/intervals.h"

using namespace sinkscope::analysis;

TEST(Intervals, ClopperPearsonHasItsClosedFormsAndBracketsTheEstimate) {
  // None of n: the upper bound solves (1 - p)^n = 0.025; all of n: p^n = 0.025.
  for (double n : {1.0, 9.0, 30.0, 500.0}) {
    EXPECT_NEAR(clopper_pearson95(0, n).hi, 1 - std::pow(0.025, 1 / n), 1e-12) << n;
    EXPECT_EQ(clopper_pearson95(0, n).lo, 0.0);
    EXPECT_NEAR(clopper_pearson95(n, n).lo, std::pow(0.025, 1 / n), 1e-12) << n;
    EXPECT_EQ(clopper_pearson95(n, n).hi, 1.0);
  }
  // One of two: the bounds solve 1 - (1 - p)^2 = 0.025 and p^2 = 0.975.
  EXPECT_NEAR(clopper_pearson95(1, 2).lo, 1 - std::sqrt(0.975), 1e-12);
  EXPECT_NEAR(clopper_pearson95(1, 2).hi, std::sqrt(0.975), 1e-12);
  for (double x : {0.5, 3.0, 7.25})
    EXPECT_TRUE(clopper_pearson95(x, 10).lo < x / 10 && x / 10 < clopper_pearson95(x, 10).hi);
  EXPECT_THROW(clopper_pearson95(3, 2), std::invalid_argument);
  EXPECT_THROW(clopper_pearson95(0, 0), std::invalid_argument);
}

TEST(Intervals, ClusteredIntervalNeverCollapsesAtTheBoundary) {
  // Every sentence at 0 (or 1): the interval still has width, that of one
  // trial per sentence (Kish's n with equal sizes is the sentence count).
  const std::vector<double> none(30, 0.0), all(30, 12.0), trials(30, 12.0);
  const ProportionInterval z = clustered_proportion95(none, trials);
  EXPECT_EQ(z.estimate, 0.0);
  EXPECT_EQ(z.lo, 0.0);
  EXPECT_NEAR(z.hi, 1 - std::pow(0.025, 1 / 30.0), 1e-12);
  EXPECT_NEAR(z.effectiveSize, 30.0, 1e-9);
  const ProportionInterval o = clustered_proportion95(all, trials);
  EXPECT_EQ(o.hi, 1.0);
  EXPECT_NEAR(o.lo, std::pow(0.025, 1 / 30.0), 1e-12);
  // Unequal sentences: Kish's n = (sum m)^2 / sum m^2.
  const ProportionInterval k =
      clustered_proportion95(std::vector<double>{0, 0, 0}, std::vector<double>{1, 2, 3});
  EXPECT_NEAR(k.effectiveSize, 36.0 / 14.0, 1e-12);
  // Every sentence alike inside (0, 1): no between-sentence variance, n = the
  // trial count, scaled as every estimated n is by (z / t_4)^2.
  const ProportionInterval same =
      clustered_proportion95(std::vector<double>(5, 3.0), std::vector<double>(5, 12.0));
  const double t4 = 2.7764451051977987;  // the 97.5% quantile of Student's t with 4 degrees
  EXPECT_NEAR(same.effectiveSize, 60.0 * std::pow(1.959963984540054 / t4, 2), 1e-6);
  EXPECT_NEAR(same.estimate, 0.25, 1e-15);
  // Empty sentences are left out; none at all gives NaN; bad counts are refused.
  EXPECT_TRUE(std::isnan(clustered_proportion95(std::vector<double>{0.0}, std::vector<double>{0.0}).lo));
  EXPECT_THROW(clustered_proportion95(std::vector<double>{3.0}, std::vector<double>{2.0}),
               std::invalid_argument);
  EXPECT_THROW(clustered_proportion95(std::vector<double>{1.0}, std::vector<double>{1.0, 2.0}),
               std::invalid_argument);
}

TEST(Intervals, ClusteredIntervalCoversAtItsNominalRateInSimulation) {
  // 30 sentences of 1 to 40 trials (queries, heads), each sentence with its
  // own rate drawn from a Beta of mean p and intra-sentence correlation rho:
  // the pooled proportion's interval must cover p about 95% of the time,
  // including p at and next to 0 and 1, where the percentile bootstrap's
  // [p, p] covered 66%.
  std::mt19937_64 rng(2026);
  const int replicates = 4000, sentences = 30;
  // One trial per sentence (a head's share of sentences with a sink) is the
  // plain binomial case.
  for (int mostTrials : {1, 40})
  for (double rho : {0.0, 0.1, 0.4})
    for (double p : {0.0, 0.003, 0.02, 0.2, 0.5, 0.9, 0.99, 1.0}) {
      if (mostTrials == 1 && rho > 0) continue;
      int covered = 0;
      for (int r = 0; r < replicates; ++r) {
        std::vector<double> x(sentences), m(sentences);
        for (int i = 0; i < sentences; ++i) {
          const int trials = 1 + static_cast<int>(rng() % static_cast<unsigned>(mostTrials));
          double q = p;
          if (rho > 0 && p > 0 && p < 1) {
            const double k = (1 - rho) / rho;
            std::gamma_distribution<double> ga(p * k, 1.0), gb((1 - p) * k, 1.0);
            const double u = ga(rng), v = gb(rng);
            q = u + v > 0 ? u / (u + v) : p;
          }
          std::binomial_distribution<int> b(trials, q);
          m[static_cast<std::size_t>(i)] = trials;
          x[static_cast<std::size_t>(i)] = b(rng);
        }
        const ProportionInterval w = clustered_proportion95(x, m);
        covered += (w.lo <= p && p <= w.hi) ? 1 : 0;
      }
      const double coverage = static_cast<double>(covered) / replicates;
      std::printf("trials 1..%d, rho %.1f, p %.3f: coverage %.4f\n", mostTrials, rho, p, coverage);
      EXPECT_GE(coverage, 0.92) << "rho " << rho << ", p " << p;
    }
}
