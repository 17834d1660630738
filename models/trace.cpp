// Trace and LayerCapture: plain buffers, no torch.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/internal/recompute.h"
#include "models/model.h"

namespace sinkscope::models {

analysis::AttentionView LayerCapture::attentionOf(int head) const& {
  if (head < 0 || head >= heads)
    throw std::out_of_range("head " + std::to_string(head) + " out of range");
  const std::size_t n = static_cast<std::size_t>(tokens) * static_cast<std::size_t>(tokens);
  return {std::span<const float>(attention).subspan(static_cast<std::size_t>(head) * n, n), tokens,
          causal};
}

std::span<const float> LayerCapture::valuesOf(int head) const& {
  if (head < 0 || head >= heads)
    throw std::out_of_range("head " + std::to_string(head) + " out of range");
  const std::size_t n = static_cast<std::size_t>(tokens) * static_cast<std::size_t>(head_dim);
  return std::span<const float>(values).subspan(static_cast<std::size_t>(head) * n, n);
}

analysis::AttentionMatrix LayerCapture::headAverage() const {
  analysis::AttentionMatrix m;
  m.size = tokens;
  m.causal = causal;
  const std::size_t n = static_cast<std::size_t>(tokens) * static_cast<std::size_t>(tokens);
  m.weights.assign(n, 0.0f);
  addMapsTo(m.weights);
  for (float& w : m.weights) w /= static_cast<float>(heads);
  return m;
}

void LayerCapture::addMapsTo(std::vector<float>& sum) const {
  const std::size_t n = static_cast<std::size_t>(tokens) * static_cast<std::size_t>(tokens);
  if (sum.size() != n) throw std::invalid_argument("addMapsTo: the sum is not tokens x tokens");
  for (int h = 0; h < heads; ++h)
    for (std::size_t i = 0; i < n; ++i) sum[i] += attention[static_cast<std::size_t>(h) * n + i];
}

std::span<const float> Trace::residual(int l) const {
  if (l < 0 || l > numLayers_)
    throw std::out_of_range("residual " + std::to_string(l) + " out of range");
  return residuals_[static_cast<std::size_t>(l)];
}

bool Trace::layerStored(int l) const {
  return l >= 0 && l < numLayers_ && stored_[static_cast<std::size_t>(l)].has_value();
}

const LayerCapture* Trace::storedLayer(int l) const {
  return layerStored(l) ? &*stored_[static_cast<std::size_t>(l)] : nullptr;
}

void Trace::forEachHeadGroup(int l, int groupHeads,
                             const std::function<void(LayerCapture&&)>& each) const {
  if (l < 0 || l >= numLayers_)
    throw std::out_of_range("layer " + std::to_string(l) + " out of range");
  const auto& s = stored_[static_cast<std::size_t>(l)];
  if (!s) {
    if (!recompute_)
      throw std::logic_error("this trace was run without capture (RunOptions::capture = false)");
    recompute_->recomputeHeads(*this, l, groupHeads, each);
    return;
  }
  const int group = std::clamp(groupHeads, 1, std::max(1, s->heads));
  const auto T = static_cast<std::size_t>(s->tokens), d = static_cast<std::size_t>(s->head_dim);
  // A capture read from a file may hold no queries or keys (or values): none for the group either.
  const auto slice = [](const std::vector<float>& all, std::size_t per, int first,
                        int count) -> std::vector<float> {
    if (all.size() < per * static_cast<std::size_t>(first + count)) return {};
    const auto from =
        all.begin() + static_cast<std::ptrdiff_t>(per * static_cast<std::size_t>(first));
    return std::vector<float>(
        from, from + static_cast<std::ptrdiff_t>(per * static_cast<std::size_t>(count)));
  };
  for (int h0 = 0; h0 < s->heads; h0 += group) {
    const int n = std::min(group, s->heads - h0);
    LayerCapture cap;
    cap.layer = l;
    cap.first_head = s->first_head + h0;
    cap.heads = n;
    cap.tokens = s->tokens;
    cap.head_dim = s->head_dim;
    cap.causal = s->causal;
    cap.attention = slice(s->attention, T * T, h0, n);
    cap.queries = slice(s->queries, T * d, h0, n);
    cap.keys = slice(s->keys, T * d, h0, n);
    cap.values = slice(s->values, T * d, h0, n);
    each(std::move(cap));
  }
}

LayerCapture Trace::layer(int l) const {
  if (l < 0 || l >= numLayers_)
    throw std::out_of_range("layer " + std::to_string(l) + " out of range");
  if (const auto& s = stored_[static_cast<std::size_t>(l)]) return *s;
  if (!recompute_)
    throw std::logic_error("this trace was run without capture (RunOptions::capture = false)");
  return recompute_->recompute(*this, l);
}

}  // namespace sinkscope::models
