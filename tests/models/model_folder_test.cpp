// First look at Hugging Face model folders: what is read, and how bad folders are reported.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "models/model_folder.h"

namespace fs = std::filesystem;
using sinkscope::models::model_folder_inspect;
using sinkscope::models::ModelFolderError;

namespace {
class ModelFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("sinkscope-model-folder-" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  std::string error_of() {
    try {
      model_folder_inspect(dir_);
    } catch (const ModelFolderError& e) {
      return e.what();
    }
    return "";
  }
  fs::path dir_;
};
}  // namespace

TEST_F(ModelFolderTest, ReadsLlamaStyleConfig) {
  write("config.json", R"({"model_type": "llama", "num_hidden_layers": 4, "num_attention_heads": 8,
                           "hidden_size": 256})");
  write("model.safetensors", "x");
  write("tokenizer.json", "{}");
  const auto s = model_folder_inspect(dir_);
  EXPECT_EQ(s.model_type, "llama");
  EXPECT_EQ(s.num_layers, 4);
  EXPECT_EQ(s.num_heads, 8);
  EXPECT_EQ(s.hidden_size, 256);
  EXPECT_TRUE(s.has_tokenizer);
  ASSERT_EQ(s.weight_files.size(), 1u);
}

TEST_F(ModelFolderTest, ReadsGpt2NamesAndShardedIndex) {
  write("config.json", R"({"model_type": "gpt2", "n_layer": 12, "n_head": 12, "n_embd": 768})");
  write(
      "model.safetensors.index.json",
      R"({"weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors",
                            "c": "model-00001-of-00002.safetensors"}})");
  write("model-00001-of-00002.safetensors", "x");
  write("model-00002-of-00002.safetensors", "x");
  const auto s = model_folder_inspect(dir_);
  EXPECT_EQ(s.num_layers, 12);
  EXPECT_EQ(s.hidden_size, 768);
  EXPECT_EQ(s.weight_files.size(), 2u);
  EXPECT_FALSE(s.has_tokenizer);
}

TEST_F(ModelFolderTest, ErrorsNameTheFileAndField) {
  EXPECT_NE(error_of().find("config.json: missing"), std::string::npos);
  write("config.json", "{not json");
  EXPECT_NE(error_of().find("config.json: not valid JSON"), std::string::npos);
  write("config.json", R"({"num_hidden_layers": 2, "num_attention_heads": 2})");
  EXPECT_NE(error_of().find("field \"model_type\""), std::string::npos);
  write("config.json",
        R"({"model_type": "llama", "num_hidden_layers": -2, "num_attention_heads": 2})");
  EXPECT_NE(error_of().find("\"num_hidden_layers\" must be an integer in 1..1024"), std::string::npos);
  write("config.json",
        R"({"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 2})");
  EXPECT_NE(error_of().find("no model.safetensors"), std::string::npos);
  write("model.safetensors.index.json", R"({"weight_map": {"a": "gone.safetensors"}})");
  EXPECT_NE(error_of().find("shard \"gone.safetensors\" is missing"), std::string::npos);
  EXPECT_THROW(model_folder_inspect(dir_ / "nope"), ModelFolderError);
}
