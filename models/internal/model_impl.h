#pragma once
// Internal to models/: the loaded model's state and the batched forward pass
// the trainer differentiates through.
#include <ATen/ATen.h>

#include <filesystem>

#include "models/internal/weights.h"
#include "models/model.h"

namespace sinkscope::models {

struct Model::Impl {
  ModelConfig config;
  std::filesystem::path folder;
  std::string deviceName;
  at::Device device{at::kCPU};
  // What activations and weights are in during a pass (LoadOptions::precision).
  at::ScalarType compute = at::kFloat;
  internal::ModelWeights weights;
};

// Reaches a Model's state from inside models/ (the trainer, checkpoints).
struct ModelAccess {
  static std::shared_ptr<Model::Impl> impl(const Model& m) { return m.impl_; }
  static std::shared_ptr<Model> wrap(std::shared_ptr<Model::Impl> impl) {
    return std::shared_ptr<Model>(new Model(std::move(impl)));
  }
};

namespace internal {

// Token (and token-type) embeddings of a batch: ids [B, T] -> [B, T, D].
at::Tensor embed_batch(const Model::Impl& m, const at::Tensor& ids, const at::Tensor& types = {},
                       int shift = 0);

// The whole forward pass of a batch, ids [B, T] -> logits [B, T, vocab],
// recording autograd history when the weights require gradients.
at::Tensor forward_logits(const Model::Impl& m, const at::Tensor& ids);

}  // namespace internal
}  // namespace sinkscope::models
