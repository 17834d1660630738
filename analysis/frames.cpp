#include "analysis/frames.h"

#include <algorithm>
#include <limits>
#include <set>

namespace sinkscope::analysis {

HeadSpecialisation head_specialisation(const std::vector<std::vector<SinkOccurrence>>& sinks,
                                       const SpecialisationParams& params) {
  HeadSpecialisation h;
  if (sinks.empty()) return h;
  struct Tally {
    int samples = 0;
    int firstPosition = std::numeric_limits<int>::max();
  };
  std::map<std::string, Tally> counts;
  int withSink = 0;
  for (const auto& sample : sinks) {
    if (!sample.empty()) ++withSink;
    std::set<std::string> seen;
    for (const auto& s : sample) {
      Tally& t = counts[s.token];
      t.firstPosition = std::min(t.firstPosition, s.position);
      if (seen.insert(s.token).second) ++t.samples;  // once per sample
    }
  }
  h.sampleShare = static_cast<double>(withSink) / static_cast<double>(sinks.size());
  h.specialised = h.sampleShare >= params.sampleShare;
  const Tally* best = nullptr;
  for (const auto& [token, t] : counts)  // map order: the last resort is the smaller string
    if (!best || t.samples > best->samples ||
        (t.samples == best->samples && t.firstPosition < best->firstPosition)) {
      best = &t;
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
