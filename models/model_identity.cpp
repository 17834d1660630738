#include "models/model_identity.h"

#include <openssl/evp.h>
#include <sys/stat.h>

#include <stdexcept>

#include "models/input_files.h"
#include "models/model_folder.h"

namespace sinkscope::models {

namespace fs = std::filesystem;

std::string sha256_hex(const std::string& bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed (OpenSSL)");
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

ModelIdentity model_identity(const fs::path& folder) {
  ModelIdentity id;
  id.configSha256 =
      sha256_hex(input_file_read(input_file_confine(folder, "config.json"), kConfigMaxBytes));
  if (input_file_present(folder, "tokenizer.json"))
    id.tokenizerSha256 = sha256_hex(
        input_file_read(input_file_confine(folder, "tokenizer.json"), kTokenizerMaxBytes));
  const ModelFolderSummary summary = model_folder_inspect(folder);  // reads the index once
  for (std::size_t k = 0; k < summary.weight_paths.size(); ++k) {
    std::error_code ec;
    const auto size = fs::file_size(summary.weight_paths[k], ec);
    id.weightFiles.emplace_back(summary.weight_files[k], ec ? 0 : static_cast<std::uint64_t>(size));
  }
  return id;
}

std::string weight_files_stamp(const fs::path& folder) {
  std::string stamp =
      "config " +
      sha256_hex(input_file_read(input_file_confine(folder, "config.json"), kConfigMaxBytes)) + "\n";
  for (const fs::path& path : model_folder_inspect(folder).weight_paths) {
    std::error_code ec;
    const fs::path resolved = fs::canonical(path, ec);
    struct stat st {};
    if (ec || ::stat(resolved.c_str(), &st) != 0)
      throw ModelInputError(path.string() + ": cannot be read");
    stamp += resolved.string() + ' ' + std::to_string(st.st_size) + ' ' +
             std::to_string(st.st_mtim.tv_sec) + '.' + std::to_string(st.st_mtim.tv_nsec) + ' ' +
             std::to_string(st.st_dev) + ' ' + std::to_string(st.st_ino) + '\n';
  }
  return stamp;
}

std::vector<std::pair<std::string, std::string>> model_identity_header(const ModelIdentity& id) {
  std::string weights;
  for (const auto& [name, bytes] : id.weightFiles)
    weights += (weights.empty() ? "" : "; ") + name + " " + std::to_string(bytes) + " bytes";
  return {{"model_config_sha256", id.configSha256},
          {"tokenizer_sha256", id.tokenizerSha256.empty() ? "none" : id.tokenizerSha256},
          {"weight_files", weights}};
}

}  // namespace sinkscope::models
