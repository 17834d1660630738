#include "models/document/sentence_run.h"

#include <stdexcept>

#include "models/capture.h"
#include "models/cpu_runtime.h"
#include "models/model.h"
#include "models/model_config.h"
#include "models/model_discovery.h"

namespace sinkscope::document {

namespace {

// Unicode's White_Space property (PropList.txt): what separates the baseline's words.
bool is_white_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

// The code point at `at` and its length in bytes; a byte that starts no valid
// sequence counts as one non-space character.
std::pair<char32_t, std::size_t> code_point_at(const std::string& s, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char lead = byte(at);
  std::size_t length = lead < 0x80           ? 1
                       : (lead >> 5) == 0x6  ? 2
                       : (lead >> 4) == 0xE  ? 3
                       : (lead >> 3) == 0x1E ? 4
                                             : 0;
  if (length == 0 || at + length > s.size()) return {0xFFFD, 1};
  char32_t c = length == 1 ? lead : lead & (0x7F >> length);
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(at + i) & 0xC0) != 0x80) return {0xFFFD, 1};
    c = (c << 6) | (byte(at + i) & 0x3F);
  }
  return {c, length};
}

}  // namespace

RunTokens RunTokens::withoutFirst() const {
  RunTokens t = *this;
  if (!t.display.empty()) t.display.erase(t.display.begin());
  if (!t.special.empty()) t.special.erase(t.special.begin());
  if (!t.offsets.empty()) t.offsets.erase(t.offsets.begin());
  return t;
}

std::shared_ptr<const models::LayerCapture> SentenceRun::layer(int layer) const {
  if (!trace) throw std::logic_error("SentenceRun::layer: the run has no trace");
  std::lock_guard lock(layerCache_->mutex);
  LayerCache& cache = *layerCache_;
  if (!cache.capture || cache.trace != trace.get() || cache.index != layer) {
    // A stored layer is shared with the trace (aliasing its owner), not copied.
    const models::LayerCapture* stored = trace->storedLayer(layer);
    cache.capture = stored ? std::shared_ptr<const models::LayerCapture>(trace, stored)
                           : std::make_shared<const models::LayerCapture>(trace->layer(layer));
    cache.trace = trace.get();
    cache.index = layer;
  }
  return cache.capture;
}

bool SentenceRun::layerAtHand(int layer) const {
  if (!trace || trace->layerStored(layer)) return true;
  std::unique_lock lock(layerCache_->mutex, std::try_to_lock);
  const LayerCache& cache = *layerCache_;
  return lock.owns_lock() && cache.capture && cache.trace == trace.get() && cache.index == layer;
}

analysis::AttentionMatrix SentenceRun::attention(int layer, int head) const {
  if (!trace) return analysis::attention_uniform(tokenCount(), causal);
  const std::shared_ptr<const models::LayerCapture> capture = this->layer(layer);
  if (head == kHeadAverage) return capture->headAverage();
  const analysis::AttentionView view = capture->attentionOf(head);
  return {std::vector<float>(view.weights.begin(), view.weights.end()), view.size, view.causal};
}

SentenceRun sentence_run_of(const models::LoadedModel& model, const std::string& text,
                            models::SentenceTrace&& traced) {
  SentenceRun run;
  run.text = text;
  run.source = models::model_display_name(model.model->folder());
  run.model = model.model.get();
  run.tokens = {std::move(traced.encoding.display), std::move(traced.encoding.special),
                std::move(traced.encoding.offsets)};
  run.trace = std::make_shared<const models::Trace>(std::move(traced.trace));
  run.causal = run.trace->causal();
  run.beyondTrainedContext =
      models::beyond_trained_context(model.model->config(), run.trace->tokens());
  return run;
}

SentenceRun sentence_run(const models::LoadedModel& model, const std::string& text,
                         const models::RunOptions& options, const models::ProgressFn& progress) {
  // One BLAS thread for the products: AVX2 kernels round a product split
  // between threads differently, and a run must give the window, analyze and
  // Python the same numbers for every thread count.
  const models::SingleThreadedBlas exactProducts;
  return sentence_run_of(model, text, models::loaded_model_run(model, text, options, progress));
}

SentenceRun sentence_run_intervened(const models::LoadedModel& model, const SentenceRun& base,
                                    const models::Intervention& intervention,
                                    const models::ProgressFn& progress) {
  if (!base.trace) throw std::invalid_argument("interventions: open a model first");
  const models::SingleThreadedBlas exactProducts;  // as sentence_run's
  SentenceRun run;
  run.text = base.text;
  run.source = base.source + " (intervened)";
  run.model = model.model.get();
  run.tokens = intervention.dropFirstToken ? base.tokens.withoutFirst() : base.tokens;
  run.intervention = intervention;
  run.beyondTrainedContext = base.beyondTrainedContext;
  run.trace = std::make_shared<const models::Trace>(models::intervention_run(
      *model.model, *base.trace, intervention, base.tokens.firstIsSpecial(), progress));
  run.causal = run.trace->causal();
  return run;
}

SentenceRun sentence_run_analysed(const models::LoadedModel& model, const SentenceRun& base,
                                  const models::Intervention& intervention,
                                  const models::ProgressFn& progress) {
  return intervention.empty() ? base : sentence_run_intervened(model, base, intervention, progress);
}

SentenceRun sentence_run_capture(const models::Capture& capture) {
  SentenceRun run;
  const std::string name = capture.model.empty() ? capture.file.filename().string() : capture.model;
  run.source = name + " (capture)";
  run.tokens.display = capture.tokenText;
  run.tokens.offsets.assign(capture.tokenText.size(), {-1, -1});
  run.causal = capture.causal;
  run.trace = std::make_shared<const models::Trace>(models::capture_trace(capture));
  run.hasValues = capture.headDim > 0;
  return run;
}

std::vector<std::pair<int, int>> sentence_word_offsets(const std::string& text) {
  std::vector<std::pair<int, int>> words;
  std::size_t at = 0, begin = 0;
  bool inWord = false;
  while (at < text.size()) {
    const auto [c, length] = code_point_at(text, at);
    if (is_white_space(c)) {
      if (inWord) words.emplace_back(static_cast<int>(begin), static_cast<int>(at));
      inWord = false;
    } else if (!inWord) {
      begin = at;
      inWord = true;
    }
    at += length;
  }
  if (inWord) words.emplace_back(static_cast<int>(begin), static_cast<int>(at));
  return words;
}

SentenceRun sentence_run_baseline(const std::string& text) {
  SentenceRun run;
  run.text = text;
  run.source = "no model";
  run.tokens.offsets = sentence_word_offsets(text);
  if (run.tokens.offsets.empty())
    throw std::invalid_argument("sentence: nothing to run (type a sentence first)");
  if (run.tokens.offsets.size() > static_cast<std::size_t>(kMaxBaselineWords))
    throw std::invalid_argument("sentence: " + std::to_string(run.tokens.offsets.size()) +
                                " words; without a model the uniform baseline is drawn for at "
                                "most " +
                                std::to_string(kMaxBaselineWords) + " (open a model to run it)");
  for (const auto& [begin, end] : run.tokens.offsets)
    run.tokens.display.push_back(
        text.substr(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin)));
  run.tokens.special.assign(run.tokens.offsets.size(), false);
  return run;
}

}  // namespace sinkscope::document
