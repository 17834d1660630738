#include "models/model_config.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "models/internal/json_input.h"

namespace sinkscope::models {

using nlohmann::json;

const std::vector<std::string>& model_types_supported() {
  static const std::vector<std::string> types{"gpt2",  "llama",   "mistral",    "qwen2",
                                              "gemma", "gemma2",  "phi",        "gpt_neox",
                                              "bert",  "roberta", "xlm-roberta"};
  return types;
}

const char* family_name(Family f) {
  switch (f) {
    case Family::Gpt2:
      return "gpt2";
    case Family::Llama:
      return "llama";
    case Family::Mistral:
      return "mistral";
    case Family::Qwen2:
      return "qwen2";
    case Family::Gemma:
      return "gemma";
    case Family::Gemma2:
      return "gemma2";
    case Family::Phi:
      return "phi";
    case Family::GptNeoX:
      return "gpt_neox";
    case Family::Bert:
      return "bert";
    case Family::Roberta:
      return "roberta";
    case Family::XlmRoberta:
      return "xlm-roberta";
  }
  return "?";
}

int ModelConfig::rotaryDims() const {
  if (positions != PositionKind::Rope) return 0;
  const int d = static_cast<int>(std::floor(head_dim * rotary_fraction));
  return d - d % 2;
}

namespace {

std::string short_number(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

class Reader {
 public:
  Reader(const json& j, std::string source) : j_(j), source_(std::move(source)) {}

  Reader(const json& j, std::string source, std::string prefix)
      : j_(j), source_(std::move(source)), prefix_(std::move(prefix)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    if (!prefix_.empty())
      throw ModelConfigError(source_ + ": field \"" + prefix_ + "." + field + "\" " + problem);
    throw ModelConfigError(source_ + ": field \"" + field + "\" " + problem);
  }
  const json* find(std::initializer_list<const char*> names) const {
    for (const char* n : names) {
      auto it = j_.find(n);
      if (it != j_.end() && !it->is_null()) return &*it;
    }
    return nullptr;
  }
  // An integer in minimum..maximum; its absence gives `fallback` (or is an error).
  int integer(std::initializer_list<const char*> names, std::optional<int> fallback,
              int minimum = 1, int maximum = std::numeric_limits<int>::max()) const {
    const json* v = find(names);
    if (!v) {
      if (fallback) return *fallback;
      fail(*names.begin(), "is missing");
    }
    return checkedInteger(*v, *names.begin(), minimum, maximum);
  }
  // A token id (or the first of a list of them) in 0..kMaxVocabSize-1.
  std::optional<int> optionalId(const char* name) const {
    const json* v = find({name});
    if (!v) return std::nullopt;
    if (v->is_array()) {
      if (v->empty()) return std::nullopt;
      return checkedInteger((*v)[0], name, 0, kMaxVocabSize - 1);
    }
    return checkedInteger(*v, name, 0, kMaxVocabSize - 1);
  }
  // A finite number (JSON's 1e999 parses as infinity) within [lo, hi].
  double number(std::initializer_list<const char*> names, double fallback,
                double lo = -std::numeric_limits<double>::max(),
                double hi = std::numeric_limits<double>::max()) const {
    const json* v = find(names);
    if (!v) return fallback;
    return checkedNumber(*v, *names.begin(), lo, hi);
  }
  double checkedNumber(const json& v, const std::string& field, double lo, double hi) const {
    if (!v.is_number()) fail(field, "must be a number");
    const double x = v.get<double>();
    if (!std::isfinite(x)) fail(field, "must be a finite number");
    if (x < lo || x > hi)
      fail(field, "must be in " + short_number(lo) + ".." + short_number(hi));
    return x;
  }
  int checkedInteger(const json& v, const std::string& field, int minimum, int maximum) const {
    const std::string range = std::to_string(minimum) + ".." + std::to_string(maximum);
    if (!v.is_number_integer()) fail(field, "must be an integer in " + range);
    if (v.is_number_unsigned()
            ? v.get<unsigned long long>() > static_cast<unsigned long long>(maximum)
            : (v.get<long long>() < minimum || v.get<long long>() > maximum))
      fail(field, "must be an integer in " + range);
    const long long x = v.get<long long>();
    if (x < minimum) fail(field, "must be an integer in " + range);
    return static_cast<int>(x);
  }
  bool boolean(std::initializer_list<const char*> names, bool fallback) const {
    const json* v = find(names);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(*names.begin(), "must be true or false");
    return v->get<bool>();
  }
  std::string text(std::initializer_list<const char*> names, const std::string& fallback) const {
    const json* v = find(names);
    if (!v) return fallback;
    if (!v->is_string()) fail(*names.begin(), "must be a string");
    return v->get<std::string>();
  }
  const json& raw() const { return j_; }
  const std::string& source() const { return source_; }

 private:
  const json& j_;
  std::string source_;
  std::string prefix_;  // "rope_scaling" for a nested object's fields
};

Activation parse_activation(const Reader& r, const char* field, const std::string& name) {
  if (name == "gelu") return Activation::GeluExact;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast" ||
      name == "gelu_python_tanh")
    return Activation::GeluTanh;
  if (name == "silu" || name == "swish") return Activation::Silu;
  if (name == "relu") return Activation::Relu;
  r.fail(field, "names an activation SinkScope does not implement: \"" + name + "\"");
}

// rope_theta and rope_scaling, in both the classic and the newer
// rope_parameters spelling.
void read_rope(const Reader& r, ModelConfig& c, double defaultTheta) {
  const json* params = r.find({"rope_parameters"});
  const json* scaling = r.find({"rope_scaling"});
  c.rope_theta = r.number({"rope_theta", "rotary_emb_base"}, defaultTheta, 1e-6, 1e30);
  if (params && !params->is_object()) r.fail("rope_parameters", "must be an object");
  if (params) {
    const Reader p(*params, r.source(), "rope_parameters");
    c.rope_theta = p.number({"rope_theta"}, c.rope_theta, 1e-6, 1e30);
    if (!scaling) scaling = params;
  }
  if (!scaling) return;
  if (!scaling->is_object()) r.fail("rope_scaling", "must be an object");
  const Reader s(*scaling, r.source(), scaling == params ? "rope_parameters" : "rope_scaling");
  const std::string type = s.text({"rope_type", "type"}, "default");
  if (type == "default") return;
  c.rope_scaling.factor = s.number({"factor"}, 1.0, 1e-6, 1e6);
  if (type == "linear") {
    c.rope_scaling.kind = RopeScaling::Kind::Linear;
  } else if (type == "dynamic") {
    c.rope_scaling.kind = RopeScaling::Kind::Dynamic;
  } else if (type == "llama3") {
    c.rope_scaling.kind = RopeScaling::Kind::Llama3;
    c.rope_scaling.low_freq_factor = s.number({"low_freq_factor"}, 1.0, 1e-6, 1e6);
    c.rope_scaling.high_freq_factor = s.number({"high_freq_factor"}, 4.0, 1e-6, 1e6);
    if (c.rope_scaling.high_freq_factor <= c.rope_scaling.low_freq_factor)
      s.fail("high_freq_factor", "must be larger than low_freq_factor");
    c.rope_scaling.original_max_positions =
        s.integer({"original_max_position_embeddings"}, 8192, 1, kMaxPositions);
  } else {
    r.fail("rope_scaling", "has type \"" + type +
                               "\", which SinkScope does not implement (linear, dynamic, llama3)");
  }
}

// Norm epsilons: not negative (a negative one makes the norm take the root of a
// negative number) and below 1 (larger ones are not a norm any more).
constexpr double kMinEps = 0.0, kMaxEps = 1.0;

std::string supported_list() {
  std::string s;
  for (const auto& t : model_types_supported()) s += (s.empty() ? "" : ", ") + t;
  return s;
}

// The family of a model_type (the names Hugging Face's configs give).
Family family_of(const std::string& t, const std::string& source) {
  static const std::pair<const char*, Family> kFamilies[] = {
      {"gpt2", Family::Gpt2},     {"llama", Family::Llama},     {"mistral", Family::Mistral},
      {"qwen2", Family::Qwen2},   {"gemma", Family::Gemma},     {"gemma2", Family::Gemma2},
      {"phi", Family::Phi},       {"gpt_neox", Family::GptNeoX}, {"bert", Family::Bert},
      {"roberta", Family::Roberta}, {"xlm-roberta", Family::XlmRoberta}};
  for (const auto& [name, family] : kFamilies)
    if (t == name) return family;
  throw ModelConfigError(source + ": model_type \"" + t + "\" is not supported (supported: " +
                         supported_list() + ")");
}

// GPT-2: LayerNorm, learned positions, biases everywhere, tied embeddings.
void read_gpt2(const Reader& r, ModelConfig& c) {
  c.intermediate_size =
      r.integer({"n_inner"}, std::min(4 * c.hidden_size, kMaxIntermediateSize), 1, kMaxIntermediateSize);
  c.norm = NormKind::LayerNorm;
  c.norm_eps = r.number({"layer_norm_epsilon"}, 1e-5, kMinEps, kMaxEps);
  c.activation =
      parse_activation(r, "activation_function", r.text({"activation_function"}, "gelu_new"));
  c.positions = PositionKind::Learned;
  c.qkv_bias = c.attn_out_bias = c.mlp_bias = true;
  c.tie_word_embeddings = r.boolean({"tie_word_embeddings"}, true);
  if (!r.boolean({"scale_attn_weights"}, true)) c.attention_scale = 1.0;
  c.scale_by_inverse_layer = r.boolean({"scale_attn_by_inverse_layer_idx"}, false);
}

// Llama, Mistral, Qwen2: RMSNorm, a gated MLP, RoPE (or the positions a recipe names).
void read_llama_like(const Reader& r, ModelConfig& c) {
  c.intermediate_size = r.integer({"intermediate_size"}, std::nullopt, 1, kMaxIntermediateSize);
  c.norm = NormKind::RmsNorm;
  c.norm_eps = r.number({"rms_norm_eps"}, 1e-6, kMinEps, kMaxEps);
  c.activation = parse_activation(r, "hidden_act", r.text({"hidden_act"}, "silu"));
  c.gated_mlp = true;
  read_rope(r, c, 10000.0);
  if (const std::string pe = r.text({"position_encoding"}, "rope"); pe == "learned") {
    c.positions = PositionKind::Learned;
  } else if (pe == "alibi") {
    c.positions = PositionKind::Alibi;
  } else if (pe == "none") {
    c.positions = PositionKind::None;
  } else if (pe != "rope") {
    r.fail("position_encoding", "must be rope, learned, alibi or none");
  }
  if (c.family == Family::Qwen2) {
    c.qkv_bias = true;
    c.tie_word_embeddings = r.boolean({"tie_word_embeddings"}, false);
    if (r.boolean({"use_sliding_window"}, false))
      c.sliding_window = r.integer({"sliding_window"}, 0, 0, kMaxPositions);
  } else {
    c.qkv_bias = c.attn_out_bias = r.boolean({"attention_bias"}, false);
    c.mlp_bias = r.boolean({"mlp_bias"}, false);
    c.tie_word_embeddings = r.boolean({"tie_word_embeddings"}, false);
    if (c.family == Family::Mistral) c.sliding_window = r.integer({"sliding_window"}, 0, 0, kMaxPositions);
  }
}

// Gemma and Gemma 2: RMSNorm around 1, scaled embeddings; Gemma 2 sandwiches its blocks and caps logits.
void read_gemma(const Reader& r, ModelConfig& c) {
  c.intermediate_size = r.integer({"intermediate_size"}, std::nullopt, 1, kMaxIntermediateSize);
  c.norm = NormKind::RmsNormPlusOne;
  c.norm_eps = r.number({"rms_norm_eps"}, 1e-6, kMinEps, kMaxEps);
  // Released Gemma configs name the MLP activation hidden_activation; the
  // older hidden_act is what the reference code ignores for it.
  c.activation = parse_activation(r, "hidden_activation",
                                  r.text({"hidden_activation"}, "gelu_pytorch_tanh"));
  c.gated_mlp = true;
  read_rope(r, c, 10000.0);
  c.qkv_bias = c.attn_out_bias = r.boolean({"attention_bias"}, false);
  c.tie_word_embeddings = r.boolean({"tie_word_embeddings"}, true);
  c.embedding_scale = std::sqrt(static_cast<double>(c.hidden_size));
  if (c.family == Family::Gemma2) {
    c.layout = BlockLayout::Sandwich;
    c.attention_scale = 1.0 / std::sqrt(r.number({"query_pre_attn_scalar"}, c.head_dim, 1e-6, 1e12));
    c.attn_softcap = r.number({"attn_logit_softcapping"}, 0.0, 0.0, 1e12);
    c.final_softcap = r.number({"final_logit_softcapping"}, 0.0, 0.0, 1e12);
    c.sliding_window = r.integer({"sliding_window"}, 0, 0, kMaxPositions);
    c.sliding_even_layers_only = true;
  }
}

// Phi: a parallel block under one LayerNorm, partial rotary.
void read_phi(const Reader& r, ModelConfig& c) {
  c.intermediate_size = r.integer({"intermediate_size"}, std::nullopt, 1, kMaxIntermediateSize);
  c.norm = NormKind::LayerNorm;
  c.norm_eps = r.number({"layer_norm_eps"}, 1e-5, kMinEps, kMaxEps);
  c.activation = parse_activation(r, "hidden_act", r.text({"hidden_act"}, "gelu_new"));
  c.layout = BlockLayout::Parallel;
  c.parallel_shares_norm = true;
  read_rope(r, c, 10000.0);
  c.rotary_fraction = r.number({"partial_rotary_factor"}, 0.5);
  c.qkv_bias = c.attn_out_bias = c.mlp_bias = c.lm_head_bias = true;
  c.tie_word_embeddings = r.boolean({"tie_word_embeddings"}, false);
  if (r.boolean({"qk_layernorm"}, false))
    r.fail("qk_layernorm", "is true, which SinkScope does not implement");
}

// GPT-NeoX (Pythia): parallel residual, partial rotary.
void read_gpt_neox(const Reader& r, ModelConfig& c) {
  c.intermediate_size = r.integer({"intermediate_size"}, std::min(4 * c.hidden_size, kMaxIntermediateSize), 1,
                                  kMaxIntermediateSize);
  c.norm = NormKind::LayerNorm;
  c.norm_eps = r.number({"layer_norm_eps"}, 1e-5, kMinEps, kMaxEps);
  c.activation = parse_activation(r, "hidden_act", r.text({"hidden_act"}, "gelu"));
  c.layout =
      r.boolean({"use_parallel_residual"}, true) ? BlockLayout::Parallel : BlockLayout::PreNorm;
  read_rope(r, c, 10000.0);
  c.rotary_fraction = r.number({"rotary_pct"}, 0.25);
  c.qkv_bias = c.attn_out_bias = r.boolean({"attention_bias"}, true);
  c.mlp_bias = true;
  c.tie_word_embeddings = r.boolean({"tie_word_embeddings"}, false);
}

// BERT, RoBERTa, XLM-R: post-norm encoders; RoBERTa positions start after the padding id.
void read_bert_like(const Reader& r, ModelConfig& c) {
  c.causal = false;
  c.intermediate_size = r.integer({"intermediate_size"}, std::nullopt, 1, kMaxIntermediateSize);
  c.norm = NormKind::LayerNorm;
  c.norm_eps = r.number({"layer_norm_eps"}, 1e-12, kMinEps, kMaxEps);
  c.activation = parse_activation(r, "hidden_act", r.text({"hidden_act"}, "gelu"));
  c.layout = BlockLayout::PostNorm;
  c.positions = PositionKind::Learned;
  c.qkv_bias = c.attn_out_bias = c.mlp_bias = true;
  c.tie_word_embeddings = r.boolean({"tie_word_embeddings"}, true);
  c.type_vocab_size = r.integer({"type_vocab_size"}, 2, 0, 1 << 16);
  const std::string pe = r.text({"position_embedding_type"}, "absolute");
  if (pe != "absolute")
    r.fail("position_embedding_type", "is \"" + pe + "\"; SinkScope implements \"absolute\"");
  if (c.family != Family::Bert) {
    c.position_offset = c.pad_token_id.value_or(1) + 1;
    if (c.position_offset >= c.max_positions)
      r.fail("pad_token_id", "leaves no position: RoBERTa positions start at pad_token_id + 1 (" +
                                 std::to_string(c.position_offset) +
                                 "), beyond max_position_embeddings (" +
                                 std::to_string(c.max_positions) + ")");
  }
}

ModelConfig parse(const json& j, const std::string& source) {
  if (!j.is_object()) throw ModelConfigError(source + ": not a JSON object");
  const Reader r(j, source);
  ModelConfig c;
  c.model_type = r.text({"model_type"}, "");
  if (c.model_type.empty()) r.fail("model_type", "is missing");
  c.family = family_of(c.model_type, source);

  c.vocab_size = r.integer({"vocab_size"}, std::nullopt, 1, kMaxVocabSize);
  c.hidden_size = r.integer({"hidden_size", "n_embd", "d_model"}, std::nullopt, 1, kMaxHiddenSize);
  c.num_layers = r.integer({"num_hidden_layers", "n_layer"}, std::nullopt, 1, kMaxLayers);
  c.num_heads = r.integer({"num_attention_heads", "n_head"}, std::nullopt, 1, kMaxHeads);
  c.num_kv_heads = r.integer({"num_key_value_heads"}, c.num_heads, 1, kMaxHeads);
  if (c.num_heads % c.num_kv_heads != 0)
    r.fail("num_key_value_heads", "must divide num_attention_heads");
  // Only the families whose Hugging Face code reads "head_dim" honour it;
  // GPT-2, GPT-NeoX and the BERT family always split hidden_size by the
  // heads, whatever else the file says.
  const bool readsHeadDim = c.family != Family::Gpt2 && c.family != Family::GptNeoX &&
                            c.family != Family::Bert && c.family != Family::Roberta &&
                            c.family != Family::XlmRoberta;
  if (!(readsHeadDim && r.find({"head_dim"})) && c.hidden_size % c.num_heads != 0)
    r.fail("hidden_size", "must be a multiple of num_attention_heads");
  c.head_dim = readsHeadDim ? r.integer({"head_dim"}, c.hidden_size / c.num_heads, 1, kMaxHeadDim)
                            : c.hidden_size / c.num_heads;
  c.max_positions =
      r.integer({"max_position_embeddings", "n_positions", "n_ctx"}, 2048, 1, kMaxPositions);
  c.trained_context = r.find({"max_position_embeddings", "n_positions", "n_ctx"}) ? c.max_positions : 0;
  if (const json* recipe = r.find({"sinkscope_recipe"})) {
    if (!recipe->is_object()) r.fail("sinkscope_recipe", "must be an object");
    const Reader rr(*recipe, r.source(), "sinkscope_recipe");
    if (rr.find({"context"})) {
      c.trained_context = rr.integer({"context"}, std::nullopt, 1, kMaxPositions);
      c.trained_context_from_recipe = true;
    }
  }
  c.pad_token_id = r.optionalId("pad_token_id");
  c.bos_token_id = r.optionalId("bos_token_id");
  c.eos_token_id = r.optionalId("eos_token_id");

  switch (c.family) {
    case Family::Gpt2:
      read_gpt2(r, c);
      break;
    case Family::Llama:
    case Family::Mistral:
    case Family::Qwen2:
      read_llama_like(r, c);
      break;
    case Family::Gemma:
    case Family::Gemma2:
      read_gemma(r, c);
      break;
    case Family::Phi:
      read_phi(r, c);
      break;
    case Family::GptNeoX:
      read_gpt_neox(r, c);
      break;
    case Family::Bert:
    case Family::Roberta:
    case Family::XlmRoberta:
      read_bert_like(r, c);
      break;
  }
  if (c.head_dim * static_cast<long long>(c.num_heads) > 16LL * kMaxHiddenSize)
    r.fail("head_dim", "times num_attention_heads is larger than SinkScope accepts");
  if (c.attention_scale == 0.0)
    c.attention_scale = 1.0 / std::sqrt(static_cast<double>(c.head_dim));
  if (c.rotary_fraction <= 0.0 || c.rotary_fraction > 1.0)
    r.fail(c.family == Family::GptNeoX ? "rotary_pct" : "partial_rotary_factor",
           "must be in (0, 1]");
  return c;
}

}  // namespace

ModelConfig model_config_parse(const std::string& text, const std::string& sourceName) {
  const json j = internal::rethrow_as<ModelConfigError>(
      [&] { return internal::json_parse_bounded(text, sourceName); });
  try {
    return parse(j, sourceName);
  } catch (const json::exception& e) {  // a field of an unexpected type that no check named
    throw ModelConfigError(sourceName + ": unexpected content (" + internal::json_error_text(e) +
                           ")");
  }
}

ModelConfig model_config_read(const std::filesystem::path& file) {
  const std::string text = internal::rethrow_as<ModelConfigError>(
      [&] { return input_file_read(file, kConfigMaxBytes); });
  return model_config_parse(text, file.string());
}

std::string beyond_trained_context(const ModelConfig& config, int tokens) {
  if (config.trained_context <= 0 || tokens <= config.trained_context) return {};
  const std::string limit =
      config.trained_context_from_recipe
          ? "the " + std::to_string(config.trained_context) + " tokens it was trained on"
          : "its position limit of " + std::to_string(config.trained_context) + " tokens (max_position_embeddings)";
  return std::to_string(tokens) + " tokens exceed " + limit +
         ": its attention, sinks included, may not behave as in training";
}

}  // namespace sinkscope::models
