// Forward pass with full capture against a plain forward pass, folder load
// time, and peak memory with a capture budget, on a random-weight folder
// shaped like GPT-2 small (12 layers, 12 heads, d = 768, vocabulary 50257).
// Run by hand: build/tests/model_benchmark (the folder, ~500 MB, is written
// once to $TMPDIR/sinkscope-bench-gpt2-small). Figures: docs/performance.md.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <filesystem>

#include "models/model.h"
#include "models/model_writer.h"

namespace fs = std::filesystem;
using namespace sinkscope::models;

namespace {

const fs::path& folder() {
  static const fs::path path = [] {
    const fs::path p = fs::temp_directory_path() / "sinkscope-bench-gpt2-small";
    if (!fs::exists(p / "model.safetensors")) {
      RandomModelSpec s = random_model_spec_for("gpt2");
      s.layers = 12;
      s.heads = 12;
      s.hidden = 768;
      s.intermediate = 3072;
      s.vocab = 50257;
      s.max_positions = 1024;
      s.weight_std = 0.02;
      s.legacy_buffers = false;
      model_folder_write_random(p, s);
    }
    return p;
  }();
  return path;
}

std::shared_ptr<Model> model() {
  static const auto m = Model::load(folder());
  return m;
}

std::vector<int> ids(int T) {
  std::vector<int> v(static_cast<std::size_t>(T));
  for (int i = 0; i < T; ++i) v[static_cast<std::size_t>(i)] = (i * 7919 + 13) % 50257;
  return v;
}

void BM_ForwardPlain(benchmark::State& state) {
  const auto m = model();
  const auto input = ids(static_cast<int>(state.range(0)));
  RunOptions plain;
  plain.capture = false;
  for (auto _ : state) benchmark::DoNotOptimize(m->run(input, plain));
}

void BM_ForwardFullCapture(benchmark::State& state) {
  const auto m = model();
  const auto input = ids(static_cast<int>(state.range(0)));
  RunOptions full;
  full.capture_budget_bytes = std::size_t{64} << 30;
  for (auto _ : state) benchmark::DoNotOptimize(m->run(input, full));
}

void BM_LoadWarm(benchmark::State& state) {
  Model::load(folder());  // warm the page cache
  for (auto _ : state) benchmark::DoNotOptimize(Model::load(folder()));
}

void BM_PeakMemoryBudget256MB(benchmark::State& state) {
  const auto m = model();
  const auto input = ids(1024);
  RunOptions budget;
  budget.capture_budget_bytes = std::size_t{256} << 20;
  for (auto _ : state) {
    const Trace t = m->run(input, budget);
    benchmark::DoNotOptimize(t.layer(5));  // one layer recomputed on demand
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["peak_rss_MiB"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
}

}  // namespace

BENCHMARK(BM_ForwardPlain)
    ->Arg(64)
    ->Arg(512)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);
BENCHMARK(BM_ForwardFullCapture)
    ->Arg(64)
    ->Arg(512)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);
BENCHMARK(BM_LoadWarm)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PeakMemoryBudget256MB)->Unit(benchmark::kMillisecond)->Iterations(2);
