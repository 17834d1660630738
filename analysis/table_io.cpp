#include "analysis/table_io.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <random>
#include <stdexcept>

namespace sinkscope::analysis {

std::string csv_number(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);  // shortest round-trip
  return std::string(buffer, result.ptr);
}

namespace {
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}
}  // namespace

std::string csv_render(const CsvTable& table) {
  std::string out;
  for (const auto& [key, value] : table.comments) {
    out += "# ";
    out += key;
    out += ": ";
    out += one_line(value);
    out += '\n';
  }
  auto append_row = [&out](const std::vector<std::string>& fields) {
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (i) out += ',';
      out += csv_field(fields[i]);
    }
    out += '\n';
  };
  append_row(table.columns);
  for (const auto& row : table.rows) append_row(row);
  return out;
}

void file_write_atomic(const std::filesystem::path& path, const std::string& content,
                       bool overwrite) {
  namespace fs = std::filesystem;
  if (!overwrite && fs::exists(path))
    throw std::runtime_error(path.string() + ": already exists (use --force to replace it)");
  const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (!fs::is_directory(folder))
    throw std::runtime_error(path.string() + ": folder " + folder.string() + " does not exist");
  std::random_device rd;
  const fs::path temp = folder / ("." + path.filename().string() + ".tmp" + std::to_string(rd()));
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out)
      throw std::runtime_error(path.string() + ": cannot write (" + std::strerror(errno) + ")");
    out << content;
    out.flush();
    if (!out) {
      std::error_code ignored;
      fs::remove(temp, ignored);
      throw std::runtime_error(path.string() + ": write failed");
    }
  }
  std::error_code ec;
  fs::rename(temp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw std::runtime_error(path.string() + ": cannot replace (" + ec.message() + ")");
  }
}

}  // namespace sinkscope::analysis
