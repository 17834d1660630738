#pragma once
// The parameter-free head taxonomy of 004 (metrics.md section 7): for each
// query the key with the largest value-weighted attention A[i][j] * ||v_j||
// wins; a head whose winners are mostly the current token is a Retriever,
// mostly the sink a Mixer, otherwise a Reset.
#include <span>
#include <string>
#include <vector>

#include "analysis/attention_matrix.h"
#include "analysis/ties.h"

namespace sinkscope::analysis {

enum class HeadClass { Retriever, Mixer, Reset };
const char* head_class_name(HeadClass c);

struct TaxonomyVotes {
  int sink = 0, current = 0, other = 0;
  int total() const { return sink + current + other; }
  TaxonomyVotes& operator+=(const TaxonomyVotes& o) {
    sink += o.sink;
    current += o.current;
    other += o.other;
    return *this;
  }
};

// Votes of queries i >= 1. `values` is the head's [T][headDim] value vectors.
TaxonomyVotes taxonomy_votes(const AttentionView& attention, std::span<const float> values,
                             int headDim);

// Retriever when "current" is the strict plurality, Mixer when "sink" is, Reset otherwise.
HeadClass taxonomy_label(const TaxonomyVotes& votes);

// Why the sink wins the votes it does: the attention it gets and the length
// of its value. A sink can take most of the attention and still lose the
// A[i][j] * ||v_j|| vote when its value is short (the usual case: sinks
// carry little), which makes a head with a strong sink a Reset.
struct SinkVoteReason {
  double sinkAttention = 0.0;     // mean A[i][0] over the voting queries i >= 1
  double sinkValueRatio = 0.0;    // ||v_0|| / median_{j >= 1} ||v_j|| (0 when T < 2)
};
SinkVoteReason sink_vote_reason(const AttentionView& attention, std::span<const float> values,
                                int headDim);

}  // namespace sinkscope::analysis
