#include "models/model_folder.h"

#include <set>

#include "models/internal/json_input.h"
#include "models/model_config.h"

namespace sinkscope::models {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Most shards an index may name (the largest public checkpoints have a few hundred).
constexpr std::size_t kMaxShards = 100000;

json read_json_file(const fs::path& file, std::size_t maxBytes) {
  return internal::rethrow_as<ModelFolderError>(
      [&] { return internal::json_parse_bounded(input_file_read(file, maxBytes), file.string()); });
}

// The first of `names` present in `config` as an integer in 1..maximum; 0 when
// none is present and `required` is false.
int read_count(const json& config, const fs::path& file, std::initializer_list<const char*> names,
               bool required, long long maximum) {
  for (const char* name : names) {
    auto it = config.find(name);
    if (it == config.end()) continue;
    if (!it->is_number_integer() || (it->is_number_unsigned() && it->get<unsigned long long>() >
                                                                     static_cast<unsigned long long>(maximum)) ||
        it->get<long long>() <= 0 || it->get<long long>() > maximum)
      throw ModelFolderError(file.string() + ": field \"" + name +
                             "\" must be an integer in 1.." + std::to_string(maximum));
    return static_cast<int>(it->get<long long>());
  }
  if (required)
    throw ModelFolderError(file.string() + ": field \"" + *names.begin() + "\" is missing");
  return 0;
}

// A name an index may use for a shard: relative, inside the folder, printable.
void check_shard_name(const std::string& name, const std::string& source,
                      const std::string& tensor) {
  const std::string where = source + ": weight_map entry \"" + tensor + "\" ";
  if (name.empty()) throw ModelFolderError(where + "names an empty file");
  if (name.size() > 4096) throw ModelFolderError(where + "names a file with an over-long name");
  if (name.find('\0') != std::string::npos)
    throw ModelFolderError(where + "names a file with a NUL byte");
  const fs::path p(name);
  if (p.has_root_directory() || p.has_root_name())
    throw ModelFolderError(where + "names the absolute path \"" + name +
                           "\"; shards must lie inside the model folder");
  for (const auto& part : p)
    if (part == "..")
      throw ModelFolderError(where + "names \"" + name + "\", which leaves the model folder");
}

}  // namespace

std::vector<std::string> model_index_shards(const std::string& text, const std::string& source) {
  const json j = internal::rethrow_as<ModelFolderError>(
      [&] { return internal::json_parse_bounded(text, source); });
  if (!j.is_object()) throw ModelFolderError(source + ": not a JSON object");
  auto map = j.find("weight_map");
  if (map == j.end() || !map->is_object())
    throw ModelFolderError(source + ": field \"weight_map\" is missing or not an object");
  if (map->empty()) throw ModelFolderError(source + ": field \"weight_map\" names no tensor");
  std::set<std::string> shards;
  for (const auto& [tensor, shard] : map->items()) {
    if (!shard.is_string())
      throw ModelFolderError(source + ": weight_map entry \"" + tensor + "\" is not a file name");
    const std::string& name = shard.get_ref<const std::string&>();
    check_shard_name(name, source, tensor);
    shards.insert(name);
    if (shards.size() > kMaxShards)
      throw ModelFolderError(source + ": weight_map names more than " +
                             std::to_string(kMaxShards) + " files");
  }
  return {shards.begin(), shards.end()};
}

namespace {

// (name as the folder spells it, resolved path) of every weight file.
std::vector<std::pair<std::string, fs::path>> weight_files_named(const fs::path& folder) {
  return internal::rethrow_as<ModelFolderError>([&] {
    using Files = std::vector<std::pair<std::string, fs::path>>;
    if (input_file_present(folder, "model.safetensors"))
      return Files{{"model.safetensors", input_file_confine(folder, "model.safetensors")}};
    if (!input_file_present(folder, "model.safetensors.index.json"))
      throw ModelFolderError(folder.string() +
                             ": no model.safetensors and no model.safetensors.index.json");
    const fs::path index = input_file_confine(folder, "model.safetensors.index.json");
    const std::string source = (folder / "model.safetensors.index.json").string();
    Files files;
    for (const auto& shard : model_index_shards(input_file_read(index, kIndexMaxBytes), source)) {
      if (!input_file_present(folder, shard))
        throw ModelFolderError(source + ": shard \"" + shard + "\" is missing from the folder");
      files.emplace_back(shard, input_file_confine(folder, shard));
    }
    return files;
  });
}

}  // namespace

std::vector<fs::path> model_weight_files(const fs::path& folder) {
  std::vector<fs::path> out;
  for (auto& [name, path] : weight_files_named(folder)) out.push_back(std::move(path));
  return out;
}

ModelFolderSummary model_folder_inspect(const fs::path& folder) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) throw ModelFolderError(folder.string() + ": not a folder");
  const fs::path configName = folder / "config.json";
  if (!input_file_present(folder, "config.json"))
    throw ModelFolderError(configName.string() + ": missing (not a Hugging Face model folder?)");
  const fs::path configFile = internal::rethrow_as<ModelFolderError>(
      [&] { return input_file_confine(folder, "config.json"); });
  const json config = read_json_file(configFile, kConfigMaxBytes);
  if (!config.is_object()) throw ModelFolderError(configName.string() + ": not a JSON object");

  ModelFolderSummary s;
  s.folder = folder;
  auto type = config.find("model_type");
  if (type == config.end() || !type->is_string())
    throw ModelFolderError(configName.string() +
                           ": field \"model_type\" is missing or not a string");
  s.model_type = type->get<std::string>();
  s.num_layers =
      read_count(config, configName, {"num_hidden_layers", "n_layer"}, true, kMaxLayers);
  s.num_heads = read_count(config, configName, {"num_attention_heads", "n_head"}, true, kMaxHeads);
  s.hidden_size =
      read_count(config, configName, {"hidden_size", "n_embd", "d_model"}, false, kMaxHiddenSize);
  for (auto& [name, path] : weight_files_named(folder)) {
    s.weight_files.push_back(name);
    s.weight_paths.push_back(std::move(path));
  }
  s.has_tokenizer = input_file_present(folder, "tokenizer.json");
  return s;
}

}  // namespace sinkscope::models
