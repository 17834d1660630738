#include "models/model_discovery.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cctype>
#include <stdexcept>
#include <string>
#include <vector>

#include <optional>

#include "models/input_files.h"
#include "models/json_bounded.h"
#include "models/model_config.h"

namespace sinkscope::models {

namespace fs = std::filesystem;

fs::path hf_cache_root() {
  if (const char* hub = std::getenv("HF_HUB_CACHE"); hub && *hub) return hub;
  if (const char* home = std::getenv("HF_HOME"); home && *home) return fs::path(home) / "hub";
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return fs::path(xdg) / "huggingface" / "hub";
  if (const char* user = std::getenv("HOME"); user && *user)
    return fs::path(user) / ".cache" / "huggingface" / "hub";
  return {};
}

namespace {

std::optional<fs::path> snapshot_of(const fs::path& repo) {
  const fs::path snapshots = repo / "snapshots";
  std::error_code ec;
  if (!fs::is_directory(snapshots, ec)) return std::nullopt;
  // refs/main names the snapshot; read it as any other untrusted file (a FIFO
  // there must not block) and accept only a plain revision name.
  std::string rev;
  try {
    rev = input_file_read(repo / "refs" / "main", 4096);
  } catch (const ModelInputError&) {
    rev.clear();
  }
  while (!rev.empty() && std::isspace(static_cast<unsigned char>(rev.back()))) rev.pop_back();
  const bool plain = !rev.empty() && rev.size() <= 256 &&
                     std::all_of(rev.begin(), rev.end(), [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
                     }) && rev != "." && rev != "..";
  if (plain && fs::exists(snapshots / rev / "config.json", ec)) return snapshots / rev;
  std::optional<fs::path> newest;
  fs::file_time_type newestTime{};
  for (const auto& e : fs::directory_iterator(snapshots, ec)) {
    if (!fs::exists(e.path() / "config.json", ec)) continue;
    const auto t = fs::last_write_time(e.path(), ec);
    if (!newest || t > newestTime) {
      newest = e.path();
      newestTime = t;
    }
  }
  return newest;
}

}  // namespace

std::vector<CachedModel> hf_cache_models(const fs::path& root) {
  std::vector<CachedModel> out;
  std::error_code ec;
  if (root.empty() || !fs::is_directory(root, ec)) return out;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    const std::string dir = e.path().filename().string();
    if (dir.rfind("models--", 0) != 0) continue;
    auto snap = snapshot_of(e.path());
    if (!snap) continue;
    std::string name = dir.substr(8);
    if (auto sep = name.find("--"); sep != std::string::npos) name.replace(sep, 2, "/");
    out.push_back({name, *snap});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

fs::path model_location_resolve(const std::string& spec, const fs::path& root) {
  std::error_code ec;
  if (fs::is_directory(spec, ec)) return spec;
  const auto slash = spec.find('/');
  if (slash != std::string::npos && slash > 0 && spec.find('/', slash + 1) == std::string::npos &&
      !root.empty()) {
    const fs::path repo =
        root / ("models--" + spec.substr(0, slash) + "--" + spec.substr(slash + 1));
    if (auto snap = snapshot_of(repo)) return *snap;
    throw std::runtime_error(spec + ": not a folder, and not in the Hugging Face cache " +
                             root.string());
  }
  throw std::runtime_error(spec + ": not a folder");
}

std::string model_display_name(const fs::path& given) {
  const fs::path folder = given.filename().empty() ? given.parent_path() : given;
  const fs::path snapshots = folder.parent_path(), repo = snapshots.parent_path();
  const std::string repoName = repo.filename().string();
  // A training checkpoint (RUN/checkpoints/step-N) by its run and step.
  const std::string own = folder.filename().string();
  if (snapshots.filename() == "checkpoints" && own.rfind("step-", 0) == 0 && !repoName.empty())
    return repoName + " (step " + own.substr(5) + ")";
  if (snapshots.filename() != "snapshots" || repoName.rfind("models--", 0) != 0)
    return own;
  std::string name = repoName.substr(8);
  for (std::size_t at; (at = name.find("--")) != std::string::npos;) name.replace(at, 2, "/");
  const std::string hash = folder.filename().string();
  // The refs that point at this snapshot (small files, read as untrusted input).
  std::error_code ec;
  std::vector<std::string> refs;
  for (const auto& entry : fs::directory_iterator(repo / "refs", ec)) {
    if (refs.size() > 64) break;
    try {
      std::string target = input_file_read(entry.path(), 4096);
      while (!target.empty() && std::isspace(static_cast<unsigned char>(target.back()))) target.pop_back();
      if (target == hash) refs.push_back(entry.path().filename().string());
    } catch (const std::exception&) {
      // an unreadable ref names nothing
    }
  }
  std::sort(refs.begin(), refs.end());
  if (!refs.empty()) return name + " (" + refs.front() + ")";
  return name + " (revision " + hash.substr(0, 7) + ")";
}

namespace {

// The step a run's final model was trained to: recipe.json's "steps", when it
// is a whole number in range; nothing otherwise.
// The final model's step (recipe.json's "steps"); when there is none,
// `problem` says why.
std::optional<long long> final_step(const fs::path& run, std::string& problem) {
  const fs::path recipe = run / "recipe.json";
  try {
    const auto j = json_parse_bounded(input_file_read_unlinked(recipe, 1 << 20), recipe.string());
    const auto it = j.find("steps");
    if (it != j.end() && it->is_number_integer()) {
      const long long n = it->get<long long>();
      if (n >= 1 && n <= 1'000'000'000'000LL) return n;
    }
    problem = recipe.string() + ": \"steps\" is not a whole number from 1";
  } catch (const std::exception& e) {
    problem = e.what();
  }
  return std::nullopt;
}

constexpr std::size_t kMostEntriesRead = 100000;

}  // namespace

std::string CheckpointList::note() const {
  std::string text;
  if (found > steps.size())
    text += std::to_string(steps.size()) + " of " + std::to_string(found) +
            " checkpoints shown, evenly spread (the first and the last kept)";
  if (linksLeftOut > 0)
    text += std::string(text.empty() ? "" : "; ") + std::to_string(linksLeftOut) +
            " step folder(s) that are links left out";
  if (namesLeftOut > 0)
    text += std::string(text.empty() ? "" : "; ") + std::to_string(namesLeftOut) +
            " step folder(s) named with leading zeros left out (the trainer writes step-N)";
  if (!finalLeftOut.empty())
    text +=
        std::string(text.empty() ? "" : "; ") + "the final model left out (" + finalLeftOut + ")";
  if (scanCut)
    text += std::string(text.empty() ? "" : "; ") + "only the first " +
            std::to_string(kMostEntriesRead) + " entries of the folder were read";
  return text;
}

CheckpointList training_checkpoints(const fs::path& folder) {
  CheckpointList list;
  std::error_code ec;
  const bool isRun = fs::is_directory(fs::symlink_status(folder / "checkpoints", ec));
  const fs::path dir = isRun ? folder / "checkpoints" : folder;
  std::vector<Checkpoint> all;
  std::size_t seen = 0;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (++seen > kMostEntriesRead) {  // a hostile folder of many entries
      list.scanCut = true;
      break;
    }
    const std::string name = e.path().filename().string();
    if (name.rfind("step-", 0) != 0 || name.size() <= 5 || name.size() > 5 + 15) continue;
    const std::string digits = name.substr(5);
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    // step-0500 beside step-500 would be one step twice: only the trainer's
    // own spelling (no leading zero) is a checkpoint.
    if (digits.size() > 1 && digits[0] == '0') {
      ++list.namesLeftOut;
      continue;
    }
    std::error_code fileError;
    if (e.is_symlink(fileError)) {
      ++list.linksLeftOut;
      continue;
    }
    if (!fs::is_regular_file(fs::symlink_status(e.path() / "config.json", fileError))) continue;
    all.push_back({std::stoll(digits), e.path(), false});
  }
  std::sort(all.begin(), all.end(), [](const Checkpoint& a, const Checkpoint& b) { return a.step < b.step; });
  // The final model, when it was trained beyond the last checkpoint.
  if (isRun && fs::is_regular_file(fs::symlink_status(folder / "config.json", ec))) {
    std::string problem;
    if (const auto last = final_step(folder, problem); !last)
      list.finalLeftOut = problem;
    else if (all.empty() || *last > all.back().step)
      all.push_back({*last, folder, true});
  }
  list.found = all.size();
  if (all.size() <= kMaxCheckpoints) {
    list.steps = std::move(all);
    return list;
  }
  for (std::size_t k = 0; k < kMaxCheckpoints; ++k)
    list.steps.push_back(all[k * (all.size() - 1) / (kMaxCheckpoints - 1)]);
  return list;
}

ModelChooserEntry model_folder_summary(const fs::path& folder) {
  ModelChooserEntry s;
  try {
    s.family = model_config_read(folder / "config.json").model_type;
  } catch (const std::exception&) {
    s.family = "?";
  }
  if (s.family.empty()) s.family = "?";
  std::error_code ec;
  int seen = 0;
  for (const auto& e : fs::directory_iterator(folder, ec)) {
    if (++seen > 10000) break;  // a hostile folder of many files: what was counted so far
    const std::string ext = e.path().extension().string();
    if (ext != ".safetensors" && ext != ".bin") continue;
    std::error_code sizeError;
    if (!fs::is_regular_file(e.path(), sizeError)) continue;
    const auto size = fs::file_size(e.path(), sizeError);
    if (!sizeError) s.weightBytes += size;
  }
  return s;
}

std::string byte_size_text(std::uintmax_t bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1000.0 && u < 4) v /= 1000.0, ++u;
  char text[32];
  std::snprintf(text, sizeof text, u == 0 || v >= 100 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return text;
}

}  // namespace sinkscope::models
