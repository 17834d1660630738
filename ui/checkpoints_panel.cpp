#include "ui/checkpoints_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <algorithm>
#include <stdexcept>
#include <QSlider>
#include <QVBoxLayout>

#include "analysis/attention_matrix.h"
#include "analysis/first_token_sink.h"
#include "analysis/sink_metric.h"
#include "models/loaded_model.h"
#include "render/drawn_views.h"
#include "render/figure_part.h"
#include "render/gl_support.h"
#include "render/heat_map_view.h"
#include "render/line_plot_view.h"

namespace sinkscope::ui {

CheckpointsPanel::CheckpointsPanel(render::DrawnViews& drawn, QWidget* parent)
    : QWidget(parent), drawn_(drawn) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  folder_ = new QLabel(tr("No training run open: File > Open training checkpoints..."), this);
  folder_->setWordWrap(true);
  folder_->setObjectName(QStringLiteral("checkpointsFolderLabel"));
  // The folder and what to plot on one row, the slider on a row of its own:
  // it is what a demonstration drags, never squeezed by the controls.
  auto* controls = new QHBoxLayout;
  controls->addWidget(folder_, 1);
  layout->addLayout(controls);
  auto* row = new QHBoxLayout;
  slider_ = new QSlider(Qt::Horizontal, this);
  slider_->setObjectName(QStringLiteral("checkpointSlider"));
  slider_->setEnabled(false);
  slider_->setToolTip(tr("Step through the checkpoints: every panel shows the chosen one"));
  row->addWidget(slider_, 1);
  step_ = new QLabel(this);
  step_->setMinimumWidth(110);
  row->addWidget(step_);
  metric_ = new QComboBox(this);
  metric_->setObjectName(QStringLiteral("emergenceMetric"));
  metric_->addItem(tr("α₀"), static_cast<int>(EmergenceMetric::Alpha0));
  metric_->addItem(tr("sink boost"), static_cast<int>(EmergenceMetric::Boost));
  metric_->addItem(tr("sink rate"), static_cast<int>(EmergenceMetric::SinkRate));
  metric_->addItem(tr("heads with boost >= 3"), static_cast<int>(EmergenceMetric::StrongBoost));
  metric_->setToolTip(
      tr("What the curves show per layer (dashed: every head of the model): the "
         "heads' mean α₀, their mean boost over a uniform head, the share of "
         "heads with α₀ > 0.3, or the share with a boost of 3 or more"));
  connect(metric_, &QComboBox::currentIndexChanged, this, [this] {
    if (!last_.values.empty()) setEmergence(last_, lastText_);
  });
  controls->addWidget(metric_);
  recompute_ = new QPushButton(tr("Plot for this sentence"), this);
  recompute_->setObjectName(QStringLiteral("emergenceRecompute"));
  recompute_->setToolTip(tr("Compute α₀ at every checkpoint for the sentence in the box"));
  recompute_->setEnabled(false);
  controls->addWidget(recompute_);
  layout->addLayout(row);
  // The plot (layers' means) beside the grid (every head): the overview against training.
  auto* views = new QSplitter(Qt::Horizontal, this);
  emergence_ = new render::LinePlotView(views);
  emergence_->setObjectName(QStringLiteral("emergenceView"));
  views->addWidget(emergence_);
  if (render::gl_panels_available()) {
    gridView_ = new render::HeatMapView(views);
    gridView_->setObjectName(QStringLiteral("emergenceGrid"));
    views->addWidget(gridView_);
  } else {
    gridStandIn_ = new render::FigureStandIn(QStringLiteral("emergenceGrid"), views);
    views->addWidget(gridStandIn_);
  }
  // The grid's cells are few columns (checkpoints) by many rows (heads): the
  // plot takes the width.
  views->setStretchFactor(0, 2);
  views->setStretchFactor(1, 1);
  views->setSizes({600, 300});  // as proportions until the panel is laid out
  layout->addWidget(views, 1);
  // A checkpoint opens when the slider rests: keys and clicks at once, a drag
  // when it is released (not at every step it passes).
  connect(slider_, &QSlider::valueChanged, this, [this](int value) {
    showStep();
    if (!slider_->isSliderDown()) choose(value);
  });
  connect(slider_, &QSlider::sliderReleased, this, [this] { choose(slider_->value()); });
  connect(recompute_, &QPushButton::clicked, this, &CheckpointsPanel::emergenceRequested);
}

void CheckpointsPanel::setCheckpoints(const QString& folder, models::CheckpointList list) {
  // The note compares what was found with what is shown: before the move.
  const QString note = QString::fromStdString(list.note());
  checkpoints_ = std::move(list.steps);
  // One arg() call: a "%3" in the folder's name is not a place marker.
  folder_->setText(tr("%1: %2 checkpoints, steps %3 to %4%5")
                       .arg(folder, QString::number(checkpoints_.size()),
                            QString::number(checkpoints_.empty() ? 0 : checkpoints_.front().step),
                            QString::number(checkpoints_.empty() ? 0 : checkpoints_.back().step),
                            note.isEmpty() ? QString() : QStringLiteral(" (") + note + QStringLiteral(")")));
  const QSignalBlocker quiet(slider_);
  slider_->setRange(0, std::max(0, static_cast<int>(checkpoints_.size()) - 1));
  slider_->setValue(slider_->maximum());
  slider_->setEnabled(!checkpoints_.empty());
  recompute_->setEnabled(!checkpoints_.empty());
  showStep();
}

void CheckpointsPanel::showStep() {
  const int k = slider_->value();
  step_->setText(k >= 0 && k < static_cast<int>(checkpoints_.size())
                     ? tr("step %1%2 (%3 of %4)")
                           .arg(checkpoints_[static_cast<std::size_t>(k)].step)
                           .arg(checkpoints_[static_cast<std::size_t>(k)].final ? tr(", the final model")
                                                                               : QString())
                           .arg(k + 1)
                           .arg(checkpoints_.size())
                     : QString());
  drawEmergence();
}

int CheckpointsPanel::chosen() const { return slider_->value(); }

bool CheckpointsPanel::isIntermediateStep(const std::filesystem::path& folder) const {
  std::error_code ec;
  for (const models::Checkpoint& c : checkpoints_)
    if (!c.final && (c.folder == folder || std::filesystem::equivalent(c.folder, folder, ec))) return true;
  return false;
}

void CheckpointsPanel::drawEmergence() {
  if (last_.values.empty()) return;
  views::LinePlot d =
      document::emergence_plot(checkpoints_, last_, lastText_.toStdString(),
                               static_cast<EmergenceMetric>(metric_->currentData().toInt()));
  const int k = slider_->value();
  if (k >= 0 && k < static_cast<int>(checkpoints_.size()))  // the checkpoint open now
    d.markedX = static_cast<double>(checkpoints_[static_cast<std::size_t>(k)].step);
  drawn_.show(emergence_, std::move(d));
}

void CheckpointsPanel::setMetric(EmergenceMetric metric) {
  metric_->setCurrentIndex(metric_->findData(static_cast<int>(metric)));
}

void CheckpointsPanel::setEmergence(const CheckpointAlpha0& alpha0, const QString& text) {
  last_ = alpha0;
  lastText_ = text;
  drawEmergence();
  grid_ = document::emergence_grid(checkpoints_, alpha0);
  drawn_.show(gridView_, gridStandIn_, grid_);
}

void CheckpointsPanel::choose(int index) {
  if (index < 0 || index >= static_cast<int>(checkpoints_.size())) return;
  {
    const QSignalBlocker quiet(slider_);
    slider_->setValue(index);
  }
  showStep();
  Q_EMIT checkpointChosen(QString::fromStdString(checkpoints_[static_cast<std::size_t>(index)].folder.string()));
}

}  // namespace sinkscope::ui
