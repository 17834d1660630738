// sinkscope-cli as a user runs it: exit codes, messages, CSV output.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace {
struct CliRun {
  int exit = -1;
  std::string out;
};

// Runs the CLI with `args` (shell-quoted by the caller); stderr is merged into out.
CliRun cli(const std::string& args) {
  const std::string command = std::string("'") + SINKSCOPE_CLI + "' " + args + " 2>&1";
  CliRun r;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(pipe);
  r.exit = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST(Cli, HelpAndVersion) {
  EXPECT_EQ(cli("--help").exit, 0);
  EXPECT_NE(cli("--help").out.find("usage: sinkscope-cli"), std::string::npos);
  EXPECT_EQ(cli("baseline --help").exit, 0);
  EXPECT_EQ(cli("info --help").exit, 0);
  EXPECT_NE(cli("--version").out.find("sinkscope-cli 0."), std::string::npos);
}

TEST(Cli, BadUsageExitsWithTwoAndOneLine) {
  for (const char* args : {"", "frobnicate", "baseline", "baseline --length 0",
                           "baseline --length ten", "baseline --colour red"}) {
    const CliRun r = cli(args);
    EXPECT_EQ(r.exit, 2) << args << ": " << r.out;
  }
  const CliRun r = cli("baseline --length abc");
  EXPECT_EQ(r.out, "sinkscope-cli: option --length: \"abc\" is not an integer in 1..1000000\n");
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
  EXPECT_NE(read(out).find("\n2,0.333333333333333"), std::string::npos);
  const CliRun again = cli("baseline --length 4 --out '" + out.string() + "'");
  EXPECT_EQ(again.exit, 1);
  EXPECT_NE(again.out.find("already exists"), std::string::npos);
  EXPECT_EQ(cli("baseline --length 4 --force --out '" + out.string() + "'").exit, 0);
  EXPECT_NE(read(out).find("# length: 4"), std::string::npos);
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
