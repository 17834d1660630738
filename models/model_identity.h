#pragma once
// What identifies a model and an input file in every output we write: the
// SHA-256 of config.json and tokenizer.json (a changed model is visible in the
// header of a CSV made a month ago) and the weight files' names and sizes
// (hashing gigabytes for a header would cost more than the run).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace sinkscope::models {

struct ModelIdentity {
  std::string configSha256;     // of config.json's bytes
  std::string tokenizerSha256;  // of tokenizer.json's bytes; empty without one
  std::vector<std::pair<std::string, std::uint64_t>> weightFiles;  // name as the folder spells it, bytes
};

// Reads through the same bounded, confined readers as loading (input_files.h).
// Throws ModelInputError naming the file.
ModelIdentity model_identity(const std::filesystem::path& folder);

// Lowercase hex SHA-256 of `bytes` (OpenSSL).
std::string sha256_hex(const std::string& bytes);

// What identifies the weight files without reading them: each one's resolved
// path, size, modification time (ns), device and inode, and config.json's
// SHA-256 (how the files are read into matrices). Equal stamps mean the same
// files, as for make or ccache; any rewrite of a file changes its stamp.
std::string weight_files_stamp(const std::filesystem::path& folder);

// The SHA-256 of the weight files' contents (each file's name, size and bytes,
// in the folder's order): what identifies a model's weights wherever it is
// copied. Kept in the user's cache ($XDG_CACHE_HOME or ~/.cache,
// sinkscope/weights-sha256) under weight_files_stamp, so each version of the
// files is read once. A folder whose weights are larger than `maxBytes` and
// not yet cached gives "" (not read: hashing gigabytes would stall the caller).
// Throws ModelInputError naming a file that cannot be read.
// `stop`, asked between blocks of 4 MiB, ends an unfinished hash with "".
std::string weight_files_sha256(const std::filesystem::path& folder,
                                std::uint64_t maxBytes = ~std::uint64_t{0},
                                const std::function<bool()>& stop = {});

// The header lines of an output: model_config_sha256, tokenizer_sha256,
// weight_files ("model.safetensors 1234 bytes; ...").
std::vector<std::pair<std::string, std::string>> model_identity_header(const ModelIdentity& id);

}  // namespace sinkscope::models
