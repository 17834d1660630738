#pragma once
// Internal to models/: recomputes one layer's attention from the residual
// stream a Trace kept, for traces whose full captures exceeded the budget.
#include <functional>

#include "models/model.h"

namespace sinkscope::models {

class LayerRecomputer {
 public:
  virtual ~LayerRecomputer() = default;
  virtual LayerCapture recompute(const Trace& trace, int layer) const = 0;
  // Trace::forEachHeadGroup for a layer that is not stored.
  virtual void recomputeHeads(const Trace& trace, int layer, int groupHeads,
                              const std::function<void(LayerCapture&&)>& each) const = 0;
};

// Fills a Trace; only models/ builds traces.
class TraceBuilder {
 public:
  static Trace make(int layers, int heads, int hidden, int vocab, bool causal,
                    std::vector<int> ids) {
    Trace t;
    t.numLayers_ = layers;
    t.numHeads_ = heads;
    t.hidden_ = hidden;
    t.vocab_ = vocab;
    t.causal_ = causal;
    t.ids_ = std::move(ids);
    t.residuals_.resize(static_cast<std::size_t>(layers) + 1);
    t.stored_.resize(static_cast<std::size_t>(layers));
    return t;
  }
  static std::vector<float>& residual(Trace& t, int l) {
    return t.residuals_[static_cast<std::size_t>(l)];
  }
  static void store(Trace& t, int l, LayerCapture c) {
    t.stored_[static_cast<std::size_t>(l)] = std::move(c);
  }
  static std::vector<float>& logits(Trace& t) { return t.logits_; }
  static void setRecomputer(Trace& t, std::shared_ptr<const LayerRecomputer> r) {
    t.recompute_ = std::move(r);
  }
};

}  // namespace sinkscope::models
