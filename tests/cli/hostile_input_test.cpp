// Hostile model folders and odd input through the
// release CLI's commands: every case ends with exit 1 or 2 and one line naming
// the file and the problem (or succeeds where the input is valid), never a
// signal, a hang or a file read outside the folder. Commands run in this
// process (a crash ends the shard, a hang meets ctest's timeout); lines that
// need a shell run the program under `timeout`.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <limits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "support/cli_in_process.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct CliRun {
  int exit = -1;  // 124: timed out; 128 + n: killed by signal n
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

class Hostile : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("sinkscope-hostile-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    for (const char* type : {"llama", "roberta", "gpt2"})
      ASSERT_EQ(std::system((std::string(quote(SINKSCOPE_CLI)) + " random-model " + type + " " +
                             quote((root_ / (std::string("base-") + type)).string()) +
                             " >/dev/null")
                                .c_str()),
                0);
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }

  // A copy of the random `type` folder, to be spoiled by the test.
  static fs::path copy(const std::string& name, const std::string& type = "llama") {
    const fs::path dir = root_ / name;
    fs::remove_all(dir);
    fs::copy(root_ / ("base-" + type), dir, fs::copy_options::recursive);
    return dir;
  }
  static json read_json(const fs::path& p) { return json::parse(slurp(p)); }
  static void write(const fs::path& p, const std::string& text) {
    fs::remove(p);
    std::ofstream(p, std::ios::binary) << text;
  }

  // Runs the CLI's command in this process where the line needs no shell,
  // else the program under a 60 s timeout; `redirect` is shell text for
  // stdout (default: a file we read back).
  static CliRun cli(const std::string& args, const std::string& redirect = "") {
    if (redirect.empty())
      if (auto here = sinkscope::testing::cli_in_process(args, false))
        return {here->exit, here->out, here->err};
    const fs::path out = root_ / "stdout.txt", err = root_ / "stderr.txt";
    const std::string command = "timeout -k 5 60 " + quote(SINKSCOPE_CLI) + " " + args + " " +
                                (redirect.empty() ? ">" + quote(out.string()) : redirect) +
                                " 2>" + quote(err.string());
    fs::remove(out);
    CliRun r;
    const int status = std::system(("bash -c " + quote(command)).c_str());
    r.exit = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }

  // The attention command every case runs: one map of a short text to stdout.
  static std::string attention_on(const fs::path& dir) {
    return "attention " + quote(dir.string()) + " --text 'hello world' --layer 0 --head 0 --csv -";
  }

  // `inspect` and `attention` on `dir`: the same exit code `code`, one line
  // on stderr that contains `message`.
  static void expect_refused(const fs::path& dir, const std::string& message, int code = 2) {
    for (const std::string& command :
         {"inspect " + quote(dir.string()),
          attention_on(dir)}) {
      SCOPED_TRACE(command);
      const CliRun r = cli(command);
      EXPECT_EQ(r.exit, code) << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      EXPECT_EQ(r.err.rfind("sinkscope-cli: ", 0), 0u) << r.err;
      EXPECT_NE(r.err.find(message), std::string::npos) << "expected \"" << message << "\" in\n"
                                                        << r.err;
      EXPECT_EQ(r.err.find("[json.exception"), std::string::npos) << r.err;
    }
  }

  static fs::path root_;
};
fs::path Hostile::root_;

}  // namespace

TEST_F(Hostile, TheUnspoiledFoldersWork) {
  for (const char* type : {"llama", "roberta"}) {
    const fs::path dir = root_ / (std::string("base-") + type);
    EXPECT_EQ(cli("inspect " + quote(dir.string())).exit, 0);
    const CliRun r = cli(attention_on(dir));
    EXPECT_EQ(r.exit, 0) << r.err;
    EXPECT_NE(r.out.find("query_token"), std::string::npos);
  }
}

TEST_F(Hostile, IndexWithAnEmptyWeightMap) {
  const fs::path dir = copy("empty-map");
  fs::rename(dir / "model.safetensors", dir / "model-00001-of-00001.safetensors");
  write(dir / "model.safetensors.index.json", R"({"weight_map": {}})");
  expect_refused(dir, "model.safetensors.index.json: field \"weight_map\" names no tensor");
}

TEST_F(Hostile, ShardsOutsideTheFolderAreNeverOpened) {
  const fs::path dir = copy("escape");
  fs::rename(dir / "model.safetensors", root_ / "outside.safetensors");
  for (const auto& [shard, message] :
       std::vector<std::pair<std::string, std::string>>{
           {"../outside.safetensors", "leaves the model folder"},
           {"/etc/passwd", "absolute path"},
           {"../../../../etc/shadow", "leaves the model folder"}}) {
    write(dir / "model.safetensors.index.json",
          json{{"weight_map", {{"model.embed_tokens.weight", shard}}}}.dump());
    expect_refused(dir, message);
    const CliRun info = cli("info " + quote(dir.string()));
    EXPECT_EQ(info.exit, 2);
    EXPECT_EQ(info.out.find("weights: "), std::string::npos) << info.out;
  }
  // A link that leads out of the folder is refused as well (and its bytes never printed).
  fs::create_symlink("/etc/passwd", dir / "linked.safetensors");
  write(dir / "model.safetensors.index.json",
        R"({"weight_map": {"model.embed_tokens.weight": "linked.safetensors"}})");
  expect_refused(dir, "points outside the model folder");
  const CliRun r = cli("inspect " + quote(dir.string()));
  EXPECT_EQ(r.err.find("root"), std::string::npos) << r.err;
}

TEST_F(Hostile, HuggingFaceCacheLinksIntoBlobsAreAllowed) {
  const fs::path repo = root_ / "hub" / "models--org--tiny";
  const fs::path snapshot = repo / "snapshots" / "abc123";
  fs::create_directories(snapshot);
  fs::create_directories(repo / "blobs");
  fs::create_directories(repo / "refs");
  std::ofstream(repo / "refs" / "main") << "abc123";
  for (const auto& e : fs::directory_iterator(root_ / "base-llama")) {
    const fs::path blob = repo / "blobs" / ("blob-" + e.path().filename().string());
    fs::copy_file(e.path(), blob);
    fs::create_symlink("../../blobs/" + blob.filename().string(), snapshot / e.path().filename());
  }
  const CliRun r = cli(attention_on(snapshot));
  EXPECT_EQ(r.exit, 0) << r.err;
  setenv("HF_HUB_CACHE", (root_ / "hub").c_str(), 1);
  const CliRun byName = cli("inspect org/tiny");
  unsetenv("HF_HUB_CACHE");
  EXPECT_EQ(byName.exit, 0) << byName.err;
  // ...but not into another repo's blobs.
  const fs::path other = root_ / "hub" / "models--org--other" / "blobs";
  fs::create_directories(other);
  fs::rename(repo / "blobs" / "blob-config.json", other / "config.json");
  fs::remove(snapshot / "config.json");
  fs::create_symlink("../../../models--org--other/blobs/config.json", snapshot / "config.json");
  expect_refused(snapshot, "points outside the model folder");
}

TEST_F(Hostile, DeepJsonNestingIsRefusedWithoutOverflowingTheStack) {
  // A safetensors header whose __metadata__ nests 100,000 deep.
  {
    const fs::path dir = copy("deep-metadata");
    const std::string weights = slurp(dir / "model.safetensors");
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(weights[i]);
    std::string header = weights.substr(8, n);
    while (!header.empty() && header.back() == ' ') header.pop_back();
    header.pop_back();  // the closing brace
    header += ",\"__metadata__\":{\"x\":" + std::string(100000, '[') + std::string(100000, ']') +
              "}}";
    while ((8 + header.size()) % 8) header += ' ';
    std::string file(8, '\0');
    for (int i = 0; i < 8; ++i) file[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
    write(dir / "model.safetensors", file + header + weights.substr(8 + n));
    expect_refused(dir, "nested deeper than");
  }
  // Sequence normalizers, pre-tokenizers and post-processors nested 30,000 deep.
  for (const auto& [kind, key, leaf] : std::vector<std::array<std::string, 3>>{
           {"normalizer", "normalizers", R"({"type": "Lowercase"})"},
           {"pre_tokenizer", "pretokenizers", R"({"type": "Whitespace"})"},
           {"post_processor", "processors", R"({"type": "ByteLevel"})"}}) {
    const fs::path dir = copy("deep-" + kind);
    json t = read_json(dir / "tokenizer.json");
    t.erase(kind);
    std::string text = t.dump();
    text.pop_back();
    std::string nested;
    for (int i = 0; i < 30000; ++i) nested += R"({"type": "Sequence", ")" + key + R"(": [)";
    nested += leaf;
    for (int i = 0; i < 30000; ++i) nested += "]}";
    write(dir / "tokenizer.json", text + ",\"" + kind + "\":" + nested + "}");
    expect_refused(dir, "tokenizer.json: JSON nested deeper than");
  }
  // Any deep value inside the normalizer.
  const fs::path dir = copy("deep-normalizer-value");
  json t = read_json(dir / "tokenizer.json");
  t.erase("normalizer");
  std::string text = t.dump();
  text.pop_back();
  write(dir / "tokenizer.json", text + R"(,"normalizer":{"type":"Lowercase","x":)" +
                                    std::string(100000, '[') + std::string(100000, ']') + "}}");
  expect_refused(dir, "nested deeper than");
}

TEST_F(Hostile, TextThatIsNotUtf8OrHoldsNulIsRefusedWithItsOffset) {
  const std::string dir = quote((root_ / "base-llama").string());
  for (const auto& [text, offset] : std::vector<std::pair<std::string, std::string>>{
           {"$'hello world this is a long enough text here \\xf0'", "offset 44"},
           {"$'\\xff'", "offset 0"},
           {"$'abc\\xc0\\xafdef'", "offset 3"}}) {
    for (const std::string& command : {"attention " + dir + " --layer 0 --head 0 --csv - --text ",
                                      "tokens " + dir + " --text "}) {
      const CliRun r = cli(command + text);
      EXPECT_EQ(r.exit, 2) << command << text << "\n" << r.err;
      EXPECT_NE(r.err.find("not valid UTF-8"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find(offset), std::string::npos) << r.err;
    }
  }
  const CliRun nul = cli("tokens " + dir + " --text=- < <(printf 'ab\\0cd')");
  EXPECT_EQ(nul.exit, 2);
  EXPECT_NE(nul.err.find("NUL character at byte offset 2"), std::string::npos) << nul.err;
  // A sentence file with a bad line names the line.
  write(root_ / "sentences.txt", "fine sentence\nbad \xff line\n");
  const CliRun lines = cli("analyze " + dir + " --sentences " + quote((root_ / "sentences.txt").string()) +
                        " --out " + quote((root_ / "never").string()));
  EXPECT_EQ(lines.exit, 2) << lines.err;
  EXPECT_NE(lines.err.find("line 2: not valid UTF-8"), std::string::npos) << lines.err;
  EXPECT_FALSE(fs::exists(root_ / "never"));
}

TEST_F(Hostile, FifosAndDevicesAreRefusedWithoutBlocking) {
  for (const char* name : {"config.json", "tokenizer.json", "model.safetensors"}) {
    const fs::path dir = copy(std::string("fifo-") + name);
    fs::remove(dir / name);
    ASSERT_EQ(mkfifo((dir / name).c_str(), 0600), 0);
    expect_refused(dir, "FIFO");
  }
  for (const char* device : {"/dev/zero", "/dev/urandom"}) {
    for (const char* name : {"config.json", "tokenizer.json", "model.safetensors"}) {
      const fs::path dir = copy(std::string("device-") + name);
      fs::remove(dir / name);
      fs::create_symlink(device, dir / name);
      expect_refused(dir, "points outside the model folder");
    }
  }
  const CliRun batch = cli("tokens " + quote((root_ / "base-llama").string()) + " --batch /tmp");
  EXPECT_EQ(batch.exit, 2);
  EXPECT_NE(batch.err.find("is a folder, not a regular file"), std::string::npos) << batch.err;
}

TEST_F(Hostile, HugeVocabularyIdsAreRefusedQuickly) {
  for (const long long id : {100000000LL, 2147483646LL, 2147483647LL}) {
    const fs::path dir = copy("vocab-" + std::to_string(id));
    json t = read_json(dir / "tokenizer.json");
    t["model"]["vocab"].begin().value() = id;
    write(dir / "tokenizer.json", t.dump());
    expect_refused(dir, "must be a token id");
  }
}

TEST_F(Hostile, TokenIdsBeyondTheEmbeddingAreRefusedWhereTheyAreUsed) {
  // As in real folders, an added token past the embedding table that no text
  // uses loads: Hugging Face lists unused added tokens beyond vocab_size.
  const fs::path dir = copy("added-beyond-vocab");
  json t = read_json(dir / "tokenizer.json");
  const int vocab = read_json(dir / "config.json")["vocab_size"].get<int>();
  t["added_tokens"].push_back({{"id", vocab + 40},
                               {"content", "<|unused|>"},
                               {"single_word", false},
                               {"lstrip", false},
                               {"rstrip", false},
                               {"normalized", false},
                               {"special", true}});
  write(dir / "tokenizer.json", t.dump());
  const CliRun fine = cli(attention_on(dir));
  EXPECT_EQ(fine.exit, 0) << fine.err;
  // A text that encodes to it is refused, naming the token, its id and the table's size.
  const CliRun used = cli("attention " + quote(dir.string()) +
                          " --text 'hello <|unused|> world' --layer 0 --head 0 --csv -");
  EXPECT_EQ(used.exit, 2);
  EXPECT_NE(used.err.find("\"<|unused|>\""), std::string::npos) << used.err;
  EXPECT_NE(used.err.find("id " + std::to_string(vocab + 40)), std::string::npos) << used.err;
  EXPECT_NE(used.err.find("embedding of " + std::to_string(vocab) + " rows"), std::string::npos)
      << used.err;
  // An id the post-processor adds to every input is checked at load.
  const fs::path post = copy("post-processor-beyond-vocab");
  json p = read_json(post / "tokenizer.json");
  p["post_processor"]["special_tokens"]["<s>"]["ids"] = {vocab + 3};
  write(post / "tokenizer.json", p.dump());
  const CliRun r = cli(attention_on(post));
  EXPECT_EQ(r.exit, 2);
  EXPECT_NE(r.err.find("the post-processor adds \"<s>\" (id " + std::to_string(vocab + 3) + ")"),
            std::string::npos)
      << r.err;
}

TEST_F(Hostile, ALongWordIsTokenizedInNearLinearTime) {
  // 100,000 characters of one word: quadratic merging took 18 s; the 60 s
  // timeout of cli() is the bound, far above the fraction of a second it takes.
  std::string word;
  for (int i = 0; i < 100000; ++i) word += "abcdefgh"[(i * 7 + i / 3) % 8];
  write(root_ / "word.txt", word);
  const CliRun r = cli("tokens " + quote((root_ / "base-llama").string()) + " --text=- < " +
                    quote((root_ / "word.txt").string()));
  EXPECT_EQ(r.exit, 0) << r.err;
  EXPECT_GT(std::count(r.out.begin(), r.out.end(), '\n'), 1000);
}

TEST_F(Hostile, IntegersOutOfRangeAreRefusedNotWrapped) {
  {
    const fs::path dir = copy("layers-overflow");
    json c = read_json(dir / "config.json");
    c["num_hidden_layers"] = 4294967298ULL;
    write(dir / "config.json", c.dump());
    expect_refused(dir, "config.json: field \"num_hidden_layers\" must be an integer in 1..1024");
  }
  {
    const fs::path dir = copy("pad-int-max", "roberta");
    json c = read_json(dir / "config.json");
    c["pad_token_id"] = 2147483647;
    write(dir / "config.json", c.dump());
    const CliRun r = cli(attention_on(dir));
    EXPECT_EQ(r.exit, 2);
    EXPECT_NE(r.err.find("config.json: field \"pad_token_id\""), std::string::npos) << r.err;
  }
}

TEST_F(Hostile, BadModelInputIsExitTwoWithTheFileAndField) {
  auto spoil_config = [&](const std::string& name, const std::function<void(json&)>& change,
                          const std::string& message) {
    const fs::path dir = copy(name);
    json c = read_json(dir / "config.json");
    change(c);
    write(dir / "config.json", c.dump());
    expect_refused(dir, message);
  };
  spoil_config("rope-string", [](json& c) { c["rope_scaling"]["factor"] = "2"; },
               "field \"rope_scaling.factor\" must be a number");
  spoil_config("eps-negative", [](json& c) { c["rms_norm_eps"] = -1.0; },
               "field \"rms_norm_eps\" must be in 0..1");
  {
    const fs::path dir = copy("inf");
    std::string text = slurp(dir / "config.json");
    text.replace(text.find("\"rope_theta\": 10000.0"), 21, "\"rope_theta\": 1e999");
    write(dir / "config.json", text);
    expect_refused(dir, "config.json: not valid JSON (number overflow");
  }
  {
    const fs::path dir = copy("tokenizer-config-types");
    write(dir / "tokenizer_config.json", R"({"tokenizer_class": 5, "bos_token": "<s>"})");
    expect_refused(dir, "tokenizer_config.json: field \"tokenizer_class\" must be a string");
    write(dir / "tokenizer_config.json",
          R"({"tokenizer_class": "LlamaTokenizer", "add_bos_token": "yes", "bos_token": "<s>"})");
    expect_refused(dir, "tokenizer_config.json: field \"add_bos_token\" must be true or false");
  }
  {
    const fs::path dir = copy("special-map-types");
    write(dir / "special_tokens_map.json", R"({"bos_token": 5})");
    expect_refused(dir, "special_tokens_map.json: field \"bos_token\" must be a string");
  }
  {
    // unk_token missing from the vocabulary, needed by a character the vocabulary lacks.
    const fs::path dir = copy("unk-missing");
    json t = read_json(dir / "tokenizer.json");
    t["model"]["unk_token"] = "<not-in-vocab>";
    t["pre_tokenizer"] = nullptr;
    t["decoder"] = nullptr;
    write(dir / "tokenizer.json", t.dump());
    const CliRun r = cli("tokens " + quote(dir.string()) + " --text $'\\xe2\\x98\\x83'");
    EXPECT_EQ(r.exit, 2) << r.err;
    EXPECT_NE(r.err.find("tokenizer.json: unk_token \"<not-in-vocab>\" is not in the vocabulary"),
              std::string::npos)
        << r.err;
  }
  {
    const fs::path dir = copy("loop");
    fs::remove(dir / "tokenizer.json");
    fs::create_symlink("tokenizer.json", dir / "tokenizer.json");
    expect_refused(dir, "tokenizer.json: is a symlink loop");
    fs::remove(dir / "config.json");
    fs::create_symlink("config.json", dir / "config.json");
    expect_refused(dir, "config.json: is a symlink loop");
  }
}

TEST_F(Hostile, NanWeightsAreReportedNotWrittenAsNumbers) {
  const fs::path dir = copy("nan");
  std::string weights = slurp(dir / "model.safetensors");
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(weights[i]);
  const json header = json::parse(weights.substr(8, n));
  const std::string name = "model.layers.0.self_attn.q_proj.weight";
  ASSERT_EQ(header[name]["dtype"], "F32");
  const std::size_t at = 8 + n + header[name]["data_offsets"][0].get<std::size_t>();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(weights.data() + at, &nan, 4);
  write(dir / "model.safetensors", weights);
  const CliRun r = cli(attention_on(dir));
  EXPECT_EQ(r.exit, 2) << r.err;
  EXPECT_NE(r.err.find("tensor \"" + name + "\" holds NaN"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("nan"), std::string::npos);
  const CliRun analyze = cli("analyze " + quote(dir.string()) + " --text 'hello world' --out " +
                          quote((root_ / "nan-out").string()));
  EXPECT_EQ(analyze.exit, 2) << analyze.err;
  EXPECT_FALSE(fs::exists(root_ / "nan-out"));
}

TEST_F(Hostile, LostStandardOutputIsAnError) {
  const std::string dir = quote((root_ / "base-llama").string());
  const std::string attention = "attention " + dir + " --text 'hello' --layer 0 --head 0 --csv -";
  for (const char* redirect : {">/dev/full", ">&-"}) {
    for (const std::string& command : {attention, "inspect " + dir, "tokens " + dir + " --text hi"}) {
      const CliRun r = cli(command, redirect);
      EXPECT_EQ(r.exit, 1) << command << " " << redirect << "\n" << r.err;
      EXPECT_NE(r.err.find("cannot write to standard output"), std::string::npos) << r.err;
    }
  }
  // A reader that goes away: an error, not a SIGPIPE.
  const CliRun pipe = cli(attention, "| head -c 1 >/dev/null");
  EXPECT_TRUE(pipe.exit == 0 || pipe.exit == 1) << pipe.exit;
}

TEST_F(Hostile, AFailedAnalyzeLeavesNothingAndForceReplacesOnlyRegularFiles) {
  const std::string dir = quote((root_ / "base-llama").string());
  const fs::path out = root_ / "full-disk";
  // A file-size limit stands in for a full disk (trap: EFBIG instead of SIGXFSZ).
  const std::string limited = "bash -c " +
                              quote("trap '' XFSZ; ulimit -f 16; exec " + quote(SINKSCOPE_CLI) +
                                    " analyze " + dir + " --text 'hello world this is it' --out " +
                                    quote(out.string()) + " --json " +
                                    quote((root_ / "full.json").string()) + " >/dev/null 2>&1");
  const int status = std::system(limited.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_FALSE(fs::exists(out)) << "a failed run leaves no partial set";
  EXPECT_FALSE(fs::exists(root_ / "full.json"));
  for (const auto& e : fs::directory_iterator(root_))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
  // The rerun is not refused by leftovers.
  const CliRun again = cli("analyze " + dir + " --text 'hello world this is it' --out " +
                        quote(out.string()));
  EXPECT_EQ(again.exit, 0) << again.err;
  EXPECT_TRUE(fs::exists(out / "value_space_curve.csv"));
  // --force replaces regular files only: never a device, a FIFO or a link.
  ASSERT_EQ(mkfifo((root_ / "fifo.csv").c_str(), 0600), 0);
  fs::create_symlink("/dev/null", root_ / "link.csv");
  for (const std::string& target : std::vector<std::string>{"/dev/full", (root_ / "fifo.csv").string(),
                                   (root_ / "link.csv").string()}) {
    const CliRun r = cli("attention " + dir + " --text 'hello' --layer 0 --head 0 --force --csv " +
                      quote(target));
    EXPECT_EQ(r.exit, 1) << target;
    EXPECT_NE(r.err.find("is not a regular file"), std::string::npos) << r.err;
  }
  struct stat st {};
  ASSERT_EQ(stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/full must still be a device";
  EXPECT_TRUE(fs::is_fifo(root_ / "fifo.csv"));
  EXPECT_TRUE(fs::is_symlink(root_ / "link.csv"));
}

// A "head_dim" that families which never read it carry (GPT-2, GPT-NeoX, the
// BERT family split hidden_size by the heads) is ignored as Hugging Face
// ignores it; in a family that reads it, a head_dim the weights do not have
// is refused naming the tensor. Never a libtorch message or backtrace.
TEST_F(Hostile, AHeadDimIsReadOnlyWhereTheFamilyReadsIt) {
  for (const char* type : {"gpt2", "roberta"}) {
    const fs::path dir = copy(std::string("head-dim-") + type, type);
    json c = read_json(dir / "config.json");
    c["head_dim"] = 7;
    write(dir / "config.json", c.dump());
    const CliRun r = cli(attention_on(dir));
    EXPECT_EQ(r.exit, 0) << type << ": " << r.err;
    EXPECT_EQ(r.err.find("is invalid for input"), std::string::npos) << r.err;
  }
  const fs::path dir = copy("head-dim-llama");
  json c = read_json(dir / "config.json");
  c["head_dim"] = 7;
  write(dir / "config.json", c.dump());
  const CliRun r = cli(attention_on(dir));  // the weights are read here, not by inspect
  EXPECT_EQ(r.exit, 2) << r.err;
  EXPECT_NE(r.err.find("q_proj.weight\" has shape"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}
