// Forward pass with full capture against a plain forward pass, folder load
// time, and peak memory with a capture budget, on a random-weight folder
// shaped like GPT-2 small (12 layers, 12 heads, d = 768, vocabulary 50257).
// Run by hand: build/tests/model_benchmark (the folder, ~500 MB, is written
// once to $TMPDIR/sinkscope-bench-gpt2-small). Figures: docs/performance.md.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cstdlib>
#include <filesystem>

#include "models/cpu_runtime.h"
#include "models/experiments.h"
#include "models/model.h"
#include "models/model_writer.h"

namespace fs = std::filesystem;
using namespace sinkscope::models;

namespace {

// The kernels the app runs with (main() of both programs does the same).
const std::string runtimeSetup = configure_cpu_runtime();

// GPT-2 small's shape; `vocab` other than 50257 gives the same 12 x 12 model
// with a small vocabulary (where the output projection no longer dominates).
fs::path write_folder(int vocab) {
    const fs::path p = fs::temp_directory_path() /
                       (vocab == 50257 ? std::string("sinkscope-bench-gpt2-small")
                                       : "sinkscope-bench-12x12-vocab" + std::to_string(vocab));
    if (!fs::exists(p / "model.safetensors")) {
      RandomModelSpec s = random_model_spec_for("gpt2");
      s.layers = 12;
      s.heads = 12;
      s.hidden = 768;
      s.intermediate = 3072;
      s.vocab = vocab;
      s.max_positions = 1024;
      s.weight_std = 0.02;
      s.legacy_buffers = false;
      model_folder_write_random(p, s);
    }
    return p;
}

const fs::path& folder() {
  static const fs::path path = write_folder(50257);
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

// A plain forward pass (logits at every position, as a Hugging Face forward
// returns them) of the folder $SINKSCOPE_BENCH_MODEL, e.g. one written by
// `sinkscope-cli random-model --like llama-3.2-3b DIR`; registered only when
// that variable is set (tests/benchmarks/real_forward_compare.py sets it).
// range(1): 0 computes in float32, 1 in the folder's stored dtype (--precision stored).
void BM_ForwardFolder(benchmark::State& state) {
  static const auto exact = Model::load(std::getenv("SINKSCOPE_BENCH_MODEL"));
  static const auto stored = [] {
    LoadOptions o;
    o.precision = ComputePrecision::Stored;
    return Model::load(std::getenv("SINKSCOPE_BENCH_MODEL"), o);
  }();
  const auto& m = state.range(1) == 1 ? stored : exact;
  std::vector<int> input(static_cast<std::size_t>(state.range(0)));
  for (std::size_t i = 0; i < input.size(); ++i)
    input[i] = static_cast<int>((i * 7919 + 13) % 250);  // ids every shape's tokenizer has
  RunOptions plain;
  plain.capture = false;
  for (auto _ : state) benchmark::DoNotOptimize(m->run(input, plain));
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["peak_rss_MiB"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
  state.SetLabel("compute " + m->computeDtype());
}

const bool folderBenchmark = [] {
  if (std::getenv("SINKSCOPE_BENCH_MODEL"))
    benchmark::RegisterBenchmark("BM_ForwardFolder", BM_ForwardFolder)
        ->ArgsProduct({{128, 512}, {0, 1}})
        ->Unit(benchmark::kMillisecond)
        ->Iterations(3);
  return true;
}();

}  // namespace

BENCHMARK(BM_ForwardPlain)
    ->Arg(64)
    ->Arg(256)
    ->Arg(512)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);
BENCHMARK(BM_ForwardFullCapture)
    ->Arg(64)
    ->Arg(256)
    ->Arg(512)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);
// The single-head ablation sweep: all 144 heads at T = 64, each run
// starting at the head's layer from the captured residual stream, against full
// re-runs (goal: >= 1.8x faster).
// Arguments: reuse (0 or 1), vocabulary.
void BM_AblationSweep(benchmark::State& state) {
  const int vocab = static_cast<int>(state.range(1));
  const auto m = vocab == 50257 ? model() : Model::load(write_folder(vocab));
  std::vector<int> input = ids(64);
  for (int& id : input) id %= vocab;
  const Trace base = m->run(input);
  const bool reuse = state.range(0) == 1;
  for (auto _ : state) benchmark::DoNotOptimize(head_ablation_dnll(*m, base, reuse));
  state.SetLabel(reuse ? "from the captured layer" : "full re-runs");
}
BENCHMARK(BM_AblationSweep)
    ->ArgsProduct({{0, 1}, {50257, 4096}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(2)
    ->ReportAggregatesOnly(true);

// Corpus studies: 16 sentences of one length, attention
// captured without the output head, one pass each against one batched pass.
// Arguments: T, batched (0 or 1). Time per 16 sentences.
void BM_SixteenSentences(benchmark::State& state) {
  const auto m = model();
  std::vector<std::vector<int>> inputs;
  for (int s = 0; s < 16; ++s) {
    std::vector<int> v = ids(static_cast<int>(state.range(0)));
    for (int& id : v) id = (id + 31 * s) % 50257;
    inputs.push_back(std::move(v));
  }
  const RunOptions options = RunOptions::attention_only();
  const bool batched = state.range(1) == 1;
  for (auto _ : state) {
    if (batched) {
      benchmark::DoNotOptimize(m->runBatch(inputs, options));
    } else {
      for (const auto& input : inputs) benchmark::DoNotOptimize(m->run(input, options));
    }
  }
  state.SetLabel(batched ? "one batched pass" : "one pass each");
}
BENCHMARK(BM_SixteenSentences)
    ->ArgsProduct({{16, 64}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);

BENCHMARK(BM_LoadWarm)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PeakMemoryBudget256MB)->Unit(benchmark::kMillisecond)->Iterations(2);
