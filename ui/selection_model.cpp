#include "ui/selection_model.h"

#include <algorithm>

namespace sinkscope::ui {

SelectionModel::SelectionModel(QObject* parent) : QObject(parent) {}

void SelectionModel::setBounds(int layerCount, int headCount, int tokenCount) {
  const document::Selection::Moved moved = state_.setBounds(layerCount, headCount, tokenCount);
  if (!moved.bounds) return;
  Q_EMIT boundsChanged();
  if (moved.layer) Q_EMIT layerChanged(layer());
  if (moved.head) Q_EMIT headChanged(head());
  if (moved.query) Q_EMIT queryTokenChanged(queryToken());
  if (moved.key) Q_EMIT keyTokenChanged(keyToken());
  if (moved.topN) Q_EMIT topNChanged(topN());
  Q_EMIT changed();
}

void SelectionModel::setLayer(int layer) {
  if (!state_.setLayer(layer)) return;
  Q_EMIT layerChanged(this->layer());
  Q_EMIT changed();
}

void SelectionModel::setHead(int head) {
  if (!state_.setHead(head)) return;
  Q_EMIT headChanged(this->head());
  Q_EMIT changed();
}

void SelectionModel::setQueryToken(int token) {
  if (!state_.setQueryToken(token)) return;
  Q_EMIT queryTokenChanged(queryToken());
  Q_EMIT changed();
}

void SelectionModel::setKeyToken(int token) {
  if (!state_.setKeyToken(token)) return;
  Q_EMIT keyTokenChanged(keyToken());
  Q_EMIT changed();
}

void SelectionModel::setThreshold(double threshold) {
  if (!state_.setThreshold(threshold)) return;
  Q_EMIT thresholdChanged(this->threshold());
  Q_EMIT changed();
}

void SelectionModel::setTopN(int n) {
  if (!state_.setTopN(n)) return;
  Q_EMIT topNChanged(topN());
  Q_EMIT changed();
}

void SelectionModel::setHighlightedTokens(const QList<int>& tokens) { setHighlight(tokens, {}); }

void SelectionModel::setHighlight(const QList<int>& tokens, const QList<QPair<int, int>>& edges) {
  const int T = tokenCount();
  auto inside = [T](int t) { return t >= 0 && t < T; };
  QList<int> valid;
  for (int t : tokens)
    if (inside(t) && !valid.contains(t)) valid << t;
  std::sort(valid.begin(), valid.end());
  QList<QPair<int, int>> validEdges;
  for (const auto& [a, b] : edges) {
    const QPair<int, int> e{std::min(a, b), std::max(a, b)};  // undirected
    if (inside(a) && inside(b) && a != b && !validEdges.contains(e)) validEdges << e;
  }
  std::sort(validEdges.begin(), validEdges.end());
  if (valid == highlighted_ && validEdges == highlightedEdges_) return;
  highlighted_ = valid;
  highlightedEdges_ = validEdges;
  Q_EMIT highlightChanged(highlighted_);
}

void SelectionModel::setInterventions(const models::Intervention& interventions) {
  if (!state_.setInterventions(interventions)) return;
  Q_EMIT interventionsChanged(this->interventions());
  Q_EMIT changed();
}

void SelectionModel::addIntervention(const models::Intervention& more) {
  setInterventions(interventions().with(more));
}

void SelectionModel::removeIntervention(std::size_t index) {
  setInterventions(interventions().without(index));
}

void SelectionModel::setCounterpartBounds(int layerCount, int headCount) {
  if (!state_.setCounterpartBounds(layerCount, headCount)) return;
  Q_EMIT counterpartChanged();
  Q_EMIT changed();
}

void SelectionModel::setCounterpartLayer(int layer) {
  if (!state_.setCounterpartLayer(layer)) return;
  Q_EMIT counterpartChanged();
  Q_EMIT changed();
}

void SelectionModel::setCounterpartHead(int head) {
  if (!state_.setCounterpartHead(head)) return;
  Q_EMIT counterpartChanged();
  Q_EMIT changed();
}

void SelectionModel::stepLayer(int delta) { setLayer(layer() + delta); }

void SelectionModel::stepHead(int delta) { setHead(state_.headStepped(delta)); }

}  // namespace sinkscope::ui
