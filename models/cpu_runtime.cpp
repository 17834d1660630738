#include "models/cpu_runtime.h"

#include <ATen/Parallel.h>
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

// OpenBLAS's entry points in one loaded copy of it.
struct OpenBlas {
  char* (*corename)() = nullptr;
  void (*quit)() = nullptr;
  void (*init)() = nullptr;
  void (*setThreads)(int) = nullptr;
};

// Every OpenBLAS in the process, looked up at run time: Debian loads two
// copies side by side (libblas.so.3, the BLAS alternative libtorch calls, and
// libopenblas.so.0, which LAPACK links), each with its own kernels and
// threads. Another BLAS has none of these entry points: the list is empty.
std::vector<OpenBlas> openblas_copies() {
  std::vector<std::string> names;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        const std::string name = info->dlpi_name ? info->dlpi_name : "";
        if (name.find("blas") != std::string::npos)
          static_cast<std::vector<std::string>*>(data)->push_back(name);
        return 0;
      },
      &names);
  std::vector<OpenBlas> copies;
  for (const std::string& name : names) {
    void* handle = dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!handle) continue;
    OpenBlas b;
    b.corename = reinterpret_cast<char* (*)()>(dlsym(handle, "openblas_get_corename"));
    b.quit = reinterpret_cast<void (*)()>(dlsym(handle, "gotoblas_dynamic_quit"));
    b.init = reinterpret_cast<void (*)()>(dlsym(handle, "gotoblas_dynamic_init"));
    b.setThreads = reinterpret_cast<void (*)(int)>(dlsym(handle, "openblas_set_num_threads"));
    dlclose(handle);  // still loaded: the process linked it
    const bool known = std::any_of(copies.begin(), copies.end(),
                                   [&](const OpenBlas& c) { return c.corename == b.corename; });
    if (b.corename && !known) copies.push_back(b);
  }
  return copies;
}

}  // namespace

void keep_freed_memory() {
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
}

void release_freed_memory() { malloc_trim(0); }

std::string blas_core_name() {
  std::string names;
  for (const OpenBlas& b : openblas_copies()) {
    const std::string name = b.corename();
    if (names.find(name) == std::string::npos) names += (names.empty() ? "" : ", ") + name;
  }
  return names;
}

std::string fix_blas_core() {
  if (std::getenv("OPENBLAS_CORETYPE")) return {};  // the user's choice stands
  __builtin_cpu_init();
  // SkylakeX's kernels use AVX-512 F, BW, DQ and VL.
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  const char* core = avx512 ? "SkylakeX" : __builtin_cpu_supports("avx2") ? "Haswell" : nullptr;
  if (!core) return {};
  std::string done;
  for (const OpenBlas& b : openblas_copies()) {
    const std::string before = b.corename();
    const bool fallback =
        before == "Prescott" ||
        (avx512 && (before == "Haswell" || before == "Zen" || before == "Sandybridge"));
    if (!fallback || !b.quit || !b.init) continue;  // detection worked
    // OpenBLAS reads OPENBLAS_CORETYPE in its core selection; set only for it.
    setenv("OPENBLAS_CORETYPE", core, 1);
    b.quit();
    b.init();
    unsetenv("OPENBLAS_CORETYPE");
    const std::string now = before + " -> " + b.corename();
    if (done.find(now) == std::string::npos) done += (done.empty() ? "" : ", ") + now;
  }
  return done;
}

namespace {
std::atomic<int> threadSetting{0};
}  // namespace

void set_cpu_threads(int threads) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int n = threads > 0 ? threads : cores;
  threadSetting = n;
  analysis::set_default_thread_count(n);
  // With OpenBLAS the matrix products, nearly all of a forward pass, run on
  // OpenBLAS's own threads; libtorch's intra-op pool (OpenMP) beside them
  // makes the two pools fight for the cores (GPT-2 small at T = 64: 111 ms
  // with one libtorch thread, 340 ms with two, on two cores). Any other BLAS
  // gets libtorch's threads.
  const std::vector<OpenBlas> copies = openblas_copies();
  const bool openblas = std::any_of(copies.begin(), copies.end(),
                                    [](const OpenBlas& b) { return b.setThreads != nullptr; });
  if (openblas) {
    for (const OpenBlas& b : copies)
      if (b.setThreads) b.setThreads(n);
    at::set_num_threads(1);
  } else {
    at::set_num_threads(n);
  }
}

namespace {
std::atomic<int> singleThreadedDepth{0};  // scopes may nest (a figure set runs a corpus)
}  // namespace

SingleThreadedBlas::SingleThreadedBlas() {
  if (singleThreadedDepth++ > 0) return;
  for (const OpenBlas& b : openblas_copies())
    if (b.setThreads) b.setThreads(1);
}

SingleThreadedBlas::~SingleThreadedBlas() {
  if (--singleThreadedDepth > 0) return;
  const int n = blas_thread_count();
  for (const OpenBlas& b : openblas_copies())
    if (b.setThreads) b.setThreads(n);
}

int blas_thread_count() {
  if (singleThreadedDepth.load() > 0) return 1;
  const int set = threadSetting.load();
  return set > 0 ? set : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int cpu_threads() {
  const int n = threadSetting;
  return n > 0 ? n : at::get_num_threads();
}

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
