// Model as its users see it: a handle on the model runtime's implementation
// (models/model_backend.h), and the memory a load will need, which is read
// from the weight files' headers without the runtime.
#include <fstream>

#include "models/model.h"
#include "models/model_backend.h"
#include "models/model_folder.h"
#include "models/safetensors.h"
#include "models/torch_runtime.h"

namespace sinkscope::models {

namespace fs = std::filesystem;

Model::Model(std::shared_ptr<ModelBackend> backend) : backend_(std::move(backend)) {}
Model::~Model() = default;

std::shared_ptr<Model> Model::load(const fs::path& folder, const LoadOptions& options) {
  return torch_runtime().loadModel(folder, options);
}

const ModelConfig& Model::config() const { return backend_->config(); }
const fs::path& Model::folder() const { return backend_->folder(); }
const std::string& Model::device() const { return backend_->device(); }
std::string Model::computeDtype() const { return backend_->computeDtype(); }
std::size_t Model::parameterCount() const { return backend_->parameterCount(); }
std::size_t Model::weightBytes() const { return backend_->weightBytes(); }

std::vector<WeightMatrix> Model::weightMatrices(bool values) const {
  return backend_->weightMatrices(values);
}

WeightMatrix Model::weightMatrix(int layer, const std::string& name) const {
  return backend_->weightMatrix(layer, name);
}

Trace Model::run(const std::vector<int>& ids, const RunOptions& options,
                 const ProgressFn& progress) const {
  return backend_->run(ids, options, progress);
}

std::vector<Trace> Model::runBatch(const std::vector<std::vector<int>>& inputs,
                                   const RunOptions& options) const {
  return backend_->runBatch(inputs, options);
}

Trace Model::runFrom(const Trace& base, int layer, const RunOptions& options,
                     const ProgressFn& progress) const {
  return backend_->runFrom(base, layer, options, progress);
}

std::vector<std::vector<float>> Model::headAblationLogits(const Trace& base, int layer) const {
  return backend_->headAblationLogits(base, layer);
}

namespace {

// What a load keeps resident: stored bytes where the weights stay mapped
// (F32, F16, BF16 of an inference load), float32 where they are copied, plus
// the largest matrix widened to float32 while it is used.
std::size_t folder_resident_bytes(const fs::path& folder, bool trainable) {
  std::size_t bytes = 0, widest = 0;
  for (const auto& f : model_weight_files(folder)) {
    const SafetensorsFile file = SafetensorsFile::open(f);
    for (const auto& [name, t] : file.tensors()) {
      const std::size_t asFloat = static_cast<std::size_t>(t.numel()) * sizeof(float);
      const bool mapped =
          !trainable && (t.dtype == DType::F32 || t.dtype == DType::F16 || t.dtype == DType::BF16);
      bytes += mapped ? t.bytes.size() : asFloat;
      if (mapped && t.dtype != DType::F32) widest = std::max(widest, asFloat);
    }
  }
  // Embeddings are gathered by row and the output head widened in blocks, so
  // no single widened buffer passes a large layer matrix's size.
  return bytes + std::min(widest, std::size_t{512} << 20);
}

}  // namespace

std::size_t system_available_memory() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  std::size_t value = 0;
  while (in >> key >> value >> unit)
    if (key == "MemAvailable:") return value * 1024;
  return 0;
}

std::size_t model_memory_estimate(const fs::path& folder, bool trainable) {
  const std::size_t weights = folder_resident_bytes(folder, trainable);
  return weights + weights / 10 + (std::size_t{64} << 20);  // activations and allocator slack
}

}  // namespace sinkscope::models
