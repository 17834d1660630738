#include "models/fisher.h"

#include <ATen/ATen.h>

#include <map>
#include <regex>

#include "models/internal/model_impl.h"

namespace sinkscope::models {

std::vector<FisherLayer> torch_backend::fisher_per_layer(const Model& model,
                                                         const std::vector<int>& ids,
                                                         const ProgressFn& progress) {
  if (ids.size() < 2) throw ModelRunError("Fisher information: the input needs at least 2 tokens");
  LoadOptions lo;
  lo.device = model.device();
  lo.trainable = true;
  const std::shared_ptr<Model> copy = torch_backend::load_model(model.folder(), lo);
  const auto impl = ModelAccess::impl(*copy);
  const ModelConfig& c = impl->config;
  if (!impl->weights.lm_head_w.defined())
    throw ModelRunError("Fisher information: " + model.folder().string() +
                        " has no output head (no token probabilities)");
  for (int id : ids)
    if (id < 0 || id >= c.vocab_size)
      throw ModelRunError("Fisher information: token id " + std::to_string(id) +
                          " is outside the vocabulary");

  // Leaves grouped by layer.
  std::map<int, std::vector<at::Tensor>> byLayer;
  std::map<int, std::size_t> counts;
  for (const auto& [name, t] : impl->weights.named) {
    if (!t.requires_grad()) continue;
    const int l = layer_of_tensor_name(name);
    byLayer[l].push_back(t);
    counts[l] += static_cast<std::size_t>(t.numel());
  }

  const auto T = static_cast<std::int64_t>(ids.size());
  at::Tensor input = at::empty({1, T}, at::kLong);
  for (std::int64_t i = 0; i < T; ++i) input[0][i] = ids[static_cast<std::size_t>(i)];
  const at::Tensor logProbs = at::log_softmax(internal::forward_logits(*impl, input)[0], -1);

  // One backward pass per predicted token: the squared gradient norm per layer.
  std::vector<std::pair<std::int64_t, std::int64_t>> predictions;  // (row, target)
  for (std::int64_t t = 0; t < T; ++t) {
    if (c.causal && t + 1 < T) predictions.emplace_back(t, ids[static_cast<std::size_t>(t + 1)]);
    if (!c.causal) predictions.emplace_back(t, ids[static_cast<std::size_t>(t)]);
  }
  std::map<int, double> sums;
  for (std::size_t k = 0; k < predictions.size(); ++k) {
    for (auto& [l, leaves] : byLayer)
      for (auto& p : leaves)
        if (p.grad().defined()) p.mutable_grad().zero_();
    const at::Tensor lp = logProbs[predictions[k].first][predictions[k].second];
    lp.backward({}, /*retain_graph=*/k + 1 < predictions.size());
    for (auto& [l, leaves] : byLayer)
      for (auto& p : leaves)
        if (p.grad().defined()) sums[l] += p.grad().to(at::kDouble).pow(2).sum().item<double>();
    if (progress && !progress(static_cast<double>(k + 1) / predictions.size()))
      throw RunCancelled();
  }
  std::vector<FisherLayer> out;
  for (const auto& [l, n] : counts) {
    FisherLayer f;
    f.layer = l;
    f.parameters = n;
    f.trace = sums[l] / static_cast<double>(predictions.size());
    f.perParameter = n > 0 ? f.trace / static_cast<double>(n) : 0.0;
    out.push_back(f);
  }
  return out;
}

}  // namespace sinkscope::models
