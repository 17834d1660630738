// The first-token sink summary: means over heads of alpha_0 and its boost,
// Gu et al.'s sink rate (alpha_0 > eps) and the share of strong sinks.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/first_token_sink.h"
#include "analysis/sink_metric.h"

using namespace sinkscope::analysis;

TEST(FirstTokenSink, SummarisesHeadsAsMeans) {
  // Causal, T = 10: a uniform head gives key 0 H_10 / 10.
  const double h10 = 1 + 1. / 2 + 1. / 3 + 1. / 4 + 1. / 5 + 1. / 6 + 1. / 7 + 1. / 8 + 1. / 9 + 1. / 10;
  const double uniform0 = h10 / 10;
  ASSERT_NEAR(sink_uniform_baseline(10, 0, true), uniform0, 1e-15);
  FirstTokenSinkTally tally;
  tally.add(0.95, uniform0, 40.0);  // boost 3.24: strong, and a sink-rate head
  tally.add(0.30, uniform0, 10.0);  // alpha_0 = eps exactly: not above it
  tally.add(0.25, uniform0, 4.0);
  const FirstTokenSinkSummary s = tally.summary();
  EXPECT_EQ(s.heads, 3);
  EXPECT_NEAR(s.alpha0, (0.95 + 0.30 + 0.25) / 3, 1e-15);
  EXPECT_NEAR(s.boost, (0.95 + 0.30 + 0.25) / 3 / uniform0, 1e-12);
  EXPECT_DOUBLE_EQ(s.strongShare, 1.0 / 3);
  EXPECT_DOUBLE_EQ(s.sinkRate, 1.0 / 3);
  EXPECT_DOUBLE_EQ(s.concentration, 18.0);
}

TEST(FirstTokenSink, ThresholdsAreInclusiveForBoostAndStrictForTheRate) {
  EXPECT_TRUE(is_strong_sink(kStrongSinkBoost));
  EXPECT_FALSE(is_strong_sink(std::nextafter(kStrongSinkBoost, 0.0)));
  EXPECT_FALSE(is_sink_rate_head(kDefaultSinkMetricEps));
  EXPECT_TRUE(is_sink_rate_head(std::nextafter(kDefaultSinkMetricEps, 1.0)));
  EXPECT_TRUE(is_sink_rate_head(0.2, 0.1));  // a chosen eps
  FirstTokenSinkTally loose(0.1);
  loose.add(0.2, 0.5);
  EXPECT_EQ(loose.summary().sinkRate, 1.0);
}

TEST(FirstTokenSink, NoHeadIsNotANumber) {
  const FirstTokenSinkSummary s = FirstTokenSinkTally().summary();
  EXPECT_EQ(s.heads, 0);
  EXPECT_TRUE(std::isnan(s.alpha0));
  EXPECT_TRUE(std::isnan(s.sinkRate));
}
