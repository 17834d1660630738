#pragma once
// Internal to the model runtime (models/torch_runtime.h): the loaded model's
// state and the batched forward pass the trainer differentiates through.
#include <ATen/ATen.h>

#include <filesystem>

#include "models/fisher.h"
#include "models/internal/weights.h"
#include "models/model.h"
#include "models/model_backend.h"
#include "models/runtime_info.h"
#include "models/trainer.h"

namespace sinkscope::models {

struct ModelImpl {
  ModelConfig config;
  std::filesystem::path folder;
  std::string deviceName;
  at::Device device{at::kCPU};
  // What activations and weights are in during a pass (LoadOptions::precision).
  at::ScalarType compute = at::kFloat;
  internal::ModelWeights weights;
};

// The runtime's Model: Model's calls on ATen (models/model.cpp).
class TorchModel final : public ModelBackend {
 public:
  explicit TorchModel(std::shared_ptr<ModelImpl> impl) : impl_(std::move(impl)) {}

  const ModelConfig& config() const override;
  const std::filesystem::path& folder() const override;
  const std::string& device() const override;
  std::string computeDtype() const override;
  std::size_t parameterCount() const override;
  std::size_t weightBytes() const override;
  std::vector<WeightMatrix> weightMatrices(bool values) const override;
  WeightMatrix weightMatrix(int layer, const std::string& name) const override;
  Trace run(const std::vector<int>& ids, const RunOptions& options,
            const ProgressFn& progress) const override;
  std::vector<Trace> runBatch(const std::vector<std::vector<int>>& inputs,
                              const RunOptions& options) const override;
  Trace runFrom(const Trace& base, int layer, const RunOptions& options,
                const ProgressFn& progress) const override;
  std::vector<std::vector<float>> headAblationLogits(const Trace& base, int layer) const override;

  const std::shared_ptr<ModelImpl>& impl() const { return impl_; }

 private:
  std::shared_ptr<ModelImpl> impl_;
};

// Reaches a Model's state from inside the runtime (the trainer, Fisher):
// every Model the runtime hands out is a TorchModel.
struct ModelAccess {
  static std::shared_ptr<ModelImpl> impl(const Model& m) {
    return static_cast<const TorchModel&>(m.backend()).impl();
  }
  static std::shared_ptr<Model> wrap(std::shared_ptr<ModelImpl> impl) {
    return std::make_shared<Model>(std::make_shared<TorchModel>(std::move(impl)));
  }
};

// What the runtime's table (torch_runtime.h) points at; inside the runtime,
// these are called directly.
namespace torch_backend {
std::shared_ptr<Model> load_model(const std::filesystem::path& folder, const LoadOptions& options);
TrainResult train_model(const TrainOptions& options, const ProgressFn& progress,
                        const std::function<void(const TrainLogRow&)>& onLog);
std::vector<FisherLayer> fisher_per_layer(const Model& model, const std::vector<int>& ids,
                                          const ProgressFn& progress);
RuntimeInfo runtime_info();
}  // namespace torch_backend

namespace internal {

// Token (and token-type) embeddings of a batch: ids [B, T] -> [B, T, D].
at::Tensor embed_batch(const ModelImpl& m, const at::Tensor& ids, const at::Tensor& types = {},
                       int shift = 0);

// The whole forward pass of a batch, ids [B, T] -> logits [B, T, vocab],
// recording autograd history when the weights require gradients.
at::Tensor forward_logits(const ModelImpl& m, const at::Tensor& ids);

}  // namespace internal
}  // namespace sinkscope::models
