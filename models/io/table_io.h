#pragma once
// Tables SinkScope writes: CSV in the format of
// shared/spec/ui-and-formats.md (comment header, snake_case columns, full
// precision), always written atomically (temporary file, then rename).
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sinkscope::io {

struct CsvTable {
  std::vector<std::pair<std::string, std::string>> comments;  // "# key: value" lines
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  // Rows already rendered as CSV lines (csv_flush_rows), written before `rows`:
  // a table of millions of rows kept as text takes a tenth of the memory.
  std::string renderedRows;
  // Rows written as CSV text only when the table is rendered, after
  // renderedRows and before `rows` (csv_defer_rows): a long input's map is
  // millions of rows that a window draws far more often than it exports.
  std::vector<std::function<void(std::string&)>> laterRows;
};

// Moves the later rows, then `rows`, into `renderedRows` (the same lines
// csv_render would write).
void csv_flush_rows(CsvTable& table);
// Rows that `write` appends as CSV lines when the table is rendered; they come
// after every row added before (those in `rows` are rendered first). `write`
// must own what it reads: the table may outlive its caller's data.
void csv_defer_rows(CsvTable& table, std::function<void(std::string&)> write);
// Whether some rows are held as text (rendered or deferred) rather than fields.
bool csv_has_text_rows(const CsvTable& table);

// csv_render's text, taking the table's rendered rows instead of copying
// them (the table is left without rows): a table of gigabytes is held once.
std::string csv_render_taking(CsvTable& table);

// Full float precision: enough digits to read back the same double.
std::string csv_number(double value);
// The same, but an undefined or not-applicable value (NaN) as an empty field
// (metrics.md: never written as a number).
std::string csv_number_or_empty(double value);

std::string csv_render(const CsvTable& table);

// A comment's value on one line (line breaks become spaces), as every
// table's "# key: value" header writes it.
std::string csv_one_line(std::string value);

// The comment lines and the column names, as csv_render starts; and rows as it
// writes them: for a table streamed to its file instead of held whole.
std::string csv_render_head(const CsvTable& table);
void csv_append_row(std::string& out, const std::vector<std::string>& fields);

// The inverse of csv_render: "# key: value" lines first, then the header and
// the rows (quoted fields with "" for a quote, newlines inside quotes). Throws
// std::invalid_argument naming the line for an unterminated quote, text after
// a closing quote, or a row whose field count differs from the header's.
// At most kCsvMaxColumns fields a record and kCsvMaxCells in all (about
// 250 MB of strings), whatever the text's length; std::invalid_argument
// ("line N: ...") beyond, or on a malformed record.
inline constexpr std::size_t kCsvMaxColumns = 65536;
inline constexpr std::size_t kCsvMaxCells = std::size_t{1} << 22;
CsvTable csv_parse(const std::string& text);
// The same with another bound on the fields in all: for text SinkScope made
// itself (a long input's rows kept as text), never for a file it reads.
CsvTable csv_parse(const std::string& text, std::size_t maxCells);
// `table` with every row as fields: its rendered rows (SinkScope's own text)
// parsed back, for readers of `rows`.
CsvTable csv_with_rows_parsed(const CsvTable& table);

// Writes `content` to `path` through a temporary file in the same folder and a
// rename. Refuses to replace an existing file unless `overwrite`, and never
// replaces anything but a regular file (not a device, FIFO, folder or link).
// Throws std::runtime_error naming the file and the problem.
void file_write_atomic(const std::filesystem::path& path, const std::string& content,
                       bool overwrite);

// Throws std::runtime_error unless `path` may be written: absent, or (with
// `overwrite`) a regular file. What every writer checks before and after.
void output_check_replaceable(const std::filesystem::path& path, bool overwrite);

// Writes several files as one: every existing target is checked first (as
// above), missing folders are made, all contents go to temporary siblings,
// and only when every one is written are they renamed into place. A failure
// (a full disk, a refused target) leaves nothing new behind: no file of the
// set, no temporary, no folder it made.
void files_write_atomic(
    const std::vector<std::pair<std::filesystem::path, std::string>>& files, bool overwrite);

// The same set written as it is made, for outputs too big to hold as text:
// each file is streamed into its temporary sibling and commit() renames them
// all into place. Destroyed uncommitted (an error, a cancel) it removes every
// temporary and every folder it made. Throws std::runtime_error naming the
// file and the problem.
class AtomicFileSet {
 public:
  explicit AtomicFileSet(bool overwrite);
  ~AtomicFileSet();
  AtomicFileSet(const AtomicFileSet&) = delete;
  AtomicFileSet& operator=(const AtomicFileSet&) = delete;

  // Checks that `target` may be written (as output_check_replaceable), makes
  // its missing folders and opens its temporary; returns the handle append takes.
  std::size_t open(const std::filesystem::path& target);
  void append(std::size_t file, std::string_view text);
  // Closes every temporary (a full disk fails here at the latest), then renames.
  void commit();

 private:
  struct Pending;
  void undo() noexcept;
  bool overwrite_;
  bool committed_ = false;
  std::vector<Pending> pending_;
  std::vector<std::filesystem::path> madeFolders_;
};

// A table's rows spilled to an unnamed temporary file (in TMPDIR, else /tmp)
// as they are made, for outputs of gigabytes: a long input's persistence and
// eigenvalue rows never held in memory. The file has no name from the start,
// so nothing is left behind, even by a crash. Throws std::runtime_error naming
// the folder and the problem (a full disk).
class RowSpool {
 public:
  RowSpool();
  ~RowSpool();
  RowSpool(const RowSpool&) = delete;
  RowSpool& operator=(const RowSpool&) = delete;

  // Appends the table's rows, rendered as csv_render writes them, and empties them.
  void take(CsvTable& table);
  // Appends everything taken so far to `set`'s file `file`.
  void copyTo(AtomicFileSet& set, std::size_t file);
  std::uint64_t bytes() const { return bytes_; }

 private:
  std::FILE* file_ = nullptr;
  std::filesystem::path folder_;
  std::uint64_t bytes_ = 0;
};

}  // namespace sinkscope::io
