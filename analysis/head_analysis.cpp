#include "analysis/head_analysis.h"

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>

#include "analysis/sink_metric.h"

namespace sinkscope::analysis {

HeadAnalysis analyse_head(const AttentionView& a, std::span<const float> values, int headDim,
                          const HeadAnalysisParams& p) {
  HeadAnalysis r;
  r.sinks = sink_set(a, p.sinks);
  r.sinkConcentration = sink_concentration(a, r.sinks.keys());
  r.keyImportance = sink_key_importance(a);
  r.atQuery = head_diagnostics_at(a, p.valueSpace.query, p.topN);
  r.meanOverQueries = head_diagnostics_mean(a, p.topN);
  if (p.topology) {
    // Persistence is most of the work: 70% of the fraction, the spectra the rest.
    AnalysisProgress persistenceProgress;
    if (p.progress) persistenceProgress = [&p](double f) { return p.progress(0.7 * f); };
    try {
      r.persistence = persistence_rips(attention_distances(a, p.distance), a.size,
                                       persistenceProgress, p.persistenceBounds);
      r.betti = betti_curves(r.persistence, p.bettiPoints);
    } catch (const PersistenceTooLarge& e) {
      if (!p.persistenceMayBeLeftOut) throw;
      r.persistenceLeftOut = e.what();
    }
    for (std::size_t k = 0; k < p.thresholds.size(); ++k) {
      const double threshold = p.thresholds[k];
      progress_check(p.progress,
                     0.7 + 0.3 * static_cast<double>(k) / static_cast<double>(p.thresholds.size()));
      GraphSpectrumPair pair = graph_spectrum_pair(a, threshold, p.perTokenGeometry);
      r.spectra.push_back(std::move(pair.combinatorial));
      r.normalisedSpectra.push_back(std::move(pair.normalised));
    }
  }
  if (!values.empty() && a.size > 0) {
    ValueSpaceParams vs = p.valueSpace;
    vs.projections = vs.projections && p.perTokenGeometry;
    r.valueSpace = value_space(a, values, headDim, vs);
    r.taxonomy = taxonomy_votes(a, values, headDim);
  }
  return r;
}

namespace {
std::atomic<int> defaultThreads{0};  // 0: every core
}  // namespace

void set_default_thread_count(int threads) { defaultThreads = std::max(0, threads); }

int thread_count() {
  const int set = defaultThreads;
  return set > 0 ? set : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void parallel_for(int count, const std::function<void(int)>& fn, int threads) {
  if (count <= 0) return;
  if (threads <= 0) threads = defaultThreads;
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::min(threads, count);
  if (threads == 1) {
    for (int k = 0; k < count; ++k) fn(k);
    return;
  }
  std::atomic<int> next{0};
  std::exception_ptr failure;
  std::mutex failureLock;
  auto worker = [&] {
    for (int k; (k = next.fetch_add(1)) < count;) {
      try {
        fn(k);
      } catch (...) {
        const std::lock_guard lock(failureLock);
        if (!failure) failure = std::current_exception();
        next = count;  // stop handing out work
      }
    }
  };
  std::vector<std::jthread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  pool.clear();  // joins
  if (failure) std::rethrow_exception(failure);
}

}  // namespace sinkscope::analysis
