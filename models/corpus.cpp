#include "models/corpus.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include "models/io/table_io.h"
#include "models/input_files.h"
#include "models/sentence_file.h"
#include "models/internal/json_input.h"

namespace sinkscope::models {

namespace fs = std::filesystem;

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

int word_count(const std::string& s) {
  std::istringstream in(s);
  int n = 0;
  for (std::string w; in >> w;) ++n;
  return n;
}

// "def; def; \"example\"; \"example\" - Author" -> sentences.
void gloss_sentences(const std::string& gloss, std::vector<std::string>& out) {
  std::vector<std::string> parts;
  std::string cur;
  bool quoted = false;
  for (char c : gloss) {
    if (c == '"') quoted = !quoted;
    if (c == ';' && !quoted) {
      parts.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  parts.push_back(cur);
  for (std::string p : parts) {
    p = trim(p);
    if (p.empty()) continue;
    if (p.front() == '"') {
      const auto close = p.find('"', 1);
      p = trim(p.substr(1, close == std::string::npos ? std::string::npos : close - 1));
    } else {
      p[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(p[0])));
      if (std::string(".!?").find(p.back()) == std::string::npos) p += '.';
    }
    if (word_count(p) >= 3) out.push_back(p);
  }
}

}  // namespace

std::vector<std::string> corpus_wordnet_sentences(const fs::path& dir) {
  std::vector<std::string> out;
  for (const char* name : {"data.noun", "data.verb", "data.adj", "data.adv"}) {
    const fs::path file = dir / name;
    std::error_code ec;
    if (!fs::exists(file, ec))
      throw std::runtime_error(file.string() + ": missing (install Debian's wordnet-base)");
    // Bounded, regular files only: a FIFO would block for ever, /dev/zero never end.
    std::istringstream in(input_file_read(file, kTextFileMaxBytes));
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == ' ') continue;  // the licence header
      const auto bar = line.find(" | ");
      if (bar == std::string::npos) continue;
      gloss_sentences(line.substr(bar + 3), out);
    }
  }
  return out;
}

CorpusSplit corpus_split(std::vector<std::string> sentences, int heldoutCount, int minWords,
                         int maxWords, unsigned seed) {
  std::sort(sentences.begin(), sentences.end());
  sentences.erase(std::unique(sentences.begin(), sentences.end()), sentences.end());
  std::mt19937 rng(seed);
  for (std::size_t i = sentences.size(); i > 1; --i)  // Fisher-Yates with our own draws: portable
    std::swap(sentences[i - 1], sentences[rng() % i]);
  CorpusSplit split;
  for (auto& s : sentences) {
    const int n = word_count(s);
    if (static_cast<int>(split.heldout.size()) < heldoutCount && n >= minWords && n <= maxWords)
      split.heldout.push_back(std::move(s));
    else
      split.train.push_back(std::move(s));
  }
  return split;
}

std::vector<std::string> corpus_read_lines(const fs::path& file) {
  return sentences_parse(input_file_read(file, kTextFileMaxBytes), false, file.string());
}

bool corpus_is_json_lines(const fs::path& file) {
  std::string ext = file.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".jsonl" || ext == ".json";
}

std::vector<std::string> corpus_read_sentences(const fs::path& file) {
  return sentences_parse(input_file_read(file, kTextFileMaxBytes), corpus_is_json_lines(file),
                         file.string());
}

void corpus_write_lines(const fs::path& file, const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  io::file_write_atomic(file, text, true);
}

}  // namespace sinkscope::models
