#pragma once
// Sink tokens and sink concentration (metrics.md section 1).
#include <vector>

#include "analysis/attention_matrix.h"

namespace sinkscope::analysis {

struct SinkSetParams {
  enum class Mode {
    Percentile,  // key j is a sink when A[i][j] >= tau (and > 0) for >= gamma of the queries
    ColumnSum,   // the authors' code: column sum at or above the p-th percentile of column sums
  } mode = Mode::Percentile;
  // Of which queries the fraction gamma is taken (metrics.md s. 1): all T
  // source tokens, as 000 states; or, as a labelled option, only the queries
  // that can see the key (in a causal model that makes the last key a sink
  // whenever its one observer attends to itself).
  enum class Denominator { AllQueries, VisibleQueries } denominator = Denominator::AllQueries;
  double percentile = 90.0;  // p
  // Reading (metrics.md): ">= tau" (up to the tie tolerance: a weight equal
  // to tau as a real number reaches it) and "> 0", so a perfect star of fewer than
  // 10 tokens still has its sink and all-zero columns never are sinks.
  double gamma = 0.3;
};

const char* sink_denominator_name(SinkSetParams::Denominator d);  // "all" or "visible"

struct SinkToken {
  int key = 0;
  double frequency = 0.0;     // share of the queries (see Denominator) with A >= tau and > 0
  double meanReceived = 0.0;  // alpha_key: mean attention from the queries that see it
};

struct SinkSet {
  double tau = 0.0;  // the percentile threshold used
  std::vector<SinkToken> sinks;
  // Every key's frequency and mean received attention, sink or not.
  std::vector<SinkToken> keysAll;

  std::vector<int> keys() const;
};

// The p-th percentile of `values` with linear interpolation between order
// statistics (numpy's default). Empty input gives 0.
double percentile_linear(std::vector<double> values, double p);

// Pass one head's map, or the head average for the head-averaged variant (for
// ColumnSum mode, the head sum ranks keys identically).
SinkSet sink_set(const AttentionView& attention, const SinkSetParams& params = {});

// Share (in %) of the attention mass over all visible query-key pairs,
// excluding i = j = 0, that lands on the given keys.
double sink_concentration(const AttentionView& attention, const std::vector<int>& sinkKeys);

}  // namespace sinkscope::analysis
