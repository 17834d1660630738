#pragma once
// Internal to models/: the stages of a Hugging Face tokenizer pipeline
// (normalizer, pre-tokenizer, model), each built from its tokenizer.json node.
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace sinkscope::models::tok {

using nlohmann::json;

// Largest token id a tokenizer may use (as config.json's vocab_size limit).
inline constexpr int kMaxTokenId = (1 << 24) - 1;

// Longest replacement text a normalizer or pre-tokenizer may insert (Replace,
// Prepend, Metaspace): real files use one to three characters; a megabyte
// inserted at every space would turn a sentence into gigabytes.
inline constexpr std::size_t kMaxInsertedBytes = 256;

// `text` when it is at most kMaxInsertedBytes long; throws std::invalid_argument naming `what`.
std::string bounded_insert(std::string text, const std::string& what);

// A token id from a tokenizer.json node: an integer in 0..kMaxTokenId.
// Throws std::invalid_argument naming `what` otherwise.
int json_token_id(const json& value, const std::string& what);

// ---- UTF-8 and Unicode helpers (ICU underneath) ----
std::vector<char32_t> utf8_decode(const std::string& s);  // invalid bytes become U+FFFD
std::string utf8_encode(char32_t c);
std::string utf8_encode(const std::vector<char32_t>& cs);
bool is_whitespace(char32_t c);   // Unicode White_Space
bool is_punctuation(char32_t c);  // Unicode P* or ASCII symbol (BERT's rule)
bool is_control(char32_t c);      // BERT's clean_text rule
bool is_cjk(char32_t c);

// ---- the GPT-2 byte <-> character table ----
const std::vector<char32_t>& byte_to_char();
int char_to_byte(char32_t c);  // -1 when c is not in the table
// A byte-level token's bytes; nothing when a character is off the table.
std::optional<std::string> byte_level_bytes(const std::string& token);

// ---- regex with Unicode classes (PCRE2, UTF + UCP) ----
class Regex {
 public:
  explicit Regex(const std::string& pattern);  // throws std::invalid_argument with PCRE2's message
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;
  // Byte ranges [begin, end) of all non-overlapping matches, left to right.
  std::vector<std::pair<std::size_t, std::size_t>> findAll(const std::string& text) const;
  std::string replaceAll(const std::string& text, const std::string& replacement) const;

 private:
  void* code_;
};

// ---- stages ----

// Text with, for each of its bytes, the bytes [first, second) of the original
// input it came from (Hugging Face's NormalizedString alignments, by byte).
struct AlignedText {
  std::string text;
  std::vector<std::pair<int, int>> origin;  // one per byte of text
};
// `text` as it stands, its bytes at offset, offset + 1, ... of the original.
AlignedText aligned_identity(const std::string& text, int offset);
// The origins of bytes [b, e) of `in` as one range (first start to last end);
// {-1, -1} when none has an origin.
std::pair<int, int> origin_union(const AlignedText& in, std::size_t b, std::size_t e);

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual std::string apply(const std::string& text) const = 0;
  // apply() with the alignment of every output byte to the input's origin.
  // The text is always apply()'s; the alignment is as fine as can be shown
  // right: per character where normalising each character alone gives the
  // same text, else per run of white space or of other characters, else
  // (a stripped text) by its place in the input, else the whole input.
  virtual AlignedText applyAligned(const AlignedText& in) const;
};

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  // Splits each piece further. `atStart`: the pieces begin the whole input
  // (Metaspace's "first" prepend scheme depends on it).
  virtual std::vector<std::string> apply(const std::vector<std::string>& pieces,
                                         bool atStart) const = 0;
  virtual bool byteLevel() const { return false; }
  virtual bool metaspace() const { return false; }
};

class TokenModel {
 public:
  virtual ~TokenModel() = default;
  virtual void tokenize(const std::string& piece, std::vector<int>& out) const = 0;
  virtual std::string kind() const = 0;
  virtual bool byteFallback() const { return false; }
  // WordPiece's marker of a token that continues a word ("##"); "" for others.
  virtual std::string continuingPrefix() const { return {}; }

  std::unordered_map<std::string, int> vocab;
  std::vector<std::string> idToToken;
  void setVocab(std::unordered_map<std::string, int> v);
};

// Throw std::invalid_argument naming the unsupported type or bad field.
std::unique_ptr<Normalizer> normalizer_from_json(const json& node);
std::unique_ptr<PreTokenizer> pretokenizer_from_json(const json& node);
std::unique_ptr<TokenModel> model_from_json(const json& node);

}  // namespace sinkscope::models::tok
