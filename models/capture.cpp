#include "models/capture.h"

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>

#include "models/input_files.h"

#include "models/internal/recompute.h"
#include "models/io/npz.h"
#include "models/io/npz_reader.h"

namespace sinkscope::models {

namespace fs = std::filesystem;

namespace {

std::string number_list(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
  return s + "]";
}

void check_dimension(std::int64_t value, int most, const std::string& what,
                     const std::string& where) {
  if (value < 1 || value > most)
    throw CaptureError(where + ": " + what + " is " + std::to_string(value) + "; give 1 to " +
                       std::to_string(most));
}

// Throws unless member `name` of `npz` (when present) is one-dimensional with
// `length` elements (-1: any length up to `most`).
void check_vector(const io::NpzReader& npz, const std::string& name, std::int64_t length,
                  std::int64_t most, const std::string& where) {
  if (!npz.contains(name)) return;
  const io::NpyArray h = npz.header(name);
  if (h.shape.size() != 1)
    throw CaptureError(where + ": " + name + " has shape " + number_list(h.shape) +
                       "; give a one-dimensional array");
  if (length >= 0 && h.shape[0] != length)
    throw CaptureError(where + ": " + name + " holds " + std::to_string(h.shape[0]) +
                       " elements; give " + std::to_string(length));
  if (h.shape[0] > most)
    throw CaptureError(where + ": " + name + " holds " + std::to_string(h.shape[0]) +
                       " elements, more than the " + std::to_string(most) + " read here");
}

// The tokens of a capture file: a string array, or the packed UTF-8 form
// (bytes 0..255 forming valid UTF-8, cut at increasing offsets).
std::vector<std::string> read_tokens(const io::NpzReader& npz, int tokens,
                                     const std::string& where) {
  if (npz.contains("tokens")) {
    check_vector(npz, "tokens", tokens, tokens, where);
    const io::NpyArray h = npz.header("tokens");
    if (h.kind() == 'U' && h.itemSize() / 4 > kCaptureMaxTokenChars)
      throw CaptureError(where + ": tokens are up to " + std::to_string(h.itemSize() / 4) +
                         " characters long; a token has at most " +
                         std::to_string(kCaptureMaxTokenChars));
    return npz.read("tokens").strings();
  }
  if (!npz.contains("tokens_utf8") || !npz.contains("tokens_offsets")) return {};
  check_vector(npz, "tokens_offsets", std::int64_t{tokens} + 1, std::int64_t{tokens} + 1, where);
  check_vector(npz, "tokens_utf8", -1, std::int64_t{tokens} * kCaptureMaxTokenChars * 4, where);
  const io::NpyArray bytes = npz.read("tokens_utf8"), offsets = npz.read("tokens_offsets");
  const std::vector<std::int64_t> at = offsets.integers(), raw = bytes.integers();
  std::string text;
  text.reserve(raw.size());
  for (std::size_t k = 0; k < raw.size(); ++k) {
    if (raw[k] < 0 || raw[k] > 255)
      throw CaptureError(where + ": tokens_utf8[" + std::to_string(k) + "] is " +
                         std::to_string(raw[k]) + ", not a byte (0 to 255)");
    text += static_cast<char>(raw[k]);
  }
  std::vector<std::string> out;
  for (std::size_t k = 0; k + 1 < at.size(); ++k) {
    if (at[k] < 0 || at[k + 1] < at[k] || static_cast<std::uint64_t>(at[k + 1]) > raw.size())
      throw CaptureError(where + ": tokens_offsets[" + std::to_string(k) + "] is out of order");
    std::string t =
        text.substr(static_cast<std::size_t>(at[k]), static_cast<std::size_t>(at[k + 1] - at[k]));
    std::size_t bad = 0;
    if (!utf8_valid(t, &bad))
      throw CaptureError(where + ": token " + std::to_string(k) +
                         " in tokens_utf8 is not valid UTF-8 (at its byte " + std::to_string(bad) +
                         ")");
    if (t.size() > static_cast<std::size_t>(kCaptureMaxTokenChars) * 4)
      throw CaptureError(where + ": token " + std::to_string(k) + " is " +
                         std::to_string(t.size()) + " bytes long; a token has at most " +
                         std::to_string(kCaptureMaxTokenChars) + " characters");
    out.push_back(std::move(t));
  }
  return out;
}

// What reading `count` elements of `itemSize` bytes holds at once: the
// member's bytes, their float32 copy and the run's copy of those.
std::uint64_t bytes_to_hold(std::uint64_t count, std::size_t itemSize) {
  return count * (itemSize + 2 * sizeof(float));
}

std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", bytes / double(std::uint64_t{1} << 30));
  return text;
}

// What the file format keeps as it is: UTF-8 without NUL (numpy's strings
// end at one), bounded lengths.
void check_text(const Capture& c, const std::string& where) {
  for (std::size_t k = 0; k < c.tokenText.size(); ++k) {
    const std::string& t = c.tokenText[k];
    std::size_t bad = 0;
    if (!utf8_valid(t, &bad))
      throw CaptureError(where + ": token " + std::to_string(k) +
                         " is not valid UTF-8 (at its byte " + std::to_string(bad) + ")");
    if (t.find('\0') != std::string::npos)
      throw CaptureError(where + ": token " + std::to_string(k) + " holds a NUL character");
    const auto chars = std::count_if(t.begin(), t.end(), [](char b) { return (b & 0xC0) != 0x80; });
    if (chars > kCaptureMaxTokenChars)
      throw CaptureError(where + ": token " + std::to_string(k) + " is " + std::to_string(chars) +
                         " characters long; a token has at most " +
                         std::to_string(kCaptureMaxTokenChars));
  }
  if (c.model.size() > kCaptureMaxModelNameBytes || c.model.find('\0') != std::string::npos ||
      !utf8_valid(c.model))
    throw CaptureError(where + ": the model's name is not one line of UTF-8 of at most " +
                       std::to_string(kCaptureMaxModelNameBytes) + " bytes without NUL");
}

}  // namespace

CaptureBudget capture_memory_budget() {
  if (const char* env = std::getenv("SINKSCOPE_CAPTURE_BUDGET_GB"); env && *env) {
    char* end = nullptr;
    const double gb = std::strtod(env, &end);
    if (end && *end == '\0' && std::isfinite(gb) && gb > 0 && gb <= 1e6)
      return {static_cast<std::uint64_t>(gb * double(std::uint64_t{1} << 30)),
              "SINKSCOPE_CAPTURE_BUDGET_GB"};
    throw CaptureError("SINKSCOPE_CAPTURE_BUDGET_GB is '" + std::string(env).substr(0, 64) +
                       "'; give a number of GiB above 0");
  }
  const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  const std::uint64_t physical =
      pages > 0 && pageSize > 0
          ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(pageSize)
          : std::uint64_t{8} << 30;
  return {physical / 2, "half of this machine's memory"};
}

void capture_check(Capture& c, const std::string& where) {
  check_dimension(c.layers, kCaptureMaxLayers, "the number of layers", where);
  check_dimension(c.heads, kCaptureMaxHeads, "the number of heads", where);
  check_dimension(c.tokens, kCaptureMaxTokens, "the number of tokens", where);
  const std::size_t T = static_cast<std::size_t>(c.tokens);
  const std::size_t maps = static_cast<std::size_t>(c.layers) * static_cast<std::size_t>(c.heads);
  if (c.attention.size() != maps * T * T)
    throw CaptureError(where + ": attention holds " + std::to_string(c.attention.size()) +
                       " weights, not layers x heads x tokens x tokens");
  bool causal = true;
  for (std::size_t m = 0; m < maps; ++m)
    for (std::size_t i = 0; i < T; ++i) {
      const float* row = c.attention.data() + (m * T + i) * T;
      double sum = 0;
      for (std::size_t j = 0; j < T; ++j) {
        const float w = row[j];
        if (!std::isfinite(w) || w < 0 || w > 1.0f + 1e-6f) {
          throw CaptureError(where + ": attention[layer " + std::to_string(m / c.heads) +
                             ", head " + std::to_string(m % c.heads) + ", row " +
                             std::to_string(i) + ", column " + std::to_string(j) + "] is " +
                             (std::isfinite(w) ? std::to_string(w) : std::string("not a number")) +
                             "; attention weights lie in [0, 1]");
        }
        sum += w;
        if (j > i && w != 0) causal = false;
      }
      if (std::abs(sum - 1.0) > kCaptureRowSumTolerance)
        throw CaptureError(where + ": attention[layer " + std::to_string(m / c.heads) + ", head " +
                           std::to_string(m % c.heads) + ", row " + std::to_string(i) +
                           "] sums to " + std::to_string(sum) + ", not 1 (within " +
                           std::to_string(kCaptureRowSumTolerance) +
                           "): give softmax probabilities, not scores");
    }
  c.causal = causal;
  if (!c.values.empty() || c.headDim != 0) {
    check_dimension(c.headDim, kCaptureMaxHeadDim, "the values' head dimension", where);
    if (c.values.size() != maps * T * static_cast<std::size_t>(c.headDim))
      throw CaptureError(where + ": values holds " + std::to_string(c.values.size()) +
                         " numbers, not layers x heads x tokens x head_dim");
    for (std::size_t k = 0; k < c.values.size(); ++k)
      if (!std::isfinite(c.values[k]))
        throw CaptureError(where + ": values[" + std::to_string(k) + "] (flat index) is not a number");
  }
  check_text(c, where);
  if (c.tokenText.empty())
    for (int t = 0; t < c.tokens; ++t) c.tokenText.push_back(std::to_string(t));
  if (c.tokenText.size() != T)
    throw CaptureError(where + ": " + std::to_string(c.tokenText.size()) + " tokens for " +
                       std::to_string(T) + " attention rows");
  if (!c.ids.empty() && c.ids.size() != T)
    throw CaptureError(where + ": " + std::to_string(c.ids.size()) + " ids for " +
                       std::to_string(T) + " attention rows");
}

Capture capture_read(const fs::path& file) {
  const std::string where = file.string();
  try {
    const io::NpzReader npz(file, kCaptureMaxArrayBytes);
    if (!npz.contains("attention"))
      throw CaptureError(where + ": no 'attention' array (a capture holds attention [layers, "
                                 "heads, tokens, tokens])");
    Capture c;
    c.file = file;
    // Every shape is checked from the headers, and what reading would hold
    // against the budget, before any array's data is read.
    const io::NpyArray a = npz.header("attention");
    if (a.shape.size() != 4 || a.shape[2] != a.shape[3])
      throw CaptureError(where + ": attention has shape " + number_list(a.shape) +
                         "; give [layers, heads, tokens, tokens]");
    check_dimension(a.shape[0], kCaptureMaxLayers, "the number of layers", where);
    check_dimension(a.shape[1], kCaptureMaxHeads, "the number of heads", where);
    check_dimension(a.shape[2], kCaptureMaxTokens, "the number of tokens", where);
    c.layers = static_cast<int>(a.shape[0]);
    c.heads = static_cast<int>(a.shape[1]);
    c.tokens = static_cast<int>(a.shape[2]);
    std::uint64_t needed = bytes_to_hold(a.count(), a.itemSize());
    if (npz.contains("values")) {
      const io::NpyArray v = npz.header("values");
      if (v.shape.size() != 4 || v.shape[0] != c.layers || v.shape[1] != c.heads ||
          v.shape[2] != c.tokens)
        throw CaptureError(where + ": values has shape " + number_list(v.shape) + "; give [" +
                           std::to_string(c.layers) + ", " + std::to_string(c.heads) + ", " +
                           std::to_string(c.tokens) + ", head_dim] as attention's");
      check_dimension(v.shape[3], kCaptureMaxHeadDim, "the values' head dimension", where);
      c.headDim = static_cast<int>(v.shape[3]);
      needed += bytes_to_hold(v.count(), v.itemSize());
    }
    // Analysing one head holds about three T x T matrices of doubles
    // (distances, the filtration's edges, the graph) beside the capture.
    needed += 3 * sizeof(double) * static_cast<std::uint64_t>(c.tokens) *
              static_cast<std::uint64_t>(c.tokens);
    const CaptureBudget budget = capture_memory_budget();
    if (needed > budget.bytes)
      throw CaptureError(where + ": reading and analysing it needs about " + gib(double(needed)) +
                         " GiB (its attention and values as float32, held three times while "
                         "they are read, and one head's analysis, about 24 T^2 bytes), over "
                         "the budget of " +
                         gib(double(budget.bytes)) + " GiB (" + budget.source +
                         "); set SINKSCOPE_CAPTURE_BUDGET_GB to raise it, or capture fewer "
                         "layers, heads or tokens");
    check_vector(npz, "ids", c.tokens, c.tokens, where);
    c.attention = npz.read("attention").floats();
    if (c.headDim > 0) c.values = npz.read("values").floats();
    c.tokenText = read_tokens(npz, c.tokens, where);
    if (npz.contains("ids")) {
      for (std::int64_t id : npz.read("ids").integers()) {
        if (id < 0 || id > std::numeric_limits<int>::max())
          throw CaptureError(where + ": ids holds " + std::to_string(id) + ", not a token id");
        c.ids.push_back(static_cast<int>(id));
      }
    }
    if (npz.contains("model")) {
      const io::NpyArray h = npz.header("model");
      if (!h.shape.empty() || h.kind() != 'U' || h.itemSize() / 4 > 1024)
        throw CaptureError(where +
                           ": model is not one name (a 0-d string of at most 1024 characters)");
      const io::NpyArray m = npz.read("model");
      const std::vector<std::string> names = m.strings();
      if (!m.shape.empty() || names.size() != 1 || names.front().size() > kCaptureMaxModelNameBytes)
        throw CaptureError(where + ": model is not one name (a 0-d string)");
      c.model = names.front();
    }
    capture_check(c, where);
    return c;
  } catch (const io::NpzError& e) {
    throw CaptureError(e.what());
  } catch (const std::bad_alloc&) {
    throw CaptureError(where + ": not enough memory to read it (the budget is " +
                       gib(double(capture_memory_budget().bytes)) +
                       " GiB; set SINKSCOPE_CAPTURE_BUDGET_GB below what this machine has free)");
  }
}

void capture_write(const Capture& c, const fs::path& file, bool overwrite) {
  check_text(c, file.string());  // never a file its own reader refuses or changes
  io::NpzWriter npz(file, overwrite);
  const std::int64_t L = c.layers, H = c.heads, T = c.tokens;
  npz.addFloat32("attention", {L, H, T, T}, c.attention);
  if (!c.values.empty()) npz.addFloat32("values", {L, H, T, c.headDim}, c.values);
  // numpy's fixed-width strings pad every token to the longest: packed
  // instead when that would more than quadruple them (the reader takes both).
  std::uint64_t textBytes = 0;
  for (const std::string& t : c.tokenText) textBytes += t.size();
  if (io::NpzWriter::fixedWidthBytes(c.tokenText) > 4 * textBytes + (std::uint64_t{1} << 16))
    npz.addPackedStrings("tokens", c.tokenText);
  else
    npz.addStrings("tokens", c.tokenText);
  if (!c.ids.empty()) {
    const std::vector<std::int32_t> ids(c.ids.begin(), c.ids.end());
    npz.addInt32("ids", {T}, ids);
  }
  if (!c.model.empty()) npz.addString("model", c.model);
  npz.commit();
}

Trace capture_trace(const Capture& c) {
  Trace trace = TraceBuilder::make(c.layers, c.heads, 0, 0, c.causal,
                                   c.ids.empty() ? std::vector<int>(static_cast<std::size_t>(c.tokens), 0)
                                                 : c.ids);
  const std::size_t T = static_cast<std::size_t>(c.tokens), H = static_cast<std::size_t>(c.heads);
  const std::size_t map = T * T, rows = T * static_cast<std::size_t>(c.headDim);
  for (int l = 0; l < c.layers; ++l) {
    LayerCapture cap;
    cap.layer = l;
    cap.heads = c.heads;
    cap.tokens = c.tokens;
    cap.head_dim = c.headDim;
    cap.causal = c.causal;
    const auto L = static_cast<std::size_t>(l);
    cap.attention.assign(c.attention.begin() + static_cast<std::ptrdiff_t>(L * H * map),
                         c.attention.begin() + static_cast<std::ptrdiff_t>((L + 1) * H * map));
    if (!c.values.empty())
      cap.values.assign(c.values.begin() + static_cast<std::ptrdiff_t>(L * H * rows),
                        c.values.begin() + static_cast<std::ptrdiff_t>((L + 1) * H * rows));
    TraceBuilder::store(trace, l, std::move(cap));
  }
  return trace;
}

}  // namespace sinkscope::models
