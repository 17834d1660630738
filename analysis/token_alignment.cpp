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

}  // namespace sinkscope::analysis
