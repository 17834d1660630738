#pragma once
// How a head's value vectors point (Mudarisov et al., Fig. 3b): the sink's
// direction against the others', and the others' against each other, as
// counts over bins of the cosine, so sentences, heads and layers pool by
// adding counts. metrics.md section 6.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace sinkscope::analysis {

// Bins of width 2 / kValueCosineBins over [-1, 1]: bin b holds
// [-1 + b w, -1 + (b + 1) w), the last also 1.
inline constexpr int kValueCosineBins = 40;
// At most this many non-sink keys enter the pairs (every k-th, evenly spread
// from the first): the pairs grow with the square of the keys.
inline constexpr int kValueCosineMaxKeys = 512;

struct ValueCosineCounts {
  std::array<std::int64_t, kValueCosineBins> sinkToOthers{};  // cos(v_0, v_k), k > 0
  std::array<std::int64_t, kValueCosineBins> otherPairs{};    // cos(v_p, v_q), 0 < p < q
  ValueCosineCounts& operator+=(const ValueCosineCounts& o);
};

// The bin of a cosine (clamped to [-1, 1]).
int value_cosine_bin(double cosine);

// `values`: the head's [T][headDim] value vectors; `keys`: the keys the query
// sees (ascending, the sink at position 0 first when it is among them). A
// zero vector has no direction: none of its pairs is counted.
ValueCosineCounts value_cosine_counts(std::span<const float> values, int headDim,
                                      const std::vector<int>& keys);

}  // namespace sinkscope::analysis
