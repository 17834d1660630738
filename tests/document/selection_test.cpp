// The document's selection (clamping, what moved, B's place) and the words
// of the no-model baseline: state the window only shows.
#include <gtest/gtest.h>

#include <cmath>

#include "models/document/selection.h"
#include "models/document/sentence_run.h"

namespace sinkscope {
namespace {

using document::Selection;

TEST(Selection, ValuesStayInsideTheBoundsAndSayWhatMoved) {
  Selection s;
  s.setBounds(4, 8, 10);
  EXPECT_TRUE(s.setLayer(3));
  EXPECT_FALSE(s.setLayer(3)) << "the same value moves nothing";
  EXPECT_TRUE(s.setHead(7));
  EXPECT_TRUE(s.setQueryToken(9));
  EXPECT_TRUE(s.setTopN(8));
  EXPECT_FALSE(s.setLayer(99)) << "clamped to the last layer, where it already is";
  EXPECT_EQ(s.layer(), 3);

  const Selection::Moved moved = s.setBounds(2, 4, 5);
  EXPECT_TRUE(moved.bounds && moved.layer && moved.head && moved.query && moved.topN);
  EXPECT_FALSE(moved.key) << "no key was selected";
  EXPECT_EQ(s.layer(), 1);
  EXPECT_EQ(s.head(), 3);
  EXPECT_EQ(s.queryToken(), 4);
  EXPECT_EQ(s.topN(), 5);
  EXPECT_EQ(s.keyToken(), Selection::kNoToken);
  // The top-N asked for comes back when the tokens allow it again.
  s.setBounds(2, 4, 20);
  EXPECT_EQ(s.topN(), 8);
  EXPECT_FALSE(s.setBounds(2, 4, 20).bounds);
}

TEST(Selection, ThresholdAndHeadWalk) {
  Selection s;
  s.setBounds(1, 3, 4);
  EXPECT_TRUE(s.setThreshold(2.0));
  EXPECT_EQ(s.threshold(), 1.0);
  EXPECT_FALSE(s.setThreshold(std::nan(""))) << "not a number is ignored";
  EXPECT_EQ(s.threshold(), 1.0);
  s.setHead(0);
  EXPECT_EQ(s.headStepped(-1), Selection::kHeadAverage);
  EXPECT_EQ(s.headStepped(-5), Selection::kHeadAverage);
  EXPECT_EQ(s.headStepped(2), 2);
  EXPECT_EQ(s.headStepped(9), 2);
  s.setHead(Selection::kHeadAverage);
  EXPECT_TRUE(s.headAveraged());
  EXPECT_EQ(s.headStepped(1), 0);
}

TEST(Selection, ComparedRunsPlaceFollowsOrIsPinned) {
  Selection s;
  s.setBounds(4, 8, 10);
  s.setLayer(3);
  s.setHead(5);
  EXPECT_EQ(s.counterpartLayer(), 3) << "without B, the selection's own place";
  EXPECT_FALSE(s.setCounterpartLayer(1)) << "nothing to pin without B";
  ASSERT_TRUE(s.setCounterpartBounds(7, 8));
  EXPECT_EQ(s.counterpartLayer(), 6) << "the same relative depth: 3/3 of 0..3 is 6 of 0..6";
  EXPECT_EQ(s.counterpartHead(), 5) << "layers of as many heads: the same head";
  EXPECT_TRUE(s.setCounterpartHead(99));
  EXPECT_EQ(s.counterpartHead(), 7);
  EXPECT_TRUE(s.setCounterpartBounds(7, 12)) << "a new shape";
  EXPECT_EQ(s.pinnedCounterpartHead(), Selection::kAutomatic) << "unpins";
  EXPECT_EQ(s.counterpartHead(), Selection::kHeadAverage) << "other head counts: the average";
  EXPECT_TRUE(s.setCounterpartBounds(0, 5));
  EXPECT_FALSE(s.hasCounterpart());
  EXPECT_EQ(s.counterpartHeadCount(), 0);
}

TEST(BaselineRun, WordsAreSplitOnUnicodeWhiteSpaceWithTheirBytes) {
  // "a", NBSP, "bc", ideographic space, "é", tab, "d"
  const std::string text = "a\u00A0bc\u3000\u00E9\td ";
  const document::SentenceRun run = document::sentence_run_baseline(text);
  ASSERT_EQ(run.tokenCount(), 4);
  EXPECT_EQ(run.tokens.display, (std::vector<std::string>{"a", "bc", "\u00E9", "d"}));
  EXPECT_EQ(run.tokens.offsets[1], std::make_pair(3, 5));
  EXPECT_EQ(run.tokens.offsets[2], std::make_pair(8, 10));
  EXPECT_FALSE(run.trace);
  EXPECT_EQ(run.source, "no model");
  // Its map is the uniform causal one: row q spreads 1/(q+1).
  const analysis::AttentionMatrix map = run.attention(0, 0);
  ASSERT_EQ(map.size, 4);
  EXPECT_FLOAT_EQ(map.weights[3 * 4 + 0], 0.25f);
  EXPECT_FLOAT_EQ(map.weights[0 * 4 + 3], 0.0f);
  // A byte that starts no valid UTF-8 sequence is part of a word, never a break.
  EXPECT_EQ(document::sentence_word_offsets("x\xC3 y").size(), 2u);
  EXPECT_THROW(document::sentence_run_baseline(" \u2003\n"), std::invalid_argument);
  std::string many;
  for (int i = 0; i <= document::kMaxBaselineWords; ++i) many += "w ";
  EXPECT_THROW(document::sentence_run_baseline(many), std::invalid_argument);
}

}  // namespace
}  // namespace sinkscope
