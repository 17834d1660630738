#include "ui/layer_fetch.h"

#include "models/model.h"
#include "ui/job_runner.h"
#include "ui/selection_model.h"

namespace sinkscope::ui {

LayerFetch::LayerFetch(JobRunner* jobs, SelectionModel* selection, QObject* parent)
    : QObject(parent), jobs_(jobs) {
  connect(jobs_, &JobRunner::jobCancelled, this,
          [this](quint64 id, const QString&) { stopped(id, tr("was cancelled")); });
  connect(jobs_, &JobRunner::jobFailed, this,
          [this](quint64 id, const QString&, const QString& message, const QString&) {
            stopped(id, tr("failed (%1)").arg(message));
          });
  // A new selection asks again (connected before the panels', which draw on it).
  connect(selection, &SelectionModel::changed, this, [this] {
    stoppedTrace_.reset();
    stoppedLayer_ = -1;
  });
}

void LayerFetch::stopped(quint64 job, const QString& why) {
  if (!job || job != pendingJob_) return;
  stoppedTrace_ = pendingTrace_;
  stoppedLayer_ = pendingLayer_;
  stoppedWhy_ = why;
  forget(job);
  Q_EMIT ready();
}

bool LayerFetch::sameTrace(const std::weak_ptr<const models::Trace>& fetched,
                           const SentenceRun& run) {
  const std::shared_ptr<const models::Trace> trace = fetched.lock();
  return trace && trace == run.trace;
}

void LayerFetch::forget(quint64 job) {
  if (job != pendingJob_) return;
  pendingJob_ = 0;
  pendingTrace_.reset();
  pendingLayer_ = -1;
}

void LayerFetch::cancelPending() {
  // Forgotten first: a cancelled fetch the panels no longer wait for is not "stopped".
  const quint64 job = pendingJob_;
  forget(job);
  jobs_->cancel(job);
}

bool LayerFetch::ensure(const SentenceRun& run, int layer) {
  if (run.layerAtHand(layer)) {
    // A fetch of a layer left behind would take the run's kept layer from the panels.
    if (pendingJob_ && sameTrace(pendingTrace_, run) && pendingLayer_ != layer) cancelPending();
    return true;
  }
  if (sameTrace(pendingTrace_, run) && pendingLayer_ == layer) return false;  // on its way
  if (sameTrace(stoppedTrace_, run) && stoppedLayer_ == layer) return false;  // stopped
  if (pendingJob_) cancelPending();  // another layer's, or another run's: no longer drawn
  pendingTrace_ = run.trace;
  pendingLayer_ = layer;
  // The copy shares the run's trace and its kept layer: filling one fills the other.
  pendingJob_ = jobs_->submit<bool>(
      tr("Recompute layer %1's attention").arg(layer),
      [copy = run, layer](const JobProgress& progress) {
        job_check(progress, 0.0);  // cancelled while it waited for a thread
        copy.layer(layer);
        return true;
      },
      [this, layer](bool) {
        if (pendingLayer_ == layer) forget(pendingJob_);
        Q_EMIT ready();
      },
      QStringLiteral("layer"));
  return false;
}

QString LayerFetch::note(const SentenceRun& run, int layer) const {
  if (sameTrace(stoppedTrace_, run) && stoppedLayer_ == layer)
    return tr("Recomputing layer %1's attention from the residual stream %2. Select a head "
              "to recompute it.")
        .arg(layer)
        .arg(stoppedWhy_);
  return layer_fetch_note(layer);
}

QString layer_fetch_note(int layer) {
  return QObject::tr(
             "Recomputing layer %1's attention from the residual stream (this input's maps "
             "are too large to keep for every layer)...")
      .arg(layer);
}

}  // namespace sinkscope::ui
