#include "analysis/token_alignment.h"

#include <map>

namespace sinkscope::analysis {

std::vector<int> token_alignment(const std::vector<TokenSpan>& a, const std::vector<TokenSpan>& b) {
  std::map<TokenSpan, int> inB;
  for (std::size_t j = 0; j < b.size(); ++j)
    if (b[j].first >= 0) inB.emplace(b[j], static_cast<int>(j));
  std::vector<int> out(a.size(), -1);
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].first >= 0)
      if (const auto it = inB.find(a[i]); it != inB.end()) out[i] = it->second;
  return out;
}

std::vector<int> token_alignment(const std::vector<TokenSpan>& a, const std::vector<TokenSpan>& b,
                                 const std::vector<std::string>& aTokens,
                                 const std::vector<std::string>& bTokens) {
  std::vector<int> out = token_alignment(a, b);
  if (aTokens.size() != a.size() || bTokens.size() != b.size()) return out;
  // B's spanless tokens by string, in order; A's k-th of a string takes B's k-th.
  std::map<std::string, std::vector<int>> specialsB;
  for (std::size_t j = 0; j < b.size(); ++j)
    if (b[j].first < 0) specialsB[bTokens[j]].push_back(static_cast<int>(j));
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].first >= 0) continue;
    const auto it = specialsB.find(aTokens[i]);
    const std::size_t k = seen[aTokens[i]]++;
    if (it != specialsB.end() && k < it->second.size()) out[i] = it->second[k];
  }
  return out;
}

}  // namespace sinkscope::analysis
