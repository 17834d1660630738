// MainWindow's figure commands: Ctrl+E on the
// focused view or its whole panel, and figures of views from several panels,
// whose layout is part of the session.
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
#include "ui/main_window.h"
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

std::vector<QWidget*> MainWindow::dockViews(QDockWidget* dock) const {
  std::vector<QWidget*> views;
  if (!dock) return views;
  // The panels a figure names: their views in the panel's own order, so a
  // whole panel is the same figure with and without a display.
  if (const QStringList known = figure_views_of_dock(dock->objectName()); !known.isEmpty())
    return viewsNamed(known);
  for (QWidget* w : dock->findChildren<QWidget*>())
    if (render::figure_exportable(w) && !w->objectName().isEmpty()) views.push_back(w);
  // As the panel shows them: top to bottom, left to right.
  std::stable_sort(views.begin(), views.end(), [dock](QWidget* a, QWidget* b) {
    const QPoint pa = a->mapTo(dock, QPoint(0, 0)), pb = b->mapTo(dock, QPoint(0, 0));
    return pa.y() != pb.y() ? pa.y() < pb.y() : pa.x() < pb.x();
  });
  return views;
}

std::vector<QWidget*> MainWindow::viewsNamed(const QStringList& names) const {
  std::vector<QWidget*> views;
  for (const QString& name : names)
    for (QWidget* w : findChildren<QWidget*>(name))
      if (render::figure_exportable(w)) {
        views.push_back(w);
        break;
      }
  return views;
}

void MainWindow::setFigureLayout(const QStringList& views, int columns) {
  figureViews_ = views;
  figureColumns_ = std::clamp(columns, 0, 26);
}

bool MainWindow::exportFigure(const std::vector<QWidget*>& views, const QString& path,
                              const render::FigureOptions& options, int columns, bool overwrite) {
  lastExportNote_.clear();
  const bool ok = reportExport(path, [&] {
    const QStringList leftOut = render::figure_export(views, path, options, columns, overwrite);
    if (!leftOut.isEmpty())
      lastExportNote_ = tr("left out, nothing to draw: %1").arg(leftOut.join(QStringLiteral("; ")));
  });
  if (ok && !lastExportNote_.isEmpty())
    statusBar()->showMessage(tr("Exported %1 (%2)").arg(path, lastExportNote_), 8000);
  return ok;
}

void MainWindow::writeFigureWhenReady(const FigureRequest& request) {
  auto fail = [this](const QString& reason) { Q_EMIT figureWritten(false, reason); };
  QStringList names;
  try {
    names = figure_views_of(request.names);
  } catch (const std::invalid_argument& e) {
    return fail(QString::fromUtf8(e.what()));
  }
  if (!workspace_->run()) return fail(tr("no sentence has been run"));
  for (const FigurePanelName& panel : figure_panel_names())
    if (panel.needsCheckpoints && request.names.contains(panel.name) &&
        workspace_->checkpoints().steps.empty())
      return fail(tr("--panel %1 needs a training run's checkpoints (a session that names them)")
                      .arg(panel.name));
  // The selection asked for, checked against the model.
  const int layers = selection_->layerCount(), heads = selection_->headCount(),
            tokens = selection_->tokenCount();
  if (request.layer && (*request.layer < 0 || *request.layer >= layers))
    return fail(tr("--layer %1: the model has layers 0 to %2").arg(*request.layer).arg(layers - 1));
  if (request.head && (*request.head < SelectionModel::kHeadAverage || *request.head >= heads))
    return fail(tr("--head %1: the model has heads 0 to %2 (or avg)").arg(*request.head).arg(heads - 1));
  for (const auto& [given, what] : {std::pair{request.query, QStringLiteral("--query")},
                                    std::pair{request.key, QStringLiteral("--key")}})
    if (given && (*given < -1 || *given >= tokens))
      return fail(tr("%1 %2: the sentence has tokens 0 to %3").arg(what).arg(*given).arg(tokens - 1));
  if (request.layer) selection_->setLayer(*request.layer);
  if (request.head) selection_->setHead(*request.head);
  if (request.query) selection_->setQueryToken(*request.query);
  if (request.key) selection_->setKeyToken(*request.key);
  if (request.threshold) selection_->setThreshold(*request.threshold);
  if (request.topN) selection_->setTopN(*request.topN);
  if (request.camera) {
    std::vector<std::pair<QString, render::SceneCamera>> cameras;
    for (const char* view : {"graphView", "spectralEmbedding", "valueSpaceView"})
      cameras.emplace_back(QString::fromLatin1(view), *request.camera);
    setSceneCameras(cameras);
  }
  // Ready when no job has run for two looks in a row: a result that arrives
  // redraws the panels, which may ask for more (the topology of a head, the
  // spectrum at a threshold).
  // A comparison's run B (its model loads in the background) is set up once
  // everything is quiet, then the panels get quiet again before the export.
  auto* poll = new QTimer(this);
  poll->setInterval(50);
  auto quietLooks = std::make_shared<int>(0);
  auto comparisonSet = std::make_shared<bool>(false);
  connect(poll, &QTimer::timeout, this, [this, poll, quietLooks, comparisonSet, names, request] {
    *quietLooks = jobs_->activeJobCount() == 0 ? *quietLooks + 1 : 0;
    if (*quietLooks < 2) return;
    if (!*comparisonSet) {
      *comparisonSet = true;
      *quietLooks = 0;
      const QString problem = applyFigureComparison(request);
      if (problem.isEmpty()) return;
      poll->deleteLater();
      Q_EMIT figureWritten(false, problem);
      return;
    }
    poll->deleteLater();
    const std::vector<QWidget*> views = viewsNamed(names);
    if (views.size() != static_cast<std::size_t>(names.size())) {
      QStringList missing;
      for (const QString& name : names)
        if (viewsNamed({name}).empty()) missing << name;
      Q_EMIT figureWritten(false, tr("nothing to draw in %1 for this run")
                                      .arg(missing.join(QStringLiteral(", "))));
      return;
    }
    const bool ok = views.size() == 1
                        ? exportPanel(views.front(), request.out, request.options, request.force)
                        : exportFigure(views, request.out, request.options, request.columns,
                                       request.force);
    Q_EMIT figureWritten(ok, ok ? request.out : lastExportError_);
  });
  poll->start();
}

QString MainWindow::applyFigureComparison(const FigureRequest& request) {
  const bool asked = request.compareLayer || request.compareHead || !request.comparison.isEmpty();
  if (!asked) return {};
  if (!workspace_->comparing() || !workspace_->runB())
    return tr("--compare-layer, --compare-head and --comparison need a comparison "
              "(--compare-sentence, --compare-model, or a session that compares)");
  const int layers = selection_->counterpartLayerCount(), heads = selection_->counterpartHeadCount();
  if (request.compareLayer && (*request.compareLayer < 0 || *request.compareLayer >= layers))
    return tr("--compare-layer %1: %2 has layers 0 to %3").arg(*request.compareLayer).arg(workspace_->rightName()).arg(layers - 1);
  if (request.compareHead &&
      (*request.compareHead < SelectionModel::kHeadAverage || *request.compareHead >= heads))
    return tr("--compare-head %1: %2 has heads 0 to %3 (or avg)").arg(*request.compareHead).arg(workspace_->rightName()).arg(heads - 1);
  if (request.compareLayer) selection_->setCounterpartLayer(*request.compareLayer);
  if (request.compareHead) selection_->setCounterpartHead(*request.compareHead);
  if (!request.comparison.isEmpty()) {
    const auto c = comparison_of(request.comparison);
    if (!c) return tr("--comparison %1: give a, b, difference or side-by-side").arg(request.comparison);
    comparisonChooser_->setComparison(*c);
  }
  return {};
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
    if (render::figure_exportable(w)) view = w;
  if (!view) view = attentionPanel_->exportedView();
  if (!view) return;
  QDockWidget* dock = dock_of(view);
  const QString dockTitle = dock ? dock->windowTitle() : tr("panel");
  const std::vector<QWidget*> whole = dockViews(dock);
  // Say which view is exported: its panel and its own name.
  ExportDialog dialog(tr("%1: %2").arg(dockTitle, view_words(view)), this);
  dialog.offerWholePanel(static_cast<int>(whole.size()));
  if (dialog.exec() != QDialog::Accepted) return;
  dialog.remember();
  const QString name = QStringLiteral("%1-layer%2-head%3-%4.png")
                           .arg(workspace_->run() ? workspace_->run()->source : QStringLiteral("sinkscope"))
                           .arg(selection_->layer())
                           .arg(selection_->headAveraged() ? QStringLiteral("avg")
                                                           : QString::number(selection_->head()))
                           .arg(dialog.wholePanel() && dock ? dock->objectName() : view->objectName());
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export %1").arg(dockTitle), QDir(export_folder()).filePath(name),
      dialog.wholePanel()
          ? tr("PNG image (*.png);;PDF (*.pdf);;SVG (*.svg)")
          : tr("PNG image (*.png);;PDF (*.pdf);;SVG (*.svg);;CSV of the numbers (*.csv)"));
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
      tr("PDF (*.pdf);;SVG (*.svg);;PNG image (*.png)"));
  if (path.isEmpty()) return;
  export_folder_remember(path);
  exportFigure(viewsNamed(chosen), path, options.options(), figureColumns_);
}

}  // namespace sinkscope::ui
