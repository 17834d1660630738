#pragma once
// The numeric tests run again under other OpenBLAS kernels than the CPU's
// own (OPENBLAS_CORETYPE, tests/CMakeLists.txt), so that a run on one machine
// speaks for machines of other CPUs. A kernel this CPU cannot execute (AVX-512
// ones on an AVX2 CPU) would stop the program with an illegal instruction:
// such a run is skipped instead, saying why.
#include <cctype>
#include <cstdlib>
#include <string>

namespace sinkscope::testing {

// Why the kernel OPENBLAS_CORETYPE names cannot run here; "" when it can (or
// none is named, or the name is one this list does not know: OpenBLAS decides).
inline std::string blas_kernel_unavailable() {
  const char* named = std::getenv("OPENBLAS_CORETYPE");
  if (!named || !*named) return {};
  std::string kernel;
  for (const char* c = named; *c; ++c)
    kernel += static_cast<char>(std::tolower(static_cast<unsigned char>(*c)));
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  const bool ok = kernel == "skylakex"     ? avx512
                  : kernel == "cooperlake" ? avx512 && __builtin_cpu_supports("avx512bf16")
                  : kernel == "haswell" || kernel == "zen"
                      ? __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")
                  : kernel == "sandybridge" ? __builtin_cpu_supports("avx") != 0
                                            : true;
  return ok ? std::string()
            : "OPENBLAS_CORETYPE=" + std::string(named) +
                  " names a kernel whose instructions this CPU does not have";
}

}  // namespace sinkscope::testing
