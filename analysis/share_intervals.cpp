#include "analysis/share_intervals.h"

#include <algorithm>
#include <stdexcept>

#include "analysis/intervals.h"

namespace sinkscope::analysis {

HeadSinkTally head_sink_tally(const std::vector<std::vector<SinkOccurrence>>& sinks) {
  HeadSinkTally t;
  t.samples = static_cast<long long>(sinks.size());
  for (const auto& sample : sinks) {
    if (sample.empty()) continue;
    ++t.withSink;
    std::set<std::string> once;  // a token counts once per sample
    for (const auto& s : sample)
      if (once.insert(s.token).second) ++t.tokenSamples[s.token];
  }
  return t;
}

PlausibleHeadClasses::PlausibleHeadClasses(const std::vector<HeadSinkTally>& heads,
                                           double specialisedShare, double confidence) {
  if (!(confidence > 0.0 && confidence < 1.0))
    throw std::invalid_argument("PlausibleHeadClasses: the confidence must lie in (0, 1)");
  // One interval per head for its sink share, one per token it has seen and
  // one for the tokens it has not: all must hold together.
  double intervals = 0.0;
  for (const auto& h : heads) intervals += 2.0 + static_cast<double>(h.tokenSamples.size());
  const double each = 1.0 - (1.0 - confidence) / std::max(1.0, intervals);
  heads_.reserve(heads.size());
  for (const auto& tally : heads) {
    Head h;
    if (tally.samples <= 0) {  // nothing known: anything is possible
      h.maySpecialise = h.mayNotSpecialise = h.unseenMayTop = true;
      heads_.push_back(std::move(h));
      continue;
    }
    const auto n = static_cast<double>(tally.samples);
    const ProportionInterval sink = clopper_pearson(static_cast<double>(tally.withSink), n, each);
    h.maySpecialise = sink.hi >= specialisedShare;
    h.mayNotSpecialise = sink.lo < specialisedShare;
    // The bounds grow with the count: the best lower bound is the most
    // frequent token's, and each count's upper bound is computed once (a head
    // may list thousands of tokens, of at most samples + 1 counts).
    long long most = 0;
    for (const auto& [token, count] : tally.tokenSamples) most = std::max(most, count);
    const double bestLo =
        most > 0 ? clopper_pearson(static_cast<double>(std::min(most, tally.samples)), n, each).lo : 0.0;
    std::map<long long, double> highOf;
    for (const auto& [token, count] : tally.tokenSamples) {
      h.seen.insert(token);
      auto it = highOf.find(count);
      if (it == highOf.end())
        it = highOf.emplace(count, clopper_pearson(static_cast<double>(std::min(count, tally.samples)), n, each).hi)
                 .first;
      if (it->second >= bestLo) h.possibleTops.insert(token);
    }
    h.unseenMayTop = clopper_pearson(0.0, n, each).hi >= bestLo;
    heads_.push_back(std::move(h));
  }
}

ShareInterval PlausibleHeadClasses::share(const std::set<std::string>& tokens, bool complement) const {
  // Each head is one of: not specialised (adds nothing), specialised with a
  // top in the set (adds 1 of 1) or outside it (adds 0 of 1). The share only
  // falls by adding 0 of 1 and only rises by adding 1 of 1 (or staying out),
  // so the extremes take, head by head, the most and the least favourable
  // class it may have.
  long long minIn = 0, minAll = 0, maxIn = 0, maxAll = 0;
  for (const Head& h : heads_) {
    const bool named = std::any_of(tokens.begin(), tokens.end(),
                                   [&](const std::string& t) { return !h.seen.count(t); });
    bool mayIn = false, mayOut = false;
    for (const auto& t : h.possibleTops) (tokens.count(t) != complement ? mayIn : mayOut) = true;
    if (h.unseenMayTop) {
      // Unseen tokens: without the complement, in the set only if one of its
      // tokens was never seen; with it, nearly every token is outside the set.
      mayIn = mayIn || (complement ? true : named);
      mayOut = mayOut || (complement ? named : true);
    }
    mayIn = mayIn && h.maySpecialise;
    mayOut = mayOut && h.maySpecialise;
    const bool mayAbstain = h.mayNotSpecialise || (!mayIn && !mayOut);
    // Least: out of the set if it can be, else not specialised, else in.
    if (mayOut) {
      ++minAll;
    } else if (!mayAbstain) {
      ++minIn;
      ++minAll;
    }
    // Most: in the set if it can be, else not specialised, else out.
    if (mayIn) {
      ++maxIn;
      ++maxAll;
    } else if (!mayAbstain) {
      ++maxAll;
    }
  }
  ShareInterval s;
  s.lo = minAll > 0 ? static_cast<double>(minIn) / static_cast<double>(minAll) : 0.0;
  s.hi = maxAll > 0 ? static_cast<double>(maxIn) / static_cast<double>(maxAll) : 0.0;
  return s;
}

}  // namespace sinkscope::analysis
