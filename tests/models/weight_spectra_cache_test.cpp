// The weight-spectra cache (models/io/weight_spectra_cache.h): a stamp hit
// reads no weights, content is found under other files' stamps, and damaged
// cache files are recomputed, never trusted.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "models/io/weight_spectra_cache.h"

using namespace sinkscope::io;
using sinkscope::analysis::weight_spectrum;

namespace {

// `count` matrices of rows x cols Gaussian values, seeded (weight-spectrum cache tests).
std::vector<std::vector<float>> gaussian_matrices(int count, int rows, int cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g(0.0f, 1.0f);
  std::vector<std::vector<float>> data;
  for (int k = 0; k < count; ++k) {
    data.emplace_back(static_cast<std::size_t>(rows * cols));
    for (auto& x : data.back()) x = g(rng);
  }
  return data;
}

}  // namespace

TEST(WeightSpectrum, AStampedLookupReadsTheWeightsOnlyOnAMiss) {
  namespace fs = std::filesystem;
  const fs::path folder =
      fs::temp_directory_path() / ("sinkscope-wstamp-" + std::to_string(::getpid()));
  fs::remove_all(folder);
  const std::vector<std::vector<float>> data = gaussian_matrices(2, 30, 20, 5);
  const std::vector<WeightMatrixView> views{{0, "q", 30, 20, data[0]}, {1, "q", 30, 20, data[1]}};
  std::vector<WeightMatrixView> shapes = views;
  for (auto& s : shapes) s.values = {};
  int reads = 0;  // passes over the weights (each reads matrix 0 first)
  auto matrices = [&](std::size_t i, std::vector<float>&) {
    if (i == 0) ++reads;
    return views[i].values;
  };
  const WeightSpectraCache cache(folder);
  bool fromCache = true;
  const auto fresh = weight_spectra_stamped(shapes, "files A", matrices, cache, &fromCache);
  EXPECT_FALSE(fromCache);
  EXPECT_EQ(reads, 2) << "a miss reads the weights to hash them, then to compute";
  const auto again = weight_spectra_stamped(shapes, "files A", matrices, cache, &fromCache);
  EXPECT_TRUE(fromCache);
  EXPECT_EQ(reads, 2) << "a stamp hit reads no weights";
  // Other files with the same bytes: read and hashed once, found by content.
  const auto moved = weight_spectra_stamped(shapes, "files B", matrices, cache, &fromCache);
  EXPECT_TRUE(fromCache);
  EXPECT_EQ(reads, 3) << "found by content: read once, to hash";
  for (const auto* result : {&again, &moved}) {
    ASSERT_EQ(result->size(), fresh.size());
    for (std::size_t i = 0; i < fresh.size(); ++i) {
      EXPECT_EQ((*result)[i].eigenvalues, fresh[i].eigenvalues);
      EXPECT_EQ((*result)[i].outliers, fresh[i].outliers);
    }
  }
  // A stamp stored for other shapes is not used for these.
  std::vector<WeightMatrixView> wider = shapes;
  wider[1].cols = 21;
  std::vector<float> widerData(30 * 21, 0.5f);
  const auto other = weight_spectra_stamped(
      wider, "files A",
      [&](std::size_t i, std::vector<float>& scratch) {
        if (i == 0) ++reads;
        if (i == 0) return views[0].values;
        scratch = widerData;  // a widened copy, as a BF16 model's matrices come
        return std::span<const float>(scratch);
      },
      cache, &fromCache);
  EXPECT_FALSE(fromCache);
  EXPECT_EQ(reads, 5);
  EXPECT_EQ(other[1].eigenvalues, weight_spectrum(widerData, 30, 21).eigenvalues);
  fs::remove_all(folder);
}

TEST(WeightSpectrum, CacheReturnsTheSameSpectraAndRejectsBadFiles) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::temp_directory_path() / ("sinkscope-ws-" + std::to_string(::getpid()));
  fs::remove_all(folder);
  const std::vector<std::vector<float>> data = gaussian_matrices(3, 40, 24, 4);
  const std::vector<WeightMatrixView> views{
      {0, "q", 40, 24, data[0]}, {0, "up", 24, 40, data[1]}, {1, "q", 40, 24, data[2]}};
  const WeightSpectraCache cache(folder);
  bool fromCache = true;
  const auto fresh = weight_spectra(views, cache, &fromCache);
  EXPECT_FALSE(fromCache);
  const fs::path file = cache.file_of(weight_matrices_key(views));
  ASSERT_TRUE(fs::is_regular_file(file));
  const auto cached = weight_spectra(views, cache, &fromCache);
  EXPECT_TRUE(fromCache);
  ASSERT_EQ(cached.size(), fresh.size());
  for (std::size_t i = 0; i < fresh.size(); ++i) {
    EXPECT_EQ(cached[i].eigenvalues, fresh[i].eigenvalues) << "bit for bit";
    EXPECT_EQ(cached[i].sigma2, fresh[i].sigma2);
    EXPECT_EQ(cached[i].outliers, fresh[i].outliers);
    EXPECT_EQ(weight_spectrum(data[i], views[i].rows, views[i].cols).eigenvalues,
              fresh[i].eigenvalues);
  }
  // Other weights, another key.
  std::vector<float> changed = data[2];
  changed[5] += 1e-3f;
  std::vector<WeightMatrixView> other = views;
  other[2].values = changed;
  EXPECT_NE(weight_matrices_key(other), weight_matrices_key(views));
  // A damaged file (cut short, garbage, a negative or non-finite value, another
  // key) is never believed: the spectra are recomputed and the file replaced.
  std::string good;
  {
    std::ifstream in(file);
    good.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string negative = [&] {
    std::string s = good;
    const auto at = s.rfind(' ', s.size() - 3);
    return s.substr(0, at + 1) + "-0x1p+0 \n";
  }();
  for (const std::string& bad : {good.substr(0, good.size() / 2), std::string("garbage\n"),
                                 negative, good + "trailing", std::string(),
                                 std::string("sinkscope-weight-spectra 1\nkey 00\nmatrices 3\n")}) {
    std::ofstream(file, std::ios::trunc) << bad;
    const auto again = weight_spectra(views, cache, &fromCache);
    EXPECT_FALSE(fromCache) << bad.substr(0, 60);
    for (std::size_t i = 0; i < fresh.size(); ++i)
      EXPECT_EQ(again[i].eigenvalues, fresh[i].eigenvalues);
  }
  // A cache folder that cannot be written costs only the recomputation.
  const WeightSpectraCache blocked(file / "not-a-folder");
  EXPECT_EQ(weight_spectra(views, blocked, &fromCache)[0].eigenvalues, fresh[0].eigenvalues);
  EXPECT_FALSE(fromCache);
  fs::remove_all(folder);
}
