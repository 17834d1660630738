#pragma once
// A token as a view draws it. A tokenizer may add a token of a million
// characters; laying out its glyphs takes seconds in every view that labels
// it, so views draw at most kShownTokenCharacters of it, the middle elided.
// Tables, CSVs and hover text written for copying keep the whole token.
#include <QString>
#include <string>

namespace sinkscope::render {

inline constexpr int kShownTokenCharacters = 48;

// `token` unchanged when it has at most kShownTokenCharacters characters
// (code points); else its first and last characters around "…", never
// splitting a surrogate pair.
QString token_shown(const QString& token);
// The same for a view description's UTF-8 text.
inline QString token_shown(const std::string& token) {
  return token_shown(QString::fromStdString(token));
}

}  // namespace sinkscope::render
