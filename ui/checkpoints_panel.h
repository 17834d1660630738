#pragma once
// Checkpoints over training: the step-N folders a training
// run wrote, a slider that opens each one (every panel follows, as for any
// model), and sink emergence: the sentence's first-token attention alpha_0
// per layer (mean over heads) against the training step, computed over every
// checkpoint in the background.
#include <QWidget>
#include <functional>
#include <vector>

#include "models/document/checkpoint_emergence.h"
#include "models/document/training_views.h"
#include "models/model_discovery.h"
#include "models/views/heat_map.h"

class QComboBox;
class QLabel;
class QPushButton;
class QSlider;

namespace sinkscope::render {
class DrawnViews;
class FigureStandIn;
class HeatMapView;
class LinePlotView;
}  // namespace sinkscope::render

namespace sinkscope::views {
struct LinePlot;
}

namespace sinkscope::ui {

using document::CheckpointAlpha0;

using document::EmergenceMetric;

class CheckpointsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit CheckpointsPanel(render::DrawnViews& drawn, QWidget* parent = nullptr);
  void setCheckpoints(const QString& folder, models::CheckpointList list);
  const std::vector<models::Checkpoint>& checkpoints() const { return checkpoints_; }
  // Moves the slider to checkpoint `index` (and opens it, as a user's move does).
  void choose(int index);
  int chosen() const;
  // Whether `folder` is one of the run's intermediate checkpoints (not the
  // final model): those are visited, not opened, and stay out of Recent models.
  bool isIntermediateStep(const std::filesystem::path& folder) const;
  render::LinePlotView* emergenceView() const { return emergence_; }
  // Shows the emergence numbers in the plot and the grid.
  void setEmergence(const CheckpointAlpha0& alpha0, const QString& text);
  void setMetric(EmergenceMetric metric);
  // The grid's data (its view's, or its stand-in's without OpenGL).
  const views::HeatMap& emergenceGrid() const { return grid_; }

 Q_SIGNALS:
  // The user moved to a checkpoint: open its folder.
  void checkpointChosen(const QString& folder);
  // The user asked for the emergence plot of the current sentence again.
  void emergenceRequested();

 private:
  render::DrawnViews& drawn_;  // what the views draw, for exports
  void showStep();
  // The emergence plot of the last sentence, the open checkpoint marked.
  void drawEmergence();
  std::vector<models::Checkpoint> checkpoints_;
  QLabel* folder_ = nullptr;
  QSlider* slider_ = nullptr;
  QLabel* step_ = nullptr;
  QPushButton* recompute_ = nullptr;
  render::LinePlotView* emergence_ = nullptr;
  render::HeatMapView* gridView_ = nullptr;
  render::FigureStandIn* gridStandIn_ = nullptr;  // in its place without OpenGL
  views::HeatMap grid_;
  QComboBox* metric_ = nullptr;
  CheckpointAlpha0 last_;  // the numbers shown, redrawn for another metric
  QString lastText_;
};

}  // namespace sinkscope::ui
