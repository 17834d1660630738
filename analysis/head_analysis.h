#pragma once
// Every per-head metric of metrics.md sections 1, 2, 3, 6 and 7 for one
// attention map, in one call: what the CLI's analyze report and the GUI's
// panels compute for each head, and what the analysis benchmark times.
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/graph_spectrum.h"
#include "analysis/head_diagnostics.h"
#include "analysis/persistence.h"
#include "analysis/progress.h"
#include "analysis/sinks.h"
#include "analysis/taxonomy.h"
#include "analysis/value_space.h"

namespace sinkscope::analysis {

struct HeadAnalysisParams {
  SinkSetParams sinks;
  int topN = 3;  // head diagnostics' top-N mass
  DistanceParams distance;
  int bettiPoints = 101;
  std::vector<double> thresholds = kDefaultGraphThresholds;
  ValueSpaceParams valueSpace;
  // Per-token geometry (spectral eigenvectors and embedding, value-space PCA)
  // is what a panel draws for the selected head; summaries over every head
  // leave it out (it is most of the cost: docs/performance.md).
  bool perTokenGeometry = false;
  // Persistence, Betti curves and spectra (the O(T^3) part). Off: those
  // fields stay empty (long inputs analyse them per selected head instead).
  bool topology = true;
  // Past PersistenceBounds a map's persistence throws PersistenceTooLarge;
  // with this set the head keeps everything else, its diagram and Betti
  // curves stay empty and persistenceLeftOut says why (a long input's
  // tables with the heads that fit, rather than none).
  bool persistenceMayBeLeftOut = false;
  PersistenceBounds persistenceBounds;
  // Hears the fraction done during the long parts (persistence, spectra);
  // a false answer stops the analysis (progress.h).
  AnalysisProgress progress;
};

struct HeadAnalysis {
  SinkSet sinks;
  double sinkConcentration = 0.0;
  std::vector<double> keyImportance;  // alpha_k of the sink metric
  HeadDiagnostics atQuery;            // at the value-space query
  HeadDiagnostics meanOverQueries;
  PersistenceDiagram persistence;
  BettiCurves betti;
  std::string persistenceLeftOut;                // why persistence is missing; empty when computed
  std::vector<GraphSpectrum> spectra;            // one per threshold, in the given order
  std::vector<GraphSpectrum> normalisedSpectra;  // the same with the normalised Laplacian
  // Only with value vectors (a single head, not a head average).
  std::optional<ValueSpace> valueSpace;
  std::optional<TaxonomyVotes> taxonomy;
};

// `values` ([T][headDim]) may be empty: then value space and taxonomy are skipped.
HeadAnalysis analyse_head(const AttentionView& attention, std::span<const float> values,
                          int headDim, const HeadAnalysisParams& params = {});

// Runs fn(0) .. fn(count - 1), spread over `threads` threads (0: one per core).
// fn must be safe to call concurrently for different k; the first exception
// thrown is rethrown here after every thread has finished.
void parallel_for(int count, const std::function<void(int)>& fn, int threads = 0);

// The thread count parallel_for uses when given 0 (0 here: every core); the
// runtime's thread setting (models::set_cpu_threads) sets it for the process.
void set_default_thread_count(int threads);
// The threads parallel_for uses when given 0.
int thread_count();

}  // namespace sinkscope::analysis
