// Folders of the papers' real model shapes (random-model --like): the
// published config.json, BF16 weights sharded as the repositories are, and
// a model of that shape kept in its stored dtype when it runs.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "models/model.h"
#include "models/model_config.h"
#include "models/model_writer.h"
#include "models/real_model_shapes.h"
#include "models/safetensors.h"
#include "support/shell_run.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace sinkscope::models;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("sinkscope-real-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

// Every tensor header of a folder's safetensors files, by name, with its file.
std::map<std::string, std::pair<std::string, TensorView>> tensors_of(const fs::path& folder,
                                                                    std::vector<SafetensorsFile>& keep) {
  std::map<std::string, std::pair<std::string, TensorView>> out;
  for (const auto& e : fs::directory_iterator(folder))
    if (e.path().extension() == ".safetensors") {
      keep.push_back(SafetensorsFile::open(e.path()));
      for (const auto& [name, t] : keep.back().tensors())
        out[name] = {e.path().filename().string(), t};
    }
  return out;
}

// The largest resident set of any child this process has waited for, in bytes.
double children_peak_bytes() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  return static_cast<double>(u.ru_maxrss) * 1024.0;
}

}  // namespace

TEST(RealShapes, TheTableHoldsThePapersModelsWithTheirPublishedShapes) {
  const CliRun list = cli("random-model --like");
  ASSERT_EQ(list.exit, 0) << list.out;
  for (const char* name : {"llama-3.2-1b", "llama-3.2-3b", "qwen2.5-7b", "gemma-7b",
                           "mistral-7b-v0.1", "xlm-roberta-base", "gpt2"})
    EXPECT_NE(list.out.find(name), std::string::npos) << list.out;
  // Found by name or repository, in any case.
  ASSERT_NE(real_model_shape("Qwen/Qwen2.5-7B"), nullptr);
  EXPECT_EQ(real_model_shape("QWEN2.5-7B"), real_model_shape("qwen2.5-7b"));
  EXPECT_EQ(real_model_shape("llama-9b"), nullptr);
  // The configs read as the models are: a few values that define each shape.
  struct Expected {
    const char* name;
    int layers, heads, kvHeads, headDim, hidden, intermediate, vocab;
    bool tied;
  };
  for (const Expected& e : {Expected{"llama-3.2-1b", 16, 32, 8, 64, 2048, 8192, 128256, true},
                            Expected{"llama-3.2-3b", 28, 24, 8, 128, 3072, 8192, 128256, true},
                            Expected{"qwen2.5-7b", 28, 28, 4, 128, 3584, 18944, 152064, false},
                            Expected{"gemma-7b", 28, 16, 16, 256, 3072, 24576, 256000, true},
                            Expected{"mistral-7b-v0.1", 32, 32, 8, 128, 4096, 14336, 32000, false},
                            Expected{"xlm-roberta-base", 12, 12, 12, 64, 768, 3072, 250002, true},
                            Expected{"gpt2", 12, 12, 12, 64, 768, 3072, 50257, true}}) {
    const RealModelShape* shape = real_model_shape(e.name);
    ASSERT_NE(shape, nullptr) << e.name;
    const fs::path dir = scratch(std::string("config-") + e.name);
    fs::create_directories(dir);
    std::ofstream(dir / "config.json") << shape->config;
    const ModelConfig c = model_config_read(dir / "config.json");
    EXPECT_EQ(c.num_layers, e.layers) << e.name;
    EXPECT_EQ(c.num_heads, e.heads) << e.name;
    EXPECT_EQ(c.num_kv_heads, e.kvHeads) << e.name;
    EXPECT_EQ(c.head_dim, e.headDim) << e.name;
    EXPECT_EQ(c.hidden_size, e.hidden) << e.name;
    EXPECT_EQ(c.intermediate_size, e.intermediate) << e.name;
    EXPECT_EQ(c.vocab_size, e.vocab) << e.name;
    EXPECT_EQ(c.tie_word_embeddings, e.tied) << e.name;
    const RandomModelSpec spec = real_model_spec(*shape, DType::BF16, 3);
    EXPECT_TRUE(spec.streamed);
    EXPECT_EQ(spec.layers, 3);
    EXPECT_EQ(spec.vocab, e.vocab);
    const char* layerKey = std::string(e.name) == "gpt2" ? "n_layer" : "num_hidden_layers";
    EXPECT_EQ(json::parse(spec.exact_config).value(layerKey, 0), 3);
    fs::remove_all(dir);
  }
}

TEST(RealShapes, Gpt2SmallIsWrittenWithItsConfigVerbatimInBf16) {
  const fs::path dir = scratch("gpt2");
  const CliRun made = cli("random-model --like gpt2 " + q(dir) + " --layers 2");
  ASSERT_EQ(made.exit, 0) << made.out;
  json expected = json::parse(real_model_shape("gpt2")->config);
  expected["n_layer"] = 2;
  EXPECT_EQ(json::parse(read_text(dir / "config.json")), expected);
  EXPECT_TRUE(fs::exists(dir / "model.safetensors"));
  EXPECT_FALSE(fs::exists(dir / "model.safetensors.index.json"));
  std::vector<SafetensorsFile> keep;
  const auto tensors = tensors_of(dir, keep);
  ASSERT_TRUE(tensors.count("wte.weight"));  // the repository's names carry no prefix
  EXPECT_EQ(tensors.at("wte.weight").second.shape, (std::vector<std::int64_t>{50257, 768}));
  EXPECT_EQ(tensors.at("h.1.mlp.c_fc.weight").second.shape, (std::vector<std::int64_t>{768, 3072}));
  EXPECT_EQ(tensors.at("h.1.mlp.c_fc.weight").second.dtype, DType::BF16);
  // The weights are drawn with the config's initializer_range.
  const std::vector<float> w = tensor_to_f32(tensors.at("h.0.attn.c_attn.weight").second);
  double sum2 = 0;
  for (float x : w) sum2 += static_cast<double>(x) * x;
  EXPECT_NEAR(std::sqrt(sum2 / static_cast<double>(w.size())), 0.02, 0.002);
  const CliRun run = cli("attention " + q(dir) + " --text 'The cat sat on the mat.' --layer 1 --head 3 --csv -");
  EXPECT_EQ(run.exit, 0) << run.out;
  EXPECT_NE(run.out.find("# compute_dtype: float32\n"), std::string::npos) << run.out;
  // The same map computed in the folder's BF16, as Hugging Face's eager attention does.
  const CliRun stored = cli("attention " + q(dir) +
                            " --text 'The cat sat on the mat.' --layer 1 --head 3 --csv - "
                            "--precision stored");
  EXPECT_EQ(stored.exit, 0) << stored.out;
  EXPECT_NE(stored.out.find("# compute_dtype: bfloat16\n"), std::string::npos) << stored.out;
  const CliRun precision = cli("attention " + q(dir) + " --text 'x' --layer 0 --head 0 --csv - "
                               "--precision half");
  EXPECT_EQ(precision.exit, 2);
  EXPECT_NE(precision.out.find("attention: --precision: half not in {float32,stored}"), std::string::npos)
      << precision.out;
  // An existing folder is never replaced; a bad name lists the good ones.
  EXPECT_EQ(cli("random-model --like gpt2 " + q(dir)).exit, 2);
  const CliRun bad = cli("random-model --like gpt5 " + q(scratch("gpt5")));
  EXPECT_EQ(bad.exit, 2);
  EXPECT_NE(bad.out.find("qwen2.5-7b"), std::string::npos) << bad.out;
  EXPECT_EQ(cli("random-model --like gpt2 " + q(scratch("x")) + " --hidden 64").exit, 2);
  const CliRun dtype = cli("random-model --like gpt2 " + q(scratch("x")) + " --dtype F64");
  EXPECT_EQ(dtype.exit, 2);
  EXPECT_NE(dtype.out.find("option --dtype: use F16, BF16 or F32"), std::string::npos) << dtype.out;
  // A leftover DIR.partial is never removed on the user's behalf.
  const fs::path other = scratch("gpt2-other");
  fs::create_directories(other.string() + ".partial");
  const CliRun leftover = cli("random-model --like gpt2 " + q(other) + " --layers 1");
  EXPECT_EQ(leftover.exit, 2);
  EXPECT_NE(leftover.out.find(".partial exists"), std::string::npos) << leftover.out;
  EXPECT_TRUE(fs::exists(other.string() + ".partial"));
  fs::remove_all(other.string() + ".partial");
  fs::remove_all(dir);
}

TEST(RealShapes, ShardsAreNamedAndIndexedAsSavePretrainedWritesThem) {
  // A tiny model cut into four shards by bytes, streamed.
  const fs::path dir = scratch("shards");
  RandomModelSpec s = random_model_spec_for("qwen2");
  s.streamed = true;
  s.shards = 4;
  s.dtype = DType::BF16;
  s.with_tokenizer = true;
  model_folder_write_random(dir, s);
  const json index = json::parse(read_text(dir / "model.safetensors.index.json"));
  std::vector<SafetensorsFile> keep;
  const auto tensors = tensors_of(dir, keep);
  std::uint64_t total = 0;
  std::set<std::string> files;
  for (const auto& [name, where] : tensors) {
    total += where.second.bytes.size();
    files.insert(where.first);
    EXPECT_EQ(index["weight_map"].value(name, ""), where.first) << name;
  }
  EXPECT_EQ(index["weight_map"].size(), tensors.size());
  EXPECT_EQ(index["metadata"]["total_size"].get<std::uint64_t>(), total);
  EXPECT_EQ(files, (std::set<std::string>{"model-00001-of-00004.safetensors",
                                          "model-00002-of-00004.safetensors",
                                          "model-00003-of-00004.safetensors",
                                          "model-00004-of-00004.safetensors"}));
  // Streamed values are drawn per tensor: the same folder twice is the same bytes.
  const fs::path again = scratch("shards-again");
  model_folder_write_random(again, s);
  for (const auto& f : files)
    EXPECT_EQ(read_text(dir / f), read_text(again / f)) << f;
  EXPECT_NO_THROW(Model::load(dir)->run({1, 2, 3, 4}));
  fs::remove_all(dir);
  fs::remove_all(again);
}

TEST(RealShapes, ALlama3BShapeRunsInItsStoredSizeOfMemory) {
  // Llama-3.2-3B's layers (3072 wide, 24 heads over 8 KV groups, 128-wide
  // heads) and its 128256-word embedding, two layers deep: 1.2 GB in BF16, two
  // shards. As float32 it would need 2.4 GB; the pass must stay near the
  // bytes on disk.
  const fs::path dir = scratch("llama3b");
  const CliRun made = cli("random-model --like llama-3.2-3b " + q(dir) + " --layers 2");
  ASSERT_EQ(made.exit, 0) << made.out;
  EXPECT_TRUE(fs::exists(dir / "model-00001-of-00002.safetensors"));
  EXPECT_TRUE(fs::exists(dir / "model-00002-of-00002.safetensors"));
  json expected = json::parse(real_model_shape("llama-3.2-3b")->config);
  expected["num_hidden_layers"] = 2;
  EXPECT_EQ(json::parse(read_text(dir / "config.json")), expected);
  double disk = 0;
  for (const auto& e : fs::directory_iterator(dir)) disk += static_cast<double>(e.file_size());
  const CliRun run = cli("attention " + q(dir) +
                         " --text 'Attention sinks are tokens that receive a large share of "
                         "attention.' --layer 1 --head 23 --csv - >/dev/null");
  ASSERT_EQ(run.exit, 0) << run.out;
  const double peak = children_peak_bytes();
  EXPECT_LT(peak, disk + 1024.0 * 1024 * 1024) << "peak " << peak / 1e9 << " GB, disk "
                                                << disk / 1e9 << " GB";
  fs::remove_all(dir);
}
