#include "analysis/table_io.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <stdexcept>

namespace sinkscope::analysis {

std::string csv_number(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);  // shortest round-trip
  return std::string(buffer, result.ptr);
}

std::string csv_number_or_empty(double value) {
  return std::isnan(value) ? std::string() : csv_number(value);
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

namespace {

void append_csv_row(std::string& out, const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ',';
    out += csv_field(fields[i]);
  }
  out += '\n';
}

// The comment lines and the column names.
std::string csv_head(const CsvTable& table) {
  std::string out;
  for (const auto& [key, value] : table.comments) {
    out += "# ";
    out += key;
    out += ": ";
    out += one_line(value);
    out += '\n';
  }
  append_csv_row(out, table.columns);
  return out;
}

}  // namespace

void csv_flush_rows(CsvTable& table) {
  for (const auto& row : table.rows) append_csv_row(table.renderedRows, row);
  table.rows.clear();
  table.rows.shrink_to_fit();
}

std::string csv_render(const CsvTable& table) {
  std::string out = csv_head(table);
  out += table.renderedRows;
  for (const auto& row : table.rows) append_csv_row(out, row);
  return out;
}

std::string csv_render_taking(CsvTable& table) {
  csv_flush_rows(table);
  std::string out = std::move(table.renderedRows);
  table.renderedRows = std::string();
  out.insert(0, csv_head(table));
  return out;
}



CsvTable csv_parse(const std::string& text) {
  CsvTable table;
  std::size_t at = 0, line = 1;
  const std::size_t n = text.size();
  auto fail = [&](const std::string& what) {
    throw std::invalid_argument("line " + std::to_string(line) + ": " + what);
  };
  // Comment lines.
  while (at < n && text[at] == '#') {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = n;
    std::string comment = text.substr(at + 1, end - at - 1);
    if (!comment.empty() && comment.back() == '\r') comment.pop_back();
    if (!comment.empty() && comment.front() == ' ') comment.erase(0, 1);
    const std::size_t colon = comment.find(": ");
    if (colon == std::string::npos)
      table.comments.emplace_back(comment, "");
    else
      table.comments.emplace_back(comment.substr(0, colon), comment.substr(colon + 2));
    at = end + 1;
    ++line;
  }
  // Records: fields separated by commas, ended by a newline outside quotes.
  bool header = true;
  while (at < n) {
    std::vector<std::string> fields;
    std::string field;
    const std::size_t startLine = line;
    for (;;) {
      if (at < n && text[at] == '"') {
        ++at;
        for (;;) {
          if (at >= n) {
            line = startLine;
            fail("a quoted field is never closed");
          }
          const char c = text[at++];
          if (c == '"') {
            if (at < n && text[at] == '"') {
              field += '"';
              ++at;
            } else {
              break;
            }
          } else {
            if (c == '\n') ++line;
            field += c;
          }
        }
        if (at < n && text[at] != ',' && text[at] != '\n' && text[at] != '\r')
          fail("text after a closing quote");
      } else {
        while (at < n && text[at] != ',' && text[at] != '\n') field += text[at++];
        if (!field.empty() && field.back() == '\r') field.pop_back();
      }
      if (at < n && text[at] == '\r') ++at;
      fields.push_back(std::move(field));
      field.clear();
      if (at < n && text[at] == ',') {
        ++at;
        continue;
      }
      break;  // end of the record (newline or end of text)
    }
    if (at < n && text[at] == '\n') ++at;
    if (header) {
      table.columns = std::move(fields);
      header = false;
    } else if (fields.size() != table.columns.size()) {
      line = startLine;
      fail(std::to_string(fields.size()) + " fields, the header has " +
           std::to_string(table.columns.size()));
    } else {
      table.rows.push_back(std::move(fields));
    }
    ++line;
  }
  return table;
}

namespace {

namespace fs = std::filesystem;

// What may be replaced: nothing but a regular file (never a device node, a
// FIFO, a folder or a link, whatever --force says).
void check_replaceable(const fs::path& path, bool overwrite) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(path, ec);
  if (st.type() == fs::file_type::not_found) return;
  if (ec) throw std::runtime_error(path.string() + ": cannot be checked (" + ec.message() + ")");
  if (st.type() != fs::file_type::regular)
    throw std::runtime_error(path.string() +
                             ": exists and is not a regular file; SinkScope only replaces "
                             "regular files");
  if (!overwrite)
    throw std::runtime_error(path.string() + ": already exists (use --force to replace it)");
}

}  // namespace

void output_check_replaceable(const fs::path& path, bool overwrite) {
  check_replaceable(path, overwrite);
}

namespace {

std::string temp_name(const fs::path& path) {
  static std::random_device rd;
  return "." + path.filename().string() + ".tmp" + std::to_string(rd());
}

// Writes `content` to a new temporary file beside `path`; returns its name.
fs::path write_temp(const fs::path& path, const std::string& content) {
  const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const fs::path temp = folder / temp_name(path);
  std::FILE* f = std::fopen(temp.c_str(), "wbx");
  if (!f) throw std::runtime_error(path.string() + ": cannot write (" + std::strerror(errno) + ")");
  const bool written = std::fwrite(content.data(), 1, content.size(), f) == content.size();
  const int writeErrno = errno;
  const bool flushed = std::fflush(f) == 0;
  const int flushErrno = errno;
  const bool closed = std::fclose(f) == 0;
  if (!written || !flushed || !closed) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw std::runtime_error(path.string() + ": write failed (" +
                             std::strerror(!written ? writeErrno : flushErrno) + ")");
  }
  return temp;
}

}  // namespace

void file_write_atomic(const fs::path& path, const std::string& content, bool overwrite) {
  files_write_atomic({{path, content}}, overwrite);
}

void files_write_atomic(const std::vector<std::pair<fs::path, std::string>>& files,
                        bool overwrite) {
  // 1. Refuse before writing anything: a refused set leaves no trace.
  for (const auto& [path, content] : files) check_replaceable(path, overwrite);
  // 2. Folders that do not exist yet are made; undone when a write fails.
  std::vector<fs::path> madeFolders;
  std::vector<std::pair<fs::path, fs::path>> temps;  // (temporary, target)
  auto undo = [&] {
    std::error_code ignored;
    for (const auto& [temp, target] : temps) fs::remove(temp, ignored);
    for (auto it = madeFolders.rbegin(); it != madeFolders.rend(); ++it) fs::remove(*it, ignored);
  };
  try {
    for (const auto& [path, content] : files) {
      const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
      std::vector<fs::path> missing;
      for (fs::path f = folder; !f.empty() && !fs::exists(f); f = f.parent_path()) {
        missing.push_back(f);
        if (f == f.parent_path()) break;
      }
      for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
        std::error_code ec;
        if (!fs::create_directory(*it, ec) && ec)
          throw std::runtime_error(path.string() + ": folder " + it->string() +
                                   " cannot be made (" + ec.message() + ")");
        madeFolders.push_back(*it);
      }
      if (!fs::is_directory(folder))
        throw std::runtime_error(path.string() + ": " + folder.string() + " is not a folder");
      // 3. Every file to a temporary sibling; a full disk fails here, before any rename.
      temps.emplace_back(write_temp(path, content), path);
    }
  } catch (...) {
    undo();
    throw;
  }
  // 4. Renames: atomic each, and nothing left that could run out of space.
  for (std::size_t i = 0; i < temps.size(); ++i) {
    std::error_code ec;
    check_replaceable(temps[i].second, true);  // nothing else appeared meanwhile
    fs::rename(temps[i].first, temps[i].second, ec);
    if (ec) {
      std::error_code ignored;
      for (std::size_t k = i; k < temps.size(); ++k) fs::remove(temps[k].first, ignored);
      throw std::runtime_error(temps[i].second.string() + ": cannot replace (" + ec.message() +
                               ")");
    }
  }
}

}  // namespace sinkscope::analysis
