#pragma once
// What the linked libtorch can run on, for the status bar and `sinkscope-cli info`.
#include <string>

namespace sinkscope::models {

struct RuntimeInfo {
  std::string torch_version;  // e.g. "1.13.0"
  bool cuda_available = false;
  int cuda_device_count = 0;
  int cpu_threads = 1;  // threads for forward passes and analysis (models::cpu_threads)
};

RuntimeInfo runtime_info_query();

// "CPU (4 threads)" or "CUDA (1 device)": the device a forward pass would use.
std::string runtime_device_label(const RuntimeInfo& info);

}  // namespace sinkscope::models
