#pragma once
// A T x T attention probability matrix (row = query, column = key) as a plain
// row-major float buffer: the form in which every analysis receives attention.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace sinkscope::analysis {

// Read-only view; the owner keeps the buffer alive.
struct AttentionView {
  std::span<const float> weights;  // size * size entries, row-major
  int size = 0;                    // T
  bool causal = true;              // keys j > i are invisible to query i

  float at(int query, int key) const {
    return weights[static_cast<std::size_t>(query) * static_cast<std::size_t>(size) +
                   static_cast<std::size_t>(key)];
  }
  // Number of queries that can see `key`.
  int visible_query_count(int key) const { return causal ? size - key : size; }
  bool visible(int query, int key) const { return !causal || key <= query; }
};

// Owning matrix, used for computed maps (baselines, interventions, tests).
struct AttentionMatrix {
  std::vector<float> weights;
  int size = 0;
  bool causal = true;

  AttentionView view() const { return {weights, size, causal}; }
};

// Throws std::invalid_argument with a message naming the problem when `view`
// is not a valid attention map: wrong buffer size, negative or non-finite
// weights, weight on an invisible key, or a row that does not sum to 1.
void attention_validate(const AttentionView& view, double row_sum_tolerance = 1e-3);

// What every analysis requires of its input, checked on entry so that a bad map
// gives a clear error instead of undefined behaviour (sorting NaN): the buffer
// holds size * size weights, each finite and non-negative. Rows need not sum to
// 1: the analyses take the weights as given (attention_validate checks that).
// Throws std::invalid_argument naming `who` and the offending entry.
void attention_require_usable(const AttentionView& view, const char* who);

// Throws std::invalid_argument naming `who` when a value is NaN or infinite.
void values_require_finite(std::span<const float> values, const char* who);

// The map of a head that spreads every query's attention evenly over the keys
// it can see: the reference against which sinks are judged (metrics.md s. 1).
AttentionMatrix attention_uniform(int size, bool causal);

}  // namespace sinkscope::analysis
