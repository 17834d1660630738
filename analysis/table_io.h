#pragma once
// Tables SinkScope writes: CSV in the format of
// shared/spec/ui-and-formats.md (comment header, snake_case columns, full
// precision), always written atomically (temporary file, then rename).
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace sinkscope::analysis {

struct CsvTable {
  std::vector<std::pair<std::string, std::string>> comments;  // "# key: value" lines
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

// Full float precision: enough digits to read back the same double.
std::string csv_number(double value);

std::string csv_render(const CsvTable& table);

// Writes `content` to `path` through a temporary file in the same folder and a
// rename. Refuses to replace an existing file unless `overwrite`. Throws
// std::runtime_error naming the file and the problem.
void file_write_atomic(const std::filesystem::path& path, const std::string& content,
                       bool overwrite);

}  // namespace sinkscope::analysis
