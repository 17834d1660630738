// SinkScope's forward pass against Hugging Face transformers' outputs for the
// same random-weight folders (tests/reference/make_references.py). Skipped
// for model types whose reference file has not been committed yet.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "models/model.h"
#include "models/model_writer.h"

namespace fs = std::filesystem;
using namespace sinkscope::models;

class Reference : public ::testing::TestWithParam<std::string> {};

TEST_P(Reference, LogitsAndAttentionsMatchTransformers) {
  const fs::path file =
      fs::path(SINKSCOPE_SOURCE_DIR) / "tests/reference/outputs" / (GetParam() + ".json");
  if (!fs::exists(file))
    GTEST_SKIP() << "no reference " << file << " (see tests/reference/make_references.py)";
  std::ifstream in(file);
  const auto ref = nlohmann::json::parse(in);
  const fs::path folder = fs::temp_directory_path() /
                          ("sinkscope-ref-" + GetParam() + "-" + std::to_string(::getpid()));
  fs::remove_all(folder);
  model_folder_write_random(
      folder, random_model_spec_for(GetParam()));  // what `random-model TYPE --no-tokenizer` writes
  const auto model = Model::load(folder);
  const Trace trace = model->run(ref["ids"].get<std::vector<int>>());
  const auto logits = ref["logits"].get<std::vector<float>>();
  ASSERT_EQ(trace.logits().size(), logits.size());
  for (std::size_t i = 0; i < logits.size(); ++i)
    ASSERT_NEAR(trace.logits()[i], logits[i], 1e-4) << "logit " << i;
  const auto& attentions = ref["attentions"];
  ASSERT_EQ(static_cast<int>(attentions.size()), trace.layers());
  for (int l = 0; l < trace.layers(); ++l) {
    const auto expected = attentions[static_cast<std::size_t>(l)].get<std::vector<float>>();
    const LayerCapture cap = trace.layer(l);
    ASSERT_EQ(cap.attention.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
      ASSERT_NEAR(cap.attention[i], expected[i], 1e-4) << "layer " << l << " entry " << i;
  }
  fs::remove_all(folder);
}

INSTANTIATE_TEST_SUITE_P(Transformers, Reference,
                         ::testing::Values("gpt2", "llama", "mistral", "qwen2", "gemma", "gemma2",
                                           "phi", "gpt_neox", "bert", "roberta", "xlm-roberta"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });
