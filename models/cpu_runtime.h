#pragma once
// The CPU side of the runtime, set once at the start of main(): which OpenBLAS
// kernels run the matrix products, and how many threads do the work.
#include <string>

namespace sinkscope::models {

// OpenBLAS 0.3.21 (Debian 12's) does not recognise some newer CPUs: some
// Intel ones get its Prescott (SSE3) kernels, which run GPT-2 small's forward
// pass 2.7x slower than its AVX-512 ones; AMD's Zen 4 gets its AVX2 (Haswell)
// kernels although it has AVX-512, and those give numbers that change with
// the thread count. When the user has not chosen a core (OPENBLAS_CORETYPE)
// and such a fallback is active, OpenBLAS's own core selection is run again
// with the matching core named (SkylakeX on every AVX-512 machine, so that
// every such machine computes the same numbers). Must run before any BLAS
// call. Returns what it did ("Haswell -> SkylakeX"), or an empty string when
// nothing was needed or the BLAS in use is not OpenBLAS.
std::string fix_blas_core();

// Who chose the OpenBLAS kernel in use, for `info`: "OPENBLAS_CORETYPE",
// "OpenBLAS's detection", or what fix_blas_core changed ("SinkScope: OpenBLAS
// chose Prescott"); empty when the BLAS is not OpenBLAS.
std::string blas_core_chooser();

// Large temporaries of a forward pass (a [H, T, T] score tensor is 48 MB at
// T = 1024) are freed after each layer; glibc returns every block over 32 MB
// to the kernel with munmap, so the next layer faults its pages in again
// (GPT-2 small at T = 1024: a third of the pass). Keeping freed memory in the
// heap (no mmap for large blocks, no trimming) makes later layers and later
// runs reuse it. Peak memory is unchanged; memory freed after a peak stays with
// the process until it ends. Called at the start of main().
void keep_freed_memory();

// Gives the heap's free pages back to the kernel (malloc_trim): called when a
// forward pass ends, so memory a pass freed does not stay with a long-lived
// process (the GUI) between runs.
void release_freed_memory();

// The OpenBLAS core in use ("SkylakeX"), or "" when the BLAS is not OpenBLAS.
std::string blas_core_name();

// Threads for the forward pass (libtorch's intra-op pool) and for per-head
// analysis: every core unless set. `threads` <= 0 means every core.
// SINKSCOPE_THREADS in the environment sets it for any command.
void set_cpu_threads(int threads);
int cpu_threads();

// Called with every later set_cpu_threads count (the model runtime, once
// loaded, passes it to libtorch's pool).
void set_cpu_threads_listener(void (*listener)(int));

// Whether the BLAS in the process is OpenBLAS (whose own threads then run the
// products, and libtorch's pool keeps one thread).
bool blas_is_openblas();

// While it lives, OpenBLAS runs each product on one thread (per-head analysis
// keeps its threads): some kernels (OpenBLAS's AVX2 ones among them) round a
// product differently when its work is split between threads, and numbers
// pooled over a corpus must not depend on --threads.
class SingleThreadedBlas {
 public:
  SingleThreadedBlas();
  ~SingleThreadedBlas();
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;
};

// The threads OpenBLAS runs a product on now: 1 inside SingleThreadedBlas,
// else the thread setting.
int blas_thread_count();

// Every core, or SINKSCOPE_THREADS (a positive integer) when set: what both
// programs apply at start (Debian's libtorch alone starts with one intra-op
// thread). Returns an error message for a bad value, "" otherwise.
std::string apply_thread_environment();

// What every program that runs models does first, before any BLAS call:
// fix_blas_core, keep_freed_memory and apply_thread_environment. Returns the
// latter's error message ("" when SINKSCOPE_THREADS is absent or valid).
std::string configure_cpu_runtime();

}  // namespace sinkscope::models
