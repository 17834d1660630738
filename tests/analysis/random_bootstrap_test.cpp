// The seeded generator and the bootstrap every pooled interval rests on.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "analysis/bootstrap.h"
#include "analysis/random.h"

using namespace sinkscope::analysis;

// The first outputs of the reference splitmix64.c (Vigna) seeded with 0.
TEST(SplitMix64, MatchesTheReferenceSequence) {
  SplitMix64 g(0);
  EXPECT_EQ(g(), 0xe220a8397b1dcdafull);
  EXPECT_EQ(g(), 0x6e789e6aa1b965f4ull);
  EXPECT_EQ(g(), 0x06c45d188009454full);
}

TEST(SplitMix64, MixIsTheOutputOfOneStep) {
  SplitMix64 g(41);
  EXPECT_EQ(g(), splitmix64_mix(41 + kSplitMix64Increment));
  EXPECT_NE(splitmix64_mix(1), splitmix64_mix(2));
}

TEST(Bootstrap, CountsSumToTheRecordsAndReproduceFromTheSeed) {
  for (std::size_t n : {1u, 2u, 13u, 500u}) {
    const std::vector<int> c = bootstrap_resample_counts(n, 1, 3);
    ASSERT_EQ(c.size(), n);
    EXPECT_EQ(std::accumulate(c.begin(), c.end(), 0), static_cast<int>(n));
    EXPECT_EQ(c, bootstrap_resample_counts(n, 1, 3));
  }
  EXPECT_NE(bootstrap_resample_counts(500, 1, 3), bootstrap_resample_counts(500, 1, 4));
  EXPECT_NE(bootstrap_resample_counts(500, 1, 3), bootstrap_resample_counts(500, 2, 3));
}

// Drawing n of n with replacement leaves a record out with probability
// (1 - 1/n)^n, close to 1/e; counts follow Binomial(n, 1/n), variance ~ 1.
TEST(Bootstrap, ResamplesAreUniformDrawsWithReplacement) {
  const std::size_t n = 1000;
  double zeros = 0, squares = 0, draws = 0;
  for (int b = 0; b < 200; ++b)
    for (int c : bootstrap_resample_counts(n, 7, b)) {
      zeros += c == 0;
      squares += static_cast<double>(c) * c;
      ++draws;
    }
  EXPECT_NEAR(zeros / draws, std::pow(1.0 - 1.0 / n, n), 0.005);
  EXPECT_NEAR(squares / draws - 1.0, 1.0 - 1.0 / n, 0.02);
}

// numpy.percentile's default ("linear") on the same values.
TEST(Bootstrap, PercentileIntervalInterpolatesBetweenOrderStatistics) {
  std::vector<double> v(101);
  std::iota(v.begin(), v.end(), 0.0);
  auto [lo, hi] = percentile_interval95(v);
  EXPECT_DOUBLE_EQ(lo, 2.5);
  EXPECT_DOUBLE_EQ(hi, 97.5);
  std::tie(lo, hi) = percentile_interval95({4, 1, 3, 2});  // order does not matter
  EXPECT_DOUBLE_EQ(lo, 1.075);
  EXPECT_DOUBLE_EQ(hi, 3.925);
  std::tie(lo, hi) = percentile_interval95({0.25});
  EXPECT_EQ(lo, 0.25);
  EXPECT_EQ(hi, 0.25);
  EXPECT_THROW(percentile_interval95({}), std::invalid_argument);
}
