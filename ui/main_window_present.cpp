// The classroom mode (View > Present, --present): the map and the panel in
// front fill the screen under a caption of the sentence and its finding,
// with large text; a line says what the red labels mean, and keys step
// through layers, heads and demonstration sentences.
#include <QAction>
#include <QDockWidget>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QScreen>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <algorithm>
#include <initializer_list>
#include <utility>

#include "models/document/sentence_run.h"
#include "models/document/sink_finding.h"
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
#include "ui/present_stage.h"
#include "ui/selection_bar.h"
#include "ui/selection_model.h"
#include "ui/workspace.h"

namespace sinkscope::ui {

namespace {
QStringList demonstration_sentences() {
  return resource_lines(QStringLiteral(":/examples/demonstrations.txt"));
}
}  // namespace

QDockWidget* MainWindow::frontPlotDock() const {
  // The plots' tab in front: the one of them that is on screen.
  std::vector<QDockWidget*> plots{profileDock_};
  plots.insert(plots.end(), analysisDocks_.begin() + 1, analysisDocks_.end());  // [0]: the overview
  plots.push_back(checkpointsDock_);
  for (QDockWidget* dock : plots)
    if (dock->isVisible() && !dock->visibleRegion().isEmpty()) return dock;
  return profileDock_;
}

void MainWindow::setPresenting(bool on) {
  if (on && !layoutInitialised_) {
    // The saved layout is restored at the first show; the stage comes after it.
    presentWhenShown_ = true;
    return;
  }
  if (on == presenting_) return;
  presenting_ = on;
  presentAction_->setChecked(on);
  if (on) {
    enterStage();
  } else {
    leaveStage();
  }
  board_->attentionMap()->setPresenting(on);
  Q_EMIT presentingChanged(on);
}

void MainWindow::enterStage() {
  beforePresenting_ = saveState(kLayoutVersion);
  geometryBeforePresenting_ = saveGeometry();
  sizeBeforePresenting_ = size();
  modelDockWidthBeforePresenting_ = modelDockWidth_;
  layoutAfterResize_.clear();
  broughtForward_.clear();
  wasFullScreen_ = isFullScreen();
  presentedFrom_ = frontPlotDock();
  presentedDock_ = presentedFrom_->objectName();
  QWidget* map = attentionDock_->widget();
  QWidget* panel = presentedFrom_->widget();
  for (QDockWidget* dock : findChildren<QDockWidget*>()) dock->hide();
  for (QWidget* bar : std::initializer_list<QWidget*>{selectionBar_, menuBar(), statusBar()})
    bar->hide();
  if (!stage_) stage_ = new PresentStage(this);
  stage_->take(map, panel);
  setCentralWidget(stage_);
  stage_->show();
  // Esc leaves the classroom mode (it cancels jobs otherwise); the window
  // holds the action, its menu being hidden.
  cancelAction_->setShortcut(QKeySequence());
  presentAction_->setShortcuts({QKeySequence(Qt::Key_F5), QKeySequence(Qt::Key_Escape)});
  addAction(presentAction_);
  showFullScreen();
  // Without a window manager full screen is only a wish: take the screen.
  if (QScreen* s = screen()) {
    setGeometry(s->geometry());
    const int height = s->geometry().height();
    scaleText(PresentStage::labelScale(height), PresentStage::plotScale(height));
  }
  updatePresentCaption();
}

void MainWindow::bringForward(QDockWidget* dock) {
  if (!presenting_) {
    dock->show();
    dock->raise();
    return;
  }
  if (std::find(broughtForward_.begin(), broughtForward_.end(), dock) == broughtForward_.end())
    broughtForward_.push_back(dock);
  if (dock == presentedFrom_ || !stage_) return;
  QWidget* old = stage_->swapPanel(dock->widget());
  if (old && presentedFrom_) presentedFrom_->setWidget(old);
  presentedFrom_ = dock;
  presentedDock_ = dock->objectName();
}

void MainWindow::leaveStage() {
  const auto [map, panel] = stage_->giveBack();
  takeCentralWidget();
  stage_->setParent(this);
  stage_->hide();
  if (map) attentionDock_->setWidget(map);
  if (panel && presentedFrom_) presentedFrom_->setWidget(panel);
  presentedFrom_ = nullptr;
  presentedDock_.clear();
  removeAction(presentAction_);
  cancelAction_->setShortcut(QKeySequence(Qt::Key_Escape));
  presentAction_->setShortcuts({QKeySequence(Qt::Key_F5)});
  menuBar()->show();
  statusBar()->show();
  scaleText(1.0, 1.0);
  if (wasFullScreen_) {
    applyLayout(beforePresenting_);
    showBroughtForward();
    return;
  }
  layoutAfterResize_ = beforePresenting_;
  showNormal();
  restoreGeometry(geometryBeforePresenting_);
  if (size() == sizeBeforePresenting_) {
    applyLayoutAfterResize();
  } else {
    // resizeEvent applies it; a window manager that never gives the size back
    // gets the layout in its own size.
    QTimer::singleShot(1000, this, &MainWindow::applyLayoutAfterResize);
  }
}

void MainWindow::applyLayoutAfterResize() {
  if (layoutAfterResize_.isEmpty() || presenting_) return;
  const QByteArray state = std::exchange(layoutAfterResize_, {});
  applyLayout(state);
  showBroughtForward();
  modelDockWidth_ = modelDockWidthBeforePresenting_;
  lastWindowSize_ = size();
}

// What opened while presenting (a study, a training run) is in front afterwards.
void MainWindow::showBroughtForward() {
  for (QDockWidget* dock : std::exchange(broughtForward_, {})) {
    dock->show();
    dock->raise();
  }
}

void MainWindow::scaleText(double labelScale, double plotScale) {
  QFont font = this->font();
  font.setPointSizeF(baseFontPoints_ * plotScale);
  setFont(font);  // the Qt widgets: bars, lists, labels
  for (auto* view : findChildren<render::HeatMapView*>()) view->setTextScale(labelScale);
  for (auto* view : findChildren<render::LinePlotView*>()) view->setTextScale(plotScale);
  for (auto* view : findChildren<render::SceneView*>()) view->setTextScale(plotScale);
}

void MainWindow::applyLayout(const QByteArray& state) {
  if (presenting_) {
    beforePresenting_ = state;
    return;
  }
  // Sessions before the layout had its version saved it as version 0.
  if (!restoreState(state, kLayoutVersion)) restoreState(state, 0);
}

// The caption: the sentence that ran and what the selected head shows.
void MainWindow::updatePresentCaption() {
  if (!presenting_ || !stage_) return;
  const auto& run = workspace_->run();
  if (!run) {
    stage_->setCaption(workspace_->sentence(), tr("Open a model and press Run."));
    return;
  }
  const QString sentence = QStringLiteral("\u201C%1\u201D").arg(QString::fromStdString(run->text));
  const int layer = selection_->layer(), head = selection_->head();
  const bool ready =
      run->analysis && layer >= 0 && layer < run->analysis->layers && head < run->analysis->heads;
  stage_->setCaption(
      sentence, ready ? QString::fromStdString(document::sink_finding(*run->analysis, layer, head))
                      : tr("Analysing every head..."));
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
