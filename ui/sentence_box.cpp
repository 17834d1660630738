#include "ui/sentence_box.h"

#include <QMimeData>
#include <QSignalBlocker>

namespace sinkscope::ui {

bool text_has_unbreakable_run(const QString& text) {
  qsizetype run = 0;
  for (const QChar c : text) {
    run = c.isSpace() ? 0 : run + 1;
    if (run > kWordWrapLongestRun) return true;
  }
  return false;
}

SentenceBox::SentenceBox(QWidget* parent) : QPlainTextEdit(parent) {}

QTextOption::WrapMode SentenceBox::wrapFor(const QString& text) {
  return text_has_unbreakable_run(text) ? QTextOption::WrapAnywhere
                                        : QTextOption::WrapAtWordBoundaryOrAnywhere;
}

void SentenceBox::setSentence(const QString& text) {
  const QTextOption::WrapMode mode = wrapFor(text);
  if (wordWrapMode() != mode) {
    // A new mode lays the text out again: empty the box first (quietly: the
    // sentence is not empty for a moment), or the old unbreakable text would
    // be laid out word by word.
    {
      const QSignalBlocker quiet(this);
      clear();
    }
    setWordWrapMode(mode);
  }
  setPlainText(text);
}

void SentenceBox::insertFromMimeData(const QMimeData* source) {
  // The pasted text with what is there: a run may continue across the seam.
  // Only ever to wrapping anywhere: what is there then lays out in linear time.
  if (source && source->hasText() &&
      wrapFor(toPlainText() + source->text()) == QTextOption::WrapAnywhere)
    setWordWrapMode(QTextOption::WrapAnywhere);
  QPlainTextEdit::insertFromMimeData(source);
}

}  // namespace sinkscope::ui
