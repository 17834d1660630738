#include "models/bpe_trainer.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <unordered_map>

#include "models/internal/tokenizer_parts.h"

namespace sinkscope::models {

using nlohmann::json;

std::string bpe_train(const std::vector<std::string>& sentences, const BpeTrainingOptions& o) {
  const int specials = o.mask_token ? 4 : 3;
  const int merges = o.vocab_size - 256 - specials;
  if (merges < 0)
    throw std::invalid_argument("vocab_size must be at least " + std::to_string(256 + specials));

  // Word frequencies after GPT-2's pre-tokenization, as byte-level symbols.
  const tok::Regex pattern(
      R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)");
  std::map<std::string, long long> counts;  // ordered: deterministic ids
  for (const auto& s : sentences)
    for (const auto& [b, e] : pattern.findAll(s)) ++counts[s.substr(b, e - b)];

  std::vector<std::string> tokens;  // id -> byte-level string
  std::unordered_map<std::string, int> ids;
  for (int b = 0; b < 256; ++b) {
    tokens.push_back(tok::utf8_encode(tok::byte_to_char()[static_cast<std::size_t>(b)]));
    ids[tokens.back()] = b;
  }
  std::vector<std::vector<int>> words;
  std::vector<long long> freq;
  for (const auto& [w, n] : counts) {
    std::vector<int> symbols;
    for (unsigned char c : w) symbols.push_back(c);
    words.push_back(std::move(symbols));
    freq.push_back(n);
  }
  auto key = [](int a, int b) {
    return (static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint32_t>(b);
  };
  std::unordered_map<std::uint64_t, long long> pairs;
  std::unordered_map<std::uint64_t, std::vector<int>>
      where;  // pair -> words that had it (may be stale)
  for (std::size_t w = 0; w < words.size(); ++w)
    for (std::size_t i = 0; i + 1 < words[w].size(); ++i) {
      const auto k = key(words[w][i], words[w][i + 1]);
      pairs[k] += freq[w];
      where[k].push_back(static_cast<int>(w));
    }

  json mergeList = json::array();
  for (int m = 0; m < merges; ++m) {
    // The most frequent pair; ties go to the smaller (earlier) ids.
    std::uint64_t best = 0;
    long long bestCount = 0;
    for (const auto& [k, n] : pairs)
      if (n > bestCount || (n == bestCount && n > 0 && k < best)) {
        best = k;
        bestCount = n;
      }
    if (bestCount < 2) break;  // nothing left worth merging
    const int a = static_cast<int>(best >> 32), b = static_cast<int>(best & 0xffffffffu);
    const int merged = static_cast<int>(tokens.size());
    tokens.push_back(tokens[static_cast<std::size_t>(a)] + tokens[static_cast<std::size_t>(b)]);
    ids[tokens.back()] = merged;
    mergeList.push_back(tokens[static_cast<std::size_t>(a)] + " " +
                        tokens[static_cast<std::size_t>(b)]);

    std::vector<int> affected = std::move(where[best]);
    std::sort(affected.begin(), affected.end());
    affected.erase(std::unique(affected.begin(), affected.end()), affected.end());
    for (int w : affected) {
      auto& sym = words[static_cast<std::size_t>(w)];
      const long long f = freq[static_cast<std::size_t>(w)];
      bool has = false;
      for (std::size_t i = 0; i + 1 < sym.size(); ++i)
        has = has || (sym[i] == a && sym[i + 1] == b);
      if (!has) continue;
      for (std::size_t i = 0; i + 1 < sym.size(); ++i) pairs[key(sym[i], sym[i + 1])] -= f;
      std::vector<int> next;
      for (std::size_t i = 0; i < sym.size(); ++i) {
        if (i + 1 < sym.size() && sym[i] == a && sym[i + 1] == b) {
          next.push_back(merged);
          ++i;
        } else {
          next.push_back(sym[i]);
        }
      }
      sym = std::move(next);
      for (std::size_t i = 0; i + 1 < sym.size(); ++i) {
        const auto k = key(sym[i], sym[i + 1]);
        pairs[k] += f;
        where[k].push_back(w);
      }
    }
    pairs.erase(best);
  }

  json vocab = json::object();
  for (std::size_t i = 0; i < tokens.size(); ++i) vocab[tokens[i]] = static_cast<int>(i);
  int next = static_cast<int>(tokens.size());
  json added = json::array();
  auto special = [&](const char* content) {
    const int id = next++;
    added.push_back({{"id", id},
                     {"content", content},
                     {"single_word", false},
                     {"lstrip", false},
                     {"rstrip", false},
                     {"normalized", false},
                     {"special", true}});
    return id;
  };
  const int bos = special("<s>"), eos = special("</s>");
  special("<pad>");
  if (o.mask_token) special("<mask>");

  json single = json::array();
  if (o.add_bos) single.push_back({{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}});
  single.push_back({{"Sequence", {{"id", "A"}, {"type_id", 0}}}});
  if (o.add_eos) single.push_back({{"SpecialToken", {{"id", "</s>"}, {"type_id", 0}}}});
  const json post = {{"type", "TemplateProcessing"},
                     {"single", single},
                     {"pair", single},
                     {"special_tokens",
                      {{"<s>", {{"id", "<s>"}, {"ids", {bos}}, {"tokens", {"<s>"}}}},
                       {"</s>", {{"id", "</s>"}, {"ids", {eos}}, {"tokens", {"</s>"}}}}}}};
  const json t = {{"version", "1.0"},
                  {"truncation", nullptr},
                  {"padding", nullptr},
                  {"added_tokens", added},
                  {"normalizer", nullptr},
                  {"pre_tokenizer",
                   {{"type", "ByteLevel"},
                    {"add_prefix_space", false},
                    {"trim_offsets", true},
                    {"use_regex", true}}},
                  {"post_processor", post},
                  {"decoder",
                   {{"type", "ByteLevel"},
                    {"add_prefix_space", true},
                    {"trim_offsets", true},
                    {"use_regex", true}}},
                  {"model",
                   {{"type", "BPE"},
                    {"dropout", nullptr},
                    {"unk_token", nullptr},
                    {"continuing_subword_prefix", nullptr},
                    {"end_of_word_suffix", nullptr},
                    {"fuse_unk", false},
                    {"byte_fallback", false},
                    {"vocab", vocab},
                    {"merges", mergeList}}}};
  return t.dump();
}

}  // namespace sinkscope::models
