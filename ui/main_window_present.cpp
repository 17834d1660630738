// The classroom mode (View > Present, --present): the map and the panel in
// front fill the screen with large text, a line says what the red labels
// mean, and keys step through layers, heads and demonstration sentences.
#include <QAction>
#include <QDockWidget>
#include <QKeySequence>
#include <QLabel>
#include <QStatusBar>
#include <QTimer>

#include "models/document/sentence_run.h"
#include "models/document/trace_analysis.h"
#include "render/heat_map_view.h"
#include "render/line_plot_view.h"
#include "render/scene_view.h"
#include "ui/analysis_panels.h"
#include "ui/example_picker.h"
#include "ui/job_status.h"
#include "ui/main_window.h"
#include "ui/panel_board.h"
#include "ui/panels/attention_map_panel.h"
#include "ui/selection_model.h"
#include "ui/workspace.h"

namespace sinkscope::ui {

namespace {
// Text on a projector: 1.6 times the screen's sizes.
constexpr double kPresentTextScale = 1.6;

QStringList demonstration_sentences() {
  return resource_lines(QStringLiteral(":/examples/demonstrations.txt"));
}
}  // namespace

QDockWidget* MainWindow::frontPlotDock() const {
  // The plots' tab in front: the one of them that is on screen.
  std::vector<QDockWidget*> plots{profileDock_};
  plots.insert(plots.end(), analysisDocks_.begin() + 1, analysisDocks_.end());  // [0]: the overview
  for (QDockWidget* dock : plots)
    if (dock->isVisible() && !dock->visibleRegion().isEmpty()) return dock;
  return profileDock_;
}

void MainWindow::setPresenting(bool on) {
  if (on == presenting_) return;
  presenting_ = on;
  presentAction_->setChecked(on);
  if (on) {
    beforePresenting_ = saveState(kLayoutVersion);
    wasFullScreen_ = isFullScreen();
    QDockWidget* chosen = frontPlotDock();
    presentedDock_ = chosen->objectName();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
      if (dock != attentionDock_ && dock != chosen) dock->hide();
    chosen->show();
    chosen->raise();
    // The map takes the larger part of the screen once the docks have their sizes.
    QTimer::singleShot(0, this, [this, chosen] {
      if (!presenting_ || dockWidgetArea(chosen) != dockWidgetArea(attentionDock_)) return;
      const int both = attentionDock_->height() + chosen->height();
      resizeDocks({attentionDock_, chosen}, {both * 3 / 5, both - both * 3 / 5}, Qt::Vertical);
    });
    // Esc leaves the classroom mode (it cancels jobs otherwise).
    cancelAction_->setShortcut(QKeySequence());
    presentAction_->setShortcuts({QKeySequence(Qt::Key_F5), QKeySequence(Qt::Key_Escape)});
    showFullScreen();
  } else {
    restoreState(beforePresenting_, kLayoutVersion);
    presentedDock_.clear();
    cancelAction_->setShortcut(QKeySequence(Qt::Key_Escape));
    presentAction_->setShortcuts({QKeySequence(Qt::Key_F5)});
    if (!wasFullScreen_) showNormal();
  }
  board_->attentionMap()->setLegendShown(on);
  const double scale = on ? kPresentTextScale : 1.0;
  QFont font = this->font();
  font.setPointSizeF(baseFontPoints_ * scale);
  setFont(font);  // the Qt widgets: bars, lists, labels
  for (auto* view : findChildren<render::HeatMapView*>()) view->setTextScale(scale);
  for (auto* view : findChildren<render::LinePlotView*>()) view->setTextScale(scale);
  for (auto* view : findChildren<render::SceneView*>()) view->setTextScale(scale);
  Q_EMIT presentingChanged(on);
}

void MainWindow::goToStrongestSink() {
  if (!workspace_->run() || !workspace_->run()->analysis) {
    statusBar()->showMessage(tr("The strongest sink: wait for the analysis of every head"), 5000);
    return;
  }
  // The head whose queries give the first token the most attention on average.
  const TraceAnalysis& a = *workspace_->run()->analysis;
  int bestLayer = 0, bestHead = 0;
  double best = -1;
  for (int l = 0; l < a.layers; ++l)
    for (int h = 0; h < a.heads; ++h)
      if (a.at(l, h).meanOverQueries.sinkAttention > best)
        best = a.at(l, h).meanOverQueries.sinkAttention, bestLayer = l, bestHead = h;
  selection_->setLayer(bestLayer);
  selection_->setHead(bestHead);
  statusBar()->showMessage(tr("Strongest sink: layer %1, head %2 (its queries give the first token %3% "
                              "of their attention on average)")
                               .arg(bestLayer)
                               .arg(bestHead)
                               .arg(100.0 * best, 0, 'f', 0),
                           8000);
}

void MainWindow::stepDemonstration(int step) {
  const QStringList sentences = demonstration_sentences();
  if (sentences.isEmpty()) return;
  const int n = static_cast<int>(sentences.size());
  demonstration_ = ((demonstration_ + step) % n + n) % n;
  setSentence(sentences[demonstration_]);
  runSentence();
}

}  // namespace sinkscope::ui
