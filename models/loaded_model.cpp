#include "models/loaded_model.h"

#include <optional>

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

Encoding loaded_model_encode(const LoadedModel& loaded, const std::string& text,
                             bool addSpecialTokens) {
  if (!loaded.tokenizer)
    throw ModelRunError(loaded.model->folder().string() +
                        ": no tokenizer.json, so text cannot be tokenized");
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw ModelRunError("text: empty");
  Encoding encoding = loaded.tokenizer->encode(text, addSpecialTokens);
  if (encoding.ids.empty()) throw ModelRunError("text: the tokenizer produced no tokens");
  return encoding;
}

SentenceTrace loaded_model_run(const LoadedModel& loaded, const std::string& text,
                               const RunOptions& options, const ProgressFn& progress,
                               bool addSpecialTokens) {
  SentenceTrace out;
  out.encoding = loaded_model_encode(loaded, text, addSpecialTokens);
  out.trace = loaded.model->run(out.encoding.ids, options, progress);
  return out;
}

std::vector<SentenceTrace> loaded_model_run_batch(const LoadedModel& loaded,
                                                  const std::vector<std::string>& texts,
                                                  const RunOptions& options) {
  std::vector<Encoding> encodings;
  for (const std::string& text : texts) encodings.push_back(loaded_model_encode(loaded, text));
  std::vector<std::optional<Trace>> traces(texts.size());
  for (std::size_t first = 0; first < texts.size(); ++first) {
    if (traces[first]) continue;
    std::vector<std::size_t> group;  // every text of this one's length
    std::vector<std::vector<int>> inputs;
    for (std::size_t k = first; k < texts.size(); ++k)
      if (!traces[k] && encodings[k].ids.size() == encodings[first].ids.size()) {
        group.push_back(k);
        inputs.push_back(encodings[k].ids);
      }
    std::vector<Trace> run = loaded.model->runBatch(inputs, options);
    for (std::size_t g = 0; g < group.size(); ++g) traces[group[g]] = std::move(run[g]);
  }
  std::vector<SentenceTrace> out;
  for (std::size_t k = 0; k < texts.size(); ++k)
    out.push_back({std::move(encodings[k]), std::move(*traces[k])});
  return out;
}

}  // namespace sinkscope::models
