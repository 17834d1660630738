#pragma once
// The text of a sentence file, parsed: what corpus_read_lines and
// corpus_read_sentences read (models/corpus.h), without the file, so that
// the parser alone can be fuzzed.
#include <string>
#include <vector>

namespace sinkscope::models {

// The non-blank lines of `text` (a final "\r" dropped), every one valid UTF-8
// without NUL; with `jsonLines`, the string field "text" of the JSON object on
// each non-blank line instead (other fields ignored; nesting bounded). Throws
// ModelInputError("SOURCE: line N: ...") naming the problem.
std::vector<std::string> sentences_parse(const std::string& text, bool jsonLines,
                                         const std::string& source);

}  // namespace sinkscope::models
