// The model runtime's entry point (models/torch_runtime.h): the table of its
// calls, which the program finds with dlsym after loading this module.
#include <ATen/Parallel.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include "models/cpu_runtime.h"
#include "models/internal/model_impl.h"
#include "models/torch_runtime.h"

namespace sinkscope::models {

RuntimeInfo torch_backend::runtime_info() {
  RuntimeInfo info;
  info.torch_version = TORCH_VERSION;
  info.cuda_available = torch::cuda::is_available();
  info.cuda_device_count = info.cuda_available ? static_cast<int>(torch::cuda::device_count()) : 0;
  info.cpu_threads = cpu_threads();
  return info;
}

namespace {

// The program's thread count, into this module's copy of the CPU settings
// and libtorch's pool. With OpenBLAS the matrix products, nearly all of a
// forward pass, run on OpenBLAS's own threads; libtorch's intra-op pool
// (OpenMP) beside them makes the two pools fight for the cores (GPT-2 small
// at T = 64: 111 ms with one libtorch thread, 340 ms with two, on two cores).
// Any other BLAS gets libtorch's threads.
void set_threads(int threads) {
  set_cpu_threads(threads);
  at::set_num_threads(blas_is_openblas() ? 1 : cpu_threads());
}

const TorchRuntime kRuntime{kTorchRuntimeVersion,         &torch_backend::load_model,
                            &torch_backend::train_model,  &torch_backend::fisher_per_layer,
                            &torch_backend::runtime_info, &set_threads};

}  // namespace

}  // namespace sinkscope::models

extern "C" __attribute__((visibility("default"))) const sinkscope::models::TorchRuntime*
sinkscope_torch_runtime() {
  return &sinkscope::models::kRuntime;
}
