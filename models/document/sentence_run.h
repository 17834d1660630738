#pragma once
// One sentence through one model, as every front end runs it: the tokens as
// the tokenizer made them and the forward pass's trace, and the same sentence
// with interventions, whose tokens are those its trace has (the first one
// gone when the intervention drops it).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/experiments.h"
#include "models/loaded_model.h"

namespace sinkscope::document {

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
  RunTokens tokens;
  std::shared_ptr<const models::Trace> trace;
  models::Intervention intervention;  // empty: the plain run
  // Empty, or why this many tokens exceed what the model was trained on
  // (judged on the plain run, the first token kept).
  std::string beyondTrainedContext;
};

// Tokenizes and runs `text`. Throws the model's errors (ModelRunError,
// RunCancelled) with their messages.
SentenceRun sentence_run(const models::LoadedModel& model, const std::string& text,
                         const models::RunOptions& options = {},
                         const models::ProgressFn& progress = {});

// A run made elsewhere (a batched pass) as a sentence run.
SentenceRun sentence_run_of(const models::LoadedModel& model, const std::string& text,
                            models::SentenceTrace&& traced);

// `base` again with `intervention` (from its captured residual stream where
// the intervention allows). Throws ModelRunError when the first token is to
// be dropped and is not a special token.
SentenceRun sentence_run_intervened(const models::LoadedModel& model, const SentenceRun& base,
                                    const models::Intervention& intervention,
                                    const models::ProgressFn& progress = {});

// The run an analysis with `intervention` reads: `base` itself when it is
// empty, else the intervened run.
SentenceRun sentence_run_analysed(const models::LoadedModel& model, const SentenceRun& base,
                                  const models::Intervention& intervention,
                                  const models::ProgressFn& progress = {});

}  // namespace sinkscope::document
