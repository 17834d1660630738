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
    std::size_t firstSample = 0;  // the first sample holding the token
    int positionInFirstSample = 0;
  };
  std::map<std::string, Tally> counts;
  int withSink = 0;
  for (std::size_t k = 0; k < sinks.size(); ++k) {
    const auto& sample = sinks[k];
    if (!sample.empty()) ++withSink;
    std::set<std::string> seen;
    for (const auto& s : sample) {
      const bool isNew = counts.find(s.token) == counts.end();
      Tally& t = counts[s.token];
      if (isNew) {
        t.firstSample = k;
        t.positionInFirstSample = s.position;
      } else if (t.firstSample == k) {
        t.positionInFirstSample = std::min(t.positionInFirstSample, s.position);
      }
      t.firstPosition = std::min(t.firstPosition, s.position);
      if (seen.insert(s.token).second) ++t.samples;  // once per sample
    }
  }
  h.sampleShare = static_cast<double>(withSink) / static_cast<double>(sinks.size());
  h.specialised = h.sampleShare >= params.sampleShare;
  const Tally* best = nullptr;
  for (const auto& [token, t] : counts)
    if (!best || top_token_before(t.samples, t.firstPosition, t.firstSample, t.positionInFirstSample,
                                  best->samples, best->firstPosition, best->firstSample,
                                  best->positionInFirstSample)) {
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
  // Counted, not 1 - first - last: a share that is 0 is written as 0.
  int others = 0;
  for (const auto& h : heads)
    if (h.specialised && h.topToken != firstToken && h.topToken != lastToken) ++others;
  e.otherShare = e.specialisedHeads > 0 ? static_cast<double>(others) / e.specialisedHeads : 0.0;
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
