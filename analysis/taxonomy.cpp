#include "analysis/taxonomy.h"

#include "analysis/sinks.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace sinkscope::analysis {

const char* head_class_name(HeadClass c) {
  switch (c) {
    case HeadClass::Retriever:
      return "Retriever";
    case HeadClass::Mixer:
      return "Mixer";
    case HeadClass::Reset:
      return "Reset";
  }
  return "?";
}

namespace {
// The length of every key's value, after checking the shapes and numbers
// (`who` names the caller in errors).
std::vector<double> checked_value_norms(const AttentionView& a, std::span<const float> values, int headDim,
                                        const char* who) {
  const int T = a.size;
  if (values.size() != static_cast<std::size_t>(T) * static_cast<std::size_t>(headDim))
    throw std::invalid_argument(std::string(who) + ": values must be T x head_dim");
  attention_require_usable(a, who);
  values_require_finite(values, who);
  std::vector<double> norms(static_cast<std::size_t>(T), 0.0);
  for (int j = 0; j < T; ++j) {
    double s = 0;
    for (int k = 0; k < headDim; ++k) {
      const double v = values[static_cast<std::size_t>(j) * headDim + k];
      s += v * v;
    }
    norms[static_cast<std::size_t>(j)] = std::sqrt(s);
  }
  return norms;
}
}  // namespace

TaxonomyVotes taxonomy_votes(const AttentionView& a, std::span<const float> values, int headDim) {
  const int T = a.size;
  const std::vector<double> norms = checked_value_norms(a, values, headDim, "taxonomy_votes");
  TaxonomyVotes votes;
  std::vector<double> scores(static_cast<std::size_t>(T));
  for (int i = 1; i < T; ++i) {
    // metrics.md s. 7: over the keys the query sees: 0 <= j <= i in a causal
    // model, every key in an encoder.
    const int last = a.causal ? i : T - 1;
    double best = -1.0;
    for (int j = 0; j <= last; ++j) {
      const double score = a.visible(i, j) ? a.at(i, j) * norms[static_cast<std::size_t>(j)] : -1.0;
      scores[static_cast<std::size_t>(j)] = score;
      best = std::max(best, score);
    }
    // Scores equal as real numbers tie, and float rounding must not decide:
    // the lowest index within the relative tolerance of the best wins.
    int winner = 0;
    for (int j = 0; j <= last; ++j)
      if (scores[static_cast<std::size_t>(j)] >= 0.0 &&
          scores[static_cast<std::size_t>(j)] >= best - kTieTolerance * best) {
        winner = j;
        break;
      }
    if (winner == 0)
      ++votes.sink;
    else if (winner == i)
      ++votes.current;
    else
      ++votes.other;
  }
  return votes;
}

HeadClass taxonomy_label(const TaxonomyVotes& v) {
  if (v.current > v.sink && v.current > v.other) return HeadClass::Retriever;
  if (v.sink > v.current && v.sink > v.other) return HeadClass::Mixer;
  return HeadClass::Reset;
}

SinkVoteReason sink_vote_reason(const AttentionView& a, std::span<const float> values, int headDim) {
  const int T = a.size;
  const std::vector<double> norms = checked_value_norms(a, values, headDim, "sink_vote_reason");
  SinkVoteReason r;
  if (T < 2) return r;
  for (int i = 1; i < T; ++i) r.sinkAttention += a.at(i, 0) / (T - 1);
  // The 50th percentile interpolated: the median (the middle two's mean for an even count).
  const double median = percentile_linear(std::vector<double>(norms.begin() + 1, norms.end()), 50.0);
  r.sinkValueRatio = median > 0 ? norms[0] / median : 0.0;
  return r;
}

}  // namespace sinkscope::analysis
