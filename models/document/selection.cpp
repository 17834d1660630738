#include "models/document/selection.h"

#include <algorithm>
#include <cmath>

#include "analysis/run_correspondence.h"

namespace sinkscope::document {

static_assert(Selection::kHeadAverage == analysis::kCounterpartHeadAverage);

namespace {
// Sets `value` to `to`; whether it moved.
template <class T>
bool assign(T& value, const T& to) {
  if (value == to) return false;
  value = to;
  return true;
}
}  // namespace

int Selection::clampLayer(int layer) const {
  return layerCount_ <= 0 ? 0 : std::clamp(layer, 0, layerCount_ - 1);
}

int Selection::clampHead(int head) const {
  if (head == kHeadAverage) return kHeadAverage;
  return headCount_ <= 0 ? 0 : std::clamp(head, 0, headCount_ - 1);
}

int Selection::clampToken(int token) const {
  if (token == kNoToken || tokenCount_ <= 0) return kNoToken;
  return std::clamp(token, 0, tokenCount_ - 1);
}

int Selection::clampTopN(int n) const { return std::clamp(n, 1, std::max(1, tokenCount_)); }

Selection::Moved Selection::setBounds(int layerCount, int headCount, int tokenCount) {
  layerCount = std::max(0, layerCount);
  headCount = std::max(0, headCount);
  tokenCount = std::max(0, tokenCount);
  Moved moved;
  if (layerCount == layerCount_ && headCount == headCount_ && tokenCount == tokenCount_)
    return moved;
  layerCount_ = layerCount;
  headCount_ = headCount;
  tokenCount_ = tokenCount;
  moved.bounds = true;
  moved.layer = assign(layer_, clampLayer(layer_));
  moved.head = assign(head_, clampHead(head_));
  moved.query = assign(queryToken_, clampToken(queryToken_));
  moved.key = assign(keyToken_, clampToken(keyToken_));
  moved.topN = assign(topN_, clampTopN(requestedTopN_));
  return moved;
}

bool Selection::setLayer(int layer) { return assign(layer_, clampLayer(layer)); }
bool Selection::setHead(int head) { return assign(head_, clampHead(head)); }
bool Selection::setQueryToken(int token) { return assign(queryToken_, clampToken(token)); }
bool Selection::setKeyToken(int token) { return assign(keyToken_, clampToken(token)); }

bool Selection::setThreshold(double threshold) {
  if (!std::isfinite(threshold)) return false;
  return assign(threshold_, std::clamp(threshold, 0.0, 1.0));
}

bool Selection::setTopN(int n) {
  requestedTopN_ = std::max(1, n);
  return assign(topN_, clampTopN(n));
}

bool Selection::setInterventions(const models::Intervention& interventions) {
  return assign(interventions_, interventions);
}

int Selection::headStepped(int delta) const {
  // The head average sits before head 0 in the walk.
  const int position = (head_ == kHeadAverage ? 0 : head_ + 1) + delta;
  const int clamped = std::clamp(position, 0, std::max(0, headCount_));
  return clamped == 0 ? kHeadAverage : clamped - 1;
}

bool Selection::setCounterpartBounds(int layerCount, int headCount) {
  layerCount = std::max(0, layerCount);
  headCount = layerCount > 0 ? std::max(0, headCount) : 0;
  if (layerCount == counterpartLayers_ && headCount == counterpartHeads_) return false;
  counterpartLayers_ = layerCount;
  counterpartHeads_ = headCount;
  pinnedLayer_ = pinnedHead_ = kAutomatic;  // a pin names a place in the old shape
  return true;
}

bool Selection::setCounterpartLayer(int layer) {
  if (!hasCounterpart()) return false;
  if (layer != kAutomatic) layer = std::clamp(layer, 0, counterpartLayers_ - 1);
  return assign(pinnedLayer_, layer);
}

bool Selection::setCounterpartHead(int head) {
  if (!hasCounterpart()) return false;
  if (head != kAutomatic && head != kHeadAverage)
    head = counterpartHeads_ <= 0 ? kHeadAverage : std::clamp(head, 0, counterpartHeads_ - 1);
  return assign(pinnedHead_, head);
}

int Selection::counterpartLayer() const {
  if (!hasCounterpart()) return layer_;
  if (pinnedLayer_ != kAutomatic) return pinnedLayer_;
  return analysis::layer_at_same_depth(layer_, layerCount_, counterpartLayers_);
}

int Selection::counterpartHead() const {
  if (!hasCounterpart()) return head_;
  if (pinnedHead_ != kAutomatic) return pinnedHead_;
  // Heads correspond only between layers of as many heads.
  return analysis::counterpart_head(head_, headCount_, counterpartHeads_);
}

}  // namespace sinkscope::document
