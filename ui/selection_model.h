#pragma once
// The one shared selection that every panel observes (document::Selection:
// layer, head or the head average, query and key token, graph threshold,
// top-N, the active interventions, B's place), with signals, and the
// transient highlight of what the pointer is over. Views read and write only
// this object, never each other. A setter that does not change the value
// emits nothing, so linked views cannot ping-pong.
#include <QList>
#include <QObject>
#include <QPair>

#include "models/document/selection.h"

namespace sinkscope::ui {

class SelectionModel : public QObject {
  Q_OBJECT

 public:
  static constexpr int kHeadAverage = document::Selection::kHeadAverage;
  static constexpr int kNoToken = document::Selection::kNoToken;
  static constexpr double kDefaultThreshold = document::Selection::kDefaultThreshold;
  static constexpr int kDefaultTopN = document::Selection::kDefaultTopN;
  static constexpr int kAutomatic = document::Selection::kAutomatic;

  explicit SelectionModel(QObject* parent = nullptr);

  // The selection as the document holds it.
  const document::Selection& state() const { return state_; }

  // Bounds come from the loaded model and sentence; values are clamped to them.
  void setBounds(int layerCount, int headCount, int tokenCount);
  int layerCount() const { return state_.layerCount(); }
  int headCount() const { return state_.headCount(); }
  int tokenCount() const { return state_.tokenCount(); }

  int layer() const { return state_.layer(); }
  int head() const { return state_.head(); }
  bool headAveraged() const { return state_.headAveraged(); }
  int queryToken() const { return state_.queryToken(); }
  int keyToken() const { return state_.keyToken(); }
  double threshold() const { return state_.threshold(); }
  int topN() const { return state_.topN(); }
  const models::Intervention& interventions() const { return state_.interventions(); }

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

  // Comparing two runs (Run > Compare): where the selection lands in run B
  // (document::Selection's counterpart).
  void setCounterpartBounds(int layerCount, int headCount);
  bool hasCounterpart() const { return state_.hasCounterpart(); }
  int counterpartLayerCount() const { return state_.counterpartLayerCount(); }
  int counterpartHeadCount() const { return state_.counterpartHeadCount(); }
  void setCounterpartLayer(int layer);  // kAutomatic or 0..counterpartLayerCount-1
  void setCounterpartHead(int head);    // kAutomatic, kHeadAverage or 0..counterpartHeadCount-1
  int pinnedCounterpartLayer() const { return state_.pinnedCounterpartLayer(); }
  int pinnedCounterpartHead() const { return state_.pinnedCounterpartHead(); }
  int counterpartLayer() const { return state_.counterpartLayer(); }
  int counterpartHead() const { return state_.counterpartHead(); }

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
  document::Selection state_;
  QList<int> highlighted_;
  QList<QPair<int, int>> highlightedEdges_;
};

}  // namespace sinkscope::ui
