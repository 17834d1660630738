#pragma once
// A capture: the attention of every layer and head of one input, made by any
// framework (Hugging Face's output_attentions, TransformerLens's cache,
// SinkScope's own `tensors`), with the values when known. Read from NPZ as
// hostile input: shapes, bounds, NaN, negative weights and rows that do not
// sum to 1 are refused with the array, layer, head and row named. A capture
// opens as a Trace without residuals or logits: every analysis of attention
// and values runs on it; those that need the model itself cannot.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/model.h"

namespace sinkscope::models {

class CaptureError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bounds of what a capture may hold.
inline constexpr int kCaptureMaxLayers = 1024;
inline constexpr int kCaptureMaxHeads = 1024;
inline constexpr int kCaptureMaxTokens = 32768;
inline constexpr int kCaptureMaxHeadDim = 65536;
inline constexpr std::uint64_t kCaptureMaxArrayBytes = std::uint64_t{16} << 30;
// A token's text: at most this many characters (a label, not a document).
inline constexpr std::int64_t kCaptureMaxTokenChars = 4096;
inline constexpr std::size_t kCaptureMaxModelNameBytes = 1024;

// What reading a capture may hold at once: $SINKSCOPE_CAPTURE_BUDGET_GB
// (GiB) when set, else half of the machine's physical memory; `source` says
// which. Throws CaptureError for a variable that is not a positive number.
struct CaptureBudget {
  std::uint64_t bytes = 0;
  std::string source;
};
CaptureBudget capture_memory_budget();
// A row's weights must sum to 1 within this: a float32 softmax's do within
// 1e-6, a BF16 model's (8 bits of mantissa per weight) within about 1e-2.
inline constexpr double kCaptureRowSumTolerance = 1e-2;

struct Capture {
  int layers = 0, heads = 0, tokens = 0;
  int headDim = 0;      // 0: no values
  bool causal = true;   // every map is zero above its diagonal
  std::vector<float> attention;  // [layers][heads][tokens][tokens]
  std::vector<float> values;     // [layers][heads][tokens][headDim], or empty
  std::vector<std::string> tokenText;  // one per token ("0", "1", ... when the file has none)
  std::vector<int> ids;                // one per token, or empty
  std::string model;                   // the model's name, when the file gives it
  std::filesystem::path file;          // where it was read from (empty: made in memory)
};

// Checks a capture made in memory (from Python) or read: shapes agree, every
// weight is finite and in [0, 1], every row sums to 1; sets `causal`. `where`
// names its source in errors. Throws CaptureError.
void capture_check(Capture& capture, const std::string& where);
// Reads FILE.npz: `attention` [L, H, T, T] (float32 or float64) required;
// `values` [L, H, T, d], `tokens` (strings, or tokens_utf8 + tokens_offsets),
// `ids` [T] and `model` (a 0-d string) optional. Throws CaptureError.
Capture capture_read(const std::filesystem::path& file);
// Writes the capture as NPZ with the keys capture_read reads.
void capture_write(const Capture& capture, const std::filesystem::path& file, bool overwrite);
// The capture as a Trace (layers stored; no residual stream, no logits).
Trace capture_trace(const Capture& capture);

}  // namespace sinkscope::models
