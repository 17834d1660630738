#pragma once
// Tokenizers interpreted from a Hugging Face tokenizer.json: BPE (byte-level
// and SentencePiece-style with byte fallback), WordPiece and Unigram models,
// with their normalizers, pre-tokenizers, added tokens and post-processors.
// Every token also gets a display string a person can read.
#include "models/input_files.h"
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace sinkscope::models {

class TokenizerError : public ModelInputError {
 public:
  using ModelInputError::ModelInputError;
};

struct Encoding {
  std::vector<int> ids;
  std::vector<std::string> tokens;   // vocabulary strings
  std::vector<std::string> display;  // readable: spaces, bytes and markers rendered
  std::vector<bool> special;         // added special tokens (BOS, [CLS], ...)
  // Bytes [begin, end) of the encoded text each token covers, through the
  // normalizer's alignment (as Hugging Face's offsets, by byte, white space
  // at either end left out); {-1, -1}: none (a token the post-processor
  // adds, or one whose characters cannot be placed).
  std::vector<std::pair<int, int>> offsets;
};

struct SpecialTokens {
  std::optional<std::string> bos, eos, unk, pad, cls, sep, mask;
};

class Tokenizer {
 public:
  // Reads FOLDER/tokenizer.json (and tokenizer_config.json /
  // special_tokens_map.json when present). Throws TokenizerError naming the
  // file and the problem, e.g. an unsupported component type.
  static std::shared_ptr<const Tokenizer> load(const std::filesystem::path& folder);
  static std::shared_ptr<const Tokenizer> fromJson(
      const std::string& tokenizerJson, const std::string& sourceName = "tokenizer.json");
  // What load() does after reading the files: tokenizer.json's text, then
  // (source name, text) of special_tokens_map.json and tokenizer_config.json
  // in that order, each optional. For tests and fuzzing.
  static std::shared_ptr<const Tokenizer> fromFiles(
      const std::string& tokenizerJson, const std::string& sourceName,
      const std::vector<std::pair<std::string, std::string>>& configs);
  ~Tokenizer();

  // Throws TokenizerError for text that is not valid UTF-8 or holds a NUL
  // ("text: ... at byte N"), and when the tokenizer cannot represent a character.
  Encoding encode(const std::string& text, bool addSpecialTokens = true) const;

  // "BPE (byte-level)", "BPE (SentencePiece, byte fallback)", "WordPiece", "Unigram".
  std::string kind() const;
  // One past the largest id encode() can return: the model's vocabulary, added
  // tokens and the post-processor's special-token ids.
  std::size_t vocabSize() const;
  // The (token, id) pairs the post-processor adds to every single input
  // (BOS, [CLS], [SEP], ...), in template order.
  std::vector<std::pair<std::string, int>> alwaysAddedIds() const;
  std::optional<int> tokenToId(const std::string& token) const;
  std::optional<std::string> idToToken(int id) const;
  const SpecialTokens& specialTokens() const;
  // The readable form of a vocabulary string.
  std::string displayOf(const std::string& token) const;

  struct Impl;

 private:
  explicit Tokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sinkscope::models
