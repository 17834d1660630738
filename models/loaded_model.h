#pragma once
// A model with its tokenizer, opened from a folder or a cache name: what the
// CLI and the GUI run sentences through.
#include <memory>
#include <string>
#include <vector>

#include "models/model.h"
#include "models/tokenizer.h"

namespace sinkscope::models {

struct LoadedModel {
  std::shared_ptr<Model> model;
  std::shared_ptr<const Tokenizer> tokenizer;  // null when the folder has no tokenizer.json
  std::string name;                            // what the user gave: folder or org/name
};

// Throws ModelLoadError / ModelConfigError / SafetensorsError / TokenizerError.
LoadedModel loaded_model_open(const std::string& folderOrName, const LoadOptions& options = {});

struct SentenceTrace {
  Encoding encoding;
  Trace trace;
};

// Tokenizes `text` (special tokens as the tokenizer adds them). Throws
// ModelRunError for empty text, a missing tokenizer or no tokens.
Encoding loaded_model_encode(const LoadedModel& loaded, const std::string& text,
                             bool addSpecialTokens = true);

// Tokenizes `text` (special tokens as the tokenizer adds them) and runs it.
// Throws ModelRunError for empty text, a missing tokenizer or too many tokens.
SentenceTrace loaded_model_run(const LoadedModel& loaded, const std::string& text,
                               const RunOptions& options = {}, const ProgressFn& progress = {},
                               bool addSpecialTokens = true);

// Tokenizes and runs several texts; those with the same token count run as
// one batched pass (Model::runBatch), in the order they first appear. The
// result is in the order of `texts`. Plain options only (as runBatch).
std::vector<SentenceTrace> loaded_model_run_batch(const LoadedModel& loaded,
                                                  const std::vector<std::string>& texts,
                                                  const RunOptions& options = {});

}  // namespace sinkscope::models
