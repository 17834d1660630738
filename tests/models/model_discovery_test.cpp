// Model folders by path or by Hugging Face cache name.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "models/model_discovery.h"

namespace fs = std::filesystem;
using namespace sinkscope::models;

TEST(ModelDiscovery, FindsCacheSnapshotsByName) {
  const fs::path root = fs::temp_directory_path() / ("sinkscope-hub-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const fs::path repo = root / "models--acme--tiny-llm";
  fs::create_directories(repo / "snapshots" / "abc123");
  fs::create_directories(repo / "snapshots" / "old999");
  fs::create_directories(repo / "refs");
  std::ofstream(repo / "snapshots" / "abc123" / "config.json") << "{}";
  std::ofstream(repo / "snapshots" / "old999" / "config.json") << "{}";
  std::ofstream(repo / "refs" / "main") << "abc123";
  fs::create_directories(root / "models--acme--empty" / "snapshots" /
                         "x");  // no config.json: not a model
  fs::create_directories(root / "datasets--acme--data" / "snapshots" / "y");

  const auto models = hf_cache_models(root);
  ASSERT_EQ(models.size(), 1u);
  EXPECT_EQ(models[0].name, "acme/tiny-llm");
  EXPECT_EQ(models[0].folder, repo / "snapshots" / "abc123");
  EXPECT_EQ(model_location_resolve("acme/tiny-llm", root), repo / "snapshots" / "abc123");
  EXPECT_EQ(model_location_resolve(root.string(), root), root) << "a folder is taken as it is";
  try {
    model_location_resolve("acme/none", root);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(
        std::string(e.what()).find("acme/none: not a folder, and not in the Hugging Face cache"),
        std::string::npos);
  }
  EXPECT_TRUE(hf_cache_models(root / "missing").empty());
  // Titles name the repository and the ref, never the snapshot hash.
  EXPECT_EQ(model_display_name(repo / "snapshots" / "abc123"), "acme/tiny-llm (main)");
  EXPECT_EQ(model_display_name(repo / "snapshots" / "old999"), "acme/tiny-llm (revision old999)");
  EXPECT_EQ(model_display_name(repo / "snapshots" / "abc123" / ""), "acme/tiny-llm (main)");
  EXPECT_EQ(model_display_name(root / "plain-folder"), "plain-folder");
  fs::remove_all(root);
}

TEST(ModelDiscovery, CacheRootFollowsTheEnvironment) {
  setenv("HF_HUB_CACHE", "/x/hub", 1);
  EXPECT_EQ(hf_cache_root(), fs::path("/x/hub"));
  unsetenv("HF_HUB_CACHE");
  setenv("HF_HOME", "/y", 1);
  EXPECT_EQ(hf_cache_root(), fs::path("/y/hub"));
  unsetenv("HF_HOME");
}

// The model chooser's words for a folder: family and weights size.
TEST(ModelDiscovery, AFolderSummaryGivesFamilyAndWeightSize) {
  const fs::path root = fs::temp_directory_path() / ("sinkscope-summary-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const fs::path blobs = root / "models--acme--tiny" / "blobs";
  const fs::path snapshot = root / "models--acme--tiny" / "snapshots" / "abc";
  fs::create_directories(blobs);
  fs::create_directories(snapshot);
  std::ofstream(snapshot / "config.json")
      << R"({"model_type": "llama", "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
             "intermediate_size": 16, "vocab_size": 10, "max_position_embeddings": 16})";
  std::ofstream(blobs / "w1") << std::string(1500, 'x');
  fs::create_symlink(blobs / "w1", snapshot / "model.safetensors");  // as the cache links them
  std::ofstream(snapshot / "pytorch_model.bin") << std::string(500, 'y');
  std::ofstream(snapshot / "notes.txt") << std::string(9000, 'z');  // not weights
  const ModelChooserEntry s = model_folder_summary(snapshot);
  EXPECT_EQ(s.family, "llama");
  EXPECT_EQ(s.weightBytes, 2000u);
  EXPECT_EQ(model_folder_summary(root / "missing").family, "?");
  EXPECT_EQ(byte_size_text(2000), "2.0 kB");
  EXPECT_EQ(byte_size_text(999), "999 B");
  EXPECT_EQ(byte_size_text(1'234'000'000), "1.2 GB");
  EXPECT_EQ(byte_size_text(350'000'000), "350 MB");
  fs::remove_all(root);
}

// A training run's checkpoints: step-N folders with a
// config.json, by step, from the run's folder or its checkpoints folder.
TEST(ModelDiscovery, TrainingCheckpointsAreFoundInStepOrder) {
  const fs::path root = fs::temp_directory_path() / ("sinkscope-ckpt-" + std::to_string(::getpid()));
  fs::remove_all(root);
  for (const char* step : {"step-1000", "step-250", "step-50", "step-x", "notes"}) {
    fs::create_directories(root / "checkpoints" / step);
    std::ofstream(root / "checkpoints" / step / "config.json") << "{}";
  }
  fs::create_directories(root / "checkpoints" / "step-75");  // no config.json: not a checkpoint
  const auto steps = training_checkpoints(root).steps;
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].step, 50);
  EXPECT_EQ(steps[1].step, 250);
  EXPECT_EQ(steps[2].step, 1000);
  EXPECT_EQ(steps[2].folder, root / "checkpoints" / "step-1000");
  EXPECT_EQ(training_checkpoints(root / "checkpoints").steps.size(), 3u);
  EXPECT_EQ(model_display_name(steps[1].folder), root.filename().string() + " (step 250)");
  EXPECT_TRUE(training_checkpoints(root / "missing").steps.empty());
  EXPECT_EQ(training_checkpoints(root).note(), "");
  fs::remove_all(root);
}

TEST(ModelDiscovery, TheFinalModelClosesTheRunAndLinksAreLeftOut) {
  const fs::path root = fs::temp_directory_path() / ("sinkscope-final-" + std::to_string(::getpid()));
  const fs::path elsewhere = root.string() + "-elsewhere";
  fs::remove_all(root);
  fs::remove_all(elsewhere);
  for (const char* step : {"step-25", "step-450"}) {
    fs::create_directories(root / "checkpoints" / step);
    std::ofstream(root / "checkpoints" / step / "config.json") << "{}";
  }
  // A step that links to a model folder anywhere is never opened as a step.
  fs::create_directories(elsewhere);
  std::ofstream(elsewhere / "config.json") << "{}";
  fs::create_directory_symlink(elsewhere, root / "checkpoints" / "step-300");
  // The run's own folder is the final model, at recipe.json's step.
  std::ofstream(root / "config.json") << "{}";
  std::ofstream(root / "recipe.json") << R"({"steps": 500})";
  CheckpointList list = training_checkpoints(root);
  ASSERT_EQ(list.steps.size(), 3u);
  EXPECT_EQ(list.steps[1].step, 450);
  EXPECT_EQ(list.steps[2].step, 500);
  EXPECT_EQ(list.steps[2].folder, root);
  EXPECT_TRUE(list.steps[2].final);
  EXPECT_EQ(list.linksLeftOut, 1u);
  EXPECT_EQ(list.note(), "1 step folder(s) that are links left out");
  // A final step that is no later than the last checkpoint, or a recipe that
  // is not a whole number, adds nothing.
  for (const char* recipe : {R"({"steps": 450})", R"({"steps": 5e2})", R"({"steps": -1})", "{"}) {
    std::ofstream(root / "recipe.json") << recipe;
    list = training_checkpoints(root);
    ASSERT_EQ(list.steps.size(), 2u) << recipe;
    EXPECT_FALSE(list.steps.back().final) << recipe;
  }
  // ...but a recipe that is damaged or wrong says so: the final model is not
  // dropped without a word.
  for (const char* recipe : {R"({"steps": 5e2})", "{"}) {
    std::ofstream(root / "recipe.json") << recipe;
    list = training_checkpoints(root);
    EXPECT_NE(list.note().find("the final model left out ("), std::string::npos) << list.note();
    EXPECT_NE(list.note().find("recipe.json"), std::string::npos) << list.note();
  }
  // step-0450 is step-450 spelt otherwise: left out, and said.
  std::ofstream(root / "recipe.json") << R"({"steps": 500})";
  fs::create_directories(root / "checkpoints" / "step-0450");
  std::ofstream(root / "checkpoints" / "step-0450" / "config.json") << "{}";
  list = training_checkpoints(root);
  ASSERT_EQ(list.steps.size(), 3u);
  EXPECT_EQ(list.steps[1].step, 450);
  EXPECT_EQ(list.steps[1].folder, root / "checkpoints" / "step-450");
  EXPECT_EQ(list.note(),
            "1 step folder(s) that are links left out; 1 step folder(s) named with leading zeros "
            "left out (the trainer writes step-N)");
  fs::remove_all(root);
  fs::remove_all(elsewhere);
}

TEST(ModelDiscovery, ManyCheckpointsAreSpreadEvenlyAndSaySo) {
  const fs::path root = fs::temp_directory_path() / ("sinkscope-many-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const int total = static_cast<int>(kMaxCheckpoints) + 904;
  for (int k = 1; k <= total; ++k) {
    const fs::path step = root / "checkpoints" / ("step-" + std::to_string(10 * k));
    fs::create_directories(step);
    std::ofstream(step / "config.json") << "{}";
  }
  const CheckpointList list = training_checkpoints(root);
  ASSERT_EQ(list.steps.size(), kMaxCheckpoints);
  EXPECT_EQ(list.found, static_cast<std::size_t>(total));
  EXPECT_EQ(list.steps.front().step, 10);
  EXPECT_EQ(list.steps.back().step, 10LL * total) << "the slider's last checkpoint is the last step";
  for (std::size_t k = 1; k < list.steps.size(); ++k) {
    const long long gap = list.steps[k].step - list.steps[k - 1].step;
    ASSERT_TRUE(gap == 10 || gap == 20) << "evenly spread, at " << k;
  }
  EXPECT_EQ(list.note(), "4096 of " + std::to_string(total) +
                             " checkpoints shown, evenly spread (the first and the last kept)");
  fs::remove_all(root);
}
