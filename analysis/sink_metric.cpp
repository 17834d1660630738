#include "analysis/sink_metric.h"

#include <stdexcept>
#include <string>

namespace sinkscope::analysis {

std::vector<double> sink_key_importance(const AttentionView& attention) {
  attention_require_usable(attention, "sink_key_importance");
  const int T = attention.size;
  std::vector<double> alpha(static_cast<std::size_t>(T), 0.0);
  for (int k = 0; k < T; ++k) {
    double received = 0.0;
    for (int i = attention.causal ? k : 0; i < T; ++i) received += attention.at(i, k);
    alpha[static_cast<std::size_t>(k)] = received / attention.visible_query_count(k);
  }
  return alpha;
}

double sink_uniform_baseline(int size, int key, bool causal) {
  if (key < 0 || key >= size)
    throw std::out_of_range("sink_uniform_baseline: key " + std::to_string(key) + " outside 0.." +
                            std::to_string(size - 1));
  if (!causal) return 1.0 / size;
  // Query i (>= key) sees i + 1 keys and gives each 1 / (i + 1).
  double sum = 0.0;
  for (int i = size - 1; i >= key; --i) sum += 1.0 / (i + 1);
  return sum / (size - key);
}

std::vector<double> sink_uniform_baselines(int size, bool causal) {
  if (size < 0) throw std::out_of_range("sink_uniform_baselines: negative size");
  std::vector<double> out(static_cast<std::size_t>(size), 1.0 / size);
  if (!causal) return out;
  double sum = 0.0;
  for (int k = size - 1; k >= 0; --k) {
    sum += 1.0 / (k + 1);
    out[static_cast<std::size_t>(k)] = sum / (size - k);
  }
  return out;
}

std::vector<double> sink_boost(const AttentionView& attention) {
  std::vector<double> boost = sink_key_importance(attention);
  const std::vector<double> uniform = sink_uniform_baselines(attention.size, attention.causal);
  for (std::size_t k = 0; k < boost.size(); ++k) boost[k] /= uniform[k];
  return boost;
}

}  // namespace sinkscope::analysis
