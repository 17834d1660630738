// How the sink metric scales with sequence length (run by hand:
// build/tests/sink_metric_benchmark). Targets belong here, never in tests.
#include <benchmark/benchmark.h>

#include "analysis/attention_matrix.h"
#include "analysis/sink_metric.h"

namespace {
void BM_SinkKeyImportance(benchmark::State& state) {
  const auto T = static_cast<int>(state.range(0));
  const auto m = sinkscope::analysis::attention_uniform(T, true);
  for (auto _ : state) benchmark::DoNotOptimize(sinkscope::analysis::sink_key_importance(m.view()));
  state.SetComplexityN(T);
}
BENCHMARK(BM_SinkKeyImportance)
    ->RangeMultiplier(4)
    ->Range(16, 2048)
    ->Complexity(benchmark::oNSquared);
}  // namespace

#include <random>

#include "analysis/persistence.h"

namespace {
// Exact H0 + H1 of the Rips filtration of a random causal attention map.
void BM_PersistenceRips(benchmark::State& state) {
  const auto T = static_cast<int>(state.range(0));
  std::mt19937 rng(1);
  std::exponential_distribution<float> e(1.0f);
  sinkscope::analysis::AttentionMatrix m{std::vector<float>(static_cast<std::size_t>(T) * T, 0.0f),
                                         T, true};
  for (int i = 0; i < T; ++i) {
    float z = 0;
    for (int j = 0; j <= i; ++j)
      z += (m.weights[static_cast<std::size_t>(i) * T + j] = e(rng) + (j == 0 ? 3.0f : 0.0f));
    for (int j = 0; j <= i; ++j) m.weights[static_cast<std::size_t>(i) * T + j] /= z;
  }
  const auto d = sinkscope::analysis::attention_distances(m.view());
  for (auto _ : state) benchmark::DoNotOptimize(sinkscope::analysis::persistence_rips(d, T));
}
BENCHMARK(BM_PersistenceRips)->Arg(64)->Arg(128)->Arg(256)->Arg(512)->Unit(benchmark::kMillisecond);
}  // namespace
