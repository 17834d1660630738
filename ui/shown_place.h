#pragma once
// Where the selection, made on run A, lands in the run a view draws:
// for A itself the selection as it is; for run B of a comparison the
// selection's counterpart (SelectionModel::counterpartLayer and -Head: the
// same relative depth, or pinned) and A's tokens through the two models'
// token correspondence (analysis::token_counterparts), or by position when
// both runs share a tokenizer. The panels and the attention map draw B
// through it, and what is pointed at in B comes back to A's tokens.
#include <QList>
#include <QPair>
#include <QString>
#include <utility>
#include <vector>

namespace sinkscope::ui {

class SelectionModel;

class ShownPlace {
 public:
  // The selection's own place (run A, or no comparison).
  explicit ShownPlace(SelectionModel* selection = nullptr) : selection_(selection) {}
  // Run B of `tokenCountB` tokens; `tokensInB[k]`: A's token k in B (empty:
  // the same positions). `ownLayerAndHead`: B is drawn at the selection's own
  // layer and head (a run with interventions that dropped tokens), not at
  // the selection's counterpart in another model.
  ShownPlace(SelectionModel* selection, int tokenCountB, std::vector<int> tokensInB,
             bool ownLayerAndHead = false);

  bool isCounterpart() const { return counterpart_; }
  int layer() const;
  int head() const;
  // A's token in the shown run; SelectionModel::kNoToken when it has none.
  int token(int tokenOfA) const;
  int queryToken() const;
  int keyToken() const;
  // The tokens of A landing on the shown run's token (none: nothing of A does).
  QList<int> tokensOfA(int shownToken) const;
  // Whether the shown token is highlighted (the selection's highlights are A's).
  bool lit(int shownToken) const;
  // The highlighted edges in the shown run's tokens.
  std::vector<std::pair<int, int>> highlightedEdges() const;
  // Highlights tokens and edges given in the shown run's tokens.
  void highlight(const QList<int>& tokens, const QList<QPair<int, int>>& edges) const;
  // " | A at layer 1, head 2" (A named `runA`) when the shown run is drawn
  // at another layer or head than the selection's own; else empty.
  QString note(const QString& runA) const;

 private:
  SelectionModel* selection_ = nullptr;
  bool counterpart_ = false;
  bool ownLayerAndHead_ = false;
  int tokenCountB_ = 0;
  std::vector<int> tokensInB_;
};

}  // namespace sinkscope::ui
