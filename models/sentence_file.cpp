#include "models/sentence_file.h"

#include "models/input_files.h"
#include "models/json_bounded.h"

namespace sinkscope::models {

namespace {

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

}  // namespace

std::vector<std::string> sentences_parse(const std::string& text, bool jsonLines,
                                         const std::string& source) {
  std::vector<std::string> out;
  std::size_t number = 0;
  for (std::size_t begin = 0; begin < text.size();) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string where = source + ": line " + std::to_string(++number);
    if (!jsonLines) {
      input_text_check(line, where);
      if (!blank(line)) out.push_back(std::move(line));
      continue;
    }
    if (blank(line)) continue;
    const nlohmann::json j = json_parse_bounded(line, where);
    if (!j.is_object() || !j.contains("text") || !j.at("text").is_string())
      throw ModelInputError(where + ": not a JSON object with a string field \"text\"");
    std::string sentence = j.at("text").get<std::string>();
    input_text_check(sentence, where + ": text");
    if (!blank(sentence)) out.push_back(std::move(sentence));
  }
  return out;
}

}  // namespace sinkscope::models
