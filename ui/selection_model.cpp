#include "ui/selection_model.h"

#include <algorithm>
#include <cmath>

#include "analysis/run_correspondence.h"

namespace sinkscope::ui {

static_assert(SelectionModel::kHeadAverage == analysis::kCounterpartHeadAverage);

SelectionModel::SelectionModel(QObject* parent) : QObject(parent) {}

int SelectionModel::clampLayer(int layer) const {
  return layerCount_ <= 0 ? 0 : std::clamp(layer, 0, layerCount_ - 1);
}

int SelectionModel::clampHead(int head) const {
  if (head == kHeadAverage) return kHeadAverage;
  return headCount_ <= 0 ? 0 : std::clamp(head, 0, headCount_ - 1);
}

int SelectionModel::clampToken(int token) const {
  if (token == kNoToken || tokenCount_ <= 0) return kNoToken;
  return std::clamp(token, 0, tokenCount_ - 1);
}

int SelectionModel::clampTopN(int n) const { return std::clamp(n, 1, std::max(1, tokenCount_)); }

void SelectionModel::setBounds(int layerCount, int headCount, int tokenCount) {
  layerCount = std::max(0, layerCount);
  headCount = std::max(0, headCount);
  tokenCount = std::max(0, tokenCount);
  if (layerCount == layerCount_ && headCount == headCount_ && tokenCount == tokenCount_) return;
  layerCount_ = layerCount;
  headCount_ = headCount;
  tokenCount_ = tokenCount;
  Q_EMIT boundsChanged();
  // Re-apply the current values so that they fall inside the new bounds;
  // each setter emits only if its value actually moves.
  const int layer = clampLayer(layer_), head = clampHead(head_);
  const int query = clampToken(queryToken_), key = clampToken(keyToken_);
  const int n = clampTopN(requestedTopN_);
  if (layer != layer_) {
    layer_ = layer;
    Q_EMIT layerChanged(layer_);
  }
  if (head != head_) {
    head_ = head;
    Q_EMIT headChanged(head_);
  }
  if (query != queryToken_) {
    queryToken_ = query;
    Q_EMIT queryTokenChanged(query);
  }
  if (key != keyToken_) {
    keyToken_ = key;
    Q_EMIT keyTokenChanged(key);
  }
  if (n != topN_) {
    topN_ = n;
    Q_EMIT topNChanged(n);
  }
  Q_EMIT changed();
}

void SelectionModel::setLayer(int layer) {
  layer = clampLayer(layer);
  if (layer == layer_) return;
  layer_ = layer;
  Q_EMIT layerChanged(layer_);
  Q_EMIT changed();
}

void SelectionModel::setHead(int head) {
  head = clampHead(head);
  if (head == head_) return;
  head_ = head;
  Q_EMIT headChanged(head_);
  Q_EMIT changed();
}

void SelectionModel::setQueryToken(int token) {
  token = clampToken(token);
  if (token == queryToken_) return;
  queryToken_ = token;
  Q_EMIT queryTokenChanged(token);
  Q_EMIT changed();
}

void SelectionModel::setKeyToken(int token) {
  token = clampToken(token);
  if (token == keyToken_) return;
  keyToken_ = token;
  Q_EMIT keyTokenChanged(token);
  Q_EMIT changed();
}

void SelectionModel::setThreshold(double threshold) {
  if (!std::isfinite(threshold)) return;
  threshold = std::clamp(threshold, 0.0, 1.0);
  if (threshold == threshold_) return;
  threshold_ = threshold;
  Q_EMIT thresholdChanged(threshold_);
  Q_EMIT changed();
}

void SelectionModel::setTopN(int n) {
  requestedTopN_ = std::max(1, n);
  n = clampTopN(n);
  if (n == topN_) return;
  topN_ = n;
  Q_EMIT topNChanged(n);
  Q_EMIT changed();
}

void SelectionModel::setHighlightedTokens(const QList<int>& tokens) { setHighlight(tokens, {}); }

void SelectionModel::setHighlight(const QList<int>& tokens, const QList<QPair<int, int>>& edges) {
  auto inside = [this](int t) { return t >= 0 && t < tokenCount_; };
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
  if (interventions == interventions_) return;
  interventions_ = interventions;
  Q_EMIT interventionsChanged(interventions_);
  Q_EMIT changed();
}

void SelectionModel::addIntervention(const models::Intervention& more) {
  setInterventions(interventions_.with(more));
}

void SelectionModel::removeIntervention(std::size_t index) {
  setInterventions(interventions_.without(index));
}

void SelectionModel::setCounterpartBounds(int layerCount, int headCount) {
  layerCount = std::max(0, layerCount);
  headCount = layerCount > 0 ? std::max(0, headCount) : 0;
  if (layerCount == counterpartLayers_ && headCount == counterpartHeads_) return;
  counterpartLayers_ = layerCount;
  counterpartHeads_ = headCount;
  pinnedLayer_ = pinnedHead_ = kAutomatic;  // a pin names a place in the old shape
  Q_EMIT counterpartChanged();
  Q_EMIT changed();
}

void SelectionModel::setCounterpartLayer(int layer) {
  if (!hasCounterpart()) return;
  if (layer != kAutomatic) layer = std::clamp(layer, 0, counterpartLayers_ - 1);
  if (layer == pinnedLayer_) return;
  pinnedLayer_ = layer;
  Q_EMIT counterpartChanged();
  Q_EMIT changed();
}

void SelectionModel::setCounterpartHead(int head) {
  if (!hasCounterpart()) return;
  if (head != kAutomatic && head != kHeadAverage)
    head = counterpartHeads_ <= 0 ? kHeadAverage : std::clamp(head, 0, counterpartHeads_ - 1);
  if (head == pinnedHead_) return;
  pinnedHead_ = head;
  Q_EMIT counterpartChanged();
  Q_EMIT changed();
}

int SelectionModel::counterpartLayer() const {
  if (!hasCounterpart()) return layer_;
  if (pinnedLayer_ != kAutomatic) return pinnedLayer_;
  return analysis::layer_at_same_depth(layer_, layerCount_, counterpartLayers_);
}

int SelectionModel::counterpartHead() const {
  if (!hasCounterpart()) return head_;
  if (pinnedHead_ != kAutomatic) return pinnedHead_;
  // Heads correspond only between layers of as many heads.
  return analysis::counterpart_head(head_, headCount_, counterpartHeads_);
}

void SelectionModel::stepLayer(int delta) { setLayer(layer_ + delta); }

void SelectionModel::stepHead(int delta) {
  // The head average sits before head 0 in the walk.
  const int position = (head_ == kHeadAverage ? 0 : head_ + 1) + delta;
  const int last = std::max(0, headCount_);
  const int clamped = std::clamp(position, 0, last);
  setHead(clamped == 0 ? kHeadAverage : clamped - 1);
}

}  // namespace sinkscope::ui
