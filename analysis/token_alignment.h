#pragma once
// Tokens of two tokenizers for one text, aligned by the characters they
// cover: each token's span is its tokenizer's offset (models::Encoding::
// offsets, through the normaliser's alignment, never a search of the text);
// two tokens align when they cover the same bytes. Special tokens the
// tokenizer adds cover none; given the tokens' strings, they align with the
// other run's special token of the same string (the k-th <s> of one with the
// k-th <s> of the other), else with none.
#include <string>
#include <utility>
#include <vector>

namespace sinkscope::analysis {

// [begin, end) in bytes of the text; {-1, -1}: no span.
using TokenSpan = std::pair<int, int>;

// For each token of `a`, the token of `b` with the same span, or -1.
std::vector<int> token_alignment(const std::vector<TokenSpan>& a, const std::vector<TokenSpan>& b);
// The same, special tokens (no span) paired by their strings, in order.
std::vector<int> token_alignment(const std::vector<TokenSpan>& a, const std::vector<TokenSpan>& b,
                                 const std::vector<std::string>& aTokens,
                                 const std::vector<std::string>& bTokens);

}  // namespace sinkscope::analysis
