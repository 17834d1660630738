// sinkscope-cli as a user runs it: exit codes, messages, CSV output.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "support/shell_run.h"

namespace fs = std::filesystem;

namespace {

// A fresh temporary folder for one test, with a random model of `type` in DIR/model.
fs::path folder_with_model(const std::string& name, const std::string& type) {
  const fs::path dir =
      fs::temp_directory_path() / ("sinkscope-cli-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  EXPECT_EQ(cli("random-model " + type + " '" + (dir / "model").string() + "'").exit, 0);
  return dir;
}

// Runs `script` with Debian's python3 (numpy comes from python3-numpy) and
// the given arguments; stderr is merged into out.
CliRun python_check(const fs::path& dir, const std::string& script,
                    const std::vector<fs::path>& args) {
  std::ofstream(dir / "check.py") << script;
  std::string command = "/usr/bin/python3 '" + (dir / "check.py").string() + "'";
  for (const auto& a : args) command += " '" + a.string() + "'";
  return shell(command + " 2>&1");
}
}  // namespace

TEST(Cli, HelpAndVersion) {
  EXPECT_EQ(cli("--help").exit, 0);
  EXPECT_NE(cli("--help").out.find("usage: sinkscope-cli"), std::string::npos);
  EXPECT_EQ(cli("baseline --help").exit, 0);
  EXPECT_EQ(cli("info --help").exit, 0);
  EXPECT_NE(cli("--version").out.find("sinkscope-cli 0."), std::string::npos);
}

// Most tests here run the commands in the test's process (cli()): the
// program answers each line as they do, output and exit code, the --threads
// of one run not carried into the next.
TEST(Cli, TheProgramAnswersAsTheCommandsRunInProcess) {
  const std::string model = SINKSCOPE_SOURCE_DIR "/resources/models/rope-decoder-bos-first";
  for (const std::string& args : std::vector<std::string>{
           "baseline --length 5", "baseline --length ten", "frobnicate", "info --threads 1", "info",
           "tokens '" + model + "' --text 'The cat sat.'",
           "attention '" + model + "' --text 'The cat sat.' --layer 1 --head 2 --csv -",
           "inspect /nonexistent/model"}) {
    SCOPED_TRACE(args);
    const CliRun here = cli(args), program = cli_process(args);
    EXPECT_EQ(here.exit, program.exit);
    EXPECT_EQ(here.out, program.out);
  }
}

TEST(Cli, BadUsageExitsWithTwoAndOneLine) {
  for (const char* args : {"", "frobnicate", "baseline", "baseline --length 0",
                           "baseline --length ten", "baseline --colour red"}) {
    const CliRun r = cli(args);
    EXPECT_EQ(r.exit, 2) << args << ": " << r.out;
  }
  const CliRun r = cli("baseline --length abc");
  EXPECT_EQ(r.out,
            "sinkscope-cli: baseline: --length: \"abc\" is not a whole number from 1 to 1000000\n");
}

// The commands whose options are declared once (CLI11): a table of command
// lines and what each must answer, exactly (the whole output, one line).
TEST(Cli, DeclaredOptionsAnswerBadCommandLinesByName) {
  const std::string model = "'" SINKSCOPE_SOURCE_DIR "/resources/models/rope-decoder-bos-first'";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"analyze " + model + " --text hi --out /nonexistent/x --percentile 200",
       "analyze: --percentile: \"200\" is not from 0 to 100"},
      {"analyze " + model + " --text hi --out /nonexistent/x --top-n 2.5",
       "analyze: --top-n: \"2.5\" is not a whole number from 1 to 100000"},
      {"analyze " + model + " --text hi --out /nonexistent/x --sink-mode median",
       "analyze: --sink-mode: median not in {percentile,column-sum}"},
      {"analyze " + model + " --out /nonexistent/x", "analyze: give one of --text or --sentences"},
      {"analyze " + model + " --text a --sentences b --out /nonexistent/x",
       "analyze: --text excludes --sentences"},
      {"analyze --text hi --out /nonexistent/x", "analyze: give MODEL (or --capture FILE)"},
      {"analyze " + model + " --text hi --out /nonexistent/x --frobnicate",
       "analyze: not an option or argument here: --frobnicate"},
      {"analyze " + model + " --text hi --out /nonexistent/x --thresholds 0.1,2",
       "option --thresholds: \"2\" must be a number in 0..1"},
      {"analyze " + model + " --text hi --out /nonexistent/x --functional --drop-first",
       "--functional measures the plain model: give it without interventions"},
      {"experiment nope " + model + " --text hi --out /nonexistent/x",
       "experiment: KIND: nope not in {kl,bos,fisher,perturb,rank,ablate,sparsify}"},
      {"experiment perturb " + model + " --text hi --out /nonexistent/x --noise 1 --replace-with 3",
       "experiment: --replace-with excludes --noise"},
      {"study", "study: give run, slurm, shard, merge, status or resubmit (see study --help)"},
      {"study explode /x",
       "study: give run, slurm, shard, merge, status or resubmit (see study --help)"},
      {"study merge", "study: DIR is required"},
      {"study shard /x", "study: --shard is required"},
      {"study merge /x --percentile 50", "study: not an option or argument here: --percentile 50"},
      {"study slurm " + model + " --sentences s --out /nonexistent/x",
       "study: --shards is required"},
  };
  for (const auto& [args, message] : cases) {
    const CliRun r = cli(args);
    EXPECT_EQ(r.exit, 2) << args << ": " << r.out;
    EXPECT_EQ(r.out, "sinkscope-cli: " + message + "\n") << args;
  }
  // Help is generated from the declarations: every option with its range and default.
  const CliRun help = cli("analyze --help");
  EXPECT_EQ(help.exit, 0);
  for (const char* line :
       {"--percentile P=90", "the score threshold tau is the P-th percentile (0 to 100)",
        "--sink-mode MODE:{percentile,column-sum}=percentile", "--out DIR (required)",
        "Interventions (analysed instead of the plain run):", "--ntk-scale S"})
    EXPECT_NE(help.out.find(line), std::string::npos) << line << "\n" << help.out;
  const CliRun run = cli("study run --help");
  EXPECT_EQ(run.exit, 0);
  EXPECT_NE(run.out.find("Usage: sinkscope-cli study run [OPTIONS] MODEL"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("--shard I/N"), std::string::npos) << run.out;
}

TEST(Cli, BaselineWritesCsvWithHeaderComments) {
  const CliRun r = cli("baseline --length 10");
  ASSERT_EQ(r.exit, 0) << r.out;
  EXPECT_NE(r.out.find("# tool: sinkscope-cli"), std::string::npos);
  EXPECT_NE(r.out.find("# length: 10\n"), std::string::npos);
  EXPECT_NE(r.out.find("\nkey,alpha_uniform\n"), std::string::npos);
  // H_10 / 10 = 0.29289682539682...
  EXPECT_NE(r.out.find("\n0,0.292896825396825"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n9,0.1\n"), std::string::npos);
}

TEST(Cli, OutFileIsNotReplacedUnlessForced) {
  const fs::path dir = fs::temp_directory_path() / "sinkscope-cli-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path out = dir / "baseline.csv";
  ASSERT_EQ(cli("baseline --length 3 --out '" + out.string() + "'").exit, 0);
  EXPECT_NE(read_text(out).find("\n2,0.333333333333333"), std::string::npos);
  const CliRun again = cli("baseline --length 4 --out '" + out.string() + "'");
  EXPECT_EQ(again.exit, 1);
  EXPECT_NE(again.out.find("already exists"), std::string::npos);
  EXPECT_EQ(cli("baseline --length 4 --force --out '" + out.string() + "'").exit, 0);
  EXPECT_NE(read_text(out).find("# length: 4"), std::string::npos);
  // Nothing but the file itself is left behind (no temporary files).
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  fs::remove_all(dir);
}

TEST(Cli, InfoReportsABadModelFolderByName) {
  const CliRun r = cli("info /nonexistent/model");
  EXPECT_EQ(r.exit, 2);
  EXPECT_NE(r.out.find("/nonexistent/model: not a folder"), std::string::npos) << r.out;
  const CliRun ok = cli("info");
  EXPECT_EQ(ok.exit, 0);
  EXPECT_NE(ok.out.find("device: "), std::string::npos);
}

// Commands that run no model never load libtorch (the model runtime is a
// module loaded on first use, models/torch_runtime.h): the dynamic loader's
// own report (LD_DEBUG=libs) names every library a process loads.
TEST(Cli, CommandsThatRunNoModelNeverLoadLibtorch) {
  const fs::path dir =
      fs::temp_directory_path() / ("sinkscope-cli-lazy-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string capture =
      std::string(SINKSCOPE_SOURCE_DIR) + "/tests/fuzz/corpus/capture/valid-full";
  auto loads = [](const std::string& args) {
    const CliRun r = shell(std::string("LD_DEBUG=libs '") + SINKSCOPE_CLI + "' " + args + " 2>&1");
    return std::make_pair(r.out.find("libtorch_cpu.so") != std::string::npos, r.exit);
  };
  EXPECT_EQ(loads("--help"), std::make_pair(false, 0));
  EXPECT_EQ(loads("info"), std::make_pair(false, 0));
  EXPECT_EQ(loads("analyze --capture '" + capture + "' --out '" + (dir / "a").string() + "'"),
            std::make_pair(false, 0));
  // A model's run does load it (the check sees it).
  const std::string model =
      std::string(SINKSCOPE_SOURCE_DIR) + "/resources/models/rope-decoder-bos-first";
  EXPECT_EQ(loads("attention '" + model + "' --text 'a b c' --layer 0 --head 0 --csv '" +
                  (dir / "m.csv").string() + "'"),
            std::make_pair(true, 0));
  fs::remove_all(dir);
}

// A model runtime that cannot be loaded is named with the loader's reason,
// and nothing else is tried when the environment names one.
TEST(Cli, AMissingModelRuntimeIsNamedWithTheReason) {
  const std::string model =
      std::string(SINKSCOPE_SOURCE_DIR) + "/resources/models/rope-decoder-bos-first";
  const CliRun r = shell(std::string("SINKSCOPE_TORCH_RUNTIME=/nonexistent/sinkscope_torch.so '") +
                         SINKSCOPE_CLI + "' attention '" + model +
                         "' --text 'a b' --layer 0 --head 0 --csv - 2>&1");
  EXPECT_NE(r.exit, 0);
  EXPECT_NE(r.out.find("the model runtime (sinkscope_torch.so, libtorch) could not be loaded"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("/nonexistent/sinkscope_torch.so: not there"), std::string::npos) << r.out;
}

// --betti-points sets the Betti grid, within the range every front end
// accepts (document::analysis_setting_specs: Python and study.json take the same).
TEST(Cli, TheBettiGridIsAnOption) {
  const fs::path dir =
      fs::temp_directory_path() / ("sinkscope-cli-betti-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string model =
      std::string(SINKSCOPE_SOURCE_DIR) + "/resources/models/rope-decoder-bos-first";
  const CliRun ok =
      cli("analyze '" + model + "' --text 'a b c' --no-weight-spectra --betti-points 11 --out '" +
          (dir / "a").string() + "'");
  ASSERT_EQ(ok.exit, 0) << ok.out;
  const std::string betti = read_text(dir / "a/betti.csv");
  EXPECT_NE(betti.find("# betti_points: 11\n"), std::string::npos);
  EXPECT_NE(betti.find("\n0,0,0.1,"), std::string::npos) << "the grid steps by 1/10";
  EXPECT_EQ(betti.find("\n0,0,0.01,"), std::string::npos);
  const CliRun refused =
      cli("analyze '" + model + "' --text 'a b c' --betti-points 100001 --out '" +
          (dir / "b").string() + "'");
  EXPECT_EQ(refused.exit, 2);
  EXPECT_NE(refused.out.find("--betti-points"), std::string::npos) << refused.out;
  fs::remove_all(dir);
}

// An empty path is no path: `--out ''` would write into the working folder.
TEST(Cli, AnEmptyPathIsRefusedByName) {
  const std::string model =
      std::string(SINKSCOPE_SOURCE_DIR) + "/resources/models/rope-decoder-bos-first";
  const fs::path dir =
      fs::temp_directory_path() / ("sinkscope-cli-empty-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const CliRun r = shell("cd '" + dir.string() + "' && '" + SINKSCOPE_CLI + "' analyze '" + model +
                         "' --text 'a b' --out '' 2>&1");
  EXPECT_EQ(r.exit, 2) << r.out;
  EXPECT_NE(r.out.find("--out: give a folder name, not an empty one"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::is_empty(dir)) << "nothing written into the working folder";
  const CliRun json =
      cli("analyze '" + model + "' --text 'a b' --out '" + (dir / "x").string() + "' --json ''");
  EXPECT_EQ(json.exit, 2) << json.out;
  EXPECT_NE(json.out.find("--json: give a file name"), std::string::npos) << json.out;
  fs::remove_all(dir);
}

// A list of numbers holding nan or inf is refused by name, not written as
// rows of nan.
TEST(Cli, NotANumberInAListOptionIsRefused) {
  const std::string model =
      std::string(SINKSCOPE_SOURCE_DIR) + "/resources/models/rope-decoder-bos-first";
  for (const std::string& given :
       {std::string("0.05,nan"), std::string("inf"), std::string("-nan")}) {
    const CliRun r = cli("analyze '" + model + "' --text 'a b' --thresholds '" + given +
                         "' --out /nonexistent/x");
    EXPECT_EQ(r.exit, 2) << given << ": " << r.out;
    EXPECT_NE(r.out.find("--thresholds"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("must be a number in"), std::string::npos) << r.out;
  }
  const CliRun retained =
      cli("experiment sparsify '" + model + "' --text 'a b' --retained 1,nan --out /nonexistent/x");
  EXPECT_EQ(retained.exit, 2) << retained.out;
  EXPECT_NE(retained.out.find("--retained"), std::string::npos) << retained.out;
}

// The BLAS kernel decides the last digits of every float result: info names
// it and who chose it.
TEST(Cli, InfoNamesTheBlasKernelAndWhoChoseIt) {
  const CliRun named =
      shell(std::string("OPENBLAS_CORETYPE=Prescott '") + SINKSCOPE_CLI + "' info 2>&1");
  ASSERT_EQ(named.exit, 0) << named.out;
  EXPECT_NE(named.out.find("OpenBLAS core: Prescott\n"), std::string::npos) << named.out;
  EXPECT_NE(named.out.find("OpenBLAS core chosen by: OPENBLAS_CORETYPE\n"), std::string::npos)
      << named.out;
  const CliRun own =
      shell(std::string("env -u OPENBLAS_CORETYPE '") + SINKSCOPE_CLI + "' info 2>&1");
  ASSERT_EQ(own.exit, 0) << own.out;
  const bool detected =
      own.out.find("OpenBLAS core chosen by: OpenBLAS's detection\n") != std::string::npos;
  const bool raised =
      own.out.find("OpenBLAS core chosen by: SinkScope (OpenBLAS chose ") != std::string::npos;
  EXPECT_TRUE(detected || raised) << own.out;
}

TEST(Cli, ModelCommandsWorkOnARandomFolder) {
  const fs::path dir =
      fs::temp_directory_path() / ("sinkscope-cli-model-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ASSERT_EQ(cli("random-model gpt2 '" + dir.string() + "'").exit, 0);
  EXPECT_EQ(cli("random-model gpt2 '" + dir.string() + "'").exit, 2)
      << "refuses an existing folder";

  const CliRun inspect = cli("inspect '" + dir.string() + "'");
  ASSERT_EQ(inspect.exit, 0) << inspect.out;
  for (const char* line : {"family: gpt2 (decoder)", "layers: 2", "heads: 4",
                           "tokenizer: BPE (byte-level)", "dtypes: F32=", "memory_estimate: "})
    EXPECT_NE(inspect.out.find(line), std::string::npos) << line << "\n" << inspect.out;

  const CliRun tokens = cli("tokens '" + dir.string() + "' --text 'the cat sat'");
  ASSERT_EQ(tokens.exit, 0) << tokens.out;
  EXPECT_NE(tokens.out.find("\t\u2423cat\n"), std::string::npos) << tokens.out;

  const fs::path batch = dir / "batch.txt";
  std::ofstream(batch) << "\"the\"\n\"\"\n\"<s>x\"\n";
  const CliRun ids =
      cli("tokens '" + dir.string() + "' --batch '" + batch.string() + "' --no-special");
  ASSERT_EQ(ids.exit, 0) << ids.out;
  std::istringstream lines(ids.out);
  std::string first, second, third;
  std::getline(lines, first);
  std::getline(lines, second);
  std::getline(lines, third);
  EXPECT_EQ(second, "[]");
  EXPECT_EQ(first.front(), '[');
  EXPECT_NE(third.find(","), std::string::npos) << "special-token text is one token plus x";

  const fs::path csv = dir / "attention.csv";
  const CliRun att =
      cli("attention '" + dir.string() +
          "' --text 'the cat sat on the mat' --layer 1 --head 2 --csv '" + csv.string() + "'");
  ASSERT_EQ(att.exit, 0) << att.out;
  const std::string table = read_text(csv);
  EXPECT_NE(table.find("# layer: 1\n"), std::string::npos);
  EXPECT_NE(table.find("\nlayer,head,query,key,query_token,key_token,weight\n"), std::string::npos);
  // Rows of each query sum to 1; causal: no key after its query.
  std::istringstream rows(table.substr(table.find("weight\n") + 7));
  std::map<int, double> sums;
  for (std::string row; std::getline(rows, row);) {
    std::vector<std::string> f;
    std::stringstream ss(row);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    ASSERT_EQ(f.size(), 7u) << row;
    EXPECT_LE(std::stoi(f[3]), std::stoi(f[2]));
    sums[std::stoi(f[2])] += std::stod(f[6]);
  }
  ASSERT_GT(sums.size(), 3u);
  for (const auto& [q, s] : sums) EXPECT_NEAR(s, 1.0, 1e-5) << q;

  EXPECT_EQ(cli("attention '" + dir.string() + "' --text 'x' --layer 9 --head 0 --csv -").exit, 2);
  EXPECT_EQ(cli("attention '" + dir.string() + "' --text '  ' --layer 0 --head 0 --csv -").exit, 2);
  EXPECT_EQ(cli("inspect /nonexistent/org-name").exit, 2);
  const CliRun cacheName = cli("inspect nobody/nothing");
  EXPECT_EQ(cacheName.exit, 2);
  EXPECT_NE(cacheName.out.find("nobody/nothing: not a folder"), std::string::npos) << cacheName.out;
  fs::remove_all(dir);
}

// random-model's size options: a model with more heads and room for long inputs.
TEST(Cli, RandomModelTakesHeadsAndPositions) {
  const fs::path dir =
      fs::temp_directory_path() / ("sinkscope-cli-long-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ASSERT_EQ(cli("random-model llama '" + dir.string() + "' --heads 6 --positions 3000").exit, 0);
  const CliRun inspect = cli("inspect '" + dir.string() + "'");
  ASSERT_EQ(inspect.exit, 0) << inspect.out;
  EXPECT_NE(inspect.out.find("heads: 6"), std::string::npos) << inspect.out;
  std::ifstream config(dir / "config.json");
  const std::string text((std::istreambuf_iterator<char>(config)),
                         std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"max_position_embeddings\": 3000"), std::string::npos) << text;
  EXPECT_EQ(cli("random-model llama '" + (dir / "x").string() + "' --heads 0").exit, 2);
  fs::remove_all(dir);
}

// corpus reads WordNet's files bounded and regular only (a FIFO used to block
// for ever), and writes train.txt and heldout.txt both or neither, replacing
// them only with --force.
TEST(Cli, CorpusKeepsTheInputAndOutputRules) {
  const fs::path dir =
      fs::temp_directory_path() / ("sinkscope-cli-corpus-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "wordnet");
  const std::string line =
      "00001740 03 n 01 entity 0 000 | that which is perceived to have its own distinct existence; "
      "\"the cat sat on the warm mat in the old house\"\n";
  for (const char* name : {"data.verb", "data.adj", "data.adv"})
    std::ofstream(dir / "wordnet" / name) << line;
  ASSERT_EQ(shell("mkfifo '" + (dir / "wordnet/data.noun").string() + "'").exit, 0);
  const std::string corpus = "corpus --wordnet '" + (dir / "wordnet").string() +
                             "' --heldout 1 --out '" + (dir / "out").string() + "'";
  const CliRun fifo = shell("timeout 60 '" SINKSCOPE_CLI "' " + corpus + " 2>&1");
  EXPECT_EQ(fifo.exit, 2) << fifo.out;
  EXPECT_NE(fifo.out.find("data.noun"), std::string::npos) << fifo.out;
  EXPECT_FALSE(fs::exists(dir / "out"));
  fs::remove(dir / "wordnet/data.noun");
  std::ofstream(dir / "wordnet/data.noun") << line;
  ASSERT_EQ(cli(corpus).exit, 0);
  std::ofstream(dir / "out/train.txt") << "mine\n";
  const CliRun again = cli(corpus);
  EXPECT_EQ(again.exit, 2) << again.out;
  EXPECT_NE(again.out.find("already exists (use --force"), std::string::npos) << again.out;
  EXPECT_EQ(read_text(dir / "out/train.txt"), "mine\n");
  EXPECT_EQ(cli(corpus + " --force").exit, 0);
  EXPECT_NE(read_text(dir / "out/train.txt"), "mine\n");
  fs::remove_all(dir);
}

TEST(Cli, TrainAndSinksOnATinyCorpus) {
  const fs::path dir =
      fs::temp_directory_path() / ("sinkscope-cli-train-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string sentences =
      std::string(SINKSCOPE_SOURCE_DIR) + "/resources/examples/sentences.txt";
  const CliRun bad = cli("train --corpus '" + sentences + "' --out '" + dir.string() +
                         "' --position-encoding sinusoid");
  EXPECT_EQ(bad.exit, 2);
  EXPECT_NE(bad.out.find("--position-encoding"), std::string::npos) << bad.out;
  const CliRun train = cli(
      "train --corpus '" + sentences + "' --heldout '" + sentences + "' --out '" + dir.string() +
      "' --vocab 400 --layers 1 --heads 2 --hidden 32 --intermediate 64 --context 32"
      " --batch-tokens 256 --steps 6 --log-every 3 --position-encoding alibi --bos first");
  ASSERT_EQ(train.exit, 0) << train.out;
  const CliRun inspect = cli("inspect '" + dir.string() + "'");
  EXPECT_NE(inspect.out.find("positions: alibi"), std::string::npos) << inspect.out;
  const fs::path table = dir.parent_path() / (dir.filename().string() + "-sinks.csv");
  const fs::path doc = dir.parent_path() / (dir.filename().string() + "-sinks.json");
  const CliRun sinks = cli("sinks '" + dir.string() + "' --heldout '" + sentences +
                           "' --tokens 24 --inputs 2 --csv '" + table.string() + "' --json '" +
                           doc.string() + "' --force");
  ASSERT_EQ(sinks.exit, 0) << sinks.out;
  EXPECT_NE(sinks.out.find("inputs: 2 x 24 tokens"), std::string::npos) << sinks.out;
  EXPECT_NE(sinks.out.find("sink_concentration: "), std::string::npos);
  // The table with its parameters, not only stdout.
  const std::string csv = read_text(table);
  EXPECT_NE(csv.find("# heldout: " + sentences + "\n"), std::string::npos) << csv;
  EXPECT_NE(
      csv.find("\ninputs,tokens,alpha0,boost,heads_boost3,sink_rate,sink_concentration\n2,24,"),
      std::string::npos)
      << csv;
  EXPECT_NE(read_text(doc).find("\"schema_version\": 1"), std::string::npos);
  fs::remove(table);
  fs::remove(doc);
  fs::remove_all(dir);
  // A full disk (files beyond 64 KiB fail to write) is a failed write, exit 1,
  // not bad input, and leaves no half-written initial model behind.
  const CliRun full =
      shell("trap '' XFSZ; ulimit -f 64; '" SINKSCOPE_CLI "' train --corpus '" + sentences +
            "' --out '" + dir.string() + "' --vocab 400 --steps 2 2>&1");
  EXPECT_EQ(full.exit, 1) << full.out;
  EXPECT_NE(full.out.find("write failed"), std::string::npos) << full.out;
  EXPECT_FALSE(fs::exists(dir / ".init")) << full.out;
  fs::remove_all(dir);
}

// A checkpoint the disk refuses half way (its optimizer state beyond a 65 KB
// file limit) is not left as a checkpoint without it: each is written into a
// staging folder and moved into place whole; a run that fails before its
// first whole checkpoint leaves no folder it made.
TEST(Cli, ACheckpointTheDiskRefusesIsNotLeftHalfWritten) {
  const fs::path dir =
      fs::temp_directory_path() / ("sinkscope-cli-checkpoint-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string corpus = (dir / "corpus.txt").string();
  {
    std::ofstream out(corpus);
    for (int i = 1; i <= 200; ++i)
      out << "the cat sat on the mat number " << i << " and then it ran away quickly\n";
  }
  const std::string train = "'" SINKSCOPE_CLI "' train --corpus '" + corpus + "' --out '" +
                            (dir / "m").string() +
                            "' --steps 6 --layers 1 --heads 2 --hidden 32 --intermediate 64 "
                            "--vocab 300 --context 16 --batch-tokens 64 --checkpoint-every 2";
  // bash's ulimit -f counts KiB (dash's, 512-byte blocks).
  const CliRun full = shell("bash -c \"ulimit -f 130; trap '' XFSZ; exec " + train + "\" 2>&1");
  EXPECT_EQ(full.exit, 1) << full.out;
  EXPECT_NE(full.out.find("checkpoints/step-2: not saved ("), std::string::npos) << full.out;
  EXPECT_FALSE(fs::exists(dir / "m")) << "no half run left: " << full.out;
  const CliRun whole = shell(train + " 2>&1");
  ASSERT_EQ(whole.exit, 0) << whole.out;
  for (const char* step : {"step-2", "step-4"})
    for (const char* file : {"model.safetensors", "optimizer.safetensors", "trainer_state.json"})
      EXPECT_TRUE(fs::exists(dir / "m" / "checkpoints" / step / file)) << step << "/" << file;
  EXPECT_FALSE(fs::exists(dir / "m" / "checkpoints" / ".step-2.partial"));
  EXPECT_FALSE(fs::exists(dir / "m" / ".final.partial"));
  // Resuming a checkpoint whose tokenizer is not its model's (4096 tokens
  // for an embedding of about 300) is refused in words, as is a second
  // tokenizer beside --resume.
  const fs::path step2 = dir / "m" / "checkpoints" / "step-2";
  fs::copy_file(SINKSCOPE_SOURCE_DIR "/resources/models/rope-decoder/tokenizer.json",
                step2 / "tokenizer.json", fs::copy_options::overwrite_existing);
  const std::string resume = "'" SINKSCOPE_CLI "' train --corpus '" + corpus + "' --out '" +
                             (dir / "r").string() + "' --resume '" + step2.string() +
                             "' --steps 6 --layers 1 --heads 2 --hidden 32 --intermediate 64 "
                             "--context 16 --batch-tokens 64";
  const CliRun other = shell(resume + " 2>&1");
  EXPECT_EQ(other.exit, 2) << other.out;
  EXPECT_NE(other.out.find("step-2/tokenizer.json: 4096 tokens, but the model's embedding has"),
            std::string::npos)
      << other.out;
  const CliRun both =
      shell(resume + " --tokenizer '" + (step2 / "tokenizer.json").string() + "' 2>&1");
  EXPECT_EQ(both.exit, 2) << both.out;
  EXPECT_NE(both.out.find("give --tokenizer or --resume, not both"), std::string::npos) << both.out;
  fs::remove_all(dir);
}

TEST(Cli, AnalyzeWritesEveryFamily) {
  const fs::path dir =
      fs::temp_directory_path() / ("sinkscope-cli-analyze-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ASSERT_EQ(cli("random-model llama '" + (dir / "model").string() + "'").exit, 0);
  const CliRun run = cli("analyze '" + (dir / "model").string() +
                         "' --text 'the cat sat on the mat' --out '" + (dir / "out").string() +
                         "' --json '" + (dir / "all.json").string() + "' --thresholds 0.05,0.2");
  ASSERT_EQ(run.exit, 0) << run.out;
  for (const char* f :
       {"sinks.csv", "sink_summary.csv", "diagnostics.csv", "persistence.csv", "betti.csv",
        "spectra.csv", "eigenvalues.csv", "taxonomy.csv", "weights.csv", "value_space.csv"}) {
    const std::string text = read_text(dir / "out" / f);
    EXPECT_NE(text.find("# text: the cat sat on the mat\n"), std::string::npos) << f;
    EXPECT_NE(text.find("# thresholds: 0.05 0.2\n"), std::string::npos) << f;
    // The readings are stated where the numbers are.
    EXPECT_NE(text.find("(the networkx convention)"), std::string::npos) << f;
    EXPECT_NE(text.find("empty when a series is constant"), std::string::npos) << f;
    EXPECT_NE(text.find("every key in an encoder"), std::string::npos) << f;
  }
  auto rows = [&](const char* f) {
    std::istringstream in(read_text(dir / "out" / f));
    int n = -1;  // the column header
    for (std::string l; std::getline(in, l);)
      if (!l.empty() && l[0] != '#') ++n;
    return n;
  };
  // 2 layers x (4 heads + the average).
  EXPECT_EQ(rows("sink_summary.csv"), 10);
  EXPECT_EQ(rows("taxonomy.csv"), 8) << "the average has no values of its own";
  EXPECT_EQ(rows("value_space.csv"), 8);
  EXPECT_EQ(rows("spectra.csv"), 20) << "two thresholds";
  EXPECT_EQ(rows("weights.csv"), 14) << "q, k, v, o, gate, up, down per layer";
  EXPECT_NE(read_text(dir / "all.json").find("\"params\""), std::string::npos);
  EXPECT_EQ(cli("analyze '" + (dir / "model").string() + "' --text x --out '" +
                (dir / "out").string() + "'")
                .exit,
            1)
      << "existing files are not replaced without --force";
  EXPECT_EQ(cli("analyze '" + (dir / "model").string() + "' --text x --out '" +
                (dir / "out").string() + "' --gamma 2")
                .exit,
            2);
  fs::remove_all(dir);
}

TEST(Cli, AnalyzePoolsOverSentences) {
  const fs::path dir =
      fs::temp_directory_path() / ("sinkscope-cli-corpus-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ASSERT_EQ(cli("random-model bert '" + (dir / "model").string() + "'").exit, 0);
  std::ofstream(dir / "s.txt")
      << "the cat sat on the mat\nattention sinks in the model\nshe was tired because of it\n";
  const CliRun run =
      cli("analyze '" + (dir / "model").string() + "' --sentences '" + (dir / "s.txt").string() +
          "' --out '" + (dir / "out").string() + "' --specialised-share 0.6");
  ASSERT_EQ(run.exit, 0) << run.out;
  const std::string frame = read_text(dir / "out/frame.csv");
  EXPECT_NE(frame.find("# sentences: 3\n"), std::string::npos);
  EXPECT_NE(frame.find("\nframe,specialised_heads,first_token,"), std::string::npos);
  const bool labelled = frame.find("\ncentralised,") != std::string::npos ||
                        frame.find("\nbidirectional,") != std::string::npos ||
                        frame.find("\ndistributed,") != std::string::npos;
  EXPECT_TRUE(labelled) << frame;
  EXPECT_NE(read_text(dir / "out/taxonomy_pooled.csv").find("\n1,3,"), std::string::npos)
      << "layer 1, head 3 pooled";
  EXPECT_NE(read_text(dir / "out/sink_rate.csv").find("\n0,"), std::string::npos);
  EXPECT_EQ(cli("analyze '" + (dir / "model").string() + "' --out x").exit, 2)
      << "needs --text or --sentences";
  fs::remove_all(dir);
}

// With the sink frequency over all T queries and ties to the
// earliest position, the default model (its heads sink on <s>) is a
// centralised frame on three held-out sentences (it came out distributed when
// the last key could be a sink by its one observer and "." beat "<s>").
TEST(Cli, TheDefaultModelPoolsIntoACentralisedFrame) {
  const fs::path dir =
      fs::temp_directory_path() / ("sinkscope-cli-frame-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "s.txt")
      << "Precursor of the modern motion picture.\n"
         "The sixth of the seven canonical hours of the divine office.\n"
         "Either of a pair of ear coverings (usually connected by a headband) that are worn to "
         "keep the ears warm in cold weather.\n";
  const std::string model =
      std::string(SINKSCOPE_SOURCE_DIR) + "/resources/models/rope-decoder-bos-first";
  const CliRun run = cli("analyze '" + model + "' --sentences '" + (dir / "s.txt").string() +
                         "' --out '" + (dir / "out").string() + "'");
  ASSERT_EQ(run.exit, 0) << run.out;
  const std::string frame = read_text(dir / "out/frame.csv");
  EXPECT_NE(frame.find("\ncentralised,"), std::string::npos) << frame;
  EXPECT_NE(frame.find("frequency over all T queries"), std::string::npos) << frame;
  EXPECT_NE(read_text(dir / "out/token_specialisation.csv").find("\n<s>,1,"), std::string::npos);
  // The old denominator is a labelled option.
  const CliRun visible =
      cli("analyze '" + model + "' --sentences '" + (dir / "s.txt").string() + "' --out '" +
          (dir / "visible").string() + "' --sink-denominator visible");
  ASSERT_EQ(visible.exit, 0) << visible.out;
  EXPECT_NE(read_text(dir / "visible/frame.csv").find("(--sink-denominator visible)"),
            std::string::npos);
  EXPECT_EQ(cli("analyze '" + model + "' --text hi --out x --sink-denominator some").exit, 2);
  fs::remove_all(dir);
}

// One run's tensors as NPZ, read by Debian's numpy, equal
// to the attention CSV of the same run (every layer and head in one call).
TEST(Cli, TensorsAreAnNpzNumpyReadsAndTheyEqualTheCsv) {
  const fs::path dir = folder_with_model("npz", "qwen2");
  const std::string model = "'" + (dir / "model").string() + "'";
  const std::string text = " --text 'the cat sat on the mat, again'";
  const CliRun npz =
      cli("tensors " + model + text + " --logits --out '" + (dir / "run.npz").string() + "'");
  ASSERT_EQ(npz.exit, 0) << npz.out;
  EXPECT_EQ(cli("tensors " + model + text + " --out '" + (dir / "run.npz").string() + "'").exit, 1)
      << "never replaced without --force";
  const CliRun csv = cli("attention " + model + text + " --layer all --head all --csv '" +
                         (dir / "all.csv").string() + "'");
  ASSERT_EQ(csv.exit, 0) << csv.out;
  const CliRun check = python_check(dir, R"(
import csv, json, sys
import numpy as np
d = np.load(sys.argv[1])
a, q, k, v, r = d["attention"], d["queries"], d["keys"], d["values"], d["residual"]
p = json.loads(str(d["params"]))
L, H, T = p["layers"], p["heads"], p["tokens"]
assert a.shape == (L, H, T, T) and a.dtype == np.float32, a.shape
assert q.shape == k.shape == v.shape == (L, H, T, p["head_dim"]), q.shape
assert r.shape == (L + 1, T, p["hidden_size"]), r.shape
assert d["ids"].shape == (T,) and d["ids"].dtype == np.int32
assert d["logits"].shape[0] == T
assert np.allclose(a.sum(-1), 1.0, atol=1e-5)
rows = [row for row in csv.reader(l for l in open(sys.argv[2]) if not l.startswith("#"))]
header, rows = rows[0], rows[1:]
assert len(rows) == L * H * T * (T + 1) // 2, len(rows)
tokens = list(d["tokens"])
b, o = d["tokens_utf8"], d["tokens_offsets"]
assert b.dtype == np.uint8 and o.dtype == np.int64 and o.shape == (T + 1,), (b.dtype, o.shape)
assert [bytes(b[o[i]:o[i + 1]]).decode("utf-8") for i in range(T)] == tokens
for layer, head, query, key, qt, kt, w in rows:
    assert abs(a[int(layer), int(head), int(query), int(key)] - float(w)) <= 1e-7, (layer, head)
    assert tokens[int(query)] == qt and tokens[int(key)] == kt
print("OK", L, H, T)
)",
                                    {dir / "run.npz", dir / "all.csv"});
  EXPECT_EQ(check.exit, 0) << check.out;
  EXPECT_EQ(check.out.rfind("OK ", 0), 0u) << check.out;
  fs::remove_all(dir);
}

// --json holds every table of the CSVs, typed (numbers as
// numbers, empty fields as null), with typed parameters and a schema version;
// for --text and for --sentences.
TEST(Cli, JsonHoldsTheCsvsTyped) {
  const fs::path dir = folder_with_model("json", "llama");
  const std::string model = "'" + (dir / "model").string() + "'";
  ASSERT_EQ(
      cli("analyze " + model + " --text 'the cat sat on the mat' --out '" + (dir / "one").string() +
          "' --json '" + (dir / "one.json").string() + "' --thresholds 0.05,0.9")
          .exit,
      0);
  std::ofstream(dir / "s.txt") << "the cat sat\nthe mat was flat\n";
  ASSERT_EQ(cli("analyze " + model + " --sentences '" + (dir / "s.txt").string() + "' --out '" +
                (dir / "pool").string() + "' --json '" + (dir / "pool.json").string() + "'")
                .exit,
            0);
  const CliRun check =
      python_check(dir, R"(
import csv, json, math, os, sys
for folder, doc in ((sys.argv[1], sys.argv[2]), (sys.argv[3], sys.argv[4])):
    j = json.load(open(doc))
    assert j["schema_version"] == 1
    assert isinstance(j["params"]["percentile"], (int, float)) and j["params"]["thresholds"]
    assert j["params"]["sink_denominator"] == "all"
    names = sorted(f[:-4] for f in os.listdir(folder) if f.endswith(".csv"))
    assert sorted(j["tables"]) == names, (sorted(j["tables"]), names)
    for name in names:
        lines = [l for l in open(os.path.join(folder, name + ".csv")) if not l.startswith("#")]
        rows = list(csv.reader(lines))
        t = j["tables"][name]
        assert t["columns"] == rows[0], name
        assert len(t["rows"]) == len(rows) - 1, name
        for jr, cr in zip(t["rows"], rows[1:]):
            for col, a, b in zip(rows[0], jr, cr):
                if b == "":
                    assert a is None or a == "", (name, col)  # text columns keep ""
                elif b in ("inf", "-inf", "nan"):
                    assert a is None, (name, col, a, b)  # JSON has no non-finite number
                elif isinstance(a, str):
                    assert a == b, (name, col, a, b)
                else:
                    assert isinstance(a, (int, float)) and float(b) == a, (name, col, a, b)
    assert "sink_set" in j["header"]
print("OK")
)",
                   {dir / "one", dir / "one.json", dir / "pool", dir / "pool.json"});
  EXPECT_EQ(check.exit, 0) << check.out;
  EXPECT_EQ(check.out, "OK\n");
  fs::remove_all(dir);
}

// Every header names the model by its config and tokenizer
// hashes (checked against sha256sum) and weight files, the full command, and
// pooled outputs their sentences file by name, hash and count.
TEST(Cli, HeadersNameTheModelAndInputsByHash) {
  const fs::path dir = folder_with_model("hash", "gpt2");
  auto sha = [](const fs::path& f) {
    CliRun r;
    FILE* pipe = popen(("sha256sum '" + f.string() + "'").c_str(), "r");
    std::array<char, 256> buf{};
    const size_t n = fread(buf.data(), 1, buf.size(), pipe);
    pclose(pipe);
    return std::string(buf.data(), std::min<size_t>(n, 64));
  };
  const std::string config = sha(dir / "model/config.json");
  const std::string tokenizer = sha(dir / "model/tokenizer.json");
  ASSERT_EQ(config.size(), 64u);
  const std::string model = "'" + (dir / "model").string() + "'";
  ASSERT_EQ(cli("analyze " + model + " --text 'a b c' --out '" + (dir / "one").string() + "'").exit,
            0);
  std::ofstream(dir / "s.txt") << "the cat sat\nthe mat\n";
  ASSERT_EQ(cli("analyze " + model + " --sentences '" + (dir / "s.txt").string() + "' --out '" +
                (dir / "pool").string() + "'")
                .exit,
            0);
  ASSERT_EQ(cli("attention " + model + " --text 'a b' --layer 0 --head 0 --csv '" +
                (dir / "a.csv").string() + "'")
                .exit,
            0);
  for (const fs::path& f : {dir / "one/sinks.csv", dir / "pool/frame.csv", dir / "a.csv"}) {
    const std::string text = read_text(f);
    EXPECT_NE(text.find("# model_config_sha256: " + config + "\n"), std::string::npos) << f;
    EXPECT_NE(text.find("# tokenizer_sha256: " + tokenizer + "\n"), std::string::npos) << f;
    EXPECT_NE(text.find("# weight_files: model.safetensors "), std::string::npos) << f;
    EXPECT_NE(text.find("# command: sinkscope-cli "), std::string::npos) << f;
  }
  EXPECT_NE(read_text(dir / "one/sinks.csv")
                .find("# command: sinkscope-cli analyze " + (dir / "model").string() +
                      " --text 'a b c' --out "),
            std::string::npos);
  const std::string pooled = read_text(dir / "pool/frame.csv");
  EXPECT_NE(pooled.find("# sentences_sha256: " + sha(dir / "s.txt") + "\n"), std::string::npos);
  EXPECT_NE(pooled.find("# sentences: 2\n"), std::string::npos);
  fs::remove_all(dir);
}

TEST(Cli, ExperimentsWriteTheirTablesAndRefuseBadRequests) {
  const fs::path dir =
      fs::temp_directory_path() / ("sinkscope-cli-experiment-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string llama = (dir / "llama").string(), gpt2 = (dir / "gpt2").string();
  ASSERT_EQ(cli("random-model llama '" + llama + "'").exit, 0);
  ASSERT_EQ(cli("random-model gpt2 '" + gpt2 + "'").exit, 0);
  const std::string text =
      " --text 'the cat sat on the mat' --out '" + (dir / "out").string() + "'";
  const std::map<std::string, std::string> files{{"kl", "kl.csv"},
                                                 {"bos", "bos_nll.csv"},
                                                 {"fisher", "fisher.csv"},
                                                 {"perturb", "perturb.csv"},
                                                 {"rank", "effective_rank.csv"},
                                                 {"ablate", "ablation_correlation.csv"},
                                                 {"sparsify", "sparsification.csv"}};
  for (const auto& [kind, file] : files) {
    const CliRun run = cli("experiment " + kind + " '" + llama + "'" + text + " --force");
    ASSERT_EQ(run.exit, 0) << kind << ": " << run.out;
    const std::string csv = read_text(dir / "out" / file);
    EXPECT_NE(csv.find("# text: the cat sat on the mat\n"), std::string::npos) << kind;
    EXPECT_NE(csv.find("# tool: sinkscope-cli experiment " + kind), std::string::npos) << kind;
    if (kind == "kl") {
      EXPECT_NE(csv.find("a row with no other visible key, such as query 0 of a causal model when "
                         "key 0 is a sink, is left unchanged"),
                std::string::npos)
          << csv;
    }
  }
  EXPECT_NE(read_text(dir / "out/sparsification.csv").find("\nrandom,1,0,0\n"), std::string::npos);
  // BOS removal reports the mean NLL change beside its per-token table.
  {
    std::istringstream nll(read_text(dir / "out/bos_nll.csv"));
    double sum = 0;
    int count = 0;
    for (std::string line; std::getline(nll, line);) {
      if (line.empty() || line[0] == '#' || line.rfind("position,", 0) == 0) continue;
      sum += std::stod(line.substr(line.rfind(',') + 1));
      ++count;
    }
    const std::string summary = read_text(dir / "out/bos_summary.csv");
    const auto row = summary.find("\n" + std::to_string(count) + ",");
    ASSERT_NE(row, std::string::npos) << summary;
    const std::string line = summary.substr(row + 1, summary.find('\n', row + 1) - row - 1);
    EXPECT_NEAR(std::stod(line.substr(line.rfind(',') + 1)), sum / count, 1e-9) << summary;
  }
  // Both attention maps, streamed into their file: every visible pair of every head.
  {
    std::istringstream attention(read_text(dir / "out/bos_attention.csv"));
    std::map<std::string, int> rows;
    std::string line;
    while (std::getline(attention, line) && line[0] == '#') {
    }
    EXPECT_EQ(line, "run,layer,head,query,key,weight");
    while (std::getline(attention, line)) ++rows[line.substr(0, line.find(','))];
    // random-model llama: 2 layers, 4 heads; "the cat sat on the mat" has 7 tokens with <s>.
    EXPECT_EQ(rows["with_first"], 2 * 4 * 7 * 8 / 2);
    EXPECT_EQ(rows["without_first"], 2 * 4 * 6 * 7 / 2);
    EXPECT_EQ(rows.size(), 2u);
  }
  const CliRun noBos = cli("experiment bos '" + gpt2 + "'" + text + " --force");
  EXPECT_EQ(noBos.exit, 2);
  EXPECT_NE(noBos.out.find("does not start with a special token"), std::string::npos) << noBos.out;
  EXPECT_EQ(cli("experiment perturb '" + llama + "'" + text + " --force --position 99").exit, 2);
  EXPECT_EQ(cli("experiment sparsify '" + llama + "'" + text + " --force --pin 9:9").exit, 2);
  EXPECT_EQ(cli("experiment nonsense '" + llama + "'" + text).exit, 2);
  fs::remove_all(dir);
}

TEST(Cli, AnalyzeRunsOnAnInterventionWhenAsked) {
  const fs::path dir =
      fs::temp_directory_path() / ("sinkscope-cli-intervene-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string model = (dir / "model").string();
  ASSERT_EQ(cli("random-model llama '" + model + "'").exit, 0);
  const std::string text = " --text 'the cat sat on the mat' --out '";
  ASSERT_EQ(cli("analyze '" + model + "'" + text + (dir / "plain").string() + "'").exit, 0);
  const CliRun run = cli("analyze '" + model + "'" + text + (dir / "ablated").string() +
                         "' --ablate 1:0,1:1 --remove-sinks");
  ASSERT_EQ(run.exit, 0) << run.out;
  const std::string ablated = read_text(dir / "ablated/sink_summary.csv");
  EXPECT_NE(ablated.find("# intervention: head 1:0 ablated\n"), std::string::npos) << ablated;
  EXPECT_NE(ablated.find("# intervention: sinks removal"), std::string::npos);
  EXPECT_EQ(read_text(dir / "plain/sink_summary.csv").find("# intervention"), std::string::npos);
  // Sinks removed after softmax: layer 1's maps differ from the plain run's.
  EXPECT_NE(read_text(dir / "plain/persistence.csv")
                .substr(read_text(dir / "plain/persistence.csv").find("\nlayer")),
            read_text(dir / "ablated/persistence.csv")
                .substr(read_text(dir / "ablated/persistence.csv").find("\nlayer")));
  EXPECT_NE(read_text(dir / "plain/eigenvalues.csv").find(",normalised,"), std::string::npos);
  EXPECT_EQ(cli("analyze '" + model + "'" + text + (dir / "x").string() + "' --ablate 7:0").exit,
            2);
  fs::remove_all(dir);
}

// Both programs' command lines are declared with the same rules
// (app/command_line.h): each mistake is answered by the option's name, with
// the program (and command) before it; every command takes --threads.
TEST(GuiCommandLine, DeclaredOptionsAnswerBadCommandLinesByName) {
  const std::string gui = "env QT_QPA_PLATFORM=offscreen '" + std::string(SINKSCOPE_GUI) + "' ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {gui + "--layer x", "sinkscope: --layer: \"x\" is not a whole number from 0 to 1048576\n"},
      {gui + "--compare-head first",
       "sinkscope: --compare-head: \"first\" is not a whole number from 0 to 1048576, or avg\n"},
      {gui + "--threads 0", "sinkscope: --threads: \"0\" is not a whole number from 1 to 1024\n"},
      {gui + "--precision double", "sinkscope: --precision: double not in {float32,stored}\n"},
      {gui + "--frobnicate", "sinkscope: not an option or argument here: --frobnicate\n"},
      {gui + "a.sinkscope b.sinkscope", "sinkscope: not an option or argument here: b.sinkscope\n"},
      {gui + "--capture c.npz --model m", "sinkscope: --model excludes --capture\n"},
      {gui + "--capture c.npz --compare-sentence 'A dog.'",
       "sinkscope: --capture excludes --compare-sentence\n"},
      {gui + "--compare-sentence ' '",
       "sinkscope: --compare-sentence: nothing to compare with (the sentence is blank)\n"},
      {gui + "figure --panel graph --out x.pdf --width-mm 50",
       "sinkscope figure: --width-mm requires --height-mm\n"},
      {gui + "figure --panel graph --out x.pdf --comparison maybe",
       "sinkscope figure: --comparison: maybe not in {a,b,difference,side-by-side}\n"},
      {gui + "figure --out x.pdf",
       "sinkscope figure: --panel: give at least one panel or view (or --out FILE.html for the "
       "run as a web page)\n"},
      {gui + "figure-set --out d",
       "sinkscope figure-set: give --sentences FILE (or --study DIR) and --out DIR\n"},
      {gui + "figure-set --out d --sentences s --png 5",
       "sinkscope figure-set: --png: \"5\" is not a whole number from 10 to 2400\n"},
      {"'" + std::string(SINKSCOPE_CLI) + "' figure --panel graph --out x.pdf --threads 2000",
       "sinkscope figure: --threads: \"2000\" is not a whole number from 1 to 1024\n"},
      {"'" + std::string(SINKSCOPE_CLI) + "' analyze --threads 0",
       "sinkscope-cli: analyze: --threads: \"0\" is not a whole number from 1 to 1024\n"},
      {"'" + std::string(SINKSCOPE_CLI) + "' --threads 2 info",
       "sinkscope-cli: --threads goes after the command's name: sinkscope-cli COMMAND --threads N "
       "...\n"},
  };
  for (const auto& [command, message] : cases) {
    const CliRun r =
        shell("{ " + command + " 2>&1; echo \"[exit $?]\"; } | grep -v '^QStandardPaths'");
    EXPECT_EQ(r.out, message + "[exit 2]\n") << command;
  }
  // The thread count is the one option every command declares: it applies.
  const CliRun info = shell("'" + std::string(SINKSCOPE_CLI) + "' info --threads 2");
  EXPECT_NE(info.out.find("(2 threads)"), std::string::npos) << info.out;
}

// The documented maximum holds on a 2-core machine: a forward pass and the
// per-head analysis with 1,024 threads finish (libtorch's pool once waited
// for ever in pthreadpool_create past 32).
TEST(CommandLine, TheLargestThreadCountFinishes) {
  const fs::path dir =
      fs::temp_directory_path() / ("sinkscope-threads-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const CliRun r = shell(
      "timeout 120 '" + std::string(SINKSCOPE_CLI) + "' analyze --threads 1024 '" +
      SINKSCOPE_SOURCE_DIR "/resources/models/rope-decoder-bos-first' --text 'A cat sat.' --out '" +
      dir.string() + "' 2>&1");
  EXPECT_EQ(r.exit, 0) << r.out;
  EXPECT_TRUE(fs::exists(dir / "sinks.csv"));
  fs::remove_all(dir);
}

TEST(GuiCommandLine, HelpAndVersionNeedNoDisplay) {
  // `sinkscope --help` used to abort where there is no X server.
  const std::string noDisplay =
      "env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM '" + std::string(SINKSCOPE_GUI) + "' ";
  const CliRun help = shell(noDisplay + "--help 2>&1");
  EXPECT_EQ(help.exit, 0) << help.out;
  EXPECT_NE(help.out.find("--model DIR"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--threads N"), std::string::npos) << help.out;
  const CliRun version = shell(noDisplay + "--version 2>&1");
  EXPECT_EQ(version.exit, 0) << version.out;
  EXPECT_NE(version.out.find("sinkscope"), std::string::npos) << version.out;
}

// --screenshot keeps the output rules: it replaces a regular file, never
// writes through a link (the link's target stays as it was) or into a FIFO.
TEST(GuiCommandLine, AScreenshotNeverWritesThroughALink) {
  const fs::path dir = fs::temp_directory_path() / ("sinkscope-shot-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "target.png") << "the user's file";
  fs::create_symlink(dir / "target.png", dir / "link.png");
  const std::string gui = "'" + std::string(SINKSCOPE_GUI) + "' --model '" + SINKSCOPE_SOURCE_DIR +
                          "/resources/models/rope-decoder-bos-first' --text 'A cat.'";
  const CliRun linked = shell(gui + " --screenshot '" + (dir / "link.png").string() + "' 2>&1");
  EXPECT_EQ(linked.exit, 1) << linked.out;
  EXPECT_NE(linked.out.find("is not a regular file"), std::string::npos) << linked.out;
  std::ifstream in(dir / "target.png");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "the user's file");
  EXPECT_TRUE(fs::is_symlink(dir / "link.png"));
  const CliRun plain = shell(gui + " --screenshot '" + (dir / "shot.png").string() + "' 2>&1");
  EXPECT_EQ(plain.exit, 0) << plain.out;
  EXPECT_GT(fs::file_size(dir / "shot.png"), 1000u);
  fs::remove_all(dir);
}

// A refused session is said by --screenshot at once (it used to wait 60 s
// and say only that the window did not finish).
TEST(GuiCommandLine, AScreenshotSaysWhyASessionWasRefused) {
  const fs::path dir =
      fs::temp_directory_path() / ("sinkscope-shot-refused-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "bad.sinkscope")
      << R"({"format": "sinkscope-session", "version": 1, "text": 5})";
  const CliRun run =
      shell("'" + std::string(SINKSCOPE_GUI) + "' --screenshot '" + (dir / "shot.png").string() +
            "' '" + (dir / "bad.sinkscope").string() + "' 2>&1");
  EXPECT_NE(run.out.find("bad.sinkscope"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("did not finish"), std::string::npos) << run.out;
  fs::remove_all(dir);
}

// A capture (here `tensors`' NPZ, as Python's save_capture writes it) opens
// from the command line, as File > Open capture opens it; a bad one is named.
TEST(GuiCommandLine, ACaptureOpensFromTheCommandLine) {
  const fs::path dir =
      fs::temp_directory_path() / ("sinkscope-shot-capture-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const CliRun made =
      shell("'" + std::string(SINKSCOPE_CLI) + "' tensors '" + SINKSCOPE_SOURCE_DIR +
            "/resources/models/rope-decoder-bos-first' --text 'A cat sat.' --out '" +
            (dir / "run.npz").string() + "' 2>&1");
  ASSERT_EQ(made.exit, 0) << made.out;
  const std::string gui = "'" + std::string(SINKSCOPE_GUI) + "' --capture ";
  const CliRun opened = shell(gui + "'" + (dir / "run.npz").string() + "' --screenshot '" +
                              (dir / "shot.png").string() + "' 2>&1");
  EXPECT_EQ(opened.exit, 0) << opened.out;
  EXPECT_EQ(opened.out.find("sinkscope: "), std::string::npos) << opened.out;
  EXPECT_GT(fs::file_size(dir / "shot.png"), 1000u);
  std::ofstream(dir / "bad.npz") << "not a zip";
  const CliRun refused = shell(gui + "'" + (dir / "bad.npz").string() + "' --screenshot '" +
                               (dir / "bad.png").string() + "' 2>&1");
  EXPECT_NE(refused.out.find("bad.npz: not a readable .npz"), std::string::npos) << refused.out;
  fs::remove_all(dir);
}
