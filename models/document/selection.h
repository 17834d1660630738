#pragma once
// The one selection every view follows, as a value: layer, head (or the head
// average), query and key token, graph threshold theta, top-N, the active
// interventions, and where the selection lands in a compared run B. Each
// setter keeps the value inside the bounds of the shown run and says what
// moved, so a front end (the window's SelectionModel) tells its views only
// of real changes.
#include "models/document/sentence_run.h"
#include "models/intervention.h"

namespace sinkscope::document {

class Selection {
 public:
  static constexpr int kHeadAverage = document::kHeadAverage;  // head() for the mean over heads
  static constexpr int kNoToken = -1;                          // queryToken()/keyToken() unset
  static constexpr int kAutomatic = -2;                        // B's place follows the selection
  static constexpr double kDefaultThreshold = 0.05;            // metrics.md s. 3 default set
  static constexpr int kDefaultTopN = 3;

  // What a change of bounds moved.
  struct Moved {
    bool bounds = false, layer = false, head = false, query = false, key = false, topN = false;
  };

  // Bounds come from the shown run (the model's shape and the sentence's
  // tokens); values are clamped to them. A top-N asked for earlier comes back
  // when the tokens allow it again.
  Moved setBounds(int layerCount, int headCount, int tokenCount);
  int layerCount() const { return layerCount_; }
  int headCount() const { return headCount_; }
  int tokenCount() const { return tokenCount_; }

  int layer() const { return layer_; }
  int head() const { return head_; }
  bool headAveraged() const { return head_ == kHeadAverage; }
  int queryToken() const { return queryToken_; }
  int keyToken() const { return keyToken_; }
  double threshold() const { return threshold_; }
  int topN() const { return topN_; }
  const models::Intervention& interventions() const { return interventions_; }

  // Each returns whether the value moved.
  bool setLayer(int layer);
  bool setHead(int head);  // kHeadAverage or 0..headCount-1
  bool setQueryToken(int token);
  bool setKeyToken(int token);
  bool setThreshold(double threshold);  // clamped to [0, 1]; not a number: ignored
  bool setTopN(int n);                  // clamped to [1, max(1, tokenCount)]
  bool setInterventions(const models::Intervention& interventions);
  // The head after `delta` steps of the walk average, 0, 1, ..., headCount-1
  // (stopping at its ends).
  int headStepped(int delta) const;

  // Comparing two runs: where the selection lands in run B. Automatic: B's
  // layer at the same relative depth, the same head when B's layers have as
  // many heads, else B's head average (analysis/run_correspondence); the user
  // may pin either instead.
  // B's shape; (0, 0) when no comparison is shown. A new shape unpins both.
  bool setCounterpartBounds(int layerCount, int headCount);
  bool hasCounterpart() const { return counterpartLayers_ > 0; }
  int counterpartLayerCount() const { return counterpartLayers_; }
  int counterpartHeadCount() const { return counterpartHeads_; }
  bool setCounterpartLayer(int layer);  // kAutomatic or 0..counterpartLayerCount-1
  bool setCounterpartHead(int head);    // kAutomatic, kHeadAverage or 0..counterpartHeadCount-1
  int pinnedCounterpartLayer() const { return pinnedLayer_; }  // kAutomatic when not pinned
  int pinnedCounterpartHead() const { return pinnedHead_; }
  // The resolved place in B (the selection's own layer and head without a B).
  int counterpartLayer() const;
  int counterpartHead() const;

 private:
  int clampLayer(int layer) const;
  int clampHead(int head) const;
  int clampToken(int token) const;
  int clampTopN(int n) const;

  int layerCount_ = 0;
  int headCount_ = 0;
  int tokenCount_ = 0;
  int layer_ = 0;
  int head_ = 0;
  int queryToken_ = kNoToken;
  int keyToken_ = kNoToken;
  double threshold_ = kDefaultThreshold;
  int topN_ = kDefaultTopN;
  int requestedTopN_ = kDefaultTopN;  // what the user asked for, before clamping
  models::Intervention interventions_;
  int counterpartLayers_ = 0;
  int counterpartHeads_ = 0;
  int pinnedLayer_ = kAutomatic;
  int pinnedHead_ = kAutomatic;
};

}  // namespace sinkscope::document
