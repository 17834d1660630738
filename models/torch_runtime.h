#pragma once
// The model runtime: loading models, forward passes, training and Fisher
// information, all of it on libtorch, built as a module of its own
// (sinkscope_torch.so) and loaded into the process on the first call that
// needs it. Loading Debian's libtorch costs about a second (it brings ~286
// libraries); a command, test or Python call that runs no model (help, a
// capture's analysis, numpy arrays) now never pays it.
//
// The module keeps its own copies of the libraries it uses (analysis, model
// files), private to it: state the two sides share (thread counts) crosses
// through this table, and nothing else does.
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/fisher.h"
#include "models/model.h"
#include "models/runtime_info.h"
#include "models/trainer.h"

namespace sinkscope::models {

// Bumped whenever the table or a type crossing it changes: a program and a
// module of another build refuse each other instead of misreading memory.
inline constexpr int kTorchRuntimeVersion = 1;

struct TorchRuntime {
  int version = 0;
  std::shared_ptr<Model> (*loadModel)(const std::filesystem::path& folder,
                                      const LoadOptions& options) = nullptr;
  TrainResult (*trainModel)(const TrainOptions& options, const ProgressFn& progress,
                            const std::function<void(const TrainLogRow&)>& onLog) = nullptr;
  std::vector<FisherLayer> (*fisherPerLayer)(const Model& model, const std::vector<int>& ids,
                                             const ProgressFn& progress) = nullptr;
  RuntimeInfo (*runtimeInfo)() = nullptr;
  // The thread count of the process (set_cpu_threads), for libtorch's pool.
  void (*setThreads)(int threads) = nullptr;
};

// The entry point the module exports (extern "C", so dlsym finds it by name).
inline constexpr const char* kTorchRuntimeEntry = "sinkscope_torch_runtime";

// The runtime, loaded on the first call (thread-safe). Throws ModelLoadError
// naming the module and the loader's reason when it cannot be loaded.
const TorchRuntime& torch_runtime();

// Whether the runtime (and with it libtorch) is in the process.
bool torch_runtime_loaded();

// Where the module is looked for: $SINKSCOPE_TORCH_RUNTIME alone when set;
// else, in order, beside the program or library holding this code as
// installed (bin/ -> lib/sinkscope/, the Python package's folder ->
// lib/sinkscope/), then the build tree.
std::vector<std::filesystem::path> torch_runtime_candidates();

}  // namespace sinkscope::models
