#pragma once
// Sink emergence over training: the first token's attention alpha_0 (the
// sink metric, metrics.md s. 1) of every head for one sentence at every
// checkpoint of a training run (models::training_checkpoints).
#include <functional>
#include <string>
#include <vector>

#include "models/model_discovery.h"

namespace sinkscope::document {

struct CheckpointAlpha0 {
  int layers = 0, heads = 0;
  std::vector<std::vector<double>> values;  // [checkpoint][layer * heads + head]
  std::vector<double> uniform0;             // [checkpoint]: a uniform head's alpha_0 at that length
};

// Opens and runs every checkpoint on `text`. `progress` gets the share done;
// returning false cancels (models::RunCancelled). Throws as models do, and
// std::invalid_argument for a checkpoint of another shape than the first.
CheckpointAlpha0 checkpoint_alpha0(const std::vector<models::Checkpoint>& checkpoints,
                                   const std::string& text,
                                   const std::function<bool(double)>& progress = {});

}  // namespace sinkscope::document
