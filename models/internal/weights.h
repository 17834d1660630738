#pragma once
// Internal to models/: the weights of a loaded model as ATen tensors, with
// every family's names mapped onto one layout. F32, F16 and BF16 tensors
// alias the memory map in their stored dtype (zero-copy); the forward pass
// widens each to float32 right before use (weight_f32), so nothing is expanded
// for the whole model. Trainable loads own float32 copies.
#include <ATen/ATen.h>

#include <filesystem>
#include <functional>
#include <vector>

#include "models/model_config.h"
#include "models/safetensors.h"

namespace sinkscope::models::internal {

struct LayerWeights {
  // Norms. Pre-norm layouts: attn_norm before attention, mlp_norm before the
  // MLP. Post-norm (BERT): after each residual addition. Sandwich (Gemma 2):
  // attn_out_norm on the attention output, mlp_out_norm on the MLP output.
  at::Tensor attn_norm_w, attn_norm_b, mlp_norm_w, mlp_norm_b;
  at::Tensor attn_out_norm_w, mlp_out_norm_w;
  // Projections in nn.Linear layout [out, in]. q: [heads*d, D]; k, v: [kv_heads*d, D].
  at::Tensor q_w, q_b, k_w, k_b, v_w, v_b, o_w, o_b;
  // MLP: gated (down(act(gate x) * up x)) or plain (down(act(up x))).
  at::Tensor gate_w, gate_b, up_w, up_b, down_w, down_b;
};

struct ModelWeights {
  at::Tensor embed;                   // [vocab, D]
  at::Tensor pos_embed;               // learned positions [P, D] (undefined for RoPE)
  at::Tensor type_embed;              // encoders' token types [types, D]
  at::Tensor emb_norm_w, emb_norm_b;  // encoders: LayerNorm after the embeddings
  std::vector<LayerWeights> layers;
  at::Tensor final_norm_w, final_norm_b;  // decoders
  at::Tensor lm_head_w, lm_head_b;        // may alias embed (tied); undefined = no head
  // Encoders' masked-LM head transform (dense, activation, LayerNorm) before lm_head.
  at::Tensor mlm_dense_w, mlm_dense_b, mlm_norm_w, mlm_norm_b;

  std::vector<SafetensorsFile> files;  // keep the memory maps alive
  // Every tensor as stored, by its name in the files (leaves: the fields
  // above may be views of these). What a checkpoint writes back.
  std::vector<std::pair<std::string, at::Tensor>> named;
  std::size_t parameter_count = 0;
  // Bytes the weights occupy: stored bytes where mapped, float32 where copied.
  std::size_t resident_bytes = 0;
};

// `w` as float32: itself when it is float32 (or undefined), else a widened
// copy (exact for F16 and BF16). Every use of a weight in a computation goes
// through this, so reduced-precision weights compute as float32 ones do.
inline at::Tensor weight_f32(const at::Tensor& w) {
  return (!w.defined() || w.scalar_type() == at::kFloat) ? w : w.to(at::kFloat);
}

// `w` in `dtype` (itself when it is already, or undefined).
inline at::Tensor weight_as(const at::Tensor& w, at::ScalarType dtype) {
  return (!w.defined() || w.scalar_type() == dtype) ? w : w.to(dtype);
}

// `w` in the dtype the pass computes in (that of the activations `x`).
inline at::Tensor weight_like(const at::Tensor& w, const at::Tensor& x) {
  return weight_as(w, x.scalar_type());
}

// trainable: every tensor an owned copy that requires gradients.
// `progress` (optional) gets the fraction of the weight bytes read; false stops
// the load with RunCancelled.
ModelWeights weights_load(const std::filesystem::path& folder, const ModelConfig& config,
                          const at::Device& device, bool trainable = false,
                          const std::function<bool(double)>& progress = {});

}  // namespace sinkscope::models::internal
