#include "ui/panel_board.h"

#include <QCheckBox>
#include <QComboBox>
#include <QTimer>
#include <QWidget>

#include "render/figure_part.h"
#include "render/line_plot_view.h"
#include "render/panel_export.h"
#include "render/scene_view.h"
#include "ui/analysis_panels.h"
#include "ui/checkpoints_panel.h"
#include "ui/layer_fetch.h"
#include "ui/panel_registry.h"
#include "ui/panels/attention_map_panel.h"
#include "ui/panels/key_importance_panel.h"
#include "ui/selection_model.h"
#include "ui/workspace.h"

namespace sinkscope::ui {

namespace {
// The 3-D views whose cameras a session keeps.
const QStringList kSceneViews{QStringLiteral("graphView"), QStringLiteral("spectralEmbedding"),
                              QStringLiteral("valueSpaceView")};
}  // namespace

PanelBoard::PanelBoard(Workspace* workspace, QWidget* host)
    : QObject(host),
      workspace_(workspace),
      layerFetch_(new LayerFetch(workspace->jobs(), workspace->selection(), this)),
      attentionMap_(new AttentionMapPanel(workspace, drawn_, host)),
      keyImportance_(new KeyImportancePanel(workspace, drawn_, host)),
      analysis_(new AnalysisPanels(host, workspace->selection(), workspace->jobs(), drawn_)),
      checkpoints_(new CheckpointsPanel(drawn_, host)),
      batchedDraw_(new QTimer(this)) {
  analysis_->setLayerFetch(layerFetch_);
  connect(layerFetch_, &LayerFetch::ready, this, &PanelBoard::redraw);
  connect(attentionMap_, &AttentionMapPanel::failed, this, &PanelBoard::failed);
  connect(attentionMap_, &AttentionMapPanel::redrawWanted, this, &PanelBoard::drawMaps);
  connect(attentionMap_, &AttentionMapPanel::notice, this, &PanelBoard::notice);
  batchedDraw_->setSingleShot(true);
  batchedDraw_->setInterval(0);
  connect(batchedDraw_, &QTimer::timeout, this, &PanelBoard::drawMaps);
  // The analysis panels follow the selection themselves (AnalysisPanels).
  SelectionModel* selection = workspace->selection();
  connect(selection, &SelectionModel::changed, batchedDraw_, qOverload<>(&QTimer::start));
  connect(selection, &SelectionModel::highlightChanged, batchedDraw_, qOverload<>(&QTimer::start));
  connect(checkpoints_, &CheckpointsPanel::checkpointChosen, workspace, &Workspace::openModel);
  connect(checkpoints_, &CheckpointsPanel::emergenceRequested, workspace,
          &Workspace::computeEmergence);
  connectWorkspace();
}

void PanelBoard::connectWorkspace() {
  Workspace* w = workspace_;
  connect(w, &Workspace::runShown, this, &PanelBoard::redraw);
  connect(w, &Workspace::analysisFinished, this, &PanelBoard::redraw);  // the map marks the sinks now
  connect(w, &Workspace::runBChanged, this, &PanelBoard::redraw);
  connect(w, &Workspace::comparisonChanged, this, &PanelBoard::redraw);
  connect(w, &Workspace::runNamesChanged, this,
          [this] { analysis_->setRunNames(workspace_->runNames()); });
  connect(w, &Workspace::experimentsChanged, this, [this] {
    // The overview turns to the ablation's dNLL when it has just been computed.
    const bool newDnll =
        analysis_->experiments().headDnll.empty() && !workspace_->experiments().headDnll.empty();
    analysis_->setExperiments(workspace_->experiments());
    if (newDnll) analysis_->setScore(HeadScore::Dnll);
  });
  connect(w, &Workspace::checkpointsOpened, this, [this](const QString& folder) {
    checkpoints_->setCheckpoints(folder, workspace_->checkpoints());
  });
  connect(w, &Workspace::emergenceComputed, checkpoints_, &CheckpointsPanel::setEmergence);
}

void PanelBoard::redraw() {
  drawMaps();
  drawAnalysis();
}

void PanelBoard::flushDraws() {
  if (!batchedDraw_->isActive()) return;
  batchedDraw_->stop();
  drawMaps();
}

void PanelBoard::drawMaps() {
  if (!workspace_->run()) return;
  try {
    DrawnRuns drawn = workspace_->drawnRuns();
    if (drawn.waitingRun) {
      layerFetch_->ensure(*drawn.waitingRun, drawn.waitingForLayer);
      drawn.waitingNote = layerFetch_->note(*drawn.waitingRun, drawn.waitingForLayer);
    }
    attentionMap_->draw(drawn);
    keyImportance_->draw(drawn);
  } catch (const std::exception& e) {
    Q_EMIT failed(QString::fromUtf8(e.what()), QString::fromUtf8(e.what()));
  }
}

void PanelBoard::drawAnalysis() {
  const Workspace& w = *workspace_;
  const SentenceRun* shown = w.shownRun();
  analysis_->setRunNames(w.runNames());
  const bool sideBySide = w.runB() && w.comparison() == Comparison::SideBySide;
  // B of a comparison: the panels draw it at the selection's counterpart, A's
  // tokens through the two models' token correspondence.
  analysis_->setRun(shown ? std::make_shared<const SentenceRun>(*shown) : nullptr,
                    sideBySide && w.run() ? w.run()->analysis : nullptr,
                    shown ? w.placeOf(*shown) : ShownPlace(w.selection()));
}

void PanelBoard::drawOnlyPanelsOf(const QStringList& views) {
  QStringList panels;
  for (const PanelEntry& entry : panel_registry())
    for (const QString& view : entry.views)
      if (views.contains(view) && !panels.contains(entry.name)) panels << entry.name;
  analysis_->drawOnly(panels.isEmpty() ? QStringList{QStringLiteral("(none)")} : panels);
}

QWidget* PanelBoard::content(const QString& name) const {
  if (name == QLatin1String("attention-map")) return attentionMap_;
  if (name == QLatin1String("key-importance")) return keyImportance_->view();
  if (name == QLatin1String("emergence")) return checkpoints_;
  for (Panel* panel : analysis_->panels())
    if (panel->name() == name) return panel->content();
  return nullptr;
}

std::vector<QWidget*> PanelBoard::viewsNamed(const QStringList& names) const {
  std::vector<QWidget*> views;
  for (const QString& name : names) {
    QWidget* found = nullptr;
    for (const PanelEntry& entry : panel_registry()) {
      QWidget* panel = content(entry.name);
      if (!panel) continue;
      QList<QWidget*> candidates = panel->findChildren<QWidget*>(name);
      candidates.prepend(panel);
      for (QWidget* w : candidates)
        if (w->objectName() == name && drawn_.exportable(w)) {
          found = w;
          break;
        }
      if (found) break;
    }
    if (found) views.push_back(found);
  }
  return views;
}

template <class T>
T* PanelBoard::findOption(const QString& objectName) const {
  for (const PanelEntry& entry : panel_registry())
    if (QWidget* panel = content(entry.name))
      if (T* option = panel->findChild<T*>(objectName)) return option;
  return nullptr;
}

void PanelBoard::storeOptions(Session& s) const {
  if (auto* box = findOption<QCheckBox>(QStringLiteral("logScale"))) s.logScale = box->isChecked();
  if (auto* score = findOption<QComboBox>(QStringLiteral("overviewScore")))
    s.overviewScore = score->currentText().toStdString();
  if (auto* layout = findOption<QComboBox>(QStringLiteral("graphLayout")))
    s.graphLayout = layout->currentIndex();
  if (auto* box = findOption<QCheckBox>(QStringLiteral("normalisedLaplacian")))
    s.normalisedLaplacian = box->isChecked();
  std::vector<std::pair<QString, views::SceneCamera>> cameras;
  for (const QString& name : kSceneViews)
    for (QWidget* view : viewsNamed({name}))
      if (const auto part = drawn_.part(view); part && part->scene)
        cameras.emplace_back(name, part->camera);
  s.cameras = session_cameras_of(cameras);
}

void PanelBoard::applyOptions(const Session& s) {
  if (auto* box = findOption<QCheckBox>(QStringLiteral("logScale"))) box->setChecked(s.logScale);
  if (auto* score = findOption<QComboBox>(QStringLiteral("overviewScore"))) {
    QString named = QString::fromStdString(s.overviewScore);
    // Sessions saved before the scores' names wrote their math as glyphs.
    if (score->findText(named) < 0)
      named.replace(QStringLiteral("alpha_0"), QStringLiteral("\u03b1\u2080"))
          .replace(QStringLiteral("F_N"), QStringLiteral("F\u2099"));
    const int at = score->findText(named);
    if (at >= 0) score->setCurrentIndex(at);
  }
  if (auto* layout = findOption<QComboBox>(QStringLiteral("graphLayout")))
    layout->setCurrentIndex(s.graphLayout);
  if (auto* box = findOption<QCheckBox>(QStringLiteral("normalisedLaplacian")))
    box->setChecked(s.normalisedLaplacian);
  setSceneCameras(session_cameras(s));
}

void PanelBoard::setSceneCameras(
    const std::vector<std::pair<QString, views::SceneCamera>>& cameras) {
  for (const auto& [name, camera] : cameras) {
    if (!kSceneViews.contains(name)) continue;
    for (QWidget* view : viewsNamed({name})) {
      if (auto* scene = qobject_cast<render::SceneView*>(view)) scene->setCamera(camera);
      if (auto* standIn = qobject_cast<render::FigureStandIn*>(view)) standIn->setCamera(camera);
    }
  }
}

}  // namespace sinkscope::ui
