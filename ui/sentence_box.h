#pragma once
// The sentence editor. Qt lays out a line with no place to break (a pasted
// million-character word, a base64 blob) in time quadratic in its length:
// two minutes for a million characters, on the window's thread. Such text
// wraps anywhere instead, which is linear; ordinary sentences still wrap
// between words.
#include <QPlainTextEdit>

namespace sinkscope::ui {

// The longest run of non-space characters a line may hold and still wrap
// between words (a run of this length lays out in about a millisecond).
inline constexpr qsizetype kWordWrapLongestRun = 2000;

// Whether `text` holds a run of more than kWordWrapLongestRun characters
// without a space, tab or line break.
bool text_has_unbreakable_run(const QString& text);

class SentenceBox : public QPlainTextEdit {
 public:
  explicit SentenceBox(QWidget* parent = nullptr);
  // Replaces the text, choosing the wrap mode before Qt lays it out.
  void setSentence(const QString& text);

 protected:
  void insertFromMimeData(const QMimeData* source) override;

 private:
  static QTextOption::WrapMode wrapFor(const QString& text);
};

}  // namespace sinkscope::ui
