#include "models/internal/weights.h"
#include "models/model.h"
#include "models/model_folder.h"

#include <optional>

namespace sinkscope::models::internal {

namespace fs = std::filesystem;

namespace {

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// Finds tensors by name across the files, trying the prefixes that
// save_pretrained adds for heads-on-top classes.
class Lookup {
 public:
  Lookup(const std::vector<SafetensorsFile>& files, std::vector<std::string> prefixes,
         const at::Device& device, ModelWeights& out, bool trainable,
         const std::function<bool(double)>& progress)
      : files_(files),
        prefixes_(std::move(prefixes)),
        device_(device),
        out_(out),
        trainable_(trainable),
        progress_(progress) {
    for (const auto& f : files_) totalBytes_ += f.fileSize();
  }

  const TensorView* find(const std::string& name) const {
    for (const auto& f : files_) {
      if (auto* t = f.find(name)) return t;
      for (const auto& p : prefixes_)
        if (auto* t = f.find(p + name)) return t;
    }
    return nullptr;
  }
  bool has(const std::string& name) const { return find(name) != nullptr; }

  // The tensor `name` with the given shape, as float32 on the device.
  at::Tensor get(const std::string& name, std::vector<std::int64_t> shape) {
    const TensorView* t = find(name);
    if (!t)
      throw ModelLoadError(folderName() + ": tensor \"" + name + "\" is missing from the weights");
    if (t->shape != shape)
      throw ModelLoadError(where(name) + ": tensor \"" + t->name + "\" has shape " +
                           shape_text(t->shape) + ", expected " + shape_text(shape));
    return convert(*t);
  }
  at::Tensor optional(const std::string& name, std::vector<std::int64_t> shape) {
    return has(name) ? get(name, std::move(shape)) : at::Tensor();
  }

 private:
  std::string folderName() const {
    return files_.empty() ? std::string("weights") : files_.front().path().parent_path().string();
  }
  std::string where(const std::string& name) const {
    for (const auto& f : files_) {
      if (f.find(name)) return f.path().string();
      for (const auto& p : prefixes_)
        if (f.find(p + name)) return f.path().string();
    }
    return "weights";
  }
  at::Tensor convert(const TensorView& t) {
    at::Tensor result;
    const auto address = reinterpret_cast<std::uintptr_t>(t.bytes.data());
    const std::optional<at::ScalarType> stored = mappable_type(t.dtype);
    if (stored && !trainable_ && address % dtype_size(t.dtype) == 0) {
      // Zero-copy in the stored dtype: the tensor aliases the read-only memory
      // map, which the model keeps alive; nothing writes to weights. F16 and
      // BF16 are widened to float32 where they are used (weight_f32), so a
      // model needs its bytes on disk, not twice their size as float32.
      result = at::from_blob(const_cast<std::byte*>(t.bytes.data()), t.shape,
                             at::TensorOptions().dtype(*stored));
      out_.resident_bytes += t.bytes.size();
    } else {
      result = at::empty(t.shape, at::TensorOptions().dtype(at::kFloat));
      tensor_to_f32(
          t, std::span<float>(result.data_ptr<float>(), static_cast<std::size_t>(t.numel())));
      out_.resident_bytes += static_cast<std::size_t>(t.numel()) * sizeof(float);
    }
    loadedBytes_ += t.bytes.size();
    if (progress_ && !progress_(totalBytes_ ? static_cast<double>(loadedBytes_) / totalBytes_ : 1.0))
      throw RunCancelled();
    out_.parameter_count += static_cast<std::size_t>(t.numel());
    // Moved in the stored dtype: a device holds what the disk holds.
    if (device_.is_cuda()) result = result.to(device_);
    if (trainable_) result.requires_grad_(true);
    out_.named.emplace_back(t.name, result);
    return result;
  }

  // The dtypes a weight may keep as stored.
  static std::optional<at::ScalarType> mappable_type(DType d) {
    switch (d) {
      case DType::F32:
        return at::kFloat;
      case DType::BF16:
        return at::kBFloat16;
      case DType::F16:
        return at::kHalf;
      default:
        return std::nullopt;
    }
  }

  const std::vector<SafetensorsFile>& files_;
  std::vector<std::string> prefixes_;
  at::Device device_;
  ModelWeights& out_;
  bool trainable_;
  const std::function<bool(double)>& progress_;
  std::uint64_t totalBytes_ = 0, loadedBytes_ = 0;
};

void load_gpt2(Lookup& w, const ModelConfig& c, ModelWeights& m) {
  const std::int64_t D = c.hidden_size, I = c.intermediate_size;
  m.embed = w.get("wte.weight", {c.vocab_size, D});
  m.pos_embed = w.get("wpe.weight", {c.max_positions, D});
  for (int l = 0; l < c.num_layers; ++l) {
    const std::string p = "h." + std::to_string(l) + ".";
    LayerWeights L;
    L.attn_norm_w = w.get(p + "ln_1.weight", {D});
    L.attn_norm_b = w.get(p + "ln_1.bias", {D});
    // Conv1D stores [in, out]; c_attn packs q | k | v along out.
    const at::Tensor qkv = w.get(p + "attn.c_attn.weight", {D, 3 * D}).t();
    const at::Tensor qkvb = w.get(p + "attn.c_attn.bias", {3 * D});
    L.q_w = qkv.slice(0, 0, D);
    L.k_w = qkv.slice(0, D, 2 * D);
    L.v_w = qkv.slice(0, 2 * D, 3 * D);
    L.q_b = qkvb.slice(0, 0, D);
    L.k_b = qkvb.slice(0, D, 2 * D);
    L.v_b = qkvb.slice(0, 2 * D, 3 * D);
    L.o_w = w.get(p + "attn.c_proj.weight", {D, D}).t();
    L.o_b = w.get(p + "attn.c_proj.bias", {D});
    L.mlp_norm_w = w.get(p + "ln_2.weight", {D});
    L.mlp_norm_b = w.get(p + "ln_2.bias", {D});
    L.up_w = w.get(p + "mlp.c_fc.weight", {D, I}).t();
    L.up_b = w.get(p + "mlp.c_fc.bias", {I});
    L.down_w = w.get(p + "mlp.c_proj.weight", {I, D}).t();
    L.down_b = w.get(p + "mlp.c_proj.bias", {D});
    m.layers.push_back(std::move(L));
  }
  m.final_norm_w = w.get("ln_f.weight", {D});
  m.final_norm_b = w.get("ln_f.bias", {D});
  m.lm_head_w = (!c.tie_word_embeddings && w.has("lm_head.weight"))
                    ? w.get("lm_head.weight", {c.vocab_size, D})
                    : m.embed;
}

// Llama, Mistral, Qwen2, Gemma, Gemma 2: the same names, different switches.
void load_llama_like(Lookup& w, const ModelConfig& c, ModelWeights& m) {
  const std::int64_t D = c.hidden_size, I = c.intermediate_size;
  const std::int64_t Q = static_cast<std::int64_t>(c.num_heads) * c.head_dim;
  const std::int64_t KV = static_cast<std::int64_t>(c.num_kv_heads) * c.head_dim;
  m.embed = w.get("embed_tokens.weight", {c.vocab_size, D});
  // SinkScope's own position-encoding variants of the Llama layout (trainer).
  if (c.positions == PositionKind::Learned)
    m.pos_embed = w.get("embed_positions.weight", {c.max_positions, D});
  for (int l = 0; l < c.num_layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    LayerWeights L;
    L.attn_norm_w = w.get(p + "input_layernorm.weight", {D});
    if (c.family == Family::Gemma2) {
      L.attn_out_norm_w = w.get(p + "post_attention_layernorm.weight", {D});
      L.mlp_norm_w = w.get(p + "pre_feedforward_layernorm.weight", {D});
      L.mlp_out_norm_w = w.get(p + "post_feedforward_layernorm.weight", {D});
    } else {
      L.mlp_norm_w = w.get(p + "post_attention_layernorm.weight", {D});
    }
    L.q_w = w.get(p + "self_attn.q_proj.weight", {Q, D});
    L.k_w = w.get(p + "self_attn.k_proj.weight", {KV, D});
    L.v_w = w.get(p + "self_attn.v_proj.weight", {KV, D});
    L.o_w = w.get(p + "self_attn.o_proj.weight", {D, Q});
    if (c.qkv_bias) {
      L.q_b = w.get(p + "self_attn.q_proj.bias", {Q});
      L.k_b = w.get(p + "self_attn.k_proj.bias", {KV});
      L.v_b = w.get(p + "self_attn.v_proj.bias", {KV});
    }
    if (c.attn_out_bias) L.o_b = w.get(p + "self_attn.o_proj.bias", {D});
    L.gate_w = w.get(p + "mlp.gate_proj.weight", {I, D});
    L.up_w = w.get(p + "mlp.up_proj.weight", {I, D});
    L.down_w = w.get(p + "mlp.down_proj.weight", {D, I});
    if (c.mlp_bias) {
      L.gate_b = w.get(p + "mlp.gate_proj.bias", {I});
      L.up_b = w.get(p + "mlp.up_proj.bias", {I});
      L.down_b = w.get(p + "mlp.down_proj.bias", {D});
    }
    m.layers.push_back(std::move(L));
  }
  m.final_norm_w = w.get("norm.weight", {D});
  m.lm_head_w = (!c.tie_word_embeddings && w.has("lm_head.weight"))
                    ? w.get("lm_head.weight", {c.vocab_size, D})
                    : m.embed;
}

void load_phi(Lookup& w, const ModelConfig& c, ModelWeights& m) {
  const std::int64_t D = c.hidden_size, I = c.intermediate_size;
  const std::int64_t Q = static_cast<std::int64_t>(c.num_heads) * c.head_dim;
  const std::int64_t KV = static_cast<std::int64_t>(c.num_kv_heads) * c.head_dim;
  m.embed = w.get("embed_tokens.weight", {c.vocab_size, D});
  for (int l = 0; l < c.num_layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    LayerWeights L;
    L.attn_norm_w = w.get(p + "input_layernorm.weight", {D});
    L.attn_norm_b = w.get(p + "input_layernorm.bias", {D});
    L.q_w = w.get(p + "self_attn.q_proj.weight", {Q, D});
    L.q_b = w.get(p + "self_attn.q_proj.bias", {Q});
    L.k_w = w.get(p + "self_attn.k_proj.weight", {KV, D});
    L.k_b = w.get(p + "self_attn.k_proj.bias", {KV});
    L.v_w = w.get(p + "self_attn.v_proj.weight", {KV, D});
    L.v_b = w.get(p + "self_attn.v_proj.bias", {KV});
    L.o_w = w.get(p + "self_attn.dense.weight", {D, Q});
    L.o_b = w.get(p + "self_attn.dense.bias", {D});
    L.up_w = w.get(p + "mlp.fc1.weight", {I, D});
    L.up_b = w.get(p + "mlp.fc1.bias", {I});
    L.down_w = w.get(p + "mlp.fc2.weight", {D, I});
    L.down_b = w.get(p + "mlp.fc2.bias", {D});
    m.layers.push_back(std::move(L));
  }
  m.final_norm_w = w.get("final_layernorm.weight", {D});
  m.final_norm_b = w.get("final_layernorm.bias", {D});
  if (!c.tie_word_embeddings && w.has("lm_head.weight")) {
    m.lm_head_w = w.get("lm_head.weight", {c.vocab_size, D});
    m.lm_head_b = w.optional("lm_head.bias", {c.vocab_size});
  } else {
    m.lm_head_w = m.embed;
  }
}

void load_neox(Lookup& w, const ModelConfig& c, ModelWeights& m) {
  const std::int64_t D = c.hidden_size, I = c.intermediate_size, H = c.num_heads, d = c.head_dim;
  m.embed = w.get("embed_in.weight", {c.vocab_size, D});
  for (int l = 0; l < c.num_layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    LayerWeights L;
    L.attn_norm_w = w.get(p + "input_layernorm.weight", {D});
    L.attn_norm_b = w.get(p + "input_layernorm.bias", {D});
    L.mlp_norm_w = w.get(p + "post_attention_layernorm.weight", {D});
    L.mlp_norm_b = w.get(p + "post_attention_layernorm.bias", {D});
    // Fused query_key_value, interleaved per head: rows are [head][q|k|v][d].
    const at::Tensor qkv =
        w.get(p + "attention.query_key_value.weight", {3 * D, D}).view({H, 3, d, D});
    L.q_w = qkv.select(1, 0).reshape({H * d, D});
    L.k_w = qkv.select(1, 1).reshape({H * d, D});
    L.v_w = qkv.select(1, 2).reshape({H * d, D});
    if (c.qkv_bias) {
      const at::Tensor b = w.get(p + "attention.query_key_value.bias", {3 * D}).view({H, 3, d});
      L.q_b = b.select(1, 0).reshape({H * d});
      L.k_b = b.select(1, 1).reshape({H * d});
      L.v_b = b.select(1, 2).reshape({H * d});
    }
    L.o_w = w.get(p + "attention.dense.weight", {D, D});
    if (c.attn_out_bias) L.o_b = w.get(p + "attention.dense.bias", {D});
    L.up_w = w.get(p + "mlp.dense_h_to_4h.weight", {I, D});
    L.up_b = w.get(p + "mlp.dense_h_to_4h.bias", {I});
    L.down_w = w.get(p + "mlp.dense_4h_to_h.weight", {D, I});
    L.down_b = w.get(p + "mlp.dense_4h_to_h.bias", {D});
    m.layers.push_back(std::move(L));
  }
  m.final_norm_w = w.get("final_layer_norm.weight", {D});
  m.final_norm_b = w.get("final_layer_norm.bias", {D});
  m.lm_head_w = (!c.tie_word_embeddings && w.has("embed_out.weight"))
                    ? w.get("embed_out.weight", {c.vocab_size, D})
                    : m.embed;
}

at::Tensor get_norm(Lookup& w, const std::string& base, const char* a, const char* b,
                    std::int64_t D) {
  return w.has(base + a) ? w.get(base + a, {D}) : w.get(base + b, {D});
}

void load_bert_like(Lookup& w, const ModelConfig& c, ModelWeights& m) {
  const std::int64_t D = c.hidden_size, I = c.intermediate_size;
  m.embed = w.get("embeddings.word_embeddings.weight", {c.vocab_size, D});
  m.pos_embed = w.get("embeddings.position_embeddings.weight", {c.max_positions, D});
  if (c.type_vocab_size > 0)
    m.type_embed = w.get("embeddings.token_type_embeddings.weight", {c.type_vocab_size, D});
  // Old BERT checkpoints call LayerNorm parameters gamma and beta.
  m.emb_norm_w = get_norm(w, "embeddings.LayerNorm.", "weight", "gamma", D);
  m.emb_norm_b = get_norm(w, "embeddings.LayerNorm.", "bias", "beta", D);
  for (int l = 0; l < c.num_layers; ++l) {
    const std::string p = "encoder.layer." + std::to_string(l) + ".";
    LayerWeights L;
    L.q_w = w.get(p + "attention.self.query.weight", {D, D});
    L.q_b = w.get(p + "attention.self.query.bias", {D});
    L.k_w = w.get(p + "attention.self.key.weight", {D, D});
    L.k_b = w.get(p + "attention.self.key.bias", {D});
    L.v_w = w.get(p + "attention.self.value.weight", {D, D});
    L.v_b = w.get(p + "attention.self.value.bias", {D});
    L.o_w = w.get(p + "attention.output.dense.weight", {D, D});
    L.o_b = w.get(p + "attention.output.dense.bias", {D});
    L.attn_norm_w = get_norm(w, p + "attention.output.LayerNorm.", "weight", "gamma", D);
    L.attn_norm_b = get_norm(w, p + "attention.output.LayerNorm.", "bias", "beta", D);
    L.up_w = w.get(p + "intermediate.dense.weight", {I, D});
    L.up_b = w.get(p + "intermediate.dense.bias", {I});
    L.down_w = w.get(p + "output.dense.weight", {D, I});
    L.down_b = w.get(p + "output.dense.bias", {D});
    L.mlp_norm_w = get_norm(w, p + "output.LayerNorm.", "weight", "gamma", D);
    L.mlp_norm_b = get_norm(w, p + "output.LayerNorm.", "bias", "beta", D);
    m.layers.push_back(std::move(L));
  }
  // Masked-LM head, when the folder has one.
  const bool bert = c.family == Family::Bert;
  const std::string head = bert ? "cls.predictions." : "lm_head.";
  const std::string dense = bert ? head + "transform.dense." : head + "dense.";
  const std::string norm = bert ? head + "transform.LayerNorm." : head + "layer_norm.";
  if (w.has(dense + "weight")) {
    m.mlm_dense_w = w.get(dense + "weight", {D, D});
    m.mlm_dense_b = w.get(dense + "bias", {D});
    m.mlm_norm_w = get_norm(w, norm, "weight", "gamma", D);
    m.mlm_norm_b = get_norm(w, norm, "bias", "beta", D);
    m.lm_head_w = w.has(head + "decoder.weight") && !c.tie_word_embeddings
                      ? w.get(head + "decoder.weight", {c.vocab_size, D})
                      : m.embed;
    m.lm_head_b = w.has(head + "bias") ? w.get(head + "bias", {c.vocab_size})
                                       : w.optional(head + "decoder.bias", {c.vocab_size});
  }
}

}  // namespace

ModelWeights weights_load(const fs::path& folder, const ModelConfig& c, const at::Device& device,
                          bool trainable, const std::function<bool(double)>& progress) {
  ModelWeights m;
  for (const auto& f : model_weight_files(folder)) m.files.push_back(SafetensorsFile::open(f));
  std::vector<std::string> prefixes;
  switch (c.family) {
    case Family::Gpt2:
      prefixes = {"transformer."};
      break;
    case Family::GptNeoX:
      prefixes = {"gpt_neox."};
      break;
    case Family::Bert:
      prefixes = {"bert."};
      break;
    case Family::Roberta:
    case Family::XlmRoberta:
      prefixes = {"roberta."};
      break;
    default:
      prefixes = {"model."};
      break;
  }
  Lookup w(m.files, prefixes, device, m, trainable, progress);
  switch (c.family) {
    case Family::Gpt2:
      load_gpt2(w, c, m);
      break;
    case Family::Llama:
    case Family::Mistral:
    case Family::Qwen2:
    case Family::Gemma:
    case Family::Gemma2:
      load_llama_like(w, c, m);
      break;
    case Family::Phi:
      load_phi(w, c, m);
      break;
    case Family::GptNeoX:
      load_neox(w, c, m);
      break;
    case Family::Bert:
    case Family::Roberta:
    case Family::XlmRoberta:
      load_bert_like(w, c, m);
      break;
  }
  return m;
}

}  // namespace sinkscope::models::internal
