// Value-space geometry (metrics.md s. 6): closed forms and the bounds that
// must hold on every input.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "analysis/value_space.h"

using namespace sinkscope::analysis;

TEST(ValueSpace, OrthogonalValuesSeparatePerfectly) {
  // Query 3 of a causal map: [0.5, 0.3, 0.1, 0.1]; values are the basis vectors.
  AttentionMatrix a{std::vector<float>(16, 0.0f), 4, true};
  a.weights[0] = 1;
  a.weights[4] = 0.5f, a.weights[5] = 0.5f;
  a.weights[8] = 0.3f, a.weights[9] = 0.3f, a.weights[10] = 0.4f;
  a.weights[12] = 0.5f, a.weights[13] = 0.3f, a.weights[14] = 0.1f, a.weights[15] = 0.1f;
  std::vector<float> v(16, 0.0f);
  for (int j = 0; j < 4; ++j) v[static_cast<std::size_t>(j * 4 + j)] = 1.0f;
  const ValueSpace s = value_space(a.view(), v, 4, {2, -1, 16, 7});
  EXPECT_EQ(s.selected, (std::vector<int>{0, 1}));
  EXPECT_NEAR(s.distance2[0], 0.09, 1e-7);
  EXPECT_NEAR(s.distance2[1], 0.25, 1e-7);
  EXPECT_NEAR(s.distance2[2], 0.35, 1e-7);
  EXPECT_NEAR(s.rMax, 0.5, 1e-7);
  EXPECT_NEAR(s.rMin, std::sqrt(0.35), 1e-7);
  EXPECT_DOUBLE_EQ(s.scores.precision, 1.0);
  EXPECT_DOUBLE_EQ(s.scores.recall, 1.0);
  EXPECT_DOUBLE_EQ(s.scores.f, 1.0);
  EXPECT_EQ(s.inversions, 0);
  EXPECT_TRUE(s.sinkSelected);
  EXPECT_DOUBLE_EQ(s.lambda, 1.0);
  EXPECT_DOUBLE_EQ(s.normCv, 0.0);
  EXPECT_GT(s.looMargin, 0.0);
  EXPECT_EQ(s.pca2.size(), 5u) << "four contributions and s_N";
}

TEST(ValueSpace, AnUnselectedKeyAtTheCentreIsAnInversion) {
  // Query 2: [0.4, 0.4, 0.2]; y_2 = 0.2 * (2, 2) = s_N exactly.
  AttentionMatrix a{{1, 0, 0, .5f, .5f, 0, .4f, .4f, .2f}, 3, true};
  const std::vector<float> v{1, 0, 0, 1, 2, 2};
  const ValueSpace s = value_space(a.view(), v, 2, {2, -1, 8, 7});
  EXPECT_EQ(s.selected, (std::vector<int>{0, 1})) << "ties go to the lower index";
  EXPECT_NEAR(s.distance2[2], 0.0, 1e-12);
  EXPECT_NEAR(s.scores.precision, 2.0 / 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(s.scores.recall, 0.0);
  EXPECT_DOUBLE_EQ(s.scores.f, 0.0);
  EXPECT_EQ(s.inversions, 2);
  EXPECT_DOUBLE_EQ(s.precisionBound, 0.5);
  EXPECT_DOUBLE_EQ(s.recallBound, 0.0);
  EXPECT_LT(s.looMargin, 0.0);
}

TEST(ValueSpace, InversionBoundsHoldOnEveryInput) {
  std::mt19937 rng(11);
  std::normal_distribution<float> g(0.0f, 1.0f);
  for (int trial = 0; trial < 300; ++trial) {
    const int T = 3 + static_cast<int>(rng() % 14), d = 1 + static_cast<int>(rng() % 6);
    AttentionMatrix a{std::vector<float>(static_cast<std::size_t>(T * T), 0.0f), T, true};
    for (int i = 0; i < T; ++i) {
      float z = 0;
      for (int j = 0; j <= i; ++j)
        z += (a.weights[static_cast<std::size_t>(i * T + j)] = std::exp(2.0f * g(rng)));
      for (int j = 0; j <= i; ++j) a.weights[static_cast<std::size_t>(i * T + j)] /= z;
    }
    std::vector<float> v(static_cast<std::size_t>(T * d));
    for (auto& x : v) x = g(rng);
    for (int N = 1; N <= T; ++N) {
      const ValueSpace s = value_space(a.view(), v, d, {N, -1, 4, 7});
      ASSERT_GE(s.scores.precision + 1e-12, s.precisionBound) << trial << " N " << N;
      ASSERT_GE(s.scores.recall + 1e-12, s.recallBound) << trial << " N " << N;
      ASSERT_GE(s.scores.f, 0.0);
      ASSERT_LE(s.scores.f, 1.0);
    }
  }
}

TEST(ValueSpace, RandomBaselineIsSeeded) {
  AttentionMatrix a = attention_uniform(10, true);
  std::vector<float> v(30);
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = std::sin(static_cast<float>(k));
  const ValueSpace x = value_space(a.view(), v, 3, {3, -1, 64, 7}),
                   y = value_space(a.view(), v, 3, {3, -1, 64, 7});
  EXPECT_EQ(x.randomMean.f, y.randomMean.f);
  EXPECT_GE(x.randomStd.f, 0.0);
  const ValueSpace z = value_space(a.view(), v, 3, {3, -1, 64, 8});
  EXPECT_TRUE(z.randomMean.f != x.randomMean.f || z.randomStd.f != x.randomStd.f);
}
