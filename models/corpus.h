#pragma once
// The training corpus SinkScope builds from Debian's wordnet-base: every
// gloss's definitions (as sentences) and its quoted example sentences.
#include <filesystem>
#include <string>
#include <vector>

namespace sinkscope::models {

// Sentences of the WordNet data files in `wordnetDir` (data.noun, data.verb,
// data.adj, data.adv), in file order. Throws std::runtime_error naming a
// missing file.
std::vector<std::string> corpus_wordnet_sentences(
    const std::filesystem::path& wordnetDir = "/usr/share/wordnet");

struct CorpusSplit {
  std::vector<std::string> train;
  std::vector<std::string> heldout;
};

// A seeded shuffle, then the first `heldoutCount` sentences of minWords..maxWords
// words are held out; everything else is training text.
CorpusSplit corpus_split(std::vector<std::string> sentences, int heldoutCount, int minWords,
                         int maxWords, unsigned seed = 7);

// The non-blank lines of a text file (a regular file of at most
// kTextFileMaxBytes, every line valid UTF-8 without NUL). Throws
// ModelInputError naming the file and line.
std::vector<std::string> corpus_read_lines(const std::filesystem::path& file);

// The sentences of a sentence file: its non-blank lines, or for a file named
// *.jsonl or *.json (any case) the string field "text" of the JSON object on
// each non-blank line (other fields ignored). Bounded as above; throws
// ModelInputError naming the file, the line and the problem.
std::vector<std::string> corpus_read_sentences(const std::filesystem::path& file);
bool corpus_is_json_lines(const std::filesystem::path& file);
void corpus_write_lines(const std::filesystem::path& file, const std::vector<std::string>& lines);

}  // namespace sinkscope::models
