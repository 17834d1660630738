#include "models/document/run_comparison.h"

#include "analysis/token_alignment.h"

namespace sinkscope::document {

namespace {
constexpr Comparison kComparisons[] = {Comparison::Before, Comparison::After,
                                       Comparison::Difference, Comparison::SideBySide};
}  // namespace

std::string comparison_name(Comparison c) {
  switch (c) {
    case Comparison::Before:
      return "before";
    case Comparison::After:
      return "after";
    case Comparison::Difference:
      return "difference";
    case Comparison::SideBySide:
      return "side_by_side";
  }
  return {};
}

std::optional<Comparison> comparison_of(std::string_view name) {
  for (Comparison c : kComparisons)
    if (comparison_name(c) == name) return c;
  return std::nullopt;
}

TokenAlignment tokens_aligned_by_characters(const SentenceRun& a, const SentenceRun& b) {
  const auto& oa = a.tokens.offsets;
  const auto& ob = b.tokens.offsets;
  const auto& ta = a.tokens.display;
  const auto& tb = b.tokens.display;
  return {analysis::token_alignment(oa, ob, ta, tb), analysis::token_alignment(ob, oa, tb, ta)};
}

std::optional<TokenAlignment> tokens_aligned_after_first_dropped(const SentenceRun& a,
                                                                 const SentenceRun& b) {
  if (b.tokenCount() != a.tokenCount() - 1) return std::nullopt;
  std::vector<int> aToB(static_cast<std::size_t>(a.tokenCount()));
  std::vector<int> bToA(static_cast<std::size_t>(b.tokenCount()));
  for (std::size_t k = 0; k < aToB.size(); ++k) aToB[k] = static_cast<int>(k) - 1;
  for (std::size_t j = 0; j < bToA.size(); ++j) bToA[j] = static_cast<int>(j) + 1;
  return std::pair{std::move(aToB), std::move(bToA)};
}

bool runs_have_same_tokens(const SentenceRun& a, const SentenceRun& b) {
  return a.tokens.display == b.tokens.display;
}

}  // namespace sinkscope::document
