#include "models/io/weight_spectra_cache.h"

#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "analysis/head_analysis.h"
#include "models/io/table_io.h"

namespace sinkscope::io {

namespace fs = std::filesystem;
using analysis::parallel_for;
using analysis::thread_count;
using analysis::weight_spectrum;
using analysis::weight_spectrum_of;

namespace {

constexpr const char* kMagic = "sinkscope-weight-spectra 1";
constexpr std::uintmax_t kMaxCacheFile = 256ull << 20;  // 256 MB: far above any real model's
constexpr std::size_t kMaxMatrices = 1u << 16;

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

}  // namespace

fs::path WeightSpectraCache::default_folder() {
  if (const std::string d = env_or_empty("SINKSCOPE_CACHE_DIR"); !d.empty())
    return fs::path(d) / "weight-spectra";
  if (const std::string d = env_or_empty("XDG_CACHE_HOME"); !d.empty())
    return fs::path(d) / "sinkscope" / "weight-spectra";
  if (const std::string d = env_or_empty("HOME"); !d.empty())
    return fs::path(d) / ".cache" / "sinkscope" / "weight-spectra";
  return {};
}

fs::path WeightSpectraCache::file_of(const std::string& key) const {
  return folder_.empty() ? fs::path() : folder_ / (key + ".txt");
}

namespace {

// XXH3-128 over the routine, an optional stamp, and every matrix's layer,
// name and shape, with its bytes when they are given.
class MatricesHash {
 public:
  explicit MatricesHash(const std::string* stamp) : state_(XXH3_createState()) {
    if (!state_) throw std::bad_alloc();
    XXH3_128bits_reset(state_);
    // The format's version and the routine are part of the key: a change in
    // how spectra are computed must not reuse old files.
    const std::string algorithm = std::string(kMagic) + " ssyrk-ssyevd-float";
    XXH3_128bits_update(state_, algorithm.data(), algorithm.size());
    if (stamp) {
      const std::string tag = "\nstamp\n" + *stamp;
      XXH3_128bits_update(state_, tag.data(), tag.size());
    }
  }
  ~MatricesHash() { XXH3_freeState(state_); }
  MatricesHash(const MatricesHash&) = delete;
  MatricesHash& operator=(const MatricesHash&) = delete;

  void add(const WeightMatrixView& m, std::span<const float> values) {
    const std::string head = std::to_string(m.layer) + ' ' + m.name + ' ' +
                             std::to_string(m.rows) + ' ' + std::to_string(m.cols) + '\n';
    XXH3_128bits_update(state_, head.data(), head.size());
    XXH3_128bits_update(state_, values.data(), values.size_bytes());
  }
  std::string hex() const {
    const XXH128_hash_t h = XXH3_128bits_digest(state_);
    char text[33];
    std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                  static_cast<unsigned long long>(h.low64));
    return text;
  }

 private:
  XXH3_state_t* state_;
};

std::string matrices_key(const std::vector<WeightMatrixView>& matrices, const std::string* stamp,
                         bool withValues) {
  MatricesHash hash(stamp);
  for (const WeightMatrixView& m : matrices) hash.add(m, withValues ? m.values : std::span<const float>());
  return hash.hex();
}

std::vector<WeightSpectrum> spectra_of_stored(std::vector<std::vector<double>> stored,
                                              const std::vector<WeightMatrixView>& matrices) {
  std::vector<WeightSpectrum> out;
  for (std::size_t i = 0; i < matrices.size(); ++i)
    out.push_back(weight_spectrum_of(std::move(stored[i]), matrices[i].rows, matrices[i].cols));
  return out;
}

}  // namespace

std::string weight_matrices_key(const std::vector<WeightMatrixView>& matrices) {
  return matrices_key(matrices, nullptr, true);
}

std::optional<std::vector<std::vector<double>>> WeightSpectraCache::load(
    const std::string& key, const std::vector<WeightMatrixView>& matrices) const {
  const fs::path file = file_of(key);
  if (file.empty()) return std::nullopt;
  std::error_code ec;
  // Only a regular file of bounded size (never a FIFO, device or folder).
  if (!fs::is_regular_file(fs::symlink_status(file, ec)) || ec) return std::nullopt;
  const std::uintmax_t size = fs::file_size(file, ec);
  if (ec || size > kMaxCacheFile) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  std::string text(static_cast<std::size_t>(size), '\0');
  if (!in.read(text.data(), static_cast<std::streamsize>(size))) return std::nullopt;
  std::istringstream s(text);
  std::string line;
  if (!std::getline(s, line) || line != kMagic) return std::nullopt;
  std::string word, storedKey;
  std::size_t count = 0;
  if (!(s >> word >> storedKey) || word != "key" || storedKey != key) return std::nullopt;
  if (!(s >> word >> count) || word != "matrices" || count != matrices.size() ||
      count > kMaxMatrices)
    return std::nullopt;
  std::vector<std::vector<double>> out;
  for (const WeightMatrixView& m : matrices) {
    int layer = 0, rows = 0, cols = 0;
    std::size_t n = 0;
    std::string name;
    if (!(s >> layer >> name >> rows >> cols >> n) || layer != m.layer || name != m.name ||
        rows != m.rows || cols != m.cols ||
        n != static_cast<std::size_t>(std::min(m.rows, m.cols)))
      return std::nullopt;
    std::vector<double> eig(n);
    for (double& e : eig) {
      if (!(s >> word)) return std::nullopt;
      char* end = nullptr;
      e = std::strtod(word.c_str(), &end);  // hexadecimal floats: exact
      if (end != word.c_str() + word.size() || !std::isfinite(e) || e < 0) return std::nullopt;
    }
    out.push_back(std::move(eig));
  }
  if (s >> word) return std::nullopt;  // anything after the last matrix
  return out;
}

bool WeightSpectraCache::store(const std::string& key,
                               const std::vector<WeightMatrixView>& matrices,
                               const std::vector<WeightSpectrum>& spectra) const {
  const fs::path file = file_of(key);
  if (file.empty() || spectra.size() != matrices.size()) return false;
  std::string text = std::string(kMagic) + "\nkey " + key + "\nmatrices " +
                     std::to_string(matrices.size()) + "\n";
  char number[64];
  for (std::size_t i = 0; i < matrices.size(); ++i) {
    const WeightMatrixView& m = matrices[i];
    text += std::to_string(m.layer) + ' ' + m.name + ' ' + std::to_string(m.rows) + ' ' +
            std::to_string(m.cols) + ' ' + std::to_string(spectra[i].eigenvalues.size()) + '\n';
    for (double e : spectra[i].eigenvalues) {
      std::snprintf(number, sizeof number, "%a ", e);
      text += number;
    }
    text += '\n';
  }
  try {
    files_write_atomic({{file, text}}, true);
    return true;
  } catch (const std::exception&) {
    return false;  // a read-only or full cache only costs the recomputation
  }
}

std::vector<WeightSpectrum> weight_spectra(const std::vector<WeightMatrixView>& matrices,
                                           const WeightSpectraCache& cache, bool* fromCache) {
  const std::string key = weight_matrices_key(matrices);
  if (auto stored = cache.load(key, matrices)) {
    if (fromCache) *fromCache = true;
    return spectra_of_stored(std::move(*stored), matrices);
  }
  std::vector<WeightSpectrum> out(matrices.size());
  parallel_for(static_cast<int>(matrices.size()), [&](int i) {
    const WeightMatrixView& m = matrices[static_cast<std::size_t>(i)];
    out[static_cast<std::size_t>(i)] = weight_spectrum(m.values, m.rows, m.cols);
  });
  cache.store(key, matrices, out);
  if (fromCache) *fromCache = false;
  return out;
}

std::vector<WeightSpectrum> weight_spectra_stamped(const std::vector<WeightMatrixView>& shapes,
                                                   const std::string& stamp,
                                                   const WeightMatrixValues& values,
                                                   const WeightSpectraCache& cache,
                                                   bool* fromCache) {
  const std::string stampKey = matrices_key(shapes, &stamp, false);
  if (auto stored = cache.load(stampKey, shapes)) {
    if (fromCache) *fromCache = true;
    return spectra_of_stored(std::move(*stored), shapes);
  }
  auto checked = [&](std::size_t i, std::vector<float>& scratch) {
    const std::span<const float> v = values(i, scratch);
    const WeightMatrixView& m = shapes[i];
    if (v.size() != static_cast<std::size_t>(m.rows) * static_cast<std::size_t>(m.cols))
      throw std::invalid_argument("weight spectra: matrix " + m.name + " of layer " +
                                  std::to_string(m.layer) + " has the wrong size");
    return v;
  };
  MatricesHash hash(nullptr);
  std::vector<float> scratch;
  for (std::size_t i = 0; i < shapes.size(); ++i) hash.add(shapes[i], checked(i, scratch));
  const std::string key = hash.hex();
  std::vector<WeightSpectrum> out;
  if (auto stored = cache.load(key, shapes)) {
    out = spectra_of_stored(std::move(*stored), shapes);
    if (fromCache) *fromCache = true;
  } else {
    // A few matrices at a time, one per thread: their widened copies are all
    // that is held, whatever the model's size.
    out.resize(shapes.size());
    const std::size_t group = static_cast<std::size_t>(std::max(1, thread_count()));
    std::vector<std::vector<float>> scratches(group);
    std::vector<std::span<const float>> views(group);
    for (std::size_t first = 0; first < shapes.size(); first += group) {
      const std::size_t n = std::min(group, shapes.size() - first);
      for (std::size_t k = 0; k < n; ++k) views[k] = checked(first + k, scratches[k]);
      parallel_for(static_cast<int>(n), [&](int k) {
        const WeightMatrixView& m = shapes[first + static_cast<std::size_t>(k)];
        out[first + static_cast<std::size_t>(k)] =
            weight_spectrum(views[static_cast<std::size_t>(k)], m.rows, m.cols);
      });
    }
    cache.store(key, shapes, out);
    if (fromCache) *fromCache = false;
  }
  cache.store(stampKey, shapes, out);
  return out;
}

}  // namespace sinkscope::io
