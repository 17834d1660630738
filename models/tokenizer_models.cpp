// The tokenizer models: BPE (merges by rank, optional byte fallback),
// WordPiece (greedy longest match) and Unigram (Viterbi over piece scores).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <queue>
#include <stdexcept>

#include "models/internal/tokenizer_parts.h"

namespace sinkscope::models::tok {

int json_token_id(const json& value, const std::string& what) {
  if (!value.is_number_integer() ||
      (value.is_number_unsigned() ? value.get<unsigned long long>() > kMaxTokenId
                                  : (value.get<long long>() < 0 || value.get<long long>() > kMaxTokenId)))
    throw std::invalid_argument(what + " must be a token id (an integer in 0.." +
                                std::to_string(kMaxTokenId) + ")");
  return static_cast<int>(value.get<long long>());
}

std::string bounded_insert(std::string text, const std::string& what) {
  if (text.size() > kMaxInsertedBytes)
    throw std::invalid_argument(what + " is " + std::to_string(text.size()) +
                                " bytes long; at most " + std::to_string(kMaxInsertedBytes) +
                                " are accepted");
  return text;
}

void TokenModel::setVocab(std::unordered_map<std::string, int> v) {
  vocab = std::move(v);
  int maxId = -1;
  for (const auto& [t, id] : vocab) maxId = std::max(maxId, id);
  // Ids index a table: a single huge id must not cost gigabytes.
  if (maxId >= 0 && static_cast<std::size_t>(maxId) >= 2 * vocab.size() + 65536)
    throw std::invalid_argument("model vocabulary: id " + std::to_string(maxId) + " with only " +
                                std::to_string(vocab.size()) +
                                " entries (ids must be dense from 0)");
  idToToken.assign(static_cast<std::size_t>(maxId + 1), std::string());
  for (const auto& [t, id] : vocab)
    if (id >= 0) idToToken[static_cast<std::size_t>(id)] = t;
}

namespace {

std::optional<std::string> optional_string(const json& n, const char* key) {
  if (!n.contains(key) || n[key].is_null()) return std::nullopt;
  if (!n[key].is_string()) throw std::invalid_argument(std::string("model \"") + key + "\" must be a string");
  return n[key].get<std::string>();
}

std::unordered_map<std::string, int> read_vocab_map(const json& v) {
  if (!v.is_object()) throw std::invalid_argument("model \"vocab\" must be an object of token: id");
  std::unordered_map<std::string, int> m;
  m.reserve(v.size());
  for (const auto& [token, id] : v.items())
    m.emplace(token, json_token_id(id, "model vocab entry \"" + token + "\""));
  return m;
}

class Bpe : public TokenModel {
 public:
  explicit Bpe(const json& n) {
    setVocab(read_vocab_map(n.at("vocab")));
    unk_ = optional_string(n, "unk_token");
    prefix_ = optional_string(n, "continuing_subword_prefix").value_or("");
    suffix_ = optional_string(n, "end_of_word_suffix").value_or("");
    fuseUnk_ = n.value("fuse_unk", false);
    byteFallback_ = n.value("byte_fallback", false);
    ignoreMerges_ = n.value("ignore_merges", false);
    if (n.contains("dropout") && !n["dropout"].is_null() && n["dropout"].get<double>() > 0.0)
      throw std::invalid_argument(
          "BPE dropout is not supported (tokenization must be deterministic)");
    const json& merges = n.at("merges");
    int rank = 0;
    for (const auto& m : merges) {
      std::string a, b;
      if (m.is_string()) {
        const std::string s = m.get<std::string>();
        const auto space = s.find(' ', 1);
        if (space == std::string::npos)
          throw std::invalid_argument("merge \"" + s + "\" is not \"a b\"");
        a = s.substr(0, space);
        b = s.substr(space + 1);
      } else {
        a = m.at(0).get<std::string>();
        b = m.at(1).get<std::string>();
      }
      auto ia = vocab.find(a), ib = vocab.find(b);
      auto merged =
          vocab.find(a + (prefix_.empty() ? b : b.substr(std::min(prefix_.size(), b.size()))));
      if (ia == vocab.end() || ib == vocab.end() || merged == vocab.end()) {
        ++rank;  // a merge of unknown tokens can never apply
        continue;
      }
      merges_.emplace(key(ia->second, ib->second), std::make_pair(rank++, merged->second));
    }
  }

  std::string kind() const override { return "BPE"; }
  bool byteFallback() const override { return byteFallback_; }

  void tokenize(const std::string& piece, std::vector<int>& out) const override {
    if (piece.empty()) return;
    if (ignoreMerges_) {
      if (auto it = vocab.find(piece); it != vocab.end()) {
        out.push_back(it->second);
        return;
      }
    }
    const auto chars = utf8_decode(piece);
    std::vector<int> symbols;
    bool lastWasUnk = false;
    for (std::size_t i = 0; i < chars.size(); ++i) {
      std::string s = utf8_encode(chars[i]);
      if (i > 0) s = prefix_ + s;
      if (i + 1 == chars.size()) s += suffix_;
      if (auto it = vocab.find(s); it != vocab.end()) {
        symbols.push_back(it->second);
        lastWasUnk = false;
        continue;
      }
      if (byteFallback_) {
        std::vector<int> bytes;
        for (unsigned char b : utf8_encode(chars[i])) {
          char name[8];
          std::snprintf(name, sizeof name, "<0x%02X>", b);
          if (auto it = vocab.find(name); it != vocab.end())
            bytes.push_back(it->second);
          else {
            bytes.clear();
            break;
          }
        }
        if (!bytes.empty()) {
          symbols.insert(symbols.end(), bytes.begin(), bytes.end());
          lastWasUnk = false;
          continue;
        }
      }
      if (!unk_) continue;  // no unknown token: the character is dropped, as the reference does
      auto unk = vocab.find(*unk_);
      if (unk == vocab.end())
        throw std::invalid_argument("unk_token \"" + *unk_ + "\" is not in the vocabulary");
      if (!(fuseUnk_ && lastWasUnk)) symbols.push_back(unk->second);
      lastWasUnk = true;
    }
    mergeAll(symbols);
    out.insert(out.end(), symbols.begin(), symbols.end());
  }

 private:
  // Applies the lowest-ranked merge, leftmost first, until none applies, as
  // Hugging Face does: candidate pairs in a heap ordered by (rank, position),
  // symbols in a linked list, stale candidates skipped when popped. O(n log n)
  // in the word length (the plain rescan was quadratic: 18 s for 100,000 chars).
  void mergeAll(std::vector<int>& symbols) const {
    const int n = static_cast<int>(symbols.size());
    if (n < 2) return;
    struct Symbol {
      int id, prev, next;
      bool alive;
    };
    std::vector<Symbol> list(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
      list[static_cast<std::size_t>(i)] = {symbols[static_cast<std::size_t>(i)], i - 1,
                                           i + 1 < n ? i + 1 : -1, true};
    struct Candidate {
      int rank, pos, merged;
      bool operator>(const Candidate& o) const {
        return rank != o.rank ? rank > o.rank : pos > o.pos;
      }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> queue;
    auto consider = [&](int pos) {
      const Symbol& a = list[static_cast<std::size_t>(pos)];
      if (a.next < 0) return;
      auto it = merges_.find(key(a.id, list[static_cast<std::size_t>(a.next)].id));
      if (it != merges_.end()) queue.push({it->second.first, pos, it->second.second});
    };
    for (int i = 0; i + 1 < n; ++i) consider(i);
    while (!queue.empty()) {
      const Candidate c = queue.top();
      queue.pop();
      Symbol& a = list[static_cast<std::size_t>(c.pos)];
      if (!a.alive || a.next < 0) continue;
      Symbol& b = list[static_cast<std::size_t>(a.next)];
      auto it = merges_.find(key(a.id, b.id));
      if (it == merges_.end() || it->second.first != c.rank) continue;  // the pair changed
      a.id = c.merged;
      b.alive = false;
      a.next = b.next;
      if (b.next >= 0) list[static_cast<std::size_t>(b.next)].prev = c.pos;
      if (a.prev >= 0) consider(a.prev);
      consider(c.pos);
    }
    symbols.clear();
    for (int i = 0; i >= 0; i = list[static_cast<std::size_t>(i)].next)
      symbols.push_back(list[static_cast<std::size_t>(i)].id);
  }

  static std::uint64_t key(int a, int b) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) |
           static_cast<std::uint32_t>(b);
  }
  std::unordered_map<std::uint64_t, std::pair<int, int>> merges_;  // (a, b) -> (rank, merged id)
  std::optional<std::string> unk_;
  std::string prefix_, suffix_;
  bool fuseUnk_ = false, byteFallback_ = false, ignoreMerges_ = false;
};

class WordPiece : public TokenModel {
 public:
  explicit WordPiece(const json& n) {
    setVocab(read_vocab_map(n.at("vocab")));
    unk_ = n.value("unk_token", "[UNK]");
    prefix_ = n.value("continuing_subword_prefix", "##");
    maxChars_ = n.value("max_input_chars_per_word", 100LL);
    for (const auto& [token, id] : vocab)
      maxTokenChars_ = std::max(maxTokenChars_, utf8_decode(token).size());
    if (!vocab.count(unk_))
      throw std::invalid_argument("unk_token \"" + unk_ + "\" is not in the vocabulary");
  }
  std::string kind() const override { return "WordPiece"; }

  void tokenize(const std::string& word, std::vector<int>& out) const override {
    const auto chars = utf8_decode(word);
    if (static_cast<long long>(chars.size()) > maxChars_) {
      out.push_back(vocab.at(unk_));
      return;
    }
    std::vector<int> pieces;
    std::size_t start = 0;
    while (start < chars.size()) {
      // No vocabulary entry is longer than maxTokenChars_: the greedy longest
      // match need not try longer substrings (keeps long words linear).
      std::size_t end = std::min(chars.size(), start + maxTokenChars_);
      int found = -1;
      while (start < end) {
        std::string sub = utf8_encode(std::vector<char32_t>(
            chars.begin() + static_cast<long>(start), chars.begin() + static_cast<long>(end)));
        if (start > 0) sub = prefix_ + sub;
        if (auto it = vocab.find(sub); it != vocab.end()) {
          found = it->second;
          break;
        }
        --end;
      }
      if (found < 0) {
        out.push_back(vocab.at(unk_));
        return;
      }
      pieces.push_back(found);
      start = end;
    }
    out.insert(out.end(), pieces.begin(), pieces.end());
  }

  std::string continuingPrefix() const override { return prefix_; }

 private:
  std::string unk_, prefix_;
  long long maxChars_ = 100;
  std::size_t maxTokenChars_ = 1;
};

class Unigram : public TokenModel {
 public:
  explicit Unigram(const json& n) {
    const json& v = n.at("vocab");
    if (!v.is_array())
      throw std::invalid_argument("Unigram \"vocab\" must be a list of [piece, score]");
    if (v.size() > static_cast<std::size_t>(kMaxTokenId))
      throw std::invalid_argument("Unigram \"vocab\" has too many entries");
    std::unordered_map<std::string, int> map;
    scores_.reserve(v.size());
    double minScore = 0.0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_array() || v[i].size() < 2 || !v[i][0].is_string() || !v[i][1].is_number())
        throw std::invalid_argument("Unigram vocab entry " + std::to_string(i) +
                                    " is not [piece, score]");
      const std::string piece = v[i].at(0).get<std::string>();
      const double score = v[i].at(1).get<double>();
      if (!std::isfinite(score))
        throw std::invalid_argument("Unigram vocab entry " + std::to_string(i) +
                                    " has a score that is not finite");
      map.emplace(piece, static_cast<int>(i));
      scores_.push_back(score);
      minScore = std::min(minScore, score);
    }
    setVocab(std::move(map));
    for (const auto& [piece, id] : vocab) sorted_.emplace_back(piece, id);
    std::sort(sorted_.begin(), sorted_.end());  // bytewise: std::string compares as memcmp
    if (n.contains("unk_id") && !n["unk_id"].is_null()) {
      unkId_ = json_token_id(n["unk_id"], "model \"unk_id\"");
      if (static_cast<std::size_t>(*unkId_) >= v.size())
        throw std::invalid_argument("model \"unk_id\" " + std::to_string(*unkId_) +
                                    " is not in the vocabulary of " + std::to_string(v.size()));
    }
    byteFallback_ = n.value("byte_fallback", false);
    unkScore_ = minScore - 10.0;  // the reference's penalty for an unknown character
  }
  std::string kind() const override { return "Unigram"; }
  bool byteFallback() const override { return byteFallback_; }

  void tokenize(const std::string& text, std::vector<int>& out) const override {
    if (text.empty()) return;
    // Viterbi over byte positions that start characters.
    const std::size_t n = text.size();
    std::vector<double> best(n + 1, -std::numeric_limits<double>::infinity());
    std::vector<std::size_t> from(n + 1, 0);
    std::vector<int> via(n + 1, -1);  // -1: unknown character
    best[0] = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      if (std::isinf(best[i]) || (static_cast<unsigned char>(text[i]) & 0xc0) == 0x80) continue;
      std::size_t charLen = 1;
      while (i + charLen < n && (static_cast<unsigned char>(text[i + charLen]) & 0xc0) == 0x80)
        ++charLen;
      bool single = false;
      auto offer = [&](std::size_t at, std::size_t len, int id) {
        if (len == charLen) single = true;
        const double s = best[at] + scores_[static_cast<std::size_t>(id)];
        if (s > best[at + len]) {
          best[at + len] = s;
          from[at + len] = at;
          via[at + len] = id;
        }
      };
      // Every piece that starts at i: a walk down the sorted pieces, one byte
      // at a time (O(match length x log V), however long the longest piece).
      std::size_t lo = 0, hi = sorted_.size();
      for (std::size_t len = 1; i + len <= n && lo < hi; ++len) {
        const auto byte = static_cast<unsigned char>(text[i + len - 1]);
        // Within [lo, hi) every piece shares the first len - 1 bytes; the one
        // that ends there (if any) sorts first, the rest by their next byte.
        auto key = [len](const std::pair<std::string, int>& e) {
          return e.first.size() < len ? -1 : static_cast<int>(static_cast<unsigned char>(e.first[len - 1]));
        };
        const auto first = sorted_.begin() + static_cast<long>(lo);
        const auto last = sorted_.begin() + static_cast<long>(hi);
        const auto b = std::partition_point(first, last, [&](const auto& e) { return key(e) < byte; });
        const auto e = std::partition_point(b, last, [&](const auto& x) { return key(x) <= byte; });
        lo = static_cast<std::size_t>(b - sorted_.begin());
        hi = static_cast<std::size_t>(e - sorted_.begin());
        if (lo == hi) break;
        if (hi - lo == 1 && sorted_[lo].first.size() > len) {
          // One candidate left: compare the rest of it at once (a hostile
          // megabyte-long piece must not cost a search per byte).
          const std::string& piece = sorted_[lo].first;
          if (i + piece.size() <= n && text.compare(i, piece.size(), piece) == 0)
            offer(i, piece.size(), sorted_[lo].second);
          break;
        }
        if (sorted_[lo].first.size() == len) offer(i, len, sorted_[lo].second);
      }
      if (!single) {
        const double s = best[i] + unkScore_;
        if (s > best[i + charLen]) {
          best[i + charLen] = s;
          from[i + charLen] = i;
          via[i + charLen] = -1;
        }
      }
    }
    std::vector<std::pair<int, std::string>> pieces;  // (id or -1, text)
    for (std::size_t e = n; e > 0; e = from[e])
      pieces.emplace_back(via[e], text.substr(from[e], e - from[e]));
    std::vector<int> ids;
    bool lastUnk = false;
    for (auto it = pieces.rbegin(); it != pieces.rend(); ++it) {
      if (it->first >= 0) {
        ids.push_back(it->first);
        lastUnk = false;
        continue;
      }
      if (byteFallback_) {
        for (unsigned char b : it->second) {
          char name[8];
          std::snprintf(name, sizeof name, "<0x%02X>", b);
          auto f = vocab.find(name);
          if (f != vocab.end()) ids.push_back(f->second);
        }
        continue;
      }
      if (!unkId_) throw std::invalid_argument("Unigram: unknown character and no unk_id");
      if (!lastUnk) ids.push_back(*unkId_);  // consecutive unknowns fuse, as the reference does
      lastUnk = true;
    }
    out.insert(out.end(), ids.begin(), ids.end());
  }

 private:
  std::vector<double> scores_;
  std::vector<std::pair<std::string, int>> sorted_;  // (piece, id) in byte order
  std::optional<int> unkId_;
  bool byteFallback_ = false;
  double unkScore_ = -10.0;
};

}  // namespace

std::unique_ptr<TokenModel> model_from_json(const json& n) {
  const std::string type = n.value("type", "");
  if (type == "BPE" || (type.empty() && n.contains("merges"))) return std::make_unique<Bpe>(n);
  if (type == "WordPiece") return std::make_unique<WordPiece>(n);
  if (type == "Unigram") return std::make_unique<Unigram>(n);
  throw std::invalid_argument("model type \"" + type +
                              "\" is not supported (BPE, WordPiece, Unigram)");
}

}  // namespace sinkscope::models::tok
