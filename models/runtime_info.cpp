#include "models/runtime_info.h"

#include <ATen/Parallel.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include "models/cpu_runtime.h"

namespace sinkscope::models {

RuntimeInfo runtime_info_query() {
  RuntimeInfo info;
  info.torch_version = TORCH_VERSION;
  info.cuda_available = torch::cuda::is_available();
  info.cuda_device_count = info.cuda_available ? static_cast<int>(torch::cuda::device_count()) : 0;
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
