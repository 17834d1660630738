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
    // Real folders list unused added tokens past the embedding (as Hugging
    // Face, SinkScope refuses such an id only when a text encodes to it), but
    // the ids the post-processor adds to every input must have a row.
    const int vocab = loaded.model->config().vocab_size;
    for (const auto& [token, id] : loaded.tokenizer->alwaysAddedIds())
      if (id >= vocab)
        throw TokenizerError((folder / "tokenizer.json").string() + ": the post-processor adds \"" +
                             token + "\" (id " + std::to_string(id) +
                             ") to every input, beyond the embedding's " + std::to_string(vocab) +
                             " rows (config.json's vocab_size)");
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
  const int vocab = loaded.model->config().vocab_size;
  for (std::size_t i = 0; i < encoding.ids.size(); ++i)
    if (encoding.ids[i] < 0 || encoding.ids[i] >= vocab)
      throw TokenizerError("text: token \"" + encoding.display[i] + "\" at position " +
                           std::to_string(i) + " has id " + std::to_string(encoding.ids[i]) +
                           ", beyond the model's embedding of " + std::to_string(vocab) +
                           " rows (config.json's vocab_size)");
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
