#pragma once
// One sentence through one model, as every front end runs it: the tokens as
// the tokenizer made them and the forward pass's trace; the same sentence
// with interventions, whose tokens are those its trace has (the first one
// gone when the intervention drops it); a capture's attention made elsewhere;
// and without a model, the uniform causal baseline over the sentence's words:
// the map every sink is judged against (metrics.md section 1).
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "analysis/attention_matrix.h"
#include "models/experiments.h"
#include "models/loaded_model.h"

namespace sinkscope::models {
struct Capture;
struct LayerCapture;
}  // namespace sinkscope::models

namespace sinkscope::document {

struct TraceAnalysis;

// The head index that names the mean over a layer's heads.
inline constexpr int kHeadAverage = -1;

struct RunTokens {
  std::vector<std::string> display;  // readable strings, one per position
  std::vector<bool> special;         // added by the tokenizer (BOS, [CLS], ...)
  // Bytes [begin, end) of the sentence each token covers; {-1, -1}: none.
  std::vector<std::pair<int, int>> offsets;

  int size() const { return static_cast<int>(display.size()); }
  bool firstIsSpecial() const { return !special.empty() && special.front(); }
  bool lastIsSpecial() const { return !special.empty() && special.back(); }
  // The tokens without position 0 (after dropping the first token).
  RunTokens withoutFirst() const;
};

struct SentenceRun {
  std::string text;
  // What made it, in words: the model's name (a cache snapshot's repository
  // and revision), "no model", "NAME (capture)", "NAME (intervened)".
  std::string source;
  const models::Model* model = nullptr;  // which loaded model made it (identity only)
  RunTokens tokens;
  bool causal = true;
  std::shared_ptr<const models::Trace> trace;  // null: the uniform baseline
  bool hasValues = true;                       // a capture may hold no values
  models::Intervention intervention;           // empty: the plain run
  // Empty, or why this many tokens exceed what the model was trained on
  // (judged on the plain run, the first token kept).
  std::string beyondTrainedContext;
  // Every head's metrics, once analysed (null until then, and without a trace).
  std::shared_ptr<const TraceAnalysis> analysis;

  int tokenCount() const { return tokens.size(); }
  const std::vector<std::string>& tokenStrings() const { return tokens.display; }
  // The map of `layer` and `head` (kHeadAverage: the mean over heads); the
  // uniform map when there is no trace. Throws what the trace throws.
  analysis::AttentionMatrix attention(int layer, int head) const;
  // The capture of `layer` (requires a trace). The last layer asked for is
  // kept (shared by the run's copies): stepping through heads, the common
  // move, neither copies nor recomputes it. Safe from any thread.
  std::shared_ptr<const models::LayerCapture> layer(int layer) const;
  // Whether layer() answers at once: the trace stores the layer, or it is the
  // layer kept. Otherwise layer() recomputes it from the residual stream
  // (seconds at a long input of a real-size model): a window asks for it in
  // the background. Never waits (false while another thread recomputes).
  bool layerAtHand(int layer) const;

 private:
  struct LayerCache {
    std::mutex mutex;
    const models::Trace* trace = nullptr;
    int index = -1;
    std::shared_ptr<const models::LayerCapture> capture;
  };
  std::shared_ptr<LayerCache> layerCache_ = std::make_shared<LayerCache>();
};

// Tokenizes and runs `text`, its products on one BLAS thread (the same
// numbers for every --threads and every front end). Throws the model's errors (ModelRunError,
// RunCancelled) with their messages.
SentenceRun sentence_run(const models::LoadedModel& model, const std::string& text,
                         const models::RunOptions& options = {},
                         const models::ProgressFn& progress = {});

// A run made elsewhere (a batched pass) as a sentence run.
SentenceRun sentence_run_of(const models::LoadedModel& model, const std::string& text,
                            models::SentenceTrace&& traced);

// `base` again with `intervention` (from its captured residual stream where
// the intervention allows). Throws ModelRunError when the first token is to
// be dropped and is not a special token, std::invalid_argument when `base`
// has no trace.
SentenceRun sentence_run_intervened(const models::LoadedModel& model, const SentenceRun& base,
                                    const models::Intervention& intervention,
                                    const models::ProgressFn& progress = {});

// The run an analysis with `intervention` reads: `base` itself when it is
// empty, else the intervened run.
SentenceRun sentence_run_analysed(const models::LoadedModel& model, const SentenceRun& base,
                                  const models::Intervention& intervention,
                                  const models::ProgressFn& progress = {});

// A capture's attention (models/capture.h) as a run: its tokens, its trace,
// no model (what needs the model says so).
SentenceRun sentence_run_capture(const models::Capture& capture);

// The words of `text`, split on Unicode white space, with the bytes each covers.
std::vector<std::pair<int, int>> sentence_word_offsets(const std::string& text);

// Without a model the panels show a uniform map of T x T over the words; its
// matrices (and each panel's copies) grow with T^2, so it is drawn for at most
// this many words (a 2,048-word map is 16 MB; 20,000 words would be 1.6 GB
// per matrix).
inline constexpr int kMaxBaselineWords = 2048;

// The uniform causal baseline over the words of `text`. Throws
// std::invalid_argument (with a message for a status bar) when the text has
// no word, or more than kMaxBaselineWords.
SentenceRun sentence_run_baseline(const std::string& text);

}  // namespace sinkscope::document
