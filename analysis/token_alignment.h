#pragma once
// Tokens of two tokenizers for one text, aligned by the characters they
// cover (issue 17, item 1): each token's span in the text is found from its
// display string (SinkScope's readable form: "␣" a space, "↵" a newline,
// "⇥" a tab, "<0xNN>" a byte, WordPiece's "##" a continuation, "▁"
// SentencePiece's space), ignoring the white space before it and ASCII case
// (uncased vocabularies); two tokens align when they cover the same
// characters. Special tokens ([CLS], <s>) cover none and align with none.
#include <string>
#include <utility>
#include <vector>

namespace sinkscope::analysis {

// [begin, end) in bytes of the text; {-1, -1}: no span (special, or not found).
using TokenSpan = std::pair<int, int>;

std::vector<TokenSpan> token_spans(const std::string& text, const std::vector<std::string>& display,
                                   const std::vector<bool>& special);

// For each token of `a`, the token of `b` with the same span, or -1.
std::vector<int> token_alignment(const std::vector<TokenSpan>& a, const std::vector<TokenSpan>& b);

}  // namespace sinkscope::analysis
