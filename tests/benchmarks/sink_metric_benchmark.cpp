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
