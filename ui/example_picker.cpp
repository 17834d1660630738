#include "ui/example_picker.h"

#include <QFile>

#include <QKeyEvent>
#include <QLineEdit>
#include <QListWidget>
#include <QVBoxLayout>

namespace sinkscope::ui {

QStringList resource_lines(const QString& path) {
  QFile file(path);
  QStringList lines;
  if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) return lines;
  for (const QString& line : QString::fromUtf8(file.readAll()).split(QLatin1Char('\n')))
    if (!line.trimmed().isEmpty()) lines << line.trimmed();
  return lines;
}

ExamplePicker::ExamplePicker(QStringList sentences, QWidget* parent)
    : QWidget(parent), sentences_(std::move(sentences)) {
  setObjectName(QStringLiteral("examplePicker"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  search_ = new QLineEdit(this);
  search_->setObjectName(QStringLiteral("exampleSearch"));
  search_->setPlaceholderText(tr("Search %1 example sentences").arg(sentences_.size()));
  search_->setClearButtonEnabled(true);
  list_ = new QListWidget(this);
  list_->setObjectName(QStringLiteral("exampleList"));
  list_->setToolTip(tr("Click or press Enter to run the sentence"));
  // About a dozen rows: a short list, whatever the number of examples.
  list_->setMinimumWidth(420);
  list_->setFixedHeight(list_->fontMetrics().height() * 12 + 8);
  layout->addWidget(search_);
  layout->addWidget(list_);
  connect(search_, &QLineEdit::textChanged, this, &ExamplePicker::filter);
  // Enter in the search box picks the first match.
  connect(search_, &QLineEdit::returnPressed, this, [this] {
    if (list_->count() > 0) Q_EMIT picked(list_->item(0)->text());
  });
  connect(list_, &QListWidget::itemActivated, this,
          [this](QListWidgetItem* item) { Q_EMIT picked(item->text()); });
  connect(list_, &QListWidget::itemClicked, this,
          [this](QListWidgetItem* item) { Q_EMIT picked(item->text()); });
  filter(QString());
}

void ExamplePicker::filter(const QString& text) {
  list_->clear();
  for (const QString& s : sentences_)
    if (text.isEmpty() || s.contains(text, Qt::CaseInsensitive)) list_->addItem(s);
}

}  // namespace sinkscope::ui
