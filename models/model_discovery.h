#pragma once
// Finding model folders: a path, or a Hugging Face cache name "org/name"
// ($HF_HUB_CACHE, $HF_HOME/hub or ~/.cache/huggingface/hub, layout
// models--ORG--NAME/snapshots/REV/).
#include <cstdint>
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

// How titles, the status bar and exports name a model folder: a Hugging Face
// cache snapshot (.../models--ORG--NAME/snapshots/HASH) as "ORG/NAME (REF)"
// with the ref (e.g. main) that points at it, or "ORG/NAME (revision HASH[0..7])"
// when none does, never as the bare snapshot hash; any other folder by its
// own name.
std::string model_display_name(const std::filesystem::path& folder);

// The checkpoints of a training run: `folder` is what `sinkscope-cli train
// --out DIR` wrote (its checkpoints/step-N folders, and the final model DIR
// itself at the step its recipe.json names) or that checkpoints folder
// itself. Every step-N sub-folder with a config.json, sorted by N. A step-N
// that is a link is left out (never followed: it could lead anywhere). Of
// more than kMaxCheckpoints, an even spread keeping the first and the last.
struct Checkpoint {
  long long step = 0;
  std::filesystem::path folder;
  bool final = false;  // the run's final model (DIR itself)
};
inline constexpr std::size_t kMaxCheckpoints = 4096;
struct CheckpointList {
  std::vector<Checkpoint> steps;
  std::size_t found = 0;         // checkpoints found (steps holds them all when <= kMaxCheckpoints)
  std::size_t linksLeftOut = 0;  // step-N entries that are links
  std::size_t namesLeftOut = 0;  // step-0N entries (leading zeros: not the trainer's)
  std::string finalLeftOut;      // why a run's final model is not listed (its recipe.json)
  bool scanCut = false;          // the folder held more entries than are read
  // What was left out, in words; empty when nothing was.
  std::string note() const;
};
CheckpointList training_checkpoints(const std::filesystem::path& folder);

// What the model chooser says about a folder beside its name: its family
// (config.json's model_type, "?" when unreadable) and the
// bytes of its weight files (*.safetensors, *.bin; links followed for their
// size only, as a cache snapshot's point into its blobs).
struct ModelChooserEntry {
  std::string family;
  std::uintmax_t weightBytes = 0;
};
ModelChooserEntry model_folder_summary(const std::filesystem::path& folder);
// "1.2 GB", "350 MB", "12 kB": a size as the chooser shows it.
std::string byte_size_text(std::uintmax_t bytes);

}  // namespace sinkscope::models
