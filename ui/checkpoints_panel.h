#pragma once
// Checkpoints over training (issue 17, item 2): the step-N folders a training
// run wrote, a slider that opens each one (every panel follows, as for any
// model), and sink emergence: the sentence's first-token attention alpha_0
// per layer (mean over heads) against the training step, computed over every
// checkpoint in the background.
#include <QWidget>
#include <functional>
#include <vector>

#include "models/model_discovery.h"
#include "ui/job_runner.h"

class QLabel;
class QPushButton;
class QSlider;

namespace sinkscope::render {
class LinePlotView;
struct LinePlotData;
}  // namespace sinkscope::render

namespace sinkscope::ui {

// alpha_0 (the sink metric of the first token, mean over a layer's heads) of
// `text` at every checkpoint: [checkpoint][layer]. Throws as models do.
std::vector<std::vector<double>> checkpoint_alpha0(const std::vector<models::Checkpoint>& checkpoints,
                                                   const std::string& text, const JobProgress& progress);
// The emergence plot of those numbers: one curve per layer against the step.
render::LinePlotData emergence_plot(const std::vector<models::Checkpoint>& checkpoints,
                                    const std::vector<std::vector<double>>& alpha0, const QString& text);

class CheckpointsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit CheckpointsPanel(QWidget* parent = nullptr);
  void setCheckpoints(const QString& folder, std::vector<models::Checkpoint> checkpoints);
  const std::vector<models::Checkpoint>& checkpoints() const { return checkpoints_; }
  // Moves the slider to checkpoint `index` (and opens it, as a user's move does).
  void choose(int index);
  int chosen() const;
  render::LinePlotView* emergenceView() const { return emergence_; }

 Q_SIGNALS:
  // The user moved to a checkpoint: open its folder.
  void checkpointChosen(const QString& folder);
  // The user asked for the emergence plot of the current sentence again.
  void emergenceRequested();

 private:
  void showStep();
  std::vector<models::Checkpoint> checkpoints_;
  QLabel* folder_ = nullptr;
  QSlider* slider_ = nullptr;
  QLabel* step_ = nullptr;
  QPushButton* recompute_ = nullptr;
  render::LinePlotView* emergence_ = nullptr;
};

}  // namespace sinkscope::ui
