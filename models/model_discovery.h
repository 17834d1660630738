#pragma once
// Finding model folders: a path, or a Hugging Face cache name "org/name"
// ($HF_HUB_CACHE, $HF_HOME/hub or ~/.cache/huggingface/hub, layout
// models--ORG--NAME/snapshots/REV/).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace sinkscope::models {

struct CachedModel {
  std::string name;              // "org/name"
  std::filesystem::path folder;  // the snapshot folder holding config.json
};

// The hub cache folder the environment points at (it may not exist).
std::filesystem::path hf_cache_root();

// Every model in the cache with a config.json, sorted by name.
std::vector<CachedModel> hf_cache_models(const std::filesystem::path& root = hf_cache_root());

// A folder as given, or a cache name resolved to its snapshot (refs/main
// first, else the newest snapshot). Throws std::runtime_error naming what
// was looked for when neither exists.
std::filesystem::path model_location_resolve(
    const std::string& folderOrName, const std::filesystem::path& cacheRoot = hf_cache_root());

}  // namespace sinkscope::models
