#include "render/token_label.h"

namespace sinkscope::render {

namespace {

// The UTF-16 index after `count` code points of `text` from `from` (forward)
// or before them (backward), clamped to the text.
qsizetype step_code_points(const QString& text, qsizetype from, int count, bool forward) {
  qsizetype at = from;
  for (int i = 0; i < count; ++i) {
    if (forward) {
      if (at >= text.size()) break;
      at += (text[at].isHighSurrogate() && at + 1 < text.size() && text[at + 1].isLowSurrogate())
                ? 2
                : 1;
    } else {
      if (at <= 0) break;
      at -= (text[at - 1].isLowSurrogate() && at >= 2 && text[at - 2].isHighSurrogate()) ? 2 : 1;
    }
  }
  return at;
}

}  // namespace

QString token_shown(const QString& token) {
  // Cheap test first: a string of at most N UTF-16 units has at most N code points.
  if (token.size() <= kShownTokenCharacters) return token;
  if (step_code_points(token, 0, kShownTokenCharacters, true) >= token.size()) return token;
  const int head = (kShownTokenCharacters - 1) / 2, tail = kShownTokenCharacters - 1 - head;
  const qsizetype headEnd = step_code_points(token, 0, head, true);
  const qsizetype tailBegin = step_code_points(token, token.size(), tail, false);
  return token.left(headEnd) + QChar(0x2026) + token.mid(tailBegin);
}

}  // namespace sinkscope::render
