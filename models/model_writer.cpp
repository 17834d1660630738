#include "models/model_writer.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>

#include "analysis/random.h"
#include "models/internal/tokenizer_parts.h"
#include "models/model_config.h"

namespace sinkscope::models {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The tensors of a random folder, planned in order (name, shape and how the
// values are drawn) and drawn only when written: in memory for the tiny
// fixtures (one generator in plan order, so a spec always gives the same
// values), or streamed for real sizes.
class TensorSet {
 public:
  TensorSet(const RandomModelSpec& s, std::string prefix) : spec_(s), prefix_(std::move(prefix)) {}

  void normal(const std::string& name, std::vector<std::int64_t> shape, double stdev) {
    add(name, std::move(shape), 0.0, stdev);
  }
  void weight(const std::string& name, std::vector<std::int64_t> shape) {
    normal(name, std::move(shape), spec_.weight_std);
  }
  void bias(const std::string& name, std::int64_t n) { normal(name, {n}, spec_.streamed ? spec_.weight_std : 0.1); }
  // Norm gains near 1 (or near 0 for Gemma's 1 + w convention).
  void gain(const std::string& name, std::int64_t n, double centre = 1.0) {
    add(name, {n}, centre, 0.1);
  }
  // A buffer kept under its bare name (no prefix), e.g. the old GPT-2 mask.
  void raw(TensorData t) {
    Planned p;
    p.header = {t.name, t.dtype, t.shape};
    p.raw = std::move(t);
    plan_.push_back(std::move(p));
  }
  const std::string& prefix() const { return prefix_; }

  std::vector<TensorHeader> headers() const {
    std::vector<TensorHeader> out;
    for (const auto& p : plan_) out.push_back(p.header);
    return out;
  }

  // Every tensor's values, drawn in plan order from one generator.
  std::vector<TensorData> materialize() const {
    std::mt19937_64 rng(spec_.seed);
    std::vector<TensorData> out;
    for (const auto& p : plan_) {
      if (p.raw) {
        out.push_back(*p.raw);
        continue;
      }
      std::normal_distribution<float> dist(static_cast<float>(p.centre),
                                           static_cast<float>(p.stdev));
      std::vector<float> v(static_cast<std::size_t>(p.header.byteSize() / dtype_size(p.header.dtype)));
      for (auto& x : v) x = dist(rng);
      out.push_back(tensor_from_f32(p.header.name, p.header.shape, v, p.header.dtype));
    }
    return out;
  }

  // Bytes [first, first + out.size()) of tensor i, drawn from a generator of
  // its own (uniform with the planned mean and deviation: real-size folders
  // are fixtures of shape and speed, and billions of normal draws would take
  // minutes), so any block can be made without the ones before it.
  void fill(std::size_t i, std::uint64_t first, std::span<std::byte> out) const {
    const Planned& p = plan_[i];
    if (p.raw) {
      std::memcpy(out.data(), p.raw->bytes.data() + first, out.size());
      return;
    }
    const std::size_t size = dtype_size(p.header.dtype);
    const std::uint64_t firstValue = first / size;
    const std::size_t count = out.size() / size;
    const float half = static_cast<float>(p.stdev * std::sqrt(3.0));
    std::vector<float> v(count);
    for (std::size_t k = 0; k < count; ++k) {
      // SplitMix64 of (seed, tensor, index): one 64-bit draw per value.
      const std::uint64_t z = analysis::splitmix64_mix(spec_.seed * analysis::kSplitMix64Increment +
                                                       (i + 1) * 0xbf58476d1ce4e5b9ull +
                                                       (firstValue + k) * 0x94d049bb133111ebull);
      const float unit = static_cast<float>(z >> 40) * (1.0f / 16777216.0f);  // [0, 1)
      v[k] = static_cast<float>(p.centre) + (2.0f * unit - 1.0f) * half;
    }
    const TensorData packed = tensor_from_f32(p.header.name, {static_cast<std::int64_t>(count)},
                                              v, p.header.dtype);
    std::memcpy(out.data(), packed.bytes.data(), out.size());
  }

 private:
  struct Planned {
    TensorHeader header;
    double centre = 0.0, stdev = 0.0;
    std::optional<TensorData> raw;
  };
  void add(const std::string& name, std::vector<std::int64_t> shape, double centre, double stdev) {
    const bool topLevel = name.rfind("lm_head", 0) == 0 || name.rfind("cls.", 0) == 0 ||
                          name.rfind("embed_out", 0) == 0;
    Planned p;
    p.header = {topLevel ? name : prefix_ + name, spec_.dtype, std::move(shape)};
    p.centre = centre;
    p.stdev = stdev;
    plan_.push_back(std::move(p));
  }
  const RandomModelSpec& spec_;
  std::string prefix_;
  std::vector<Planned> plan_;
};

void write_text(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error(file.string() + ": cannot write");
  out << text;
}

// A byte-level BPE over the 256 bytes plus merges that build a few common
// words, so short English sentences give multi-byte tokens.
json tiny_tokenizer(const std::string& modelType, bool encoder) {
  static const char* words[] = {"the",   "of",      "and", "to",    "in",   "is",        "was",
                                "cat",   "sat",     "on",  "mat",   "sink", "attention", "token",
                                "model", "because", "it",  "tired", "he",   "she"};
  // GPT-2's byte -> printable character table, as the tokenizer itself reads it.
  std::vector<std::string> byteChar(256);
  for (int b = 0; b < 256; ++b)
    byteChar[static_cast<std::size_t>(b)] =
        tok::utf8_encode(tok::byte_to_char()[static_cast<std::size_t>(b)]);
  json vocab = json::object();
  for (int b = 0; b < 256; ++b) vocab[byteChar[static_cast<std::size_t>(b)]] = b;
  int next = 256;
  json merges = json::array();
  for (const char* w : words)
    for (const std::string& form : {std::string(" ") + w, std::string(w)}) {
      std::vector<std::string> parts;
      for (unsigned char c : form) parts.push_back(byteChar[c]);
      std::string acc = parts[0];
      for (std::size_t i = 1; i < parts.size(); ++i) {
        const std::string merged = acc + parts[i];
        if (!vocab.contains(merged)) {
          merges.push_back(acc + " " + parts[i]);
          vocab[merged] = next++;
        }
        acc = merged;
      }
    }
  const int bos = next++, eos = next++;
  auto added = [](int id, const char* content) {
    return json{{"id", id},        {"content", content},  {"single_word", false}, {"lstrip", false},
                {"rstrip", false}, {"normalized", false}, {"special", true}};
  };
  json post;
  if (modelType == "gpt2") {
    post = {{"type", "ByteLevel"},
            {"add_prefix_space", false},
            {"trim_offsets", true},
            {"use_regex", true}};
  } else {
    json single = json::array({{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}},
                               {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}});
    if (encoder) single.push_back({{"SpecialToken", {{"id", "</s>"}, {"type_id", 0}}}});
    post = {{"type", "TemplateProcessing"},
            {"single", single},
            {"pair", single},
            {"special_tokens",
             {{"<s>", {{"id", "<s>"}, {"ids", {bos}}, {"tokens", {"<s>"}}}},
              {"</s>", {{"id", "</s>"}, {"ids", {eos}}, {"tokens", {"</s>"}}}}}}};
  }
  return {{"version", "1.0"},
          {"added_tokens", {added(bos, "<s>"), added(eos, "</s>")}},
          {"normalizer", nullptr},
          {"pre_tokenizer",
           {{"type", "ByteLevel"},
            {"add_prefix_space", false},
            {"trim_offsets", true},
            {"use_regex", true}}},
          {"post_processor", post},
          {"decoder", {{"type", "ByteLevel"}}},
          {"model",
           {{"type", "BPE"},
            {"dropout", nullptr},
            {"unk_token", nullptr},
            {"fuse_unk", false},
            {"byte_fallback", false},
            {"vocab", vocab},
            {"merges", merges}}}};
}

}  // namespace

int random_tokenizer_vocab_size() {
  const json t = tiny_tokenizer("llama", false);
  return static_cast<int>(t["model"]["vocab"].size()) + 2;
}

RandomModelSpec random_model_spec_for(const std::string& t) {
  RandomModelSpec s;
  s.model_type = t;
  s.seed = std::hash<std::string>{}(t) % 100000 + 7;
  if (t == "llama") {
    s.kv_heads = 2;
    s.tie_embeddings = false;
    s.llama3_rope_scaling = true;
  } else if (t == "mistral") {
    s.kv_heads = 2;
    s.tie_embeddings = false;
    s.sliding_window = 4;
  } else if (t == "qwen2") {
    s.kv_heads = 2;
  } else if (t == "gemma") {
    s.kv_heads = 1;
    s.head_dim = 16;
  } else if (t == "gemma2") {
    s.kv_heads = 2;
    s.head_dim = 16;
    s.sliding_window = 4;
  } else if (t == "phi") {
    s.tie_embeddings = false;
    s.rotary_fraction = 0.5;
  } else if (t == "gpt_neox") {
    s.tie_embeddings = false;
    s.rotary_fraction = 0.25;
    s.legacy_buffers = true;
  } else if (t == "gpt2") {
    s.prefixed = true;
    s.legacy_buffers = true;
  } else if (t == "bert") {
    s.prefixed = true;
  }
  return s;
}

namespace {

// Shard k of n as Hugging Face names it.
std::string shard_name(int k, int n) {
  char name[64];
  std::snprintf(name, sizeof name, "model-%05d-of-%05d.safetensors", k, n);
  return name;
}

// The weights as one model.safetensors or `shards` files with the index
// save_pretrained writes: tensors in plan order, cut where a shard's share of
// the bytes is reached.
void write_weights(const fs::path& folder, const TensorSet& w, const RandomModelSpec& s) {
  const int shards = s.shards > 0 ? s.shards : (s.sharded ? 2 : 1);
  const std::vector<TensorHeader> headers = w.headers();
  if (shards == 1) {
    if (s.streamed)
      safetensors_write_streamed(folder / "model.safetensors", headers,
                                 [&](std::size_t i, std::uint64_t first, std::span<std::byte> out) {
                                   w.fill(i, first, out);
                                 });
    else
      safetensors_write(folder / "model.safetensors", w.materialize());
    return;
  }
  std::uint64_t total = 0;
  for (const auto& h : headers) total += h.byteSize();
  // Shard of each tensor: by bytes for streamed folders, by count for the
  // tiny ones (their two halves, as before).
  std::vector<int> shardOf(headers.size());
  std::uint64_t before = 0;
  for (std::size_t i = 0; i < headers.size(); ++i) {
    const double at = s.streamed ? static_cast<double>(before) / static_cast<double>(std::max<std::uint64_t>(total, 1))
                                 : static_cast<double>(i) / static_cast<double>(headers.size());
    shardOf[i] = std::min(shards - 1, static_cast<int>(at * shards));
    before += headers[i].byteSize();
  }
  json map = json::object();
  for (std::size_t i = 0; i < headers.size(); ++i)
    map[headers[i].name] = shard_name(shardOf[i] + 1, shards);
  const std::vector<TensorData> all = s.streamed ? std::vector<TensorData>() : w.materialize();
  for (int k = 0; k < shards; ++k) {
    std::vector<std::size_t> members;
    for (std::size_t i = 0; i < headers.size(); ++i)
      if (shardOf[i] == k) members.push_back(i);
    const fs::path file = folder / shard_name(k + 1, shards);
    if (s.streamed) {
      std::vector<TensorHeader> part;
      for (std::size_t i : members) part.push_back(headers[i]);
      safetensors_write_streamed(file, part,
                                 [&](std::size_t j, std::uint64_t first, std::span<std::byte> out) {
                                   w.fill(members[j], first, out);
                                 });
    } else {
      std::vector<TensorData> part;
      for (std::size_t i : members) part.push_back(all[i]);
      safetensors_write(file, part);
    }
  }
  json metadata = json::object();
  if (s.streamed) metadata["total_size"] = total;
  write_text(folder / "model.safetensors.index.json",
             json({{"metadata", metadata}, {"weight_map", map}}).dump(2));
}


// A random model's sizes: hidden, intermediate, vocabulary, positions,
// heads, key-value heads and head width.
struct RandomShape {
  std::int64_t D, I, V, P, H, KV, d;
};

// The config fields every Llama-like family shares.
void llama_like_config(const RandomModelSpec& s, const RandomShape& shape, json& c) {
  const auto [D, I, V, P, H, KV, d] = shape;
  c["hidden_size"] = D;
  c["intermediate_size"] = I;
  c["num_hidden_layers"] = s.layers;
  c["num_attention_heads"] = H;
  c["num_key_value_heads"] = KV;
  c["max_position_embeddings"] = P;
  c["rms_norm_eps"] = 1e-6;
  c["rope_theta"] = 10000.0;
  c["tie_word_embeddings"] = s.tie_embeddings;
  c["bos_token_id"] = 1;
  c["eos_token_id"] = 2;
  if (s.head_dim) c["head_dim"] = d;
}

// GPT-2: fused QKV (Conv1D, in x out), learned positions, LayerNorm.
void write_gpt2(const RandomModelSpec& s, const RandomShape& shape, json& c, TensorSet& w) {
  const auto [D, I, V, P, H, KV, d] = shape;
  c.update({{"n_embd", D},
            {"n_layer", s.layers},
            {"n_head", H},
            {"n_positions", P},
            {"n_inner", I},
            {"activation_function", "gelu_new"},
            {"layer_norm_epsilon", 1e-5},
            {"architectures", {"GPT2LMHeadModel"}},
            {"bos_token_id", V - 1},
            {"eos_token_id", V - 1}});
  w.weight("wte.weight", {V, D});
  w.weight("wpe.weight", {P, D});
  for (int l = 0; l < s.layers; ++l) {
    const std::string p = "h." + std::to_string(l) + ".";
    w.gain(p + "ln_1.weight", D);
    w.bias(p + "ln_1.bias", D);
    w.weight(p + "attn.c_attn.weight", {D, 3 * D});
    w.bias(p + "attn.c_attn.bias", 3 * D);
    w.weight(p + "attn.c_proj.weight", {D, D});
    w.bias(p + "attn.c_proj.bias", D);
    w.gain(p + "ln_2.weight", D);
    w.bias(p + "ln_2.bias", D);
    w.weight(p + "mlp.c_fc.weight", {D, I});
    w.bias(p + "mlp.c_fc.bias", I);
    w.weight(p + "mlp.c_proj.weight", {I, D});
    w.bias(p + "mlp.c_proj.bias", D);
    if (s.legacy_buffers) {
      std::vector<float> mask(static_cast<std::size_t>(P * P));
      for (std::int64_t i = 0; i < P; ++i)
        for (std::int64_t j = 0; j <= i; ++j) mask[static_cast<std::size_t>(i * P + j)] = 1.0f;
      w.raw(tensor_from_f32(w.prefix() + p + "attn.bias", {1, 1, P, P}, mask, DType::F32));
      const float masked = -1e4f;
      w.raw(tensor_from_f32(w.prefix() + p + "attn.masked_bias", {},
                            std::span<const float>(&masked, 1), DType::F32));
    }
  }
  w.gain("ln_f.weight", D);
  w.bias("ln_f.bias", D);
  if (!s.tie_embeddings) {
    c["tie_word_embeddings"] = false;
    w.weight("lm_head.weight", {V, D});
  }
}

// Llama, Mistral, Qwen2, Gemma, Gemma 2: RMSNorm, RoPE, gated MLP, grouped KV heads.
void write_llama_like(const RandomModelSpec& s, const RandomShape& shape, json& c, TensorSet& w) {
  const auto [D, I, V, P, H, KV, d] = shape;
  const std::string& t = s.model_type;
  llama_like_config(s, shape, c);
  const bool gemma = t == "gemma" || t == "gemma2";
  const double gainCentre = gemma ? 0.0 : 1.0;
  if (t == "llama" && s.llama3_rope_scaling)
    c["rope_scaling"] = {{"rope_type", "llama3"},
                         {"factor", 8.0},
                         {"low_freq_factor", 1.0},
                         {"high_freq_factor", 4.0},
                         {"original_max_position_embeddings", 16}};
  if (t == "mistral" && s.sliding_window) c["sliding_window"] = s.sliding_window;
  if (t == "qwen2") c["use_sliding_window"] = false;
  if (gemma) {
    c["hidden_activation"] = "gelu_pytorch_tanh";
    c["head_dim"] = d;
  }
  if (t == "gemma2") {
    c["query_pre_attn_scalar"] = 24;
    c["attn_logit_softcapping"] = 5.0;
    c["final_logit_softcapping"] = 3.0;
    c["sliding_window"] = s.sliding_window ? s.sliding_window : 4;
  }
  w.weight("embed_tokens.weight", {V, D});
  if (s.position_encoding != "rope") {
    c["position_encoding"] = s.position_encoding;
    if (s.position_encoding == "learned") w.weight("embed_positions.weight", {P, D});
  }
  for (int l = 0; l < s.layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    w.gain(p + "input_layernorm.weight", D, gainCentre);
    w.gain(p + "post_attention_layernorm.weight", D, gainCentre);
    if (t == "gemma2") {
      w.gain(p + "pre_feedforward_layernorm.weight", D, gainCentre);
      w.gain(p + "post_feedforward_layernorm.weight", D, gainCentre);
    }
    w.weight(p + "self_attn.q_proj.weight", {H * d, D});
    w.weight(p + "self_attn.k_proj.weight", {KV * d, D});
    w.weight(p + "self_attn.v_proj.weight", {KV * d, D});
    w.weight(p + "self_attn.o_proj.weight", {D, H * d});
    if (t == "qwen2") {
      w.bias(p + "self_attn.q_proj.bias", H * d);
      w.bias(p + "self_attn.k_proj.bias", KV * d);
      w.bias(p + "self_attn.v_proj.bias", KV * d);
    }
    w.weight(p + "mlp.gate_proj.weight", {I, D});
    w.weight(p + "mlp.up_proj.weight", {I, D});
    w.weight(p + "mlp.down_proj.weight", {D, I});
  }
  w.gain("norm.weight", D, gainCentre);
  if (!s.tie_embeddings) w.weight("lm_head.weight", {V, D});
}

// Phi: partial rotary, biases everywhere, a parallel block.
void write_phi(const RandomModelSpec& s, const RandomShape& shape, json& c, TensorSet& w) {
  const auto [D, I, V, P, H, KV, d] = shape;
  c.update({{"hidden_size", D},
            {"intermediate_size", I},
            {"num_hidden_layers", s.layers},
            {"num_attention_heads", H},
            {"num_key_value_heads", KV},
            {"max_position_embeddings", P},
            {"partial_rotary_factor", s.rotary_fraction},
            {"rope_theta", 10000.0},
            {"layer_norm_eps", 1e-5},
            {"hidden_act", "gelu_new"},
            {"tie_word_embeddings", s.tie_embeddings}});
  w.weight("embed_tokens.weight", {V, D});
  for (int l = 0; l < s.layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    w.gain(p + "input_layernorm.weight", D);
    w.bias(p + "input_layernorm.bias", D);
    for (const char* proj : {"q_proj", "k_proj", "v_proj"}) {
      const std::int64_t out = std::string(proj) == "q_proj" ? H * d : KV * d;
      w.weight(p + "self_attn." + proj + ".weight", {out, D});
      w.bias(p + "self_attn." + proj + ".bias", out);
    }
    w.weight(p + "self_attn.dense.weight", {D, H * d});
    w.bias(p + "self_attn.dense.bias", D);
    w.weight(p + "mlp.fc1.weight", {I, D});
    w.bias(p + "mlp.fc1.bias", I);
    w.weight(p + "mlp.fc2.weight", {D, I});
    w.bias(p + "mlp.fc2.bias", D);
  }
  w.gain("final_layernorm.weight", D);
  w.bias("final_layernorm.bias", D);
  if (!s.tie_embeddings) {
    w.weight("lm_head.weight", {V, D});
    w.bias("lm_head.bias", V);
  }
}

// GPT-NeoX (Pythia): fused QKV, partial rotary, a parallel residual.
void write_gpt_neox(const RandomModelSpec& s, const RandomShape& shape, json& c, TensorSet& w) {
  const auto [D, I, V, P, H, KV, d] = shape;
  c.update({{"hidden_size", D},
            {"intermediate_size", I},
            {"num_hidden_layers", s.layers},
            {"num_attention_heads", H},
            {"max_position_embeddings", P},
            {"rotary_pct", s.rotary_fraction},
            {"rotary_emb_base", 10000},
            {"layer_norm_eps", 1e-5},
            {"hidden_act", "gelu"},
            {"use_parallel_residual", true},
            {"tie_word_embeddings", s.tie_embeddings}});
  w.weight("embed_in.weight", {V, D});
  for (int l = 0; l < s.layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    w.gain(p + "input_layernorm.weight", D);
    w.bias(p + "input_layernorm.bias", D);
    w.gain(p + "post_attention_layernorm.weight", D);
    w.bias(p + "post_attention_layernorm.bias", D);
    w.weight(p + "attention.query_key_value.weight", {3 * D, D});
    w.bias(p + "attention.query_key_value.bias", 3 * D);
    w.weight(p + "attention.dense.weight", {D, D});
    w.bias(p + "attention.dense.bias", D);
    w.weight(p + "mlp.dense_h_to_4h.weight", {I, D});
    w.bias(p + "mlp.dense_h_to_4h.bias", I);
    w.weight(p + "mlp.dense_4h_to_h.weight", {D, I});
    w.bias(p + "mlp.dense_4h_to_h.bias", D);
    if (s.legacy_buffers) {
      const std::int64_t rot = static_cast<std::int64_t>(d * s.rotary_fraction) / 2;
      std::vector<float> inv(static_cast<std::size_t>(rot), 1.0f);
      w.raw(tensor_from_f32(w.prefix() + p + "attention.rotary_emb.inv_freq", {rot}, inv,
                            DType::F32));
    }
  }
  w.gain("final_layer_norm.weight", D);
  w.bias("final_layer_norm.bias", D);
  if (!s.tie_embeddings) w.weight("embed_out.weight", {V, D});
}

// BERT, RoBERTa, XLM-R: encoders with token types and an MLM head.
void write_bert_like(const RandomModelSpec& s, const RandomShape& shape, json& c, TensorSet& w) {
  const auto [D, I, V, P, H, KV, d] = shape;
  const std::string& t = s.model_type;
  const bool bert = t == "bert";
  const std::int64_t positions = bert ? P : P + 2;
  const std::int64_t types = bert ? 2 : 1;
  c.update({{"hidden_size", D},
            {"intermediate_size", I},
            {"num_hidden_layers", s.layers},
            {"num_attention_heads", H},
            {"max_position_embeddings", positions},
            {"type_vocab_size", types},
            {"layer_norm_eps", bert ? 1e-12 : 1e-5},
            {"hidden_act", "gelu"},
            {"pad_token_id", bert ? 0 : 1},
            {"position_embedding_type", "absolute"}});
  w.weight("embeddings.word_embeddings.weight", {V, D});
  w.weight("embeddings.position_embeddings.weight", {positions, D});
  w.weight("embeddings.token_type_embeddings.weight", {types, D});
  w.gain("embeddings.LayerNorm.weight", D);
  w.bias("embeddings.LayerNorm.bias", D);
  for (int l = 0; l < s.layers; ++l) {
    const std::string p = "encoder.layer." + std::to_string(l) + ".";
    for (const char* proj : {"query", "key", "value"}) {
      w.weight(p + "attention.self." + proj + ".weight", {D, D});
      w.bias(p + "attention.self." + proj + ".bias", D);
    }
    w.weight(p + "attention.output.dense.weight", {D, D});
    w.bias(p + "attention.output.dense.bias", D);
    w.gain(p + "attention.output.LayerNorm.weight", D);
    w.bias(p + "attention.output.LayerNorm.bias", D);
    w.weight(p + "intermediate.dense.weight", {I, D});
    w.bias(p + "intermediate.dense.bias", I);
    w.weight(p + "output.dense.weight", {D, I});
    w.bias(p + "output.dense.bias", D);
    w.gain(p + "output.LayerNorm.weight", D);
    w.bias(p + "output.LayerNorm.bias", D);
  }
  const std::string head = bert ? "cls.predictions." : "lm_head.";
  w.weight(head + (bert ? "transform.dense.weight" : "dense.weight"), {D, D});
  w.bias(head + (bert ? "transform.dense.bias" : "dense.bias"), D);
  w.gain(head + (bert ? "transform.LayerNorm.weight" : "layer_norm.weight"), D);
  w.bias(head + (bert ? "transform.LayerNorm.bias" : "layer_norm.bias"), D);
  w.bias(head + "bias", V);
}

}  // namespace

void model_folder_write_random(const fs::path& folder, const RandomModelSpec& given) {
  RandomModelSpec s = given;
  // The tokenizer's ids must fit; a larger vocabulary (a benchmark's GPT-2 shape) is kept.
  if (s.with_tokenizer) s.vocab = std::max(s.vocab, random_tokenizer_vocab_size());
  const std::string& t = s.model_type;
  const std::int64_t H = s.heads, D = s.hidden;
  const RandomShape shape{D, s.intermediate, s.vocab, s.max_positions, H,
                          s.kv_heads ? s.kv_heads : H, s.head_dim ? s.head_dim : D / H};
  json c = {{"model_type", t}, {"vocab_size", shape.V}, {"architectures", json::array()}};
  std::string prefix;

  if (t == "gpt2")
    prefix = s.prefixed ? "transformer." : "";
  else if (t == "gpt_neox")
    prefix = "gpt_neox.";
  else if (t == "bert")
    prefix = s.prefixed ? "bert." : "";
  else if (t == "roberta" || t == "xlm-roberta")
    prefix = "roberta.";
  else
    prefix = "model.";
  TensorSet w(s, prefix);

  if (t == "gpt2")
    write_gpt2(s, shape, c, w);
  else if (t == "llama" || t == "mistral" || t == "qwen2" || t == "gemma" || t == "gemma2")
    write_llama_like(s, shape, c, w);
  else if (t == "phi")
    write_phi(s, shape, c, w);
  else if (t == "gpt_neox")
    write_gpt_neox(s, shape, c, w);
  else if (t == "bert" || t == "roberta" || t == "xlm-roberta")
    write_bert_like(s, shape, c, w);
  else
    throw std::invalid_argument("model_folder_write_random: model_type \"" + t +
                                "\" is not supported");

  if (!s.config_extra.empty()) c.update(json::parse(s.config_extra));
  if (!s.exact_config.empty()) c = json::parse(s.exact_config);
  fs::create_directories(folder);
  write_text(folder / "config.json", c.dump(2));
  if (!s.tokenizer_json.empty()) {
    write_text(folder / "tokenizer.json", s.tokenizer_json);
  } else if (s.with_tokenizer) {
    const bool encoder = t == "bert" || t == "roberta" || t == "xlm-roberta";
    const json tokenizer = tiny_tokenizer(t, encoder);
    write_text(folder / "tokenizer.json", tokenizer.dump());
    write_text(
        folder / "tokenizer_config.json",
        json({{"bos_token", "<s>"}, {"eos_token", "</s>"}, {"model_max_length", s.max_positions}})
            .dump(2));
  }
  write_weights(folder, w, s);
}

}  // namespace sinkscope::models
