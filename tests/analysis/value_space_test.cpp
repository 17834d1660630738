// Value-space geometry (metrics.md s. 6): closed forms and the bounds that
// must hold on every input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <tuple>

#include "analysis/value_directions.h"
#include "analysis/value_space.h"

using namespace sinkscope::analysis;

namespace {

// A causal map of three tokens whose last query weighs keys 0, 1, 2 with w0, w1, w2.
AttentionMatrix three_keys(float w0, float w1, float w2) {
  AttentionMatrix a{std::vector<float>(9, 0.0f), 3, true};
  a.weights[0] = 1;
  a.weights[3] = 0.5f, a.weights[4] = 0.5f;
  a.weights[6] = w0, a.weights[7] = w1, a.weights[8] = w2;
  return a;
}

}  // namespace

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

TEST(ValueSpace, BoundsHoldOnTenThousandRandomInstances) {
  // Random causal maps (some with a strong first-token sink), random values
  // (some with a small sink value, some with near-parallel non-sink values),
  // random query and N: the inversion bounds, A_N <= K_N^sink and the sink-aware
  // bounds must hold on every one, and the projections must be finite.
  std::mt19937 rng(11);
  std::normal_distribution<float> g(0.0f, 1.0f);
  int sinkSelected = 0, withInversions = 0, certified = 0;
  for (int instance = 0; instance < 10000; ++instance) {
    const int T = 1 + static_cast<int>(rng() % 24), d = 1 + static_cast<int>(rng() % 8);
    const float sinkLogit = (rng() % 2) ? 4.0f : 0.0f;
    AttentionMatrix a{std::vector<float>(static_cast<std::size_t>(T * T), 0.0f), T, true};
    for (int i = 0; i < T; ++i) {
      float z = 0;
      for (int j = 0; j <= i; ++j)
        z += (a.weights[static_cast<std::size_t>(i * T + j)] =
                  std::exp(2.0f * g(rng) + (j == 0 ? sinkLogit : 0.0f)));
      for (int j = 0; j <= i; ++j) a.weights[static_cast<std::size_t>(i * T + j)] /= z;
    }
    std::vector<float> v(static_cast<std::size_t>(T * d));
    const bool parallel = rng() % 3 == 0;
    std::vector<float> common(static_cast<std::size_t>(d));
    for (auto& x : common) x = g(rng);
    for (int j = 0; j < T; ++j)
      for (int c = 0; c < d; ++c)
        v[static_cast<std::size_t>(j * d + c)] =
            (parallel ? common[static_cast<std::size_t>(c)] + 0.1f * g(rng) : g(rng)) *
            (j == 0 && sinkLogit > 0 ? 0.2f : 1.0f);
    const int query = static_cast<int>(rng() % static_cast<unsigned>(T));
    const int N = 1 + static_cast<int>(rng() % static_cast<unsigned>(query + 1));
    const ValueSpace s = value_space(a.view(), v, d, {N, query, 4, 7});
    const std::string what = "instance " + std::to_string(instance);
    ASSERT_EQ(s.topN, N) << what;
    ASSERT_GE(s.scores.precision + 1e-12, s.precisionBound) << what;
    ASSERT_GE(s.scores.recall + 1e-12, s.recallBound) << what;
    ASSERT_LE(s.inversions, s.sinkBound.count) << what;
    ASSERT_GE(s.scores.precision + 1e-12, s.sinkBound.precisionBound) << what;
    ASSERT_GE(s.scores.recall + 1e-12, s.sinkBound.recallBound) << what;
    ASSERT_GE(s.scores.f, 0.0) << what;
    ASSERT_LE(s.scores.f, 1.0) << what;
    ASSERT_EQ(s.pca3.size(), s.keys.size() + 1) << what;
    for (const auto& row : s.pca3)
      for (double x : row) ASSERT_TRUE(std::isfinite(x)) << what;
    sinkSelected += s.sink.selected ? 1 : 0;
    withInversions += s.inversions > 0 ? 1 : 0;
    certified += s.sinkBound.count == 0 ? 1 : 0;
  }
  // The instances must exercise every branch of the bound.
  EXPECT_GT(sinkSelected, 1000);
  EXPECT_LT(sinkSelected, 9000);
  EXPECT_GT(withInversions, 500);
  EXPECT_GT(certified, 500);
}

TEST(ValueSpace, SinkAwareCountByHand) {
  // Query 2 sees weights [0.4, 0.3, 0.3]; v_0 = e1, v_1 = v_2 = e2. C = 1,
  // lambda = 1, beta = weights, mu = 1, nu- = nu+ = 0. N = 2 selects {0, 1}
  // (tie to the lower index); A_+ = 0.3. Pair (1, 2): L = 0.09 + 0.09 -
  // 2 (0 + 0.3 * 0.3) = 0 -> counted; pair (0, 2): L = 0.16 + 0.09 - 2 * 0.3 *
  // 0.3 = 0.07 -> not. The same y_1 = y_2 is a real inversion: A_N = 1.
  AttentionMatrix a = three_keys(0.4f, 0.3f, 0.3f);
  const std::vector<float> v{1, 0, 0, 1, 0, 1};
  const ValueSpace s = value_space(a.view(), v, 2, {2, -1, 4, 7});
  EXPECT_EQ(s.selected, (std::vector<int>{0, 1}));
  EXPECT_DOUBLE_EQ(s.sinkBound.scale, 1.0);
  EXPECT_NEAR(s.sinkBound.beta0, 0.4, 1e-7);
  EXPECT_NEAR(s.sinkBound.aPlus, 0.3, 1e-7);
  EXPECT_NEAR(s.sinkBound.mu, 1.0, 1e-12);
  EXPECT_NEAR(s.sinkBound.nuMinus, 0.0, 1e-12);
  EXPECT_NEAR(s.sinkBound.nuPlus, 0.0, 1e-12);
  EXPECT_EQ(s.inversions, 1);
  EXPECT_EQ(s.sinkBound.count, 1);
  EXPECT_DOUBLE_EQ(s.sinkBound.precisionBound, 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(s.sinkBound.recallBound, 0.5);
  // The sink is selected: y_0 = (0.4, 0), s_N = (0.4, 0.3), s_N - y_0 = (0, 0.3).
  EXPECT_TRUE(s.sink.selected);
  EXPECT_NEAR(s.sink.shareOfAggregate, 0.8, 1e-7);
  EXPECT_NEAR(s.sink.directionChange, 1.0 - 0.6, 1e-7);
  EXPECT_NEAR(s.sink.alignmentWithSelected, 0.0, 1e-12);
  EXPECT_TRUE(std::isnan(s.sink.intrusion));
}

TEST(ValueSpace, UnselectedSinkIntrusion) {
  // Weights [0.2, 0.4, 0.4]; v_0 = (1, 1), v_1 = (1, 0), v_2 = (0, 1). N = 2 selects
  // {1, 2}: s_N = (0.4, 0.4), D_1 = D_2 = 0.16 + 0 = 0.16; y_0 = (0.2, 0.2), D_0 = 0.08
  // <= r_max^2 = 0.16: the unselected sink intrudes, both selected keys lie beyond it.
  AttentionMatrix a = three_keys(0.2f, 0.4f, 0.4f);
  const std::vector<float> v{1, 1, 1, 0, 0, 1};
  const ValueSpace s = value_space(a.view(), v, 2, {2, -1, 4, 7});
  EXPECT_EQ(s.selected, (std::vector<int>{1, 2}));
  EXPECT_FALSE(s.sink.selected);
  EXPECT_DOUBLE_EQ(s.sink.intrusion, 1.0);
  EXPECT_DOUBLE_EQ(s.sink.invertedShare, 1.0);
  EXPECT_TRUE(std::isnan(s.sink.shareOfAggregate));
  EXPECT_NEAR(s.sink.alignmentWithSelected, 1.0, 1e-7);
  EXPECT_EQ(s.inversions, 2);
  EXPECT_GE(s.sinkBound.count, 2);
}

TEST(ValueSpace, CurveCoversEveryN) {
  AttentionMatrix a = attention_uniform(6, true);
  std::vector<float> v(18);
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = std::cos(static_cast<float>(k));
  const auto curve = value_space_curve(a.view(), v, 3, {1, 3, 16, 7});
  EXPECT_EQ(curve.query, 3);
  ASSERT_EQ(curve.points.size(), 4u);  // query 3 sees keys 0..3
  for (int N = 1; N <= 4; ++N) EXPECT_EQ(curve.points[static_cast<std::size_t>(N - 1)].topN, N);
  // Selecting every key: recall and precision are 1.
  EXPECT_DOUBLE_EQ(curve.points.back().scores.f, 1.0);
  // N beyond the visible keys selects them all.
  EXPECT_EQ(value_space(a.view(), v, 3, {50, 3, 4, 7}).topN, 4);
}

TEST(ValueSpace, RejectsNonFiniteInput) {
  AttentionMatrix a = attention_uniform(4, true);
  std::vector<float> v(8, 1.0f);
  v[5] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW(value_space(a.view(), v, 2), std::invalid_argument);
  v[5] = 1.0f;
  a.weights[5] = std::numeric_limits<float>::infinity();
  EXPECT_THROW(value_space(a.view(), v, 2), std::invalid_argument);
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

namespace {

// A random causal map (a first-token sink in half of them) and random values,
// some near-parallel: the instances of the bound test above.
struct RandomHead {
  AttentionMatrix a;
  std::vector<float> v;
  int d = 0;
};

RandomHead random_head(std::mt19937& rng, int T, int d) {
  std::normal_distribution<float> g(0.0f, 1.0f);
  RandomHead h{{std::vector<float>(static_cast<std::size_t>(T * T), 0.0f), T, true}, {}, d};
  const float sinkLogit = (rng() % 2) ? 4.0f : 0.0f;
  for (int i = 0; i < T; ++i) {
    float z = 0;
    for (int j = 0; j <= i; ++j)
      z += (h.a.weights[static_cast<std::size_t>(i * T + j)] =
                std::exp(2.0f * g(rng) + (j == 0 ? sinkLogit : 0.0f)));
    for (int j = 0; j <= i; ++j) h.a.weights[static_cast<std::size_t>(i * T + j)] /= z;
  }
  const bool parallel = rng() % 3 == 0;
  std::vector<float> common(static_cast<std::size_t>(d));
  for (auto& x : common) x = g(rng);
  h.v.resize(static_cast<std::size_t>(T * d));
  for (int j = 0; j < T; ++j)
    for (int c = 0; c < d; ++c)
      h.v[static_cast<std::size_t>(j * d + c)] =
          (parallel ? common[static_cast<std::size_t>(c)] + 0.1f * g(rng) : g(rng)) *
          (j == 0 && sinkLogit > 0 ? 0.2f : 1.0f);
  return h;
}

}  // namespace

TEST(ValueSpace, CurveEqualsTheDirectComputationAtEveryN) {
  // The one-sweep curve against value_space() at each N, which computes every
  // distance, inversion, bound and random subset from scratch (the O(T^3)
  // implementation the curve replaced): the same counts and scores.
  std::mt19937 rng(5);
  int points = 0, withInversions = 0, withSinkCount = 0, sinkSelectedPoints = 0, sinkUnselected = 0;
  for (int instance = 0; instance < 300; ++instance) {
    const int T = 1 + static_cast<int>(rng() % 40), d = 1 + static_cast<int>(rng() % 12);
    const RandomHead h = random_head(rng, T, d);
    const int query = static_cast<int>(rng() % static_cast<unsigned>(T));
    const ValueSpaceParams params{1, query, 8, 3 + static_cast<std::uint64_t>(instance), false};
    const ValueSpaceCurve curve = value_space_curve(h.a.view(), h.v, d, params);
    ASSERT_EQ(curve.query, query);
    ASSERT_EQ(curve.points.size(), static_cast<std::size_t>(query + 1));
    for (const ValueSpaceCurvePoint& c : curve.points) {
      ValueSpaceParams at = params;
      at.topN = c.topN;
      const ValueSpace s = value_space(h.a.view(), h.v, d, at);
      const std::string what =
          "instance " + std::to_string(instance) + ", N = " + std::to_string(c.topN);
      ASSERT_EQ(c.scores.precision, s.scores.precision) << what;
      ASSERT_EQ(c.scores.recall, s.scores.recall) << what;
      ASSERT_EQ(c.scores.f, s.scores.f) << what;
      ASSERT_EQ(c.inversions, s.inversions) << what;
      ASSERT_EQ(c.precisionBound, s.precisionBound) << what;
      ASSERT_EQ(c.recallBound, s.recallBound) << what;
      ASSERT_EQ(c.sinkAwareCount, s.sinkBound.count) << what;
      ASSERT_EQ(c.sinkSelected, s.sinkSelected) << what;
      // The sink diagnostics from the Gram matrix against value_space()'s vectors.
      ASSERT_EQ(c.sink.selected, s.sink.selected) << what;
      ASSERT_EQ(std::isnan(c.sink.intrusion), std::isnan(s.sink.intrusion)) << what;
      if (!std::isnan(s.sink.intrusion)) {
        ASSERT_EQ(c.sink.intrusion, s.sink.intrusion) << what;
        ASSERT_EQ(c.sink.invertedShare, s.sink.invertedShare) << what;
        ++sinkUnselected;
      }
      for (auto [x, y] : {std::pair{c.sink.shareOfAggregate, s.sink.shareOfAggregate},
                          {c.sink.directionChange, s.sink.directionChange},
                          {c.sink.alignmentWithSelected, s.sink.alignmentWithSelected}}) {
        ASSERT_EQ(std::isnan(x), std::isnan(y)) << what << ": " << x << " vs " << y;
        if (!std::isnan(y)) {
          ASSERT_NEAR(x, y, 1e-9 * (1 + std::abs(y))) << what;
        }
      }
      sinkSelectedPoints += c.sink.selected;
      if (std::isinf(s.looMargin))
        ASSERT_EQ(c.looMargin, s.looMargin) << what;
      else
        ASSERT_NEAR(c.looMargin, s.looMargin, 1e-9 * (1 + std::abs(s.looMargin))) << what;
      for (auto [x, y] : {std::pair{c.randomMean.precision, s.randomMean.precision},
                          {c.randomMean.recall, s.randomMean.recall},
                          {c.randomMean.f, s.randomMean.f},
                          {c.randomStd.precision, s.randomStd.precision},
                          {c.randomStd.recall, s.randomStd.recall},
                          {c.randomStd.f, s.randomStd.f}})
        ASSERT_NEAR(x, y, 1e-12) << what;
      ++points;
      withInversions += c.inversions > 0;
      withSinkCount += c.sinkAwareCount > 0;
    }
  }
  EXPECT_GT(points, 3000);
  EXPECT_GT(withInversions, 300);
  EXPECT_GT(withSinkCount, 300);
  EXPECT_GT(sinkSelectedPoints, 300);
  EXPECT_GT(sinkUnselected, 300);
}

// The leave-one-out alignment of the curve (A.5, Fig. 8) against the
// definition computed here with explicit vectors: s_{N,-i} summed without y_i,
// cosines of vectors, the means and the share of positive ones.
TEST(ValueSpace, LeaveOneOutAlignmentFollowsItsDefinitionAtEveryN) {
  std::mt19937 rng(17);
  int defined = 0, mixedShares = 0;
  for (int instance = 0; instance < 200; ++instance) {
    const int T = 2 + static_cast<int>(rng() % 30), d = 1 + static_cast<int>(rng() % 10);
    const RandomHead h = random_head(rng, T, d);
    const int query = 1 + static_cast<int>(rng() % static_cast<unsigned>(T - 1));
    const ValueSpaceCurve curve = value_space_curve(h.a.view(), h.v, d, {1, query, 0, 1, false});
    const int n = query + 1;
    std::vector<std::vector<double>> y(static_cast<std::size_t>(n), std::vector<double>(d));
    std::vector<int> order(static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j) {
      order[static_cast<std::size_t>(j)] = j;
      for (int c = 0; c < d; ++c)
        y[static_cast<std::size_t>(j)][static_cast<std::size_t>(c)] =
            static_cast<double>(h.a.weights[static_cast<std::size_t>(query * T + j)]) *
            h.v[static_cast<std::size_t>(j * d + c)];
    }
    std::stable_sort(order.begin(), order.end(), [&](int x, int z) {
      return h.a.weights[static_cast<std::size_t>(query * T + x)] >
             h.a.weights[static_cast<std::size_t>(query * T + z)];
    });
    auto cosine = [d](const std::vector<double>& u, const std::vector<double>& w) {
      double uw = 0, uu = 0, ww = 0;
      for (int c = 0; c < d; ++c) {
        uw += u[static_cast<std::size_t>(c)] * w[static_cast<std::size_t>(c)];
        uu += u[static_cast<std::size_t>(c)] * u[static_cast<std::size_t>(c)];
        ww += w[static_cast<std::size_t>(c)] * w[static_cast<std::size_t>(c)];
      }
      return uw / std::sqrt(uu * ww);
    };
    for (int N = 1; N <= n; ++N) {
      const std::vector<int> selected(order.begin(), order.begin() + N);
      std::vector<bool> in(static_cast<std::size_t>(n), false);
      std::vector<double> sN(static_cast<std::size_t>(d), 0.0);
      for (int k : selected) {
        in[static_cast<std::size_t>(k)] = true;
        for (int c = 0; c < d; ++c)
          sN[static_cast<std::size_t>(c)] +=
              y[static_cast<std::size_t>(k)][static_cast<std::size_t>(c)];
      }
      double inside = 0, outside = 0;
      int insideCount = 0, outsideCount = 0, positive = 0;
      for (int k = 0; k < n; ++k) {
        if (in[static_cast<std::size_t>(k)]) {
          if (N == 1) continue;  // s_{1,-i} is the zero vector
          std::vector<double> rest(static_cast<std::size_t>(d), 0.0);
          for (int m : selected)
            if (m != k)
              for (int c = 0; c < d; ++c)
                rest[static_cast<std::size_t>(c)] +=
                    y[static_cast<std::size_t>(m)][static_cast<std::size_t>(c)];
          const double cs = cosine(y[static_cast<std::size_t>(k)], rest);
          inside += cs;
          ++insideCount;
          positive += cs > 0;
        } else {
          outside += cosine(y[static_cast<std::size_t>(k)], sN);
          ++outsideCount;
        }
      }
      const ValueSpaceCurvePoint& pt = curve.points[static_cast<std::size_t>(N - 1)];
      const std::string what =
          "instance " + std::to_string(instance) + ", N = " + std::to_string(N);
      // The sink's and the current token's trajectories (Fig. 4b): cos(s_N, v_k) with the
      // value vector itself, and ||s_N - y_k|| / ||s_N|| with y_k left out of the sum.
      double sNorm = 0;
      for (double x : sN) sNorm += x * x;
      sNorm = std::sqrt(sNorm);
      for (const auto& [k, cosineOf, removedOf] :
           {std::tuple{0, pt.privileged.sinkCosine, pt.privileged.sinkRemovedNorm},
            std::tuple{query, pt.privileged.currentCosine, pt.privileged.currentRemovedNorm}}) {
        std::vector<double> v(static_cast<std::size_t>(d)), left = sN;
        for (int c = 0; c < d; ++c) {
          v[static_cast<std::size_t>(c)] = h.v[static_cast<std::size_t>(k * d + c)];
          if (in[static_cast<std::size_t>(k)])
            left[static_cast<std::size_t>(c)] -=
                y[static_cast<std::size_t>(k)][static_cast<std::size_t>(c)];
        }
        double leftNorm = 0;
        for (double x : left) leftNorm += x * x;
        EXPECT_NEAR(cosineOf, cosine(sN, v), 1e-9) << what << ", key " << k;
        EXPECT_NEAR(removedOf, std::sqrt(leftNorm) / sNorm,
                    1e-9 * (1 + std::sqrt(leftNorm) / sNorm))
            << what << ", key " << k;
      }
      if (insideCount == 0) {
        EXPECT_TRUE(std::isnan(pt.positiveLooShare)) << what;
        EXPECT_TRUE(std::isnan(pt.looAlignmentMargin)) << what;
        continue;
      }
      EXPECT_DOUBLE_EQ(pt.positiveLooShare, static_cast<double>(positive) / insideCount) << what;
      mixedShares += positive > 0 && positive < insideCount;
      if (outsideCount == 0) {
        EXPECT_TRUE(std::isnan(pt.looAlignmentMargin)) << what;
        continue;
      }
      EXPECT_NEAR(pt.looAlignmentMargin, inside / insideCount - outside / outsideCount, 1e-9)
          << what;
      ++defined;
    }
  }
  EXPECT_GT(defined, 1000);
  EXPECT_GT(mixedShares, 100) << "the shares must not all be 0 or 1";
}

// Closed forms: two selected keys along one direction align fully (share 1);
// opposite ones not at all (share 0).
TEST(ValueSpace, LeaveOneOutAlignmentOfParallelAndOppositeKeys) {
  AttentionMatrix a = three_keys(0.5f, 0.3f, 0.2f);
  // Keys 0 and 1 along e1 (same sign), key 2 along e2.
  std::vector<float> v{1, 0, 2, 0, 0, 1};
  ValueSpaceCurve c = value_space_curve(a.view(), v, 2, {1, 2, 0, 1, false});
  ASSERT_EQ(c.points.size(), 3u);
  EXPECT_TRUE(std::isnan(c.points[0].positiveLooShare)) << "N = 1: no leave-one-out aggregate";
  EXPECT_DOUBLE_EQ(c.points[1].positiveLooShare, 1.0);
  // N = 2: cos(y_i, s_{2,-i}) = 1 for both; the unselected e2 key is orthogonal to s_2.
  EXPECT_NEAR(c.points[1].looAlignmentMargin, 1.0, 1e-12);
  EXPECT_TRUE(std::isnan(c.points[2].looAlignmentMargin)) << "N = 3: no unselected key";
  v = {1, 0, -2, 0, 0, 1};  // key 1 opposite to key 0
  c = value_space_curve(a.view(), v, 2, {1, 2, 0, 1, false});
  EXPECT_DOUBLE_EQ(c.points[1].positiveLooShare, 0.0);
  // cos = -1 for both selected keys; s_2 = 0.5 e1 - 0.6 e1 = -0.1 e1, e2 orthogonal.
  EXPECT_NEAR(c.points[1].looAlignmentMargin, -1.0, 1e-12);
}

// Closed forms of the sink's and the current token's trajectories: keys 0
// and 1 along e1, the query's own key 2 along e2, weights 0.5, 0.3, 0.2.
TEST(ValueSpace, PrivilegedKeysByHand) {
  AttentionMatrix a = three_keys(0.5f, 0.3f, 0.2f);
  const std::vector<float> v{1, 0, 2, 0, 0, 1};
  const ValueSpaceCurve c = value_space_curve(a.view(), v, 2, {1, 2, 0, 1, false});
  ASSERT_EQ(c.points.size(), 3u);
  const double tol = 1e-6;  // the weights are floats
  // N = 1: s = 0.5 e1, the sink's contribution alone.
  EXPECT_NEAR(c.points[0].privileged.sinkCosine, 1.0, tol);
  EXPECT_NEAR(c.points[0].privileged.currentCosine, 0.0, tol);
  EXPECT_NEAR(c.points[0].privileged.sinkRemovedNorm, 0.0, tol);
  EXPECT_EQ(c.points[0].privileged.currentRemovedNorm, 1.0) << "the current token is not selected";
  // N = 2: s = 1.1 e1.
  EXPECT_NEAR(c.points[1].privileged.sinkRemovedNorm, 0.6 / 1.1, tol);
  EXPECT_EQ(c.points[1].privileged.currentRemovedNorm, 1.0);
  // N = 3: s = 1.1 e1 + 0.2 e2.
  const double s = std::sqrt(1.25);
  EXPECT_NEAR(c.points[2].privileged.sinkCosine, 1.1 / s, tol);
  EXPECT_NEAR(c.points[2].privileged.currentCosine, 0.2 / s, tol);
  EXPECT_NEAR(c.points[2].privileged.sinkRemovedNorm, std::sqrt(0.36 + 0.04) / s, tol);
  EXPECT_NEAR(c.points[2].privileged.currentRemovedNorm, 1.1 / s, tol);
}

TEST(ValueSpace, RandomBaselineDrawsUniformSubsets) {
  // Eight keys, N = 3: the baseline's mean F over many seeded subsets against
  // the exact mean over all 56 subsets (selection_scores of each), within five
  // standard errors; the curve's subsets at N = 3 are the same draws.
  std::mt19937 rng(9);
  const RandomHead h = random_head(rng, 8, 4);
  const int n = 8, N = 3, K = 6000;
  std::vector<std::vector<double>> y(n, std::vector<double>(4));
  for (int j = 0; j < n; ++j)
    for (int c = 0; c < 4; ++c)
      y[static_cast<std::size_t>(j)][static_cast<std::size_t>(c)] =
          static_cast<double>(h.a.weights[static_cast<std::size_t>(7 * n + j)]) *
          h.v[static_cast<std::size_t>(j * 4 + c)];
  double sum = 0, sum2 = 0;
  int subsets = 0;
  for (int mask = 0; mask < (1 << n); ++mask) {
    if (__builtin_popcount(static_cast<unsigned>(mask)) != N) continue;
    std::vector<bool> in(n);
    for (int j = 0; j < n; ++j) in[static_cast<std::size_t>(j)] = (mask >> j) & 1;
    const double f = selection_scores(y, in).f;
    sum += f;
    sum2 += f * f;
    ++subsets;
  }
  ASSERT_EQ(subsets, 56);
  const double mean = sum / subsets, sd = std::sqrt(sum2 / subsets - mean * mean);
  const ValueSpace s = value_space(h.a.view(), h.v, 4, {N, 7, K, 7, false});
  EXPECT_NEAR(s.randomMean.f, mean, 5 * sd / std::sqrt(K) + 1e-12);
  EXPECT_NEAR(s.randomStd.f, sd, 0.05 * sd + 1e-12);
  const ValueSpaceCurve curve = value_space_curve(h.a.view(), h.v, 4, {N, 7, K, 7, false});
  EXPECT_NEAR(curve.points[N - 1].randomMean.f, s.randomMean.f, 1e-12);
}

namespace {

// A head where some keys repeat an earlier key exactly (a NoPE model seeing
// the same token twice: the same weight, the same value), with every repeated
// weight and value then moved by `ulps` units in the last place, as a batched
// or multi-threaded pass may round them.
RandomHead head_with_repeats(std::mt19937& rng, int T, int d, int ulps) {
  RandomHead h = random_head(rng, T, d);
  const int query = T - 1;
  for (int j = 2; j < T; ++j) {
    if (rng() % 3 != 0) continue;
    const int twin = 1 + static_cast<int>(rng() % static_cast<unsigned>(j - 1));
    float& w = h.a.weights[static_cast<std::size_t>(query * T + j)];
    w = h.a.weights[static_cast<std::size_t>(query * T + twin)];
    for (int c = 0; c < d; ++c)
      h.v[static_cast<std::size_t>(j * d + c)] = h.v[static_cast<std::size_t>(twin * d + c)];
    const auto nudge = [&](float x) {
      for (int u = 0; u < std::abs(ulps); ++u)
        x = std::nextafter(x, ulps > 0 ? std::numeric_limits<float>::infinity()
                                       : -std::numeric_limits<float>::infinity());
      return x;
    };
    w = nudge(w);
    for (int c = 0; c < d; ++c)
      h.v[static_cast<std::size_t>(j * d + c)] = nudge(h.v[static_cast<std::size_t>(j * d + c)]);
  }
  return h;
}

}  // namespace

TEST(ValueSpace, RoundingNeverDecidesTiesOfRepeatedKeys) {
  // metrics.md s. 6: keys equal as real numbers tie (I_N to the lower index,
  // ball memberships and the random baseline included). The same instances
  // with the repeats rounded up, exact and rounded down must give the same
  // selection and the same scores, inversions and baseline.
  int instances = 0, withTieInSelection = 0;
  for (int instance = 0; instance < 400; ++instance) {
    const int T = 3 + instance % 20, d = 1 + instance % 7;
    std::vector<RandomHead> heads;
    for (int ulps : {0, 2, -2}) {
      std::mt19937 rng(static_cast<unsigned>(1000 + instance));
      heads.push_back(head_with_repeats(rng, T, d, ulps));
    }
    for (int N = 1; N <= T; ++N) {
      const ValueSpaceParams params{N, T - 1, 16, 11, false};
      const ValueSpace exact = value_space(heads[0].a.view(), heads[0].v, d, params);
      const ValueSpaceCurve curve = value_space_curve(heads[0].a.view(), heads[0].v, d, params);
      for (std::size_t k = 1; k < heads.size(); ++k) {
        const std::string what = "instance " + std::to_string(instance) + ", N = " +
                                 std::to_string(N) + ", rounding " + std::to_string(k);
        const ValueSpace s = value_space(heads[k].a.view(), heads[k].v, d, params);
        ASSERT_EQ(s.selected, exact.selected) << what;
        ASSERT_EQ(s.scores.precision, exact.scores.precision) << what;
        ASSERT_EQ(s.scores.recall, exact.scores.recall) << what;
        ASSERT_EQ(s.inversions, exact.inversions) << what;
        ASSERT_EQ(s.randomMean.f, exact.randomMean.f) << what;
        ASSERT_EQ(s.randomStd.f, exact.randomStd.f) << what;
        const ValueSpaceCurve c = value_space_curve(heads[k].a.view(), heads[k].v, d, params);
        const auto& p = c.points[static_cast<std::size_t>(N - 1)];
        const auto& q = curve.points[static_cast<std::size_t>(N - 1)];
        ASSERT_EQ(p.scores.f, q.scores.f) << what;
        ASSERT_EQ(p.inversions, q.inversions) << what;
        ASSERT_EQ(p.randomMean.f, q.randomMean.f) << what;
        ASSERT_EQ(p.randomMean.f, exact.randomMean.f) << what;
      }
      // A repeated key beside its twin at the selection's edge: the lower index is in.
      for (std::size_t j = 1; j < exact.keys.size(); ++j)
        for (std::size_t t = 0; t < j; ++t) {
          const float wj = heads[0].a.weights[static_cast<std::size_t>((T - 1) * T) + j];
          const float wt = heads[0].a.weights[static_cast<std::size_t>((T - 1) * T) + t];
          const bool jIn = std::count(exact.selected.begin(), exact.selected.end(),
                                      static_cast<int>(j)) > 0;
          const bool tIn = std::count(exact.selected.begin(), exact.selected.end(),
                                      static_cast<int>(t)) > 0;
          if (wj == wt && jIn != tIn) {
            ASSERT_TRUE(tIn) << "instance " << instance << ": key " << j << " taken before " << t;
            ++withTieInSelection;
          }
        }
    }
    ++instances;
  }
  EXPECT_EQ(instances, 400);
  EXPECT_GT(withTieInSelection, 50);
}

// Values far wider than there are keys (a capture's head_dim of thousands)
// take the PCA through the keys' Gram matrix: the same projections as the
// scatter matrix gives for the same points in their own 8 dimensions.
TEST(ValueSpace, WideValuesProjectAsTheirNarrowSelves) {
  const int T = 8, narrow = 8, wide = 2048;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(0.05f, 1.0f);
  std::normal_distribution<float> g(0.0f, 1.0f);
  AttentionMatrix a{std::vector<float>(T * T, 0.0f), T, true};
  for (int i = 0; i < T; ++i) {
    float sum = 0;
    for (int j = 0; j <= i; ++j) sum += a.weights[static_cast<std::size_t>(i * T + j)] = u(rng);
    for (int j = 0; j <= i; ++j) a.weights[static_cast<std::size_t>(i * T + j)] /= sum;
  }
  std::vector<float> small(T * narrow), big(static_cast<std::size_t>(T) * wide, 0.0f);
  for (int j = 0; j < T; ++j)
    for (int c = 0; c < narrow; ++c)
      small[static_cast<std::size_t>(j * narrow + c)] =
          big[static_cast<std::size_t>(j) * wide + static_cast<std::size_t>(c)] = g(rng);
  const ValueSpace s = value_space(a.view(), small, narrow, {3, T - 1, 4, 7});
  const ValueSpace w = value_space(a.view(), big, wide, {3, T - 1, 4, 7});
  ASSERT_EQ(s.pca3.size(), static_cast<std::size_t>(T + 1));
  ASSERT_EQ(w.pca3.size(), s.pca3.size());
  for (std::size_t k = 0; k < s.pca3.size(); ++k)
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(w.pca3[k][static_cast<std::size_t>(c)], s.pca3[k][static_cast<std::size_t>(c)],
                  1e-9)
          << "point " << k << ", axis " << c;
      EXPECT_EQ(w.pca2[k][static_cast<std::size_t>(std::min(c, 1))],
                w.pca3[k][static_cast<std::size_t>(std::min(c, 1))]);
    }
  EXPECT_EQ(w.scores.f, s.scores.f);
}

// Fig. 3(b)'s counts by hand: v0 = (-1, 0), v1 = (1, 0), v2 = (0, 1), v3 = 0
// (no direction: none of its pairs counted), v4 = (2, 0). The sink against
// v1 and v4: cosine -1 (the first bin); against v2: 0 (bin 20, [0, 0.05)).
// The non-sink pairs: (1, 2) and (2, 4) at 0, (1, 4) at exactly 1 (the last bin).
TEST(ValueDirections, CosineCountsByHand) {
  using sinkscope::analysis::kValueCosineBins;
  const std::vector<float> values{-1, 0, 1, 0, 0, 1, 0, 0, 2, 0};
  const auto all = sinkscope::analysis::value_cosine_counts(values, 2, {0, 1, 2, 3, 4});
  std::array<std::int64_t, kValueCosineBins> sink{}, pairs{};
  sink[0] = 2, sink[20] = 1;
  pairs[20] = 2, pairs[kValueCosineBins - 1] = 1;
  EXPECT_EQ(all.sinkToOthers, sink);
  EXPECT_EQ(all.otherPairs, pairs);
  // A query that sees keys 0..2 only.
  const auto prefix = sinkscope::analysis::value_cosine_counts(values, 2, {0, 1, 2});
  sink = {}, pairs = {};
  sink[0] = 1, sink[20] = 1, pairs[20] = 1;
  EXPECT_EQ(prefix.sinkToOthers, sink);
  EXPECT_EQ(prefix.otherPairs, pairs);
  // Bin edges: -1 in the first, 1 in the last, -0.05 in bin 19, 0.05 in bin 21.
  EXPECT_EQ(sinkscope::analysis::value_cosine_bin(-1.0), 0);
  EXPECT_EQ(sinkscope::analysis::value_cosine_bin(1.0), kValueCosineBins - 1);
  EXPECT_EQ(sinkscope::analysis::value_cosine_bin(-0.025), 19);
  EXPECT_EQ(sinkscope::analysis::value_cosine_bin(0.075), 21);
}

// Over kValueCosineMaxKeys non-sink keys, every k-th enters the pairs: 600
// keys give every second, 300 keys, C(300, 2) pairs; the sink meets all 600.
TEST(ValueDirections, PairsOfManyKeysAreThinnedEvenly) {
  const int T = 601, d = 3;
  std::mt19937 rng(5);
  std::normal_distribution<float> g;
  std::vector<float> values(static_cast<std::size_t>(T * d));
  for (float& v : values) v = g(rng);
  std::vector<int> keys(T);
  for (int k = 0; k < T; ++k) keys[static_cast<std::size_t>(k)] = k;
  const auto counts = sinkscope::analysis::value_cosine_counts(values, d, keys);
  std::int64_t sink = 0, pairs = 0;
  for (std::size_t b = 0; b < counts.sinkToOthers.size(); ++b)
    sink += counts.sinkToOthers[b], pairs += counts.otherPairs[b];
  EXPECT_EQ(sink, 600);
  EXPECT_EQ(pairs, 300 * 299 / 2);
}
