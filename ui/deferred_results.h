#pragma once
// Per-selection results that may be too slow for the GUI thread (a head's
// persistence and spectra, eigenvectors, layouts, value-space curves at long
// inputs). Each is computed once per key and kept for the run: on the spot when
// the caller says it is cheap, otherwise in a background job, after which
// `arrived` asks the panels to redraw. Jobs whose key no drawing pass asked
// for any more are cancelled, so clicking through heads of a long input never
// queues up work for heads already left behind.
#include <QObject>
#include <QSet>
#include <QString>
#include <deque>
#include <functional>
#include <map>
#include <memory>

#include "analysis/progress.h"
#include "ui/job_runner.h"

namespace sinkscope::ui {

class DeferredResults : public QObject {
  Q_OBJECT

 public:
  // At most `capacity` results are kept (the oldest go first).
  explicit DeferredResults(JobRunner* jobs, QObject* parent = nullptr, int capacity = 64);

  // Forgets every result and cancels every job (a new run).
  void clear();
  // A drawing pass: keys asked for between begin and end stay wanted; jobs for
  // other keys are cancelled at end.
  void beginPass();
  void endPass();

  // The result for `key` (it names the result in words: the job's name in the
  // status bar is "Compute the <key>"), or null while its job runs. `now`: compute on the
  // spot (cheap at this size) instead of in a job. `compute` gets a progress
  // callback to pass to long analyses: it feeds the status bar, and answers
  // false once the job is cancelled.
  template <class R>
  std::shared_ptr<const R> get(const QString& key, bool now,
                               std::function<R(const analysis::AnalysisProgress&)> compute) {
    wanted_.insert(key);
    if (auto it = results_.find(key); it != results_.end())
      return std::static_pointer_cast<const R>(it->second);
    if (now) {
      auto value = std::make_shared<const R>(compute({}));
      store(key, value);
      return value;
    }
    if (!pending_.count(key))
      start(key,
            [compute = std::move(compute)](
                const analysis::AnalysisProgress& progress) -> std::shared_ptr<const void> {
              return std::make_shared<const R>(compute(progress));
            });
    return nullptr;
  }
  // The result for `key` if it is there; never starts a job (a pending one
  // stays wanted).
  template <class R>
  std::shared_ptr<const R> peek(const QString& key) {
    if (pending_.count(key)) wanted_.insert(key);
    const auto it = results_.find(key);
    return it == results_.end() ? nullptr : std::static_pointer_cast<const R>(it->second);
  }
  bool isPending(const QString& key) const { return pending_.count(key) > 0; }
  int pendingCount() const { return static_cast<int>(pending_.size()); }

 Q_SIGNALS:
  // A background result is in: redraw.
  void arrived(const QString& key);

 private:
  void start(const QString& key,
             std::function<std::shared_ptr<const void>(const analysis::AnalysisProgress&)> compute);
  void store(const QString& key, std::shared_ptr<const void> value);

  JobRunner* jobs_;
  int capacity_;
  unsigned long long generation_ = 0;  // bumped by clear(): late results are dropped
  std::map<QString, std::shared_ptr<const void>> results_;
  std::deque<QString> order_;  // insertion order, for eviction
  std::map<QString, JobRunner::JobId> pending_;
  QSet<QString> wanted_;
};

}  // namespace sinkscope::ui
