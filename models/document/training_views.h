#pragma once
// The views of sink emergence over training (document::checkpoint_alpha0):
// each layer's mean over heads against the training step, and every head at
// every step as a grid.
#include <string>
#include <vector>

#include "models/document/checkpoint_emergence.h"
#include "models/views/heat_map.h"
#include "models/views/line_plot.h"

namespace sinkscope::document {

// What the emergence plot shows per layer (and over every head of the model,
// dashed): the heads' mean alpha_0, their mean boost (alpha_0 over a uniform
// head's), the share of heads with alpha_0 > eps (the sink rate, metrics.md
// s. 1; analysis/first_token_sink.h), or the share of heads with a strong
// sink (the columns docs/sinks.md tabulates for a training run).
enum class EmergenceMetric { Alpha0, Boost, SinkRate, StrongBoost };

// The emergence plot of `text`: each layer's mean over heads against the step.
views::LinePlot emergence_plot(const std::vector<models::Checkpoint>& checkpoints,
                               const CheckpointAlpha0& alpha0, const std::string& text,
                               EmergenceMetric metric = EmergenceMetric::Alpha0);
// Every head (rows, layer by layer) at every step (columns).
views::HeatMap emergence_grid(const std::vector<models::Checkpoint>& checkpoints,
                              const CheckpointAlpha0& alpha0);

}  // namespace sinkscope::document
