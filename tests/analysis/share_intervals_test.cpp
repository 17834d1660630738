// Intervals of the shares of specialised heads by top sink token: closed
// forms on clear-cut and ambiguous heads, and coverage of the share a much
// larger corpus would give, by simulation (where the percentile bootstrap of
// the sentences collapses to [1, 1]).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "analysis/share_intervals.h"

using namespace sinkscope::analysis;

namespace {

// A head over n samples: each token's sample count (a token is counted once
// per sample) and the samples with any sink.
HeadSinkTally tally(long long n, long long withSink, std::map<std::string, long long> tokens) {
  HeadSinkTally t;
  t.samples = n;
  t.withSink = withSink;
  t.tokenSamples = std::move(tokens);
  return t;
}

}  // namespace

TEST(ShareIntervals, TallyCountsEachTokenOncePerSample) {
  const HeadSinkTally t = head_sink_tally({{{"<s>", 0}, {"<s>", 4}, {".", 3}}, {}, {{".", 2}}});
  EXPECT_EQ(t.samples, 3);
  EXPECT_EQ(t.withSink, 2);
  EXPECT_EQ(t.tokenSamples.at("<s>"), 1);
  EXPECT_EQ(t.tokenSamples.at("."), 2);
}

TEST(ShareIntervals, ClearCutHeadsGiveThePointAndThinEvidenceDoesNot) {
  // One head, a sink on <s> in every sample. Three intervals (its sink share,
  // <s>, the unseen tokens) at 1 - 0.05/3 each: the lower bound of n of n is
  // (0.05/6)^(1/n): 0.953 at n = 100 (surely specialised, surely <s>), 0.588
  // at n = 9 (below the threshold 0.8: maybe not specialised at all).
  const double tail = 0.05 / 6;
  ASSERT_GT(std::pow(tail, 1.0 / 100), 0.8);
  ASSERT_LT(std::pow(tail, 1.0 / 9), 0.8);
  const PlausibleHeadClasses many({tally(100, 100, {{"<s>", 100}})}, 0.8);
  EXPECT_EQ(many.share({"<s>"}).lo, 1.0);
  EXPECT_EQ(many.share({"<s>"}).hi, 1.0);
  EXPECT_EQ(many.share({"<s>"}, true).hi, 0.0);
  // With nine samples the head may not be specialised (then no head is, and
  // the share is 0 by definition), or specialised on <s>.
  const PlausibleHeadClasses few({tally(9, 9, {{"<s>", 9}})}, 0.8);
  EXPECT_EQ(few.share({"<s>"}).lo, 0.0);
  EXPECT_EQ(few.share({"<s>"}).hi, 1.0);
}

TEST(ShareIntervals, AHeadBetweenTwoTokensWidensTheShareByOneHead) {
  // Heads 0 and 1 are clear-cut (<s>, "."); head 2 is specialised for sure
  // but its top token may be either (60 and 55 of 100 samples).
  const PlausibleHeadClasses c({tally(100, 100, {{"<s>", 100}}), tally(100, 100, {{".", 100}}),
                                tally(100, 100, {{"<s>", 60}, {".", 55}})},
                               0.8);
  EXPECT_DOUBLE_EQ(c.share({"<s>"}).lo, 1.0 / 3);
  EXPECT_DOUBLE_EQ(c.share({"<s>"}).hi, 2.0 / 3);
  EXPECT_DOUBLE_EQ(c.share({"<s>", "."}).lo, 1.0);
  EXPECT_DOUBLE_EQ(c.share({"<s>"}, true).lo, 1.0 / 3);
  EXPECT_DOUBLE_EQ(c.share({"<s>"}, true).hi, 2.0 / 3);
  // A token no head has seen tops none of them.
  EXPECT_EQ(c.share({"the"}).hi, 0.0);
}

TEST(ShareIntervals, AHeadAtTheThresholdMayLeaveTheDenominator) {
  // Head 1 has a sink in 80 of 100 samples, always on ".": specialised or
  // not. The share of <s> is 1/2 if it is, 1 if it is not.
  const PlausibleHeadClasses c({tally(100, 100, {{"<s>", 100}}), tally(100, 80, {{".", 80}})}, 0.8);
  EXPECT_DOUBLE_EQ(c.share({"<s>"}).lo, 0.5);
  EXPECT_DOUBLE_EQ(c.share({"<s>"}).hi, 1.0);
  EXPECT_DOUBLE_EQ(c.share({"."}).lo, 0.0);
  EXPECT_DOUBLE_EQ(c.share({"."}).hi, 0.5);
}

TEST(ShareIntervals, RefusesAConfidenceOutsideZeroToOne) {
  EXPECT_THROW(PlausibleHeadClasses({}, 0.8, 1.0), std::invalid_argument);
  EXPECT_THROW(PlausibleHeadClasses({}, 0.8, 0.0), std::invalid_argument);
  EXPECT_EQ(PlausibleHeadClasses({}, 0.8).share({"<s>"}).hi, 0.0);
}

// Heads of four kinds with known per-sample sink probabilities (one token's
// sink events independent of another's): the true classes are those of an
// infinite corpus. At 30 samples the first-token and other shares' intervals
// hold the true shares at least 95% of the time; every sample agreeing is
// common, so a bootstrap of the samples would often give a point.
TEST(ShareIntervals, CoverTheLargeCorpusShareInSimulation) {
  struct Kind {
    std::vector<std::pair<std::string, double>> tokens;
    int count;
  };
  const std::vector<Kind> kinds = {
      {{{"<s>", 0.97}}, 10},                // clear first-token sinks
      {{{"<s>", 0.84}}, 4},                 // just above the threshold 0.8
      {{{".", 0.90}, {"<s>", 0.30}}, 3},    // specialised on "."
      {{{".", 0.45}, {"<s>", 0.40}}, 3},    // P(any) = 0.67: not specialised
      {{{"the", 0.02}}, 4}};                // hardly ever a sink
  double trueFirst = 0, trueOther = 0, specialised = 0;
  for (const Kind& k : kinds) {
    double none = 1.0;
    std::string top;
    double best = -1;
    for (const auto& [t, p] : k.tokens) {
      none *= 1 - p;
      if (p > best) best = p, top = t;
    }
    if (1 - none >= 0.8) {
      specialised += k.count;
      (top == "<s>" ? trueFirst : trueOther) += k.count;
    }
  }
  trueFirst /= specialised;
  trueOther /= specialised;
  ASSERT_DOUBLE_EQ(trueFirst, 14.0 / 17);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0, 1);
  const int reps = 400, n = 30;
  int coverFirst = 0, coverOther = 0, points = 0;
  for (int rep = 0; rep < reps; ++rep) {
    std::vector<HeadSinkTally> heads;
    for (const Kind& k : kinds)
      for (int c = 0; c < k.count; ++c) {
        std::vector<std::vector<SinkOccurrence>> sinks(n);
        for (auto& sample : sinks)
          for (const auto& [t, p] : k.tokens)
            if (u(rng) < p) sample.push_back({t, t == "<s>" ? 0 : 5});
        heads.push_back(head_sink_tally(sinks));
      }
    const PlausibleHeadClasses c(heads, 0.8);
    const ShareInterval first = c.share({"<s>"});
    const ShareInterval other = c.share({"<s>"}, true);
    coverFirst += first.lo <= trueFirst && trueFirst <= first.hi;
    coverOther += other.lo <= trueOther && trueOther <= other.hi;
    points += first.lo == first.hi;
  }
  EXPECT_GE(coverFirst, 0.95 * reps);
  EXPECT_GE(coverOther, 0.95 * reps);
  EXPECT_EQ(points, 0) << "the heads near the threshold are never decided by 30 samples";
}
