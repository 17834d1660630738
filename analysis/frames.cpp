#include "analysis/frames.h"

#include <set>

namespace sinkscope::analysis {

HeadSpecialisation head_specialisation(const std::vector<std::vector<std::string>>& sinkTokens,
                                       const SpecialisationParams& params) {
  HeadSpecialisation h;
  if (sinkTokens.empty()) return h;
  std::map<std::string, int> counts;
  int withSink = 0;
  for (const auto& sample : sinkTokens) {
    if (!sample.empty()) ++withSink;
    for (const auto& t : std::set<std::string>(sample.begin(), sample.end()))
      ++counts[t];  // once per sample
  }
  h.sampleShare = static_cast<double>(withSink) / static_cast<double>(sinkTokens.size());
  h.specialised = h.sampleShare >= params.sampleShare;
  int best = 0;
  for (const auto& [token, n] : counts)  // map order: ties go to the smaller string
    if (n > best) {
      best = n;
      h.topToken = token;
    }
  return h;
}

std::map<std::string, double> token_specialisation(const std::vector<HeadSpecialisation>& heads) {
  std::map<std::string, double> shares;
  int specialised = 0;
  for (const auto& h : heads)
    if (h.specialised) {
      ++specialised;
      shares[h.topToken] += 1.0;
    }
  for (auto& [t, s] : shares) s /= specialised;
  return shares;
}

const char* reference_frame_name(ReferenceFrame f) {
  switch (f) {
    case ReferenceFrame::Centralised:
      return "centralised";
    case ReferenceFrame::Bidirectional:
      return "bidirectional";
    case ReferenceFrame::Distributed:
      return "distributed";
  }
  return "?";
}

FrameEvidence reference_frame(const std::vector<HeadSpecialisation>& heads,
                              const std::string& firstToken, const std::string& lastToken,
                              bool encoder, const FrameParams& params) {
  FrameEvidence e;
  e.tokenShares = token_specialisation(heads);
  for (const auto& h : heads) e.specialisedHeads += h.specialised ? 1 : 0;
  if (auto it = e.tokenShares.find(firstToken); it != e.tokenShares.end())
    e.firstTokenShare = it->second;
  if (lastToken != firstToken)
    if (auto it = e.tokenShares.find(lastToken); it != e.tokenShares.end())
      e.lastTokenShare = it->second;
  e.otherShare = e.specialisedHeads > 0 ? 1.0 - e.firstTokenShare - e.lastTokenShare : 0.0;
  if (e.specialisedHeads > 0 && e.firstTokenShare >= params.centralisedShare)
    e.frame = ReferenceFrame::Centralised;
  else if (encoder && e.firstTokenShare >= params.bidirectionalShare &&
           e.lastTokenShare >= params.bidirectionalShare)
    e.frame = ReferenceFrame::Bidirectional;
  else
    e.frame = ReferenceFrame::Distributed;
  return e;
}

}  // namespace sinkscope::analysis
