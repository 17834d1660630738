#include "ui/checkpoints_panel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QVBoxLayout>

#include "analysis/attention_matrix.h"
#include "analysis/sink_metric.h"
#include "models/loaded_model.h"
#include "render/line_plot_view.h"

namespace sinkscope::ui {

std::vector<std::vector<double>> checkpoint_alpha0(const std::vector<models::Checkpoint>& checkpoints,
                                                   const std::string& text, const JobProgress& progress) {
  std::vector<std::vector<double>> out;
  for (std::size_t c = 0; c < checkpoints.size(); ++c) {
    job_check(progress, static_cast<double>(c) / static_cast<double>(checkpoints.size()));
    const models::LoadedModel model = models::loaded_model_open(checkpoints[c].folder.string());
    const models::SentenceTrace run =
        models::loaded_model_run(model, text, models::RunOptions::attention_only());
    std::vector<double> layers;
    for (int l = 0; l < run.trace.layers(); ++l) {
      const models::LayerCapture cap = run.trace.layer(l);
      double sum = 0.0;
      for (int h = 0; h < cap.heads; ++h) sum += analysis::sink_key_importance(cap.attentionOf(h))[0];
      layers.push_back(sum / cap.heads);
    }
    out.push_back(std::move(layers));
  }
  return out;
}

render::LinePlotData emergence_plot(const std::vector<models::Checkpoint>& checkpoints,
                                    const std::vector<std::vector<double>>& alpha0, const QString& text) {
  render::LinePlotData d;
  d.title = QObject::tr("Sink emergence | alpha_0 (first token, mean over heads) by training step | \"%1\"")
                .arg(text.size() > 40 ? text.left(37) + QStringLiteral("...") : text);
  d.xLabel = QObject::tr("training step");
  d.yLabel = QObject::tr("alpha_0");
  d.includeZero = true;
  d.xPadding = 0.0;
  const std::size_t layers = alpha0.empty() ? 0 : alpha0.front().size();
  for (std::size_t l = 0; l < layers; ++l) {
    render::LineSeries s{QObject::tr("layer %1").arg(l), {}, {}};
    for (std::size_t c = 0; c < alpha0.size() && c < checkpoints.size(); ++c)
      if (l < alpha0[c].size()) {
        s.x.push_back(static_cast<double>(checkpoints[c].step));
        s.y.push_back(alpha0[c][l]);
      }
    d.series.push_back(std::move(s));
  }
  return d;
}

CheckpointsPanel::CheckpointsPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  folder_ = new QLabel(tr("No training run open: File > Open training checkpoints..."), this);
  folder_->setWordWrap(true);
  layout->addWidget(folder_);
  auto* row = new QHBoxLayout;
  slider_ = new QSlider(Qt::Horizontal, this);
  slider_->setObjectName(QStringLiteral("checkpointSlider"));
  slider_->setEnabled(false);
  slider_->setToolTip(tr("Step through the checkpoints: every panel shows the chosen one"));
  row->addWidget(slider_, 1);
  step_ = new QLabel(this);
  step_->setMinimumWidth(110);
  row->addWidget(step_);
  recompute_ = new QPushButton(tr("Plot for this sentence"), this);
  recompute_->setObjectName(QStringLiteral("emergenceRecompute"));
  recompute_->setToolTip(tr("Compute alpha_0 at every checkpoint for the sentence in the box"));
  recompute_->setEnabled(false);
  row->addWidget(recompute_);
  layout->addLayout(row);
  emergence_ = new render::LinePlotView(this);
  emergence_->setObjectName(QStringLiteral("emergenceView"));
  layout->addWidget(emergence_, 1);
  // A checkpoint opens when the slider rests: keys and clicks at once, a drag
  // when it is released (not at every step it passes).
  connect(slider_, &QSlider::valueChanged, this, [this](int value) {
    showStep();
    if (!slider_->isSliderDown()) choose(value);
  });
  connect(slider_, &QSlider::sliderReleased, this, [this] { choose(slider_->value()); });
  connect(recompute_, &QPushButton::clicked, this, &CheckpointsPanel::emergenceRequested);
}

void CheckpointsPanel::setCheckpoints(const QString& folder, std::vector<models::Checkpoint> checkpoints) {
  checkpoints_ = std::move(checkpoints);
  folder_->setText(tr("%1: %2 checkpoints, steps %3 to %4")
                       .arg(folder)
                       .arg(checkpoints_.size())
                       .arg(checkpoints_.empty() ? 0 : checkpoints_.front().step)
                       .arg(checkpoints_.empty() ? 0 : checkpoints_.back().step));
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
                     ? tr("step %1 (%2 of %3)").arg(checkpoints_[static_cast<std::size_t>(k)].step).arg(k + 1).arg(checkpoints_.size())
                     : QString());
}

int CheckpointsPanel::chosen() const { return slider_->value(); }

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
