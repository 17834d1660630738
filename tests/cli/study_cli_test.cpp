// Corpus studies in shards, through the CLI. A study run in shards
// and merged equals analyze --sentences over the same file, row for row; a
// finished shard is skipped, a study folder made with other inputs refused,
// an incomplete study merged only with --partial, a killed shard leaves no
// shard behind.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/shell_run.h"

namespace fs = std::filesystem;

namespace {

using CliResult = CliRun;

// The data rows of a CSV (its "# " header lines differ by design).

const std::string kModel = std::string(SINKSCOPE_SOURCE_DIR) + "/resources/models/rope-decoder-bos-first";
const std::string kSentences = std::string(SINKSCOPE_SOURCE_DIR) + "/resources/examples/sentences.txt";

class Study : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("sinkscope-study-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
    // 13 sentences: shards of 3 are uneven (4, 4, 5).
    std::ifstream in(kSentences);
    std::ofstream out(dir / "s.txt");
    std::string line;
    for (int k = 0; k < 13 && std::getline(in, line); ++k) out << line << "\n";
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string run(const std::string& shard, const std::string& extra = "") {
    return "study run '" + kModel + "' --sentences '" + (dir / "s.txt").string() + "' --out '" +
           (dir / "study").string() + "' --shard " + shard + " --batch 4 " + extra;
  }
  fs::path dir;
};

}  // namespace

TEST_F(Study, ShardsMergeToTheNumbersOfOneProcess) {
  ASSERT_EQ(cli("analyze '" + kModel + "' --sentences '" + (dir / "s.txt").string() +
                "' --out '" + (dir / "single").string() + "' --functional --batch 4")
                .exit,
            0);
  for (const char* shard : {"2/3", "0/3", "1/3"}) {  // any order
    const CliResult r = cli(run(shard, "--functional"));
    ASSERT_EQ(r.exit, 0) << r.out;
    EXPECT_NE(r.out.find("sentences, "), std::string::npos) << "progress on stderr: " << r.out;
  }
  const CliResult merged = cli("study merge '" + (dir / "study").string() + "'");
  ASSERT_EQ(merged.exit, 0) << merged.out;
  for (const char* table :
       {"specialisation.csv", "token_specialisation.csv", "taxonomy_pooled.csv", "sink_rate.csv",
        "frame.csv", "layer_profile.csv", "top_sentences.csv", "functional.csv"}) {
    const std::string single = csv_rows(dir / "single" / table);
    ASSERT_FALSE(single.empty()) << table;
    EXPECT_EQ(csv_rows(dir / "study/merged" / table), single) << table;
  }
  const std::string header = read_text(dir / "study/merged/frame.csv");
  EXPECT_NE(header.find("# sentences: 13\n"), std::string::npos) << header;
  EXPECT_NE(header.find("# sentences_missing: none\n"), std::string::npos) << header;
  // Every parameter the numbers were computed with, and the command that merged them.
  EXPECT_NE(header.find("# command: "), std::string::npos) << header;
  EXPECT_NE(header.find("study merge"), std::string::npos) << header;
  for (const char* key : {"\"symmetrise\":\"", "\"seed\":", "\"query\":", "\"thresholds\":",
                          "\"bootstrap\":", "\"bootstrap_seed\":", "\"batch\":4", "\"min_persistence\":"})
    EXPECT_NE(header.find(key), std::string::npos) << key << "\n" << header;
  EXPECT_NE(read_text(dir / "single/frame.csv").find("\"symmetrise\":\""), std::string::npos);
  // A rerun skips the finished shard; the study's status lists the shards.
  const CliResult again = cli(run("1/3", "--functional"));
  ASSERT_EQ(again.exit, 0) << again.out;
  EXPECT_NE(again.out.find("shard-1-of-3: already complete"), std::string::npos) << again.out;
  const CliResult status = cli("study status '" + (dir / "study").string() + "'");
  ASSERT_EQ(status.exit, 0) << status.out;
  EXPECT_NE(status.out.find("finished shards: 3\n"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("sentences not covered: 0\n"), std::string::npos) << status.out;
  // Merging again replaces the tables only with --force (exit 1, as analyze's).
  const CliResult kept = cli("study merge '" + (dir / "study").string() + "'");
  EXPECT_EQ(kept.exit, 1) << kept.out;
  EXPECT_NE(kept.out.find("already exists (use --force to replace it)"), std::string::npos);
  EXPECT_EQ(cli("study merge '" + (dir / "study").string() + "' --force").exit, 0);
  // The same study without the functional experiments is another study.
  const CliResult other = cli(run("0/3"));
  EXPECT_EQ(other.exit, 2) << other.out;
  EXPECT_NE(other.out.find("params"), std::string::npos) << other.out;
}

TEST_F(Study, OtherInputsAreRefusedAndMissingShardsNamed) {
  ASSERT_EQ(cli(run("0/4")).exit, 0);
  // Other parameters, or another sentence file, in the same study folder.
  const CliResult other = cli(run("1/4", "--percentile 80"));
  EXPECT_EQ(other.exit, 2) << other.out;
  EXPECT_NE(other.out.find("study.json"), std::string::npos) << other.out;
  EXPECT_NE(other.out.find("params"), std::string::npos) << other.out;
  std::ofstream(dir / "s.txt", std::ios::app) << "One more sentence.\n";
  const CliResult changed = cli(run("1/4"));
  EXPECT_EQ(changed.exit, 2) << changed.out;
  EXPECT_NE(changed.out.find("sentences_sha256"), std::string::npos) << changed.out;
  // Three shards of four are missing: merge names their sentences.
  const CliResult refused = cli("study merge '" + (dir / "study").string() + "'");
  EXPECT_EQ(refused.exit, 2) << refused.out;
  EXPECT_NE(refused.out.find("sentences 4-12 have no finished shard"), std::string::npos)
      << refused.out;
  const CliResult partial = cli("study merge '" + (dir / "study").string() + "' --partial");
  ASSERT_EQ(partial.exit, 0) << partial.out;
  const std::string frame = read_text(dir / "study/merged/frame.csv");
  EXPECT_NE(frame.find("# sentences: 4\n"), std::string::npos) << frame;
  EXPECT_NE(frame.find("# sentences_missing: 4-12\n"), std::string::npos) << frame;
  EXPECT_EQ(cli("study run '" + kModel + "' --sentences x --out y --shard 4/4").exit, 2);
  EXPECT_EQ(cli("study frobnicate").exit, 2);
}

TEST_F(Study, AKilledShardLeavesNoShardAndARerunFinishesIt) {
  // A larger shard, killed while it runs: only its temporary folder remains.
  {
    std::ifstream in(kSentences);
    std::ofstream out(dir / "s.txt");
    std::string line;
    for (int k = 0; k < 400 && std::getline(in, line); ++k) out << line << "\n";
  }
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::freopen("/dev/null", "w", stderr);  // its progress lines
    std::freopen("/dev/null", "w", stdout);
    const std::string out = (dir / "study").string(), sentences = (dir / "s.txt").string();
    execl(SINKSCOPE_CLI, SINKSCOPE_CLI, "study", "run", kModel.c_str(), "--sentences",
          sentences.c_str(), "--out", out.c_str(), "--shard", "0/2", "--batch", "4",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait (bounded) until the shard's work folder exists, then kill the task.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  bool working = false;
  while (!working && std::chrono::steady_clock::now() < deadline) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir / "study/shards", ec))
      working = working || e.path().filename().string().rfind(".tmp-shard-0-of-2", 0) == 0;
    if (!working) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(working);
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_FALSE(fs::exists(dir / "study/shards/shard-0-of-2")) << "no partial shard";
  const CliResult status0 = cli("study status '" + (dir / "study").string() + "'");
  EXPECT_NE(status0.out.find("running or killed: 1\n"), std::string::npos) << status0.out;
  EXPECT_NE(status0.out.find("sentences not covered: 400\n"), std::string::npos) << status0.out;
  // The rerun clears the killed task's folder and finishes the shard.
  const CliResult rerun = cli(run("0/2"));
  ASSERT_EQ(rerun.exit, 0) << rerun.out;
  EXPECT_TRUE(fs::exists(dir / "study/shards/shard-0-of-2/manifest.json"));
  const CliResult status1 = cli("study status '" + (dir / "study").string() + "'");
  EXPECT_NE(status1.out.find("running or killed: 0\n"), std::string::npos) << status1.out;
  EXPECT_NE(status1.out.find("sentences not covered: 200\n  200-399\n"), std::string::npos)
      << status1.out;
}

TEST_F(Study, JsonLinesGiveTheSameStudyAsPlainLines) {
  {  // the same 13 sentences as {"text": ...} objects, with another field beside
    std::ifstream in(dir / "s.txt");
    std::ofstream out(dir / "s.jsonl");
    std::string line;
    int id = 0;
    while (std::getline(in, line)) {
      std::string escaped;
      for (char c : line) escaped += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
      out << "{\"id\": " << id++ << ", \"text\": \"" << escaped << "\"}\n";
    }
  }
  ASSERT_EQ(cli(run("0/1")).exit, 0);
  const std::string jsonl = "study run '" + kModel + "' --sentences '" + (dir / "s.jsonl").string() +
                            "' --out '" + (dir / "study-jsonl").string() + "'";
  const CliResult r = cli(jsonl);
  ASSERT_EQ(r.exit, 0) << r.out;
  ASSERT_EQ(cli("study merge '" + (dir / "study").string() + "'").exit, 0);
  ASSERT_EQ(cli("study merge '" + (dir / "study-jsonl").string() + "'").exit, 0);
  for (const char* table : {"specialisation.csv", "taxonomy_pooled.csv", "frame.csv"})
    EXPECT_EQ(csv_rows(dir / "study-jsonl/merged" / table), csv_rows(dir / "study/merged" / table)) << table;
  // A line that is not an object with a string "text" is named by file and line.
  std::ofstream(dir / "bad.jsonl") << "{\"text\": \"fine\"}\n{\"txt\": \"no\"}\n";
  const CliResult bad = cli("analyze '" + kModel + "' --sentences '" + (dir / "bad.jsonl").string() +
                            "' --out '" + (dir / "bad").string() + "'");
  EXPECT_EQ(bad.exit, 2) << bad.out;
  EXPECT_NE(bad.out.find("bad.jsonl: line 2: not a JSON object with a string field \"text\""),
            std::string::npos)
      << bad.out;
  // Named in capitals, or .json, it is still JSON lines: never braces read as a sentence.
  for (const char* name : {"BAD.JSONL", "bad.json"}) {
    std::ofstream(dir / name) << "{\"text\": \"fine\"}\n{\"txt\": \"no\"}\n";
    const CliResult named = cli("analyze '" + kModel + "' --sentences '" + (dir / name).string() +
                                "' --out '" + (dir / "named").string() + "'");
    EXPECT_EQ(named.exit, 2) << named.out;
    EXPECT_NE(named.out.find(std::string(name) + ": line 2: not a JSON object"), std::string::npos)
        << named.out;
  }
  std::ofstream(dir / "deep.jsonl") << std::string(10000, '[') << "\n";
  const CliResult deep = cli("analyze '" + kModel + "' --sentences '" + (dir / "deep.jsonl").string() +
                             "' --out '" + (dir / "deep").string() + "'");
  EXPECT_EQ(deep.exit, 2) << deep.out;
  EXPECT_NE(deep.out.find("deep.jsonl: line 1"), std::string::npos) << deep.out;
}

// Every pooled share and rate carries a 95% interval over the sentences. On a
// corpus of one sentence repeated, every bootstrap resample is the corpus
// itself, so the percentile interval (mean boost) collapses onto its point,
// while the intervals of proportions keep the width of nine sentences (at 0
// or 1: Clopper-Pearson's bounds for 0 or 9 of 9 trials), and so do the
// shares of heads by top token (nine sentences cannot make a head clear-cut);
// on varied sentences the intervals bracket the point and a seed repeats them.
TEST_F(Study, BootstrapIntervalsAreSeededAndCollapseOnARepeatedSentence) {
  {
    std::ofstream out(dir / "same.txt");
    for (int k = 0; k < 9; ++k) out << "Precursor of the modern motion picture.\n";
  }
  auto analyze = [&](const std::string& file, const std::string& out, const std::string& extra) {
    return cli("analyze '" + kModel + "' --sentences '" + (dir / file).string() + "' --out '" +
               (dir / out).string() + "' " + extra);
  };
  ASSERT_EQ(analyze("same.txt", "same", "--bootstrap 50").exit, 0);
  const std::set<std::string> proportions{"sample_share", "sink_share", "current_share",
                                          "sink_rate_percent"};
  const std::set<std::string> headShares{"share", "first_token_share", "last_token_share",
                                          "other_share"};
  const double edge = std::pow(0.025, 1.0 / 9);  // (1 - p)^9 = 0.025 or p^9 = 0.025
  int atBoundary = 0, headShareBounds = 0;
  for (const char* table : {"specialisation.csv", "token_specialisation.csv",
                            "taxonomy_pooled.csv", "sink_rate.csv", "frame.csv",
                            "layer_profile.csv"}) {
    std::istringstream in(csv_rows(dir / "same" / table));
    std::string header, line;
    std::getline(in, header);
    std::vector<std::string> names;
    std::stringstream hs(header);
    for (std::string c; std::getline(hs, c, ',');) names.push_back(c);
    int bounded = 0;
    while (std::getline(in, line)) {
      std::vector<std::string> cells;
      std::stringstream ls(line);
      for (std::string c; std::getline(ls, c, ',');) cells.push_back(c);
      if (line.back() == ',') cells.push_back("");
      ASSERT_EQ(cells.size(), names.size()) << table << ": " << line;
      for (std::size_t c = 0; c < names.size(); ++c) {
        const std::string& n = names[c];
        if (n.size() < 4 || (n.substr(n.size() - 3) != "_lo" && n.substr(n.size() - 3) != "_hi"))
          continue;
        const std::string base = n.substr(0, n.size() - 3);
        const bool low = n.substr(n.size() - 3) == "_lo";
        const auto at = std::find(names.begin(), names.end(),
                                  base == "share" ? std::string("share_of_specialised_heads") : base);
        ASSERT_NE(at, names.end()) << table << ": " << n;
        const double point = std::stod(cells[static_cast<std::size_t>(at - names.begin())]);
        const double bound = std::stod(cells[c]);
        ++bounded;
        if (headShares.count(base)) {
          EXPECT_TRUE(low ? bound <= point : bound >= point) << table << ": " << n;
          // Never a point: the bound away from 0 or 1 moves off it.
          const bool pinned = (point == 0.0 && low) || (point == 1.0 && !low);
          if (base != "last_token_share" && !pinned) {
            EXPECT_NE(bound, point) << table << ": " << n;
          }
          ++headShareBounds;
          continue;
        }
        if (!proportions.count(base)) {
          EXPECT_NEAR(bound, point, 1e-12 * (1.0 + std::abs(point))) << table << ": " << n;
          continue;
        }
        const double scale = base == "sink_rate_percent" ? 100.0 : 1.0;
        EXPECT_TRUE(low ? bound <= point : bound >= point) << table << ": " << n;
        if (point == 0.0 && !low) {
          EXPECT_NEAR(bound, scale * (1 - edge), 1e-9 * scale) << table << ": " << n;
          ++atBoundary;
        } else if (point == scale && low) {
          EXPECT_NEAR(bound, scale * edge, 1e-9 * scale) << table << ": " << n;
          ++atBoundary;
        } else if (point > 0.0 && point < scale) {
          EXPECT_NE(bound, point) << table << ": " << n << " never collapses";
        }
      }
    }
    EXPECT_GT(bounded, 0) << table << " has interval columns";
  }
  EXPECT_GT(atBoundary, 0) << "some head shares sit at 0 or 1";
  EXPECT_GE(headShareBounds, 8) << "token and frame shares have intervals";
  // Varied sentences: lo <= point <= hi for the sink rate; the seed decides the draws.
  ASSERT_EQ(analyze("s.txt", "a", "--bootstrap 100 --bootstrap-seed 3").exit, 0);
  ASSERT_EQ(analyze("s.txt", "b", "--bootstrap 100 --bootstrap-seed 3").exit, 0);
  ASSERT_EQ(analyze("s.txt", "c", "--bootstrap 100 --bootstrap-seed 4").exit, 0);
  EXPECT_EQ(csv_rows(dir / "a/sink_rate.csv"), csv_rows(dir / "b/sink_rate.csv"));
  EXPECT_NE(csv_rows(dir / "a/sink_rate.csv"), csv_rows(dir / "c/sink_rate.csv"));
  std::istringstream rate(csv_rows(dir / "a/sink_rate.csv"));
  std::string header, line;
  std::getline(rate, header);
  std::getline(rate, line);
  std::vector<double> v;
  std::stringstream ls(line);
  for (std::string c; std::getline(ls, c, ',');) v.push_back(std::stod(c));
  ASSERT_EQ(v.size(), 8u) << header;  // key, rate, baseline, boost, rate lo/hi, boost lo/hi
  EXPECT_LE(v[4], v[1]);
  EXPECT_GE(v[5], v[1]);
  EXPECT_LT(v[4], v[5]) << "13 different sentences do not give a degenerate interval";
  EXPECT_LE(v[6], v[3]);
  EXPECT_GE(v[7], v[3]);
  // --bootstrap 0: no interval columns.
  ASSERT_EQ(analyze("s.txt", "none", "--bootstrap 0").exit, 0);
  EXPECT_EQ(read_text(dir / "none/sink_rate.csv").find("_lo"), std::string::npos);
  EXPECT_NE(read_text(dir / "none/sink_rate.csv").find("# bootstrap: none"), std::string::npos);
}

namespace {

// The data rows of a CSV without quoted cells, each as column -> cell.
std::vector<std::map<std::string, std::string>> csv_records(const fs::path& file) {
  std::istringstream in(csv_rows(file));
  auto split = [](const std::string& line) {
    std::vector<std::string> cells;
    std::stringstream ls(line);
    for (std::string c; std::getline(ls, c, ',');) cells.push_back(c);
    if (!line.empty() && line.back() == ',') cells.push_back("");
    return cells;
  };
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> names = split(line);
  std::vector<std::map<std::string, std::string>> out;
  while (std::getline(in, line)) {
    const std::vector<std::string> cells = split(line);
    std::map<std::string, std::string> row;
    for (std::size_t c = 0; c < names.size() && c < cells.size(); ++c) row[names[c]] = cells[c];
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace

// The layer profiles and functional experiments of a corpus
// of one sentence are that sentence's own numbers, as analyze --text (layer
// summary, the head-averaged graph's spectra, value space) and the experiment
// command (KL of sink removal, BOS removal) compute them on their own paths.
TEST_F(Study, LayerProfilesOfOneSentenceAreItsOwnNumbers) {
  const std::string sentence = "Precursor of the modern motion picture.";
  std::ofstream(dir / "one.txt") << sentence << "\n";
  const std::string text = " --text '" + sentence + "' --out '";
  ASSERT_EQ(cli("analyze '" + kModel + "' --sentences '" + (dir / "one.txt").string() + "' --out '" +
                (dir / "pooled").string() + "' --functional --bootstrap 0")
                .exit,
            0);
  ASSERT_EQ(cli("analyze '" + kModel + "'" + text + (dir / "single").string() + "' --no-weight-spectra").exit, 0);
  ASSERT_EQ(cli("experiment kl '" + kModel + "'" + text + (dir / "kl").string() + "'").exit, 0);
  ASSERT_EQ(cli("experiment bos '" + kModel + "'" + text + (dir / "bos").string() + "'").exit, 0);

  std::map<std::string, double> profile;  // "layer metric threshold" -> mean
  for (const auto& r : csv_records(dir / "pooled/layer_profile.csv")) {
    EXPECT_EQ(r.at("sentences"), "1");
    profile[r.at("layer") + " " + r.at("metric") + " " + r.at("threshold")] = std::stod(r.at("mean"));
  }
  auto expect = [&](const std::string& key, double value) {
    ASSERT_TRUE(profile.count(key)) << key;
    EXPECT_NEAR(profile.at(key), value, 1e-12 * (1 + std::abs(value))) << key;
  };
  int layers = 0;
  for (const auto& r : csv_records(dir / "single/layer_summary.csv")) {
    if (r.at("scope") == "model") continue;
    const std::string l = r.at("scope");
    ++layers;
    expect(l + " alpha0 ", std::stod(r.at("mean_alpha0")));
    expect(l + " boost ", std::stod(r.at("mean_boost0")));
    expect(l + " sink_concentration_percent ", std::stod(r.at("mean_sink_concentration")));
    expect(l + " bars0_above_min_persistence ", std::stod(r.at("mean_bars_h0_above_min")));
    expect(l + " bars1_above_min_persistence ", std::stod(r.at("mean_bars_h1_above_min")));
  }
  EXPECT_EQ(layers, 4);
  int graphs = 0;
  for (const auto& r : csv_records(dir / "single/spectra.csv")) {
    if (r.at("head") != "average") continue;
    ++graphs;
    expect(r.at("layer") + " fiedler " + r.at("threshold"), std::stod(r.at("fiedler")));
    expect(r.at("layer") + " centralisation " + r.at("threshold"), std::stod(r.at("centralisation")));
  }
  EXPECT_EQ(graphs, 16);
  std::map<std::string, std::pair<double, double>> fN;  // layer -> sums of f and random f
  std::map<std::string, int> heads;
  for (const auto& r : csv_records(dir / "single/value_space.csv")) {
    fN[r.at("layer")].first += std::stod(r.at("f"));
    fN[r.at("layer")].second += std::stod(r.at("random_f_mean"));
    ++heads[r.at("layer")];
  }
  for (const auto& [l, sums] : fN) {
    expect(l + " f_n ", sums.first / heads[l]);
    expect(l + " f_n_random ", sums.second / heads[l]);
    expect(l + " f_n_excess ", (sums.first - sums.second) / heads[l]);
  }
  std::map<std::string, double> functional;
  for (const auto& r : csv_records(dir / "pooled/functional.csv"))
    functional[r.at("experiment") + " " + r.at("layers")] = std::stod(r.at("mean"));
  int kls = 0;
  for (const auto& r : csv_records(dir / "kl/kl.csv")) {
    ++kls;
    EXPECT_NEAR(functional.at("kl_sink_removal " + r.at("layers")), std::stod(r.at("mean_kl")), 1e-12)
        << r.at("layers");
  }
  EXPECT_EQ(kls, 5);
  double delta = 0;
  int tokens = 0;
  for (const auto& r : csv_records(dir / "bos/bos_nll.csv")) {
    delta += std::stod(r.at("delta"));
    ++tokens;
  }
  ASSERT_GT(tokens, 0);
  EXPECT_NEAR(functional.at("bos_removal_delta_nll all"), delta / tokens, 1e-12);
}

// A study's optional interventions are applied to every
// sentence, and the intervened runs are what is pooled: a one-sentence corpus
// gives analyze --text's numbers with the same interventions, shards merge to
// one process, the Slurm tasks get the same interventions.
TEST_F(Study, InterventionsApplyToEverySentence) {
  const std::string interventions = " --drop-first --ablate 1:2 ";
  const std::string sentence = "Precursor of the modern motion picture.";
  std::ofstream(dir / "one.txt") << sentence << "\n";
  ASSERT_EQ(cli("analyze '" + kModel + "' --sentences '" + (dir / "one.txt").string() + "' --out '" +
                (dir / "pooled").string() + "' --bootstrap 0" + interventions)
                .exit,
            0);
  ASSERT_EQ(cli("analyze '" + kModel + "' --text '" + sentence + "' --out '" +
                (dir / "single").string() + "' --no-weight-spectra" + interventions)
                .exit,
            0);
  std::map<std::string, double> alpha;
  for (const auto& r : csv_records(dir / "pooled/layer_profile.csv"))
    if (r.at("metric") == "alpha0") alpha[r.at("layer")] = std::stod(r.at("mean"));
  int layers = 0;
  for (const auto& r : csv_records(dir / "single/layer_summary.csv")) {
    if (r.at("scope") == "model") continue;
    ++layers;
    EXPECT_NEAR(alpha.at(r.at("scope")), std::stod(r.at("mean_alpha0")), 1e-12) << r.at("scope");
  }
  EXPECT_EQ(layers, 4);
  const std::string header = read_text(dir / "pooled/layer_profile.csv");
  EXPECT_NE(header.find("# interventions: "), std::string::npos);
  EXPECT_EQ(header.find("# interventions: none"), std::string::npos) << header;

  // Shards with the interventions merge to one process with them.
  ASSERT_EQ(cli("analyze '" + kModel + "' --sentences '" + (dir / "s.txt").string() + "' --out '" +
                (dir / "all").string() + "' --batch 4" + interventions)
                .exit,
            0);
  for (const char* shard : {"0/2", "1/2"}) ASSERT_EQ(cli(run(shard, interventions)).exit, 0);
  ASSERT_EQ(cli("study merge '" + (dir / "study").string() + "'").exit, 0);
  for (const char* table : {"specialisation.csv", "sink_rate.csv", "layer_profile.csv", "frame.csv"})
    EXPECT_EQ(csv_rows(dir / "study/merged" / table), csv_rows(dir / "all" / table)) << table;
  // The plain run is another study.
  const CliResult plain = cli(run("0/2"));
  EXPECT_EQ(plain.exit, 2) << plain.out;
  // The Slurm tasks run their shards with what study.json records, the
  // interventions among them: the same tables as one process with them.
  const fs::path slurmStudy = dir / "slurm-study";
  const CliResult slurm =
      cli("study slurm '" + kModel + "' --sentences '" + (dir / "s.txt").string() + "' --out '" +
          slurmStudy.string() + "' --shards 2 --batch 4" + interventions);
  ASSERT_EQ(slurm.exit, 0) << slurm.out;
  const std::string script = read_text(slurmStudy / "slurm/array.sbatch");
  EXPECT_NE(script.find(" study shard '" + fs::absolute(slurmStudy).string() +
                        "' --shard \"${SLURM_ARRAY_TASK_ID}/2\" --threads 2\n"),
            std::string::npos)
      << script;
  for (const char* shard : {"0/2", "1/2"}) {
    const CliResult task = cli("study shard '" + slurmStudy.string() + "' --shard " + shard);
    ASSERT_EQ(task.exit, 0) << task.out;
  }
  ASSERT_EQ(cli("study merge '" + slurmStudy.string() + "'").exit, 0);
  for (const char* table : {"specialisation.csv", "sink_rate.csv", "layer_profile.csv", "frame.csv"})
    EXPECT_EQ(csv_rows(slurmStudy / "merged" / table), csv_rows(dir / "all" / table)) << table;
  // A sentence file changed since the study was made is refused, not run.
  std::ofstream(dir / "s.txt", std::ios::app) << "One more sentence.\n";
  const CliResult changed = cli("study shard '" + slurmStudy.string() + "' --shard 0/2");
  EXPECT_EQ(changed.exit, 2) << changed.out;
  EXPECT_NE(changed.out.find("other inputs"), std::string::npos) << changed.out;
  // The functional experiments measure the plain model only.
  const CliResult both = cli(run("0/2", "--functional --drop-first"));
  EXPECT_EQ(both.exit, 2) << both.out;
  EXPECT_NE(both.out.find("--functional measures the plain model"), std::string::npos) << both.out;
}

// The study folder is written into the batch scripts' #SBATCH lines: a folder
// whose name holds a line break (the rest of the name would run as a command
// when the job starts), a quote, a backslash or Slurm's '%' is refused before
// anything is written; spaces and shell characters stay inside the quotes.
TEST_F(Study, SlurmScriptsNeverRunAFoldersName) {
  const std::string slurm = "study slurm '" + kModel + "' --sentences '" + (dir / "s.txt").string() +
                            "' --shards 2 --batch 4 --out ";
  for (const std::string name : {"a\ntouch /tmp/sinkscope-pwned", "quote\"d", "back\\slash", "100%"}) {
    const fs::path hostile = dir / name;
    const CliResult refused = cli(slurm + "'" + hostile.string() + "'");
    EXPECT_EQ(refused.exit, 2) << refused.out;
    EXPECT_NE(refused.out.find("a Slurm batch script cannot name a folder"), std::string::npos)
        << refused.out;
    EXPECT_FALSE(fs::exists(hostile)) << name;
  }
  const fs::path spaced = dir / "my studies $(touch x) `y`";
  const CliResult ok = cli(slurm + "'" + spaced.string() + "'");
  ASSERT_EQ(ok.exit, 0) << ok.out;
  const std::string script = read_text(spaced / "slurm/array.sbatch");
  EXPECT_NE(script.find("#SBATCH --output=\"" + fs::absolute(spaced).string() +
                        "/slurm/logs/shard-%a-of-2.out\"\n"),
            std::string::npos)
      << script;
  // Every line is a comment or the one exec line.
  std::istringstream lines(script);
  int commands = 0;
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] != '#') {
      ++commands;
      EXPECT_EQ(line.rfind("exec ", 0), 0u) << line;
    }
  EXPECT_EQ(commands, 1);
}

// Integers of a study's files are JSON integers within range: a float is never
// truncated (a manifest's "shard": 0.5 is not shard 0) nor wrapped ("version":
// 1e300 is not -2147483648).
TEST_F(Study, NumbersThatAreNotWholeAreRefusedByName) {
  ASSERT_EQ(cli(run("0/2")).exit, 0);
  ASSERT_EQ(cli(run("1/2")).exit, 0);
  const fs::path studyFile = dir / "study/study.json";
  const fs::path manifest = dir / "study/shards/shard-0-of-2/manifest.json";
  const std::string study = read_text(studyFile), shard = read_text(manifest);
  auto edited = [](const std::string& text, const char* key, const nlohmann::json& value) {
    nlohmann::json j = nlohmann::json::parse(text);
    j[key] = value;
    return j.dump(1);
  };
  auto merge = [&] { return cli("study merge '" + (dir / "study").string() + "' --force"); };
  for (const nlohmann::json& version : {nlohmann::json(1e300), nlohmann::json(2.5), nlohmann::json("2")}) {
    std::ofstream(studyFile) << edited(study, "version", version);
    const CliResult r = merge();
    EXPECT_EQ(r.exit, 2) << r.out;
    EXPECT_NE(r.out.find("study.json: version: expected a whole number"), std::string::npos) << r.out;
  }
  // Parameters within the ranges and words the command line and Python accept
  // (one declaration, document::analysis_setting_specs), named when outside.
  auto editedParam = [&](const char* key, const nlohmann::json& value) {
    nlohmann::json j = nlohmann::json::parse(study);
    j["params"][key] = value;
    return j.dump(1);
  };
  for (const auto& [key, value, words] :
       std::vector<std::tuple<const char*, nlohmann::json, std::string>>{
           {"percentile", "0x1.f4p+8", "study.json: percentile: 500 is outside 0 to 100"},
           {"gamma", "-0x1p-1", "study.json: gamma: -0.5 is outside 0 to 1"},
           {"betti_points", 100001,
            "study.json: betti_points: expected a whole number from 2 to 100000"},
           {"thresholds", nlohmann::json::array({"0x1p+1"}),
            "study.json: thresholds: 2 is outside 0 to 1"},
           {"sink_mode", "column_sum",
            "study.json: sink_mode: 'column_sum' is not one of percentile, column-sum"},
           {"seed", "12x", "study.json: seed: not a whole number"}}) {
    std::ofstream(studyFile) << editedParam(key, value);
    const CliResult r = merge();
    EXPECT_EQ(r.exit, 2) << r.out;
    EXPECT_NE(r.out.find(words), std::string::npos) << r.out;
  }
  std::ofstream(studyFile) << study;
  std::ofstream(manifest) << edited(shard, "shard", 0.5);
  const CliResult half = merge();
  EXPECT_NE(half.exit, 0) << half.out;
  EXPECT_NE(half.out.find("manifest.json: shard: expected a whole number"), std::string::npos) << half.out;
  std::ofstream(manifest) << shard;
  EXPECT_EQ(merge().exit, 0);
}

// Pooled numbers are those of each sentence's own run, bit for bit, whatever
// the batch and the thread count: a NoPE model seeing a token twice gives
// exactly equal contributions, and the ties then fall the same way.
TEST_F(Study, PooledTablesDoNotDependOnTheBatchOrTheThreads) {
  const std::string nope = std::string(SINKSCOPE_SOURCE_DIR) + "/resources/models/nope-decoder";
  {
    std::ifstream in(kSentences);
    std::ofstream out(dir / "30.txt");
    std::string line;
    for (int k = 0; k < 30 && std::getline(in, line); ++k) out << line << "\n";
  }
  auto analyze = [&](const std::string& name, const std::string& extra) {
    const CliResult r = cli("analyze '" + nope + "' --sentences '" + (dir / "30.txt").string() +
                            "' --out '" + (dir / name).string() + "' " + extra);
    EXPECT_EQ(r.exit, 0) << r.out;
  };
  analyze("b16", "--batch 16");
  analyze("b1", "--batch 1 --threads 1");
  analyze("b7", "--batch 7 --threads 2");
  for (const char* table : {"specialisation.csv", "token_specialisation.csv", "taxonomy_pooled.csv",
                            "sink_rate.csv", "frame.csv", "layer_profile.csv", "top_sentences.csv"}) {
    EXPECT_EQ(csv_rows(dir / "b1" / table), csv_rows(dir / "b16" / table)) << table;
    EXPECT_EQ(csv_rows(dir / "b7" / table), csv_rows(dir / "b16" / table)) << table;
  }
}

// No folder of a study may be a link: shards/ linked elsewhere would merge
// records from outside the study, merged/ linked elsewhere would write the
// tables there (with --force, replacing files there).
TEST_F(Study, FoldersOfAStudyThatAreLinksAreRefused) {
  ASSERT_EQ(cli(run("0/1")).exit, 0);
  const fs::path study = dir / "study", elsewhere = dir / "elsewhere";
  fs::create_directories(elsewhere / "merged");
  fs::create_directory_symlink(elsewhere / "merged", study / "merged");
  for (const char* force : {"", " --force"}) {
    const CliResult merged = cli("study merge '" + study.string() + "'" + force);
    EXPECT_EQ(merged.exit, 2) << merged.out;
    EXPECT_NE(merged.out.find("merged: is a link"), std::string::npos) << merged.out;
  }
  EXPECT_TRUE(fs::is_empty(elsewhere / "merged")) << "nothing written through the link";
  fs::remove(study / "merged");
  fs::rename(study / "shards", elsewhere / "shards");
  fs::create_directory_symlink(elsewhere / "shards", study / "shards");
  const CliResult merge = cli("study merge '" + study.string() + "'");
  EXPECT_EQ(merge.exit, 2) << merge.out;
  EXPECT_NE(merge.out.find("shards: is a link"), std::string::npos) << merge.out;
  const CliResult again = cli(run("0/1"));
  EXPECT_EQ(again.exit, 2) << again.out;
  EXPECT_NE(again.out.find("shards: is a link"), std::string::npos) << again.out;
  EXPECT_FALSE(fs::exists(study / "merged"));
}
