// Replays every file of tests/fuzz/corpus/TARGET/ (the seeds, every hostile
// case that a parser sees, and what the fuzzers found) through
// the release build's parsers: each must be accepted or refused with a
// ModelInputError; anything else - another exception, a crash, a trap in the
// targets' consistency checks - fails the test, naming the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "fuzz/fuzz_targets.h"

namespace fs = std::filesystem;
using sinkscope::fuzz::fuzz_target_named;
using sinkscope::fuzz::fuzz_target_names;

namespace {

std::vector<std::uint8_t> bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class FuzzCorpus : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(FuzzCorpus, EveryFileIsAcceptedOrCleanlyRefused) {
  const auto target = fuzz_target_named(GetParam());
  ASSERT_NE(target, nullptr);
  const fs::path folder = fs::path(SINKSCOPE_SOURCE_DIR) / "tests/fuzz/corpus" / GetParam();
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(folder))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 5u) << "the corpus of " << GetParam() << " is missing";
  int accepted = 0;
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    const auto data = bytes_of(f);
    bool ok = false;
    EXPECT_NO_THROW(ok = target(data.data(), data.size())) << f;
    accepted += ok;
  }
  // Each corpus holds valid inputs too: a parser refusing everything would pass otherwise.
  EXPECT_GT(accepted, 0) << "no file of " << GetParam() << " was accepted";
  EXPECT_LT(accepted, static_cast<int>(files.size())) << "no file was refused";
}

TEST(FuzzCorpus, CaseFilesAreRefusedOrAcceptedAsExpected) {
  auto run = [](const std::string& target, const std::string& name) {
    const auto data =
        bytes_of(fs::path(SINKSCOPE_SOURCE_DIR) / "tests/fuzz/corpus" / target / name);
    EXPECT_FALSE(data.empty()) << target << "/" << name;
    return fuzz_target_named(target)(data.data(), data.size());
  };
  for (const char* refused : {"weight-map-empty", "escape-parent", "absolute-etc-passwd",
                              "escape-etc-shadow", "nested-100000-deep"})
    EXPECT_FALSE(run("index", refused)) << refused;
  EXPECT_TRUE(run("index", "valid-two-shards"));
  for (const char* refused : {"layers-above-int-max", "rope-factor-string", "rope-theta-inf",
                              "eps-negative", "roberta-pad-int-max", "nested-100000-deep"})
    EXPECT_FALSE(run("config", refused)) << refused;
  EXPECT_TRUE(run("config", "random-llama"));
  EXPECT_FALSE(run("safetensors", "metadata-nested-5000-deep"));
  EXPECT_TRUE(run("safetensors", "valid-f32-f16-bf16"));
  for (const char* refused :
       {"sequence-normalizer-2000-deep", "sequence-pre_tokenizer-2000-deep",
        "sequence-post_processor-2000-deep", "normalizer-value-100000-deep", "vocab-id-1e8",
        "vocab-id-2p31-2", "vocab-id-int-max", "added-token-id-int-max", "config-wrong-types",
        "special-map-wrong-types"})
    EXPECT_FALSE(run("tokenizer", refused)) << refused;
  EXPECT_TRUE(run("tokenizer", "long-word-100000"));
  // Found by fuzz_tokenizer: a post-processor id beyond the vocabulary was
  // returned by encode() but not counted in vocabSize().
  EXPECT_TRUE(run("tokenizer", "finding-template-id-outside-vocabulary"));
  EXPECT_TRUE(run("tokenizer", "random-llama"));
  EXPECT_FALSE(run("encode", "incomplete-utf8-tokenizer-0"));
  EXPECT_FALSE(run("encode", "lone-ff-tokenizer-3"));
  EXPECT_FALSE(run("encode", "nul-tokenizer-1"));
  EXPECT_TRUE(run("encode", "long-word-100000-tokenizer-0"));
  EXPECT_TRUE(run("encode", "mixed-scripts-tokenizer-5"));
  // Files a user receives: sentence files, sessions, merged study folders.
  for (const char* accepted : {"plain-lines", "plain-blank-lines-crlf", "plain-unicode",
                               "jsonl-valid", "jsonl-many-entries"})
    EXPECT_TRUE(run("sentences", accepted)) << accepted;
  for (const char* refused : {"plain-bad-utf8", "plain-nul", "jsonl-missing-text",
                              "jsonl-text-not-string", "jsonl-not-object", "jsonl-bad-json",
                              "jsonl-deep", "jsonl-escaped-nul"})
    EXPECT_FALSE(run("sentences", refused)) << refused;
  for (const char* accepted : {"valid-full", "valid-minimal", "zeros-4096", "valid-version-2"})
    EXPECT_TRUE(run("session", accepted)) << accepted << " (4,096 zeros collapse to one)";
  for (const char* refused : {"version-1e300", "text-number", "layer-negative",
                              "interventions-300", "camera-zero", "deep", "not-json",
                              "ablate-float-version-2"})
    EXPECT_FALSE(run("session", refused)) << refused;
  EXPECT_TRUE(run("study", "valid-merged"));
  for (const char* refused : {"study-json-only", "bad-study-json", "layers-float", "many-commas",
                              "truncated-specialisation"})
    EXPECT_FALSE(run("study", refused)) << refused;
  // Study shards as a merge reads and pools them.
  for (const char* accepted : {"valid-one-shard", "many-sink-tokens"})
    EXPECT_TRUE(run("shards", accepted)) << accepted;
  for (const char* refused : {"records-cut-in-half", "same-shard-twice", "manifest-shard-float",
                              "sentences-2-to-the-32", "record-heads-cut", "alpha-2-to-the-1000",
                              "index-float"})
    EXPECT_FALSE(run("shards", refused)) << refused;
  // Captures and their .npy members (made by make_corpus.py --captures; its
  // valid ones also load with numpy.load, checked by hand when they were
  // written): the valid-* files are read, every other hand-made case is refused.
  for (const char* target : {"capture", "npy"})
    for (const auto& e : fs::directory_iterator(fs::path(SINKSCOPE_SOURCE_DIR) / "tests/fuzz/corpus" / target)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("finding-", 0) == 0 || name.rfind("crash-", 0) == 0) continue;
      EXPECT_EQ(run(target, name), name.rfind("valid-", 0) == 0) << target << "/" << name;
    }
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzCorpus, ::testing::ValuesIn(fuzz_target_names()));
