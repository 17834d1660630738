// The trainer on a tiny configuration: the loss falls, a checkpoint reloads to
// the same logits, training resumes, and each position encoding behaves as
// its definition says on the same weights.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <limits>
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

// Numbers that would give NaN losses or a recipe other than the one asked
// for are refused before anything is written.
TEST(Trainer, OptionsOutOfTheirRangeAreRefused) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::pair<std::function<void(TrainOptions&)>, std::string>> cases{
      {[&](TrainOptions& o) { o.learning_rate = nan; }, "--lr"},
      {[](TrainOptions& o) { o.learning_rate = 1e30; }, "--lr"},
      {[](TrainOptions& o) { o.learning_rate = -1; }, "--lr"},
      {[](TrainOptions& o) { o.weight_decay = 1e30; }, "--weight-decay"},
      {[](TrainOptions& o) { o.weight_decay = -1e30; }, "--weight-decay"},
      {[](TrainOptions& o) { o.ntk_scale = -4; }, "--ntk-scale"},
      {[](TrainOptions& o) { o.ntk_scale = 1e300; }, "--ntk-scale"}};
  for (const auto& [change, option] : cases) {
    TrainOptions o = tiny(scratch("range"));
    change(o);
    try {
      train_model(o);
      ADD_FAILURE() << option << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(option), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(o.out)) << option << ": nothing written";
  }
}

namespace {
// Overwrites the F32 data of the first tensor of `file` whose name starts with
// `prefix` with `value` (safetensors: 8-byte header length, JSON header, data).
void overwrite_tensor(const fs::path& file, const std::string& prefix, float value) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  std::uint64_t n = 0;
  f.read(reinterpret_cast<char*>(&n), 8);
  std::string header(n, ' ');
  f.read(header.data(), static_cast<std::streamsize>(n));
  const auto h = nlohmann::json::parse(header);
  for (const auto& [name, info] : h.items()) {
    if (name.rfind(prefix, 0) != 0) continue;
    const auto begin = info.at("data_offsets")[0].get<std::uint64_t>();
    const auto end = info.at("data_offsets")[1].get<std::uint64_t>();
    f.seekp(static_cast<std::streamoff>(8 + n + begin));
    for (std::uint64_t k = begin; k < end; k += 4) f.write(reinterpret_cast<const char*>(&value), 4);
    return;
  }
  ADD_FAILURE() << "no tensor " << prefix << "* in " << file;
}

// Gives the first `prefix`* tensor of `file` the shape [1] and one value,
// keeping the file valid (data packed again, offsets moved).
void misshape_tensor(const fs::path& file, const std::string& prefix) {
  std::ifstream in(file, std::ios::binary);
  std::uint64_t n = 0;
  in.read(reinterpret_cast<char*>(&n), 8);
  std::string header(n, ' ');
  in.read(header.data(), static_cast<std::streamsize>(n));
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  auto h = nlohmann::json::parse(header);
  std::vector<std::pair<std::uint64_t, std::string>> order;
  for (const auto& [name, info] : h.items())
    if (name != "__metadata__") order.emplace_back(info.at("data_offsets")[0].get<std::uint64_t>(), name);
  std::sort(order.begin(), order.end());
  bool changed = false;
  std::string packed;
  for (const auto& [begin, name] : order) {
    auto& info = h[name];
    const auto end = info.at("data_offsets")[1].get<std::uint64_t>();
    std::uint64_t size = end - begin;
    if (!changed && name.rfind(prefix, 0) == 0) {
      info["shape"] = {1};
      size = 4;
      changed = true;
    }
    info["data_offsets"] = {packed.size(), packed.size() + size};
    packed += data.substr(begin, size);
  }
  ASSERT_TRUE(changed) << "no tensor " << prefix << "* in " << file;
  std::string text = h.dump();
  while (text.size() % 8) text += ' ';
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  const std::uint64_t m = text.size();
  out.write(reinterpret_cast<const char*>(&m), 8);
  out << text << packed;
}

std::string train_error(const TrainOptions& o) {
  try {
    train_model(o);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(accepted)";
}
}  // namespace

// A resumed run trusts nothing of the checkpoint: optimizer moments of another
// shape and impossible steps are refused by name, and a run whose loss turns
// NaN stops with the reason instead of saving NaN weights.
TEST(Trainer, AHostileCheckpointIsRefusedAndADivergingRunStops) {
  TrainOptions first = tiny(scratch("hostile-a"));
  first.steps = 12;
  train_model(first);
  const fs::path checkpoint = first.out / "checkpoints/step-10";
  auto copy = [&](const std::string& name) {
    const fs::path to = scratch(name);
    fs::copy(checkpoint, to, fs::copy_options::recursive);
    return to;
  };
  TrainOptions more = tiny(scratch("hostile-b"));
  more.steps = 14;

  more.resume = copy("misshapen");
  misshape_tensor(more.resume / "optimizer.safetensors", "m.");
  std::string e = train_error(more);
  EXPECT_NE(e.find("optimizer.safetensors: m."), std::string::npos) << e;
  EXPECT_NE(e.find("has shape [1], the model's"), std::string::npos) << e;

  for (const std::string step : {"-1000000", "3000000000", "1e300", "14", "\"3\""}) {
    more.resume = copy("state");
    std::ofstream(more.resume / "trainer_state.json")
        << R"({"step": )" << step << R"(, "tokens": 100, "recipe": {}})";
    e = train_error(more);
    EXPECT_NE(e.find("trainer_state.json: \"step\""), std::string::npos) << step << ": " << e;
  }
  more.resume = copy("tokens");
  std::ofstream(more.resume / "trainer_state.json") << R"({"step": 10, "tokens": -5})";
  EXPECT_NE(train_error(more).find("\"tokens\" -5 is negative"), std::string::npos);

  // NaN moments make the weights NaN at the first update: the next loss is NaN.
  more.resume = copy("nan");
  overwrite_tensor(more.resume / "optimizer.safetensors", "m.", std::numeric_limits<float>::quiet_NaN());
  more.force = true;
  e = train_error(more);
  EXPECT_NE(e.find("step 12: the loss is"), std::string::npos) << e;
  EXPECT_NE(e.find("training stopped"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(more.out / "model.safetensors")) << "no model of NaNs saved";
}

// --out keeps the rules of every output: a run already there is replaced only
// with force, and a link is never written through.
TEST(Trainer, ARunInOutIsReplacedOnlyWithForceAndLinksAreRefused) {
  TrainOptions o = tiny(scratch("out"));
  o.steps = 2;
  train_model(o);
  EXPECT_NE(train_error(o).find("use --force to replace it"), std::string::npos);
  o.force = true;
  EXPECT_EQ(train_error(o), "(accepted)");
  const fs::path elsewhere = scratch("elsewhere");
  fs::create_directories(elsewhere);
  TrainOptions linked = tiny(scratch("linked"));
  linked.steps = 2;
  linked.force = true;
  fs::create_directory_symlink(elsewhere, linked.out);
  EXPECT_NE(train_error(linked).find("is a link"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(elsewhere));
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

namespace {
std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
}  // namespace

TEST(Trainer, WithoutHeldoutTheCorpusTailIsMeasuredOrNothingIs) {
  // No --heldout: the corpus's last tenth is held out and measured (the sink
  // columns hold real, positive numbers and the header says where they came
  // from); a corpus too small to spare a tenth measures nothing and leaves
  // the columns empty instead of writing zeros. A resume keeps both kinds.
  TrainOptions o = tiny(scratch("no-heldout"));
  o.heldout.clear();
  o.steps = 3;
  std::vector<TrainLogRow> rows;
  train_model(o, {}, [&](const TrainLogRow& row) { rows.push_back(row); });
  ASSERT_EQ(rows.size(), 3u);
  for (const TrainLogRow& r : rows) {
    ASSERT_TRUE(r.measured());
    EXPECT_GT(r.alpha0, 0.0);
    EXPECT_GT(r.boost, 0.0);
  }
  const std::string log = read_all(o.out / "log.csv");
  EXPECT_NE(log.find("# eval: 1 held-out inputs of 24 tokens from the corpus's last 50 sentences, "
                     "held out of training (no --heldout)"),
            std::string::npos)
      << log;

  const fs::path small = scratch("small-corpus.txt");
  fs::create_directories(small.parent_path());
  {
    std::ofstream out(small);
    std::ifstream in(kSentences);
    std::string line;
    for (int k = 0; k < 9 && std::getline(in, line); ++k) out << line << "\n";
  }
  TrainOptions tinyCorpus = tiny(scratch("no-heldout-small"));
  tinyCorpus.corpus = small;
  tinyCorpus.heldout.clear();
  tinyCorpus.vocab_size = 300;
  tinyCorpus.steps = 2;
  tinyCorpus.checkpoint_every = 1;
  rows.clear();
  train_model(tinyCorpus, {}, [&](const TrainLogRow& row) { rows.push_back(row); });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_FALSE(rows[0].measured());
  const std::string empty = read_all(tinyCorpus.out / "log.csv");
  EXPECT_NE(empty.find("# eval: none: no --heldout and a corpus under 10 sentences; the sink "
                       "columns are empty"),
            std::string::npos)
      << empty;
  EXPECT_NE(empty.find("\n1,"), std::string::npos);
  EXPECT_EQ(empty.find(",0,0,0,0,0"), std::string::npos) << "no zeros for what was not measured";
  const std::size_t row = empty.find("\n1,");
  EXPECT_EQ(empty.substr(row, empty.find('\n', row + 1) - row).back(), ',') << "empty last cell";

  TrainOptions more = tiny(scratch("no-heldout-small-resumed"));
  more.corpus = small;
  more.heldout.clear();
  more.vocab_size = 300;
  more.steps = 3;
  more.resume = tinyCorpus.out / "checkpoints/step-1";
  rows.clear();
  train_model(more, {}, [&](const TrainLogRow& row) { rows.push_back(row); });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(read_all(more.out / "log.csv").find("nan"), std::string::npos);
}
