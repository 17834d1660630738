#include "ui/deferred_results.h"

namespace sinkscope::ui {

DeferredResults::DeferredResults(JobRunner* jobs, QObject* parent, int capacity)
    : QObject(parent), jobs_(jobs), capacity_(capacity) {
  // A job that failed or was cancelled elsewhere is no longer pending: a later
  // pass may ask again.
  auto forget = [this](quint64 id) {
    for (auto it = pending_.begin(); it != pending_.end(); ++it)
      if (it->second == id) {
        pending_.erase(it);
        return;
      }
  };
  connect(jobs_, &JobRunner::jobFailed, this, forget);
  connect(jobs_, &JobRunner::jobCancelled, this, forget);
}

void DeferredResults::clear() {
  for (const auto& [key, id] : pending_) jobs_->cancel(id);
  pending_.clear();
  results_.clear();
  order_.clear();
  wanted_.clear();
  ++generation_;
}

void DeferredResults::beginPass() { wanted_.clear(); }

void DeferredResults::endPass() {
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (wanted_.contains(it->first)) {
      ++it;
    } else {
      jobs_->cancel(it->second);
      it = pending_.erase(it);
    }
  }
}

void DeferredResults::start(
    const QString& key,
    std::function<std::shared_ptr<const void>(const analysis::AnalysisProgress&)> compute) {
  const unsigned long long generation = generation_;
  pending_[key] = jobs_->submit<std::shared_ptr<const void>>(
      tr("Compute the %1").arg(key),
      [compute = std::move(compute)](const JobProgress& progress) {
        job_check(progress, 0.0);  // cancelled while still queued: skip the work
        try {
          // A job cancelled while it runs stops at the analysis' next report.
          return compute(progress);
        } catch (const analysis::AnalysisStopped&) {
          throw JobCancelled();
        }
      },
      [this, key, generation](std::shared_ptr<const void> value) {
        if (generation != generation_) return;  // a result for an earlier run
        pending_.erase(key);
        store(key, std::move(value));
        Q_EMIT arrived(key);
      });
}

void DeferredResults::store(const QString& key, std::shared_ptr<const void> value) {
  if (!results_.count(key)) order_.push_back(key);
  results_[key] = std::move(value);
  while (static_cast<int>(order_.size()) > capacity_) {
    results_.erase(order_.front());
    order_.pop_front();
  }
}

}  // namespace sinkscope::ui
