#pragma once
// Where a selection made on run A lands in run B when the panels compare two
// runs of different shapes (layers, heads or tokenizer: whatever differs). Layers
// correspond by relative depth, first layer to first and last to last; heads
// by index only when both layers have as many heads (checkpoints of one
// training run, one model on two sentences), otherwise A's head lands on B's
// head average, because heads of different models share no order; tokens by
// the characters they cover (analysis/token_alignment).
#include <vector>

#include "analysis/token_alignment.h"

namespace sinkscope::analysis {

inline constexpr int kCounterpartHeadAverage = -1;

// A's layer `layer` of `layersA` is at relative depth layer / (layersA - 1)
// (0 for a one-layer model); B's layer nearest that depth, ties upward.
int layer_at_same_depth(int layer, int layersA, int layersB);

// A's head (or kCounterpartHeadAverage) in a model of `headsB` heads.
int counterpart_head(int head, int headsA, int headsB);

// For each token of A, B's token covering the same characters; else B's token
// covering A's first character; else, for tokens covering none (<s>, [CLS]),
// the same position when B's token there covers none either; else -1.
std::vector<int> token_counterparts(const std::vector<TokenSpan>& a, const std::vector<TokenSpan>& b);

// The tokens of A whose counterpart (above) is B's token `tokenB`, ascending.
std::vector<int> tokens_landing_on(const std::vector<int>& counterparts, int tokenB);

}  // namespace sinkscope::analysis
