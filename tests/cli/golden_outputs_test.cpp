// The outputs of analyze, study and figure-set, byte for byte, against the
// files tests/golden/make_golden_outputs.sh wrote before the code beneath them
// was rebuilt (the script's header says how to make them again).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>

#include "support/shell_run.h"

namespace fs = std::filesystem;

namespace {

const fs::path kSource = SINKSCOPE_SOURCE_DIR;
const fs::path kGolden = kSource / "tests/golden/outputs";

std::set<fs::path> files_under(const fs::path& root) {
  std::set<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) files.insert(fs::relative(e.path(), root));
  return files;
}

// Where two texts first part, as "line N: expected ... / got ...".
std::string first_difference(const std::string& expected, const std::string& got) {
  std::istringstream a(expected), b(got);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool moreA = static_cast<bool>(std::getline(a, la));
    const bool moreB = static_cast<bool>(std::getline(b, lb));
    if (!moreA && !moreB) return "they differ in line endings";
    if (!moreA || !moreB || la != lb)
      return "line " + std::to_string(line) + ":\n  expected: " + (moreA ? la : "(end)") +
             "\n  got:      " + (moreB ? lb : "(end)");
  }
}

}  // namespace

TEST(GoldenOutputs, EveryFileIsByteIdentical) {
  const fs::path out = fs::temp_directory_path() / ("sinkscope-golden-" + std::to_string(::getpid()));
  fs::remove_all(out);
  const CliRun made = shell("'" + (kSource / "tests/golden/make_golden_outputs.sh").string() + "' '" +
                            kSource.string() + "' '" + SINKSCOPE_CLI + "' '" + SINKSCOPE_GUI +
                            "' '" + out.string() + "' 2>&1");
  ASSERT_EQ(made.exit, 0) << made.out;
  const std::set<fs::path> expected = files_under(kGolden);
  const std::set<fs::path> got = files_under(out);
  ASSERT_FALSE(expected.empty()) << kGolden;
  for (const fs::path& f : expected) EXPECT_TRUE(got.count(f)) << "not written: " << f;
  for (const fs::path& f : got) EXPECT_TRUE(expected.count(f)) << "written, not golden: " << f;
  for (const fs::path& f : expected) {
    if (!got.count(f)) continue;
    const std::string a = read_text(kGolden / f), b = read_text(out / f);
    EXPECT_TRUE(a == b) << f.string() << " differs at " << first_difference(a, b);
  }
  fs::remove_all(out);
}
