#pragma once
// Running a Hugging Face model folder with exact attention capture.
// Nothing torch-typed crosses this header: captured tensors come back as
// plain contiguous float buffers.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>
#include "models/input_files.h"

#include "analysis/attention_matrix.h"
#include "models/model_config.h"

namespace sinkscope::models {

// Progress and cancel as a plain callback: report a fraction in [0, 1];
// returning false aborts the work (it then throws RunCancelled).
using ProgressFn = std::function<bool(double)>;

class ModelLoadError : public ModelInputError {
 public:
  using ModelInputError::ModelInputError;
};
class ModelRunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
class RunCancelled : public std::runtime_error {
 public:
  RunCancelled() : std::runtime_error("cancelled") {}
};

// The precision layers compute in. Float32 (the default): every weight is
// widened to float32 right before use, so BF16 and F16 folders give the
// numbers of their float32 expansion. Stored: as Hugging Face's eager
// attention runs a model loaded in its stored dtype (torch_dtype = BF16 or
// F16): projections, the MLP and the residual stream in that dtype, norms and
// softmax in float32; the captured attention is the float32 softmax. The same
// as Float32 for F32 folders and for trainable loads.
enum class ComputePrecision { Float32, Stored };

struct LoadOptions {
  std::string device = "cpu";  // "cpu" or "cuda" (when the linked libtorch has CUDA)
  ComputePrecision precision = ComputePrecision::Float32;
  // Refuse to load when the estimate exceeds this many bytes (0 = the
  // machine's available memory).
  std::size_t memory_limit_bytes = 0;
  // Own every weight (no memory map aliasing) and record gradients: for training.
  bool trainable = false;
  // Called with the fraction of the weights loaded; returning false stops the
  // load (it then throws RunCancelled). The GUI's Cancel button.
  ProgressFn progress;
};

// Edits of the attention computation (metrics.md s. 5 and 8). Layers and
// heads: empty = all.
struct AttentionEdit {
  enum class Kind {
    ZeroKeysAfterSoftmax,   // zero A[.][key] for the keys, renormalise each row
    MaskKeysBeforeSoftmax,  // scores of the keys set to -inf before softmax
    AblateHeadOutput,       // the head's output (A V) replaced by zeros
  } kind = Kind::ZeroKeysAfterSoftmax;
  std::vector<int> layers;
  std::vector<int> heads;
  std::vector<int> keys;  // unused by AblateHeadOutput
};

// Gaussian noise added to one token's input embedding (perturbation
// sensitivity, metrics.md s. 5): a standard normal direction scaled to
// `sigma` times the norm of that embedding, drawn from `seed`.
struct EmbeddingNoise {
  int position = 0;
  double sigma = 0.1;
  std::uint64_t seed = 1;
};

struct RunOptions {
  std::vector<AttentionEdit> edits;
  std::optional<EmbeddingNoise> embedding_noise;
  std::optional<double> rope_theta;  // override of the RoPE base
  double ntk_scale = 1.0;            // NTK-aware scaling: base * s^(d / (d - 2))
  std::vector<int> token_type_ids;   // encoders; empty = all 0
  bool drop_first_token = false;     // run without position 0 (BOS removal, metrics.md s. 5)
  int position_shift = 0;            // positions start here instead of 0 (RoPE and learned)
  // Full per-layer captures are kept while they fit this budget; beyond it
  // only each layer's input is kept and the rest is recomputed on demand.
  std::size_t capture_budget_bytes = std::size_t{2} << 30;
  // The most bytes of float32 maps computed at once: heads are taken in
  // chunks within it (at least one), so a long input's pass holds a few
  // heads' scores at a time rather than every head's. The numbers do not
  // depend on it: each head's maps are products of its own.
  std::size_t attention_chunk_bytes = std::size_t{64} << 20;
  // false: a plain forward pass that keeps nothing but the logits (the
  // benchmark's reference point; layer() is then unavailable).
  bool capture = true;
  // false: no output head (final norm and the vocabulary projection, a third
  // of a GPT-2-small pass at 64 tokens) for callers that read only the
  // attention; logits() is then empty.
  bool logits = true;

  // The options of a pass whose caller reads only attention, values and residuals.
  static RunOptions attention_only() {
    RunOptions o;
    o.logits = false;
    return o;
  }
};

// One layer's attention, as computed in the forward pass.
struct LayerCapture {
  int layer = 0;
  // A capture may hold a group of the layer's heads (Trace::forEachHeadGroup):
  // the model's heads first_head .. first_head + heads - 1, read here as 0 .. heads - 1.
  int first_head = 0;
  int heads = 0;
  int tokens = 0;
  int head_dim = 0;
  bool causal = true;
  std::vector<float> attention;  // [heads][T][T] probabilities
  std::vector<float> queries;    // [heads][T][head_dim], after RoPE
  std::vector<float> keys;    // [heads][T][head_dim], after RoPE, of the KV group each head reads
  std::vector<float> values;  // [heads][T][head_dim], of the KV group each head reads

  // Views into this capture; not callable on a temporary (the view would dangle).
  analysis::AttentionView attentionOf(int head) const&;
  analysis::AttentionView attentionOf(int head) const&& = delete;
  std::span<const float> valuesOf(int head) const&;
  std::span<const float> valuesOf(int head) const&& = delete;
  // The mean of the heads' maps.
  analysis::AttentionMatrix headAverage() const;
  // Adds the heads' maps to `sum` (tokens x tokens) in head order: the sum
  // headAverage divides, also when a layer comes a group of heads at a time.
  void addMapsTo(std::vector<float>& sum) const;
};

class LayerRecomputer;

// The result of one forward pass.
class Trace {
 public:
  int layers() const { return numLayers_; }
  int heads() const { return numHeads_; }
  int tokens() const { return static_cast<int>(ids_.size()); }
  int hiddenSize() const { return hidden_; }
  int vocabSize() const { return vocab_; }
  bool causal() const { return causal_; }
  const std::vector<int>& ids() const { return ids_; }

  // Residual stream entering layer l (l = layers() gives the last layer's
  // output, before the final norm): [T][hidden].
  std::span<const float> residual(int l) const;
  // Next-token (decoders) or masked-token (encoders with an LM head) logits,
  // [T][vocab]; empty when the folder has no output head.
  const std::vector<float>& logits() const { return logits_; }

  // The layer's attention: stored, or recomputed from residual(l) when the
  // capture budget did not allow keeping it.
  LayerCapture layer(int l) const;
  bool layerStored(int l) const;
  // The stored capture itself (valid while the trace lives), or null when the
  // layer is recomputed: a long input's layer is hundreds of megabytes, too
  // many to copy for reading.
  const LayerCapture* storedLayer(int l) const;
  // The layer's heads in consecutive groups of at most `groupHeads`, in head
  // order: `each` gets a capture of one group's heads (LayerCapture::
  // first_head). A stored layer is copied a group at a time; a recomputed one
  // computes its queries, keys and values once and then one group's maps at a
  // time, so that a long input's layer (2 GB at 4096 tokens on a 1B model)
  // is never held whole.
  void forEachHeadGroup(int l, int groupHeads,
                        const std::function<void(LayerCapture&&)>& each) const;

 private:
  friend class TraceBuilder;
  int numLayers_ = 0, numHeads_ = 0, hidden_ = 0, vocab_ = 0;
  bool causal_ = true;
  std::vector<int> ids_;
  std::vector<std::vector<float>> residuals_;  // layers + 1 entries
  std::vector<std::optional<LayerCapture>> stored_;
  std::vector<float> logits_;
  std::shared_ptr<const LayerRecomputer> recompute_;
};

struct WeightMatrix {
  std::string name;  // "q", "k", "v", "o", "gate", "up", "down"
  int layer = 0;
  int rows = 0, cols = 0;         // nn.Linear layout [out, in]
  std::span<const float> values;  // row-major; valid while the Model lives
  std::vector<float> converted;   // the values' storage when the weights are not F32
};

class ModelBackend;  // models/model_backend.h

class Model {
 public:
  // Loads config.json and the safetensors weights (memory-mapped). Throws
  // ModelLoadError / ModelConfigError / SafetensorsError naming the file and
  // the problem, or when the model will not fit in memory. The forward pass
  // lives in the model runtime (models/torch_runtime.h), which brings
  // libtorch into the process on the first load.
  static std::shared_ptr<Model> load(const std::filesystem::path& folder,
                                     const LoadOptions& options = {});
  explicit Model(std::shared_ptr<ModelBackend> backend);  // what a runtime's load makes
  ~Model();

  const ModelConfig& config() const;
  const std::filesystem::path& folder() const;
  const std::string& device() const;
  // The dtype layers compute in: "float32", or "bfloat16" / "float16" for a
  // reduced-precision folder loaded with ComputePrecision::Stored.
  std::string computeDtype() const;
  std::size_t parameterCount() const;
  // Bytes the loaded weights occupy: their stored size where memory-mapped
  // (F32, F16, BF16), float32 where copied (other dtypes, trainable loads).
  std::size_t weightBytes() const;
  // The projection matrices of every layer as float32 (weight spectra): F32
  // weights viewed in place, others converted. Without `values`, names and
  // shapes only (what a cache lookup needs, at no cost). With values, a
  // reduced-precision model is widened whole: for large models take one
  // matrix at a time with weightMatrix().
  std::vector<WeightMatrix> weightMatrices(bool values = true) const;
  // One projection matrix ("q", "k", "v", "o", "gate", "up", "down") of a
  // layer with its values as weightMatrices gives them. Throws ModelRunError
  // for a layer or name the model does not have.
  WeightMatrix weightMatrix(int layer, const std::string& name) const;

  // One forward pass over `ids`. Throws ModelRunError for bad input (empty,
  // longer than the model's positions, ids outside the vocabulary) and
  // RunCancelled when `progress` returns false.
  Trace run(const std::vector<int>& ids, const RunOptions& options = {},
            const ProgressFn& progress = {}) const;

  // Several inputs of one length as one batched pass: element b is
  // run(inputs[b], options) bit for bit (each sequence's matrix products are
  // its own; tests/models/model_forward_test.cpp). Plain passes only: edits, noise,
  // token types and dropped tokens throw ModelRunError, as do inputs of
  // different lengths and everything run() refuses.
  std::vector<Trace> runBatch(const std::vector<std::vector<int>>& inputs,
                              const RunOptions& options = {}) const;

  // The same pass as run(base.ids(), options), starting at `layer` from the
  // residual stream `base` captured there: layers before it are not recomputed
  // (their residuals and stored captures are copied from `base`). Valid when
  // `options` differ from the options `base` was run with only by edits in
  // layers >= `layer` (what interventions on later layers need); the caller
  // guarantees that. Throws ModelRunError when `base` kept no residuals.
  Trace runFrom(const Trace& base, int layer, const RunOptions& options = {},
                const ProgressFn& progress = {}) const;

  // The logits of the pass with head h of `layer` ablated (its output
  // zeroed), for every head h: [heads][T * vocab]. Like runFrom with an
  // AblateHeadOutput edit per head, but the heads run as one batch (several,
  // when T x vocab is large) from the residual stream `base` captured at
  // `layer`: the matrix products see heads x T rows instead of T, which with a
  // large vocabulary's output projection is most of the saving. Throws as
  // runFrom; empty vectors for a model without an output head.
  std::vector<std::vector<float>> headAblationLogits(const Trace& base, int layer) const;

  // The runtime's implementation (the runtime reaches its own state through it).
  const ModelBackend& backend() const { return *backend_; }

 private:
  std::shared_ptr<ModelBackend> backend_;
};

// Bytes needed to load the folder's weights plus a working margin, what
// Model::load compares with the memory limit: the stored size of weights that
// stay memory-mapped (F32, F16, BF16), float32 for the others and for
// trainable loads, and the largest matrix widened while it is used.
std::size_t model_memory_estimate(const std::filesystem::path& folder, bool trainable = false);

// MemAvailable of /proc/meminfo, in bytes (0 when unknown).
std::size_t system_available_memory();

}  // namespace sinkscope::models
