// The trainer on a tiny configuration: the loss falls, a checkpoint reloads to
// the same logits, training resumes, and each position encoding behaves as
// its definition says on the same weights.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "models/model.h"
#include "models/model_writer.h"
#include "models/trainer.h"

namespace fs = std::filesystem;
using namespace sinkscope::models;

namespace {
const fs::path kSentences = fs::path(SINKSCOPE_SOURCE_DIR) / "resources/examples/sentences.txt";

fs::path scratch(const std::string& name) {
  const fs::path p =
      fs::temp_directory_path() / ("sinkscope-train-" + std::to_string(::getpid())) / name;
  fs::remove_all(p);
  return p;
}

TrainOptions tiny(const fs::path& out) {
  TrainOptions o;
  o.corpus = kSentences;
  o.heldout = kSentences;
  o.out = out;
  o.vocab_size = 400;
  o.layers = 1;
  o.heads = 2;
  o.hidden = 32;
  o.intermediate = 64;
  o.context = 32;
  o.batch_tokens = 512;
  o.steps = 20;
  o.warmup_steps = 2;
  o.learning_rate = 3e-3;
  o.log_every = 1;
  o.checkpoint_every = 10;
  o.eval_inputs = 1;
  o.eval_tokens = 24;
  o.save_dtype = DType::F32;
  return o;
}

double mean_loss(const std::vector<TrainLogRow>& rows, std::size_t from, std::size_t to) {
  double s = 0;
  for (std::size_t i = from; i < to; ++i) s += rows[i].loss;
  return s / static_cast<double>(to - from);
}
}  // namespace

TEST(Trainer, TwentyStepsLowerTheLossAndCheckpointsReload) {
  for (const char* architecture : {"decoder", "encoder"}) {
    TrainOptions o = tiny(scratch(std::string("loss-") + architecture));
    o.architecture = architecture;
    o.position_encoding = o.architecture == "encoder" ? "learned" : "rope";
    std::vector<TrainLogRow> rows;
    const TrainResult r = train_model(o, {}, [&](const TrainLogRow& row) { rows.push_back(row); });
    ASSERT_EQ(rows.size(), 20u);
    EXPECT_LT(mean_loss(rows, 15, 20), mean_loss(rows, 0, 5) - 0.3) << architecture;
    for (const char* file :
         {"config.json", "model.safetensors", "tokenizer.json", "log.csv", "recipe.json"})
      EXPECT_TRUE(fs::exists(o.out / file)) << file;
    EXPECT_TRUE(fs::exists(o.out / "checkpoints/step-10/optimizer.safetensors"));
    // The saved folder is an ordinary model folder with the trained weights.
    const auto reloaded = Model::load(o.out);
    ASSERT_FALSE(r.probe_ids.empty());
    const auto logits = reloaded->run(r.probe_ids).logits();
    ASSERT_EQ(logits.size(), r.probe_logits.size());
    for (std::size_t i = 0; i < logits.size(); ++i)
      ASSERT_NEAR(logits[i], r.probe_logits[i], 1e-4) << i;
  }
}

TEST(Trainer, ResumesFromACheckpoint) {
  TrainOptions first = tiny(scratch("resume-a"));
  train_model(first);
  TrainOptions more = tiny(scratch("resume-b"));
  more.resume = first.out / "checkpoints/step-10";
  more.steps = 14;
  std::vector<TrainLogRow> rows;
  train_model(more, {}, [&](const TrainLogRow& row) { rows.push_back(row); });
  ASSERT_EQ(rows.size(), 4u) << "steps 11..14 only";
  EXPECT_EQ(rows.front().step, 11);
  std::ifstream log(more.out / "log.csv");
  int lines = 0;
  for (std::string l; std::getline(log, l);)
    if (!l.empty() && l[0] != '#') ++lines;
  EXPECT_EQ(lines, 1 + 14) << "header plus the resumed run's ten earlier rows and four new ones";
}

TEST(Trainer, BadOptionsAreNamed) {
  TrainOptions o = tiny(scratch("bad"));
  o.position_encoding = "sinusoid";
  try {
    train_model(o);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--position-encoding"), std::string::npos);
  }
}

TEST(PositionEncodings, BehaveAsDefinedOnTheSameWeights) {
  const fs::path folder = scratch("pe");
  RandomModelSpec spec = random_model_spec_for("llama");
  spec.llama3_rope_scaling = false;
  spec.position_encoding = "learned";  // writes embed_positions too; the config picks what is used
  model_folder_write_random(folder, spec);
  const std::vector<int> ids{5, 17, 33, 8, 61, 2, 40, 19};
  auto attention = [&](const std::string& pe, int shift) {
    std::ifstream in(folder / "config.json");
    auto config = nlohmann::json::parse(in);
    config["position_encoding"] = pe;
    std::ofstream(folder / "config.json") << config.dump();
    RunOptions o;
    o.position_shift = shift;
    const Trace t = Model::load(folder)->run(ids, o);
    return t.layer(0).attention;
  };
  auto max_diff = [](const std::vector<float>& a, const std::vector<float>& b) {
    double d = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
      d = std::max(d, static_cast<double>(std::abs(a[i] - b[i])));
    return d;
  };
  // RoPE: only relative positions matter.
  EXPECT_LT(max_diff(attention("rope", 0), attention("rope", 13)), 1e-4);
  // ALiBi and NoPE: no absolute position anywhere.
  EXPECT_LT(max_diff(attention("alibi", 0), attention("alibi", 13)), 1e-6);
  EXPECT_LT(max_diff(attention("none", 0), attention("none", 13)), 1e-6);
  // Learned absolute positions: a shift changes the attention.
  EXPECT_GT(max_diff(attention("learned", 0), attention("learned", 13)), 1e-3);
  // And the encodings differ from one another on the same weights.
  EXPECT_GT(max_diff(attention("rope", 0), attention("none", 0)), 1e-3);
  EXPECT_GT(max_diff(attention("alibi", 0), attention("none", 0)), 1e-3);
}
