#pragma once
// Writes random-weight model folders in the exact Hugging Face layout (config
// fields, weight names and shapes) of every supported architecture, at tiny
// sizes: the fixtures of the model tests and benchmarks.
#include <cstdint>
#include <filesystem>
#include <string>

#include "models/safetensors.h"

namespace sinkscope::models {

struct RandomModelSpec {
  std::string model_type = "llama";
  int layers = 2;
  int hidden = 32;
  int heads = 4;
  int kv_heads = 0;  // 0 = heads (no grouped-query attention)
  int head_dim = 0;  // 0 = hidden / heads
  int intermediate = 64;
  int vocab = 96;
  int max_positions = 64;
  std::uint64_t seed = 1;
  double weight_std = 0.25;  // large for a tiny model, so attention is far from uniform
  DType dtype = DType::F32;
  bool prefixed = false;  // names as save_pretrained writes them for *ForCausalLM / *ForMaskedLM
  bool legacy_buffers = false;  // GPT-2 attn.bias/masked_bias, GPT-NeoX rotary buffers
  bool sharded = false;         // two shards and model.safetensors.index.json
  int shards = 0;               // > 1: this many shards (cut by bytes when streamed)
  // Draw and write the weights a block at a time (real sizes: never the whole
  // model in memory); values are then uniform, per tensor seeded.
  bool streamed = false;
  // config.json's exact text (a real model's), written instead of the one
  // derived from the fields above (which must describe the same shapes).
  std::string exact_config;
  bool tie_embeddings = true;   // where the family allows a choice
  // Family extras (used where they apply).
  int sliding_window = 0;
  double rotary_fraction = 0.5;
  bool llama3_rope_scaling = false;
  // Also write a small byte-level BPE tokenizer.json (and tokenizer_config.json);
  // the vocabulary grows to the tokenizer's when it is smaller.
  bool with_tokenizer = false;
  // Trainer: this tokenizer.json instead of the tiny one (vocab must match);
  // the Llama layout's position encoding (rope, learned, alibi, none); more
  // config.json fields (a JSON object, merged last).
  std::string tokenizer_json;
  std::string position_encoding = "rope";
  std::string config_extra;
};

// The vocabulary size of the tokenizer model_folder_write_random writes.
int random_tokenizer_vocab_size();

// Creates `folder` (and parents) and writes config.json plus the weights.
void model_folder_write_random(const std::filesystem::path& folder, const RandomModelSpec& spec);

// The tiny spec the tests use for each supported model_type.
RandomModelSpec random_model_spec_for(const std::string& modelType);

}  // namespace sinkscope::models
