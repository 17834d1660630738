// How two runs stand to each other: the comparison's names, and where A's
// tokens land in B (two tokenizers by characters; B without A's first token).
#include <gtest/gtest.h>

#include "models/document/run_comparison.h"

namespace sinkscope {
namespace {

using namespace document;

SentenceRun run_of(std::vector<std::string> tokens, std::vector<std::pair<int, int>> offsets) {
  SentenceRun run;
  run.tokens.display = std::move(tokens);
  run.tokens.offsets = std::move(offsets);
  return run;
}

TEST(RunComparison, NamesRoundTripAndOthersAreRefused) {
  for (Comparison c :
       {Comparison::Before, Comparison::After, Comparison::Difference, Comparison::SideBySide})
    EXPECT_EQ(comparison_of(comparison_name(c)), c);
  EXPECT_EQ(comparison_name(Comparison::SideBySide), "side_by_side");
  EXPECT_FALSE(comparison_of("side-by-side"));
  EXPECT_FALSE(comparison_of(""));
}

TEST(RunComparison, TwoTokenizersAlignTokensThatCoverTheSameCharacters) {
  // "the cat": A = <s> | the | cat, B = <s> | th | e | cat | </s>. A token
  // aligns only with one covering the same bytes; special tokens (no span)
  // pair by their strings.
  const SentenceRun a = run_of({"<s>", "the", "cat"}, {{-1, -1}, {0, 3}, {3, 7}});
  const SentenceRun b =
      run_of({"<s>", "th", "e", "cat", "</s>"}, {{-1, -1}, {0, 2}, {2, 3}, {3, 7}, {-1, -1}});
  const TokenAlignment t = tokens_aligned_by_characters(a, b);
  EXPECT_EQ(t.first, (std::vector<int>{0, -1, 3}));
  EXPECT_EQ(t.second, (std::vector<int>{0, -1, -1, 2, -1})) << "no piece of 'the' covers it all";
  EXPECT_FALSE(runs_have_same_tokens(a, b));
  EXPECT_TRUE(runs_have_same_tokens(a, a));
}

TEST(RunComparison, WithoutTheFirstTokenBsTokensAreAsShiftedByOne) {
  const SentenceRun a = run_of({"<s>", "a", "b"}, {});
  const SentenceRun b = run_of({"a", "b"}, {});
  const auto t = tokens_aligned_after_first_dropped(a, b);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->first, (std::vector<int>{-1, 0, 1}));
  EXPECT_EQ(t->second, (std::vector<int>{1, 2}));
  EXPECT_FALSE(tokens_aligned_after_first_dropped(a, a)) << "as many tokens: nothing dropped";
}

}  // namespace
}  // namespace sinkscope
