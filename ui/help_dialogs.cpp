#include "ui/help_dialogs.h"

#include <QAction>
#include <QDialog>
#include <QFile>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace sinkscope::ui {

namespace {

// One reading window per kind, kept (and raised) while its parent lives.
QDialog* reading_window(QWidget* parent, const QString& name, const QString& title) {
  if (auto* open = parent->findChild<QDialog*>(name)) {
    open->show();
    open->raise();
    open->activateWindow();
    return open;
  }
  auto* dialog = new QDialog(parent);
  dialog->setObjectName(name);
  dialog->setWindowTitle(title);
  dialog->resize(820, 760);
  auto* layout = new QVBoxLayout(dialog);
  auto* text = new QTextBrowser(dialog);
  text->setObjectName(name + QStringLiteral("Text"));
  text->setOpenExternalLinks(true);
  layout->addWidget(text);
  return dialog;
}

QString escaped(QString text) { return text.toHtmlEscaped(); }

}  // namespace

QDialog* show_metric_definitions(QWidget* parent) {
  QDialog* dialog = reading_window(parent, QStringLiteral("metricDefinitions"),
                                   QObject::tr("SinkScope: metric definitions"));
  auto* text = dialog->findChild<QTextBrowser*>();
  if (text->toPlainText().isEmpty()) {
    QFile file(QStringLiteral(":/docs/metrics.md"));
    text->setMarkdown(
        file.open(QIODevice::ReadOnly)
            ? QString::fromUtf8(file.readAll())
            : QObject::tr("The definitions (docs/metrics.md) are missing from this build."));
  }
  dialog->show();
  return dialog;
}

QDialog* show_keyboard_shortcuts(QMainWindow* window) {
  QDialog* dialog = reading_window(window, QStringLiteral("keyboardShortcuts"),
                                   QObject::tr("SinkScope: keyboard shortcuts"));
  // Every menu's commands with their keys: a shortcut of the action, or the
  // key its text names after a tab (the keys the window handles itself).
  QString html = QStringLiteral("<h2>%1</h2>").arg(QObject::tr("Keyboard shortcuts"));
  for (QAction* top : window->menuBar()->actions()) {
    QMenu* menu = top->menu();
    if (!menu) continue;
    QString rows;
    for (QAction* action : menu->actions()) {
      QString name = action->text();
      QString key = action->shortcut().toString(QKeySequence::NativeText);
      if (const int tab = name.indexOf(QLatin1Char('\t')); tab >= 0) {
        if (key.isEmpty()) key = name.mid(tab + 1);
        name = name.left(tab);
      }
      if (key.isEmpty()) continue;
      name.remove(QLatin1Char('&'));
      rows +=
          QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(escaped(key), escaped(name));
    }
    if (rows.isEmpty()) continue;
    QString title = top->text();
    title.remove(QLatin1Char('&'));
    html +=
        QStringLiteral("<h3>%1</h3><table cellpadding=\"4\">%2</table>").arg(escaped(title), rows);
  }
  html += QStringLiteral("<h3>%1</h3><p>%2</p>")
              .arg(QObject::tr("Classroom mode (F5)"),
                   QObject::tr("The arrows step through layers and heads, S jumps to the head "
                               "with the strongest sink, N / P run the next / previous "
                               "demonstration sentence, Esc leaves."));
  dialog->findChild<QTextBrowser*>()->setHtml(html);
  dialog->show();
  return dialog;
}

}  // namespace sinkscope::ui
