#pragma once
// What a model runtime implements behind models::Model: the calls of Model,
// one virtual function each. The runtime that runs passes with libtorch
// (models/torch_runtime.h) is loaded into the process on first use, so
// Model's users, and every program that runs no model, never link libtorch.
#include <filesystem>
#include <string>
#include <vector>

#include "models/model.h"

namespace sinkscope::models {

class ModelBackend {
 public:
  virtual ~ModelBackend() = default;

  virtual const ModelConfig& config() const = 0;
  virtual const std::filesystem::path& folder() const = 0;
  virtual const std::string& device() const = 0;
  virtual std::string computeDtype() const = 0;
  virtual std::size_t parameterCount() const = 0;
  virtual std::size_t weightBytes() const = 0;
  virtual std::vector<WeightMatrix> weightMatrices(bool values) const = 0;
  virtual WeightMatrix weightMatrix(int layer, const std::string& name) const = 0;
  virtual Trace run(const std::vector<int>& ids, const RunOptions& options,
                    const ProgressFn& progress) const = 0;
  virtual std::vector<Trace> runBatch(const std::vector<std::vector<int>>& inputs,
                                      const RunOptions& options) const = 0;
  virtual Trace runFrom(const Trace& base, int layer, const RunOptions& options,
                        const ProgressFn& progress) const = 0;
  virtual std::vector<std::vector<float>> headAblationLogits(const Trace& base,
                                                             int layer) const = 0;
};

}  // namespace sinkscope::models
