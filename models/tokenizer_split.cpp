// Pre-tokenizers: how a normalized segment is cut into the pieces the model
// tokenizes one at a time.
#include <stdexcept>

#include "models/internal/tokenizer_parts.h"

namespace sinkscope::models::tok {

namespace {

enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

Behavior parse_behavior(const std::string& b) {
  if (b == "Removed") return Behavior::Removed;
  if (b == "Isolated") return Behavior::Isolated;
  if (b == "MergedWithPrevious") return Behavior::MergedWithPrevious;
  if (b == "MergedWithNext") return Behavior::MergedWithNext;
  if (b == "Contiguous") return Behavior::Contiguous;
  throw std::invalid_argument("split behavior \"" + b + "\" is not supported");
}

// Cuts `text` at the byte ranges `matches` as the Hugging Face split behaviours do.
std::vector<std::string> split_by(const std::string& text,
                                  const std::vector<std::pair<std::size_t, std::size_t>>& found,
                                  Behavior behavior, bool invert) {
  // Alternate (isMatch, begin, end) runs covering the text.
  struct Run {
    bool match;
    std::size_t b, e;
  };
  std::vector<Run> runs;
  std::size_t last = 0;
  for (const auto& [b, e] : found) {
    if (b > last) runs.push_back({invert, last, b});
    runs.push_back({!invert, b, e});
    last = e;
  }
  if (last < text.size()) runs.push_back({invert, last, text.size()});

  std::vector<std::string> out;
  auto piece = [&](const Run& r) { return text.substr(r.b, r.e - r.b); };
  switch (behavior) {
    case Behavior::Removed:
      for (const auto& r : runs)
        if (!r.match) out.push_back(piece(r));
      break;
    case Behavior::Isolated:
      for (const auto& r : runs) out.push_back(piece(r));
      break;
    case Behavior::Contiguous: {
      bool previousMatch = false;
      for (const auto& r : runs) {
        if (r.match && previousMatch && !out.empty())
          out.back() += piece(r);
        else
          out.push_back(piece(r));
        previousMatch = r.match;
      }
      break;
    }
    case Behavior::MergedWithPrevious: {
      bool previousMatch = false;
      for (const auto& r : runs) {
        if (r.match && !previousMatch && !out.empty())
          out.back() += piece(r);
        else
          out.push_back(piece(r));
        previousMatch = r.match;
      }
      break;
    }
    case Behavior::MergedWithNext: {
      // As the reference does it: walk backwards; a delimiter joins the piece
      // after it unless that piece is itself a delimiter.
      std::vector<std::string> reversed;
      bool nextWasMatch = false;
      for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
        if (it->match && !nextWasMatch && !reversed.empty())
          reversed.back() = piece(*it) + reversed.back();
        else
          reversed.push_back(piece(*it));
        nextWasMatch = it->match;
      }
      out.assign(reversed.rbegin(), reversed.rend());
      break;
    }
  }
  std::vector<std::string> nonEmpty;
  for (auto& s : out)
    if (!s.empty()) nonEmpty.push_back(std::move(s));
  return nonEmpty;
}

std::string escape_regex(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::string("\\^$.|?*+()[]{}").find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

const char* kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

class Split : public PreTokenizer {
 public:
  Split(const std::string& pattern, Behavior b, bool invert)
      : regex_(pattern), behavior_(b), invert_(invert) {}
  std::vector<std::string> apply(const std::vector<std::string>& pieces, bool) const override {
    std::vector<std::string> out;
    for (const auto& p : pieces)
      for (auto& s : split_by(p, regex_.findAll(p), behavior_, invert_))
        out.push_back(std::move(s));
    return out;
  }

 private:
  Regex regex_;
  Behavior behavior_;
  bool invert_;
};

class ByteLevel : public PreTokenizer {
 public:
  ByteLevel(bool addPrefixSpace, bool useRegex) : prefix_(addPrefixSpace) {
    if (useRegex) regex_ = std::make_unique<Regex>(kGpt2Pattern);
  }
  std::vector<std::string> apply(const std::vector<std::string>& pieces, bool) const override {
    std::vector<std::string> out;
    const auto& table = byte_to_char();
    for (std::string p : pieces) {
      if (prefix_ && (p.empty() || p[0] != ' ')) p = " " + p;
      std::vector<std::string> parts =
          regex_ ? split_by(p, regex_->findAll(p), Behavior::Isolated, false)
                 : std::vector<std::string>{p};
      for (const auto& part : parts) {
        std::string mapped;
        for (unsigned char b : part) mapped += utf8_encode(table[b]);
        out.push_back(std::move(mapped));
      }
    }
    return out;
  }
  bool byteLevel() const override { return true; }

 private:
  bool prefix_;
  std::unique_ptr<Regex> regex_;
};

class Metaspace : public PreTokenizer {
 public:
  Metaspace(std::string replacement, std::string scheme, bool split)
      : replacement_(std::move(replacement)), scheme_(std::move(scheme)), split_(split) {}
  std::vector<std::string> apply(const std::vector<std::string>& pieces,
                                 bool atStart) const override {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      std::string p;
      for (char c : pieces[i]) {
        if (c == ' ')
          p += replacement_;
        else
          p += c;
      }
      const bool prepend = scheme_ == "always" || (scheme_ == "first" && atStart && i == 0);
      if (prepend && p.rfind(replacement_, 0) != 0) p = replacement_ + p;
      if (!split_) {
        out.push_back(p);
        continue;
      }
      std::vector<std::pair<std::size_t, std::size_t>> found;
      for (std::size_t pos = p.find(replacement_); pos != std::string::npos;
           pos = p.find(replacement_, pos + 1))
        found.emplace_back(pos, pos + replacement_.size());
      for (auto& s : split_by(p, found, Behavior::MergedWithNext, false))
        out.push_back(std::move(s));
    }
    return out;
  }
  bool metaspace() const override { return true; }

 private:
  std::string replacement_, scheme_;
  bool split_;
};

// Cuts at characters that satisfy a predicate (whitespace, punctuation, digits).
template <class Pred>
std::vector<std::pair<std::size_t, std::size_t>> char_matches(const std::string& s, Pred pred) {
  std::vector<std::pair<std::size_t, std::size_t>> found;
  std::size_t i = 0;
  for (char32_t c : utf8_decode(s)) {
    const std::size_t len = utf8_encode(c).size();
    if (pred(c)) found.emplace_back(i, i + len);
    i += len;
  }
  return found;
}

class BertPre : public PreTokenizer {
 public:
  std::vector<std::string> apply(const std::vector<std::string>& pieces, bool) const override {
    std::vector<std::string> out;
    for (const auto& p : pieces)
      for (const auto& w : split_by(p, char_matches(p, is_whitespace), Behavior::Removed, false))
        for (auto& s : split_by(w, char_matches(w, is_punctuation), Behavior::Isolated, false))
          out.push_back(std::move(s));
    return out;
  }
};

class WhitespaceSplit : public PreTokenizer {
 public:
  std::vector<std::string> apply(const std::vector<std::string>& pieces, bool) const override {
    std::vector<std::string> out;
    for (const auto& p : pieces)
      for (auto& s : split_by(p, char_matches(p, is_whitespace), Behavior::Removed, false))
        out.push_back(std::move(s));
    return out;
  }
};

class Whitespace : public PreTokenizer {
 public:
  Whitespace() : regex_(R"(\w+|[^\w\s]+)") {}
  std::vector<std::string> apply(const std::vector<std::string>& pieces, bool) const override {
    std::vector<std::string> out;
    for (const auto& p : pieces)
      for (auto& s : split_by(p, regex_.findAll(p), Behavior::Removed, true))
        out.push_back(std::move(s));
    return out;
  }

 private:
  Regex regex_;
};

class Punctuation : public PreTokenizer {
 public:
  explicit Punctuation(Behavior b) : behavior_(b) {}
  std::vector<std::string> apply(const std::vector<std::string>& pieces, bool) const override {
    std::vector<std::string> out;
    for (const auto& p : pieces)
      for (auto& s : split_by(p, char_matches(p, is_punctuation), behavior_, false))
        out.push_back(std::move(s));
    return out;
  }

 private:
  Behavior behavior_;
};

class Digits : public PreTokenizer {
 public:
  explicit Digits(bool individual) : individual_(individual) {}
  std::vector<std::string> apply(const std::vector<std::string>& pieces, bool) const override {
    std::vector<std::string> out;
    auto digit = [](char32_t c) { return c >= '0' && c <= '9'; };
    for (const auto& p : pieces)
      for (auto& s : split_by(p, char_matches(p, digit),
                              individual_ ? Behavior::Isolated : Behavior::Contiguous, false))
        out.push_back(std::move(s));
    return out;
  }

 private:
  bool individual_;
};

class SequencePre : public PreTokenizer {
 public:
  explicit SequencePre(std::vector<std::unique_ptr<PreTokenizer>> parts)
      : parts_(std::move(parts)) {}
  std::vector<std::string> apply(const std::vector<std::string>& pieces,
                                 bool atStart) const override {
    std::vector<std::string> cur = pieces;
    for (const auto& p : parts_) cur = p->apply(cur, atStart);
    return cur;
  }
  bool byteLevel() const override {
    for (const auto& p : parts_)
      if (p->byteLevel()) return true;
    return false;
  }
  bool metaspace() const override {
    for (const auto& p : parts_)
      if (p->metaspace()) return true;
    return false;
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> parts_;
};

}  // namespace

std::unique_ptr<PreTokenizer> pretokenizer_from_json(const json& n) {
  if (n.is_null()) return nullptr;
  const std::string type = n.value("type", "");
  if (type == "ByteLevel")
    return std::make_unique<ByteLevel>(n.value("add_prefix_space", true),
                                       n.value("use_regex", true));
  if (type == "Split") {
    const json& pattern = n.at("pattern");
    std::string regex;
    if (pattern.contains("Regex"))
      regex = pattern["Regex"].get<std::string>();
    else if (pattern.contains("String"))
      regex = escape_regex(pattern["String"].get<std::string>());
    else
      throw std::invalid_argument("Split pre-tokenizer: pattern needs String or Regex");
    return std::make_unique<Split>(regex, parse_behavior(n.value("behavior", "Isolated")),
                                   n.value("invert", false));
  }
  if (type == "Metaspace") {
    std::string scheme = n.value("prepend_scheme", "");
    if (scheme.empty()) scheme = n.value("add_prefix_space", true) ? "always" : "never";
    return std::make_unique<Metaspace>(
        bounded_insert(n.value("replacement", "\u2581"), "Metaspace \"replacement\""), scheme,
                                       n.value("split", true));
  }
  if (type == "BertPreTokenizer") return std::make_unique<BertPre>();
  if (type == "WhitespaceSplit") return std::make_unique<WhitespaceSplit>();
  if (type == "Whitespace") return std::make_unique<Whitespace>();
  if (type == "Punctuation")
    return std::make_unique<Punctuation>(parse_behavior(n.value("behavior", "Isolated")));
  if (type == "Digits") return std::make_unique<Digits>(n.value("individual_digits", false));
  if (type == "Sequence") {
    std::vector<std::unique_ptr<PreTokenizer>> parts;
    for (const auto& p : n.at("pretokenizers"))
      if (auto made = pretokenizer_from_json(p)) parts.push_back(std::move(made));
    return std::make_unique<SequencePre>(std::move(parts));
  }
  throw std::invalid_argument("pre-tokenizer type \"" + type +
                              "\" is not supported (ByteLevel, Split, Metaspace, BertPreTokenizer, "
                              "Whitespace, WhitespaceSplit, Punctuation, Digits, Sequence)");
}

}  // namespace sinkscope::models::tok
