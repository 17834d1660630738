#pragma once
// Every file a model folder names is read through here: model folders come
// from the internet, so each file must resolve inside its folder, be a
// regular file (a FIFO would block open(), /dev/zero would never end), and
// stay under a size cap before a byte of it is parsed.
#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace sinkscope::models {

// The base of every "this model folder or file is bad" error (config, index,
// safetensors, tokenizer): the CLI answers all of them with exit code 2 and
// the GUI with a status-bar error. Messages name the file and the problem.
class ModelInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Size caps of the files we parse whole (documented in docs/reliability.md).
inline constexpr std::size_t kConfigMaxBytes = std::size_t{1} << 20;           // config.json
inline constexpr std::size_t kTokenizerConfigMaxBytes = std::size_t{4} << 20;  // tokenizer_config.json, special_tokens_map.json
inline constexpr std::size_t kIndexMaxBytes = std::size_t{16} << 20;  // model.safetensors.index.json
inline constexpr std::size_t kTokenizerMaxBytes = std::size_t{64} << 20;  // tokenizer.json
inline constexpr std::size_t kTextFileMaxBytes = std::size_t{1} << 30;  // sentence, batch and corpus files
// Deepest nesting of arrays and objects accepted in any JSON we read. Real
// files nest at most 8 deep (a Sequence of Sequences in tokenizer.json).
inline constexpr int kJsonMaxDepth = 64;

// `name` (as a model folder's index or config spells it) as a path inside
// `folder`. Refuses absolute names, names that leave the folder (after
// following symlinks), and symlink loops. The one allowed escape is the
// Hugging Face cache layout: a file of `.../models--ORG--NAME/snapshots/REV/`
// may link into `.../models--ORG--NAME/blobs/`. Throws ModelInputError.
std::filesystem::path input_file_confine(const std::filesystem::path& folder,
                                         const std::string& name);

// Whether `name` exists in `folder` as something input_file_read could open
// (without following it outside the folder: a link outside counts as present,
// so that reading it fails with a clear message instead of being skipped).
bool input_file_present(const std::filesystem::path& folder, const std::string& name);

// The whole content of `file`, which must be a regular file of at most
// `maxBytes` bytes. FIFOs, devices, sockets and folders are refused before
// anything could block. Throws ModelInputError naming the file.
std::string input_file_read(const std::filesystem::path& file, std::size_t maxBytes);
// The same for a file that must lie where it is named: a symbolic link is
// refused rather than followed (the files of a study folder).
std::string input_file_read_unlinked(const std::filesystem::path& file, std::size_t maxBytes);

// Whether `text` is valid UTF-8 (no overlongs, no surrogates, nothing above
// U+10FFFF); when not, `badOffset` gets the byte offset of the first bad byte.
bool utf8_valid(const std::string& text, std::size_t* badOffset = nullptr);

// Input text as SinkScope accepts it: valid UTF-8 without NUL characters.
// Throws ModelInputError("SOURCE: ... at byte N") otherwise.
void input_text_check(const std::string& text, const std::string& source);

}  // namespace sinkscope::models
