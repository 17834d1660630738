#include "models/loaded_model.h"

#include <filesystem>

#include "models/model_discovery.h"

namespace sinkscope::models {

LoadedModel loaded_model_open(const std::string& folderOrName, const LoadOptions& options) {
  std::filesystem::path folder;
  try {
    folder = model_location_resolve(folderOrName);
  } catch (const std::runtime_error& e) {
    throw ModelLoadError(e.what());
  }
  LoadedModel loaded;
  loaded.name = folderOrName;
  loaded.model = Model::load(folder, options);
  if (input_file_present(folder, "tokenizer.json")) {
    loaded.tokenizer = Tokenizer::load(folder);
    // A token id beyond the embedding table would index outside it.
    const int vocab = loaded.model->config().vocab_size;
    if (loaded.tokenizer->vocabSize() > static_cast<std::size_t>(vocab))
      throw TokenizerError((folder / "tokenizer.json").string() + ": uses token ids up to " +
                           std::to_string(loaded.tokenizer->vocabSize() - 1) +
                           ", beyond config.json's vocab_size of " + std::to_string(vocab));
  }
  return loaded;
}

SentenceTrace loaded_model_run(const LoadedModel& loaded, const std::string& text,
                               const RunOptions& options, const ProgressFn& progress,
                               bool addSpecialTokens) {
  if (!loaded.tokenizer)
    throw ModelRunError(loaded.model->folder().string() +
                        ": no tokenizer.json, so text cannot be tokenized");
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw ModelRunError("text: empty");
  SentenceTrace out;
  out.encoding = loaded.tokenizer->encode(text, addSpecialTokens);
  if (out.encoding.ids.empty()) throw ModelRunError("text: the tokenizer produced no tokens");
  out.trace = loaded.model->run(out.encoding.ids, options, progress);
  return out;
}

}  // namespace sinkscope::models
