// SinkScope's built-in models (resources/models) load and run: the app's
// default model must work on a fresh machine.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "models/corpus.h"
#include "models/loaded_model.h"
#include "models/model_discovery.h"
#include "models/trainer.h"

namespace fs = std::filesystem;
using namespace sinkscope::models;

namespace {
const fs::path kModels = fs::path(SINKSCOPE_SOURCE_DIR) / "resources/models";
}

TEST(BuiltinModels, TheFourVariantsAreThereWithRecipeAndLog) {
  for (const char* name : {"rope-decoder", "learned-decoder", "nope-decoder", "learned-encoder"}) {
    const fs::path folder = kModels / name;
    for (const char* file :
         {"config.json", "model.safetensors", "tokenizer.json", "recipe.json", "log.csv"})
      EXPECT_TRUE(fs::exists(folder / file)) << folder / file;
  }
  std::uintmax_t bytes = 0;
  for (const auto& e : fs::recursive_directory_iterator(kModels))
    if (e.is_regular_file()) bytes += e.file_size();
  EXPECT_LT(bytes, 40u * 1024 * 1024)
      << "built-in models and their checkpoints must stay under 40 MB in git";
}

TEST(BuiltinModels, EachLoadsAndRunsAnExampleSentence) {
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(kModels)) {
    if (!fs::exists(entry.path() / "config.json")) continue;
    const LoadedModel loaded = loaded_model_open(entry.path().string());
    ASSERT_TRUE(loaded.tokenizer) << entry.path();
    const SentenceTrace run =
        loaded_model_run(loaded, "The cat sat on the mat because it was tired.");
    const Trace& t = run.trace;
    EXPECT_EQ(t.tokens(), static_cast<int>(run.encoding.ids.size()));
    for (int l = 0; l < t.layers(); ++l) {
      const LayerCapture cap = t.layer(l);
      for (int h = 0; h < cap.heads; ++h) {
        const auto A = cap.attentionOf(h);
        for (int i = 0; i < A.size; ++i) {
          double sum = 0;
          for (int j = 0; j < A.size; ++j) sum += A.at(i, j);
          ASSERT_NEAR(sum, 1.0, 1e-4) << entry.path() << " layer " << l << " head " << h;
        }
      }
    }
    ++checked;
  }
  EXPECT_GE(checked, 4);
}

// The default model ships a handful of checkpoints of its training run, so
// File > Open this model's training shows the first-token sink emerging with
// nothing trained: on held-out text (as the trainer measures it) no head has a
// strong sink at the first checkpoint, and the share grows to the final model.
TEST(BuiltinModels, TheDefaultModelShipsTheCheckpointsOfItsSinkEmerging) {
  const fs::path run = kModels / "rope-decoder-bos-first";
  const CheckpointList list = training_checkpoints(run);
  std::vector<long long> steps;
  for (const Checkpoint& c : list.steps) steps.push_back(c.step);
  ASSERT_EQ(steps, (std::vector<long long>{500, 2000, 4000, 7000, 14000}));
  EXPECT_TRUE(list.steps.back().final);
  const std::vector<std::string> heldout =
      corpus_read_lines(fs::path(SINKSCOPE_SOURCE_DIR) / "resources/examples/sentences.txt");
  std::vector<double> strong;
  for (const Checkpoint& c : list.steps) {
    // Only what a model folder needs: the optimizer state stays out of the package.
    EXPECT_FALSE(fs::exists(c.folder / "optimizer.safetensors")) << c.folder;
    const LoadedModel loaded = loaded_model_open(c.folder.string());
    ASSERT_TRUE(loaded.tokenizer) << c.folder;
    const auto inputs = sink_eval_inputs(*loaded.tokenizer, heldout, 8, 64);
    ASSERT_EQ(inputs.size(), 8u);
    strong.push_back(sink_measure(*loaded.model, inputs).heads_boost3);
  }
  EXPECT_EQ(strong.front(), 0.0) << "no strong sink at step 500";
  for (std::size_t k = 1; k < strong.size(); ++k)
    EXPECT_GE(strong[k], strong[k - 1]) << "step " << steps[k];
  EXPECT_GE(strong.back(), 0.3) << "the final model";
}
