// Sink metric (metrics.md s. 1) against closed forms.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "analysis/attention_matrix.h"
#include "analysis/sink_metric.h"

using namespace sinkscope::analysis;

namespace {
double harmonic(int n) {
  double h = 0;
  for (int i = 1; i <= n; ++i) h += 1.0 / i;
  return h;
}

// Every query puts all its attention on key 0: a perfect first-token sink.
AttentionMatrix star(int T) {
  AttentionMatrix m;
  m.size = T;
  m.causal = true;
  m.weights.assign(static_cast<std::size_t>(T * T), 0.0f);
  for (int i = 0; i < T; ++i) m.weights[static_cast<std::size_t>(i * T)] = 1.0f;
  return m;
}
}  // namespace

TEST(AttentionUniform, RowsSpreadEvenlyOverVisibleKeys) {
  const AttentionMatrix m = attention_uniform(5, true);
  EXPECT_NO_THROW(attention_validate(m.view()));
  EXPECT_FLOAT_EQ(m.view().at(0, 0), 1.0f);
  EXPECT_FLOAT_EQ(m.view().at(3, 2), 0.25f);
  EXPECT_FLOAT_EQ(m.view().at(3, 4), 0.0f);
  const AttentionMatrix b = attention_uniform(4, false);
  EXPECT_FLOAT_EQ(b.view().at(0, 3), 0.25f);
  EXPECT_NO_THROW(attention_validate(b.view()));
}

TEST(AttentionValidate, NamesTheProblem) {
  AttentionMatrix m = attention_uniform(3, true);
  m.weights[1] = 0.5f;  // query 0 looks at future key 1
  try {
    attention_validate(m.view());
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("future key (query 0, key 1)"), std::string::npos)
        << e.what();
  }
  AttentionMatrix wrong{{1.0f, 0.0f}, 2, true};
  EXPECT_THROW(attention_validate(wrong.view()), std::invalid_argument);
}

TEST(SinkMetric, UniformBaselineOfFirstKeyIsHarmonicOverT) {
  for (int T : {1, 2, 10, 64, 500}) {
    EXPECT_NEAR(sink_uniform_baseline(T, 0, true), harmonic(T) / T, 1e-12) << T;
  }
  // The metrics.md example: T = 10 gives 0.29.
  EXPECT_NEAR(sink_uniform_baseline(10, 0, true), 0.2929, 1e-4);
  // Key k: (H_T - H_k) / (T - k); the last key is seen only by itself.
  EXPECT_NEAR(sink_uniform_baseline(10, 4, true), (harmonic(10) - harmonic(4)) / 6.0, 1e-12);
  EXPECT_NEAR(sink_uniform_baseline(10, 9, true), 0.1, 1e-12);
  EXPECT_NEAR(sink_uniform_baseline(8, 3, false), 0.125, 1e-12);
  EXPECT_THROW(sink_uniform_baseline(5, 5, true), std::out_of_range);
}

// Every key at once (the baseline command writes up to a million) equals the
// one-key form bit for bit and the closed form (H_T - H_k) / (T - k).
TEST(SinkMetric, UniformBaselinesOfEveryKeyAtOnce) {
  for (int T : {0, 1, 2, 10, 333}) {
    for (bool causal : {true, false}) {
      const std::vector<double> all = sink_uniform_baselines(T, causal);
      ASSERT_EQ(all.size(), static_cast<std::size_t>(T));
      for (int k = 0; k < T; ++k) {
        EXPECT_EQ(all[static_cast<std::size_t>(k)], sink_uniform_baseline(T, k, causal))
            << T << " " << k;
        const double closed = causal ? (harmonic(T) - harmonic(k)) / (T - k) : 1.0 / T;
        EXPECT_NEAR(all[static_cast<std::size_t>(k)], closed, 1e-12) << T << " " << k;
      }
    }
  }
  const std::vector<double> million = sink_uniform_baselines(1000000, true);
  EXPECT_NEAR(million.back(), 1e-6, 1e-18);
  EXPECT_NEAR(million.front(), harmonic(1000000) / 1e6, 1e-14);
}

TEST(SinkMetric, KeyImportanceOfUniformHeadEqualsBaseline) {
  const int T = 17;
  const AttentionMatrix m = attention_uniform(T, true);
  const auto alpha = sink_key_importance(m.view());
  ASSERT_EQ(alpha.size(), static_cast<std::size_t>(T));
  for (int k = 0; k < T; ++k) EXPECT_NEAR(alpha[k], sink_uniform_baseline(T, k, true), 1e-6) << k;
  for (double b : sink_boost(m.view())) EXPECT_NEAR(b, 1.0, 1e-5);
}

TEST(SinkMetric, PerfectStarGivesAlphaOneOnTheSink) {
  const int T = 12;
  const AttentionMatrix m = star(T);
  const auto alpha = sink_key_importance(m.view());
  EXPECT_DOUBLE_EQ(alpha[0], 1.0);
  for (int k = 1; k < T; ++k) EXPECT_DOUBLE_EQ(alpha[k], 0.0);
  EXPECT_NEAR(sink_boost(m.view())[0], T / harmonic(T), 1e-6);
}

#include "analysis/sinks.h"

TEST(Percentile, InterpolatesLinearlyLikeNumpy) {
  EXPECT_DOUBLE_EQ(percentile_linear({1, 2, 3, 4}, 50), 2.5);
  EXPECT_DOUBLE_EQ(percentile_linear({1, 2, 3, 4}, 90), 3.7);
  EXPECT_DOUBLE_EQ(percentile_linear({5}, 90), 5);
  EXPECT_DOUBLE_EQ(percentile_linear({}, 90), 0);
}

TEST(SinkSet, PerfectStarHasItsSinkEvenWhenShort) {
  for (int T : {4, 12}) {
    const AttentionMatrix m = star(T);
    const SinkSet s = sink_set(m.view());
    ASSERT_EQ(s.sinks.size(), 1u) << T;
    EXPECT_EQ(s.sinks[0].key, 0);
    EXPECT_DOUBLE_EQ(s.sinks[0].frequency, 1.0);
    EXPECT_DOUBLE_EQ(s.sinks[0].meanReceived, 1.0);
    EXPECT_DOUBLE_EQ(sink_concentration(m.view(), s.keys()), 100.0);
    SinkSetParams columns;
    columns.mode = SinkSetParams::Mode::ColumnSum;
    EXPECT_EQ(sink_set(m.view(), columns).keys(), std::vector<int>{0});
  }
}

TEST(SinkSet, HandComputedMap) {
  // 3 tokens, causal. Visible weights: 1 | .8 .2 | .5 .1 .4
  AttentionMatrix m{{1, 0, 0, .8f, .2f, 0, .5f, .1f, .4f}, 3, true};
  SinkSetParams p;
  p.percentile = 50;  // median of {1,.8,.2,.5,.1,.4} = .45
  const SinkSet s = sink_set(m.view(), p);
  EXPECT_NEAR(s.tau, 0.45, 1e-6);
  // key 0: 1, .8, .5 >= .45 (3 of 3); key 1: .2, .1 (0 of 2); key 2: .4 (0 of 1)
  EXPECT_EQ(s.keys(), std::vector<int>{0});
  // Mass excluding (0,0): .8+.2+.5+.1+.4 = 2.0; on key 0: 1.3 -> 65%.
  EXPECT_NEAR(sink_concentration(m.view(), {0}), 65.0, 1e-4);
  p.gamma = 0.0;  // every key with at least one hit
  EXPECT_EQ(sink_set(m.view(), p).keys(), std::vector<int>{0});
}

// tau is the percentile of the weights themselves, so a weight can equal it
// as a real number and sit a rounding below it (another BLAS kernel, another
// batch): within a relative 1e-6 it reaches tau (metrics.md, ties), further
// below it does not. The same for a column sum against its percentile.
TEST(SinkSet, AWeightEqualToTauUpToRoundingReachesIt) {
  // p = 100: tau is the largest weight, query 0's 1 on itself.
  const AttentionMatrix m{{1, 0, 0, 0.9999997f, 3e-7f, 0, 0.99999f, 1e-5f, 0}, 3, true};
  SinkSetParams p;
  p.percentile = 100;
  p.gamma = 0.5;
  const SinkSet s = sink_set(m.view(), p);
  EXPECT_DOUBLE_EQ(s.tau, 1.0);
  EXPECT_DOUBLE_EQ(s.keysAll[0].frequency, 2.0 / 3.0) << "3e-7 below tau reaches it, 1e-5 not";
  EXPECT_EQ(s.keys(), std::vector<int>{0});

  // Bidirectional: column sums 0.9999998 and 1.0000002, the latter the threshold.
  const AttentionMatrix b{{0.5f, 0.5f, 0.4999998f, 0.5000002f}, 2, false};
  SinkSetParams columns;
  columns.mode = SinkSetParams::Mode::ColumnSum;
  columns.percentile = 100;
  EXPECT_EQ(sink_set(b.view(), columns).keys(), (std::vector<int>{0, 1}));
  const AttentionMatrix apart{{0.5f, 0.5f, 0.49999f, 0.50001f}, 2, false};
  EXPECT_EQ(sink_set(apart.view(), columns).keys(), std::vector<int>{1});
}

// metrics.md s. 1: the fraction gamma is of all T queries. Dividing by the
// queries that see a key (the old reading, now --sink-denominator visible)
// makes the last key of a causal map a sink when its one observer attends to
// itself. Every key's frequency is reported, sink or not.
TEST(SinkSet, FrequencyIsOverAllQueriesUnlessVisibleIsAsked) {
  const AttentionMatrix m{{1, 0, 0, 0, 0,                 //
                           .9f, .1f, 0, 0, 0,             //
                           .9f, .05f, .05f, 0, 0,         //
                           .9f, .04f, .03f, .03f, 0,      //
                           .05f, .02f, .02f, .01f, .9f},  //
                          5, true};
  const SinkSet all = sink_set(m.view());
  EXPECT_NEAR(all.tau, 0.9, 1e-6);
  EXPECT_EQ(all.keys(), std::vector<int>{0});
  ASSERT_EQ(all.keysAll.size(), 5u);
  EXPECT_DOUBLE_EQ(all.keysAll[0].frequency, 4.0 / 5.0);
  EXPECT_DOUBLE_EQ(all.keysAll[4].frequency, 1.0 / 5.0) << "a non-sink's true fraction, not 0";
  EXPECT_DOUBLE_EQ(all.keysAll[1].frequency, 0.0);
  SinkSetParams visible;
  visible.denominator = SinkSetParams::Denominator::VisibleQueries;
  const SinkSet old = sink_set(m.view(), visible);
  EXPECT_EQ(old.keys(), (std::vector<int>{0, 4}));
  EXPECT_DOUBLE_EQ(old.keysAll[4].frequency, 1.0);
  EXPECT_STREQ(sink_denominator_name(visible.denominator), "visible");
}
