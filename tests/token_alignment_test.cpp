// Tokens of two tokenizers aligned by the characters they cover (issue 17, item 1).
#include <gtest/gtest.h>

#include "analysis/token_alignment.h"

using namespace sinkscope::analysis;

TEST(TokenAlignment, ByteLevelAndWordPieceTokensAlignByTheirCharacters) {
  const std::string text = "The cat's dinner caf\xC3\xA9";  // "café": two bytes for é
  // A byte-level BPE (GPT-2 style, with a BOS): "é" split over two byte tokens.
  const std::vector<std::string> bpe{"<s>", "The", "\u2423cat", "'s", "\u2423din", "ner", "\u2423caf",
                                     "<0xC3>", "<0xA9>"};
  const std::vector<bool> bpeSpecial{true, false, false, false, false, false, false, false, false};
  // An uncased WordPiece: [CLS] the cat ' s dinner cafe... (here "caf" "##é") [SEP].
  const std::vector<std::string> wp{"[CLS]", "the", "cat", "'", "s", "dinner", "caf", "##\xC3\xA9", "[SEP]"};
  const std::vector<bool> wpSpecial{true, false, false, false, false, false, false, false, true};
  const auto a = token_spans(text, bpe, bpeSpecial);
  const auto b = token_spans(text, wp, wpSpecial);
  EXPECT_EQ(a[0], (TokenSpan{-1, -1})) << "special: no characters";
  EXPECT_EQ(a[1], (TokenSpan{0, 3}));
  EXPECT_EQ(a[2], (TokenSpan{4, 7})) << "the space before a word is not its characters";
  EXPECT_EQ(a[3], (TokenSpan{7, 9}));
  EXPECT_EQ(a[7], (TokenSpan{20, 21})) << "a byte token covers its byte";
  EXPECT_EQ(a[8], (TokenSpan{21, 22}));
  EXPECT_EQ(b[1], (TokenSpan{0, 3})) << "uncased: ASCII case is ignored";
  EXPECT_EQ(b[7], (TokenSpan{20, 22})) << "## continues the word";
  const std::vector<int> aToB = token_alignment(a, b);
  EXPECT_EQ(aToB, (std::vector<int>{-1, 1, 2, -1, -1, -1, 6, -1, -1}))
      << "The=the, cat=cat, caf=caf; 's, din|ner and the bytes of é do not align one to one";
  const std::vector<int> bToA = token_alignment(b, a);
  EXPECT_EQ(bToA[1], 1);
  EXPECT_EQ(bToA[5], -1) << "dinner is two BPE tokens";
  EXPECT_EQ(bToA[8], -1) << "[SEP] covers nothing";
}

TEST(TokenAlignment, MarkersAndTextTheTokenizerChangedAreHandled) {
  const std::string text = "a\nb  c";
  const auto s = token_spans(text, {"a", "\u21b5b", "\u2423\u2423c"}, {false, false, false});
  EXPECT_EQ(s[0], (TokenSpan{0, 1}));
  EXPECT_EQ(s[1], (TokenSpan{2, 3}));
  EXPECT_EQ(s[2], (TokenSpan{5, 6}));
  // A token whose text is not in the sentence (a normaliser changed it) has no span,
  // and the tokens after it still find theirs.
  const auto t = token_spans("x y z", {"x", "Q", "y", "z"}, {});
  EXPECT_EQ(t[1], (TokenSpan{-1, -1}));
  EXPECT_EQ(t[2], (TokenSpan{2, 3}));
  EXPECT_EQ(t[3], (TokenSpan{4, 5}));
  EXPECT_TRUE(token_spans("", {"a"}, {}).front().first < 0);
}
