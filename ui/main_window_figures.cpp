// MainWindow's export commands: Ctrl+E on the focused view or its whole
// panel, figures of views from several panels (their layout is part of the
// session), and the run's tensors; errors go to the status bar.
#include <QApplication>
#include <algorithm>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QLabel>
#include <QListWidget>
#include <QSpinBox>
#include <QStatusBar>
#include <QTimer>
#include <memory>
#include <QVBoxLayout>

#include "render/figure_part.h"
#include "render/heat_map_view.h"
#include "render/line_plot_view.h"
#include "render/scene_view.h"
#include "ui/comparison_chooser.h"
#include "ui/checkpoints_panel.h"
#include "ui/export_dialog.h"
#include "ui/job_runner.h"
#include "ui/job_status.h"
#include "ui/figure_writer.h"
#include "ui/main_window.h"
#include "ui/panel_board.h"
#include "ui/panel_registry.h"
#include "ui/panels/attention_map_panel.h"
#include "ui/workspace.h"
#include "ui/interventions_panel.h"
#include "ui/selection_model.h"

namespace sinkscope::ui {

namespace {

// The dock a view sits in (null when none).
QDockWidget* dock_of(QWidget* view) {
  for (QWidget* w = view; w; w = w->parentWidget())
    if (auto* dock = qobject_cast<QDockWidget*>(w)) return dock;
  return nullptr;
}

}  // namespace

bool MainWindow::exportPanel(QWidget* view, const QString& path, int dpi, bool overwrite) {
  render::FigureOptions options;
  options.dpi = dpi;
  return exportPanel(view, path, options, overwrite);
}

bool MainWindow::exportPanel(QWidget* view, const QString& path,
                             const render::FigureOptions& options, bool overwrite) {
  const QStringList provenance = workspace_->provenance();
  return reportExport(path, [&] {
    figure_write_view(board_->drawnViews(), view, path, options, provenance, overwrite);
  });
}

bool MainWindow::reportExport(const QString& path, const std::function<void()>& write) {
  lastExportError_.clear();
  try {
    write();
  } catch (const std::exception& e) {
    lastExportError_ = QString::fromUtf8(e.what());
    jobStatus_->showError(lastExportError_, lastExportError_);
    return false;
  }
  statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
  return true;
}

void MainWindow::chooseRunTensorsFile() {
  const QString name =
      QStringLiteral("%1-run.npz")
          .arg(workspace_->run() ? QString::fromStdString(workspace_->run()->source)
                                 : QStringLiteral("sinkscope"));
  const QString path = QFileDialog::getSaveFileName(this, tr("Export run tensors"),
                                                    QDir::home().filePath(name),
                                                    tr("NumPy NPZ (*.npz)"));
  if (!path.isEmpty()) exportRunTensors(path);
}

void MainWindow::exportRunTensors(const QString& path, bool overwrite) {
  workspace_->exportRunTensors(path, overwrite);
}

void MainWindow::shareAsWebPage(const QString& path, bool overwrite) {
  workspace_->shareAsWebPage(path, overwrite);
}

void MainWindow::chooseWebPageFile() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Share as web page (one HTML file: opens in any browser, no network)"),
      QDir::home().filePath(QStringLiteral("sinkscope-run.html")), tr("Web page (*.html)"));
  if (!path.isEmpty()) shareAsWebPage(path);
}

void MainWindow::openCapture(const QString& path) { workspace_->openCapture(path); }

void MainWindow::chooseCaptureFile() {
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open capture (attention [layers, heads, T, T] saved as NPZ)"), QDir::homePath(),
      tr("NumPy NPZ (*.npz)"));
  if (!path.isEmpty()) openCapture(path);
}

std::vector<QWidget*> MainWindow::dockViews(QDockWidget* dock) const {
  std::vector<QWidget*> views;
  if (!dock) return views;
  // The panels a figure names: their views in the panel's own order, so a
  // whole panel is the same figure with and without a display.
  if (const PanelEntry* panel = panel_entry_of_dock(dock->objectName()))
    return viewsNamed(panel->views);
  for (QWidget* w : dock->findChildren<QWidget*>())
    if (board_->drawnViews().exportable(w) && !w->objectName().isEmpty()) views.push_back(w);
  // As the panel shows them: top to bottom, left to right.
  std::stable_sort(views.begin(), views.end(), [dock](QWidget* a, QWidget* b) {
    const QPoint pa = a->mapTo(dock, QPoint(0, 0)), pb = b->mapTo(dock, QPoint(0, 0));
    return pa.y() != pb.y() ? pa.y() < pb.y() : pa.x() < pb.x();
  });
  return views;
}

std::vector<QWidget*> MainWindow::viewsNamed(const QStringList& names) const {
  return board_->viewsNamed(names);
}

void MainWindow::setFigureLayout(const QStringList& views, int columns) {
  figureViews_ = views;
  figureColumns_ = std::clamp(columns, 0, 26);
}

bool MainWindow::exportFigure(const std::vector<QWidget*>& views, const QString& path,
                              const render::FigureOptions& options, int columns, bool overwrite) {
  lastExportNote_.clear();
  const bool ok = reportExport(path, [&] {
    const QStringList leftOut =
        render::figure_export(board_->drawnViews().parts(views), path, options, columns, overwrite);
    if (!leftOut.isEmpty())
      lastExportNote_ = tr("left out, nothing to draw: %1").arg(leftOut.join(QStringLiteral("; ")));
  });
  if (ok && !lastExportNote_.isEmpty())
    statusBar()->showMessage(tr("Exported %1 (%2)").arg(path, lastExportNote_), 8000);
  return ok;
}

namespace {

// A view's name in words, for dialogs: "persistenceDiagram" -> "persistence
// diagram", "attentionView" -> "attention" (the object name is for files and
// the command line).
QString view_words(const QWidget* view) {
  const QString name = view->objectName();
  QString words;
  for (QChar c : name) {
    if (c.isUpper() && !words.isEmpty()) words += QLatin1Char(' ');
    words += c.toLower();
  }
  if (words.endsWith(QLatin1String(" view")) && words.size() > 5) words.chop(5);
  return words;
}

}  // namespace

void MainWindow::exportFocusedPanel() {
  QWidget* view = nullptr;
  for (QWidget* w = QApplication::focusWidget(); w && !view; w = w->parentWidget())
    if (board_->drawnViews().exportable(w)) view = w;
  if (!view) view = board_->attentionMap()->exportedView();
  if (!view) return;
  QDockWidget* dock = dock_of(view);
  const QString dockTitle = dock ? dock->windowTitle() : tr("panel");
  const std::vector<QWidget*> whole = dockViews(dock);
  // Say which view is exported: its panel and its own name.
  ExportDialog dialog(tr("%1: %2").arg(dockTitle, view_words(view)), this);
  dialog.offerWholePanel(static_cast<int>(whole.size()));
  if (dialog.exec() != QDialog::Accepted) return;
  dialog.remember();
  const PanelEntry* panel = dock ? panel_entry_of_dock(dock->objectName()) : nullptr;
  const bool wholePanel = dialog.wholePanel();
  const bool oneOfSeveral = !wholePanel && whole.size() > 1;
  const QString name = export_file_name(
      workspace_->run() ? QString::fromStdString(workspace_->run()->source) : QString(),
      selection_->layer(), selection_->headAveraged() ? -1 : selection_->head(),
      panel ? panel->name : (dock ? dock->objectName() : view->objectName()),
      oneOfSeveral || !panel ? view_words(view) : QString());
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export %1").arg(dockTitle), QDir(export_folder()).filePath(name),
      render::export_file_filters(!dialog.wholePanel()));
  if (path.isEmpty()) return;
  export_folder_remember(path);
  if (dialog.wholePanel())
    exportFigure(whole, path, dialog.options());
  else
    exportPanel(view, path, dialog.options());
}

void MainWindow::chooseFigureViews() {
  QDialog chooser(this);
  chooser.setWindowTitle(tr("Figure of several panels"));
  auto* layout = new QVBoxLayout(&chooser);
  layout->addWidget(new QLabel(tr("The views of the figure, as (a), (b), ... in this order:"), &chooser));
  auto* list = new QListWidget(&chooser);
  list->setDragDropMode(QAbstractItemView::InternalMove);  // drag to reorder
  // The remembered views first, in their order, then every other one.
  QStringList order = figureViews_;
  for (QDockWidget* dock : findChildren<QDockWidget*>())
    for (QWidget* v : dockViews(dock))
      if (!order.contains(v->objectName())) order << v->objectName();
  for (const QString& name : order) {
    const auto found = viewsNamed({name});
    if (found.empty()) continue;
    QDockWidget* dock = dock_of(found.front());
    auto* item = new QListWidgetItem(tr("%1: %2").arg(dock ? dock->windowTitle() : QString(), view_words(found.front())));
    item->setData(Qt::UserRole, name);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(figureViews_.contains(name) ? Qt::Checked : Qt::Unchecked);
    list->addItem(item);
  }
  layout->addWidget(list);
  auto* columns = new QSpinBox(&chooser);
  columns->setRange(0, 26);
  columns->setSpecialValueText(tr("automatic"));
  columns->setPrefix(tr("columns: "));
  columns->setValue(figureColumns_);
  layout->addWidget(columns);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &chooser);
  connect(buttons, &QDialogButtonBox::accepted, &chooser, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &chooser, &QDialog::reject);
  layout->addWidget(buttons);
  if (chooser.exec() != QDialog::Accepted) return;
  QStringList chosen;
  for (int k = 0; k < list->count(); ++k)
    if (list->item(k)->checkState() == Qt::Checked)
      chosen << list->item(k)->data(Qt::UserRole).toString();
  if (chosen.isEmpty()) return;
  setFigureLayout(chosen, columns->value());
  ExportDialog options(tr("a figure of %1 views").arg(chosen.size()), this);
  if (options.exec() != QDialog::Accepted) return;
  options.remember();
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export figure"), QDir(export_folder()).filePath(QStringLiteral("figure.pdf")),
      render::export_file_filters(false, QStringLiteral("pdf")));
  if (path.isEmpty()) return;
  export_folder_remember(path);
  exportFigure(viewsNamed(chosen), path, options.options(), figureColumns_);
}

}  // namespace sinkscope::ui
