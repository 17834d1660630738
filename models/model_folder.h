#pragma once
// A first look at a Hugging Face model folder: enough to show it in the model
// chooser and size the layer/head selectors before any weight is loaded.
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
  bool has_tokenizer = false;             // tokenizer.json present
};

// Reads FOLDER/config.json (and the safetensors index when present).
// Throws ModelFolderError whose message names the file or field and the problem.
ModelFolderSummary model_folder_inspect(const std::filesystem::path& folder);

class ModelFolderError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace sinkscope::models
