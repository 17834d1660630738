#pragma once
// The one shared selection that every panel observes: layer, head (or the
// head average), query and key token, graph threshold, top-N and the active
// interventions. Views read and write only this object, never each other.
// A setter that does not change the value emits nothing, so linked views
// cannot ping-pong.
#include <QObject>

#include "models/intervention.h"

namespace sinkscope::ui {

class SelectionModel : public QObject {
  Q_OBJECT

 public:
  static constexpr int kHeadAverage = -1;            // head() value for "mean over heads"
  static constexpr int kNoToken = -1;                // queryToken()/keyToken() unset
  static constexpr double kDefaultThreshold = 0.05;  // metrics.md s. 3 default set
  static constexpr int kDefaultTopN = 3;

  explicit SelectionModel(QObject* parent = nullptr);

  // Bounds come from the loaded model and sentence; values are clamped to them.
  void setBounds(int layerCount, int headCount, int tokenCount);
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

  void setLayer(int layer);
  void setHead(int head);  // kHeadAverage or 0..headCount-1
  void setQueryToken(int token);
  void setKeyToken(int token);
  void setThreshold(double threshold);  // clamped to [0, 1]
  void setTopN(int n);                  // clamped to [1, max(1, tokenCount)]
  void setInterventions(const models::Intervention& interventions);
  // Tokens to highlight everywhere (hovered in one panel: a token, the tokens
  // that create and kill a persistence bar). Transient: not part of changed(),
  // so hovering redraws only what highlights.
  const QList<int>& highlightedTokens() const { return highlighted_; }
  // Token pairs (graph edges, both orders of a map cell) highlighted with them.
  const QList<QPair<int, int>>& highlightedEdges() const { return highlightedEdges_; }
  void setHighlightedTokens(const QList<int>& tokens);
  void setHighlight(const QList<int>& tokens, const QList<QPair<int, int>>& edges);
  // Adds `more`'s entries (one already active is not repeated).
  void addIntervention(const models::Intervention& more);
  // Switches off the entry at `index` of interventions().labels().
  void removeIntervention(std::size_t index);

  // Comparing two runs (Run > Compare): where the selection lands in run B.
  // Automatic: B's layer at the same relative depth, the same head when B's
  // layers have as many heads, else B's head average
  // (analysis/run_correspondence); the user may pin either instead.
  static constexpr int kAutomatic = -2;
  // B's shape; (0, 0) when no comparison is shown. A new shape unpins both.
  void setCounterpartBounds(int layerCount, int headCount);
  bool hasCounterpart() const { return counterpartLayers_ > 0; }
  int counterpartLayerCount() const { return counterpartLayers_; }
  int counterpartHeadCount() const { return counterpartHeads_; }
  void setCounterpartLayer(int layer);  // kAutomatic or 0..counterpartLayerCount-1
  void setCounterpartHead(int head);    // kAutomatic, kHeadAverage or 0..counterpartHeadCount-1
  int pinnedCounterpartLayer() const { return pinnedLayer_; }  // kAutomatic when not pinned
  int pinnedCounterpartHead() const { return pinnedHead_; }
  // The resolved place in B (the selection's own layer and head without a B).
  int counterpartLayer() const;
  int counterpartHead() const;

  // Steps used by the keyboard commands; they stop at the ends.
  void stepLayer(int delta);
  void stepHead(int delta);  // walks average, 0, 1, ..., headCount-1

 Q_SIGNALS:
  void boundsChanged();
  void layerChanged(int layer);
  void headChanged(int head);
  void queryTokenChanged(int token);
  void keyTokenChanged(int token);
  void thresholdChanged(double threshold);
  void topNChanged(int n);
  void interventionsChanged(const sinkscope::models::Intervention& interventions);
  void highlightChanged(const QList<int>& tokens);
  void counterpartChanged();
  // Emitted once after any of the above, for views that redraw on anything.
  void changed();

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
  QList<int> highlighted_;
  QList<QPair<int, int>> highlightedEdges_;
  models::Intervention interventions_;
  int counterpartLayers_ = 0;
  int counterpartHeads_ = 0;
  int pinnedLayer_ = kAutomatic;
  int pinnedHead_ = kAutomatic;
};

}  // namespace sinkscope::ui
