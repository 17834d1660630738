#pragma once
// How a window's two runs stand to each other: run A (the sentence on the
// model) and run B (A with interventions, or a comparison's other sentence or
// model); which of them the panels draw; where A's tokens land in B; and the
// experiments' results of A.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/document/sentence_run.h"

namespace sinkscope::document {

// What the panels draw while there are two runs. SideBySide: the attention
// map shows left | right, the plots overlay both runs' curves, the other
// panels show the right-hand run.
enum class Comparison { Before, After, Difference, SideBySide };
// Its name in sessions and on the command line: before, after, difference,
// side_by_side; comparison_of returns nothing for any other name.
std::string comparison_name(Comparison c);
std::optional<Comparison> comparison_of(std::string_view name);

// Token correspondences between A and B: for each token of A its token in B
// (-1: none), and back.
using TokenAlignment = std::pair<std::vector<int>, std::vector<int>>;

// Two tokenizers' tokens of one sentence, aligned by the characters they
// cover; special tokens (<s>, [CLS]) cover none and pair by their strings.
TokenAlignment tokens_aligned_by_characters(const SentenceRun& a, const SentenceRun& b);

// B, A's run without its first token: A's token k is B's k - 1. Nothing when
// B does not have exactly one token fewer.
std::optional<TokenAlignment> tokens_aligned_after_first_dropped(const SentenceRun& a,
                                                                 const SentenceRun& b);

// Whether B minus A can be drawn: the same tokens (not just as many).
bool runs_have_same_tokens(const SentenceRun& a, const SentenceRun& b);

// Results of the functional experiments (metrics.md s. 5 and 8) for run A,
// once computed; empty = not yet.
struct ExperimentResults {
  std::vector<double> headDnll;            // [layer * heads + head]
  std::vector<double> klPerLayer;          // sinks removed in that layer
  std::vector<double> fisherPerParameter;  // per layer
};

}  // namespace sinkscope::document
