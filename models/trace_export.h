#pragma once
// One run's tensors as NPZ (numpy.load reads it): what a researcher takes to
// Python. Written a layer at a time through io::NpzWriter, so a long
// run's capture is never held twice.
#include <filesystem>
#include <string>
#include <vector>

#include "models/model.h"

namespace sinkscope::models {

// `tokens` as a numpy string array ('<Un', every cell as wide as the longest
// token) only up to this size; tokens_utf8 and tokens_offsets always.
inline constexpr std::uint64_t kMaxFixedWidthTokenBytes = 64ull << 20;

struct TraceExportOptions {
  bool logits = false;  // [T, vocab] can be large; only when asked
  bool overwrite = false;
  // Written as the 0-d string "params" (JSON): model, text, tool, interventions, ...
  std::string paramsJson = "{}";
  // Written as the 0-d string "model" when not empty (what a capture names).
  std::string modelName;
};

// Writes FILE.npz with: attention [L, H, T, T], queries / keys / values
// [L, H, T, d] (after RoPE; keys and values of the KV group each head reads),
// residual [L + 1, T, D] (entering each layer, then the last layer's output),
// ids [T] (int32), tokens [T] (strings), optionally logits [T, V], model (its
// name) and params.
// Throws std::runtime_error naming the file.
void trace_write_npz(const Trace& trace, const std::vector<std::string>& tokens,
                     const std::filesystem::path& file, const TraceExportOptions& options = {});

}  // namespace sinkscope::models
