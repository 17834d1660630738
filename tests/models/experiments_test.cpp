// Interventions and functional experiments: the definitional
// properties each must satisfy on small random models.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include "analysis/functional.h"
#include "models/experiments.h"
#include "models/fisher.h"
#include "models/model.h"
#include "models/model_writer.h"
#include "models/safetensors.h"

namespace fs = std::filesystem;
using namespace sinkscope::models;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path p =
      fs::temp_directory_path() / ("sinkscope-experiments-" + std::to_string(::getpid())) / name;
  fs::remove_all(p);
  return p;
}

std::shared_ptr<Model> random_model(const std::string& type, const std::string& name,
                                    RandomModelSpec spec) {
  spec.model_type = type;
  const fs::path folder = scratch(name);
  model_folder_write_random(folder, spec);
  return Model::load(folder);
}

std::shared_ptr<Model> random_model(const std::string& type, const std::string& name) {
  return random_model(type, name, random_model_spec_for(type));
}

std::vector<int> some_ids(int T, int vocab, unsigned seed = 3) {
  std::mt19937 rng(seed);
  std::vector<int> ids;
  for (int t = 0; t < T; ++t) ids.push_back(static_cast<int>(rng() % static_cast<unsigned>(vocab)));
  return ids;
}

}  // namespace

TEST(Interventions, AnEmptyInterventionIsBitIdentical) {
  for (const char* type : {"llama", "gpt2", "bert"}) {
    const auto model = random_model(type, std::string("empty-") + type);
    const Trace base = model->run(some_ids(12, model->config().vocab_size));
    const Trace again = intervention_run(*model, base, Intervention{}, true);
    EXPECT_EQ(again.logits(), base.logits()) << type;
    for (int l = 0; l < base.layers(); ++l)
      EXPECT_EQ(again.layer(l).attention, base.layer(l).attention) << type << " layer " << l;
    // Starting later from the captured residual stream changes nothing either.
    for (int from = 0; from <= base.layers(); ++from)
      EXPECT_EQ(model->runFrom(base, from).logits(), base.logits()) << type << " from " << from;
  }
}

TEST(Interventions, RemovingAKeyWithNoAttentionChangesNothing) {
  // Key 2 masked before softmax in layer 1 receives exactly zero attention there;
  // zeroing it after softmax as well must leave the outputs as they were.
  const auto model = random_model("llama", "zero-key");
  const std::vector<int> ids = some_ids(10, model->config().vocab_size);
  RunOptions masked;
  masked.edits.push_back({AttentionEdit::Kind::MaskKeysBeforeSoftmax, {1}, {}, {2}});
  RunOptions both = masked;
  both.edits.push_back({AttentionEdit::Kind::ZeroKeysAfterSoftmax, {1}, {}, {2}});
  const Trace a = model->run(ids, masked), b = model->run(ids, both);
  const auto A = a.layer(1);
  for (int h = 0; h < A.heads; ++h)
    for (int i = 3; i < A.tokens; ++i) ASSERT_EQ(A.attentionOf(h).at(i, 2), 0.0f);
  ASSERT_EQ(a.logits().size(), b.logits().size());
  for (std::size_t k = 0; k < a.logits().size(); ++k)
    ASSERT_NEAR(a.logits()[k], b.logits()[k], 1e-5) << k;
}

TEST(Interventions, SinkRemovalZeroesTheSinksAndKeepsRowsNormalised) {
  const auto model = random_model("llama", "sinks");
  const Trace base = model->run(some_ids(16, model->config().vocab_size));
  Intervention iv;
  iv.removeSinks = {SinkRemoval{}};
  const RunOptions o = intervention_options(base, iv);
  ASSERT_FALSE(o.edits.empty()) << "a random map at p = 90 has sinks somewhere";
  const Trace removed = intervention_run(*model, base, iv, true);
  for (const AttentionEdit& e : o.edits) {
    const auto cap = removed.layer(e.layers[0]);
    const auto A = cap.attentionOf(e.heads[0]);
    for (int i = 0; i < A.size; ++i) {
      double row = 0;
      for (int j = 0; j <= i; ++j) row += A.at(i, j);
      EXPECT_NEAR(row, 1.0, 1e-5);
      for (int k : e.keys)
        if (k <= i && i > k) {
          // A row that kept other keys gives the sink nothing.
          EXPECT_EQ(A.at(i, k), 0.0f) << "layer " << e.layers[0] << " head " << e.heads[0];
        }
    }
  }
}

TEST(Interventions, RopeBaseOverrideWithTheOriginalBaseReproducesAttention) {
  const auto model = random_model("llama", "rope");
  const std::vector<int> ids = some_ids(12, model->config().vocab_size);
  const Trace base = model->run(ids);
  Intervention iv;
  iv.ropeTheta = model->config().rope_theta;
  const Trace same = intervention_run(*model, base, iv, true);
  for (int l = 0; l < base.layers(); ++l) {
    const auto a = base.layer(l).attention, b = same.layer(l).attention;
    for (std::size_t k = 0; k < a.size(); ++k) ASSERT_NEAR(a[k], b[k], 1e-6);
  }
  iv.ropeTheta = model->config().rope_theta * 4;
  EXPECT_NE(intervention_run(*model, base, iv, true).layer(0).attention, base.layer(0).attention);
}

TEST(Interventions, DroppingAFirstTokenThatIsNotSpecialIsRefused) {
  const auto model = random_model("gpt2", "no-bos");
  const Trace base = model->run(some_ids(8, model->config().vocab_size));
  Intervention iv;
  iv.dropFirstToken = true;
  try {
    intervention_run(*model, base, iv, /*firstIsSpecial=*/false);
    FAIL() << "dropping a word was accepted";
  } catch (const ModelRunError& e) {
    EXPECT_NE(std::string(e.what()).find("not start with a special token"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(bos_removal(*model, base, false), ModelRunError);
  const BosRemoval r = bos_removal(*model, base, true);
  EXPECT_EQ(r.without.tokens(), base.tokens() - 1);
  EXPECT_EQ(r.tokens.front(), 2);
  EXPECT_EQ(r.nllWith.size(), r.nllWithout.size());
}

TEST(Experiments, KlIsNonNegativeAndZeroForTheIdentity) {
  std::mt19937 rng(5);
  std::normal_distribution<float> g(0.0f, 3.0f);
  std::vector<float> p(7 * 50), q(7 * 50);
  for (auto& x : p) x = g(rng);
  for (auto& x : q) x = g(rng);
  for (double kl : sinkscope::analysis::kl_per_row(p, q, 50)) EXPECT_GT(kl, 0.0);
  for (double kl : sinkscope::analysis::kl_per_row(p, p, 50)) EXPECT_EQ(kl, 0.0);

  const auto model = random_model("llama", "kl");
  const Trace base = model->run(some_ids(12, model->config().vocab_size));
  SinkRemoval none;
  none.gamma = 1.5;  // no key can be a sink: the removal is the identity
  for (const KlRow& row : kl_sink_removal(*model, base, none)) {
    EXPECT_EQ(row.meanKl, 0.0) << row.scope;
    EXPECT_EQ(row.editedHeads, 0);
  }
  for (const KlRow& row : kl_sink_removal(*model, base, SinkRemoval{})) EXPECT_GE(row.meanKl, 0.0);
}

TEST(Experiments, FisherTraceMatchesFiniteDifferences) {
  RandomModelSpec spec = random_model_spec_for("llama");
  spec.layers = 2;
  spec.hidden = 8;
  spec.heads = 2;
  spec.intermediate = 12;
  spec.vocab = 40;
  const auto model = random_model("llama", "fisher", spec);
  const std::vector<int> ids = some_ids(6, spec.vocab);
  const auto fisher = fisher_per_layer(*model, ids);

  // Finite differences over every parameter of layer 1, through the public API:
  // each perturbed weight is written into a copy of the folder, loaded and run.
  const fs::path copy = scratch("fisher-fd");
  fs::create_directories(copy);
  fs::copy_file(model->folder() / "config.json", copy / "config.json");
  const SafetensorsFile original = SafetensorsFile::open(model->folder() / "model.safetensors");
  std::vector<TensorData> tensors;
  std::vector<std::vector<float>> values;
  for (const auto& [name, view] : original.tensors()) {
    values.push_back(tensor_to_f32(view));
    tensors.push_back(tensor_from_f32(name, view.shape, values.back(), DType::F32));
  }
  auto nll = [&] {
    safetensors_write(copy / "model.safetensors", tensors);
    const auto perturbed = Model::load(copy);
    RunOptions plain;
    plain.capture = false;
    return sinkscope::analysis::next_token_nll(perturbed->run(ids, plain).logits(), spec.vocab,
                                               ids);
  };
  std::vector<double> squared(ids.size() - 1, 0.0);
  std::size_t params = 0;
  const float h = 1e-2f;
  for (std::size_t t = 0; t < tensors.size(); ++t) {
    if (layer_of_tensor_name(tensors[t].name) != 1) continue;
    for (std::size_t k = 0; k < values[t].size(); ++k, ++params) {
      const float w = values[t][k];
      auto set = [&](float x) {
        std::memcpy(tensors[t].bytes.data() + k * sizeof(float), &x, sizeof(float));
      };
      set(w + h);
      const auto up = nll();
      set(w - h);
      const auto down = nll();
      set(w);
      for (std::size_t s = 0; s < squared.size(); ++s) {
        const double d = (up[s] - down[s]) / (2.0 * h);  // d(-log p) = -d(log p): squared alike
        squared[s] += d * d;
      }
    }
  }
  double expected = 0;
  for (double s : squared) expected += s / static_cast<double>(squared.size());
  const FisherLayer* layer1 = nullptr;
  for (const auto& f : fisher)
    if (f.layer == 1) layer1 = &f;
  ASSERT_NE(layer1, nullptr);
  EXPECT_EQ(layer1->parameters, params);
  EXPECT_GT(expected, 0.0);
  EXPECT_NEAR(layer1->trace, expected, 0.02 * expected);
  EXPECT_NEAR(layer1->perParameter, layer1->trace / static_cast<double>(params), 1e-12);
}

TEST(Experiments, SparsificationAtFullRetentionCostsNothing) {
  const auto model = random_model("llama", "sparsify");
  const Trace base = model->run(some_ids(12, model->config().vocab_size));
  const auto dnll = head_ablation_dnll(*model, base);
  Sparsification s;
  s.retained = {1.0, 0.5};
  s.pinned = {{0, 1}};
  s.randomSeeds = 3;
  for (const auto& p : sparsification_curves(*model, base, dnll, s)) {
    if (p.retained == 1.0) {
      EXPECT_EQ(p.dnll, 0.0) << head_ranking_name(p.ranking);
    }
    EXPECT_TRUE(std::isfinite(p.dnll));
  }
  // Half the heads per layer kept, the pinned head among them whatever the ranking.
  for (HeadRanking r : kAllHeadRankings) {
    const auto kept = sparsification_kept(*model, base, dnll, r, 0.5, s.pinned, 1);
    EXPECT_EQ(kept.size(), static_cast<std::size_t>(base.layers() * base.heads() / 2))
        << head_ranking_name(r);
    EXPECT_NE(std::find(kept.begin(), kept.end(), HeadId{0, 1}), kept.end());
  }
}

TEST(Experiments, BatchedHeadAblationEqualsOneRunPerHeadInEveryFamily) {
  // Model::headAblationLogits runs a layer's heads as one batch; each batch
  // element must be the pass runFrom gives with that one head ablated.
  for (const std::string type : {"gpt2", "llama", "mistral", "qwen2", "gemma", "gemma2", "phi",
                                 "gpt_neox", "bert", "roberta", "xlm-roberta"}) {
    SCOPED_TRACE(type);
    const auto model = random_model(type, "batched-ablation-" + type);
    const Trace base = model->run(some_ids(9, model->config().vocab_size));
    for (int l : {0, base.layers() - 1}) {
      const auto batched = model->headAblationLogits(base, l);
      ASSERT_EQ(batched.size(), static_cast<std::size_t>(base.heads()));
      for (int h = 0; h < base.heads(); ++h) {
        const std::vector<float> one =
            model->runFrom(base, l, head_ablation_options(l, h)).logits();
        const std::vector<float>& b = batched[static_cast<std::size_t>(h)];
        ASSERT_EQ(b.size(), one.size());
        double worst = 0.0;
        for (std::size_t k = 0; k < one.size(); ++k)
          worst = std::max(worst, static_cast<double>(std::abs(b[k] - one[k])) /
                                      (1.0 + std::abs(one[k])));
        EXPECT_LT(worst, 1e-4) << "layer " << l << ", head " << h;
      }
    }
  }
}

// Corpus studies run sentences of one length as one
// batched pass. Every element must be the pass run() gives for that input
// alone, to the bit: attention, values, residual streams and logits, in every
// family.
TEST(Experiments, BatchedRunsEqualOneRunPerInputInEveryFamily) {
  for (const std::string type : {"gpt2", "llama", "mistral", "qwen2", "gemma", "gemma2", "phi",
                                 "gpt_neox", "bert", "roberta", "xlm-roberta"}) {
    SCOPED_TRACE(type);
    const auto model = random_model(type, "batched-run-" + type);
    const int vocab = model->config().vocab_size;
    const std::vector<std::vector<int>> inputs{some_ids(9, vocab, 1), some_ids(9, vocab, 2),
                                               some_ids(9, vocab, 3)};
    const std::vector<Trace> batched = model->runBatch(inputs);
    ASSERT_EQ(batched.size(), inputs.size());
    double worst = 0.0;
    auto compare = [&worst](std::span<const float> a, std::span<const float> b) {
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t k = 0; k < a.size(); ++k)
        worst = std::max(worst, static_cast<double>(std::abs(a[k] - b[k])) / (1.0 + std::abs(b[k])));
    };
    for (std::size_t b = 0; b < inputs.size(); ++b) {
      const Trace one = model->run(inputs[b]);
      EXPECT_EQ(batched[b].ids(), inputs[b]);
      compare(batched[b].logits(), one.logits());
      for (int l = 0; l <= one.layers(); ++l) compare(batched[b].residual(l), one.residual(l));
      for (int l = 0; l < one.layers(); ++l) {
        const LayerCapture x = batched[b].layer(l), y = one.layer(l);
        compare(x.attention, y.attention);
        compare(x.values, y.values);
        compare(x.queries, y.queries);
      }
    }
    EXPECT_EQ(worst, 0.0) << "bit for bit: a sentence's numbers do not depend on its batch";
  }
  const auto model = random_model("llama", "batched-run-refusals");
  const int vocab = model->config().vocab_size;
  EXPECT_THROW(model->runBatch({some_ids(5, vocab), some_ids(6, vocab)}), ModelRunError);
  EXPECT_THROW(model->runBatch({some_ids(5, vocab), {0, 1, 2, 3, vocab}}), ModelRunError);
  RunOptions edited = head_ablation_options(0, 0);
  EXPECT_THROW(model->runBatch({some_ids(5, vocab)}, edited), ModelRunError);
  EXPECT_TRUE(model->runBatch({}).empty());
}

TEST(Experiments, AblationSweepFromCapturedLayersEqualsFullReruns) {
  const auto model = random_model("llama", "ablate");
  const Trace base = model->run(some_ids(12, model->config().vocab_size));
  const auto fast = head_ablation_dnll(*model, base, true);
  const auto slow = head_ablation_dnll(*model, base, false);
  ASSERT_EQ(fast.size(), static_cast<std::size_t>(base.layers() * base.heads()));
  for (std::size_t k = 0; k < fast.size(); ++k) EXPECT_NEAR(fast[k], slow[k], 1e-5) << k;
  const auto rows = diagnostic_dnll_correlation(base, fast);
  EXPECT_EQ(rows.size(), 5u);
  for (const auto& r : rows) {
    // NaN: undefined over a constant diagnostic (written empty), else in [-1, 1].
    EXPECT_TRUE(std::isnan(r.spearman) || std::abs(r.spearman) <= 1.0) << r.diagnostic;
    EXPECT_TRUE(std::isnan(r.pearson) || std::abs(r.pearson) <= 1.0) << r.diagnostic;
  }
}

TEST(Experiments, PerturbationReachesOnlyLaterPositionsAndIsSeeded) {
  const auto model = random_model("llama", "perturb");
  const std::vector<int> ids = some_ids(10, model->config().vocab_size);
  Perturbation p;
  p.position = 4;
  p.sigma = 0.5;
  const PerturbationMap a = perturbation_sensitivity(*model, ids, p);
  ASSERT_EQ(a.change.size(), static_cast<std::size_t>((a.layers + 1) * a.tokens));
  for (int l = 0; l <= a.layers; ++l)
    for (int i = 0; i < a.tokens; ++i) {
      const double c = a.change[static_cast<std::size_t>(l * a.tokens + i)];
      if (i < 4) {
        EXPECT_EQ(c, 0.0) << "causal: position " << i << " cannot see the change";
      }
      if (i == 4 && l == 0) {
        EXPECT_NEAR(c, 0.5, 1e-5) << "the noise has relative size sigma";
      }
    }
  EXPECT_EQ(perturbation_sensitivity(*model, ids, p).change, a.change);
  p.seed = 2;
  EXPECT_NE(perturbation_sensitivity(*model, ids, p).change, a.change);
  p.replacementId = (ids[4] + 1) % model->config().vocab_size;
  p.withoutFirstToken = true;
  const PerturbationMap b = perturbation_sensitivity(*model, ids, p);
  EXPECT_EQ(b.tokens, 9);
  EXPECT_GT(b.change[static_cast<std::size_t>(3)], 0.0)
      << "position 4 is index 3 without the first";
  const auto ranks = effective_rank_per_layer(model->run(ids));
  for (double r : ranks) {
    EXPECT_GE(r, 1.0);
    EXPECT_LE(r, 10.0);
  }
}
