#include "ui/layer_fetch.h"

#include "models/model.h"
#include "ui/job_runner.h"

namespace sinkscope::ui {

LayerFetch::LayerFetch(JobRunner* jobs, QObject* parent) : QObject(parent), jobs_(jobs) {
  // A fetch cancelled (by the user, or by a new run) or failed may be asked for again.
  connect(jobs_, &JobRunner::jobCancelled, this,
          [this](quint64 id, const QString&) { forget(id); });
  connect(jobs_, &JobRunner::jobFailed, this,
          [this](quint64 id, const QString&, const QString&, const QString&) { forget(id); });
}

void LayerFetch::forget(quint64 job) {
  if (job != pendingJob_) return;
  pendingJob_ = 0;
  pendingTrace_ = nullptr;
  pendingLayer_ = -1;
}

bool LayerFetch::ensure(const SentenceRun& run, int layer) {
  if (run.layerAtHand(layer)) {
    // A fetch of a layer left behind would take the run's kept layer from the panels.
    if (pendingJob_ && pendingTrace_ == run.trace.get() && pendingLayer_ != layer) {
      jobs_->cancel(pendingJob_);
      forget(pendingJob_);
    }
    return true;
  }
  if (pendingTrace_ == run.trace.get() && pendingLayer_ == layer) return false;  // on its way
  pendingTrace_ = run.trace.get();
  pendingLayer_ = layer;
  // The copy shares the run's trace and its kept layer: filling one fills the other.
  pendingJob_ = jobs_->submit<bool>(
      tr("Recompute layer %1's attention").arg(layer),
      [copy = run, layer](const JobProgress& progress) {
        job_check(progress, 0.0);  // cancelled while it waited for a thread
        copy.layer(layer);
        return true;
      },
      [this](bool) {
        forget(pendingJob_);
        Q_EMIT ready();
      },
      QStringLiteral("layer"));
  return false;
}

QString layer_fetch_note(int layer) {
  return QObject::tr(
             "Recomputing layer %1's attention from the residual stream (this input's maps "
             "are too large to keep for every layer)...")
      .arg(layer);
}

}  // namespace sinkscope::ui
