#pragma once
// Empirical Fisher information per layer (metrics.md s. 5; 000): the trace
// E_t ||grad_theta_l log p(x_t | context)||^2 over the tokens of one input,
// for the parameters of each layer, computed with autograd.
#include <cstddef>
#include <string>
#include <vector>

#include "models/model.h"

namespace sinkscope::models {

struct FisherLayer {
  int layer = -1;              // -1: parameters outside the layers (embeddings, final norm, head)
  double trace = 0.0;          // mean over tokens of the squared gradient norm
  std::size_t parameters = 0;  // how many parameters that is
  double perParameter = 0.0;   // trace / parameters
};

// Decoders: the T - 1 next-token predictions. Encoders (reading): each token
// predicted at its own position by the masked-LM head, without masking. Loads a
// trainable copy of the model's weights (the memory of the model once more).
// Throws ModelRunError when the folder has no output head or the input has
// fewer than 2 tokens; RunCancelled when `progress` returns false.
std::vector<FisherLayer> fisher_per_layer(const Model& model, const std::vector<int>& ids,
                                          const ProgressFn& progress = {});

// The layer a stored tensor belongs to, from its name ("model.layers.3.mlp..."
// -> 3, "transformer.h.0..." -> 0); -1 for tensors outside the layers.
int layer_of_tensor_name(const std::string& name);

}  // namespace sinkscope::models
