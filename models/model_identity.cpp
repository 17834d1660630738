#include "models/model_identity.h"

#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <vector>

#include "models/input_files.h"
#include "models/model_folder.h"

namespace sinkscope::models {

namespace fs = std::filesystem;

namespace {

// A digest as lowercase hex.
std::string hex_of(const unsigned char* digest, unsigned int length) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

}  // namespace

std::string sha256_hex(const std::string& bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed (OpenSSL)");
  return hex_of(digest, length);
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

namespace {

fs::path weights_hash_cache() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return fs::path(xdg) / "sinkscope" / "weights-sha256";
  if (const char* home = std::getenv("HOME"); home && *home)
    return fs::path(home) / ".cache" / "sinkscope" / "weights-sha256";
  return {};
}

bool is_sha256_hex(const std::string& text) {
  return text.size() == 64 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

std::string weight_files_sha256(const fs::path& folder, std::uint64_t maxBytes,
                                const std::function<bool()>& stop) {
  const fs::path cache = weights_hash_cache();
  const fs::path entry =
      cache.empty() ? fs::path() : cache / sha256_hex(weight_files_stamp(folder));
  if (!entry.empty()) {
    std::ifstream in(entry);
    std::string cached;
    if (in >> cached && is_sha256_hex(cached)) return cached;
  }
  const ModelFolderSummary summary = model_folder_inspect(folder);
  std::uint64_t total = 0;
  for (const fs::path& path : summary.weight_paths) {
    std::error_code ec;
    total += ec ? 0 : static_cast<std::uint64_t>(fs::file_size(path, ec));
  }
  if (total > maxBytes) return {};
  const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                        &EVP_MD_CTX_free);
  if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed (OpenSSL)");
  std::vector<char> block(std::size_t{4} << 20);
  for (std::size_t k = 0; k < summary.weight_paths.size(); ++k) {
    std::ifstream in(summary.weight_paths[k], std::ios::binary);
    if (!in) throw ModelInputError(summary.weight_paths[k].string() + ": cannot be read");
    std::error_code ec;
    const std::string head = summary.weight_files[k] + '\0' +
                             std::to_string(fs::file_size(summary.weight_paths[k], ec)) + '\0';
    EVP_DigestUpdate(context.get(), head.data(), head.size());
    while (in) {
      if (stop && stop()) return {};
      in.read(block.data(), static_cast<std::streamsize>(block.size()));
      if (in.gcount() > 0)
        EVP_DigestUpdate(context.get(), block.data(), static_cast<std::size_t>(in.gcount()));
    }
    if (in.bad()) throw ModelInputError(summary.weight_paths[k].string() + ": cannot be read");
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(context.get(), digest, &length) != 1)
    throw std::runtime_error("SHA-256 failed (OpenSSL)");
  const std::string out = hex_of(digest, length);
  if (!entry.empty()) {
    // Through a temporary file and a rename: a reader never sees half a hash.
    std::error_code ec;
    fs::create_directories(cache, ec);
    const fs::path partial = entry.string() + ".partial" + std::to_string(::getpid());
    {
      std::ofstream write(partial);
      write << out << "\n";
    }
    fs::rename(partial, entry, ec);
    if (ec) fs::remove(partial, ec);  // no cache (a read-only home): hashed again next time
  }
  return out;
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
