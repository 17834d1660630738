#include "models/torch_runtime.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "models/cpu_runtime.h"

namespace sinkscope::models {

namespace fs = std::filesystem;

namespace {

const char* const kModuleName = "sinkscope_torch.so";

// The folder of the program or shared library this code was linked into.
fs::path own_folder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&torch_runtime_candidates), &info) == 0 || !info.dli_fname)
    return {};
  std::error_code ec;
  const fs::path self = fs::canonical(info.dli_fname, ec);
  return ec ? fs::path() : self.parent_path();
}

// Taken when the program starts, before anything can change the working
// folder (the loader may have recorded the program's path as typed).
const fs::path ownFolderAtStart = own_folder();

struct Loaded {
  const TorchRuntime* runtime = nullptr;
  std::string error;
};

Loaded load_module() {
  std::string tried;
  for (const fs::path& named : torch_runtime_candidates()) {
    std::error_code ec;
    const fs::path candidate = fs::weakly_canonical(named, ec);  // as the loader will name it
    if (!fs::is_regular_file(candidate, ec)) {
      tried += "\n  " + candidate.string() + ": not there";
      continue;
    }
    // Never closed: models, traces and their recomputers hold its code.
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = dlerror();
      tried += "\n  " + candidate.string() + ": " + (why ? why : "could not be loaded");
      continue;
    }
    using Entry = const TorchRuntime* (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(handle, kTorchRuntimeEntry));
    const TorchRuntime* runtime = entry ? entry() : nullptr;
    if (!runtime || runtime->version != kTorchRuntimeVersion) {
      tried += "\n  " + candidate.string() + ": not this build's model runtime (version " +
               std::to_string(runtime ? runtime->version : 0) + ", expected " +
               std::to_string(kTorchRuntimeVersion) + ")";
      continue;
    }
    return {runtime, {}};
  }
  return {nullptr, "the model runtime (" + std::string(kModuleName) +
                       ", libtorch) could not be loaded; looked at:" + tried};
}

std::once_flag loadOnce;
Loaded loaded;  // written once, inside call_once
std::atomic<bool> isLoaded{false};

}  // namespace

std::vector<fs::path> torch_runtime_candidates() {
  // A module named in the environment is the one to use, or none.
  if (const char* named = std::getenv("SINKSCOPE_TORCH_RUNTIME"); named && *named)
    return {fs::path(named)};
  std::vector<fs::path> out;
  if (const fs::path& here = ownFolderAtStart; !here.empty()) {
    out.push_back(here / ".." / "lib" / "sinkscope" / kModuleName);  // bin/
    out.push_back(here / ".." / ".." / ".." / "sinkscope" /
                  kModuleName);  // dist-packages/sinkscope/
  }
#ifdef SINKSCOPE_TORCH_RUNTIME_BUILT
  out.emplace_back(SINKSCOPE_TORCH_RUNTIME_BUILT);
#endif
  return out;
}

const TorchRuntime& torch_runtime() {
  std::call_once(loadOnce, [] {
    loaded = load_module();
    if (loaded.runtime) {
      // The thread count set before the load reaches libtorch's pool, and so
      // does every later one.
      loaded.runtime->setThreads(cpu_threads());
      set_cpu_threads_listener(loaded.runtime->setThreads);
      isLoaded = true;
    }
  });
  if (!loaded.runtime) throw ModelLoadError(loaded.error);
  return *loaded.runtime;
}

bool torch_runtime_loaded() { return isLoaded; }

TrainResult train_model(const TrainOptions& options, const ProgressFn& progress,
                        const std::function<void(const TrainLogRow&)>& onLog) {
  return torch_runtime().trainModel(options, progress, onLog);
}

std::vector<FisherLayer> fisher_per_layer(const Model& model, const std::vector<int>& ids,
                                          const ProgressFn& progress) {
  return torch_runtime().fisherPerLayer(model, ids, progress);
}

}  // namespace sinkscope::models
