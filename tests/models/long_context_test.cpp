// A long input end to end: `analyze` at T = 2048 on a tiny random model runs the
// code path of the papers' models at long context (no layer kept, as past the
// capture budget: each recomputed and analysed a group of heads at a time;
// every family per head, persistence left out where it is past its bounds)
// and stays within the memory goal: the weights + 2 GiB.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "support/shell_run.h"

namespace fs = std::filesystem;

namespace {

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

// The data lines of a CSV (no comment lines, no header), split at commas.
std::vector<std::vector<std::string>> rows_of(const fs::path& csv) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(read_text(csv));
  bool header = true;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("#")) continue;
    if (header) {
      header = false;
      continue;
    }
    std::vector<std::string> cells;
    std::stringstream cellStream(line);
    for (std::string cell; std::getline(cellStream, cell, ',');) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    rows.push_back(cells);
  }
  return rows;
}

double children_peak_bytes() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  return static_cast<double>(u.ru_maxrss) * 1024.0;
}

}  // namespace

TEST(LongContext, AnalyzeAt2048TokensWritesEveryFamilyWithinTheMemoryGoal) {
  const fs::path dir = fs::temp_directory_path() / ("sinkscope-long-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path model = dir / "model", out = dir / "out";
  const CliRun made =
      cli_process("random-model llama " + q(model) + " --layers 2 --heads 4 --positions 4096");
  ASSERT_EQ(made.exit, 0) << made.out;
  // The held-out sentences, repeated: about 2048 tokens of the small tokenizer.
  const std::string sentences =
      read_text(fs::path(SINKSCOPE_SOURCE_DIR) / "resources/examples/sentences.txt");
  std::string text;
  while (text.size() < 2715) text += sentences;
  text.resize(2715);
  for (char& c : text)
    if (c == '\n' || c == '\'') c = ' ';
  const fs::path textFile = dir / "text.txt";
  std::ofstream(textFile) << text;

  const CliRun run = cli_process("analyze " + q(model) + " --text - --out " + q(out) +
                                 " --threads 2 --no-weight-spectra --kept-maps 0 < " + q(textFile));
  ASSERT_EQ(run.exit, 0) << run.out;

  const std::string sinks = read_text(out / "sinks.csv");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(sinks, m, std::regex("# tokens: ([0-9]+)")));
  const int T = std::stoi(m[1]);
  EXPECT_GE(T, 2048);
  // Every head and each layer's average has its rows in every family.
  // Four heads: their maps are computed in chunks of three (64 MB of float32 maps).
  std::set<std::string> maps, heads;
  for (const char* layer : {"0", "1"}) {
    maps.insert(std::string(layer) + "/average");
    for (const char* head : {"0", "1", "2", "3"}) heads.insert(std::string(layer) + "/" + head);
  }
  maps.insert(heads.begin(), heads.end());
  std::map<std::string, int> keys;
  for (const auto& r : rows_of(out / "sinks.csv")) ++keys[r[0] + "/" + r[1]];
  for (const std::string& map : maps) EXPECT_EQ(keys[map], T) << map;
  std::set<std::string> spectra;
  for (const auto& r : rows_of(out / "spectra.csv")) spectra.insert(r[0] + "/" + r[1]);
  EXPECT_EQ(spectra, maps);
  std::map<std::string, int> curve;
  for (const auto& r : rows_of(out / "value_space_curve.csv")) ++curve[r[0] + "/" + r[1]];
  for (const std::string& head : heads) EXPECT_EQ(curve[head], T) << head;

  // Persistence: counted, or left out past its bounds and said so in the header.
  const std::string summary = read_text(out / "persistence_summary.csv");
  const bool anyLeftOut = summary.find("# persistence_left_out: for ") != std::string::npos;
  int counted = 0, empty = 0;
  for (const auto& r : rows_of(out / "persistence_summary.csv")) {
    ASSERT_EQ(r.size(), 6u);
    if (r[2].empty()) {
      ++empty;
      EXPECT_NE(summary.find("layer " + r[0] + " head " + r[1]), std::string::npos) << r[0];
    } else {
      ++counted;
      EXPECT_EQ(std::stoi(r[2]), T);  // every token is one H0 class at e = 0
    }
  }
  EXPECT_EQ(counted + empty, static_cast<int>(maps.size()));
  EXPECT_GE(counted, 1);
  EXPECT_EQ(anyLeftOut, empty > 0);

  // The memory goal: the weights + 2 GiB (the tiny model's weights are kilobytes).
  const double weights = static_cast<double>(fs::file_size(model / "model.safetensors"));
  EXPECT_LT(children_peak_bytes(), weights + 2.0 * (1u << 30))
      << "peak " << children_peak_bytes() / (1 << 20) << " MiB";
  fs::remove_all(dir);
}

// Keeping no layer (each recomputed for its analysis) gives every number of
// the run that keeps them all: every table's rows equal, line for line.
TEST(LongContext, ARunThatKeepsNoLayerGivesTheNumbersOfOneThatKeepsThemAll) {
  const fs::path dir =
      fs::temp_directory_path() / ("sinkscope-kept-maps-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path model = dir / "model";
  const CliRun made = cli_process("random-model llama " + q(model) + " --layers 2 --heads 4");
  ASSERT_EQ(made.exit, 0) << made.out;
  const std::string text = "The keeper of the lighthouse wrote in his log every night.";
  std::map<std::string, fs::path> outs;
  for (const std::string kept : {"", " --kept-maps 0"}) {
    const fs::path out = dir / (kept.empty() ? "kept" : "recomputed");
    const CliRun run = cli_process("analyze " + q(model) + " --text '" + text + "' --out " +
                                   q(out) + " --no-weight-spectra" + kept);
    ASSERT_EQ(run.exit, 0) << run.out;
    outs[kept] = out;
  }
  // The rows without the header's comment lines (they name the command line).
  const auto rows = [](const fs::path& csv) {
    std::string kept;
    std::istringstream in(read_text(csv));
    for (std::string line; std::getline(in, line);)
      if (!line.starts_with("#")) kept += line + "\n";
    return kept;
  };
  int tables = 0;
  for (const auto& entry : fs::directory_iterator(outs[""])) {
    const fs::path other = outs[" --kept-maps 0"] / entry.path().filename();
    ASSERT_TRUE(fs::exists(other)) << other;
    EXPECT_EQ(rows(entry.path()), rows(other)) << entry.path().filename();
    ++tables;
  }
  EXPECT_GE(tables, 10);
  const CliRun refused = cli_process("analyze " + q(model) + " --text x --out " +
                                     q(dir / "refused") + " --kept-maps 0 --ablate 0:1");
  EXPECT_NE(refused.exit, 0);
  EXPECT_NE(refused.out.find("--kept-maps"), std::string::npos) << refused.out;
  fs::remove_all(dir);
}
