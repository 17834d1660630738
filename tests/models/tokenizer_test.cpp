// Tokenizer pieces that the real vocabularies do not reach: display strings,
// WordPiece and Unigram on small hand-made vocabularies, and clear errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "models/model_writer.h"
#include "models/tokenizer.h"

using namespace sinkscope::models;
namespace fs = std::filesystem;

namespace {
std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::shared_ptr<const Tokenizer> wordpiece() {
  return Tokenizer::fromJson(R"({
    "added_tokens": [{"id": 0, "content": "[UNK]", "special": true}, {"id": 1, "content": "[CLS]", "special": true},
                     {"id": 2, "content": "[SEP]", "special": true}],
    "normalizer": {"type": "BertNormalizer", "lowercase": true},
    "pre_tokenizer": {"type": "BertPreTokenizer"},
    "post_processor": {"type": "BertProcessing", "cls": ["[CLS]", 1], "sep": ["[SEP]", 2]},
    "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
              "vocab": {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "sink": 3, "##s": 4, "token": 5, ",": 6, "cafe": 7}}})");
}
}  // namespace

TEST(Tokenizer, WordPieceSplitsGreedilyAndLowercases) {
  const auto t = wordpiece();
  EXPECT_EQ(t->kind(), "WordPiece");
  EXPECT_EQ(t->encode("Sinks, TOKENS").ids, (std::vector<int>{1, 3, 4, 6, 5, 4, 2}));
  EXPECT_EQ(t->encode("Café", false).ids, (std::vector<int>{7}))
      << "accents stripped with lowercase";
  EXPECT_EQ(t->encode("sinkx", false).ids, (std::vector<int>{0}))
      << "a word that cannot be split is [UNK]";
  EXPECT_EQ(t->encode("", true).ids, (std::vector<int>{1, 2}));
  const auto e = t->encode("sinks");
  EXPECT_EQ(e.display, (std::vector<std::string>{"[CLS]", "sink", "##s", "[SEP]"}));
  EXPECT_EQ(e.special, (std::vector<bool>{true, false, false, true}));
}

TEST(Tokenizer, UnigramFindsTheBestSegmentation) {
  const auto t = Tokenizer::fromJson(R"({
    "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": true},
    "model": {"type": "Unigram", "unk_id": 0,
              "vocab": [["<unk>", 0.0], ["\u2581ab", -1.0], ["\u2581a", -2.0], ["b", -2.0], ["c", -1.5], ["\u2581", -3.0]]}})");
  EXPECT_EQ(t->kind(), "Unigram");
  EXPECT_EQ(t->encode("ab", false).ids, (std::vector<int>{1}));
  EXPECT_EQ(t->encode("abc", false).ids, (std::vector<int>{1, 4}));
  EXPECT_EQ(t->encode("ab xy", false).ids, (std::vector<int>{1, 5, 0}))
      << "unknown characters fuse into one <unk>";
  EXPECT_EQ(t->encode("ab", false).display, (std::vector<std::string>{"\u2423ab"}));
}

TEST(Tokenizer, ByteLevelDisplayStringsAreReadable) {
  const fs::path dir = fs::temp_directory_path() / ("sinkscope-tok-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  RandomModelSpec spec = random_model_spec_for("llama");
  spec.with_tokenizer = true;
  model_folder_write_random(dir, spec);
  const auto t = Tokenizer::load(dir);
  EXPECT_EQ(t->kind(), "BPE (byte-level)");
  const auto e = t->encode("the cat\n\té", true);
  ASSERT_FALSE(e.ids.empty());
  EXPECT_EQ(e.display.front(), "<s>");
  EXPECT_EQ(e.display[1], "the");
  EXPECT_EQ(e.display[2], "\u2423cat");
  EXPECT_EQ(e.display[3], "\u21b5");
  EXPECT_EQ(e.display[4], "\u21e5");
  // é is two bytes, two byte-level tokens: each shown as its byte.
  EXPECT_EQ(e.display[5], "<0xC3>");
  EXPECT_EQ(e.display[6], "<0xA9>");
  EXPECT_EQ(t->specialTokens().bos, "<s>");
  // Special-token text in the input is the special token.
  const auto s = t->encode("x</s>y", false);
  EXPECT_EQ(s.tokens, (std::vector<std::string>{"x", "</s>", "y"}));
  fs::remove_all(dir);
}

TEST(Tokenizer, UnsupportedPartsAreNamed) {
  auto error = [](const std::string& json) {
    try {
      Tokenizer::fromJson(json, "folder/tokenizer.json");
    } catch (const TokenizerError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error(R"({"model": {"type": "WordLevel", "vocab": {}}})")
                .find("folder/tokenizer.json: model type \"WordLevel\""),
            std::string::npos);
  EXPECT_NE(
      error(
          R"({"normalizer": {"type": "Precompiled"}, "model": {"type": "BPE", "vocab": {}, "merges": []}})")
          .find("normalizer type \"Precompiled\" is not supported"),
      std::string::npos);
  EXPECT_NE(error("{nope").find("folder/tokenizer.json"), std::string::npos);
  EXPECT_NE(error(R"({"version": "1.0"})").find("\"model\" is missing"), std::string::npos);
  try {
    Tokenizer::load("/nonexistent");
    FAIL();
  } catch (const TokenizerError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/tokenizer.json: missing"),
              std::string::npos);
  }
}

TEST(Tokenizer, LlamaConfigAddBosTokenRebuildsThePostProcessor) {
  const fs::path dir =
      fs::temp_directory_path() / ("sinkscope-tok-bos-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  RandomModelSpec spec = random_model_spec_for("llama");
  spec.with_tokenizer = true;
  model_folder_write_random(dir, spec);
  const auto plain = Tokenizer::load(dir)->encode("the", true);
  EXPECT_EQ(plain.tokens.front(), "<s>");
  std::ofstream(dir / "tokenizer_config.json")
      << R"({"tokenizer_class": "LlamaTokenizerFast", "bos_token": "<s>", "eos_token": "</s>",
            "add_bos_token": false, "add_eos_token": true})";
  const auto rebuilt = Tokenizer::load(dir)->encode("the", true);
  EXPECT_EQ(rebuilt.tokens, (std::vector<std::string>{"the", "</s>"}));
  fs::remove_all(dir);
}

// The Unigram lattice search (a walk down the sorted pieces) against a plain
// re-implementation that looks up every substring, on random vocabularies with
// short and very long pieces; and a hostile megabyte piece stays fast.
TEST(Tokenizer, UnigramMatchesAPlainViterbiOnRandomVocabularies) {
  std::mt19937 rng(12);
  const std::vector<std::string> alphabet{"a", "b", "c", "\xc3\xa9"};
  for (int round = 0; round < 40; ++round) {
    std::vector<std::pair<std::string, double>> pieces{{"<unk>", 0.0}};
    std::set<std::string> seen{"<unk>"};
    const int count = 5 + static_cast<int>(rng() % 40);
    while (static_cast<int>(pieces.size()) < count) {
      std::string p;
      const int len = rng() % 10 == 0 ? 30 + static_cast<int>(rng() % 50) : 1 + static_cast<int>(rng() % 5);
      for (int k = 0; k < len; ++k) p += alphabet[rng() % (rng() % 3 == 0 ? 4 : 2)];
      if (seen.insert(p).second) pieces.emplace_back(p, -1.0 - static_cast<double>(rng() % 1000) / 100.0);
    }
    nlohmann::json vocab = nlohmann::json::array();
    for (const auto& [p, s] : pieces) vocab.push_back({p, s});
    const nlohmann::json spec = {{"model", {{"type", "Unigram"}, {"unk_id", 0}, {"vocab", vocab}}}};
    const auto t = Tokenizer::fromJson(spec.dump());
    double minScore = 0.0;
    std::map<std::string, int> ids;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      ids.emplace(pieces[i].first, static_cast<int>(i));
      minScore = std::min(minScore, pieces[i].second);
    }
    for (int k = 0; k < 20; ++k) {
      std::string text;
      const int chars = 1 + static_cast<int>(rng() % 80);
      for (int c = 0; c < chars; ++c) text += alphabet[rng() % 4];
      // Plain Viterbi: every substring looked up; ties keep the first found.
      const std::size_t n = text.size();
      std::vector<double> best(n + 1, -1e300);
      std::vector<std::size_t> from(n + 1, 0);
      std::vector<int> via(n + 1, -1);
      best[0] = 0.0;
      for (std::size_t i = 0; i < n; ++i) {
        if (best[i] <= -1e299 || (static_cast<unsigned char>(text[i]) & 0xc0) == 0x80) continue;
        const std::size_t charLen = (static_cast<unsigned char>(text[i]) & 0x80) ? 2 : 1;
        bool single = false;
        for (std::size_t len = 1; i + len <= n; ++len) {
          auto it = ids.find(text.substr(i, len));
          if (it == ids.end()) continue;
          if (len == charLen) single = true;
          const double s = best[i] + pieces[static_cast<std::size_t>(it->second)].second;
          if (s > best[i + len]) {
            best[i + len] = s;
            from[i + len] = i;
            via[i + len] = it->second;
          }
        }
        if (!single && best[i] + minScore - 10.0 > best[i + charLen]) {
          best[i + charLen] = best[i] + minScore - 10.0;
          from[i + charLen] = i;
          via[i + charLen] = -1;
        }
      }
      std::vector<int> expected;
      for (std::size_t e = n; e > 0; e = from[e]) expected.insert(expected.begin(), via[e] < 0 ? 0 : via[e]);
      std::vector<int> fused;  // consecutive unknowns fuse into one <unk>
      for (std::size_t q = 0; q < expected.size(); ++q)
        if (!(expected[q] == 0 && !fused.empty() && fused.back() == 0 && q > 0 && expected[q - 1] == 0))
          fused.push_back(expected[q]);
      EXPECT_EQ(t->encode(text, false).ids, fused) << text;
    }
  }
  // A one-megabyte piece and a long text: each position compares it once.
  nlohmann::json vocab = nlohmann::json::array({{"<unk>", 0.0}, {"a", -1.0}, {std::string(1 << 20, 'a'), -1.0}});
  const auto hostile = Tokenizer::fromJson(
      nlohmann::json{{"model", {{"type", "Unigram"}, {"unk_id", 0}, {"vocab", vocab}}}}.dump());
  EXPECT_EQ(hostile->encode(std::string(20000, 'a'), false).ids.size(), 20000u);
}

// Found by fuzzing: ids a post-processor adds count in vocabSize(), so the
// model's vocabulary check sees them.
TEST(Tokenizer, PostProcessorIdsCountInTheVocabularySize) {
  const auto t = Tokenizer::fromJson(R"({
    "post_processor": {"type": "TemplateProcessing",
      "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
      "special_tokens": {"<s>": {"id": "<s>", "ids": [900], "tokens": ["<s>"]}}},
    "model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 1}}})");
  EXPECT_EQ(t->encode("a").ids, (std::vector<int>{900, 1}));
  EXPECT_EQ(t->vocabSize(), 901u);
}

// Offsets (as Hugging Face's, by byte): each token covers the characters of
// the input it came from, through every normaliser's change of the text, with
// white space at either end left out; tokens the post-processor adds cover none.
TEST(TokenizerOffsets, WordPieceTokensCoverTheirWordsThroughLowercaseAndAccents) {
  const auto t = wordpiece();
  using Span = std::pair<int, int>;
  // "Café, SINKS café": é is two bytes.
  const Encoding e = t->encode("Caf\xc3\xa9, SINKS caf\xc3\xa9");
  EXPECT_EQ(e.display, (std::vector<std::string>{"[CLS]", "cafe", ",", "sink", "##s", "cafe", "[SEP]"}));
  EXPECT_EQ(e.offsets, (std::vector<Span>{{-1, -1}, {0, 5}, {5, 6}, {7, 11}, {11, 12}, {13, 18}, {-1, -1}}));
  // An unknown word: [UNK] covers it, and the next word still finds its own.
  EXPECT_EQ(t->encode("sinkx cafe", false).offsets, (std::vector<Span>{{0, 5}, {6, 10}}));
  // Repeated words each cover their own place.
  EXPECT_EQ(t->encode("sink sink  sink", false).offsets, (std::vector<Span>{{0, 4}, {5, 9}, {11, 15}}));
  // An added token found in the text covers its own bytes.
  EXPECT_EQ(t->encode("sink [SEP] sink", false).offsets, (std::vector<Span>{{0, 4}, {5, 10}, {11, 15}}));
}

TEST(TokenizerOffsets, NfkcReplaceAndMetaspaceKeepTheOriginalPlaces) {
  const auto t = Tokenizer::fromJson(read_file(fs::path(SINKSCOPE_SOURCE_DIR) / "tests/fuzz/tokenizers/unigram.json"));
  // NFKC makes the full-width "ｈｅｌｌｏ" (15 bytes) "hello"; Replace makes two spaces one.
  const Encoding e = t->encode("\xef\xbd\x88\xef\xbd\x85\xef\xbd\x8c\xef\xbd\x8c\xef\xbd\x8f  the", false);
  EXPECT_EQ(e.display, (std::vector<std::string>{"\u2423hello", "\u2423the"}));
  EXPECT_EQ(e.offsets, (std::vector<std::pair<int, int>>{{0, 15}, {17, 20}}));
}

namespace {
// The words of `text` (runs without an ASCII space) as byte ranges.
std::vector<std::pair<int, int>> word_ranges(const std::string& text) {
  std::vector<std::pair<int, int>> out;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == ' ') {
      ++i;
      continue;
    }
    const std::size_t b = i;
    while (i < text.size() && text[i] != ' ') ++i;
    out.emplace_back(static_cast<int>(b), static_cast<int>(i));
  }
  return out;
}
}  // namespace

TEST(TokenizerOffsets, SentencePieceBytesAndPiecesTileEveryWord) {
  // Prepend "▁" and Replace " " by "▁" (Llama 2's normaliser), byte fallback
  // for characters the vocabulary lacks: every token lies in one word, in
  // order, and the tokens of a word cover it without a gap (the bytes of é
  // both cover é).
  const auto t = Tokenizer::fromJson(read_file(fs::path(SINKSCOPE_SOURCE_DIR) / "tests/fuzz/tokenizers/metaspace-bpe.json"));
  for (const std::string text : {"hello world", "the  cat sat", "h\xc3\xa9llo \xe2\x98\x83 world"}) {
    const Encoding e = t->encode(text, false);
    ASSERT_EQ(e.offsets.size(), e.ids.size());
    for (const auto& [b, end] : word_ranges(text)) {
      int covered = b;
      for (std::size_t k = 0; k < e.ids.size(); ++k) {
        const auto [x, y] = e.offsets[k];
        if (x < b || x >= end) continue;
        // No gap; the bytes of one character share it (as character offsets do).
        EXPECT_LE(x, covered) << text << ": token " << k << " (" << e.display[k] << ")";
        EXPECT_GE(y, covered) << text << ": token " << k;
        EXPECT_LE(y, end) << text << ": token " << k;
        covered = y;
      }
      EXPECT_EQ(covered, end) << text << ": the word at " << b << " is covered";
    }
  }
}

TEST(TokenizerOffsets, UnicodeWhiteSpaceAndRemovedTextDoNotLoseTheWordsAfter) {
  // A pre-tokenizer that drops a no-break space (Unicode White_Space), and a
  // Split that removes its matches: the words after still find their places.
  const std::string vocab = R"("vocab": {"[UNK]": 0, "a": 1, "b": 2, "c": 3})";
  for (const std::string& pre :
       {std::string(R"({"type": "WhitespaceSplit"})"), std::string(R"({"type": "Whitespace"})")}) {
    const auto t = Tokenizer::fromJson(R"({"pre_tokenizer": )" + pre +
                                       R"(, "model": {"type": "WordPiece", "unk_token": "[UNK]", )" + vocab + "}}");
    EXPECT_EQ(t->encode("a\xc2\xa0" "b c", false).offsets,
              (std::vector<std::pair<int, int>>{{0, 1}, {3, 4}, {5, 6}}))
        << pre;
  }
  const auto split = Tokenizer::fromJson(
      R"({"pre_tokenizer": {"type": "Split", "pattern": {"String": "-"}, "behavior": "Removed"},
          "model": {"type": "WordPiece", "unk_token": "[UNK]", )" + vocab + "}}");
  EXPECT_EQ(split->encode("a-b-c", false).offsets,
            (std::vector<std::pair<int, int>>{{0, 1}, {2, 3}, {4, 5}}));
}
