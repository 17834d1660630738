#pragma once
// Everything the forward pass needs to know about an architecture, read from
// a Hugging Face config.json. One struct for every family: the families differ
// in a handful of switches (norm kind, positions, residual layout, biases).
#include "models/input_files.h"
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace sinkscope::models {

enum class Family {
  Gpt2,
  Llama,
  Mistral,
  Qwen2,
  Gemma,
  Gemma2,
  Phi,
  GptNeoX,
  Bert,
  Roberta,
  XlmRoberta
};
enum class NormKind { LayerNorm, RmsNorm, RmsNormPlusOne };  // PlusOne: Gemma's x * (1 + w)
enum class Activation { GeluExact, GeluTanh, Silu, Relu };
// Rope and Learned are the families' own; Alibi and None are SinkScope
// variants of the Llama layout (config field "position_encoding"), for the
// trainer's controlled comparisons.
enum class PositionKind { Rope, Learned, Alibi, None };
// Residual layouts: pre-norm sequential (GPT-2, Llama), parallel (GPT-NeoX,
// Phi: x + attn(ln1 x) + mlp(ln2 x)), post-norm (BERT), sandwich (Gemma 2:
// extra norms after attention and around the MLP).
enum class BlockLayout { PreNorm, Parallel, PostNorm, Sandwich };

struct RopeScaling {
  enum class Kind { None, Linear, Dynamic, Llama3 } kind = Kind::None;
  double factor = 1.0;
  double low_freq_factor = 1.0;
  double high_freq_factor = 4.0;
  int original_max_positions = 8192;
};

struct ModelConfig {
  Family family = Family::Llama;
  std::string model_type;
  int vocab_size = 0;
  int hidden_size = 0;
  int num_layers = 0;
  int num_heads = 0;
  int num_kv_heads = 0;
  int head_dim = 0;
  int intermediate_size = 0;
  int max_positions = 0;
  // The longest input the model saw in training: SinkScope's own recipe
  // (sinkscope_recipe.context) when SinkScope trained it, else the config's
  // position limit. Beyond it attention, sinks included, may stop behaving
  // as trained (beyond_trained_context says so).
  int trained_context = 0;
  bool trained_context_from_recipe = false;
  bool causal = true;

  NormKind norm = NormKind::LayerNorm;
  double norm_eps = 1e-5;
  Activation activation = Activation::GeluTanh;
  bool gated_mlp = false;  // gate/up/down (Llama family) instead of fc_in/fc_out
  BlockLayout layout = BlockLayout::PreNorm;
  bool parallel_shares_norm = false;  // Phi: one norm feeds both branches

  PositionKind positions = PositionKind::Rope;
  double rope_theta = 10000.0;
  double rotary_fraction = 1.0;  // share of each head's dimensions that rotate
  RopeScaling rope_scaling;

  bool qkv_bias = false;
  bool attn_out_bias = false;
  bool mlp_bias = false;
  bool lm_head_bias = false;
  bool tie_word_embeddings = false;
  double embedding_scale = 1.0;           // Gemma: sqrt(hidden_size)
  double attention_scale = 0.0;           // multiplier of q.k; 1/sqrt(head_dim) unless set
  bool scale_by_inverse_layer = false;    // GPT-2 option: scores / (layer + 1)
  double attn_softcap = 0.0;              // Gemma 2: tanh soft-capping of scores (0 = off)
  double final_softcap = 0.0;             // Gemma 2: of the logits
  int sliding_window = 0;                 // 0 = none
  bool sliding_even_layers_only = false;  // Gemma 2: layers 0, 2, 4, ... slide

  int type_vocab_size = 0;  // encoders: token types
  int position_offset = 0;  // RoBERTa/XLM-R: positions start at padding_idx + 1
  std::optional<int> pad_token_id;
  std::optional<int> bos_token_id;
  std::optional<int> eos_token_id;

  // Whether layer `layer` uses the sliding window.
  bool layerSlides(int layer) const {
    return sliding_window > 0 && (!sliding_even_layers_only || layer % 2 == 0);
  }
  int rotaryDims() const;  // even number of rotated dimensions per head
};

// Largest sizes a config may declare: beyond any released model, small enough
// that products of two of them fit comfortably in 64 bits.
inline constexpr int kMaxLayers = 1024;
inline constexpr int kMaxHeads = 1024;
inline constexpr int kMaxHiddenSize = 1 << 17;
inline constexpr int kMaxHeadDim = 1 << 14;
inline constexpr int kMaxIntermediateSize = 1 << 20;
inline constexpr int kMaxVocabSize = 1 << 24;
inline constexpr int kMaxPositions = 1 << 24;

class ModelConfigError : public ModelInputError {
 public:
  using ModelInputError::ModelInputError;
};

// The model_type values SinkScope runs, for messages and the model chooser.
const std::vector<std::string>& model_types_supported();

// Reads and validates config.json. Throws ModelConfigError naming the file and field.
ModelConfig model_config_read(const std::filesystem::path& configJson);
// Same, from JSON text (tests, the folder writer).
ModelConfig model_config_parse(const std::string& jsonText, const std::string& sourceName);

const char* family_name(Family family);

// Empty when `tokens` fit the context `config` was trained on; else one
// sentence saying by how much they exceed it and what that means.
std::string beyond_trained_context(const ModelConfig& config, int tokens);

}  // namespace sinkscope::models
