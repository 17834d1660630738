#include "fuzz/fuzz_targets.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "models/input_files.h"
#include "models/model_config.h"
#include "models/model_folder.h"
#include "models/safetensors.h"
#include "models/tokenizer.h"

namespace sinkscope::fuzz {

namespace fs = std::filesystem;
namespace m = sinkscope::models;

namespace {

std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Encodes `text` and checks the result is self-consistent. Text that is not
// valid UTF-8 or holds a NUL must be refused with a TokenizerError; valid text
// may be refused only when `mayRefuse` (a fuzzed tokenizer without an unknown
// token, say), never by the shipped ones.
void encode_checked(const m::Tokenizer& t, const std::string& text, bool mayRefuse,
                    std::optional<bool> onlySpecial = std::nullopt) {
  const bool valid = m::utf8_valid(text) && text.find('\0') == std::string::npos;
  try {
    for (bool special : {true, false}) {
      if (onlySpecial && special != *onlySpecial) continue;
      const m::Encoding e = t.encode(text, special);
      if (!valid) __builtin_trap();
      if (e.ids.size() != e.tokens.size() || e.ids.size() != e.display.size() ||
          e.ids.size() != e.special.size())
        __builtin_trap();
      for (int id : e.ids)
        if (id < 0 || static_cast<std::size_t>(id) >= t.vocabSize()) __builtin_trap();
      for (const auto& d : e.display)
        if (!m::utf8_valid(d)) __builtin_trap();  // display strings go into CSV and the GUI
      if (e.offsets.size() != e.ids.size()) __builtin_trap();
      for (const auto& [b, end] : e.offsets)  // none, or bytes of the text
        if (!(b == -1 && end == -1) && !(0 <= b && b < end && end <= static_cast<int>(text.size())))
          __builtin_trap();
    }
  } catch (const m::TokenizerError&) {
    if (valid && !mayRefuse) __builtin_trap();
  }
}

}  // namespace

bool fuzz_safetensors(const std::uint8_t* data, std::size_t size) {
  try {
    std::vector<std::byte> bytes(size);
    std::transform(data, data + size, bytes.begin(), [](std::uint8_t b) { return std::byte{b}; });
    const auto file = m::SafetensorsFile::fromBytes(std::move(bytes), "fuzz.safetensors");
    for (const auto& [name, t] : file.tensors()) {
      if (t.bytes.size() != static_cast<std::size_t>(t.numel()) * m::dtype_size(t.dtype))
        __builtin_trap();
      if (t.dtype == m::DType::F32 || t.dtype == m::DType::F16 || t.dtype == m::DType::BF16 ||
          t.dtype == m::DType::F64)
        (void)m::tensor_to_f32(t);
    }
    return true;
  } catch (const m::ModelInputError&) {
    return false;
  }
}

bool fuzz_config(const std::uint8_t* data, std::size_t size) {
  try {
    const m::ModelConfig c = m::model_config_parse(text_of(data, size), "config.json");
    if (c.num_layers < 1 || c.num_layers > m::kMaxLayers || c.num_heads < 1 ||
        c.num_heads > m::kMaxHeads || c.vocab_size < 1 || c.vocab_size > m::kMaxVocabSize ||
        c.hidden_size < 1 || c.head_dim < 1 || c.max_positions < 1 ||
        c.position_offset >= c.max_positions || !(c.norm_eps >= 0.0))
      __builtin_trap();
    (void)c.rotaryDims();
    return true;
  } catch (const m::ModelInputError&) {
    return false;
  }
}

bool fuzz_index(const std::uint8_t* data, std::size_t size) {
  try {
    for (const auto& shard : m::model_index_shards(text_of(data, size), "index.json")) {
      const fs::path p(shard);
      if (shard.empty() || p.is_absolute()) __builtin_trap();
      for (const auto& part : p)
        if (part == "..") __builtin_trap();
    }
    return true;
  } catch (const m::ModelInputError&) {
    return false;
  }
}

bool fuzz_tokenizer(const std::uint8_t* data, std::size_t size) {
  const std::string all = text_of(data, size);
  std::vector<std::string> parts;
  for (std::size_t begin = 0;;) {
    const std::size_t cut = all.find("\n\x01\n", begin);
    parts.push_back(all.substr(begin, cut == std::string::npos ? std::string::npos : cut - begin));
    if (cut == std::string::npos || parts.size() == 4) break;
    begin = cut + 3;
  }
  std::vector<std::pair<std::string, std::string>> configs;
  if (parts.size() > 1) configs.emplace_back("tokenizer_config.json", parts[1]);
  if (parts.size() > 2) configs.emplace_back("special_tokens_map.json", parts[2]);
  std::shared_ptr<const m::Tokenizer> t;
  try {
    t = m::Tokenizer::fromFiles(parts[0], "tokenizer.json", configs);
  } catch (const m::ModelInputError&) {
    return false;
  }
  (void)t->kind();
  for (const char* text : {"Hello, world! 123", "  x\u00e9\u2603 \xe4\xb8\xad", "<s>a</s>"})
    encode_checked(*t, text, true);
  if (parts.size() > 3) encode_checked(*t, parts[3], true);
  return true;
}

std::vector<std::string> fuzz_encode_tokenizers() {
  std::vector<std::string> files;
  for (const char* root : {SINKSCOPE_SOURCE_DIR "/resources/models", SINKSCOPE_SOURCE_DIR "/tests/fuzz/tokenizers"}) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root, ec)) {
      if (e.is_directory() && fs::exists(e.path() / "tokenizer.json"))
        files.push_back((e.path() / "tokenizer.json").string());
      else if (e.path().extension() == ".json")
        files.push_back(e.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

bool fuzz_encode(const std::uint8_t* data, std::size_t size) {
  static const std::vector<std::shared_ptr<const m::Tokenizer>> tokenizers = [] {
    std::vector<std::shared_ptr<const m::Tokenizer>> out;
    for (const auto& f : fuzz_encode_tokenizers())
      out.push_back(m::Tokenizer::fromJson(m::input_file_read(f, m::kTokenizerMaxBytes), f));
    return out;
  }();
  if (size == 0 || tokenizers.empty()) return false;
  const m::Tokenizer& t = *tokenizers[data[0] % tokenizers.size()];
  const std::string text = text_of(data + 1, size - 1);
  encode_checked(t, text, false, (data[0] >> 7) != 0);
  return m::utf8_valid(text) && text.find('\0') == std::string::npos;
}

const std::vector<std::string>& fuzz_target_names() {
  static const std::vector<std::string> names{"safetensors", "config",   "index",   "tokenizer",
                                              "encode",      "sentences", "session", "study",
                                              "shards",      "capture",   "npy"};
  return names;
}

FuzzTarget fuzz_target_named(const std::string& name) {
  if (name == "safetensors") return fuzz_safetensors;
  if (name == "config") return fuzz_config;
  if (name == "index") return fuzz_index;
  if (name == "tokenizer") return fuzz_tokenizer;
  if (name == "encode") return fuzz_encode;
  if (name == "sentences") return fuzz_sentences;
  if (name == "session") return fuzz_session;
  if (name == "study") return fuzz_study;
  if (name == "shards") return fuzz_shards;
  if (name == "capture") return fuzz_capture;
  if (name == "npy") return fuzz_npy;
  return nullptr;
}

}  // namespace sinkscope::fuzz
