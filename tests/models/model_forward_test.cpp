// The forward pass of every architecture on random-weight folders written in
// the Hugging Face layout: invariants of the captured attention, and one
// layer recomputed by a plain implementation written here (no torch).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <numeric>

#include "models/model.h"
#include "models/model_identity.h"
#include "models/model_writer.h"
#include "models/safetensors.h"

namespace fs = std::filesystem;
using namespace sinkscope::models;

namespace {

fs::path fixture_root() {
  const fs::path root =
      fs::temp_directory_path() / ("sinkscope-model-tests-" + std::to_string(::getpid()));
  fs::create_directories(root);
  return root;
}

fs::path write_fixture(const std::string& type, const std::string& variant = "",
                       const std::function<void(RandomModelSpec&)>& edit = {}) {
  RandomModelSpec spec = random_model_spec_for(type);
  if (edit) edit(spec);
  const fs::path folder = fixture_root() / (type + variant);
  if (!fs::exists(folder / "config.json")) model_folder_write_random(folder, spec);
  return folder;
}

std::vector<int> sample_ids(int T, int vocab) {
  std::vector<int> ids(static_cast<std::size_t>(T));
  for (int i = 0; i < T; ++i) ids[static_cast<std::size_t>(i)] = (i * 37 + 11) % vocab;
  return ids;
}

// ---- a plain re-implementation of one layer's attention ------------------

class PlainWeights {
 public:
  explicit PlainWeights(const fs::path& folder) {
    for (const auto& e : fs::directory_iterator(folder))
      if (e.path().extension() == ".safetensors") files_.push_back(SafetensorsFile::open(e.path()));
  }
  std::vector<float> get(const std::string& name) const {
    for (const auto& f : files_)
      for (const char* p : {"", "model.", "transformer.", "gpt_neox.", "bert.", "roberta."})
        if (auto* t = f.find(p + name)) return tensor_to_f32(*t);
    ADD_FAILURE() << "no tensor " << name;
    return {};
  }
  bool has(const std::string& name) const {
    for (const auto& f : files_)
      for (const char* p : {"", "model.", "transformer.", "gpt_neox.", "bert.", "roberta."})
        if (f.find(p + name)) return true;
    return false;
  }

 private:
  std::vector<SafetensorsFile> files_;
};

using Matrix = std::vector<std::vector<double>>;  // [rows][cols]

// y = W x + b for W stored [out][in] (nn.Linear).
std::vector<double> linear_rows(const std::vector<float>& W, const std::vector<float>& b,
                                const std::vector<double>& x, std::size_t out) {
  const std::size_t in = x.size();
  std::vector<double> y(out, 0.0);
  for (std::size_t o = 0; o < out; ++o) {
    double s = b.empty() ? 0.0 : b[o];
    for (std::size_t i = 0; i < in; ++i) s += W[o * in + i] * x[i];
    y[o] = s;
  }
  return y;
}

std::vector<double> norm_plain(const ModelConfig& c, const std::vector<double>& x,
                               const std::vector<float>& w, const std::vector<float>& b) {
  const std::size_t n = x.size();
  std::vector<double> y(n);
  if (c.norm == NormKind::LayerNorm) {
    double mean = 0, var = 0;
    for (double v : x) mean += v;
    mean /= n;
    for (double v : x) var += (v - mean) * (v - mean);
    var /= n;
    for (std::size_t i = 0; i < n; ++i)
      y[i] = (x[i] - mean) / std::sqrt(var + c.norm_eps) * w[i] + b[i];
  } else {
    double ms = 0;
    for (double v : x) ms += v * v;
    ms /= n;
    const double scale = 1.0 / std::sqrt(ms + c.norm_eps);
    for (std::size_t i = 0; i < n; ++i)
      y[i] = x[i] * scale * (c.norm == NormKind::RmsNormPlusOne ? 1.0 + w[i] : w[i]);
  }
  return y;
}

std::vector<double> inverse_frequencies(const ModelConfig& c) {
  const int rot = c.rotaryDims();
  std::vector<double> inv;
  for (int i = 0; i < rot; i += 2)
    inv.push_back(1.0 / std::pow(c.rope_theta, static_cast<double>(i) / rot));
  const auto& s = c.rope_scaling;
  if (s.kind == RopeScaling::Kind::Llama3) {
    for (double& f : inv) {
      const double wavelen = 2 * std::numbers::pi / f;
      const double lowWavelen = s.original_max_positions / s.low_freq_factor;
      const double highWavelen = s.original_max_positions / s.high_freq_factor;
      if (wavelen < highWavelen) continue;
      if (wavelen > lowWavelen) {
        f /= s.factor;
        continue;
      }
      const double smooth = (s.original_max_positions / wavelen - s.low_freq_factor) /
                            (s.high_freq_factor - s.low_freq_factor);
      f = (1 - smooth) * f / s.factor + smooth * f;
    }
  }
  return inv;
}

// Rotates the first rot dims of a head vector at position pos (rotate-half pairs (i, i + rot/2)).
void rope_plain(const ModelConfig& c, std::vector<double>& v, int pos) {
  if (c.positions != PositionKind::Rope) return;
  const int rot = c.rotaryDims(), half = rot / 2;
  const auto inv = inverse_frequencies(c);
  std::vector<double> out(v);
  for (int i = 0; i < half; ++i) {
    const double a = pos * inv[static_cast<std::size_t>(i)];
    out[i] = v[i] * std::cos(a) - v[i + half] * std::sin(a);
    out[i + half] = v[i + half] * std::cos(a) + v[i] * std::sin(a);
  }
  v = out;
}

// The attention probabilities [H][T][T] of layer l from the residual stream entering it.
std::vector<double> attention_plain(const fs::path& folder, const ModelConfig& c, int l,
                                    const std::vector<double>& residual, int T) {
  const PlainWeights w(folder);
  const std::size_t D = c.hidden_size, H = c.num_heads, KV = c.num_kv_heads, d = c.head_dim;
  const std::string L = std::to_string(l);
  // Per token: q [H*d], k [KV*d] (heads laid out one after another).
  std::vector<std::vector<double>> q(T), k(T);
  std::vector<float> nw, nb;
  if (c.family == Family::Gpt2) {
    nw = w.get("h." + L + ".ln_1.weight");
    nb = w.get("h." + L + ".ln_1.bias");
  } else if (c.family == Family::GptNeoX || c.family == Family::Phi) {
    nw = w.get("layers." + L + ".input_layernorm.weight");
    nb = w.get("layers." + L + ".input_layernorm.bias");
  } else if (c.causal)
    nw = w.get("layers." + L + ".input_layernorm.weight");
  for (int t = 0; t < T; ++t) {
    std::vector<double> x(residual.begin() + t * D, residual.begin() + (t + 1) * D);
    if (c.causal) x = norm_plain(c, x, nw, nb);
    if (c.family == Family::Gpt2) {
      // Conv1D: weight [in][out], out = q | k | v.
      const auto W = w.get("h." + L + ".attn.c_attn.weight");
      const auto b = w.get("h." + L + ".attn.c_attn.bias");
      q[t].assign(D, 0);
      k[t].assign(D, 0);
      for (std::size_t o = 0; o < D; ++o) {
        double sq = b[o], sk = b[D + o];
        for (std::size_t i = 0; i < D; ++i) {
          sq += x[i] * W[i * 3 * D + o];
          sk += x[i] * W[i * 3 * D + D + o];
        }
        q[t][o] = sq;
        k[t][o] = sk;
      }
    } else if (c.family == Family::GptNeoX) {
      // Fused rows ordered [head][q|k|v][d].
      const auto qkv =
          linear_rows(w.get("layers." + L + ".attention.query_key_value.weight"),
                      w.get("layers." + L + ".attention.query_key_value.bias"), x, 3 * D);
      q[t].resize(D);
      k[t].resize(D);
      for (std::size_t h = 0; h < H; ++h)
        for (std::size_t e = 0; e < d; ++e) {
          q[t][h * d + e] = qkv[h * 3 * d + e];
          k[t][h * d + e] = qkv[h * 3 * d + d + e];
        }
    } else if (!c.causal) {
      const std::string p = "encoder.layer." + L + ".attention.self.";
      q[t] = linear_rows(w.get(p + "query.weight"), w.get(p + "query.bias"), x, D);
      k[t] = linear_rows(w.get(p + "key.weight"), w.get(p + "key.bias"), x, D);
    } else {
      const std::string p = "layers." + L + ".self_attn.";
      const auto bias = [&](const char* n) {
        return w.has(p + n) ? w.get(p + n) : std::vector<float>();
      };
      q[t] = linear_rows(w.get(p + "q_proj.weight"), bias("q_proj.bias"), x, H * d);
      k[t] = linear_rows(w.get(p + "k_proj.weight"), bias("k_proj.bias"), x, KV * d);
    }
  }
  std::vector<double> probs(H * T * T, 0.0);
  for (std::size_t h = 0; h < H; ++h) {
    const std::size_t g = h / (H / KV);
    for (int i = 0; i < T; ++i) {
      std::vector<double> qi(q[i].begin() + h * d, q[i].begin() + (h + 1) * d);
      rope_plain(c, qi, i);
      std::vector<double> scores(T, -INFINITY);
      for (int j = 0; j < T; ++j) {
        if (c.causal && j > i) continue;
        if (c.layerSlides(l) && i - j >= c.sliding_window) continue;
        std::vector<double> kj(k[j].begin() + g * d, k[j].begin() + (g + 1) * d);
        rope_plain(c, kj, j);
        double s = 0;
        for (std::size_t e = 0; e < d; ++e) s += qi[e] * kj[e];
        s *= c.attention_scale;
        if (c.scale_by_inverse_layer) s /= (l + 1);
        if (c.attn_softcap > 0) s = std::tanh(s / c.attn_softcap) * c.attn_softcap;
        scores[j] = s;
      }
      const double m = *std::max_element(scores.begin(), scores.end());
      double z = 0;
      for (double& s : scores) z += (s = std::isinf(s) ? 0.0 : std::exp(s - m));
      for (int j = 0; j < T; ++j) probs[(h * T + i) * T + j] = scores[j] / z;
    }
  }
  return probs;
}

class EveryArchitecture : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(EveryArchitecture, CapturedAttentionKeepsItsInvariants) {
  const fs::path folder = write_fixture(GetParam());
  const auto model = Model::load(folder);
  const ModelConfig& c = model->config();
  const int T = 9;
  const Trace trace = model->run(sample_ids(T, c.vocab_size));
  ASSERT_EQ(trace.layers(), c.num_layers);
  ASSERT_EQ(trace.tokens(), T);
  bool anyFuture = false;
  for (int l = 0; l < trace.layers(); ++l) {
    ASSERT_TRUE(trace.layerStored(l));
    const LayerCapture cap = trace.layer(l);
    for (int h = 0; h < cap.heads; ++h) {
      const auto A = cap.attentionOf(h);
      for (int i = 0; i < T; ++i) {
        double sum = 0;
        for (int j = 0; j < T; ++j) {
          const float a = A.at(i, j);
          ASSERT_TRUE(std::isfinite(a));
          sum += a;
          if (c.causal && j > i) {
            EXPECT_EQ(a, 0.0f) << "future key " << i << "," << j;
          }
          if (c.layerSlides(l) && i - j >= c.sliding_window) {
            EXPECT_EQ(a, 0.0f) << "outside window";
          }
          if (!c.causal && j > i && a > 0.0f) anyFuture = true;
        }
        EXPECT_NEAR(sum, 1.0, 1e-5) << "layer " << l << " head " << h << " row " << i;
      }
    }
    // Grouped-query attention: heads of one group read the same keys and values.
    const int group = c.num_heads / c.num_kv_heads;
    const std::size_t n = static_cast<std::size_t>(T) * c.head_dim;
    for (int h = 1; h < c.num_heads; ++h) {
      const bool same = h / group == (h - 1) / group;
      const bool keysEqual = std::equal(cap.keys.begin() + h * n, cap.keys.begin() + (h + 1) * n,
                                        cap.keys.begin() + (h - 1) * n);
      const bool valuesEqual =
          std::equal(cap.values.begin() + h * n, cap.values.begin() + (h + 1) * n,
                     cap.values.begin() + (h - 1) * n);
      EXPECT_EQ(keysEqual, same) << "head " << h;
      EXPECT_EQ(valuesEqual, same) << "head " << h;
    }
  }
  if (!c.causal) {
    EXPECT_TRUE(anyFuture) << "an encoder attends both ways";
  }
  ASSERT_EQ(trace.logits().size(), static_cast<std::size_t>(T) * c.vocab_size);
  for (float v : trace.logits()) ASSERT_TRUE(std::isfinite(v));

  // Deterministic.
  const Trace again = model->run(sample_ids(T, c.vocab_size));
  EXPECT_EQ(again.logits(), trace.logits());
  EXPECT_EQ(again.layer(1).attention, trace.layer(1).attention);
}

TEST_P(EveryArchitecture, AttentionMatchesAPlainRecomputation) {
  const fs::path folder = write_fixture(GetParam());
  const auto model = Model::load(folder);
  const ModelConfig& c = model->config();
  const int T = 8;
  const Trace trace = model->run(sample_ids(T, c.vocab_size));
  for (int l = 0; l < c.num_layers; ++l) {
    const auto r = trace.residual(l);
    const std::vector<double> residual(r.begin(), r.end());
    const std::vector<double> expected = attention_plain(folder, c, l, residual, T);
    const LayerCapture cap = trace.layer(l);
    ASSERT_EQ(cap.attention.size(), expected.size());
    double worst = 0;
    for (std::size_t i = 0; i < expected.size(); ++i)
      worst = std::max(worst, std::abs(expected[i] - cap.attention[i]));
    EXPECT_LT(worst, 1e-5) << GetParam() << " layer " << l;
  }
}

TEST_P(EveryArchitecture, OverBudgetLayersAreRecomputedOnDemand) {
  const fs::path folder = write_fixture(GetParam());
  const auto model = Model::load(folder);
  const auto ids = sample_ids(7, model->config().vocab_size);
  const Trace full = model->run(ids);
  RunOptions tight;
  tight.capture_budget_bytes = 0;
  const Trace lean = model->run(ids, tight);
  EXPECT_FALSE(lean.layerStored(1));
  const LayerCapture a = full.layer(1), b = lean.layer(1);
  ASSERT_EQ(a.attention.size(), b.attention.size());
  for (std::size_t i = 0; i < a.attention.size(); ++i)
    EXPECT_NEAR(a.attention[i], b.attention[i], 1e-6);
  EXPECT_EQ(lean.logits(), full.logits());
  // Without the output head: no logits, the same attention and residuals.
  RunOptions attentionOnly;
  attentionOnly.logits = false;
  const Trace headless = model->run(ids, attentionOnly);
  EXPECT_TRUE(headless.logits().empty());
  EXPECT_FALSE(full.logits().empty());
  EXPECT_EQ(headless.layer(1).attention, full.layer(1).attention);
  const auto r = headless.residual(headless.layers()), s = full.residual(full.layers());
  EXPECT_TRUE(std::equal(r.begin(), r.end(), s.begin(), s.end()));
}

// A long input's heads are computed a chunk at a time; one head per chunk
// must give every number of the pass that takes all heads at once, with and
// without edits, kept or recomputed.
TEST_P(EveryArchitecture, HeadsComputedInChunksGiveTheNumbersOfOnePass) {
  const fs::path folder = write_fixture(GetParam());
  const auto model = Model::load(folder);
  const ModelConfig& c = model->config();
  ASSERT_GT(c.num_heads, 1) << "the fixture needs several heads to chunk";
  const auto ids = sample_ids(9, c.vocab_size);
  RunOptions edited;
  edited.edits.push_back(
      {AttentionEdit::Kind::ZeroKeysAfterSoftmax, {1}, {0, c.num_heads - 1}, {0}});
  edited.edits.push_back({AttentionEdit::Kind::MaskKeysBeforeSoftmax, {0}, {1}, {2}});
  for (const RunOptions& base : {RunOptions{}, edited}) {
    RunOptions chunked = base;
    chunked.attention_chunk_bytes = 1;  // one head at a time
    RunOptions chunkedLean = chunked;
    chunkedLean.capture_budget_bytes = 0;  // every layer recomputed
    const Trace whole = model->run(ids, base);
    for (const RunOptions& options : {chunked, chunkedLean}) {
      const Trace parts = model->run(ids, options);
      EXPECT_EQ(parts.logits(), whole.logits()) << GetParam();
      for (int l = 0; l < c.num_layers; ++l) {
        const LayerCapture a = parts.layer(l), b = whole.layer(l);
        EXPECT_EQ(a.attention, b.attention) << GetParam() << " layer " << l;
        EXPECT_EQ(a.queries, b.queries) << GetParam() << " layer " << l;
        EXPECT_EQ(a.values, b.values) << GetParam() << " layer " << l;
        const auto r = parts.residual(l + 1), s = whole.residual(l + 1);
        EXPECT_TRUE(std::equal(r.begin(), r.end(), s.begin(), s.end()))
            << GetParam() << " residual after layer " << l;
      }
    }
  }
}

// A layer's heads a group at a time (how a long input's layer is analysed)
// are the layer's heads, in order, stored or recomputed, with edits too.
TEST_P(EveryArchitecture, HeadGroupsOfALayerAreItsHeads) {
  const fs::path folder = write_fixture(GetParam());
  const auto model = Model::load(folder);
  const ModelConfig& c = model->config();
  const auto ids = sample_ids(9, c.vocab_size);
  RunOptions edited;
  edited.edits.push_back({AttentionEdit::Kind::ZeroKeysAfterSoftmax, {}, {0}, {1}});
  for (const RunOptions& base : {RunOptions{}, edited}) {
    RunOptions lean = base;
    lean.capture_budget_bytes = 0;
    lean.attention_chunk_bytes = 1;  // a chunk of one head: groups of any size
    const Trace whole = model->run(ids, base);
    for (const RunOptions& options : {base, lean}) {
      const Trace trace = model->run(ids, options);
      for (int group : {1, 2, c.num_heads}) {
        for (int l = 0; l < c.num_layers; ++l) {
          const LayerCapture all = whole.layer(l);
          LayerCapture joined;
          int next = 0;
          trace.forEachHeadGroup(l, group, [&](LayerCapture&& g) {
            EXPECT_EQ(g.layer, l);
            EXPECT_EQ(g.first_head, next) << GetParam();
            EXPECT_EQ(g.heads, std::min(group, c.num_heads - next));
            EXPECT_EQ(g.tokens, all.tokens);
            EXPECT_EQ(g.head_dim, all.head_dim);
            EXPECT_EQ(g.causal, all.causal);
            next += g.heads;
            joined.attention.insert(joined.attention.end(), g.attention.begin(), g.attention.end());
            joined.queries.insert(joined.queries.end(), g.queries.begin(), g.queries.end());
            joined.keys.insert(joined.keys.end(), g.keys.begin(), g.keys.end());
            joined.values.insert(joined.values.end(), g.values.begin(), g.values.end());
          });
          EXPECT_EQ(next, c.num_heads);
          EXPECT_EQ(joined.attention, all.attention) << GetParam() << " layer " << l;
          EXPECT_EQ(joined.queries, all.queries) << GetParam() << " layer " << l;
          EXPECT_EQ(joined.keys, all.keys) << GetParam() << " layer " << l;
          EXPECT_EQ(joined.values, all.values) << GetParam() << " layer " << l;
        }
      }
    }
  }
}

// A copy of `folder` with every floating-point tensor widened to F32: what
// loading a reduced-precision folder used to build in memory (each value
// converted once at load), the reference of the stored-dtype path.
fs::path widened_copy(const fs::path& folder, const fs::path& out) {
  fs::remove_all(out);
  fs::create_directories(out);
  for (const auto& e : fs::directory_iterator(folder)) {
    if (e.path().extension() != ".safetensors") {
      fs::copy_file(e.path(), out / e.path().filename());
      continue;
    }
    const SafetensorsFile f = SafetensorsFile::open(e.path());
    std::vector<TensorData> tensors;
    for (const auto& [name, t] : f.tensors())
      tensors.push_back(tensor_from_f32(name, t.shape, tensor_to_f32(t), DType::F32));
    safetensors_write(out / e.path().filename(), tensors);
  }
  return out;
}

double worst_relative(std::span<const float> a, std::span<const float> b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    worst = std::max(worst, std::abs(static_cast<double>(a[i]) - b[i]) /
                                (1e-6 + std::abs(static_cast<double>(b[i]))));
  return worst;
}

TEST_P(EveryArchitecture, ReducedPrecisionWeightsComputeAsTheirFloat32Expansion) {
  for (const DType dtype : {DType::BF16, DType::F16}) {
    const std::string tag = dtype == DType::BF16 ? "-stored-bf16" : "-stored-f16";
    const fs::path reduced = write_fixture(GetParam(), tag, [&](RandomModelSpec& s) {
      s.dtype = dtype;
      s.sharded = true;
    });
    const fs::path widened = widened_copy(reduced, fixture_root() / (GetParam() + tag + "-as-f32"));
    const auto small = Model::load(reduced), wide = Model::load(widened);
    // The weights stay in the file's dtype: half the bytes of float32.
    EXPECT_LT(small->weightBytes() * 10, wide->weightBytes() * 6) << tag;
    EXPECT_EQ(small->parameterCount(), wide->parameterCount());
    const auto ids = sample_ids(9, small->config().vocab_size);
    const Trace a = small->run(ids), b = wide->run(ids);
    for (int l = 0; l < a.layers(); ++l) {
      EXPECT_LT(worst_relative(a.layer(l).attention, b.layer(l).attention), 1e-5) << tag << l;
      EXPECT_LT(worst_relative(a.layer(l).values, b.layer(l).values), 1e-5) << tag << l;
      EXPECT_LT(worst_relative(a.residual(l + 1), b.residual(l + 1)), 1e-5) << tag << l;
    }
    EXPECT_LT(worst_relative(a.logits(), b.logits()), 1e-5) << tag;
    // The batched pass, a pass resumed at layer 1 and the head ablations as well.
    const std::vector<Trace> batch = small->runBatch({ids, ids});
    EXPECT_LT(worst_relative(batch[1].layer(0).attention, b.layer(0).attention), 1e-5) << tag;
    const Trace resumed = small->runFrom(a, 1);
    EXPECT_LT(worst_relative(resumed.logits(), b.logits()), 1e-5) << tag;
    const auto ablatedSmall = small->headAblationLogits(a, 0), ablatedWide = wide->headAblationLogits(b, 0);
    ASSERT_EQ(ablatedSmall.size(), ablatedWide.size());
    for (std::size_t h = 0; h < ablatedSmall.size(); ++h)
      EXPECT_LT(worst_relative(ablatedSmall[h], ablatedWide[h]), 1e-5) << tag << h;
    // One matrix at a time, widened, equals the float32 folder's view of it.
    for (const WeightMatrix& shape : small->weightMatrices(false)) {
      const WeightMatrix m = small->weightMatrix(shape.layer, shape.name);
      const WeightMatrix f = wide->weightMatrix(shape.layer, shape.name);
      EXPECT_FALSE(m.converted.empty());
      EXPECT_TRUE(std::equal(m.values.begin(), m.values.end(), f.values.begin(), f.values.end()))
          << shape.layer << shape.name;
    }
  }
  EXPECT_THROW(Model::load(write_fixture(GetParam()))->weightMatrix(99, "q"), ModelRunError);
  EXPECT_THROW(Model::load(write_fixture(GetParam()))->weightMatrix(0, "nope"), ModelRunError);
}

// ComputePrecision::Stored runs the layers in the folder's dtype (Hugging
// Face's eager attention on a model loaded in BF16 or F16): within that
// dtype's rounding of the float32 path, and not equal to it (it is in effect);
// the attention stays a float32 softmax whose rows sum to 1.
TEST_P(EveryArchitecture, StoredPrecisionComputesInTheFoldersDtype) {
  LoadOptions stored;
  stored.precision = ComputePrecision::Stored;
  for (const DType dtype : {DType::BF16, DType::F16}) {
    const std::string tag = dtype == DType::BF16 ? "-bf16" : "-f16";
    const fs::path folder =
        write_fixture(GetParam(), tag, [&](RandomModelSpec& s) { s.dtype = dtype; });
    const auto exact = Model::load(folder);
    std::shared_ptr<Model> reduced;
    try {
      reduced = Model::load(folder, stored);
    } catch (const ModelLoadError& e) {
      // Debian's libtorch has no float16 matrix product on the CPU: refused at load, by name.
      EXPECT_EQ(dtype, DType::F16) << e.what();
      EXPECT_NE(std::string(e.what()).find("cannot compute in Half on cpu"), std::string::npos)
          << e.what();
      continue;
    }
    EXPECT_EQ(exact->computeDtype(), "float32");
    EXPECT_EQ(reduced->computeDtype(), dtype == DType::BF16 ? "bfloat16" : "float16");
    const auto ids = sample_ids(9, exact->config().vocab_size);
    const Trace a = exact->run(ids), b = reduced->run(ids);
    double worst = 0, differ = 0;
    for (int l = 0; l < a.layers(); ++l) {
      const LayerCapture x = a.layer(l), y = b.layer(l);
      ASSERT_EQ(x.attention.size(), y.attention.size());
      for (std::size_t i = 0; i < x.attention.size(); ++i) {
        const double d = std::abs(static_cast<double>(x.attention[i]) - y.attention[i]);
        worst = std::max(worst, d);
        differ += d;
      }
      const auto map = y.attentionOf(0);
      for (int i = 0; i < map.size; ++i) {
        double row = 0;
        for (int j = 0; j < map.size; ++j) row += map.at(i, j);
        EXPECT_NEAR(row, 1.0, 1e-5) << tag << " layer " << l << " query " << i;
      }
    }
    EXPECT_LT(worst, 0.05) << tag;
    EXPECT_GT(differ, 0.0) << tag << ": the stored precision changed nothing";
    double scale = 0, logitWorst = 0;
    for (std::size_t i = 0; i < a.logits().size(); ++i) {
      scale = std::max(scale, std::abs(static_cast<double>(a.logits()[i])));
      logitWorst = std::max(logitWorst, std::abs(static_cast<double>(a.logits()[i]) - b.logits()[i]));
    }
    EXPECT_LT(logitWorst, 0.05 * scale + 1e-3) << tag;
    // A resumed pass continues in the same dtype: equal to the whole pass to its rounding.
    const Trace resumed = reduced->runFrom(b, 1);
    for (std::size_t i = 0; i < b.logits().size(); ++i)
      EXPECT_NEAR(resumed.logits()[i], b.logits()[i], 1e-6 * scale + 1e-6) << tag << i;
  }
  // A float32 folder computes as it always did.
  const fs::path f32 = write_fixture(GetParam());
  const auto ids = sample_ids(9, 96);
  const Trace plain = Model::load(f32)->run(ids);
  const auto asStored = Model::load(f32, stored);
  EXPECT_EQ(asStored->computeDtype(), "float32");
  EXPECT_EQ(asStored->run(ids).logits(), plain.logits());
}

INSTANTIATE_TEST_SUITE_P(Models, EveryArchitecture,
                         ::testing::Values("gpt2", "llama", "mistral", "qwen2", "gemma", "gemma2",
                                           "phi", "gpt_neox", "bert", "roberta", "xlm-roberta"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

TEST(ModelVariants, PrefixedShardedAndHalfPrecisionFoldersAgree) {
  const fs::path plain = write_fixture("llama", "-plain");
  const fs::path sharded =
      write_fixture("llama", "-sharded", [](RandomModelSpec& s) { s.sharded = true; });
  const fs::path half =
      write_fixture("llama", "-bf16", [](RandomModelSpec& s) { s.dtype = DType::BF16; });
  const fs::path f16 =
      write_fixture("llama", "-f16", [](RandomModelSpec& s) { s.dtype = DType::F16; });
  const auto ids = sample_ids(6, 96);
  const Trace a = Model::load(plain)->run(ids);
  const Trace b = Model::load(sharded)->run(ids);
  EXPECT_EQ(a.logits(), b.logits());
  for (const fs::path& reduced : {half, f16}) {
    const Trace h = Model::load(reduced)->run(ids);
    const auto x = a.layer(1).attention, y = h.layer(1).attention;
    double worst = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
      worst = std::max(worst, static_cast<double>(std::abs(x[i] - y[i])));
    EXPECT_LT(worst, 0.05) << reduced;
  }
  // Weight matrices are views of the model's float tensors (reduced-precision
  // ones are widened copies), valid after the list is built and moved.
  const auto plainModel = Model::load(plain), halfModel = Model::load(half);
  const std::vector<WeightMatrix> wf = plainModel->weightMatrices(),
                                  wh = halfModel->weightMatrices();
  ASSERT_EQ(wf.size(), wh.size());
  for (std::size_t i = 0; i < wf.size(); ++i) {
    ASSERT_EQ(wf[i].values.size(), static_cast<std::size_t>(wf[i].rows) * wf[i].cols);
    ASSERT_EQ(wh[i].values.size(), wf[i].values.size());
    EXPECT_TRUE(wf[i].converted.empty()) << "F32 weights are not copied";
    for (std::size_t k = 0; k < wf[i].values.size(); k += 7)
      ASSERT_NEAR(wh[i].values[k], wf[i].values[k], 0.01 * (1.0 + std::abs(wf[i].values[k])));
  }
  // Shapes only: the same list without values (a cache lookup's key).
  const std::vector<WeightMatrix> shapes = plainModel->weightMatrices(false);
  ASSERT_EQ(shapes.size(), wf.size());
  for (std::size_t i = 0; i < wf.size(); ++i) {
    EXPECT_EQ(std::tie(shapes[i].layer, shapes[i].name, shapes[i].rows, shapes[i].cols),
              std::tie(wf[i].layer, wf[i].name, wf[i].rows, wf[i].cols));
    EXPECT_TRUE(shapes[i].values.empty());
  }
  // The weight files' stamp: stable while the files are, changed by a rewrite
  // of the same bytes (a new modification time and inode), and per folder.
  const std::string stamp = weight_files_stamp(plain);
  EXPECT_EQ(weight_files_stamp(plain), stamp);
  EXPECT_NE(weight_files_stamp(sharded), stamp);
  const fs::path copy = write_fixture("llama", "-restamped");
  const std::string before = weight_files_stamp(copy);
  const fs::path weights = copy / "model.safetensors";
  fs::copy_file(weights, copy / "moved", fs::copy_options::overwrite_existing);
  fs::rename(copy / "moved", weights);
  EXPECT_NE(weight_files_stamp(copy), before);
  // GPT-2 with and without the transformer. prefix and legacy buffers.
  const fs::path bare = write_fixture("gpt2", "-bare", [](RandomModelSpec& s) {
    s.prefixed = false;
    s.legacy_buffers = false;
  });
  const fs::path prefixed = write_fixture("gpt2");
  EXPECT_EQ(Model::load(bare)->run(ids).logits(), Model::load(prefixed)->run(ids).logits());
}

TEST(ModelInterventions, EditsChangeAttentionAsDefined) {
  const auto model = Model::load(write_fixture("llama"));
  const auto ids = sample_ids(8, 96);
  const Trace base = model->run(ids);

  RunOptions removal;
  removal.edits.push_back({AttentionEdit::Kind::ZeroKeysAfterSoftmax, {1}, {0, 2}, {0}});
  const Trace removed = model->run(ids, removal);
  for (int h : {0, 2}) {
    const LayerCapture layer = removed.layer(1);
    const auto A = layer.attentionOf(h);
    for (int i = 1; i < 8; ++i) {
      EXPECT_EQ(A.at(i, 0), 0.0f);
      double sum = 0;
      for (int j = 0; j < 8; ++j) sum += A.at(i, j);
      EXPECT_NEAR(sum, 1.0, 1e-5);
    }
    EXPECT_FLOAT_EQ(A.at(0, 0), 1.0f) << "a row with no other key keeps its weight";
  }
  const LayerCapture removedLayer = removed.layer(1), baseLayer = base.layer(1);
  EXPECT_EQ(removedLayer.attentionOf(1).at(3, 0), baseLayer.attentionOf(1).at(3, 0))
      << "head 1 untouched";
  EXPECT_EQ(removed.layer(0).attention, base.layer(0).attention) << "layer 0 untouched";
  EXPECT_NE(removed.logits(), base.logits());

  RunOptions masking;
  masking.edits.push_back({AttentionEdit::Kind::MaskKeysBeforeSoftmax, {1}, {}, {0}});
  const Trace masked = model->run(ids, masking);
  const LayerCapture maskedLayer = masked.layer(1);
  EXPECT_EQ(maskedLayer.attentionOf(3).at(5, 0), 0.0f);

  RunOptions ablation;
  ablation.edits.push_back({AttentionEdit::Kind::AblateHeadOutput, {0}, {1}, {}});
  const Trace ablated = model->run(ids, ablation);
  EXPECT_EQ(ablated.layer(0).attention, base.layer(0).attention);
  EXPECT_NE(ablated.logits(), base.logits());

  RunOptions drop;
  drop.drop_first_token = true;
  const Trace dropped = model->run(ids, drop);
  EXPECT_EQ(dropped.tokens(), 7);
  EXPECT_EQ(dropped.ids(), std::vector<int>(ids.begin() + 1, ids.end()));

  RunOptions rope;
  rope.ntk_scale = 4.0;
  EXPECT_NE(model->run(ids, rope).layer(0).attention, base.layer(0).attention);
}

TEST(ModelErrors, BadInputIsNamed) {
  const auto model = Model::load(write_fixture("gpt2"));
  auto message = [&](const std::vector<int>& ids) {
    try {
      model->run(ids);
    } catch (const ModelRunError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message({}).find("no tokens"), std::string::npos);
  EXPECT_NE(message(std::vector<int>(65, 1)).find("maximum of 64 positions"), std::string::npos);
  EXPECT_NE(message({1, 2, 96}).find("token id 96 at position 2"), std::string::npos);

  LoadOptions tiny;
  tiny.memory_limit_bytes = 1000;
  try {
    Model::load(write_fixture("gpt2"), tiny);
    FAIL();
  } catch (const ModelLoadError& e) {
    EXPECT_NE(std::string(e.what()).find("needs about"), std::string::npos) << e.what();
  }
  LoadOptions tpu;
  tpu.device = "tpu";
  try {
    Model::load(write_fixture("gpt2"), tpu);
    FAIL();
  } catch (const ModelLoadError& e) {
    EXPECT_NE(std::string(e.what()).find("tpu"), std::string::npos);
  }
}

// The GUI's Cancel: loading reports the fraction of weight bytes read and
// stops when told to.
TEST(ModelLoad, ReportsProgressAndStopsWhenCancelled) {
  const fs::path folder = write_fixture("llama");
  std::vector<double> seen;
  LoadOptions watched;
  watched.progress = [&](double f) {
    seen.push_back(f);
    return true;
  };
  Model::load(folder, watched);
  ASSERT_GT(seen.size(), 5u);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_NEAR(seen.back(), 1.0, 0.05);
  int calls = 0;
  LoadOptions cancelled;
  cancelled.progress = [&](double) { return ++calls < 3; };
  EXPECT_THROW(Model::load(folder, cancelled), RunCancelled);
  EXPECT_EQ(calls, 3);
}

TEST(ModelErrors, MissingOrMisshapenTensorsAreNamed) {
  const fs::path folder = fixture_root() / "llama-broken";
  fs::remove_all(folder);
  model_folder_write_random(folder, random_model_spec_for("llama"));
  // Rewrite the weights without one tensor and with another of the wrong shape.
  auto file = SafetensorsFile::open(folder / "model.safetensors");
  std::vector<TensorData> kept;
  for (const auto& [name, t] : file.tensors()) {
    if (name == "model.layers.1.mlp.up_proj.weight") continue;
    TensorData d{name, t.dtype, t.shape, {t.bytes.begin(), t.bytes.end()}};
    if (name == "model.norm.weight") {
      d.shape = {16};
      d.bytes.resize(16 * 4);
    }
    kept.push_back(std::move(d));
  }
  safetensors_write(folder / "model.safetensors", kept);
  try {
    Model::load(folder);
    FAIL();
  } catch (const ModelLoadError& e) {
    EXPECT_NE(std::string(e.what()).find("\"layers.1.mlp.up_proj.weight\" is missing"),
              std::string::npos)
        << e.what();
  }
  std::ofstream(folder / "config.json") << R"({"model_type": "falcon", "vocab_size": 3})";
  try {
    Model::load(folder);
    FAIL();
  } catch (const ModelConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("supported: gpt2, llama"), std::string::npos) << e.what();
  }
}

TEST(ModelDevices, CudaMatchesCpuWhenAvailable) {
  const fs::path folder = write_fixture("llama");
  std::shared_ptr<Model> gpu;
  LoadOptions cuda;
  cuda.device = "cuda";
  try {
    gpu = Model::load(folder, cuda);
  } catch (const ModelLoadError& e) {
    GTEST_SKIP() << e.what();
  }
  const auto ids = sample_ids(9, 96);
  const Trace a = Model::load(folder)->run(ids), b = gpu->run(ids);
  ASSERT_EQ(a.logits().size(), b.logits().size());
  for (std::size_t i = 0; i < a.logits().size(); ++i)
    EXPECT_NEAR(a.logits()[i], b.logits()[i], 1e-4);
  const LayerCapture x = a.layer(1), y = b.layer(1);
  for (std::size_t i = 0; i < x.attention.size(); ++i)
    EXPECT_NEAR(x.attention[i], y.attention[i], 1e-5);
  // A BF16 folder on the device: its weights stay BF16 there; in float32 it
  // equals the CPU's float32 pass, in its stored dtype the CPU's stored pass
  // to BF16 rounding (the kernels differ).
  const fs::path bf16 =
      write_fixture("llama", "-bf16", [](RandomModelSpec& s) { s.dtype = DType::BF16; });
  LoadOptions stored = cuda;
  stored.precision = ComputePrecision::Stored;
  LoadOptions cpuStored;
  cpuStored.precision = ComputePrecision::Stored;
  const Trace cpuExact = Model::load(bf16)->run(ids), gpuExact = Model::load(bf16, cuda)->run(ids);
  const Trace cpuReduced = Model::load(bf16, cpuStored)->run(ids);
  const Trace gpuReduced = Model::load(bf16, stored)->run(ids);
  for (std::size_t i = 0; i < cpuExact.logits().size(); ++i) {
    EXPECT_NEAR(cpuExact.logits()[i], gpuExact.logits()[i], 1e-4);
    EXPECT_NEAR(cpuReduced.logits()[i], gpuReduced.logits()[i], 0.05);
  }
  const LayerCapture p = cpuReduced.layer(1), q = gpuReduced.layer(1);
  for (std::size_t i = 0; i < p.attention.size(); ++i)
    EXPECT_NEAR(p.attention[i], q.attention[i], 0.02);
}

// The context a model was trained on: SinkScope's recipe says it, else the
// config's position limit; beyond it, one sentence says so.
TEST(ModelConfigContext, TheTrainedContextComesFromTheRecipeOrThePositionLimit) {
  const std::string base = R"({"model_type": "llama", "vocab_size": 16, "hidden_size": 8,
    "intermediate_size": 16, "num_attention_heads": 2, "num_hidden_layers": 1)";
  const ModelConfig ours = model_config_parse(
      base + R"(, "max_position_embeddings": 512, "sinkscope_recipe": {"context": 128}})", "ours.json");
  EXPECT_EQ(ours.trained_context, 128);
  EXPECT_EQ(beyond_trained_context(ours, 128), "");
  const std::string beyond = beyond_trained_context(ours, 129);
  EXPECT_NE(beyond.find("129 tokens exceed the 128 tokens it was trained on"), std::string::npos) << beyond;
  const ModelConfig hf = model_config_parse(base + R"(, "max_position_embeddings": 512})", "hf.json");
  EXPECT_EQ(hf.trained_context, 512);
  EXPECT_NE(beyond_trained_context(hf, 600).find("position limit of 512"), std::string::npos);
  const ModelConfig unknown = model_config_parse(base + "}", "unknown.json");
  EXPECT_EQ(unknown.trained_context, 0) << "no position field: unknown, no warning";
  EXPECT_EQ(beyond_trained_context(unknown, 100000), "");
  try {
    model_config_parse(base + R"(, "sinkscope_recipe": {"context": -3}})", "bad.json");
    FAIL();
  } catch (const ModelConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("\"sinkscope_recipe.context\""), std::string::npos) << e.what();
  }
  EXPECT_THROW(model_config_parse(base + R"(, "sinkscope_recipe": 7})", "bad.json"), ModelConfigError);
}
