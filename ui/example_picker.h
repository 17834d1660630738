#pragma once
// The Examples list: a search box over the example
// sentences and a short list of the matches; picking one (click, Enter)
// runs it. Replaces a menu of 500 entries that filled the screen.
#include <QStringList>
#include <QWidget>

class QLineEdit;
class QListWidget;

namespace sinkscope::ui {

// The non-blank lines of a compiled-in text file (":/examples/sentences.txt"),
// trimmed; none when it cannot be read.
QStringList resource_lines(const QString& path);

class ExamplePicker : public QWidget {
  Q_OBJECT

 public:
  ExamplePicker(QStringList sentences, QWidget* parent = nullptr);
  QLineEdit* searchBox() const { return search_; }
  QListWidget* list() const { return list_; }
  // Shows the sentences containing `text` (any case; empty: all).
  void filter(const QString& text);

 Q_SIGNALS:
  void picked(const QString& sentence);

 private:
  QStringList sentences_;
  QLineEdit* search_ = nullptr;
  QListWidget* list_ = nullptr;
};

}  // namespace sinkscope::ui
