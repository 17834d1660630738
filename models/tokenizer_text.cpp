// Unicode, byte-table and regex helpers of the tokenizer pipeline, and its
// normalizers. ICU does normalisation and case mapping; PCRE2 (UTF + UCP)
// does regexes with Unicode classes, which std::regex cannot.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include <stdexcept>

#include "models/internal/tokenizer_parts.h"

namespace sinkscope::models::tok {

std::vector<char32_t> utf8_decode(const std::string& s) {
  std::vector<char32_t> out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    int len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    char32_t c = len == 1 ? b : len == 2 ? (b & 0x1f) : len == 3 ? (b & 0x0f) : (b & 0x07);
    bool ok = len > 0 && i + static_cast<std::size_t>(len) <= s.size();
    for (int k = 1; ok && k < len; ++k) {
      const auto cb = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
      if ((cb & 0xc0) != 0x80) ok = false;
      c = (c << 6) | (cb & 0x3f);
    }
    if (!ok) {
      out.push_back(0xfffd);
      ++i;
      continue;
    }
    out.push_back(c);
    i += static_cast<std::size_t>(len);
  }
  return out;
}

std::string utf8_encode(char32_t c) {
  std::string s;
  if (c < 0x80) {
    s += static_cast<char>(c);
  } else if (c < 0x800) {
    s += static_cast<char>(0xc0 | (c >> 6));
    s += static_cast<char>(0x80 | (c & 0x3f));
  } else if (c < 0x10000) {
    s += static_cast<char>(0xe0 | (c >> 12));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    s += static_cast<char>(0x80 | (c & 0x3f));
  } else {
    s += static_cast<char>(0xf0 | (c >> 18));
    s += static_cast<char>(0x80 | ((c >> 12) & 0x3f));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    s += static_cast<char>(0x80 | (c & 0x3f));
  }
  return s;
}

std::string utf8_encode(const std::vector<char32_t>& cs) {
  std::string s;
  for (char32_t c : cs) s += utf8_encode(c);
  return s;
}

bool is_whitespace(char32_t c) {
  return u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_WHITE_SPACE);
}

bool is_punctuation(char32_t c) {
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
      (c >= 123 && c <= 126))
    return true;
  return (U_GET_GC_MASK(static_cast<UChar32>(c)) & U_GC_P_MASK) != 0;
}

bool is_control(char32_t c) {
  if (c == '\t' || c == '\n' || c == '\r') return false;
  const auto mask = U_GET_GC_MASK(static_cast<UChar32>(c));
  return (mask & (U_GC_CC_MASK | U_GC_CF_MASK | U_GC_CN_MASK | U_GC_CO_MASK)) != 0;
}

bool is_cjk(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

const std::vector<char32_t>& byte_to_char() {
  static const std::vector<char32_t> table = [] {
    std::vector<char32_t> t(256);
    int extra = 0;
    for (int b = 0; b < 256; ++b) {
      const bool printable =
          (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
      t[static_cast<std::size_t>(b)] =
          printable ? static_cast<char32_t>(b) : static_cast<char32_t>(256 + extra++);
    }
    return t;
  }();
  return table;
}

int char_to_byte(char32_t c) {
  static const std::unordered_map<char32_t, int> inverse = [] {
    std::unordered_map<char32_t, int> m;
    for (int b = 0; b < 256; ++b) m[byte_to_char()[static_cast<std::size_t>(b)]] = b;
    return m;
  }();
  auto it = inverse.find(c);
  return it == inverse.end() ? -1 : it->second;
}

// ---- Regex ----

Regex::Regex(const std::string& pattern) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                   PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
  if (!code) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    throw std::invalid_argument("regex \"" + pattern + "\": " + reinterpret_cast<char*>(message) +
                                " at offset " + std::to_string(offset));
  }
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // optional speed-up; falls back silently
  code_ = code;
}

Regex::~Regex() { pcre2_code_free(static_cast<pcre2_code*>(code_)); }

std::vector<std::pair<std::size_t, std::size_t>> Regex::findAll(const std::string& text) const {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  auto* code = static_cast<pcre2_code*>(code_);
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(code, nullptr);
  std::size_t start = 0;
  while (start <= text.size()) {
    const int rc = pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), start,
                               PCRE2_NO_UTF_CHECK, md, nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {  // a match or depth limit, never a silent cut of the text
      pcre2_match_data_free(md);
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(rc, message, sizeof message);
      throw std::invalid_argument(std::string("regex matching failed (") +
                                  reinterpret_cast<char*>(message) + ")");
    }
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    const std::size_t b = ov[0], e = ov[1];
    if (e == b) {  // empty match: step over one character
      if (b >= text.size()) break;
      std::size_t next = b + 1;
      while (next < text.size() && (static_cast<unsigned char>(text[next]) & 0xc0) == 0x80) ++next;
      start = next;
      continue;
    }
    out.emplace_back(b, e);
    start = e;
  }
  pcre2_match_data_free(md);
  return out;
}

std::string Regex::replaceAll(const std::string& text, const std::string& replacement) const {
  std::string out;
  std::size_t last = 0;
  for (const auto& [b, e] : findAll(text)) {
    out.append(text, last, b - last);
    out += replacement;
    last = e;
  }
  out.append(text, last, std::string::npos);
  return out;
}

// ---- normalizers ----

namespace {

std::string icu_normalize(const std::string& text, const char* name, UNormalization2Mode mode) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* n = icu::Normalizer2::getInstance(nullptr, name, mode, status);
  if (U_FAILURE(status)) throw std::runtime_error("ICU normaliser unavailable");
  const icu::UnicodeString in = icu::UnicodeString::fromUTF8(text);
  icu::UnicodeString out = n->normalize(in, status);
  if (U_FAILURE(status)) throw std::runtime_error("ICU normalisation failed");
  std::string s;
  out.toUTF8String(s);
  return s;
}

std::string lowercase(const std::string& text) {
  icu::UnicodeString s = icu::UnicodeString::fromUTF8(text);
  s.toLower(icu::Locale::getRoot());
  std::string out;
  s.toUTF8String(out);
  return out;
}

std::string strip_accents(const std::string& text) {
  std::vector<char32_t> kept;
  for (char32_t c : utf8_decode(text))
    if ((U_GET_GC_MASK(static_cast<UChar32>(c)) & U_GC_MN_MASK) == 0)
      kept.push_back(c);  // Mn only: the reference keeps spacing marks (Mc)
  return utf8_encode(kept);
}

}  // namespace

std::pair<int, int> origin_union(const AlignedText& in, std::size_t b, std::size_t e) {
  std::pair<int, int> u{-1, -1};
  for (std::size_t i = b; i < e; ++i) {
    const auto [x, y] = in.origin[i];
    if (x < 0) continue;
    u.first = u.first < 0 ? x : std::min(u.first, x);
    u.second = std::max(u.second, y);
  }
  return u;
}

std::optional<std::string> byte_level_bytes(const std::string& token) {
  std::string bytes;
  for (char32_t c : utf8_decode(token)) {
    const int b = char_to_byte(c);
    if (b < 0) return std::nullopt;
    bytes += static_cast<char>(b);
  }
  return bytes;
}

AlignedText aligned_identity(const std::string& text, int offset) {
  AlignedText a;
  a.text = text;
  a.origin.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i)
    a.origin.emplace_back(offset + static_cast<int>(i), offset + static_cast<int>(i) + 1);
  return a;
}

namespace {

std::size_t utf8_length(unsigned char lead) {
  return lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xe ? 3 : (lead >> 3) == 0x1e ? 4 : 1;
}

// Byte ranges of the input's chunks: single characters, or maximal runs of
// white space and of other characters.
std::vector<std::pair<std::size_t, std::size_t>> chunks_of(const std::string& text, bool runs) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  bool lastSpace = false;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = std::min(utf8_length(static_cast<unsigned char>(text[i])), text.size() - i);
    const auto cs = utf8_decode(text.substr(i, n));
    const bool space = !cs.empty() && is_whitespace(cs.front());
    if (runs && !out.empty() && space == lastSpace)
      out.back().second = i + n;
    else
      out.emplace_back(i, i + n);
    lastSpace = space;
    i += n;
  }
  return out;
}

}  // namespace

AlignedText Normalizer::applyAligned(const AlignedText& in) const {
  AlignedText r;
  r.text = apply(in.text);
  for (const bool runs : {false, true}) {
    AlignedText built;
    for (const auto& [b, e] : chunks_of(in.text, runs)) {
      const std::string piece = apply(in.text.substr(b, e - b));
      built.text += piece;
      built.origin.insert(built.origin.end(), piece.size(), origin_union(in, b, e));
      if (built.text.size() > r.text.size()) break;
    }
    if (built.text == r.text) return built;
  }
  if (const std::size_t at = r.text.empty() ? std::string::npos : in.text.find(r.text);
      at != std::string::npos) {
    r.origin.assign(in.origin.begin() + static_cast<std::ptrdiff_t>(at),
                    in.origin.begin() + static_cast<std::ptrdiff_t>(at + r.text.size()));
    return r;
  }
  r.origin.assign(r.text.size(), origin_union(in, 0, in.text.size()));
  return r;
}

namespace {

class UnicodeForm : public Normalizer {
 public:
  UnicodeForm(const char* name, UNormalization2Mode mode) : name_(name), mode_(mode) {}
  std::string apply(const std::string& t) const override { return icu_normalize(t, name_, mode_); }

 private:
  const char* name_;
  UNormalization2Mode mode_;
};

class Lowercase : public Normalizer {
 public:
  std::string apply(const std::string& t) const override { return lowercase(t); }
};

class StripAccents : public Normalizer {
 public:
  std::string apply(const std::string& t) const override { return strip_accents(t); }
};

class Replace : public Normalizer {
 public:
  Replace(const json& pattern, std::string content) : content_(std::move(content)) {
    if (pattern.contains("String"))
      literal_ = pattern["String"].get<std::string>();
    else if (pattern.contains("Regex"))
      regex_ = std::make_unique<Regex>(pattern["Regex"].get<std::string>());
    else
      throw std::invalid_argument("Replace normalizer: pattern needs String or Regex");
  }
  std::string apply(const std::string& t) const override {
    if (regex_) return regex_->replaceAll(t, content_);
    if (literal_.empty()) return t;
    std::string out;
    std::size_t last = 0, pos;
    while ((pos = t.find(literal_, last)) != std::string::npos) {
      out.append(t, last, pos - last);
      out += content_;
      last = pos + literal_.size();
    }
    return out + t.substr(last);
  }
  // The replacement's bytes come from the match, the rest from where they stood.
  AlignedText applyAligned(const AlignedText& in) const override {
    std::vector<std::pair<std::size_t, std::size_t>> matches;
    if (regex_) {
      matches = regex_->findAll(in.text);
    } else if (!literal_.empty()) {
      for (std::size_t pos = 0; (pos = in.text.find(literal_, pos)) != std::string::npos;
           pos += literal_.size())
        matches.emplace_back(pos, pos + literal_.size());
    }
    AlignedText r;
    std::size_t last = 0;
    for (const auto& [b, e] : matches) {
      r.text.append(in.text, last, b - last);
      r.origin.insert(r.origin.end(), in.origin.begin() + static_cast<std::ptrdiff_t>(last),
                      in.origin.begin() + static_cast<std::ptrdiff_t>(b));
      r.text += content_;
      r.origin.insert(r.origin.end(), content_.size(),
                      origin_union(in, b, std::max(e, std::min(b + 1, in.text.size()))));
      last = e;
    }
    r.text.append(in.text, last);
    r.origin.insert(r.origin.end(), in.origin.begin() + static_cast<std::ptrdiff_t>(last), in.origin.end());
    if (r.text != apply(in.text)) return Normalizer::applyAligned(in);  // matched otherwise
    return r;
  }

 private:
  std::string literal_, content_;
  std::unique_ptr<Regex> regex_;
};

class Prepend : public Normalizer {
 public:
  explicit Prepend(std::string p) : prefix_(std::move(p)) {}
  std::string apply(const std::string& t) const override { return t.empty() ? t : prefix_ + t; }
  // The prefix stands for the first character (as Hugging Face aligns it).
  AlignedText applyAligned(const AlignedText& in) const override {
    if (in.text.empty()) return in;
    AlignedText r;
    r.text = prefix_ + in.text;
    const std::size_t first = std::min(utf8_length(static_cast<unsigned char>(in.text[0])), in.text.size());
    r.origin.assign(prefix_.size(), origin_union(in, 0, first));
    r.origin.insert(r.origin.end(), in.origin.begin(), in.origin.end());
    return r;
  }

 private:
  std::string prefix_;
};

class Strip : public Normalizer {
 public:
  Strip(bool left, bool right) : left_(left), right_(right) {}
  std::string apply(const std::string& t) const override {
    auto cs = utf8_decode(t);
    std::size_t b = 0, e = cs.size();
    if (left_)
      while (b < e && is_whitespace(cs[b])) ++b;
    if (right_)
      while (e > b && is_whitespace(cs[e - 1])) --e;
    return utf8_encode(std::vector<char32_t>(cs.begin() + static_cast<long>(b),
                                             cs.begin() + static_cast<long>(e)));
  }

 private:
  bool left_, right_;
};

class BertNormalizer : public Normalizer {
 public:
  BertNormalizer(bool clean, bool chinese, bool accents, bool lower)
      : clean_(clean), chinese_(chinese), accents_(accents), lower_(lower) {}
  std::string apply(const std::string& t) const override {
    std::vector<char32_t> out;
    for (char32_t c : utf8_decode(t)) {
      if (clean_) {
        if (c == 0 || c == 0xfffd || is_control(c)) continue;
        if (is_whitespace(c)) c = ' ';
      }
      if (chinese_ && is_cjk(c)) {
        out.push_back(' ');
        out.push_back(c);
        out.push_back(' ');
      } else {
        out.push_back(c);
      }
    }
    std::string s = utf8_encode(out);
    if (accents_) s = strip_accents(icu_normalize(s, "nfc", UNORM2_DECOMPOSE));
    if (lower_) s = lowercase(s);
    return s;
  }

 private:
  bool clean_, chinese_, accents_, lower_;
};

class Sequence : public Normalizer {
 public:
  explicit Sequence(std::vector<std::unique_ptr<Normalizer>> parts) : parts_(std::move(parts)) {}
  std::string apply(const std::string& t) const override {
    std::string s = t;
    for (const auto& p : parts_) s = p->apply(s);
    return s;
  }
  AlignedText applyAligned(const AlignedText& in) const override {
    AlignedText a = in;
    for (const auto& p : parts_) a = p->applyAligned(a);
    return a;
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> parts_;
};

}  // namespace

std::unique_ptr<Normalizer> normalizer_from_json(const json& n) {
  if (n.is_null()) return nullptr;
  const std::string type = n.value("type", "");
  if (type == "NFC") return std::make_unique<UnicodeForm>("nfc", UNORM2_COMPOSE);
  if (type == "NFD") return std::make_unique<UnicodeForm>("nfc", UNORM2_DECOMPOSE);
  if (type == "NFKC") return std::make_unique<UnicodeForm>("nfkc", UNORM2_COMPOSE);
  if (type == "NFKD") return std::make_unique<UnicodeForm>("nfkc", UNORM2_DECOMPOSE);
  if (type == "Lowercase") return std::make_unique<Lowercase>();
  if (type == "StripAccents") return std::make_unique<StripAccents>();
  if (type == "Replace")
    return std::make_unique<Replace>(
        n.at("pattern"), bounded_insert(n.value("content", ""), "Replace normalizer \"content\""));
  if (type == "Prepend")
    return std::make_unique<Prepend>(
        bounded_insert(n.value("prepend", ""), "Prepend normalizer \"prepend\""));
  if (type == "Strip")
    return std::make_unique<Strip>(n.value("strip_left", true), n.value("strip_right", true));
  if (type == "BertNormalizer") {
    const bool lower = n.value("lowercase", true);
    const bool accents = n.contains("strip_accents") && !n["strip_accents"].is_null()
                             ? n["strip_accents"].get<bool>()
                             : lower;
    return std::make_unique<BertNormalizer>(n.value("clean_text", true),
                                            n.value("handle_chinese_chars", true), accents, lower);
  }
  if (type == "Sequence") {
    std::vector<std::unique_ptr<Normalizer>> parts;
    for (const auto& p : n.at("normalizers"))
      if (auto made = normalizer_from_json(p)) parts.push_back(std::move(made));
    return std::make_unique<Sequence>(std::move(parts));
  }
  throw std::invalid_argument("normalizer type \"" + type +
                              "\" is not supported (NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, "
                              "Replace, Prepend, Strip, BertNormalizer, Sequence)");
}

}  // namespace sinkscope::models::tok
