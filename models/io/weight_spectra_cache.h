#pragma once
// The weight spectra of a model (analysis/weight_spectrum.h, metrics.md
// section 9), kept in a cache folder between runs.
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/weight_spectrum.h"

namespace sinkscope::io {

using analysis::WeightMatrixView;
using analysis::WeightSpectrum;

// Weight spectra are model-level work: they do not depend on the text, so they
// are computed once per set of weights and kept in a cache folder, one file
// per weights, named by a 128-bit hash (XXH3) of every matrix's name, shape
// and bytes. A cache file is read as untrusted input (bounded, every value
// checked); a bad or stale one is recomputed and replaced.
class WeightSpectraCache {
 public:
  // An empty folder: no caching.
  explicit WeightSpectraCache(std::filesystem::path folder) : folder_(std::move(folder)) {}

  // $SINKSCOPE_CACHE_DIR, else $XDG_CACHE_HOME/sinkscope, else ~/.cache/sinkscope
  // (with "weight-spectra" below it); empty when none can be named.
  static std::filesystem::path default_folder();

  const std::filesystem::path& folder() const { return folder_; }
  std::filesystem::path file_of(const std::string& key) const;

  // The eigenvalues stored for these matrices, when a valid file exists.
  std::optional<std::vector<std::vector<double>>> load(
      const std::string& key, const std::vector<WeightMatrixView>& matrices) const;
  // Writes atomically; a cache that cannot be written is not an error (false).
  bool store(const std::string& key, const std::vector<WeightMatrixView>& matrices,
             const std::vector<WeightSpectrum>& spectra) const;

 private:
  std::filesystem::path folder_;
};

// The cache key of a set of matrices (hex).
std::string weight_matrices_key(const std::vector<WeightMatrixView>& matrices);

// Every matrix's spectrum, in order: from the cache when it holds them,
// otherwise computed on every core (and stored). `fromCache` says which.
std::vector<WeightSpectrum> weight_spectra(const std::vector<WeightMatrixView>& matrices,
                                           const WeightSpectraCache& cache,
                                           bool* fromCache = nullptr);

// Matrix `index`'s values (row-major, as the shapes list gives them): a view
// of storage the caller keeps, or of `scratch` filled by the call. Called for
// one matrix at a time, so a model is never widened whole.
using WeightMatrixValues =
    std::function<std::span<const float>(std::size_t index, std::vector<float>& scratch)>;

// As weight_spectra(), looked up first by `stamp`, which identifies the weights
// without reading them (models::weight_files_stamp: the files' paths, sizes,
// modification times and inodes): a hit costs no hashing of the weights' bytes
// (340 MB for GPT-2 small, a third of a second per run) and no conversion.
// On a miss `values` gives the matrices one at a time (hashed for the bytes'
// key, then, unless that key is cached, again for the spectra, a few at a
// time on every core), and the result is stored under both keys. `shapes`
// lists the matrices by layer, name and shape (values empty).
std::vector<WeightSpectrum> weight_spectra_stamped(const std::vector<WeightMatrixView>& shapes,
                                                   const std::string& stamp,
                                                   const WeightMatrixValues& values,
                                                   const WeightSpectraCache& cache,
                                                   bool* fromCache = nullptr);

}  // namespace sinkscope::io
