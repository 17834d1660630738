#pragma once
// A first look at a Hugging Face model folder: enough to show it in the model
// chooser and size the layer/head selectors before any weight is loaded.
#include "models/input_files.h"
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace sinkscope::models {

struct ModelFolderSummary {
  std::filesystem::path folder;
  std::string model_type;                 // config.json "model_type", e.g. "llama"
  int num_layers = 0;                     // num_hidden_layers (GPT-2: n_layer)
  int num_heads = 0;                      // num_attention_heads (GPT-2: n_head)
  int hidden_size = 0;                    // hidden_size (GPT-2: n_embd); 0 when absent
  std::vector<std::string> weight_files;  // model.safetensors or the shards of the index
  std::vector<std::filesystem::path> weight_paths;  // the same, resolved and confined
  bool has_tokenizer = false;             // tokenizer.json present
};

// Reads FOLDER/config.json (and the safetensors index when present).
// Throws ModelFolderError whose message names the file or field and the problem.
ModelFolderSummary model_folder_inspect(const std::filesystem::path& folder);

// The shard names of a model.safetensors.index.json (its text), sorted and
// unique: a non-empty "weight_map" of tensor -> file name, each name a plain
// relative path (no absolute paths, no "..", no NUL). `source` names the file
// in messages. Throws ModelFolderError.
std::vector<std::string> model_index_shards(const std::string& indexText,
                                            const std::string& source);

// The weight files of a folder, resolved and confined to it
// (input_file_confine): model.safetensors, or every shard of the index.
// Throws ModelFolderError / ModelInputError naming the file.
std::vector<std::filesystem::path> model_weight_files(const std::filesystem::path& folder);

class ModelFolderError : public ModelInputError {
 public:
  using ModelInputError::ModelInputError;
};

}  // namespace sinkscope::models
