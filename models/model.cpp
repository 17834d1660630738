// Model loading and the forward pass with capture, for every family, on ATen.
// Attention is computed eagerly (explicit softmax in float32), so the
// captured probabilities are exactly the ones the model used.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <numbers>
#include <numeric>
#include <random>
#include <sstream>

#include "models/cpu_runtime.h"
#include "models/internal/model_impl.h"
#include "models/internal/recompute.h"
#include "models/internal/weights.h"
#include "models/model.h"
#include "models/model_folder.h"

namespace sinkscope::models {

using internal::LayerWeights;
using internal::ModelWeights;
namespace fs = std::filesystem;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string gib(double bytes) {
  std::ostringstream s;
  s.precision(2);
  s << std::fixed << bytes / kGiB << " GiB";
  return s.str();
}

using internal::weight_f32;

using internal::weight_like;

// Products in BF16/F16 run in libtorch's own kernels on its intra-op threads,
// not OpenBLAS's (which the float32 path uses while libtorch keeps one thread,
// so that the two pools never fight): such a pass lends libtorch the BLAS's
// thread count, and gives it back after.
class ComputeThreads {
 public:
  explicit ComputeThreads(at::ScalarType compute) {
    if (compute == at::kFloat) return;
    previous_ = at::get_num_threads();
    at::set_num_threads(blas_thread_count());
  }
  ~ComputeThreads() {
    if (previous_ > 0) at::set_num_threads(previous_);
  }
  ComputeThreads(const ComputeThreads&) = delete;
  ComputeThreads& operator=(const ComputeThreads&) = delete;

 private:
  int previous_ = 0;
};

// In the activations' dtype: float32, or the stored one (ComputePrecision::Stored).
// A batch of runs is multiplied one sequence at a time: BLAS kernels round a
// row by where it falls in the product (edge tiles), so one product over the
// whole batch would give a sentence other last bits than its own run, and
// results pooled over sentences would depend on the batch size. Training
// (gradients on) keeps the one product.
at::Tensor linear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  if (x.dim() == 3 && x.size(0) > 1 && !at::GradMode::is_enabled()) {
    std::vector<at::Tensor> rows;
    rows.reserve(static_cast<std::size_t>(x.size(0)));
    for (std::int64_t k = 0; k < x.size(0); ++k) rows.push_back(linear(x[k], w, b));
    return at::stack(rows);
  }
  return b.defined() ? at::linear(x, weight_like(w, x), weight_like(b, x))
                     : at::linear(x, weight_like(w, x));
}

// Attention's products ([B, H, ...] by [B, H, ...]) one sequence at a time,
// as linear's: folding B and H into one batch copies the strided operands only
// when B > 1 (a single sequence's fold is a view), and a copied operand
// reaches BLAS in another layout (k^T as a plain matrix, not a transposed
// one), for which OpenBLAS's AVX-512 kernels take another path (its small-
// matrix kernels) and sum in another order. Per sequence, every operand has
// the layout of that sequence's own run.
at::Tensor attention_product(const at::Tensor& a, const at::Tensor& b) {
  if (a.dim() == 4 && a.size(0) > 1 && !at::GradMode::is_enabled()) {
    std::vector<at::Tensor> parts;
    parts.reserve(static_cast<std::size_t>(a.size(0)));
    for (std::int64_t k = 0; k < a.size(0); ++k) parts.push_back(at::matmul(a[k], b[k]));
    return at::stack(parts);
  }
  return at::matmul(a, b);
}

at::Tensor layer_norm_f32(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b,
                          double eps) {
  return at::layer_norm(x.to(at::kFloat), {x.size(-1)}, weight_f32(w), weight_f32(b), eps)
      .to(x.scalar_type());
}

// Norms compute in float32 whatever the activations are in, and return to
// their dtype, as Hugging Face's do (Llama's RMSNorm scales after the cast
// back; Gemma's before).
at::Tensor norm(const ModelConfig& c, const at::Tensor& x, const at::Tensor& w,
                const at::Tensor& b) {
  const at::Tensor xf = x.to(at::kFloat);
  switch (c.norm) {
    case NormKind::LayerNorm:
      return layer_norm_f32(x, w, b, c.norm_eps);
    case NormKind::RmsNorm:
      return (xf * at::rsqrt(xf.pow(2).mean(-1, true) + c.norm_eps)).to(x.scalar_type()) *
             weight_like(w, x);
    case NormKind::RmsNormPlusOne:
      return (xf * at::rsqrt(xf.pow(2).mean(-1, true) + c.norm_eps) * (weight_f32(w) + 1.0))
          .to(x.scalar_type());
  }
  return x;
}

at::Tensor activate(Activation a, const at::Tensor& x) {
  switch (a) {
    case Activation::GeluExact:
      return at::gelu(x);
    case Activation::GeluTanh:
      return at::gelu(x, "tanh");
    case Activation::Silu:
      return at::silu(x);
    case Activation::Relu:
      return at::relu(x);
  }
  return x;
}

// cos and sin tables [T, rotary dims] for the rotate-half convention.
struct Rope {
  at::Tensor cos, sin;
  int dims = 0;
};

Rope rope_tables(const ModelConfig& c, const RunOptions& o, int T, const at::Device& device) {
  Rope r;
  r.dims = c.rotaryDims();
  if (c.positions != PositionKind::Rope || r.dims == 0) return r;
  const double dims = r.dims;
  double theta = o.rope_theta.value_or(c.rope_theta);
  if (o.ntk_scale != 1.0) theta *= std::pow(o.ntk_scale, dims / (dims - 2.0));
  const auto& s = c.rope_scaling;
  if (s.kind == RopeScaling::Kind::Dynamic && T > c.max_positions)
    theta *= std::pow(s.factor * T / c.max_positions - (s.factor - 1.0), dims / (dims - 2.0));
  // As the reference code does it: exponents and frequencies in float32.
  at::Tensor inv = 1.0 / at::pow(theta, at::arange(0, r.dims, 2, at::kLong).to(at::kFloat) / dims);
  if (s.kind == RopeScaling::Kind::Linear) inv = inv / s.factor;
  if (s.kind == RopeScaling::Kind::Llama3) {
    const double lowWavelen = s.original_max_positions / s.low_freq_factor;
    const double highWavelen = s.original_max_positions / s.high_freq_factor;
    const at::Tensor wavelen = 2.0 * std::numbers::pi / inv;
    at::Tensor scaled = at::where(wavelen > lowWavelen, inv / s.factor, inv);
    const at::Tensor smooth = (s.original_max_positions / wavelen - s.low_freq_factor) /
                              (s.high_freq_factor - s.low_freq_factor);
    const at::Tensor smoothed = (1.0 - smooth) * scaled / s.factor + smooth * scaled;
    const at::Tensor medium = (wavelen >= highWavelen).logical_and(wavelen <= lowWavelen);
    inv = at::where(medium, smoothed, scaled);
  }
  const at::Tensor positions = (at::arange(T, at::kLong) + o.position_shift).to(at::kFloat);
  const at::Tensor freqs = at::outer(positions, inv);
  const at::Tensor emb = at::cat({freqs, freqs}, -1);
  r.cos = emb.cos().to(device);
  r.sin = emb.sin().to(device);
  return r;
}

// x: [heads, T, head_dim]; rotates the first r.dims dimensions of each head.
at::Tensor rope_apply(const Rope& r, const at::Tensor& x) {
  if (!r.cos.defined()) return x;
  const int half = r.dims / 2;
  const at::Tensor rot = x.slice(-1, 0, r.dims);
  const at::Tensor rotated = at::cat({-rot.slice(-1, half, r.dims), rot.slice(-1, 0, half)}, -1);
  const at::Tensor out = rot * r.cos.to(x.scalar_type()) + rotated * r.sin.to(x.scalar_type());
  if (r.dims == x.size(-1)) return out;
  return at::cat({out, x.slice(-1, r.dims, x.size(-1))}, -1);
}

bool applies(const std::vector<int>& set, int value) {
  return set.empty() || std::find(set.begin(), set.end(), value) != set.end();
}

std::vector<float> to_vector(const at::Tensor& t) {
  const at::Tensor c = t.to(at::kCPU).to(at::kFloat).contiguous();
  const float* p = c.data_ptr<float>();
  return {p, p + c.numel()};
}

struct AttentionResult {
  at::Tensor output;                        // [T, D] after the output projection
  at::Tensor probs, queries, keys, values;  // [H, T, T], [H, T, d] x3
  // A single CPU sequence's kept maps are written here (probs views it), so
  // that its capture takes them without a copy: 2 GB at 4096 tokens.
  std::vector<float> probsStorage;
};

// ALiBi's head slopes (Press et al.): a geometric sequence starting at
// 2^(-8/n) for n heads, interleaved for head counts that are not powers of two.
std::vector<double> alibi_slopes(int heads) {
  auto power_of_two = [](int n) {
    std::vector<double> s;
    const double start = std::pow(2.0, -8.0 / n);
    for (int i = 0; i < n; ++i) s.push_back(std::pow(start, i + 1));
    return s;
  };
  int closest = 1;
  while (closest * 2 <= heads) closest *= 2;
  std::vector<double> slopes = power_of_two(closest);
  if (closest < heads) {
    const std::vector<double> extra = power_of_two(2 * closest);
    for (int i = 0; static_cast<int>(slopes.size()) < heads; i += 2)
      slopes.push_back(extra[static_cast<std::size_t>(i)]);
  }
  return slopes;
}

// Heads whose [T, T] maps are computed at once: every head, unless one
// float32 copy of their maps would pass the run's chunk bytes. A head's
// scores, their float32 copy, its probabilities and their copy in the pass's
// dtype live together: at 4096 tokens, 32 heads at once would be 8 GB.
std::int64_t heads_per_chunk(std::int64_t B, std::int64_t H, std::int64_t T,
                             std::size_t chunkBytes) {
  const std::int64_t perHead = B * T * T * static_cast<std::int64_t>(sizeof(float));
  return std::clamp<std::int64_t>(
      static_cast<std::int64_t>(chunkBytes) / std::max<std::int64_t>(perHead, 1), 1, H);
}

// Which keys each query may see, and the edits' masks: shared by every chunk.
struct Visibility {
  at::Tensor qi, kj;   // [T, 1] and [1, T] positions
  at::Tensor visible;  // [T, T]
};

Visibility visibility(const ModelConfig& c, int l, std::int64_t T, const at::Device& device) {
  Visibility v;
  const auto opts = at::TensorOptions().device(device);
  v.qi = at::arange(T, opts.dtype(at::kLong)).unsqueeze(1);
  v.kj = at::arange(T, opts.dtype(at::kLong)).unsqueeze(0);
  v.visible = at::ones({T, T}, opts.dtype(at::kBool));
  if (c.causal) v.visible = v.visible.logical_and(v.kj <= v.qi);
  if (c.layerSlides(l)) v.visible = v.visible.logical_and((v.qi - v.kj) < c.sliding_window);
  return v;
}

// The probabilities of heads [h0, h0 + n) ([B, n, T, T], float32), from their
// queries and keys ([B, n, T, d]): scaled, masked, softmaxed and edited as the
// run asks.
at::Tensor head_probabilities(const ModelConfig& c, int l, const at::Tensor& q, const at::Tensor& k,
                              const RunOptions& o, const Visibility& vis, std::int64_t h0) {
  const std::int64_t n = q.size(1), T = q.size(2);
  const at::Device device = q.device();
  const auto opts = at::TensorOptions().device(device);
  // Scaled and masked in place (the same values as out of place, without a
  // second T^2 buffer per step).
  at::Tensor scores = attention_product(q, k.transpose(-1, -2));
  scores.mul_(c.attention_scale);
  if (c.scale_by_inverse_layer) scores.div_(static_cast<double>(l + 1));
  if (c.attn_softcap > 0.0) scores = at::tanh(scores / c.attn_softcap) * c.attn_softcap;
  if (c.positions == PositionKind::Alibi) {
    const std::vector<double> slopes = alibi_slopes(c.num_heads);
    at::Tensor slope = at::empty({n}, at::kFloat);
    for (std::int64_t i = 0; i < n; ++i) slope[i] = slopes[static_cast<std::size_t>(h0 + i)];
    const at::Tensor distance = (vis.kj - vis.qi).to(at::kFloat).to(device);  // <= 0 when visible
    scores = scores + slope.to(device).view({n, 1, 1}) * distance;
  }
  // One [T, T] mask for every head, unless an edit masks keys of some heads.
  auto edits_head = [&](const AttentionEdit& e, std::int64_t i) {
    return applies(e.heads, static_cast<int>(h0 + i));
  };
  const bool perHeadMask = std::any_of(o.edits.begin(), o.edits.end(), [&](const AttentionEdit& e) {
    return e.kind == AttentionEdit::Kind::MaskKeysBeforeSoftmax && applies(e.layers, l);
  });
  at::Tensor allowed =
      perHeadMask ? vis.visible.unsqueeze(0).expand({n, T, T}).clone() : vis.visible;
  for (const AttentionEdit& e : o.edits) {
    if (e.kind != AttentionEdit::Kind::MaskKeysBeforeSoftmax || !applies(e.layers, l)) continue;
    at::Tensor keyMask = at::zeros({T}, opts.dtype(at::kBool));
    for (int key : e.keys)
      if (key >= 0 && key < T) keyMask[key] = true;
    const at::Tensor masked = vis.visible.logical_and(keyMask.unsqueeze(0).logical_not());
    // A query left with no visible key keeps its keys: a row cannot be empty.
    const at::Tensor keep = masked.any(-1, true);
    const at::Tensor rowAllowed = at::where(keep, masked, vis.visible);
    for (std::int64_t i = 0; i < n; ++i)
      if (edits_head(e, i)) allowed[i] = rowAllowed;
  }
  scores.masked_fill_(allowed.logical_not(), -std::numeric_limits<float>::infinity());
  at::Tensor probs = at::softmax(scores.to(at::kFloat), -1);
  scores.reset();

  for (const AttentionEdit& e : o.edits) {
    if (e.kind != AttentionEdit::Kind::ZeroKeysAfterSoftmax || !applies(e.layers, l)) continue;
    at::Tensor keyMask = at::zeros({T}, opts.dtype(at::kBool));
    for (int key : e.keys)
      if (key >= 0 && key < T) keyMask[key] = true;
    const at::Tensor rest =
        vis.visible.logical_and(keyMask.unsqueeze(0).logical_not()).to(at::kFloat);
    const at::Tensor restCount = rest.sum(-1, true);
    for (std::int64_t i = 0; i < n; ++i) {
      if (!edits_head(e, i)) continue;
      const at::Tensor original = probs.select(1, i);  // [B, T, T]
      const at::Tensor row = original.masked_fill(keyMask.unsqueeze(0), 0.0);
      const at::Tensor sum = row.sum(-1, true);
      // Renormalise; a row whose mass was all on the removed keys becomes
      // uniform over its other visible keys; one with no other key keeps its weights.
      at::Tensor edited =
          at::where(sum > 0, row / sum.clamp_min(1e-30), rest / restCount.clamp_min(1.0));
      edited = at::where(restCount > 0, edited, original);
      probs.select(1, i).copy_(edited);
    }
  }
  return probs;
}

// A layer's queries, keys and values per head: [B, H, T, d] each, after
// RoPE, keys and values repeated for the heads that share a KV group.
struct HeadProjections {
  at::Tensor q, k, v;
};

HeadProjections head_projections(const ModelImpl& m, int l, const at::Tensor& h, const Rope& rope) {
  const ModelConfig& c = m.config;
  const LayerWeights& W = m.weights.layers[static_cast<std::size_t>(l)];
  const std::int64_t B = h.size(0), T = h.size(1), H = c.num_heads, KV = c.num_kv_heads,
                     d = c.head_dim;
  HeadProjections p;
  p.q = rope_apply(rope, linear(h, W.q_w, W.q_b).view({B, T, H, d}).transpose(1, 2));
  p.k = rope_apply(rope, linear(h, W.k_w, W.k_b).view({B, T, KV, d}).transpose(1, 2));
  p.v = linear(h, W.v_w, W.v_b).view({B, T, KV, d}).transpose(1, 2);
  if (KV != H) {  // grouped-query attention: head h reads KV group h / (H / KV)
    p.k = p.k.repeat_interleave(H / KV, 1);
    p.v = p.v.repeat_interleave(H / KV, 1);
  }
  return p;
}

// `ablatedPerBatch`: batch element b has head ablatedPerBatch[b] of this
// layer ablated (headAblationLogits); null for every other pass. `keepMaps`:
// the result holds every head's probabilities (for a capture); otherwise only
// a chunk of heads' maps exists at a time.
AttentionResult attention(const ModelImpl& m, int l, const at::Tensor& h, const RunOptions& o,
                          const Rope& rope, bool keepMaps,
                          const std::vector<int>* ablatedPerBatch = nullptr) {
  const ModelConfig& c = m.config;
  const LayerWeights& W = m.weights.layers[static_cast<std::size_t>(l)];
  const std::int64_t B = h.size(0), T = h.size(1), H = c.num_heads, d = c.head_dim;
  const auto [q, k, v] = head_projections(m, l, h, rope);
  const Visibility vis = visibility(c, l, T, h.device());
  AttentionResult r;
  const std::int64_t chunk = heads_per_chunk(B, H, T, o.attention_chunk_bytes);
  std::vector<at::Tensor> outs;
  for (std::int64_t h0 = 0; h0 < H; h0 += chunk) {
    const std::int64_t n = std::min(chunk, H - h0);
    const at::Tensor probs =
        head_probabilities(c, l, q.slice(1, h0, h0 + n), k.slice(1, h0, h0 + n), o, vis, h0);
    // Softmax in float32 (captured as such); the mixing in the pass's dtype.
    outs.push_back(attention_product(probs.to(v.scalar_type()), v.slice(1, h0, h0 + n)));
    if (!keepMaps) continue;
    if (!r.probs.defined()) {
      if (B == 1 && probs.device().is_cpu()) {
        r.probsStorage.resize(static_cast<std::size_t>(H * T * T));
        r.probs = at::from_blob(r.probsStorage.data(), {B, H, T, T}, at::kFloat);
      } else if (chunk == H) {
        r.probs = probs;
        continue;
      } else {
        r.probs = at::empty({B, H, T, T}, probs.options());
      }
    }
    r.probs.slice(1, h0, h0 + n).copy_(probs);
  }
  at::Tensor out = outs.size() == 1 ? outs.front() : at::cat(outs, 1);  // [B, H, T, d]
  outs.clear();
  if (ablatedPerBatch)
    for (std::int64_t b = 0; b < B; ++b)
      out[b][(*ablatedPerBatch)[static_cast<std::size_t>(b)]].zero_();
  for (const AttentionEdit& e : o.edits) {
    if (e.kind != AttentionEdit::Kind::AblateHeadOutput || !applies(e.layers, l)) continue;
    for (std::int64_t head = 0; head < H; ++head)
      if (applies(e.heads, static_cast<int>(head))) out.select(1, head).zero_();
  }
  r.output = linear(out.transpose(1, 2).reshape({B, T, H * d}), W.o_w, W.o_b);
  r.queries = q;
  r.keys = k;
  r.values = v;
  return r;
}

at::Tensor mlp(const ModelConfig& c, const LayerWeights& W, const at::Tensor& h) {
  if (c.gated_mlp)
    return linear(activate(c.activation, linear(h, W.gate_w, W.gate_b)) * linear(h, W.up_w, W.up_b),
                  W.down_w, W.down_b);
  return linear(activate(c.activation, linear(h, W.up_w, W.up_b)), W.down_w, W.down_b);
}

// The input of layer l's attention, given the residual stream x entering it.
at::Tensor attention_input(const ModelImpl& m, int l, const at::Tensor& x) {
  const LayerWeights& W = m.weights.layers[static_cast<std::size_t>(l)];
  if (m.config.layout == BlockLayout::PostNorm) return x;
  return norm(m.config, x, W.attn_norm_w, W.attn_norm_b);
}

at::Tensor layer_forward(const ModelImpl& m, int l, const at::Tensor& x, const RunOptions& o,
                         const Rope& rope, AttentionResult& a, bool keepMaps,
                         const std::vector<int>* ablatedPerBatch = nullptr) {
  const ModelConfig& c = m.config;
  const LayerWeights& W = m.weights.layers[static_cast<std::size_t>(l)];
  const at::Tensor h = attention_input(m, l, x);
  a = attention(m, l, h, o, rope, keepMaps, ablatedPerBatch);
  switch (c.layout) {
    case BlockLayout::PreNorm: {
      const at::Tensor y = x + a.output;
      return y + mlp(c, W, norm(c, y, W.mlp_norm_w, W.mlp_norm_b));
    }
    case BlockLayout::Parallel: {
      const at::Tensor h2 = c.parallel_shares_norm ? h : norm(c, x, W.mlp_norm_w, W.mlp_norm_b);
      return x + a.output + mlp(c, W, h2);
    }
    case BlockLayout::PostNorm: {
      const at::Tensor y = norm(c, x + a.output, W.attn_norm_w, W.attn_norm_b);
      return norm(c, y + mlp(c, W, y), W.mlp_norm_w, W.mlp_norm_b);
    }
    case BlockLayout::Sandwich: {
      const at::Tensor y = x + norm(c, a.output, W.attn_out_norm_w, at::Tensor());
      const at::Tensor f = mlp(c, W, norm(c, y, W.mlp_norm_w, at::Tensor()));
      return y + norm(c, f, W.mlp_out_norm_w, at::Tensor());
    }
  }
  return x;
}

}  // namespace

namespace internal {

at::Tensor embed_batch(const ModelImpl& m, const at::Tensor& idsIn, const at::Tensor& types,
                       int shift) {
  const ModelConfig& c = m.config;
  const ModelWeights& W = m.weights;
  const at::Tensor ids = idsIn.to(m.device);
  const std::int64_t B = ids.size(0), T = ids.size(1);
  // Rows gathered first, then widened: only the input's rows become float32.
  at::Tensor x =
      internal::weight_as(W.embed.index_select(0, ids.reshape({-1})), m.compute).view({B, T, -1});
  if (c.embedding_scale != 1.0) x = x * static_cast<float>(c.embedding_scale);
  if (W.pos_embed.defined()) {
    at::Tensor pos;
    if (c.position_offset > 0) {
      // RoBERTa: padding tokens sit at padding_idx, the others count up from padding_idx + 1.
      const std::int64_t pad = c.pad_token_id.value_or(1);
      const at::Tensor real = ids.ne(pad).to(at::kLong);
      pos = at::cumsum(real, 1) * real + pad;
    } else {
      pos = (at::arange(T, ids.options()) + shift).unsqueeze(0).expand({B, T});
    }
    x = x + weight_like(W.pos_embed.index_select(0, pos.reshape({-1})), x).view({B, T, -1});
  }
  if (W.type_embed.defined()) {
    const at::Tensor t = types.defined() ? types.to(m.device) : at::zeros({B, T}, ids.options());
    x = x + weight_like(W.type_embed.index_select(0, t.reshape({-1})), x).view({B, T, -1});
  }
  if (W.emb_norm_w.defined()) x = layer_norm_f32(x, W.emb_norm_w, W.emb_norm_b, c.norm_eps);
  return x;
}

}  // namespace internal

namespace {

at::Tensor embed(const ModelImpl& m, const std::vector<int>& ids, const RunOptions& o) {
  const auto T = static_cast<std::int64_t>(ids.size());
  at::Tensor idx = at::empty({1, T}, at::kLong);
  for (std::int64_t i = 0; i < T; ++i) idx[0][i] = ids[static_cast<std::size_t>(i)];
  at::Tensor types;
  if (m.weights.type_embed.defined()) {
    types = at::zeros({1, T}, at::kLong);
    for (std::size_t i = 0; i < o.token_type_ids.size() && i < static_cast<std::size_t>(T); ++i)
      types[0][static_cast<std::int64_t>(i)] = o.token_type_ids[i];
  }
  at::Tensor x = internal::embed_batch(m, idx, types, o.position_shift);
  if (o.embedding_noise) {
    const EmbeddingNoise& n = *o.embedding_noise;
    if (n.position < 0 || n.position >= T)
      throw ModelRunError("embedding noise: position " + std::to_string(n.position) +
                          " is outside the " + std::to_string(T) + " tokens");
    if (!(n.sigma >= 0.0)) throw ModelRunError("embedding noise: sigma must be >= 0");
    // Deterministic on every device: drawn here, not by torch's generator.
    std::mt19937_64 rng(n.seed);
    std::normal_distribution<double> g(0.0, 1.0);
    const std::int64_t D = x.size(2);
    at::Tensor direction = at::empty({D}, at::kFloat);
    double norm2 = 0;
    for (std::int64_t k = 0; k < D; ++k) {
      const double v = g(rng);
      direction[k] = static_cast<float>(v);
      norm2 += v * v;
    }
    const at::Tensor row = x[0][n.position];
    const double scale = n.sigma * row.norm().item<double>() / std::sqrt(std::max(norm2, 1e-300));
    x = x.clone();
    x[0][n.position] += direction.to(x.device()) * static_cast<float>(scale);
  }
  return x;
}

// h [.., D] times the output head [vocab, D]^T. A head kept in a reduced
// dtype is widened a block of rows at a time: a 150k-word head as float32
// would be 2 GB for a 7B model, a block is 64 MB.
at::Tensor vocabulary_projection(const at::Tensor& h, const at::Tensor& w, const at::Tensor& b) {
  if (w.scalar_type() == h.scalar_type()) return linear(h, w, b);
  const std::int64_t V = w.size(0), D = w.size(1);
  const std::int64_t rows = std::max<std::int64_t>(1, (std::int64_t{64} << 20) / (D * 4));
  if (rows >= V) return linear(h, w, b);
  std::vector<std::int64_t> shape(h.sizes().begin(), h.sizes().end());
  shape.back() = V;
  at::Tensor out = at::empty(shape, h.options());
  for (std::int64_t first = 0; first < V; first += rows) {
    const std::int64_t n = std::min(rows, V - first);
    out.narrow(-1, first, n)
        .copy_(linear(h, w.narrow(0, first, n), b.defined() ? b.narrow(0, first, n) : b));
  }
  return out;
}

at::Tensor output_logits(const ModelImpl& m, const at::Tensor& x) {
  const ModelConfig& c = m.config;
  const ModelWeights& W = m.weights;
  if (!W.lm_head_w.defined()) return {};
  at::Tensor h = x;
  if (c.causal) {
    h = norm(c, x, W.final_norm_w, W.final_norm_b);
  } else {
    h = activate(c.activation, linear(x, W.mlm_dense_w, W.mlm_dense_b));
    h = layer_norm_f32(h, W.mlm_norm_w, W.mlm_norm_b, c.norm_eps);
  }
  at::Tensor logits = vocabulary_projection(h, W.lm_head_w, W.lm_head_b);
  if (c.final_softcap > 0.0) logits = at::tanh(logits / c.final_softcap) * c.final_softcap;
  return logits;
}

// The capture of batch entry `b`; takes the maps' storage where there is one.
LayerCapture capture_of(const ModelConfig& c, int l, AttentionResult& a, int b = 0) {
  LayerCapture cap;
  cap.layer = l;
  cap.heads = c.num_heads;
  cap.tokens = static_cast<int>(a.probs.size(2));
  cap.head_dim = c.head_dim;
  cap.causal = c.causal;
  if (!a.probsStorage.empty()) {
    cap.attention = std::move(a.probsStorage);
    a.probs.reset();
  } else {
    cap.attention = to_vector(a.probs[b]);
  }
  cap.queries = to_vector(a.queries[b]);
  cap.keys = to_vector(a.keys[b]);
  cap.values = to_vector(a.values[b]);
  return cap;
}

class Recomputer : public LayerRecomputer {
 public:
  Recomputer(std::shared_ptr<const ModelImpl> impl, RunOptions options)
      : impl_(std::move(impl)), options_(std::move(options)) {}

  LayerCapture recompute(const Trace& trace, int l) const override {
    LayerCapture whole;
    recomputeHeads(trace, l, impl_->config.num_heads,
                   [&whole](LayerCapture&& group) { whole = std::move(group); });
    return whole;
  }

  // The maps only (no mixing, no output projection), in the chunks the pass
  // computes them in (a group is a whole number of chunks, so the batches of
  // the matrix products are the pass's): the same numbers as the pass. `each`
  // runs outside the torch guards (a group's analysis takes minutes, and the
  // guards set process-wide state).
  void recomputeHeads(const Trace& trace, int l, int groupHeads,
                      const std::function<void(LayerCapture&&)>& each) const override {
    const ModelConfig& c = impl_->config;
    const std::int64_t T = trace.tokens(), H = c.num_heads;
    const std::int64_t chunk = heads_per_chunk(1, H, T, options_.attention_chunk_bytes);
    const std::int64_t group =
        std::min(H, std::max(chunk, std::clamp<std::int64_t>(groupHeads, 1, H) / chunk * chunk));
    HeadProjections p;
    Visibility vis;
    {
      c10::InferenceMode guard;
      const ComputeThreads computeThreads(impl_->compute);
      const std::span<const float> r = trace.residual(l);
      const at::Tensor x =
          at::from_blob(const_cast<float*>(r.data()), {1, T, trace.hiddenSize()}, at::kFloat)
              .clone()
              .to(impl_->device)
              .to(impl_->compute);
      const Rope rope = rope_tables(c, options_, static_cast<int>(T), impl_->device);
      p = head_projections(*impl_, l, attention_input(*impl_, l, x), rope);
      vis = visibility(c, l, T, impl_->device);
    }
    for (std::int64_t h0 = 0; h0 < H; h0 += group) {
      const std::int64_t n = std::min(group, H - h0);
      LayerCapture cap;
      cap.layer = l;
      cap.first_head = static_cast<int>(h0);
      cap.heads = static_cast<int>(n);
      cap.tokens = static_cast<int>(T);
      cap.head_dim = c.head_dim;
      cap.causal = c.causal;
      cap.attention.resize(static_cast<std::size_t>(n * T * T));
      {
        c10::InferenceMode guard;
        const ComputeThreads computeThreads(impl_->compute);
        const at::Tensor maps = at::from_blob(cap.attention.data(), {1, n, T, T}, at::kFloat);
        for (std::int64_t c0 = 0; c0 < n; c0 += chunk) {
          const std::int64_t m = std::min(chunk, n - c0);
          const std::int64_t first = h0 + c0;
          maps.slice(1, c0, c0 + m)
              .copy_(head_probabilities(c, l, p.q.slice(1, first, first + m),
                                        p.k.slice(1, first, first + m), options_, vis, first));
        }
        cap.queries = to_vector(p.q[0].slice(0, h0, h0 + n));
        cap.keys = to_vector(p.k[0].slice(0, h0, h0 + n));
        cap.values = to_vector(p.v[0].slice(0, h0, h0 + n));
      }
      each(std::move(cap));
    }
  }

 private:
  std::shared_ptr<const ModelImpl> impl_;
  RunOptions options_;
};

}  // namespace

namespace internal {

at::Tensor forward_logits(const ModelImpl& m, const at::Tensor& ids) {
  const RunOptions plain;
  const Rope rope = rope_tables(m.config, plain, static_cast<int>(ids.size(1)), m.device);
  at::Tensor x = embed_batch(m, ids);
  for (int l = 0; l < m.config.num_layers; ++l) {
    AttentionResult a;
    x = layer_forward(m, l, x, plain, rope, a, false);
  }
  return output_logits(m, x);
}

}  // namespace internal

std::shared_ptr<Model> torch_backend::load_model(const fs::path& folder,
                                                 const LoadOptions& options) {
  auto impl = std::make_shared<ModelImpl>();
  impl->folder = folder;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) throw ModelLoadError(folder.string() + ": not a folder");
  if (!input_file_present(folder, "config.json"))
    throw ModelLoadError((folder / "config.json").string() +
                         ": missing (not a Hugging Face model folder?)");
  impl->config = model_config_read(input_file_confine(folder, "config.json"));
  if (options.device == "cuda") {
    if (!at::hasCUDA())
      throw ModelLoadError("device cuda: the linked libtorch has no CUDA support (use cpu)");
    impl->device = at::Device(at::kCUDA);
  } else if (options.device != "cpu") {
    throw ModelLoadError("device \"" + options.device + "\": use cpu or cuda");
  }
  impl->deviceName = options.device;
  const std::size_t need = model_memory_estimate(folder, options.trainable);
  const std::size_t limit =
      options.memory_limit_bytes ? options.memory_limit_bytes : system_available_memory();
  if (limit > 0 && need > limit)
    throw ModelLoadError(folder.string() + ": needs about " + gib(static_cast<double>(need)) +
                         " of memory, but only " + gib(static_cast<double>(limit)) +
                         " is available");
  if (options.trainable) {
    impl->weights =
        internal::weights_load(folder, impl->config, impl->device, true, options.progress);
  } else {
    c10::InferenceMode guard;
    impl->weights =
        internal::weights_load(folder, impl->config, impl->device, false, options.progress);
    // Stored precision: the dtype of the layers' weights, when reduced.
    if (options.precision == ComputePrecision::Stored && !impl->weights.layers.empty()) {
      const at::Tensor& q = impl->weights.layers.front().q_w;
      if (q.defined() && (q.scalar_type() == at::kBFloat16 || q.scalar_type() == at::kHalf))
        impl->compute = q.scalar_type();
      // Some builds lack a dtype's kernels on a device (Debian's libtorch 1.13
      // has no float16 matrix product on the CPU): refuse now, not mid-pass.
      if (impl->compute != at::kFloat) {
        try {
          const at::Tensor probe =
              at::ones({2, 2}, at::TensorOptions().dtype(impl->compute).device(impl->device));
          (void)at::linear(probe, probe);
        } catch (const c10::Error&) {
          throw ModelLoadError(folder.string() +
                               ": --precision stored: the linked libtorch "
                               "cannot compute in " +
                               std::string(c10::toString(impl->compute)) + " on " + options.device +
                               " (use float32)");
        }
      }
    }
  }
  return ModelAccess::wrap(std::move(impl));
}

const ModelConfig& TorchModel::config() const { return impl_->config; }
const fs::path& TorchModel::folder() const { return impl_->folder; }
const std::string& TorchModel::device() const { return impl_->deviceName; }
std::string TorchModel::computeDtype() const {
  switch (impl_->compute) {
    case at::kBFloat16:
      return "bfloat16";
    case at::kHalf:
      return "float16";
    default:
      return "float32";
  }
}
std::size_t TorchModel::parameterCount() const { return impl_->weights.parameter_count; }
std::size_t TorchModel::weightBytes() const { return impl_->weights.resident_bytes; }

namespace {

// The projection matrices of layer l, by the names WeightMatrix uses.
std::vector<std::pair<const char*, const at::Tensor*>> projections(const LayerWeights& W) {
  std::vector<std::pair<const char*, const at::Tensor*>> all = {
      {"q", &W.q_w},       {"k", &W.k_w},   {"v", &W.v_w},      {"o", &W.o_w},
      {"gate", &W.gate_w}, {"up", &W.up_w}, {"down", &W.down_w}};
  std::erase_if(all, [](const auto& p) { return !p.second->defined(); });
  return all;
}

// Fills m.values: F32 weights viewed where they lie (memory-mapped: no 300 MB
// copy for GPT-2 small), others widened into m.converted.
void fill_values(WeightMatrix& m, const at::Tensor& t) {
  if (t.scalar_type() == at::kFloat && t.is_contiguous() && t.device().is_cpu()) {
    m.values = std::span<const float>(t.data_ptr<float>(), static_cast<std::size_t>(t.numel()));
  } else {
    m.converted = to_vector(t.detach());
    m.values = m.converted;
  }
}

}  // namespace

std::vector<WeightMatrix> TorchModel::weightMatrices(bool values) const {
  c10::InferenceMode guard;
  std::vector<WeightMatrix> out;
  for (int l = 0; l < impl_->config.num_layers; ++l) {
    for (const auto& [name, t] : projections(impl_->weights.layers[static_cast<std::size_t>(l)])) {
      WeightMatrix m;
      m.name = name;
      m.layer = l;
      m.rows = static_cast<int>(t->size(0));
      m.cols = static_cast<int>(t->size(1));
      out.push_back(std::move(m));
      // A later move of the matrix keeps `converted`'s buffer, so the span stays valid.
      if (values) fill_values(out.back(), *t);
    }
  }
  return out;
}

WeightMatrix TorchModel::weightMatrix(int layer, const std::string& name) const {
  c10::InferenceMode guard;
  if (layer < 0 || layer >= impl_->config.num_layers)
    throw ModelRunError("weight matrix: layer " + std::to_string(layer) + " outside the model's " +
                        std::to_string(impl_->config.num_layers) + " layers");
  for (const auto& [n, t] : projections(impl_->weights.layers[static_cast<std::size_t>(layer)])) {
    if (name != n) continue;
    WeightMatrix m;
    m.name = n;
    m.layer = layer;
    m.rows = static_cast<int>(t->size(0));
    m.cols = static_cast<int>(t->size(1));
    fill_values(m, *t);
    return m;
  }
  throw ModelRunError("weight matrix: layer " + std::to_string(layer) + " has no \"" + name +
                      "\" projection");
}

namespace {

// Non-finite values in the residual stream mean the numbers of every panel
// would be NaN: stop and say why, naming a weight tensor that holds NaN or Inf
// when there is one (a corrupt or hostile file), else the layer that overflowed.
void check_finite(const ModelImpl& m, const at::Tensor& x, int layer) {
  if (at::isfinite(x).all().item<bool>()) return;
  for (const auto& [name, t] : m.weights.named)
    if (!at::isfinite(t).all().item<bool>())
      throw ModelRunError(m.folder.string() + ": tensor \"" + name +
                          "\" holds NaN or infinite values; the model cannot be run");
  throw ModelRunError("layer " + std::to_string(layer) +
                      ": the forward pass produced NaN or infinite values (check the norm "
                      "epsilons and scales in config.json)");
}

// Layers `from`.. of a pass whose residual stream entering `from` is `x`
// ([B, T, D], one batch entry per trace), then the output head: fills the
// traces (residuals and captures as `options` asks).
void finish_run(const std::shared_ptr<ModelImpl>& impl, const std::vector<Trace*>& traces,
                at::Tensor x, int from, bool keepAll, const RunOptions& options,
                const ProgressFn& progress) {
  const ModelConfig& c = impl->config;
  const int B = static_cast<int>(traces.size());
  x = x.to(impl->compute);  // a resumed pass starts from a float32 residual
  const Rope rope = rope_tables(c, options, traces.front()->tokens(), impl->device);
  for (int l = from; l < c.num_layers; ++l) {
    if (options.capture)
      for (int b = 0; b < B; ++b) TraceBuilder::residual(*traces[b], l) = to_vector(x[b]);
    AttentionResult a;
    x = layer_forward(*impl, l, x, options, rope, a, keepAll);
    check_finite(*impl, x, l);
    if (keepAll)
      for (int b = 0; b < B; ++b) TraceBuilder::store(*traces[b], l, capture_of(c, l, a, b));
    if (progress && !progress(static_cast<double>(l + 1 - from) / (c.num_layers - from + 1)))
      throw RunCancelled();
  }
  if (options.capture)
    for (int b = 0; b < B; ++b) TraceBuilder::residual(*traces[b], c.num_layers) = to_vector(x[b]);
  if (options.logits) {
    const at::Tensor logits = output_logits(*impl, x);
    if (logits.defined())
      for (int b = 0; b < B; ++b) TraceBuilder::logits(*traces[b]) = to_vector(logits[b]);
  }
  if (options.capture)
    for (Trace* trace : traces)
      TraceBuilder::setRecomputer(*trace, std::make_shared<Recomputer>(impl, options));
  release_freed_memory();  // the pass's temporaries (cpu_runtime.h)
  if (progress) progress(1.0);
}

// Whether every layer's capture of a T-token pass fits the budget.
bool captures_fit(const ModelConfig& c, int T, const RunOptions& options) {
  const std::size_t perLayer =
      sizeof(float) * static_cast<std::size_t>(c.num_heads) * static_cast<std::size_t>(T) *
      (static_cast<std::size_t>(T) + 3 * static_cast<std::size_t>(c.head_dim));
  return options.capture &&
         perLayer * static_cast<std::size_t>(c.num_layers) <= options.capture_budget_bytes;
}

}  // namespace

namespace {

// A pass can resume at `layer` (0..lastLayer) from the residual stream `base` captured there.
void check_resumable(const ModelConfig& c, const Trace& base, int layer, int lastLayer,
                     const std::string& what) {
  if (layer < 0 || layer > lastLayer)
    throw ModelRunError(what + ": layer " + std::to_string(layer) + " outside the model's " +
                        std::to_string(c.num_layers) + " layers");
  if (base.layers() != c.num_layers || base.hiddenSize() != c.hidden_size)
    throw ModelRunError(what + ": the trace comes from a different model");
  if (base.residual(layer).empty())
    throw ModelRunError(what + ": the trace kept no residual stream (run with capture)");
}

}  // namespace

Trace TorchModel::runFrom(const Trace& base, int layer, const RunOptions& options,
                          const ProgressFn& progress) const {
  const ModelConfig& c = impl_->config;
  check_resumable(c, base, layer, c.num_layers, "run from layer");
  if (options.drop_first_token || options.embedding_noise)
    throw ModelRunError("run from layer: input changes need a full run");
  const std::vector<int>& ids = base.ids();
  const int T = static_cast<int>(ids.size());
  c10::InferenceMode guard;
  const ComputeThreads computeThreads(impl_->compute);
  Trace trace =
      TraceBuilder::make(c.num_layers, c.num_heads, c.hidden_size, c.vocab_size, c.causal, ids);
  const bool keepAll = captures_fit(c, T, options);
  if (options.capture)
    for (int l = 0; l < layer; ++l) {
      const std::span<const float> r = base.residual(l);
      TraceBuilder::residual(trace, l).assign(r.begin(), r.end());
      if (keepAll && base.layerStored(l)) TraceBuilder::store(trace, l, base.layer(l));
    }
  const std::span<const float> start = base.residual(layer);
  at::Tensor x = at::from_blob(const_cast<float*>(start.data()), {1, T, c.hidden_size}, at::kFloat)
                     .clone()
                     .to(impl_->device);
  finish_run(impl_, {&trace}, x, layer, keepAll, options, progress);
  return trace;
}

std::vector<std::vector<float>> TorchModel::headAblationLogits(const Trace& base, int layer) const {
  const ModelConfig& c = impl_->config;
  check_resumable(c, base, layer, c.num_layers - 1, "head ablation");
  const int H = c.num_heads, T = base.tokens();
  std::vector<std::vector<float>> out(static_cast<std::size_t>(H));
  if (!impl_->weights.lm_head_w.defined()) return out;
  c10::InferenceMode guard;
  const ComputeThreads computeThreads(impl_->compute);
  const RunOptions plain;
  const Rope rope = rope_tables(c, plain, T, impl_->device);
  const std::span<const float> start = base.residual(layer);
  const at::Tensor x0 =
      at::from_blob(const_cast<float*>(start.data()), {1, T, c.hidden_size}, at::kFloat)
          .to(impl_->device)
          .to(impl_->compute);
  // Heads per batch: every head, unless the batch's logits would pass 256 MB.
  const std::size_t logitBytes =
      static_cast<std::size_t>(T) * static_cast<std::size_t>(c.vocab_size) * sizeof(float);
  const int perBatch = static_cast<int>(std::clamp<std::size_t>(
      (std::size_t{256} << 20) / std::max<std::size_t>(logitBytes, 1), 1, H));
  for (int first = 0; first < H; first += perBatch) {
    const int n = std::min(perBatch, H - first);
    std::vector<int> ablated(static_cast<std::size_t>(n));
    std::iota(ablated.begin(), ablated.end(), first);
    at::Tensor x = x0.expand({n, T, c.hidden_size}).contiguous();
    for (int l = layer; l < c.num_layers; ++l) {
      AttentionResult a;
      x = layer_forward(*impl_, l, x, plain, rope, a, false, l == layer ? &ablated : nullptr);
      check_finite(*impl_, x, l);
    }
    const at::Tensor logits = output_logits(*impl_, x);
    for (int b = 0; b < n; ++b) out[static_cast<std::size_t>(first + b)] = to_vector(logits[b]);
  }
  return out;
}

namespace {

// Refuses input the model cannot run (ModelRunError naming the problem).
void check_input(const ModelConfig& c, const std::vector<int>& ids, const RunOptions& options) {
  if (ids.empty()) throw ModelRunError("input: no tokens to run");
  const int T = static_cast<int>(ids.size());
  if (options.position_shift < 0) throw ModelRunError("position shift: must not be negative");
  const int maxTokens = c.max_positions - c.position_offset -
                        (c.positions == PositionKind::Learned ? options.position_shift : 0);
  if (T > maxTokens)
    throw ModelRunError("input: " + std::to_string(T) +
                        " tokens, more than the model's maximum of " + std::to_string(maxTokens) +
                        " positions");
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= c.vocab_size)
      throw ModelRunError("input: token id " + std::to_string(ids[i]) + " at position " +
                          std::to_string(i) + " is outside the vocabulary (0.." +
                          std::to_string(c.vocab_size - 1) + ")");
  for (int t : options.token_type_ids)
    if (t < 0 || t >= std::max(1, c.type_vocab_size))
      throw ModelRunError("input: token type " + std::to_string(t) + " is outside 0.." +
                          std::to_string(std::max(1, c.type_vocab_size) - 1));
}

}  // namespace

Trace TorchModel::run(const std::vector<int>& given, const RunOptions& givenOptions,
                      const ProgressFn& progress) const {
  if (givenOptions.drop_first_token && !given.empty()) {
    RunOptions options = givenOptions;
    options.drop_first_token = false;
    if (!options.token_type_ids.empty())
      options.token_type_ids.erase(options.token_type_ids.begin());
    return run(std::vector<int>(given.begin() + 1, given.end()), options, progress);
  }
  const std::vector<int>& ids = given;
  const RunOptions& options = givenOptions;
  const ModelConfig& c = impl_->config;
  check_input(c, ids, options);
  const int T = static_cast<int>(ids.size());

  c10::InferenceMode guard;
  const ComputeThreads computeThreads(impl_->compute);
  Trace trace =
      TraceBuilder::make(c.num_layers, c.num_heads, c.hidden_size, c.vocab_size, c.causal, ids);
  const bool keepAll = captures_fit(c, T, options);

  finish_run(impl_, {&trace}, embed(*impl_, ids, options), 0, keepAll, options, progress);
  return trace;
}

std::vector<Trace> TorchModel::runBatch(const std::vector<std::vector<int>>& inputs,
                                        const RunOptions& options) const {
  const ModelConfig& c = impl_->config;
  if (inputs.empty()) return {};
  if (!options.edits.empty() || options.embedding_noise || options.drop_first_token ||
      !options.token_type_ids.empty())
    throw ModelRunError("batched run: edits, noise, token types and dropped tokens need run()");
  const std::size_t T = inputs.front().size();
  for (const auto& ids : inputs) {
    if (ids.size() != T) throw ModelRunError("batched run: the inputs differ in length");
    check_input(c, ids, options);
  }
  const auto B = static_cast<std::int64_t>(inputs.size());
  c10::InferenceMode guard;
  const ComputeThreads computeThreads(impl_->compute);
  at::Tensor idx = at::empty({B, static_cast<std::int64_t>(T)}, at::kLong);
  auto* out = idx.data_ptr<std::int64_t>();
  for (const auto& ids : inputs)
    for (int id : ids) *out++ = id;
  std::vector<Trace> traces;
  for (const auto& ids : inputs)
    traces.push_back(
        TraceBuilder::make(c.num_layers, c.num_heads, c.hidden_size, c.vocab_size, c.causal, ids));
  std::vector<Trace*> pointers;
  for (Trace& t : traces) pointers.push_back(&t);
  // The capture budget holds for the whole batch.
  RunOptions budget = options;
  budget.capture_budget_bytes = options.capture_budget_bytes / static_cast<std::size_t>(B);
  const bool keepAll = captures_fit(c, static_cast<int>(T), budget);
  finish_run(impl_, pointers, internal::embed_batch(*impl_, idx, {}, options.position_shift), 0,
             keepAll, options, {});
  return traces;
}

}  // namespace sinkscope::models
