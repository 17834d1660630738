// Readers of files users open cost time near-linear in the file: large but
// legal documents are read (or refused) in seconds, where a quadratic reader
// took most of a minute (320,000 JSON entries: 47 s; a safetensors header of
// 40,000 empty tensors: 52 s). The bounds are generous (a busy machine reads
// each case in well under a second).
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "models/corpus.h"
#include "models/json_bounded.h"
#include "models/safetensors.h"

namespace fs = std::filesystem;
using namespace sinkscope::models;

namespace {

constexpr double kBoundSeconds = 15.0;

template <class F>
double seconds_of(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string many_objects(int n) {
  std::string text = "[";
  for (int k = 0; k < n; ++k) text += (k ? "," : "") + std::string("{\"a\":1}");
  return text + "]";
}

}  // namespace

TEST(ReaderCost, ManyJsonEntriesParseInLinearTime) {
  const std::string text = many_objects(320000);
  nlohmann::json j;
  const double s = seconds_of([&] { j = json_parse_bounded(text, "many.json"); });
  EXPECT_EQ(j.size(), 320000u);
  EXPECT_LT(s, kBoundSeconds);
  // The depth bound still holds, and bad JSON is still named.
  EXPECT_THROW(json_parse_bounded(std::string(100000, '[') + std::string(100000, ']'), "deep"),
               ModelInputError);
  try {
    json_parse_bounded("{\"a\": [1, 2,]}", "bad.json");
    ADD_FAILURE() << "trailing comma accepted";
  } catch (const ModelInputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json: not valid JSON"), std::string::npos) << e.what();
  }
  EXPECT_EQ(json_parse_bounded(std::string(64, '[') + std::string(64, ']'), "ok").size(), 1u)
      << "64 levels are allowed";
}

TEST(ReaderCost, ASafetensorsHeaderOfManyEmptyTensorsIsReadInLinearTime) {
  std::string header = "{";
  for (int k = 0; k < 40000; ++k)
    header += (k ? "," : "") + std::string("\"t") + std::to_string(k) +
              "\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]}";
  header += "}";
  std::vector<std::byte> bytes(8 + header.size());
  std::uint64_t n = header.size();
  for (int b = 0; b < 8; ++b) bytes[static_cast<std::size_t>(b)] = static_cast<std::byte>((n >> (8 * b)) & 0xff);
  std::memcpy(bytes.data() + 8, header.data(), header.size());
  const double s = seconds_of([&] {
    const SafetensorsFile file = SafetensorsFile::fromBytes(std::move(bytes), "empty.safetensors");
    EXPECT_NE(file.find("t39999"), nullptr);
  });
  EXPECT_LT(s, kBoundSeconds);
}

TEST(ReaderCost, AJsonLinesSentenceFileOfManyEntriesIsReadInLinearTime) {
  const fs::path file = fs::temp_directory_path() / ("sinkscope-cost-" + std::to_string(::getpid()) + ".jsonl");
  {
    std::ofstream out(file);
    out << "{\"text\": \"A first sentence.\", \"extra\": " << many_objects(320000) << "}\n";
    for (int k = 0; k < 20000; ++k) out << "{\"text\": \"Sentence " << k << ".\"}\n";
  }
  std::vector<std::string> sentences;
  const double s = seconds_of([&] { sentences = corpus_read_sentences(file); });
  EXPECT_EQ(sentences.size(), 20001u);
  EXPECT_EQ(sentences.front(), "A first sentence.");
  EXPECT_LT(s, kBoundSeconds);
  fs::remove(file);
}
