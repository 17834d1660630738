#include "models/model_folder.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

namespace sinkscope::models {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json read_json_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ModelFolderError(file.string() + ": cannot be opened");
  try {
    return json::parse(in);
  } catch (const json::parse_error& e) {
    throw ModelFolderError(file.string() + ": not valid JSON (" + e.what() + ")");
  }
}

// The first of `names` present in `config` as a positive integer; 0 when none is
// present and `required` is false.
int read_count(const json& config, const fs::path& file, std::initializer_list<const char*> names,
               bool required) {
  for (const char* name : names) {
    auto it = config.find(name);
    if (it == config.end()) continue;
    if (!it->is_number_integer() || it->get<long long>() <= 0)
      throw ModelFolderError(file.string() + ": field \"" + name + "\" must be a positive integer");
    return it->get<int>();
  }
  if (required)
    throw ModelFolderError(file.string() + ": field \"" + *names.begin() + "\" is missing");
  return 0;
}

std::vector<std::string> find_weight_files(const fs::path& folder) {
  const fs::path single = folder / "model.safetensors";
  if (fs::exists(single)) return {"model.safetensors"};
  const fs::path index = folder / "model.safetensors.index.json";
  if (!fs::exists(index))
    throw ModelFolderError(folder.string() +
                           ": no model.safetensors and no model.safetensors.index.json");
  const json j = read_json_file(index);
  auto map = j.find("weight_map");
  if (map == j.end() || !map->is_object())
    throw ModelFolderError(index.string() + ": field \"weight_map\" is missing or not an object");
  std::set<std::string> shards;
  for (const auto& [tensor, shard] : map->items()) {
    if (!shard.is_string())
      throw ModelFolderError(index.string() + ": weight_map entry \"" + tensor +
                             "\" is not a file name");
    shards.insert(shard.get<std::string>());
  }
  for (const auto& shard : shards)
    if (!fs::exists(folder / shard))
      throw ModelFolderError(index.string() + ": shard \"" + shard +
                             "\" is missing from the folder");
  return {shards.begin(), shards.end()};
}

}  // namespace

ModelFolderSummary model_folder_inspect(const fs::path& folder) {
  if (!fs::is_directory(folder)) throw ModelFolderError(folder.string() + ": not a folder");
  const fs::path config_file = folder / "config.json";
  if (!fs::exists(config_file))
    throw ModelFolderError(config_file.string() + ": missing (not a Hugging Face model folder?)");
  const json config = read_json_file(config_file);
  if (!config.is_object()) throw ModelFolderError(config_file.string() + ": not a JSON object");

  ModelFolderSummary s;
  s.folder = folder;
  auto type = config.find("model_type");
  if (type == config.end() || !type->is_string())
    throw ModelFolderError(config_file.string() +
                           ": field \"model_type\" is missing or not a string");
  s.model_type = type->get<std::string>();
  s.num_layers = read_count(config, config_file, {"num_hidden_layers", "n_layer"}, true);
  s.num_heads = read_count(config, config_file, {"num_attention_heads", "n_head"}, true);
  s.hidden_size = read_count(config, config_file, {"hidden_size", "n_embd", "d_model"}, false);
  s.weight_files = find_weight_files(folder);
  s.has_tokenizer = fs::exists(folder / "tokenizer.json");
  return s;
}

}  // namespace sinkscope::models
