// The outputs of analyze, study and figure-set against the files
// tests/golden/make_golden_outputs.sh wrote before the code beneath them was
// rebuilt (the script's header says how to make them again). Text, headers
// and every whole number (counts, indices, classes, sink sets) must be
// equal; other numbers agree to float32 rounding: the golden files were made
// under one CPU's BLAS kernel and these runs may use another's (ctest runs
// this test under several, NAME@Kernel), which sums a product's terms in
// another order.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

#include "support/golden_compare.h"
#include "support/shell_run.h"

namespace fs = std::filesystem;
using sinkscope::testing::compare_golden_file;
using sinkscope::testing::GoldenRules;

namespace {

const fs::path kSource = SINKSCOPE_SOURCE_DIR;
const fs::path kGolden = kSource / "tests/golden/outputs";

// Float32 work: 4 significant digits, or 5 decimal places (a difference of
// two NLLs of about 5 nats carries their absolute error). Measured between
// OpenBLAS's SkylakeX, Haswell, Sandybridge and Prescott kernels on these
// outputs: at most 0.13 of this tolerance (a head's dNLL in ablation.csv).
// Random-baseline scores (golden_compare.h) may also move by one of the 64
// random subsets scoring otherwise, 1/64: measured once, 4e-4 (Sandybridge).
const GoldenRules kRules{
    {1e-4, 1e-5},
    {0.0, 1.0 / 64},
    {"random_f_mean", "random_f_std", "f_n_random", "f_n_excess", "fr", "random_precision_mean",
     "random_recall_mean", "precision_random", "recall_random", "pr", "rr"}};

std::set<fs::path> files_under(const fs::path& root) {
  std::set<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) files.insert(fs::relative(e.path(), root));
  return files;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

TEST(GoldenOutputs, EveryFileAgreesToFloat32Rounding) {
  // The kernel this run uses, as the program reports it: under ctest's
  // NAME@Kernel runs, the one OPENBLAS_CORETYPE asks for.
  const CliRun info = shell(std::string("'") + SINKSCOPE_CLI + "' info 2>&1");
  ASSERT_EQ(info.exit, 0) << info.out;
  const auto at = info.out.find("OpenBLAS core: ");
  const std::string core = at == std::string::npos
                               ? "(not OpenBLAS)"
                               : info.out.substr(at + 15, info.out.find('\n', at) - at - 15);
  if (const char* asked = std::getenv("OPENBLAS_CORETYPE"); asked && *asked) {
    EXPECT_EQ(lower(core), lower(asked)) << info.out;
  }

  const fs::path out =
      fs::temp_directory_path() / ("sinkscope-golden-" + std::to_string(::getpid()));
  fs::remove_all(out);
  const CliRun made = shell("'" + (kSource / "tests/golden/make_golden_outputs.sh").string() +
                            "' '" + kSource.string() + "' '" + SINKSCOPE_CLI + "' '" +
                            SINKSCOPE_GUI + "' '" + out.string() + "' 2>&1");
  ASSERT_EQ(made.exit, 0) << made.out;
  const std::set<fs::path> expected = files_under(kGolden);
  const std::set<fs::path> got = files_under(out);
  ASSERT_FALSE(expected.empty()) << kGolden;
  for (const fs::path& f : expected) EXPECT_TRUE(got.count(f)) << "not written: " << f;
  for (const fs::path& f : got) EXPECT_TRUE(expected.count(f)) << "written, not golden: " << f;
  int inexact = 0, identical = 0, randomMoves = 0;
  double largestRelative = 0.0, largestAbsolute = 0.0;
  for (const fs::path& f : expected) {
    if (!got.count(f)) continue;
    const std::string a = read_text(kGolden / f), b = read_text(out / f);
    if (a == b) {
      ++identical;
      continue;
    }
    const auto r = compare_golden_file(f.filename().string(), a, b, kRules);
    EXPECT_TRUE(r.difference.empty()) << f.string() << " differs at " << r.difference;
    inexact += r.inexactNumbers;
    randomMoves += r.randomBaselineMoves;
    largestRelative = std::max(largestRelative, r.largestRelative);
    largestAbsolute = std::max(largestAbsolute, r.largestAbsolute);
  }
  std::cout << "OpenBLAS core " << core << ": " << identical << " of " << expected.size()
            << " files byte-identical; " << inexact
            << " numbers differ within float32 rounding (largest relative " << largestRelative
            << ", absolute " << largestAbsolute << "), " << randomMoves
            << " random-baseline scores beyond it\n";
  fs::remove_all(out);
}
