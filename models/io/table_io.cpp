#include "models/io/table_io.h"

#include <algorithm>
#include <limits>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <stdexcept>
#include <utility>

#include <stdlib.h>
#include <unistd.h>

namespace sinkscope::io {

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

}  // namespace

std::string csv_one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

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
    out += csv_one_line(value);
    out += '\n';
  }
  append_csv_row(out, table.columns);
  return out;
}

}  // namespace

std::string csv_render_head(const CsvTable& table) { return csv_head(table); }

void csv_append_row(std::string& out, const std::vector<std::string>& fields) {
  append_csv_row(out, fields);
}

void csv_flush_rows(CsvTable& table) {
  // Taken first: a writer that throws leaves no writer to write its rows twice.
  const std::vector<std::function<void(std::string&)>> writers = std::exchange(table.laterRows, {});
  for (const auto& write : writers) write(table.renderedRows);
  for (const auto& row : table.rows) append_csv_row(table.renderedRows, row);
  table.rows.clear();
  table.rows.shrink_to_fit();
}

void csv_defer_rows(CsvTable& table, std::function<void(std::string&)> write) {
  if (!table.rows.empty()) csv_flush_rows(table);  // earlier rows stay first
  table.laterRows.push_back(std::move(write));
}

bool csv_has_text_rows(const CsvTable& table) {
  return !table.renderedRows.empty() || !table.laterRows.empty();
}

std::string csv_render(const CsvTable& table) {
  std::string out = csv_head(table);
  out += table.renderedRows;
  for (const auto& write : table.laterRows) write(out);
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

CsvTable csv_parse(const std::string& text) { return csv_parse(text, kCsvMaxCells); }

CsvTable csv_with_rows_parsed(const CsvTable& table) {
  if (!csv_has_text_rows(table)) return table;
  return csv_parse(csv_render(table), std::numeric_limits<std::size_t>::max());
}

CsvTable csv_parse(const std::string& text, std::size_t maxCells) {
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
  std::size_t cells = 0;
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
      // Bounded by what a table holds, not by the file: each empty field
      // costs a string (32 bytes) for one byte of file.
      if (fields.size() > kCsvMaxColumns) fail("more than " + std::to_string(kCsvMaxColumns) + " fields");
      if (++cells > maxCells) fail("more than " + std::to_string(maxCells) + " fields in all");
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

}  // namespace

void file_write_atomic(const fs::path& path, const std::string& content, bool overwrite) {
  files_write_atomic({{path, content}}, overwrite);
}

void files_write_atomic(const std::vector<std::pair<fs::path, std::string>>& files,
                        bool overwrite) {
  // Refused before anything is written: a refused set leaves no trace.
  for (const auto& [path, content] : files) check_replaceable(path, overwrite);
  AtomicFileSet set(overwrite);
  for (const auto& [path, content] : files) set.append(set.open(path), content);
  set.commit();
}

struct AtomicFileSet::Pending {
  fs::path target;
  fs::path temp;
  std::FILE* file = nullptr;
};

AtomicFileSet::AtomicFileSet(bool overwrite) : overwrite_(overwrite) {}

AtomicFileSet::~AtomicFileSet() {
  if (!committed_) undo();
}

void AtomicFileSet::undo() noexcept {
  std::error_code ignored;
  for (auto& p : pending_) {
    if (p.file) std::fclose(p.file);
    p.file = nullptr;
    fs::remove(p.temp, ignored);
  }
  for (auto it = madeFolders_.rbegin(); it != madeFolders_.rend(); ++it) fs::remove(*it, ignored);
  pending_.clear();
  madeFolders_.clear();
}

std::size_t AtomicFileSet::open(const fs::path& target) {
  if (committed_) throw std::logic_error("AtomicFileSet: open after commit");
  check_replaceable(target, overwrite_);
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::vector<fs::path> missing;
  for (fs::path f = folder; !f.empty() && !fs::exists(f); f = f.parent_path()) {
    missing.push_back(f);
    if (f == f.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    std::error_code ec;
    if (!fs::create_directory(*it, ec) && ec)
      throw std::runtime_error(target.string() + ": folder " + it->string() +
                               " cannot be made (" + ec.message() + ")");
    madeFolders_.push_back(*it);
  }
  if (!fs::is_directory(folder))
    throw std::runtime_error(target.string() + ": " + folder.string() + " is not a folder");
  Pending p{target, folder / temp_name(target), nullptr};
  p.file = std::fopen(p.temp.c_str(), "wbx");  // never an existing file
  if (!p.file)
    throw std::runtime_error(target.string() + ": cannot write (" + std::strerror(errno) + ")");
  pending_.push_back(std::move(p));
  return pending_.size() - 1;
}

void AtomicFileSet::append(std::size_t file, std::string_view text) {
  if (file >= pending_.size() || !pending_[file].file)
    throw std::logic_error("AtomicFileSet: append to a file that is not open");
  Pending& p = pending_[file];
  if (std::fwrite(text.data(), 1, text.size(), p.file) != text.size())
    throw std::runtime_error(p.target.string() + ": write failed (" + std::strerror(errno) + ")");
}

void AtomicFileSet::commit() {
  if (committed_) throw std::logic_error("AtomicFileSet: committed twice");
  // Every temporary closed first: a full disk fails here, before any rename.
  for (auto& p : pending_) {
    const bool flushed = std::fflush(p.file) == 0;
    const int flushErrno = errno;
    const bool closed = std::fclose(p.file) == 0;
    p.file = nullptr;
    if (!flushed || !closed)
      throw std::runtime_error(p.target.string() + ": write failed (" +
                               std::strerror(flushed ? errno : flushErrno) + ")");
  }
  // Renames: atomic each, and nothing left that could run out of space.
  committed_ = true;
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    std::error_code ec;
    try {
      check_replaceable(pending_[i].target, true);  // nothing else appeared meanwhile
    } catch (...) {
      std::error_code ignored;
      for (std::size_t k = i; k < pending_.size(); ++k) fs::remove(pending_[k].temp, ignored);
      throw;
    }
    fs::rename(pending_[i].temp, pending_[i].target, ec);
    if (ec) {
      std::error_code ignored;
      for (std::size_t k = i; k < pending_.size(); ++k) fs::remove(pending_[k].temp, ignored);
      throw std::runtime_error(pending_[i].target.string() + ": cannot replace (" +
                               ec.message() + ")");
    }
  }
}

RowSpool::RowSpool() {
  try {
    folder_ = fs::temp_directory_path();
  } catch (const fs::filesystem_error& e) {
    throw std::runtime_error(std::string("the temporary folder (TMPDIR) cannot be used: ") +
                             e.what());
  }
  std::string name = (folder_ / "sinkscope-rows-XXXXXX").string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0)
    throw std::runtime_error(folder_.string() + ": cannot make a temporary file for rows (" +
                             std::strerror(errno) + ")");
  ::unlink(name.c_str());  // nameless from now on: gone when closed
  file_ = ::fdopen(fd, "w+b");
  if (!file_) {
    const int e = errno;
    ::close(fd);
    throw std::runtime_error(folder_.string() + ": cannot open a temporary file for rows (" +
                             std::strerror(e) + ")");
  }
}

RowSpool::~RowSpool() {
  if (file_) std::fclose(file_);
}

void RowSpool::take(CsvTable& table) {
  csv_flush_rows(table);
  const std::string& text = table.renderedRows;
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size())
    throw std::runtime_error(folder_.string() + ": temporary rows cannot be written (" +
                             std::strerror(errno) + ")");
  bytes_ += text.size();
  table.renderedRows = std::string();
}

void RowSpool::copyTo(AtomicFileSet& set, std::size_t file) {
  if (std::fflush(file_) != 0 || std::fseek(file_, 0, SEEK_SET) != 0)
    throw std::runtime_error(folder_.string() + ": temporary rows cannot be read (" +
                             std::strerror(errno) + ")");
  std::string piece(std::size_t{8} << 20, '\0');
  std::uint64_t left = bytes_;
  while (left > 0) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(left, piece.size()));
    if (std::fread(piece.data(), 1, want, file_) != want)
      throw std::runtime_error(folder_.string() + ": temporary rows cannot be read (" +
                               std::strerror(errno) + ")");
    set.append(file, std::string_view(piece.data(), want));
    left -= want;
  }
  std::fseek(file_, 0, SEEK_END);  // later rows go after these
}

}  // namespace sinkscope::io
