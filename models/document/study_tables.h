#pragma once
// A merged corpus study (sinkscope-cli study merge, or analyze --sentences
// beside a study.json) read back for the GUI's Study panel: the pooled
// per-head numbers, the layer profiles with their intervals, the frame with
// its evidence, and per head the sentences where it sinks hardest. The files
// are untrusted: sizes, ranges and numbers are checked, nothing outside the
// study folder is read, and errors name the file and the problem.
#include <cstddef>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace sinkscope::document {

class StudyReadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A pooled number with its 95% bootstrap interval (NaN bounds: none written).
struct Interval {
  double value = 0.0, lo = 0.0, hi = 0.0;
};

struct StudyHead {
  bool specialised = false;
  Interval sampleShare;              // share of sentences with a sink in this head
  std::string topToken;              // its most frequent sink token
  Interval sinkShare, currentShare;  // taxonomy vote shares
  std::string label;                 // Retriever, Mixer or Reset
};

struct StudySentence {
  std::size_t index = 0;  // line in the sentence file
  double alpha0 = 0.0, boost = 0.0;
  int tokens = 0;
  std::string text;
};

struct StudyTables {
  std::filesystem::path folder;
  std::string model;        // as the study was given it (folder or cache name)
  std::string modelFolder;  // where it was loaded from
  int layers = 0, heads = 0;
  bool encoder = false;
  std::size_t sentences = 0;       // pooled
  std::string sentencesMissing;    // "none" or ranges (merge --partial)
  std::string interventions;       // as the headers list them ("none (...)" for plain runs)
  std::vector<StudyHead> perHead;  // [layer * heads + head]
  // layer_profile.csv: metric (with "@threshold" for graph metrics) -> per layer.
  std::map<std::string, std::vector<Interval>> profiles;
  std::vector<std::string> profileOrder;  // the metrics in file order
  // frame.csv and token_specialisation.csv.
  std::string frame, firstToken, lastToken;
  int specialisedHeads = 0;
  Interval firstTokenShare, lastTokenShare, otherShare;
  std::vector<std::pair<std::string, Interval>> tokenShares;
  // sink_rate.csv (key 0).
  Interval sinkRatePercent, meanBoost;
  double meanUniformBaseline = 0.0;
  // top_sentences.csv: per head, by rank.
  std::vector<std::vector<StudySentence>> topSentences;
  // functional.csv when the study ran it: (experiment, layers) -> mean.
  std::vector<std::pair<std::string, Interval>> functional;

  const StudyHead& head(int layer, int head) const {
    return perHead[static_cast<std::size_t>(layer * heads + head)];
  }
};

// Reads DIR/study.json and DIR/merged/*.csv. Throws StudyReadError.
StudyTables study_tables_read(const std::filesystem::path& studyFolder);

}  // namespace sinkscope::document
