// A merged study read back for the GUI. csv_parse is the
// inverse of csv_render; study_tables_read gives the numbers of the CSVs the
// CLI wrote, and refuses damaged or hostile study folders with the file and
// the problem, never reading outside the folder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>

#include "models/io/table_io.h"
#include "models/document/study_tables.h"
#include "support/shell_run.h"

namespace fs = std::filesystem;
using sinkscope::io::csv_parse;
using sinkscope::io::csv_render;
using sinkscope::io::CsvTable;
using sinkscope::document::study_tables_read;
using sinkscope::document::StudyReadError;

TEST(CsvParse, IsTheInverseOfCsvRender) {
  CsvTable t;
  t.comments = {{"tool", "sinkscope"}, {"text", "a, b: \"c\""}};
  t.columns = {"token", "value", "empty"};
  t.rows = {{"plain", "1.5", ""},
            {"with, comma", "-2", ""},
            {"with \"quotes\"", "3", "x"},
            {"two\nlines", "4e-300", ""},
            {"", "", ""}};
  const CsvTable back = csv_parse(csv_render(t));
  EXPECT_EQ(back.columns, t.columns);
  EXPECT_EQ(back.rows, t.rows);
  EXPECT_EQ(back.comments, t.comments);
  // CRLF line ends read the same.
  EXPECT_EQ(csv_parse("a,b\r\n1,2\r\n").rows, (std::vector<std::vector<std::string>>{{"1", "2"}}));
}

TEST(CsvParse, FieldsAreBoundedByTheTableNotByTheFile) {
  // 64 Mi commas (the size cap of a merged table) would be 64 Mi strings,
  // about 50 times the file's size in memory: refused after 65,536 fields.
  try {
    csv_parse(std::string(64u << 20, ','));
    ADD_FAILURE() << "64 Mi commas accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("line 1: more than 65536 fields"), std::string::npos) << e.what();
  }
  // As many one-field lines: refused past the total.
  std::string lines = "a\n";
  for (std::size_t k = 0; k <= sinkscope::io::kCsvMaxCells; ++k) lines += "1\n";
  EXPECT_THROW(csv_parse(lines), std::invalid_argument);
  EXPECT_EQ(csv_parse("a\n1\n2\n").rows.size(), 2u);
}

TEST(CsvRender, RowsKeptAsTextRenderTheSameLines) {
  CsvTable t;
  t.comments = {{"tool", "sinkscope"}};
  t.columns = {"token", "value"};
  t.rows = {{"with, comma", "1"}, {"two\nlines", "2"}, {"plain", "3"}};
  const std::string whole = sinkscope::io::csv_render(t);
  // Rows flushed as text in two steps, then more rows: the same file.
  CsvTable flushed = t;
  flushed.rows = {t.rows[0]};
  sinkscope::io::csv_flush_rows(flushed);
  EXPECT_TRUE(flushed.rows.empty());
  flushed.rows = {t.rows[1]};
  sinkscope::io::csv_flush_rows(flushed);
  flushed.rows = {t.rows[2]};
  EXPECT_EQ(sinkscope::io::csv_render(flushed), whole);
  EXPECT_EQ(sinkscope::io::csv_render_taking(flushed), whole);
  EXPECT_TRUE(flushed.rows.empty());
  EXPECT_TRUE(flushed.renderedRows.empty());
  EXPECT_EQ(csv_parse(whole).rows, t.rows);
}

TEST(CsvRender, AStreamedTableIsTheSameFile) {
  CsvTable t;
  t.comments = {{"tool", "sinkscope"}, {"text", "two\nlines"}};
  t.columns = {"token", "value"};
  t.rows = {{"with, comma", "1"}, {"plain", "2"}};
  std::string streamed = sinkscope::io::csv_render_head(t);
  for (const auto& row : t.rows) sinkscope::io::csv_append_row(streamed, row);
  EXPECT_EQ(streamed, csv_render(t));
}

namespace {
std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    names.push_back(fs::relative(e.path(), dir).string());
  std::sort(names.begin(), names.end());
  return names;
}
}  // namespace

TEST(AtomicFileSet, FilesAppearOnlyAtCommitAndAnAbandonedSetLeavesNothing) {
  using sinkscope::io::AtomicFileSet;
  const fs::path root =
      fs::temp_directory_path() / ("sinkscope-fileset-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  {
    AtomicFileSet set(false);
    const auto big = set.open(root / "new/deeper/big.csv");
    const auto small = set.open(root / "small.csv");
    set.append(big, "a,");
    set.append(small, "x\n");
    set.append(big, "b\n");
    // Nothing under its own name yet: only temporaries (and the folders made).
    EXPECT_FALSE(fs::exists(root / "new/deeper/big.csv"));
    EXPECT_FALSE(fs::exists(root / "small.csv"));
    set.commit();
  }
  EXPECT_EQ(read_all(root / "new/deeper/big.csv"), "a,b\n");
  EXPECT_EQ(read_all(root / "small.csv"), "x\n");
  EXPECT_EQ(entries(root), (std::vector<std::string>{"new", "new/deeper", "new/deeper/big.csv",
                                                     "small.csv"}));
  // Abandoned (an error, a cancel): no temporary, no folder it made, the old file kept.
  {
    AtomicFileSet set(true);
    set.append(set.open(root / "small.csv"), "replaced\n");
    set.append(set.open(root / "other/made.csv"), "y\n");
  }
  EXPECT_EQ(read_all(root / "small.csv"), "x\n");
  EXPECT_EQ(entries(root), (std::vector<std::string>{"new", "new/deeper", "new/deeper/big.csv",
                                                     "small.csv"}));
  // An existing file is refused without --force; a folder never replaced.
  {
    AtomicFileSet set(false);
    EXPECT_THROW(set.open(root / "small.csv"), std::runtime_error);
    AtomicFileSet forced(true);
    try {
      forced.open(root / "new");
      ADD_FAILURE() << "a folder was accepted as a target";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
    }
  }
  fs::remove_all(root);
}

// Rows spilled to a spool and streamed after the head give csv_render's
// bytes; the spool has no name in its folder; a folder that cannot hold it is named.
TEST(RowSpool, SpilledRowsWriteTheBytesOfTheWholeTable) {
  using sinkscope::io::AtomicFileSet;
  using sinkscope::io::RowSpool;
  const fs::path root =
      fs::temp_directory_path() / ("sinkscope-spool-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "tmp");
  const char* previous = std::getenv("TMPDIR");
  const std::string restore = previous ? previous : "";
  ::setenv("TMPDIR", (root / "tmp").c_str(), 1);
  CsvTable whole;
  whole.comments = {{"tool", "test"}};
  whole.columns = {"layer", "text", "value"};
  // More than one 8 MB piece of text, with fields that need quoting.
  for (int i = 0; i < 450000; ++i)
    whole.rows.push_back({std::to_string(i % 16), i % 7 ? "plain" : "a \"quoted\",\nfield",
                          sinkscope::io::csv_number(i * 0.1)});
  {
    RowSpool spool;
    EXPECT_TRUE(fs::is_empty(root / "tmp")) << "the spool has a name in its folder";
    CsvTable part;
    part.comments = whole.comments;
    part.columns = whole.columns;
    for (std::size_t i = 0; i < whole.rows.size(); ++i) {
      part.rows.push_back(whole.rows[i]);
      if (i % 60000 == 0) spool.take(part);
    }
    spool.take(part);
    EXPECT_TRUE(part.rows.empty());
    AtomicFileSet set(false);
    const auto file = set.open(root / "out.csv");
    set.append(file, sinkscope::io::csv_render_taking(part));
    spool.copyTo(set, file);
    set.commit();
    EXPECT_GT(spool.bytes(), std::uint64_t{8} << 20);
  }
  EXPECT_EQ(read_all(root / "out.csv"), csv_render(whole));
  EXPECT_TRUE(fs::is_empty(root / "tmp"));
  ::setenv("TMPDIR", (root / "absent").c_str(), 1);
  try {
    RowSpool spool;
    ADD_FAILURE() << "a spool in a missing folder";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("TMPDIR"), std::string::npos) << e.what();
  }
  if (previous)
    ::setenv("TMPDIR", restore.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
  fs::remove_all(root);
}

TEST(CsvParse, MalformedTablesNameTheLine) {
  auto message = [](const std::string& text) {
    try {
      csv_parse(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(message("# c: 1\na,b\n1,2\n1,2,3\n"), "line 4: 3 fields, the header has 2");
  EXPECT_EQ(message("a,b\n\"open,2\n"), "line 2: a quoted field is never closed");
  EXPECT_EQ(message("a,b\n\"x\"y,2\n"), "line 2: text after a closing quote");
}

namespace {

const std::string kModel = std::string(SINKSCOPE_SOURCE_DIR) + "/resources/models/rope-decoder-bos-first";
const std::string kSentences = std::string(SINKSCOPE_SOURCE_DIR) + "/resources/examples/sentences.txt";

// One merged study of 12 sentences, made once by the CLI for every test.
class StudyTablesRead : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("sinkscope-study-tables-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    {
      std::ifstream in(kSentences);
      std::ofstream out(dir_ / "s.txt");
      std::string line;
      for (int k = 0; k < 12 && std::getline(in, line); ++k) out << line << "\n";
    }
    const CliRun run = cli("study run '" + kModel + "' --sentences '" + (dir_ / "s.txt").string() +
                           "' --out '" + (dir_ / "study").string() + "' --functional --batch 4");
    ASSERT_EQ(run.exit, 0) << run.out;
    ASSERT_EQ(cli("study merge '" + (dir_ / "study").string() + "'").exit, 0);
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  // A copy of the study to damage.
  fs::path copy(const std::string& name) {
    const fs::path to = dir_ / name;
    fs::remove_all(to);
    fs::copy(dir_ / "study", to, fs::copy_options::recursive);
    return to;
  }
  std::string refusal(const fs::path& folder) {
    try {
      study_tables_read(folder);
    } catch (const StudyReadError& e) {
      return e.what();
    }
    return "(accepted)";
  }
  static fs::path dir_;
};
fs::path StudyTablesRead::dir_;

}  // namespace

TEST_F(StudyTablesRead, GivesTheNumbersTheCliWrote) {
  const auto s = study_tables_read(dir_ / "study");
  EXPECT_EQ(s.layers, 4);
  EXPECT_EQ(s.heads, 4);
  EXPECT_EQ(s.sentences, 12u);
  EXPECT_EQ(s.sentencesMissing, "none");
  EXPECT_EQ(s.frame, "centralised");
  EXPECT_EQ(s.firstToken, "<s>");
  // Every head of specialisation.csv and taxonomy_pooled.csv, to the digit.
  const CsvTable spec = csv_parse(read_text(dir_ / "study/merged/specialisation.csv"));
  ASSERT_EQ(spec.rows.size(), 16u);
  for (const auto& row : spec.rows) {
    const auto& h = s.head(std::stoi(row[0]), std::stoi(row[1]));
    EXPECT_EQ(h.specialised, row[2] == "1");
    EXPECT_EQ(h.sampleShare.value, std::stod(row[3]));
    EXPECT_EQ(h.topToken, row[4]);
    EXPECT_LE(h.sampleShare.lo, h.sampleShare.value);
    EXPECT_GE(h.sampleShare.hi, h.sampleShare.value);
  }
  const CsvTable profile = csv_parse(read_text(dir_ / "study/merged/layer_profile.csv"));
  for (const auto& row : profile.rows) {
    const std::string key = row[1] + (row[2].empty() ? "" : "@" + row[2]);
    ASSERT_TRUE(s.profiles.count(key)) << key;
    EXPECT_EQ(s.profiles.at(key)[static_cast<std::size_t>(std::stoi(row[0]))].value, std::stod(row[4]))
        << key;
  }
  EXPECT_TRUE(s.profiles.count("fiedler@0.05"));
  // Top sentences: five per head, their texts from the sentence file, by falling alpha_0.
  for (const auto& list : s.topSentences) {
    ASSERT_EQ(list.size(), 5u);
    for (std::size_t k = 1; k < list.size(); ++k) EXPECT_GE(list[k - 1].alpha0, list[k].alpha0);
    EXPECT_NE(read_text(dir_ / "s.txt").find(list[0].text), std::string::npos);
  }
  EXPECT_EQ(s.functional.size(), 6u);  // KL per layer, in all layers, BOS removal
}

TEST_F(StudyTablesRead, DamagedOrHostileStudiesAreRefusedWithTheFileAndProblem) {
  {  // not merged yet
    const fs::path f = copy("unmerged");
    fs::remove_all(f / "merged");
    EXPECT_NE(refusal(f).find("merged: missing (merge the study first"), std::string::npos);
  }
  {  // a number that is not one
    const fs::path f = copy("nan");
    std::string text = read_text(f / "merged/specialisation.csv");
    const auto at = text.find("\n0,0,");
    ASSERT_NE(at, std::string::npos);
    const auto cell = text.find(',', at + 5) + 1;
    text.replace(cell, text.find(',', cell) - cell, "inf");
    std::ofstream(f / "merged/specialisation.csv") << text;
    EXPECT_NE(refusal(f).find("specialisation.csv: row 1, column sample_share: \"inf\" is not a number"),
              std::string::npos)
        << refusal(f);
  }
  {  // a head outside the model
    const fs::path f = copy("range");
    std::ofstream(f / "merged/top_sentences.csv", std::ios::app) << "9,0,1,0,0.5,1,3,x\n";
    EXPECT_NE(refusal(f).find("top_sentences.csv: row 81, column layer: 9 is outside 0..3"),
              std::string::npos)
        << refusal(f);
  }
  {  // a link out of the folder is never followed
    const fs::path f = copy("link");
    fs::remove(f / "merged/frame.csv");
    fs::create_symlink("/etc/passwd", f / "merged/frame.csv");
    EXPECT_NE(refusal(f).find("frame.csv: is a link, not a regular file"), std::string::npos) << refusal(f);
  }
  {  // a table larger than any study writes (sparse: no disk used)
    const fs::path f = copy("huge");
    fs::resize_file(f / "merged/layer_profile.csv", std::uintmax_t{65} << 20);
    EXPECT_NE(refusal(f).find("layer_profile.csv: is 68157440 bytes, more than the limit"), std::string::npos)
        << refusal(f);
  }
  {  // study.json: deeply nested, or a model of no layers
    const fs::path f = copy("json");
    std::ofstream(f / "study.json") << std::string(5000, '[');
    EXPECT_NE(refusal(f).find("study.json: JSON nested deeper than 16 levels"), std::string::npos)
        << refusal(f);
    std::string description = read_text(dir_ / "study/study.json");
    const auto at = description.find("\"layers\": 4");
    ASSERT_NE(at, std::string::npos);
    description.replace(at, 11, "\"layers\": 0");
    std::ofstream(f / "study.json") << description;
    EXPECT_NE(refusal(f).find("study.json: layers: expected a whole number from 1 to 4096"),
              std::string::npos)
        << refusal(f);
    // A float is never truncated into a layer count.
    description.replace(at, 11, "\"layers\": 4.5");
    std::ofstream(f / "study.json") << description;
    EXPECT_NE(refusal(f).find("study.json: layers: expected a whole number"), std::string::npos)
        << refusal(f);
  }
  {  // a class that is not one
    const fs::path f = copy("label");
    std::string text = read_text(f / "merged/taxonomy_pooled.csv");
    const auto at = text.find(",Reset");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, 6, ",Sinker");
    std::ofstream(f / "merged/taxonomy_pooled.csv") << text;
    EXPECT_NE(refusal(f).find("label \"Sinker\" is not Retriever, Mixer or Reset"), std::string::npos)
        << refusal(f);
  }
  {  // a table cut in half: at a line end, rows are missing; inside a line, a number may still parse
    const fs::path f = copy("cut");
    const std::string text = read_text(dir_ / "study/merged/taxonomy_pooled.csv");
    const std::size_t half = text.find('\n', text.size() / 2) + 1;
    std::ofstream(f / "merged/taxonomy_pooled.csv") << text.substr(0, half);
    EXPECT_NE(refusal(f).find("taxonomy_pooled.csv: no row for layer "), std::string::npos)
        << refusal(f);
    std::ofstream(f / "merged/taxonomy_pooled.csv") << text.substr(0, text.size() - 3);
    EXPECT_NE(refusal(f).find("taxonomy_pooled.csv: ends in the middle of a line (the file is cut short)"),
              std::string::npos)
        << refusal(f);
    std::ofstream(f / "merged/taxonomy_pooled.csv") << text;
    const std::string profile = read_text(dir_ / "study/merged/layer_profile.csv");
    std::ofstream(f / "merged/layer_profile.csv") << profile.substr(0, profile.find('\n', profile.size() / 2) + 1);
    EXPECT_NE(refusal(f).find("layer_profile.csv: no row for layer "), std::string::npos) << refusal(f);
  }
  EXPECT_NE(refusal(dir_ / "no-such-folder").find("not a folder"), std::string::npos);
}
