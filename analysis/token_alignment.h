#pragma once
// Tokens of two tokenizers for one text, aligned by the characters they
// cover: each token's span is its tokenizer's offset (models::Encoding::
// offsets, through the normaliser's alignment, never a search of the text);
// two tokens align when they cover the same bytes. Special tokens the
// tokenizer adds cover none and align with none.
#include <utility>
#include <vector>

namespace sinkscope::analysis {

// [begin, end) in bytes of the text; {-1, -1}: no span.
using TokenSpan = std::pair<int, int>;

// For each token of `a`, the token of `b` with the same span, or -1.
std::vector<int> token_alignment(const std::vector<TokenSpan>& a, const std::vector<TokenSpan>& b);

}  // namespace sinkscope::analysis
