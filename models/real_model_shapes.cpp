#include "models/real_model_shapes.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace sinkscope::models {

using nlohmann::json;

const std::vector<RealModelShape>& real_model_shapes() {
  // config.json of each repository as published (main revision).
  static const std::vector<RealModelShape> shapes = {
      {"llama-3.2-1b", "meta-llama/Llama-3.2-1B", 1, R"({
  "architectures": ["LlamaForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 128000,
  "eos_token_id": 128001,
  "head_dim": 64,
  "hidden_act": "silu",
  "hidden_size": 2048,
  "initializer_range": 0.02,
  "intermediate_size": 8192,
  "max_position_embeddings": 131072,
  "mlp_bias": false,
  "model_type": "llama",
  "num_attention_heads": 32,
  "num_hidden_layers": 16,
  "num_key_value_heads": 8,
  "pretraining_tp": 1,
  "rms_norm_eps": 1e-05,
  "rope_scaling": {
    "factor": 32.0,
    "high_freq_factor": 4.0,
    "low_freq_factor": 1.0,
    "original_max_position_embeddings": 8192,
    "rope_type": "llama3"
  },
  "rope_theta": 500000.0,
  "tie_word_embeddings": true,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.45.0.dev0",
  "use_cache": true,
  "vocab_size": 128256
})"},
      {"llama-3.2-3b", "meta-llama/Llama-3.2-3B", 2, R"({
  "architectures": ["LlamaForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 128000,
  "eos_token_id": 128001,
  "head_dim": 128,
  "hidden_act": "silu",
  "hidden_size": 3072,
  "initializer_range": 0.02,
  "intermediate_size": 8192,
  "max_position_embeddings": 131072,
  "mlp_bias": false,
  "model_type": "llama",
  "num_attention_heads": 24,
  "num_hidden_layers": 28,
  "num_key_value_heads": 8,
  "pretraining_tp": 1,
  "rms_norm_eps": 1e-05,
  "rope_scaling": {
    "factor": 32.0,
    "high_freq_factor": 4.0,
    "low_freq_factor": 1.0,
    "original_max_position_embeddings": 8192,
    "rope_type": "llama3"
  },
  "rope_theta": 500000.0,
  "tie_word_embeddings": true,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.45.0.dev0",
  "use_cache": true,
  "vocab_size": 128256
})"},
      {"qwen2.5-7b", "Qwen/Qwen2.5-7B", 4, R"({
  "architectures": ["Qwen2ForCausalLM"],
  "attention_dropout": 0.0,
  "bos_token_id": 151643,
  "eos_token_id": 151643,
  "hidden_act": "silu",
  "hidden_size": 3584,
  "initializer_range": 0.02,
  "intermediate_size": 18944,
  "max_position_embeddings": 131072,
  "max_window_layers": 28,
  "model_type": "qwen2",
  "num_attention_heads": 28,
  "num_hidden_layers": 28,
  "num_key_value_heads": 4,
  "rms_norm_eps": 1e-06,
  "rope_theta": 1000000.0,
  "sliding_window": 131072,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.40.1",
  "use_cache": true,
  "use_mrope": false,
  "use_sliding_window": false,
  "vocab_size": 152064
})"},
      {"gemma-7b", "google/gemma-7b", 4, R"({
  "architectures": ["GemmaForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 2,
  "eos_token_id": 1,
  "head_dim": 256,
  "hidden_act": "gelu",
  "hidden_size": 3072,
  "initializer_range": 0.02,
  "intermediate_size": 24576,
  "max_position_embeddings": 8192,
  "model_type": "gemma",
  "num_attention_heads": 16,
  "num_hidden_layers": 28,
  "num_key_value_heads": 16,
  "pad_token_id": 0,
  "rms_norm_eps": 1e-06,
  "rope_scaling": null,
  "rope_theta": 10000.0,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.38.0.dev0",
  "use_cache": true,
  "vocab_size": 256000
})"},
      {"mistral-7b-v0.1", "mistralai/Mistral-7B-v0.1", 2, R"({
  "architectures": ["MistralForCausalLM"],
  "bos_token_id": 1,
  "eos_token_id": 2,
  "hidden_act": "silu",
  "hidden_size": 4096,
  "initializer_range": 0.02,
  "intermediate_size": 14336,
  "max_position_embeddings": 32768,
  "model_type": "mistral",
  "num_attention_heads": 32,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "rms_norm_eps": 1e-05,
  "rope_theta": 10000.0,
  "sliding_window": 4096,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.34.0.dev0",
  "use_cache": true,
  "vocab_size": 32000
})"},
      {"xlm-roberta-base", "FacebookAI/xlm-roberta-base", 1, R"({
  "architectures": ["XLMRobertaForMaskedLM"],
  "attention_probs_dropout_prob": 0.1,
  "bos_token_id": 0,
  "eos_token_id": 2,
  "hidden_act": "gelu",
  "hidden_dropout_prob": 0.1,
  "hidden_size": 768,
  "initializer_range": 0.02,
  "intermediate_size": 3072,
  "layer_norm_eps": 1e-05,
  "max_position_embeddings": 514,
  "model_type": "xlm-roberta",
  "num_attention_heads": 12,
  "num_hidden_layers": 12,
  "output_past": true,
  "pad_token_id": 1,
  "position_embedding_type": "absolute",
  "transformers_version": "4.17.0.dev0",
  "type_vocab_size": 1,
  "use_cache": true,
  "vocab_size": 250002
})"},
      {"gpt2", "openai-community/gpt2", 1, R"({
  "activation_function": "gelu_new",
  "architectures": ["GPT2LMHeadModel"],
  "attn_pdrop": 0.1,
  "bos_token_id": 50256,
  "embd_pdrop": 0.1,
  "eos_token_id": 50256,
  "initializer_range": 0.02,
  "layer_norm_epsilon": 1e-05,
  "model_type": "gpt2",
  "n_ctx": 1024,
  "n_embd": 768,
  "n_head": 12,
  "n_layer": 12,
  "n_positions": 1024,
  "resid_pdrop": 0.1,
  "summary_activation": null,
  "summary_first_dropout": 0.1,
  "summary_proj_to_labels": true,
  "summary_type": "cls_index",
  "summary_use_proj": true,
  "task_specific_params": {
    "text-generation": {
      "do_sample": true,
      "max_length": 50
    }
  },
  "vocab_size": 50257
})"},
  };
  return shapes;
}

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

const RealModelShape* real_model_shape(const std::string& name) {
  const std::string wanted = lower(name);
  for (const RealModelShape& s : real_model_shapes()) {
    const std::string repo = lower(s.repository);
    const std::string bare = repo.substr(repo.find('/') + 1);
    if (wanted == s.name || wanted == repo || wanted == bare) return &s;
  }
  return nullptr;
}

RandomModelSpec real_model_spec(const RealModelShape& shape, DType dtype, int layers,
                                std::uint64_t seed) {
  json c = json::parse(shape.config);
  const std::string type = c.at("model_type").get<std::string>();
  RandomModelSpec s = random_model_spec_for(type);
  s.seed = seed;
  s.dtype = dtype;
  s.streamed = true;
  s.shards = shape.shards;
  s.with_tokenizer = true;
  s.weight_std = c.value("initializer_range", 0.02);
  s.legacy_buffers = type == "gpt2";  // the repository keeps GPT-2's attn.bias masks
  s.llama3_rope_scaling = false;  // the config's own rope_scaling is written
  const char* layerKey = type == "gpt2" ? "n_layer" : "num_hidden_layers";
  if (layers > 0) c[layerKey] = layers;
  s.layers = c.at(layerKey).get<int>();
  s.vocab = c.at("vocab_size").get<int>();
  if (type == "gpt2") {
    s.hidden = c.at("n_embd").get<int>();
    s.heads = c.at("n_head").get<int>();
    s.kv_heads = 0;
    s.intermediate = c.contains("n_inner") && !c["n_inner"].is_null() ? c["n_inner"].get<int>()
                                                                       : 4 * s.hidden;
    s.max_positions = c.at("n_positions").get<int>();
    s.prefixed = false;  // the repository's names carry no "transformer." prefix
  } else {
    s.hidden = c.at("hidden_size").get<int>();
    s.heads = c.at("num_attention_heads").get<int>();
    s.kv_heads = c.value("num_key_value_heads", s.heads);
    s.head_dim = c.contains("head_dim") ? c["head_dim"].get<int>() : 0;
    s.intermediate = c.at("intermediate_size").get<int>();
    s.max_positions = c.at("max_position_embeddings").get<int>();
    // The writer adds RoBERTa's two padding positions itself.
    if (type == "xlm-roberta" || type == "roberta") s.max_positions -= 2;
    s.prefixed = true;
  }
  s.tie_embeddings = c.value("tie_word_embeddings", type != "mistral" && type != "llama");
  s.sliding_window = 0;
  s.exact_config = c.dump(2);
  return s;
}

}  // namespace sinkscope::models
