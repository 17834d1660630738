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
  // Titles name the repository and the ref, never the snapshot hash (issue 17, item 3).
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

// The model chooser's words for a folder: family and weights size (issue 17, item 3).
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
  const ModelFolderSummary s = model_folder_summary(snapshot);
  EXPECT_EQ(s.family, "llama");
  EXPECT_EQ(s.weightBytes, 2000u);
  EXPECT_EQ(model_folder_summary(root / "missing").family, "?");
  EXPECT_EQ(byte_size_text(2000), "2.0 kB");
  EXPECT_EQ(byte_size_text(999), "999 B");
  EXPECT_EQ(byte_size_text(1'234'000'000), "1.2 GB");
  EXPECT_EQ(byte_size_text(350'000'000), "350 MB");
  fs::remove_all(root);
}

// A training run's checkpoints (issue 17, item 2): step-N folders with a
// config.json, by step, from the run's folder or its checkpoints folder.
TEST(ModelDiscovery, TrainingCheckpointsAreFoundInStepOrder) {
  const fs::path root = fs::temp_directory_path() / ("sinkscope-ckpt-" + std::to_string(::getpid()));
  fs::remove_all(root);
  for (const char* step : {"step-1000", "step-250", "step-50", "step-x", "notes"}) {
    fs::create_directories(root / "checkpoints" / step);
    std::ofstream(root / "checkpoints" / step / "config.json") << "{}";
  }
  fs::create_directories(root / "checkpoints" / "step-75");  // no config.json: not a checkpoint
  const auto steps = training_checkpoints(root);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].step, 50);
  EXPECT_EQ(steps[1].step, 250);
  EXPECT_EQ(steps[2].step, 1000);
  EXPECT_EQ(steps[2].folder, root / "checkpoints" / "step-1000");
  EXPECT_EQ(training_checkpoints(root / "checkpoints").size(), 3u);
  EXPECT_EQ(model_display_name(steps[1].folder), root.filename().string() + " (step 250)");
  EXPECT_TRUE(training_checkpoints(root / "missing").empty());
  fs::remove_all(root);
}
