#include "analysis/attention_matrix.h"

#include <cmath>
#include <stdexcept>

namespace sinkscope::analysis {

void attention_validate(const AttentionView& view, double row_sum_tolerance) {
  if (view.size < 0) throw std::invalid_argument("attention map: negative size");
  const auto expected = static_cast<std::size_t>(view.size) * static_cast<std::size_t>(view.size);
  if (view.weights.size() != expected) {
    throw std::invalid_argument("attention map: buffer holds " +
                                std::to_string(view.weights.size()) + " weights, expected " +
                                std::to_string(expected) + " for T = " + std::to_string(view.size));
  }
  for (int i = 0; i < view.size; ++i) {
    double row_sum = 0.0;
    for (int j = 0; j < view.size; ++j) {
      const float w = view.at(i, j);
      const std::string where = "(query " + std::to_string(i) + ", key " + std::to_string(j) + ")";
      if (!std::isfinite(w) || w < 0.0f)
        throw std::invalid_argument("attention map: weight " + where +
                                    " is negative or not finite");
      if (!view.visible(i, j) && w != 0.0f)
        throw std::invalid_argument("attention map: causal map has weight on future key " + where);
      row_sum += w;
    }
    if (std::abs(row_sum - 1.0) > row_sum_tolerance)
      throw std::invalid_argument("attention map: row " + std::to_string(i) + " sums to " +
                                  std::to_string(row_sum) + ", not 1");
  }
}

void attention_require_usable(const AttentionView& view, const char* who) {
  if (view.size < 0) throw std::invalid_argument(std::string(who) + ": negative map size");
  const auto expected = static_cast<std::size_t>(view.size) * static_cast<std::size_t>(view.size);
  if (view.weights.size() != expected)
    throw std::invalid_argument(std::string(who) + ": the attention buffer holds " +
                                std::to_string(view.weights.size()) + " weights, expected " +
                                std::to_string(expected) + " for T = " + std::to_string(view.size));
  for (std::size_t k = 0; k < expected; ++k) {
    const float w = view.weights[k];
    if (!std::isfinite(w) || w < 0.0f) {
      const auto T = static_cast<std::size_t>(view.size);
      throw std::invalid_argument(std::string(who) + ": attention weight (query " +
                                  std::to_string(k / T) + ", key " + std::to_string(k % T) +
                                  ") is " + (std::isfinite(w) ? "negative" : "not finite"));
    }
  }
}

void values_require_finite(std::span<const float> values, const char* who) {
  for (std::size_t k = 0; k < values.size(); ++k)
    if (!std::isfinite(values[k]))
      throw std::invalid_argument(std::string(who) + ": value entry " + std::to_string(k) +
                                  " is not finite");
}

AttentionMatrix attention_uniform(int size, bool causal) {
  if (size < 0) throw std::invalid_argument("attention_uniform: negative size");
  AttentionMatrix m;
  m.size = size;
  m.causal = causal;
  m.weights.assign(static_cast<std::size_t>(size) * static_cast<std::size_t>(size), 0.0f);
  for (int i = 0; i < size; ++i) {
    const int visible = causal ? i + 1 : size;
    const float w = 1.0f / static_cast<float>(visible);
    for (int j = 0; j < visible; ++j)
      m.weights[static_cast<std::size_t>(i) * static_cast<std::size_t>(size) +
                static_cast<std::size_t>(j)] = w;
  }
  return m;
}

}  // namespace sinkscope::analysis
