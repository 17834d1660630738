#pragma once
// Intervals for the shares of specialised heads by top sink token (metrics.md
// sections 1 and 4: token specialisation and the frame's first/last/other
// shares) that keep their coverage where every head agrees.
//
// Such a share is decided on the pooled sample: which heads are specialised
// and which token tops each. A bootstrap of the sentences collapses onto the
// point when every head is clear-cut in the sample (all resamples agree), which
// is where small corpora mislead. Here the uncertainty is carried by the heads'
// classifications instead: each head's sink share and each of its tokens'
// shares get a Clopper-Pearson interval over the sentences, simultaneous over
// all of them (Bonferroni); a head whose interval straddles the specialisation
// threshold may be either, a token whose interval reaches the best token's
// lower bound may be the top. The share's interval is the least and the most
// it can be over every plausible classification: when all intervals hold at
// once (probability >= the confidence), the larger corpus's share lies inside.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analysis/frames.h"

namespace sinkscope::analysis {

// One head over a corpus: the samples, those holding a sink of the head, and
// for each token the samples in which it is one of the head's sinks.
struct HeadSinkTally {
  long long samples = 0;
  long long withSink = 0;
  std::map<std::string, long long> tokenSamples;
};

// `sinks[k]`: the head's sinks in sample k.
HeadSinkTally head_sink_tally(const std::vector<std::vector<SinkOccurrence>>& sinks);

struct ShareInterval {
  double lo = 0.0, hi = 0.0;
};

class PlausibleHeadClasses {
 public:
  // `specialisedShare`: the threshold s of metrics.md s. 1; `confidence`: of
  // all the heads' intervals together.
  PlausibleHeadClasses(const std::vector<HeadSinkTally>& heads, double specialisedShare,
                       double confidence = 0.95);

  // The share of specialised heads whose top token is one of `tokens` (or,
  // with `complement`, none of them); 0 when no head is specialised.
  ShareInterval share(const std::set<std::string>& tokens, bool complement = false) const;

 private:
  struct Head {
    bool maySpecialise = false, mayNotSpecialise = false;
    std::set<std::string> seen;           // tokens the head had as sinks
    std::set<std::string> possibleTops;   // seen tokens that may top it
    bool unseenMayTop = false;            // a token never seen may top it
  };
  std::vector<Head> heads_;
};

}  // namespace sinkscope::analysis
