// Where a selection on run A lands in a run B of another shape.
#include <gtest/gtest.h>

#include "analysis/run_correspondence.h"

using namespace sinkscope::analysis;

TEST(RunCorrespondence, LayersCorrespondByRelativeDepthEndToEnd) {
  // Same depth: the same layer.
  for (int l = 0; l < 6; ++l) EXPECT_EQ(layer_at_same_depth(l, 6, 6), l);
  // 4 layers against 12: depths 0, 1/3, 2/3, 1 -> layers 0, 11/3=3.67->4, 7.33->7, 11.
  EXPECT_EQ(layer_at_same_depth(0, 4, 12), 0);
  EXPECT_EQ(layer_at_same_depth(1, 4, 12), 4);
  EXPECT_EQ(layer_at_same_depth(2, 4, 12), 7);
  EXPECT_EQ(layer_at_same_depth(3, 4, 12), 11);
  // 12 against 4: layer 6 of 12 (depth 6/11 = 0.545) -> 1.64 -> 2; layer 11 -> 3.
  EXPECT_EQ(layer_at_same_depth(6, 12, 4), 2);
  EXPECT_EQ(layer_at_same_depth(11, 12, 4), 3);
  // A tie rounds upward: layer 1 of 3 (depth 1/2) in 2 layers -> 0.5 -> 1.
  EXPECT_EQ(layer_at_same_depth(1, 3, 2), 1);
  // One-layer models, and a layer outside A, stay in range.
  EXPECT_EQ(layer_at_same_depth(0, 1, 5), 0);
  EXPECT_EQ(layer_at_same_depth(3, 4, 1), 0);
  EXPECT_EQ(layer_at_same_depth(9, 4, 12), 11);
  EXPECT_EQ(layer_at_same_depth(-3, 4, 12), 0);
  // Monotone and onto the ends, for every pair of depths up to 40 layers.
  for (int a = 2; a <= 40; ++a)
    for (int b = 1; b <= 40; ++b) {
      int previous = 0;
      for (int l = 0; l < a; ++l) {
        const int m = layer_at_same_depth(l, a, b);
        ASSERT_GE(m, previous) << a << " " << b << " " << l;
        ASSERT_LT(m, b);
        EXPECT_NEAR(m, double(l) * (b - 1) / (a - 1), 0.5 + 1e-12);
        previous = m;
      }
      EXPECT_EQ(layer_at_same_depth(a - 1, a, b), b - 1);
    }
}

TEST(RunCorrespondence, HeadsCorrespondOnlyBetweenLayersOfAsManyHeads) {
  EXPECT_EQ(counterpart_head(3, 8, 8), 3);
  EXPECT_EQ(counterpart_head(kCounterpartHeadAverage, 8, 8), kCounterpartHeadAverage);
  EXPECT_EQ(counterpart_head(3, 8, 12), kCounterpartHeadAverage) << "no order shared: B's average";
  EXPECT_EQ(counterpart_head(0, 4, 2), kCounterpartHeadAverage);
  EXPECT_EQ(counterpart_head(kCounterpartHeadAverage, 4, 2), kCounterpartHeadAverage);
}

TEST(RunCorrespondence, TokensMapByCharactersThenByCoverThenSpecialsByPosition) {
  // "The cat's dinner" by its tokenizers' offsets. A: a byte-level BPE with
  // a BOS (<s> The ␣cat 's ␣din ner); B: an uncased WordPiece ([CLS] the cat
  // ' s dinner [SEP]).
  const std::vector<TokenSpan> a{{-1, -1}, {0, 3}, {4, 7}, {7, 9}, {10, 13}, {13, 16}};
  const std::vector<TokenSpan> b{{-1, -1}, {0, 3}, {4, 7}, {7, 8}, {8, 9}, {10, 16}, {-1, -1}};
  EXPECT_EQ(token_counterparts(a, b), (std::vector<int>{0, 1, 2, 3, 5, 5}))
      << "<s> = [CLS] by position; 's starts where ' does; din and ner lie in dinner";
  EXPECT_EQ(token_counterparts(b, a), (std::vector<int>{0, 1, 2, 3, 3, 4, -1}))
      << "s lies in 's; dinner starts at din; [SEP] has no special token at its position in A";
  // Back from B: din and ner both land on dinner; nothing lands on [SEP].
  const std::vector<int> aToB = token_counterparts(a, b);
  EXPECT_EQ(tokens_landing_on(aToB, 5), (std::vector<int>{4, 5}));
  EXPECT_EQ(tokens_landing_on(aToB, 0), (std::vector<int>{0}));
  EXPECT_TRUE(tokens_landing_on(aToB, 6).empty());
  EXPECT_TRUE(tokens_landing_on(aToB, -1).empty());
}
