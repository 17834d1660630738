#pragma once
// The shapes of the models the papers study (Llama 3.2, Qwen2.5, Gemma,
// Mistral, XLM-R, GPT-2): each one's published config.json, verbatim, and how
// its repository shards the weights. random-model --like writes folders of
// these shapes with random weights: the fixtures of real-size tests and
// benchmarks.
#include <string>
#include <vector>

#include "models/model_writer.h"

namespace sinkscope::models {

struct RealModelShape {
  std::string name;        // as --like takes it: "qwen2.5-7b"
  std::string repository;  // on the Hugging Face Hub: "Qwen/Qwen2.5-7B"
  int shards = 1;          // 1: model.safetensors; else model-0000k-of-0000n + index
  std::string config;      // config.json as published
};

const std::vector<RealModelShape>& real_model_shapes();

// The shape named `name` (its name or repository, any case); nullptr if none.
const RealModelShape* real_model_shape(const std::string& name);

// A streamed, sharded spec of the shape: its exact config.json (num_hidden_layers
// replaced when `layers` > 0, for small tests of real per-layer shapes), the
// small tokenizer (rows beyond its ids stay unused), weights in `dtype` with the
// config's initializer_range.
RandomModelSpec real_model_spec(const RealModelShape& shape, DType dtype = DType::BF16,
                                int layers = 0, std::uint64_t seed = 1);

}  // namespace sinkscope::models
