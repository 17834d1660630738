// analyze --capture as a user runs it: a capture of a run (written by
// `tensors`, or by numpy the way a Hugging Face user writes one) gives
// analyze --text's tables cell for cell; what needs the model is refused,
// and a bad capture is refused with its file and problem.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/shell_run.h"

namespace fs = std::filesystem;

namespace {

const std::string kModel = "'" SINKSCOPE_SOURCE_DIR "/resources/models/rope-decoder-bos-first'";
const std::string kText = "'A cat sat on the mat.'";

fs::path fresh_dir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("sinkscope-capture-cli-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A CSV without its "# ..." header lines (they name the source).
std::string body(const fs::path& file) {
  std::istringstream in(read_text(file));
  std::string out;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("#", 0) != 0) out += line + "\n";
  return out;
}

}  // namespace

TEST(CaptureCli, ACaptureOfARunGivesItsTablesCellForCell) {
  const fs::path dir = fresh_dir("same");
  const std::string npz = (dir / "run.npz").string();
  ASSERT_EQ(cli("tensors " + kModel + " --text " + kText + " --out '" + npz + "'").exit, 0);
  ASSERT_EQ(cli("analyze " + kModel + " --text " + kText + " --no-weight-spectra --out '" +
                (dir / "run").string() + "'").exit, 0);
  const CliRun r = cli("analyze --capture '" + npz + "' --out '" + (dir / "capture").string() + "'");
  ASSERT_EQ(r.exit, 0) << r.out;
  int tables = 0;
  for (const auto& entry : fs::directory_iterator(dir / "run")) {
    SCOPED_TRACE(entry.path().filename().string());
    const fs::path other = dir / "capture" / entry.path().filename();
    ASSERT_TRUE(fs::exists(other));
    EXPECT_EQ(body(entry.path()), body(other));
    ++tables;
  }
  EXPECT_EQ(tables, 14);
  const std::string header = read_text(dir / "capture" / "sinks.csv");
  EXPECT_NE(header.find("# capture: " + npz), std::string::npos);
  EXPECT_NE(header.find("# model: rope-decoder-bos-first"), std::string::npos) << header;
  EXPECT_FALSE(fs::exists(dir / "capture" / "weights.csv")) << "weights need the model";
}

TEST(CaptureCli, WithoutValuesTheValueTablesAreEmptyAndSaySo) {
  const fs::path dir = fresh_dir("novalues");
  std::ofstream(dir / "make.py") << R"(import sys, numpy as np
T = 4
a = np.tril(np.ones((T, T))); a /= a.sum(-1, keepdims=True)
np.savez(sys.argv[1], attention=np.broadcast_to(a, (2, 2, T, T)).astype(np.float32))
)";
  ASSERT_EQ(shell("/usr/bin/python3 '" + (dir / "make.py").string() + "' '" +
                  (dir / "uniform.npz").string() + "' 2>&1").exit, 0);
  const CliRun r = cli("analyze --capture '" + (dir / "uniform.npz").string() + "' --out '" +
                       (dir / "out").string() + "'");
  ASSERT_EQ(r.exit, 0) << r.out;
  EXPECT_EQ(body(dir / "out" / "taxonomy.csv"), "layer,head,sink_votes,current_votes,other_votes,label\n");
  const std::string summary = read_text(dir / "out" / "layer_summary.csv");
  EXPECT_NE(summary.find("# values: not given"), std::string::npos) << summary;
  // Uniform causal rows: alpha_0 is the uniform baseline, boost 1.
  EXPECT_NE(body(dir / "out" / "layer_summary.csv").find("\nmodel,4,"), std::string::npos);
}

TEST(CaptureCli, WhatNeedsTheModelOrABadFileIsRefused) {
  const fs::path dir = fresh_dir("refused");
  const std::string npz = (dir / "run.npz").string();
  ASSERT_EQ(cli("tensors " + kModel + " --text " + kText + " --out '" + npz + "'").exit, 0);
  const std::string out = " --out '" + (dir / "out").string() + "'";
  auto expect = [](const CliRun& run, const std::string& words) {
    EXPECT_EQ(run.exit, 2) << run.out;
    EXPECT_NE(run.out.find(words), std::string::npos) << run.out;
  };
  expect(cli("analyze " + kModel + " --capture '" + npz + "'" + out), "give no MODEL");
  expect(cli("analyze --capture '" + npz + "' --drop-first" + out), "a capture holds its attention only");
  expect(cli("analyze --capture '" + npz + "' --text x" + out), "--text");
  expect(cli("analyze --capture '" + (dir / "nothing.npz").string() + "'" + out), "nothing.npz: no such file");
  std::ofstream(dir / "text.npz") << "not a zip";
  expect(cli("analyze --capture '" + (dir / "text.npz").string() + "'" + out), "not a readable .npz");
  expect(cli("analyze --text x" + out), "give MODEL");
  EXPECT_FALSE(fs::exists(dir / "out")) << "nothing written";
  fs::remove_all(dir);
}

// Exact persistence of a dense random map of 450 tokens would run for minutes
// and gigabytes; analyze stops its reduction at the bound (the same on every
// machine), writes every other family, leaves that map's persistence counts
// empty and says which map and why, in the tables' header and on stderr.
TEST(CaptureCli, APersistenceTooTangledIsLeftOutNamingItsHead) {
  const fs::path dir = fresh_dir("tangled");
  std::ofstream(dir / "make.py") << R"(import sys, numpy as np
a = np.random.default_rng(3).random((1, 1, 450, 450)); a /= a.sum(-1, keepdims=True)
np.savez(sys.argv[1], attention=a.astype(np.float32))
)";
  const std::string npz = (dir / "random.npz").string();
  ASSERT_EQ(shell("/usr/bin/python3 '" + (dir / "make.py").string() + "' '" + npz + "' 2>&1").exit,
            0);
  const fs::path out = dir / "out";
  const CliRun r = cli("analyze --threads 1 --capture '" + npz + "' --out '" + out.string() + "'");
  ASSERT_EQ(r.exit, 0) << r.out;
  EXPECT_NE(r.out.find("persistence left out for 2 maps (layer 0 head average, layer 0 head 0)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("persistence of a map of 450 tokens"), std::string::npos) << r.out;
  const std::string summary = read_text(out / "persistence_summary.csv");
  EXPECT_NE(summary.find("\n0,average,,,,\n0,0,,,,\n"), std::string::npos) << summary;
  const std::string layers = read_text(out / "layer_summary.csv");
  EXPECT_NE(layers.find("# persistence_left_out: for 2 maps"), std::string::npos);
  // The other families are all there: the sink metric of every key, the spectra.
  EXPECT_NE(read_text(out / "sinks.csv").find("\n0,0,449,"), std::string::npos);
  EXPECT_NE(read_text(out / "spectra.csv").find("\n0,0,0.2,"), std::string::npos);
  EXPECT_EQ(read_text(out / "betti.csv").find("\n0,0,"), std::string::npos) << "no Betti rows";
}
