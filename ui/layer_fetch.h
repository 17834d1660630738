#pragma once
// A layer's attention made ready off the window's thread. When a run's
// captures exceed what it keeps for every layer (a long input of a real-size
// model), a layer not kept is recomputed from the residual stream: seconds
// of work that would freeze the window if a panel asked for it while
// drawing. Panels ask here first; while the layer is recomputed in a job
// they say so, and `ready` redraws them once it is kept.
#include <QObject>
#include <memory>

#include "models/document/sentence_run.h"

namespace sinkscope::ui {

class JobRunner;

class LayerFetch : public QObject {
  Q_OBJECT

 public:
  explicit LayerFetch(JobRunner* jobs, QObject* parent = nullptr);

  // Whether `run`'s `layer` can be read now; if not, it is recomputed in a
  // job (replacing a fetch of another layer) and `ready` follows.
  bool ensure(const SentenceRun& run, int layer);

 Q_SIGNALS:
  void ready();

 private:
  void forget(quint64 job);

  JobRunner* jobs_;
  quint64 pendingJob_ = 0;
  const models::Trace* pendingTrace_ = nullptr;
  int pendingLayer_ = -1;
};

// What a panel says while its layer is recomputed.
QString layer_fetch_note(int layer);

}  // namespace sinkscope::ui
