// SinkScope's built-in models (resources/models) load and run: the app's
// default model must work on a fresh machine.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "models/loaded_model.h"

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
  EXPECT_LT(bytes, 40u * 1024 * 1024) << "built-in models must stay under 40 MB in git";
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
