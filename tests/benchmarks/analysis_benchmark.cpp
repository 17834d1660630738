// The analysis core on a whole model: every per-head metric
// of metrics.md sections 1, 2, 3, 6 and 7 for all 144 heads of a 12 x 12 model,
// on one core and on every core, and exact persistence against GUDHI on the
// same matrices. Run by hand (targets belong here, never in tests):
//   build/tests/analysis_benchmark
#include <benchmark/benchmark.h>

#include <iostream>  // GUDHI uses std::cout without including it

#include <gudhi/Persistent_cohomology.h>
#include <gudhi/Rips_complex.h>
#include <gudhi/Simplex_tree.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <unistd.h>
#include <random>
#include <thread>

#include "analysis/head_analysis.h"

namespace {

using namespace sinkscope::analysis;

constexpr int kLayers = 12, kHeads = 12, kHeadDim = 64;

struct Model {
  std::vector<AttentionMatrix> maps;       // kLayers * kHeads
  std::vector<std::vector<float>> values;  // [T][kHeadDim] per head
};

// Causal maps with a first-token sink of varying strength, Gaussian values.
const Model& model_at(int T) {
  static std::map<int, Model> cache;
  auto& m = cache[T];
  if (!m.maps.empty()) return m;
  std::mt19937 rng(static_cast<unsigned>(T));
  std::normal_distribution<float> g(0.0f, 1.0f);
  for (int k = 0; k < kLayers * kHeads; ++k) {
    AttentionMatrix a{std::vector<float>(static_cast<std::size_t>(T) * T, 0.0f), T, true};
    const float sink = static_cast<float>(k % 5);
    for (int i = 0; i < T; ++i) {
      float z = 0;
      for (int j = 0; j <= i; ++j)
        z += (a.weights[static_cast<std::size_t>(i) * T + j] =
                  std::exp(1.5f * g(rng) + (j == 0 ? sink : 0.0f)));
      for (int j = 0; j <= i; ++j) a.weights[static_cast<std::size_t>(i) * T + j] /= z;
    }
    std::vector<float> v(static_cast<std::size_t>(T) * kHeadDim);
    for (auto& x : v) x = g(rng);
    m.maps.push_back(std::move(a));
    m.values.push_back(std::move(v));
  }
  return m;
}

// `curve`: also the F_N curve over every N with its random baseline, as
// `analyze` computes it for every head (value_space_curve.csv).
void analyse_model(const Model& m, int threads, bool curve = false) {
  std::vector<HeadAnalysis> out(m.maps.size());
  std::vector<ValueSpaceCurve> curves(m.maps.size());
  parallel_for(
      static_cast<int>(m.maps.size()),
      [&](int k) {
        const auto i = static_cast<std::size_t>(k);
        out[i] = analyse_head(m.maps[i].view(), m.values[i], kHeadDim);
        if (curve) curves[i] = value_space_curve(m.maps[i].view(), m.values[i], kHeadDim);
      },
      threads);
  benchmark::DoNotOptimize(out);
  benchmark::DoNotOptimize(curves);
}

// All 144 heads, sections 1, 2, 3, 6, 7 (goal at T = 64: under 100 ms on one core).
void BM_AllHeadsOneCore(benchmark::State& state) {
  const Model& m = model_at(static_cast<int>(state.range(0)));
  for (auto _ : state) analyse_model(m, 1);
}
BENCHMARK(BM_AllHeadsOneCore)
    ->Arg(64)
    ->Arg(256)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.5);

// The same with the F_N curve of every head (the benchmark goal counts it).
void BM_AllHeadsWithCurveOneCore(benchmark::State& state) {
  const Model& m = model_at(static_cast<int>(state.range(0)));
  for (auto _ : state) analyse_model(m, 1, true);
}
BENCHMARK(BM_AllHeadsWithCurveOneCore)->Arg(64)->Arg(256)->Unit(benchmark::kMillisecond)->MinTime(0.5);

void BM_AllHeadsEveryCore(benchmark::State& state) {
  const Model& m = model_at(static_cast<int>(state.range(0)));
  for (auto _ : state) analyse_model(m, 0);
  state.counters["threads"] = std::thread::hardware_concurrency();
}
BENCHMARK(BM_AllHeadsEveryCore)
    ->Arg(64)
    ->Arg(256)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.5)
    ->UseRealTime();

// One section at a time, one head, to see where the time goes.
void BM_Section(benchmark::State& state) {
  const int T = static_cast<int>(state.range(0)), section = static_cast<int>(state.range(1));
  const Model& m = model_at(T);
  const AttentionView a = m.maps[7].view();
  for (auto _ : state) {
    switch (section) {
      case 1:
        benchmark::DoNotOptimize(sink_set(a));
        benchmark::DoNotOptimize(head_diagnostics_mean(a, 3));
        break;
      case 2:
        benchmark::DoNotOptimize(persistence_rips(attention_distances(a), T));
        break;
      case 3:
        // As analyse_head: both Laplacians, eigenvalues only.
        for (double t : kDefaultGraphThresholds)
          benchmark::DoNotOptimize(graph_spectrum_pair(a, t, false));
        break;
      case 6:
        benchmark::DoNotOptimize(value_space(a, m.values[7], kHeadDim));
        break;
      case 7:
        benchmark::DoNotOptimize(taxonomy_votes(a, m.values[7], kHeadDim));
        break;
      case 8:  // the F_N curve over every N with its random baseline (analyze's curve)
        benchmark::DoNotOptimize(value_space_curve(a, m.values[7], kHeadDim));
        break;
    }
  }
  state.SetLabel("section " + std::to_string(section));
}
BENCHMARK(BM_Section)->ArgsProduct({{64, 256, 1024}, {1, 2, 3, 6, 7, 8}})->Unit(benchmark::kMicrosecond);

// Persistence on the same distance matrix: ours, then GUDHI (ratio = GUDHI / ours).
struct DoubleFiltration : Gudhi::Simplex_tree_options_fast_persistence {
  typedef double Filtration_value;
};
using SimplexTree = Gudhi::Simplex_tree<DoubleFiltration>;

void BM_PersistenceOurs(benchmark::State& state) {
  const int T = static_cast<int>(state.range(0));
  const auto d = attention_distances(model_at(T).maps[7].view());
  for (auto _ : state) benchmark::DoNotOptimize(persistence_rips(d, T));
}
BENCHMARK(BM_PersistenceOurs)->Arg(64)->Arg(128)->Arg(256)->Unit(benchmark::kMillisecond);

void BM_PersistenceGudhi(benchmark::State& state) {
  const int T = static_cast<int>(state.range(0));
  const auto d = attention_distances(model_at(T).maps[7].view());
  std::vector<std::vector<double>> lower(static_cast<std::size_t>(T));
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < i; ++j)
      lower[static_cast<std::size_t>(i)].push_back(d[static_cast<std::size_t>(i) * T + j]);
  for (auto _ : state) {
    Gudhi::rips_complex::Rips_complex<double> rips(lower, 1.0);
    SimplexTree st;
    rips.create_complex(st, 2);
    Gudhi::persistent_cohomology::Persistent_cohomology<SimplexTree,
                                                        Gudhi::persistent_cohomology::Field_Zp>
        pcoh(st);
    pcoh.init_coefficients(2);
    pcoh.compute_persistent_cohomology(0.0);
    benchmark::DoNotOptimize(pcoh.intervals_in_dimension(1));
  }
}
BENCHMARK(BM_PersistenceGudhi)->Arg(64)->Arg(128)->Arg(256)->Unit(benchmark::kMillisecond);

// Debian's ripser (1.2.1, the command) on the same matrix, H0 and H1, written
// once as a lower-triangular text file; each iteration is one process, so
// BM_RipserProcess (a 2-token matrix) is the start-up to subtract.
std::string ripser_input(int T) {
  const auto d = attention_distances(model_at(T).maps[7].view());
  const std::string file = "/tmp/sinkscope-ripser-" + std::to_string(::getpid()) + "-" +
                           std::to_string(T) + ".txt";
  std::ofstream out(file);
  out.precision(17);
  for (int i = 1; i < T; ++i) {
    for (int j = 0; j < i; ++j) out << (j ? "," : "") << d[static_cast<std::size_t>(i) * T + j];
    out << "\n";
  }
  return file;
}

void run_ripser(benchmark::State& state, int T) {
  const std::string file = ripser_input(T);
  const std::string command = "ripser --dim 1 --format lower-distance " + file + " > /dev/null";
  for (auto _ : state)
    if (std::system(command.c_str()) != 0) {
      state.SkipWithError("ripser failed (installer/install-bench-deps.sh installs it)");
      break;
    }
  std::remove(file.c_str());
}

void BM_PersistenceRipser(benchmark::State& state) { run_ripser(state, static_cast<int>(state.range(0))); }
BENCHMARK(BM_PersistenceRipser)->Arg(64)->Arg(128)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_RipserProcess(benchmark::State& state) { run_ripser(state, 2); }

// Persistence of a distance matrix read from $SINKSCOPE_BENCH_DISTANCES (text:
// n, then n * n numbers): how pipeline_compare.py times ours on a map of the
// model it runs, beside Ripser and GUDHI on the same matrix.
void BM_PersistenceFile(benchmark::State& state) {
  const char* file = std::getenv("SINKSCOPE_BENCH_DISTANCES");
  std::ifstream in(file ? file : "");
  int n = 0;
  if (!(in >> n) || n < 1 || n > 4096) {
    state.SkipWithError("set SINKSCOPE_BENCH_DISTANCES to a matrix file (pipeline_compare.py)");
    return;
  }
  std::vector<double> d(static_cast<std::size_t>(n) * n);
  for (double& x : d)
    if (!(in >> x)) {
      state.SkipWithError("the matrix file ends early");
      return;
    }
  for (auto _ : state) benchmark::DoNotOptimize(persistence_rips(d, n));
  state.counters["tokens"] = n;
}
BENCHMARK(BM_PersistenceFile)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RipserProcess)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
