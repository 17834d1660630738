// The tokenizer pipeline: added tokens are cut out first, each remaining
// segment is normalized, pre-tokenized and tokenized by the model, then the
// post-processor adds the special tokens.
#include "models/tokenizer.h"

#include <array>
#include <cstdio>

#include "models/internal/json_input.h"
#include "models/internal/tokenizer_parts.h"

namespace sinkscope::models {

using tok::json;

namespace {

struct AddedToken {
  int id = 0;
  std::string content;
  bool singleWord = false, lstrip = false, rstrip = false, normalized = false, special = false;
};

struct TemplatePiece {
  bool sequence = false;  // the input's own tokens
  std::vector<int> ids;   // special token ids (sequence = false)
  std::vector<std::string> tokens;
};

bool is_word_char(char32_t c) { return c == '_' || (c < 128 && std::isalnum(static_cast<int>(c))); }

std::string render_text(const std::string& text) {
  std::string out;
  for (char32_t c : tok::utf8_decode(text)) {
    if (c == ' ')
      out += "\u2423";  // ␣
    else if (c == '\n')
      out += "\u21b5";  // ↵
    else if (c == '\t')
      out += "\u21e5";  // ⇥
    else if (c == '\r')
      out += "\u240d";  // ␍
    else if (c < 0x20 || c == 0x7f || c == 0x85 || c == 0xfeff) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "<U+%04X>", static_cast<unsigned>(c));
      out += buf;
    } else
      out += tok::utf8_encode(c);
  }
  return out;
}

// Bytes that may not be valid UTF-8 on their own (a byte-level token can hold
// part of a character): valid runs as text, stray bytes as <0xNN>.
std::string render_bytes(const std::string& bytes) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size();) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    const std::size_t len = b < 0x80         ? 1
                            : (b >> 5) == 6  ? 2
                            : (b >> 4) == 14 ? 3
                            : (b >> 3) == 30 ? 4
                                             : 0;
    bool ok = len > 0 && i + len <= bytes.size();
    for (std::size_t k = 1; ok && k < len; ++k)
      ok = (static_cast<unsigned char>(bytes[i + k]) & 0xc0) == 0x80;
    if (!ok) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "<0x%02X>", b);
      out += buf;
      ++i;
      continue;
    }
    out += render_text(bytes.substr(i, len));
    i += len;
  }
  return out;
}

// A special token as tokenizer_config.json spells it: a string or
// {"content": string, ...}; null means none.
std::optional<std::string> token_text(const json& v, const std::string& source, const char* key) {
  if (v.is_null()) return std::nullopt;
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v["content"].is_string())
    return v["content"].get<std::string>();
  throw TokenizerError(source + ": field \"" + key +
                       "\" must be a string or an object with a \"content\" string");
}

std::string p_str(const std::filesystem::path& p) { return p.string(); }

// A field of tokenizer_config.json / special_tokens_map.json of the expected
// type, or the fallback when absent or null.
bool bool_field(const json& j, const char* key, bool fallback, const std::string& source) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_boolean())
    throw TokenizerError(source + ": field \"" + key + "\" must be true or false");
  return it->get<bool>();
}
std::string string_field(const json& j, const char* key, const std::string& source) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return {};
  if (!it->is_string()) throw TokenizerError(source + ": field \"" + key + "\" must be a string");
  return it->get<std::string>();
}

}  // namespace

struct Tokenizer::Impl {
  std::unique_ptr<tok::Normalizer> normalizer;
  std::unique_ptr<tok::PreTokenizer> preTokenizer;
  std::unique_ptr<tok::TokenModel> model;
  std::vector<AddedToken> added;
  std::unordered_map<int, const AddedToken*> addedById;
  std::unordered_map<std::string, int> addedByContent;
  // Added tokens by their first byte: the split tries only those that can
  // start at a position (thousands of added tokens must not make it O(n k)).
  std::array<std::vector<const AddedToken*>, 256> addedByFirstByte;
  std::vector<std::vector<TemplatePiece>> processors;  // applied in order; empty = none
  bool byteLevel = false;
  SpecialTokens specials;
  std::string source;  // tokenizer.json's path, for messages

  void parse(const json& j) {
    if (!j.is_object()) throw std::invalid_argument("not a JSON object");
    if (!j.contains("model")) throw std::invalid_argument("field \"model\" is missing");
    model = tok::model_from_json(j["model"]);
    normalizer = tok::normalizer_from_json(j.value("normalizer", json()));
    preTokenizer = tok::pretokenizer_from_json(j.value("pre_tokenizer", json()));
    byteLevel = preTokenizer && preTokenizer->byteLevel();
    if (!byteLevel && j.contains("decoder") && j["decoder"].is_object())
      byteLevel = j["decoder"].value("type", "") == "ByteLevel" && model->kind() == "BPE" &&
                  !model->byteFallback();
    if (j.contains("added_tokens") && !j["added_tokens"].is_null()) {
      if (!j["added_tokens"].is_array())
        throw std::invalid_argument("field \"added_tokens\" must be a list");
      added.reserve(j["added_tokens"].size());
    }
    if (j.contains("added_tokens") && !j["added_tokens"].is_null())
      for (const auto& a : j["added_tokens"]) {
        AddedToken t;
        if (!a.is_object() || !a.contains("content") || !a["content"].is_string())
          throw std::invalid_argument("an added_tokens entry has no \"content\" string");
        t.id = tok::json_token_id(a.value("id", json()), "added token \"" +
                                                             a["content"].get<std::string>() +
                                                             "\" id");
        t.content = a.at("content").get<std::string>();
        t.singleWord = a.value("single_word", false);
        t.lstrip = a.value("lstrip", false);
        t.rstrip = a.value("rstrip", false);
        t.normalized = a.value("normalized", false);
        t.special = a.value("special", false);
        if (!t.content.empty()) added.push_back(t);
      }
    for (const auto& t : added) {
      addedById[t.id] = &t;
      addedByContent[t.content] = t.id;
      addedByFirstByte[static_cast<unsigned char>(t.content[0])].push_back(&t);
    }
    if (j.contains("post_processor") && !j["post_processor"].is_null())
      parsePost(j["post_processor"]);
  }

  void parsePost(const json& p) {
    const std::string type = p.value("type", "");
    auto special = [&](const std::string& token, std::optional<int> id) {
      TemplatePiece piece;
      const auto found = id ? id : idOf(token);
      if (!found)
        throw std::invalid_argument("post-processor: special token \"" + token +
                                    "\" is not in the vocabulary");
      piece.ids = {*found};
      piece.tokens = {token};
      return piece;
    };
    TemplatePiece sequence;
    sequence.sequence = true;
    if (type == "ByteLevel") return;
    if (type == "Sequence") {
      for (const auto& q : p.at("processors")) parsePost(q);
      return;
    }
    if (processors.size() > 64) throw std::invalid_argument("post-processor: too many steps");
    if (type == "BertProcessing" || type == "RobertaProcessing") {
      const json& cls = p.at("cls");
      const json& sep = p.at("sep");
      processors.push_back(
          {special(cls.at(0).get<std::string>(), tok::json_token_id(cls.at(1), "post_processor cls id")),
           sequence,
           special(sep.at(0).get<std::string>(), tok::json_token_id(sep.at(1), "post_processor sep id"))});
      return;
    }
    if (type == "TemplateProcessing") {
      std::vector<TemplatePiece> pieces;
      const json& tokens = p.value("special_tokens", json::object());
      for (const auto& item : p.at("single")) {
        if (item.contains("Sequence")) {
          pieces.push_back(sequence);
        } else if (item.contains("SpecialToken")) {
          const std::string id = item["SpecialToken"].at("id").get<std::string>();
          TemplatePiece piece;
          if (tokens.contains(id)) {
            for (const auto& i : tokens[id].at("ids"))
              piece.ids.push_back(tok::json_token_id(i, "post_processor special token \"" + id + "\" id"));
            for (const auto& t : tokens[id].at("tokens"))
              piece.tokens.push_back(t.get<std::string>());
          } else {
            piece = special(id, std::nullopt);
          }
          pieces.push_back(piece);
        }
      }
      processors.push_back(std::move(pieces));
      return;
    }
    throw std::invalid_argument("post-processor type \"" + type +
                                "\" is not supported (TemplateProcessing, BertProcessing, "
                                "RobertaProcessing, ByteLevel, Sequence)");
  }

  std::optional<int> idOf(const std::string& token) const {
    if (auto it = addedByContent.find(token); it != addedByContent.end()) return it->second;
    if (auto it = model->vocab.find(token); it != model->vocab.end()) return it->second;
    return std::nullopt;
  }

  // Cuts the text at added tokens (leftmost, longest first).
  struct Segment {
    std::string text;
    const AddedToken* token = nullptr;
    bool atStart = false;
    std::size_t begin = 0;  // of text (an added token: of its content) in the input
  };
  std::vector<Segment> splitAdded(const std::string& text) const {
    std::vector<Segment> out;
    std::size_t pending = 0, pos = 0;
    const auto chars = tok::utf8_decode(text);
    // Byte offsets of characters, for boundary checks.
    while (pos < text.size()) {
      const AddedToken* best = nullptr;
      for (const AddedToken* candidate : addedByFirstByte[static_cast<unsigned char>(text[pos])]) {
        const AddedToken& t = *candidate;
        if (text.compare(pos, t.content.size(), t.content) == 0 &&
            (!best || t.content.size() > best->content.size())) {
          if (t.singleWord) {
            const bool before = pos > 0 && is_word_char(static_cast<unsigned char>(text[pos - 1]));
            const std::size_t e = pos + t.content.size();
            const bool after = e < text.size() && is_word_char(static_cast<unsigned char>(text[e]));
            if (before || after) continue;
          }
          best = &t;
        }
      }
      if (!best) {
        ++pos;
        while (pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xc0) == 0x80) ++pos;
        continue;
      }
      std::size_t start = pos, end = pos + best->content.size();
      if (best->lstrip)
        while (start > pending && tok::is_whitespace(static_cast<unsigned char>(text[start - 1])))
          --start;
      if (best->rstrip)
        while (end < text.size() && tok::is_whitespace(static_cast<unsigned char>(text[end])))
          ++end;
      if (start > pending)
        out.push_back({text.substr(pending, start - pending), nullptr, pending == 0, pending});
      out.push_back({best->content, best, false, pos});
      pos = pending = end;
    }
    if (pending < text.size()) out.push_back({text.substr(pending), nullptr, pending == 0, pending});
    (void)chars;
    return out;
  }

  std::string display(int id, const std::string& token) const {
    if (auto it = addedById.find(id); it != addedById.end()) return token;
    if (byteLevel) {
      std::string bytes;
      for (char32_t c : tok::utf8_decode(token)) {
        const int b = tok::char_to_byte(c);
        if (b < 0) return render_text(token);
        bytes += static_cast<char>(b);
      }
      return render_bytes(bytes);
    }
    unsigned byte = 0;
    if (token.size() == 6 && std::sscanf(token.c_str(), "<0x%2X>", &byte) == 1) {
      if (byte >= 0x21 && byte < 0x7f) return std::string(1, static_cast<char>(byte));
      return token;
    }
    std::string text = token;
    for (std::size_t p; (p = text.find("\u2581")) != std::string::npos;) text.replace(p, 3, " ");
    return render_text(text);
  }

  // The normalized text a model token stands for: its bytes (byte-level),
  // its byte (<0xNN>), its text with "▁" as a space and without WordPiece's
  // "##". Nothing for an added token or a byte-level string off the table.
  std::optional<std::string> surface(int id, const std::string& token) const {
    if (addedById.count(id)) return std::nullopt;
    if (byteLevel) return tok::byte_level_bytes(token);
    unsigned byte = 0;
    if (model->byteFallback() && token.size() == 6 && std::sscanf(token.c_str(), "<0x%2X>", &byte) == 1)
      return std::string(1, static_cast<char>(byte));
    std::string text = token;
    if (const std::string prefix = model->continuingPrefix();
        !prefix.empty() && text.size() > prefix.size() && text.rfind(prefix, 0) == 0)
      text.erase(0, prefix.size());
    for (std::size_t p; (p = text.find("\u2581")) != std::string::npos;) text.replace(p, 3, " ");
    return text;
  }
};

namespace {

bool is_space_byte(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// The bytes of the white-space character at `p` of `t` (Unicode White_Space,
// as the pre-tokenizers drop it: U+00A0, U+3000, ...), 0 when there is none.
std::size_t space_at(std::string_view t, std::size_t p) {
  if (p >= t.size()) return 0;
  const auto lead = static_cast<unsigned char>(t[p]);
  if (lead < 0x80) return is_space_byte(t[p]) ? 1 : 0;
  const std::size_t n = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  if (p + n > t.size()) return 0;
  const auto cs = tok::utf8_decode(std::string(t.substr(p, n)));
  return cs.size() == 1 && tok::is_whitespace(cs.front()) ? n : 0;
}

const std::string kMetaspace = "\u2581";

// What a piece or token string stands for in the normalized text: bytes
// for a byte-level tokenizer; otherwise the text with "▁" as a space.
std::optional<std::string> piece_surface(const Tokenizer::Impl& m, const std::string& piece) {
  if (m.byteLevel) return tok::byte_level_bytes(piece);
  std::string text = piece;
  for (std::size_t p; (p = text.find(kMetaspace)) != std::string::npos;) text.replace(p, 3, " ");
  return text;
}

// The normalized text as tokens are matched against it: a normalizer's "▁"
// (SentencePiece's space, Llama 2's Replace) reads as the space it stands for.
tok::AlignedText matching_view(const Tokenizer::Impl& m, const tok::AlignedText& n) {
  if (m.byteLevel || n.text.find(kMetaspace) == std::string::npos) return n;
  tok::AlignedText v;
  for (std::size_t i = 0; i < n.text.size();) {
    if (n.text.compare(i, 3, kMetaspace) == 0) {
      v.text += ' ';
      v.origin.push_back({std::min({n.origin[i].first, n.origin[i + 1].first, n.origin[i + 2].first}),
                          std::max({n.origin[i].second, n.origin[i + 1].second, n.origin[i + 2].second})});
      i += 3;
    } else {
      v.text += n.text[i];
      v.origin.push_back(n.origin[i]);
      ++i;
    }
  }
  return v;
}

// Places strings in a text in order, from a cursor: a string is found where
// the cursor stands, past white space only, with or without its own leading
// white space (a space the pre-tokenizer inserted may be absent). With
// `searchAhead` (after a token whose text is unknown, or a piece after text a
// pre-tokenizer removed) it may be found further on, up to `end`.
struct Placer {
  const tok::AlignedText& text;
  const std::string& input;  // the original text the origins point into
  std::size_t cursor = 0;

  std::size_t skipSpace(std::size_t p, std::size_t end) const {
    const std::string_view t(text.text.data(), end);
    for (std::size_t n; (n = space_at(t, p)) > 0;) p += n;
    return p;
  }
  // [at, at + length) of `s`, or nothing.
  std::optional<std::pair<std::size_t, std::size_t>> find(const std::string& s, std::size_t end,
                                                          bool searchAhead) const {
    std::string trimmed = s;
    trimmed.erase(0, std::min(trimmed.size(), trimmed.find_first_not_of(" \t\n\r\f\v")));
    const std::string_view t(text.text.data(), end);
    for (std::size_t p = cursor; p <= end;) {
      if (!s.empty() && t.substr(p).starts_with(s)) return std::pair{p, s.size()};
      if (!trimmed.empty() && t.substr(p).starts_with(trimmed)) return std::pair{p, trimmed.size()};
      if (p >= end) break;
      const std::size_t space = space_at(t, p);
      if (space == 0 && !searchAhead) break;
      p += std::max<std::size_t>(space, 1);
    }
    return std::nullopt;
  }
  // The original bytes of [b, e), white space at either end left out
  // (unless it is all white space).
  std::pair<int, int> original(std::size_t b, std::size_t e) const {
    std::size_t x = b, y = e;
    while (x < y && is_space_byte(text.text[x])) ++x;
    while (y > x && is_space_byte(text.text[y - 1])) --y;
    if (x < y) b = x, e = y;
    std::pair<int, int> u = tok::origin_union(text, b, e);
    // A token of some bytes of a character (byte fallback, byte-level BPE)
    // covers the character, as offsets in characters would say.
    auto continuation = [&](int i) {
      return (static_cast<unsigned char>(input[static_cast<std::size_t>(i)]) & 0xc0) == 0x80;
    };
    if (u.first >= 0) {
      while (u.first > 0 && continuation(u.first)) --u.first;
      while (u.second < static_cast<int>(input.size()) && continuation(u.second)) ++u.second;
    }
    return u;
  }
};

// Places the tokens [first, last) of one pre-tokenized piece, which covers
// [begin, end) of the text: each token at the cursor; a token whose text is
// unknown ([UNK], <unk>) takes what lies between its neighbours, so the
// next token is looked for further on, never beyond the piece.
void place_piece_tokens(const Tokenizer::Impl& m, Placer& at, std::size_t end,
                        const std::vector<int>& ids, std::size_t first, std::size_t last,
                        std::vector<std::pair<int, int>>& offsets) {
  std::vector<std::size_t> pending;
  auto settle = [&](std::size_t until) {
    if (pending.size() == 1) offsets[pending.front()] = at.original(at.skipSpace(at.cursor, until), until);
    pending.clear();
  };
  for (std::size_t k = first; k < last; ++k) {
    const auto id = static_cast<std::size_t>(ids[k]);
    const auto s = id < m.model->idToToken.size() ? m.surface(ids[k], m.model->idToToken[id])
                                                   : std::nullopt;
    if (!s || s->empty()) {
      pending.push_back(k);  // unknown text
      continue;
    }
    const auto found = at.find(*s, end, !pending.empty());
    if (!found && s->find_first_not_of(" \t\n\r\f\v") == std::string::npos)
      continue;  // white space the pre-tokenizer inserted: it covers nothing
    if (!found) {
      pending.push_back(k);
      continue;
    }
    settle(found->first);
    offsets[k] = at.original(found->first, found->first + found->second);
    at.cursor = found->first + found->second;
  }
  settle(end);
}

}  // namespace

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::~Tokenizer() = default;

std::shared_ptr<const Tokenizer> Tokenizer::fromJson(const std::string& text,
                                                     const std::string& source) {
  auto impl = std::make_unique<Impl>();
  impl->source = source;
  const json j =
      internal::rethrow_as<TokenizerError>([&] { return internal::json_parse_bounded(text, source); });
  try {
    impl->parse(j);
  } catch (const json::exception& e) {  // a field of an unexpected type that no check named
    throw TokenizerError(source + ": unexpected content (" + internal::json_error_text(e) + ")");
  } catch (const std::invalid_argument& e) {
    throw TokenizerError(source + ": " + e.what());
  } catch (const std::length_error& e) {
    throw TokenizerError(source + ": too large (" + e.what() + ")");
  }
  return std::shared_ptr<const Tokenizer>(new Tokenizer(std::move(impl)));
}

std::shared_ptr<const Tokenizer> Tokenizer::load(const std::filesystem::path& folder) {
  const auto file = folder / "tokenizer.json";
  if (!input_file_present(folder, "tokenizer.json"))
    throw TokenizerError(file.string() +
                         ": missing (SinkScope reads tokenizers from tokenizer.json)");
  const std::string text = internal::rethrow_as<TokenizerError>([&] {
    return input_file_read(input_file_confine(folder, "tokenizer.json"), kTokenizerMaxBytes);
  });
  std::vector<std::pair<std::string, std::string>> configs;
  for (const char* name : {"special_tokens_map.json", "tokenizer_config.json"}) {
    if (!input_file_present(folder, name)) continue;
    configs.emplace_back(p_str(folder / name), internal::rethrow_as<TokenizerError>([&] {
                           return input_file_read(input_file_confine(folder, name),
                                                  kTokenizerConfigMaxBytes);
                         }));
  }
  return fromFiles(text, file.string(), configs);
}

std::shared_ptr<const Tokenizer> Tokenizer::fromFiles(
    const std::string& tokenizerJson, const std::string& sourceName,
    const std::vector<std::pair<std::string, std::string>>& configs) {
  auto tokenizer = fromJson(tokenizerJson, sourceName);
  SpecialTokens& sp = tokenizer->impl_->specials;
  for (const auto& config : configs) {
    const std::string& source = config.first;  // not a structured binding: lambdas capture it
    const std::string& text = config.second;
    const json j = internal::rethrow_as<TokenizerError>(
        [&] { return internal::json_parse_bounded(text, source); });
    if (!j.is_object()) throw TokenizerError(source + ": not a JSON object");
    auto take = [&](const char* key, std::optional<std::string>& slot) {
      if (!slot && j.contains(key))
        if (auto t = token_text(j[key], source, key)) slot = t;
    };
    take("bos_token", sp.bos);
    take("eos_token", sp.eos);
    take("unk_token", sp.unk);
    take("pad_token", sp.pad);
    take("cls_token", sp.cls);
    take("sep_token", sp.sep);
    take("mask_token", sp.mask);
    // transformers' Llama and Gemma fast tokenizers rebuild the post-processor
    // from add_bos_token / add_eos_token, overriding tokenizer.json.
    const std::string cls = string_field(j, "tokenizer_class", source);
    const bool rebuilds =
        cls.rfind("Llama", 0) == 0 || cls.rfind("Gemma", 0) == 0 || cls.rfind("CodeLlama", 0) == 0;
    const bool isConfig = std::filesystem::path(source).filename() == "tokenizer_config.json";
    if (isConfig && rebuilds && (j.contains("add_bos_token") || j.contains("add_eos_token"))) {
      const bool bos = bool_field(j, "add_bos_token", true, source);
      const bool eos = bool_field(j, "add_eos_token", false, source);
      auto piece = [&](const std::optional<std::string>& token, const char* what) {
        TemplatePiece p;
        const auto id = token ? tokenizer->impl_->idOf(*token) : std::nullopt;
        if (!id)
          throw TokenizerError(source + ": " + what + " is set but its token is unknown");
        p.ids = {*id};
        p.tokens = {*token};
        return p;
      };
      std::vector<TemplatePiece> pieces;
      if (bos) pieces.push_back(piece(sp.bos, "add_bos_token"));
      TemplatePiece sequence;
      sequence.sequence = true;
      pieces.push_back(sequence);
      if (eos) pieces.push_back(piece(sp.eos, "add_eos_token"));
      tokenizer->impl_->processors = {pieces};
    }
  }
  return tokenizer;
}

Encoding Tokenizer::encode(const std::string& text, bool addSpecialTokens) const {
  const Impl& m = *impl_;
  // The regex engine is told the text is valid UTF-8 (PCRE2_NO_UTF_CHECK):
  // make sure it is, and that no NUL hides the rest from C libraries.
  internal::rethrow_as<TokenizerError>([&] { input_text_check(text, "text"); });
  if (text.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw TokenizerError(m.source + ": a text of " + std::to_string(text.size()) +
                         " bytes; offsets count bytes in an int (at most 2 GiB)");
  std::vector<int> ids;
  std::vector<std::pair<int, int>> offsets;
  try {
    for (const auto& seg : m.splitAdded(text)) {
      if (seg.token) {
        ids.push_back(seg.token->id);
        offsets.emplace_back(static_cast<int>(seg.begin), static_cast<int>(seg.begin + seg.text.size()));
        continue;
      }
      const tok::AlignedText normalized =
          m.normalizer ? m.normalizer->applyAligned(tok::aligned_identity(seg.text, static_cast<int>(seg.begin)))
                       : tok::aligned_identity(seg.text, static_cast<int>(seg.begin));
      std::vector<std::string> pieces{normalized.text};
      if (m.preTokenizer) pieces = m.preTokenizer->apply(pieces, seg.atStart);
      // Each piece is found in the normalized text in order, then its tokens in it.
      const tok::AlignedText view = matching_view(m, normalized);
      Placer place{view, text};
      for (const auto& p : pieces) {
        const std::size_t first = ids.size();
        m.model->tokenize(p, ids);
        offsets.resize(ids.size(), {-1, -1});
        const auto surface = piece_surface(m, p);
        // Past white space; else further on (a Split that removed its matches).
        auto found = surface ? place.find(*surface, view.text.size(), false) : std::nullopt;
        // (Within a window: removed text is short, and a piece never found must
        // not make every later piece scan the rest of the text.)
        if (!found && surface)
          found = place.find(*surface, std::min(view.text.size(), place.cursor + 4096 + surface->size()), true);
        if (!found) continue;  // not placed: its tokens cover nothing known
        Placer inPiece{view, text, found->first};
        place_piece_tokens(m, inPiece, found->first + found->second, ids, first, ids.size(), offsets);
        place.cursor = found->first + found->second;
      }
    }
  } catch (const std::invalid_argument& e) {  // e.g. an unknown character and no unk token
    throw TokenizerError(m.source + ": " + e.what());
  }
  if (addSpecialTokens)
    for (const auto& processor : m.processors) {
      std::vector<int> next;
      std::vector<std::pair<int, int>> nextOffsets;
      for (const auto& piece : processor) {
        next.insert(next.end(), piece.sequence ? ids.begin() : piece.ids.begin(),
                    piece.sequence ? ids.end() : piece.ids.end());
        if (piece.sequence)
          nextOffsets.insert(nextOffsets.end(), offsets.begin(), offsets.end());
        else
          nextOffsets.insert(nextOffsets.end(), piece.ids.size(), {-1, -1});
      }
      ids = std::move(next);
      offsets = std::move(nextOffsets);
    }
  Encoding e;
  e.ids = ids;
  e.offsets = std::move(offsets);
  for (int id : ids) {
    const std::string token = idToToken(id).value_or("<" + std::to_string(id) + ">");
    e.tokens.push_back(token);
    e.display.push_back(m.display(id, token));
    auto it = m.addedById.find(id);
    e.special.push_back(it != m.addedById.end() && it->second->special);
  }
  return e;
}

std::string Tokenizer::kind() const {
  const std::string k = impl_->model->kind();
  if (k != "BPE") return k;
  if (impl_->byteLevel) return "BPE (byte-level)";
  if (impl_->model->byteFallback()) return "BPE (SentencePiece, byte fallback)";
  return "BPE";
}

std::size_t Tokenizer::vocabSize() const {
  std::size_t n = impl_->model->idToToken.size();
  for (const auto& t : impl_->added) n = std::max(n, static_cast<std::size_t>(t.id) + 1);
  // A post-processor may name ids of its own (TemplateProcessing's special_tokens):
  // they are ids the model must embed too.
  for (const auto& processor : impl_->processors)
    for (const auto& piece : processor)
      for (int id : piece.ids) n = std::max(n, static_cast<std::size_t>(id) + 1);
  return n;
}

std::vector<std::pair<std::string, int>> Tokenizer::alwaysAddedIds() const {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& processor : impl_->processors)
    for (const auto& piece : processor)
      for (std::size_t k = 0; k < piece.ids.size(); ++k)
        out.emplace_back(k < piece.tokens.size() ? piece.tokens[k] : std::string(), piece.ids[k]);
  return out;
}

std::optional<int> Tokenizer::tokenToId(const std::string& token) const {
  return impl_->idOf(token);
}

std::optional<std::string> Tokenizer::idToToken(int id) const {
  if (auto it = impl_->addedById.find(id); it != impl_->addedById.end()) return it->second->content;
  if (id >= 0 && static_cast<std::size_t>(id) < impl_->model->idToToken.size())
    return impl_->model->idToToken[static_cast<std::size_t>(id)];
  return std::nullopt;
}

const SpecialTokens& Tokenizer::specialTokens() const { return impl_->specials; }

std::string Tokenizer::displayOf(const std::string& token) const {
  const auto id = tokenToId(token);
  return impl_->display(id.value_or(-1), token);
}

}  // namespace sinkscope::models
