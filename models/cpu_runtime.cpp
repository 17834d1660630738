#include "models/cpu_runtime.h"

#include <dlfcn.h>
#include <link.h>
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "analysis/head_analysis.h"

namespace sinkscope::models {

namespace {

// OpenBLAS's entry points, looked up at run time: another BLAS (Debian's
// alternatives) has none of them, and then nothing is changed. (Debian's
// libblas.so.3 and libopenblas.so.0 are one OpenBLAS: the first forwards to
// the second, so one lookup reaches the kernels libtorch calls.)
// Python loads extension modules, and the BLAS they bring, outside the
// global scope, where RTLD_DEFAULT does not look: there the loaded OpenBLAS
// is found by its file name and asked directly.
void* loaded_openblas() {
  std::vector<std::string> names;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* found) {
        const std::string name = info->dlpi_name ? info->dlpi_name : "";
        if (name.find("openblas") != std::string::npos)
          static_cast<std::vector<std::string>*>(found)->push_back(name);
        return 0;
      },
      &names);
  for (const std::string& name : names)  // dlopen outside the iteration's lock
    if (void* handle = dlopen(name.c_str(), RTLD_NOLOAD | RTLD_LAZY)) return handle;
  return nullptr;
}

template <class F>
F* openblas_symbol(const char* name) {
  if (void* global = dlsym(RTLD_DEFAULT, name)) return reinterpret_cast<F*>(global);
  static std::atomic<void*> library{nullptr};
  if (!library.load()) library = loaded_openblas();  // kept open: OpenBLAS is never unloaded
  return library.load() ? reinterpret_cast<F*>(dlsym(library.load(), name)) : nullptr;
}

void blas_threads_set(int n) {
  if (auto* set = openblas_symbol<void(int)>("openblas_set_num_threads")) set(n);
}

}  // namespace

void keep_freed_memory() {
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
}

void release_freed_memory() { malloc_trim(0); }

std::string blas_core_name() {
  auto* corename = openblas_symbol<char*()>("openblas_get_corename");
  return corename ? std::string(corename()) : std::string();
}

namespace {
std::string coreFixed;  // what fix_blas_core changed, "" when nothing
}  // namespace

std::string blas_core_chooser() {
  if (blas_core_name().empty()) return {};
  if (!coreFixed.empty()) return "SinkScope (OpenBLAS chose " + coreFixed + " on this CPU)";
  const char* named = std::getenv("OPENBLAS_CORETYPE");
  return named && *named ? "OPENBLAS_CORETYPE" : "OpenBLAS's detection";
}

std::string fix_blas_core() {
  if (std::getenv("OPENBLAS_CORETYPE")) return {};  // the user's choice stands
  const std::string before = blas_core_name();
  __builtin_cpu_init();
  // SkylakeX's kernels use AVX-512 F, BW, DQ and VL.
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  const char* core = avx512 ? "SkylakeX" : __builtin_cpu_supports("avx2") ? "Haswell" : nullptr;
  const bool fallback =
      before == "Prescott" ||
      (avx512 && (before == "Haswell" || before == "Zen" || before == "Sandybridge"));
  auto* quit = openblas_symbol<void()>("gotoblas_dynamic_quit");
  auto* init = openblas_symbol<void()>("gotoblas_dynamic_init");
  if (!fallback || !core || !quit || !init) return {};  // detection worked (or not OpenBLAS)
  // OpenBLAS reads OPENBLAS_CORETYPE in its core selection; set only for it.
  setenv("OPENBLAS_CORETYPE", core, 1);
  quit();
  init();
  unsetenv("OPENBLAS_CORETYPE");
  coreFixed = before;
  return before + " -> " + blas_core_name();
}

namespace {
std::atomic<int> threadSetting{0};
std::atomic<void (*)(int)> threadListener{nullptr};

int configured_threads() {
  const int set = threadSetting.load();
  return set > 0 ? set : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}
}  // namespace

void set_cpu_threads(int threads) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int n = threads > 0 ? threads : cores;
  threadSetting = n;
  analysis::set_default_thread_count(n);
  // With OpenBLAS the matrix products, nearly all of a forward pass, run on
  // OpenBLAS's own threads (libtorch's pool keeps one thread: the model
  // runtime's setThreads); any other BLAS leaves them to libtorch's pool.
  blas_threads_set(n);
  if (auto* listener = threadListener.load()) listener(n);
}

void set_cpu_threads_listener(void (*listener)(int)) { threadListener = listener; }

bool blas_is_openblas() {
  return openblas_symbol<void(int)>("openblas_set_num_threads") != nullptr;
}

namespace {
std::atomic<int> singleThreadedDepth{0};  // scopes may nest (a figure set runs a corpus)
}  // namespace

SingleThreadedBlas::SingleThreadedBlas() {
  if (singleThreadedDepth++ > 0) return;
  blas_threads_set(1);
}

SingleThreadedBlas::~SingleThreadedBlas() {
  if (--singleThreadedDepth > 0) return;
  blas_threads_set(configured_threads());
}

int blas_thread_count() {
  // OpenBLAS's own count is the one state every copy of this code sees (the
  // model runtime keeps its own copy: models/torch_runtime.h).
  if (auto* get = openblas_symbol<int()>("openblas_get_num_threads")) return get();
  if (singleThreadedDepth.load() > 0) return 1;
  return configured_threads();
}

int cpu_threads() { return configured_threads(); }

std::string configure_cpu_runtime() {
  fix_blas_core();
  keep_freed_memory();
  return apply_thread_environment();
}

std::string apply_thread_environment() {
  const char* text = std::getenv("SINKSCOPE_THREADS");
  if (!text || !*text) {
    set_cpu_threads(0);
    return {};
  }
  char* end = nullptr;
  const long n = std::strtol(text, &end, 10);
  if (*end != '\0' || n < 1 || n > 1024)
    return "SINKSCOPE_THREADS: \"" + std::string(text) + "\" is not a thread count from 1 to 1024";
  set_cpu_threads(static_cast<int>(n));
  return {};
}

}  // namespace sinkscope::models
