#include "models/runtime_info.h"

#include <torch/version.h>  // a header of macros: the version, without the library

#include "models/cpu_runtime.h"
#include "models/torch_runtime.h"

namespace sinkscope::models {

RuntimeInfo runtime_info_query() {
#if SINKSCOPE_TORCH_CUDA
  // Whether a device is there is asked of the runtime itself.
  RuntimeInfo info = torch_runtime().runtimeInfo();
#else
  // A libtorch built without CUDA runs on the CPU: known without loading it.
  RuntimeInfo info;
  info.torch_version = TORCH_VERSION;
#endif
  info.cpu_threads = cpu_threads();
  return info;
}

std::string runtime_device_label(const RuntimeInfo& info) {
  if (info.cuda_available) {
    const int n = info.cuda_device_count;
    return "CUDA (" + std::to_string(n) + (n == 1 ? " device)" : " devices)");
  }
  const int t = info.cpu_threads;
  return "CPU (" + std::to_string(t) + (t == 1 ? " thread)" : " threads)");
}

}  // namespace sinkscope::models
