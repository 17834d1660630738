// Tokens of two tokenizers aligned by the characters they cover: the
// tokenizers' offsets (tests/models/tokenizer_test.cpp checks those) paired here.
#include <gtest/gtest.h>

#include "analysis/token_alignment.h"

using namespace sinkscope::analysis;

TEST(TokenAlignment, TokensPairWhenTheyCoverTheSameCharacters) {
  // "The cat's dinner café" (é: two bytes). A byte-level BPE with a BOS, "é"
  // split over two byte tokens; an uncased WordPiece with [CLS] and [SEP].
  const std::vector<TokenSpan> bpe{{-1, -1}, {0, 3},   {4, 7},   {7, 9},  {10, 13},
                                   {13, 16}, {17, 20}, {20, 21}, {21, 22}};
  const std::vector<TokenSpan> wp{{-1, -1}, {0, 3},   {4, 7},   {7, 8},  {8, 9},
                                  {10, 16}, {17, 20}, {20, 22}, {-1, -1}};
  EXPECT_EQ(token_alignment(bpe, wp), (std::vector<int>{-1, 1, 2, -1, -1, -1, 6, -1, -1}))
      << "The=the, cat=cat, caf=caf; 's, din|ner and the bytes of é do not align one to one";
  const std::vector<int> back = token_alignment(wp, bpe);
  EXPECT_EQ(back, (std::vector<int>{-1, 1, 2, -1, -1, -1, 6, -1, -1}))
      << "dinner is two BPE tokens; [CLS] and [SEP] cover nothing";
  EXPECT_TRUE(token_alignment({}, wp).empty());
}

TEST(TokenAlignment, SpecialTokensPairWithTheirTwinsByString) {
  // Two models of one tokenizer: <s> covers nothing in both and is the same
  // token; a second <s> pairs with the second; [SEP] has no twin in A.
  const std::vector<TokenSpan> a{{-1, -1}, {0, 3}, {4, 7}, {-1, -1}, {8, 11}};
  const std::vector<TokenSpan> b{{-1, -1}, {0, 3}, {4, 7}, {-1, -1}, {8, 11}, {-1, -1}};
  const std::vector<std::string> ta{"<s>", "The", "cat", "<s>", "sat"};
  const std::vector<std::string> tb{"<s>", "The", "cat", "<s>", "sat", "[SEP]"};
  EXPECT_EQ(token_alignment(a, b, ta, tb), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(token_alignment(b, a, tb, ta), (std::vector<int>{0, 1, 2, 3, 4, -1}));
  // A special token of another string does not pair (BOS against [CLS]).
  const std::vector<std::string> cls{"[CLS]", "The", "cat", "[CLS]", "sat", "[SEP]"};
  EXPECT_EQ(token_alignment(a, b, ta, cls), (std::vector<int>{-1, 1, 2, -1, 4}));
  // Without strings (or of another length), spanless tokens pair with none.
  EXPECT_EQ(token_alignment(a, b, {}, {}), (std::vector<int>{-1, 1, 2, -1, 4}));
}
