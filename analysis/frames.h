#pragma once
// Corpus-mode sink summaries (metrics.md section 1: specialised heads and
// token specialisation) and the reference-frame classifier (section 4).
#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace sinkscope::analysis {

struct SpecialisationParams {
  double sampleShare = 0.8;  // s: a head is specialised when it has a sink in >= s of the samples
};

struct HeadSpecialisation {
  bool specialised = false;
  double sampleShare = 0.0;  // share of samples in which the head has at least one sink
  // Its most frequent sink token (by string, counted once per sample); ties go
  // to the token whose first sink occurrence has the lowest position (so <s>
  // at 0 beats "." at 9), then to the one in the earlier sample, then to the
  // lower position in that sample: never to string order (metrics.md s. 1).
  std::string topToken;
};

// The order of that tie rule: does token a (its sample count, lowest
// position, first sample and its position there) come before token b?
inline bool top_token_before(long long samplesA, int firstPositionA, std::size_t firstSampleA,
                             int positionInFirstA, long long samplesB, int firstPositionB,
                             std::size_t firstSampleB, int positionInFirstB) {
  if (samplesA != samplesB) return samplesA > samplesB;
  if (firstPositionA != firstPositionB) return firstPositionA < firstPositionB;
  if (firstSampleA != firstSampleB) return firstSampleA < firstSampleB;
  return positionInFirstA < positionInFirstB;
}

// A sink of one sample: its token string and its position in that sample.
struct SinkOccurrence {
  std::string token;
  int position = 0;
};

// `sinks[k]` = the head's sink tokens in sample k.
HeadSpecialisation head_specialisation(const std::vector<std::vector<SinkOccurrence>>& sinks,
                                       const SpecialisationParams& params = {});

// For the specialised heads: the share (0..1) whose top sink token is each token.
std::map<std::string, double> token_specialisation(const std::vector<HeadSpecialisation>& heads);

enum class ReferenceFrame { Centralised, Bidirectional, Distributed };
const char* reference_frame_name(ReferenceFrame f);

struct FrameParams {
  double centralisedShare = 0.9;  // >= this share of specialised heads on the first token
  double bidirectionalShare =
      0.2;  // reading: encoders with >= this share on each of the first and last special token
};

struct FrameEvidence {
  ReferenceFrame frame = ReferenceFrame::Distributed;
  int specialisedHeads = 0;
  double firstTokenShare = 0.0;  // of specialised heads whose top sink is the first token
  double lastTokenShare = 0.0;   // ... the last special token (encoders)
  double otherShare = 0.0;
  std::map<std::string, double> tokenShares;
};

// The rule of metrics.md section 4 with its thresholds exposed.
FrameEvidence reference_frame(const std::vector<HeadSpecialisation>& heads,
                              const std::string& firstToken, const std::string& lastToken,
                              bool encoder, const FrameParams& params = {});

}  // namespace sinkscope::analysis
