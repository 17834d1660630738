#pragma once
// A layer's attention made ready off the window's thread. When a run's
// captures exceed what it keeps for every layer (a long input of a real-size
// model), a layer not kept is recomputed from the residual stream: seconds
// of work that would freeze the window if a panel asked for it while
// drawing. Panels ask here first; while the layer is recomputed in a job
// they say so, and `ready` redraws them once it is kept. A fetch that is
// cancelled or fails is not asked for again until the selection changes
// (a user who stopped it must not see it start again by itself), and the
// panels say why they have no layer.
#include <QObject>
#include <QString>
#include <memory>

#include "models/document/sentence_run.h"

namespace sinkscope::ui {

class JobRunner;
class SelectionModel;

class LayerFetch : public QObject {
  Q_OBJECT

 public:
  LayerFetch(JobRunner* jobs, SelectionModel* selection, QObject* parent = nullptr);

  // Whether `run`'s `layer` can be read now; if not, it is recomputed in a
  // job (replacing a fetch of another layer) and `ready` follows, unless its
  // fetch was stopped and the selection has not changed since.
  bool ensure(const SentenceRun& run, int layer);
  // What a panel says while `run`'s `layer` is not at hand: that it is being
  // recomputed, or that its recompute was cancelled or failed.
  QString note(const SentenceRun& run, int layer) const;

 Q_SIGNALS:
  // The layer asked for is at hand, or its fetch stopped: the panels redraw.
  void ready();

 private:
  void forget(quint64 job);
  void cancelPending();
  void stopped(quint64 job, const QString& why);

  // Whether `fetched` is `run`'s trace (weak: a new run's trace may reuse the address).
  static bool sameTrace(const std::weak_ptr<const models::Trace>& fetched, const SentenceRun& run);

  JobRunner* jobs_;
  quint64 pendingJob_ = 0;
  std::weak_ptr<const models::Trace> pendingTrace_;
  int pendingLayer_ = -1;
  // The last fetch cancelled or failed, and why.
  std::weak_ptr<const models::Trace> stoppedTrace_;
  int stoppedLayer_ = -1;
  QString stoppedWhy_;
};

// What a panel says while its layer is recomputed.
QString layer_fetch_note(int layer);

}  // namespace sinkscope::ui
