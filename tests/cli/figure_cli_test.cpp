// Figures without a display: `sinkscope-cli figure` runs
// the GUI program on Qt's offscreen platform (here, the same command runs in
// this program's offscreen QApplication; the programs give the same bytes). Every panel is compared
// with a golden image (tests/baselines/figure_*.png, made by this command and looked at before they
// were accepted), PDFs are vectors with embedded fonts, SVG text stays text, a PNG's pixels are the
// preset's size at the DPI, the same request is the same file, and bad requests say what is wrong.
#include <gtest/gtest.h>

#include "models/model_identity.h"

#include <QDir>
#include <QImage>
#include <QString>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/figure_command.h"
#include "models/io/table_io.h"
#include "render/panel_export.h"
#include "support/legend_check.h"
#include "support/pdf_text.h"
#include "support/render_compare.h"
#include "support/shell_run.h"
#include "ui/figure_request.h"
#include "ui/panel_registry.h"

using namespace sinkscope;

namespace {

// Figures are made in this program's QApplication (support/cli_in_process.h);
// lines that need a shell run the programs.
const bool kFiguresHere = (sinkscope::testing::run_figures_here(&app::figure_command_here), true);

const std::string kModel = SINKSCOPE_SOURCE_DIR "/resources/models/rope-decoder-bos-first";
const std::string kText = "'The cat sat on the mat because it was tired.'";

std::string figure_args(const std::string& panels, const std::string& out) {
  return "figure '" + kModel + "' --text " + kText + " " + panels + " --out '" + out + "'";
}

// A page of `mm` millimetres at `dpi`, in pixels (the figure is whole points first).
int pixels(double mm, int dpi) {
  const double points = std::lround(mm / 25.4 * 72.0);
  return static_cast<int>(std::lround(points * dpi / 72.0));
}

// sinkscope-cli analyze of the figures' model and sentence into `out`, with `options`.
CliRun analyze_into(const std::string& out, const std::string& options = "") {
  return shell("'" SINKSCOPE_CLI "' analyze '" + kModel + "' --text " + kText + options +
               " --no-weight-spectra --out '" + out + "' 2>&1");
}

// A 6 x 2 random model in `dir` and a session comparing the built-in model
// (4 x 4) with it at layer 3, head 0, B's head pinned at 1: {model, session};
// the model's path is empty when it could not be written.
std::pair<std::string, std::string> shapes_session(const QTemporaryDir& dir) {
  const std::string deep = dir.filePath(QStringLiteral("deep")).toStdString();
  const CliRun made = cli("random-model llama '" + deep + "' --layers 6 --heads 2");
  EXPECT_EQ(made.exit, 0) << made.out;
  const std::string session = dir.filePath(QStringLiteral("shapes.sinkscope")).toStdString();
  std::ofstream(session) << R"({"format": "sinkscope-session", "version": 1,
    "model": {"name": ")" << kModel
                         << R"("}, "text": "A cat sat.",
    "selection": {"layer": 3, "head": 0},
    "compare": {"model": ")"
                         << deep << R"(", "head": 1},
    "panels": {"comparison": "side_by_side"}})";
  return {made.exit == 0 ? deep : std::string(), session};
}

}  // namespace

TEST(FigureCli, EveryPanelMatchesItsGoldenImageAtThePresetsSize) {
  QTemporaryDir dir;
  constexpr int kDpi = 100;
  for (const ui::PanelEntry& panel : ui::panel_registry()) {
    if (panel.needsCheckpoints) continue;  // FigureCli.TheEmergenceOfASessionsCheckpoints
    SCOPED_TRACE(panel.name.toStdString());
    const QString png = dir.filePath(panel.name + QStringLiteral(".png"));
    const auto run = cli(figure_args("--panel " + panel.name.toStdString() + " --layer 1 --head 2",
                                     png.toStdString()) +
                         " --dpi " + std::to_string(kDpi));
    ASSERT_EQ(run.exit, 0) << run.out;
    EXPECT_NE(run.out.find("Figure: "), std::string::npos) << run.out;
    const QImage image(png);
    ASSERT_FALSE(image.isNull());
    // One column: 85 mm wide, 64 mm high for one row of views, 44.8 mm a row
    // for more; rows grow where a legend would leave the axes a strip, never
    // past a page. A plot not computed is left out, and the command says so.
    const render::FigureOptions preset = render::figure_preset(render::FigurePreset::OneColumn);
    int views = static_cast<int>(panel.views.size());
    const std::size_t note = run.out.find("note: left out, nothing to draw: ");
    if (note != std::string::npos) {
      const std::string line = run.out.substr(note, run.out.find('\n', note) - note);
      for (std::size_t at = line.find("not computed"); at != std::string::npos;
           at = line.find("not computed", at + 1))
        --views;
    }
    if (panel.name == QLatin1String("layer-profiles")) {
      EXPECT_NE(run.out.find("left out, nothing to draw: KL and Fisher by layer"),
                std::string::npos)
          << run.out;
    }
    ASSERT_GE(views, 1) << run.out;
    const int rows = (views + render::figure_columns(preset, views, 0) - 1) /
                     render::figure_columns(preset, views, 0);
    EXPECT_EQ(image.width(), pixels(85.0, kDpi));
    EXPECT_GE(image.height(), pixels(rows == 1 ? 64.0 : 44.8 * rows, kDpi));
    EXPECT_LE(image.height(), pixels(render::kPageTextHeightMm, kDpi) + 1);
    EXPECT_DOUBLE_EQ(render::figure_height_mm(preset, rows), rows == 1 ? 64.0 : 44.8 * rows);
    EXPECT_TRUE(test::image_has_content(image));
    const auto compared = test::render_compare(
        image,
        QStringLiteral(SINKSCOPE_BASELINE_DIR "/figure_") + panel.name + QStringLiteral(".png"),
        QStringLiteral(SINKSCOPE_CANDIDATE_DIR));
    EXPECT_TRUE(compared.passed) << compared.message.toStdString();
  }
}

// Every view of every panel gives its numbers as CSV from the same command:
// a header naming the panel, one line of column names and data rows. A new
// panel or view without a table fails here.
// A paper figure labels every token of a short sentence (smaller labels
// before fewer), and draws no selection unless asked: the window's framed
// cell is GUI state, and a masked cell (a key the query cannot see) is never
// framed at all.
TEST(FigureCli, EveryTokenIsLabelledAtOneColumnAndTheSelectionOnlyWhenAsked) {
  QTemporaryDir dir;
  // A one-column map (64 mm tall) labels every token at T = 13; T = 24 would
  // need the figure to take the height its square cells need.
  {
    const std::string& text = kText;
    const std::string json = dir.filePath(QStringLiteral("map.json")).toStdString();
    const std::string pdf = dir.filePath(QStringLiteral("map.pdf")).toStdString();
    const std::string args = "figure '" + kModel + "' --text " + text +
                             " --panel attention-map --preset one-column --query 5 --key 3";
    ASSERT_EQ(cli(args + " --out '" + json + "' --force").exit, 0);
    ASSERT_EQ(cli(args + " --out '" + pdf + "' --force").exit, 0);
    std::ifstream in(json);
    const auto views = nlohmann::json::parse(in);
    const auto& labels = views.at("row_labels");
    ASSERT_LE(labels.size(), 24u);
    const PdfText words = pdf_text(pdf);
    auto unescaped = [](std::string w) {
      for (const auto& [from, to] : {std::pair<std::string, std::string>{"&lt;", "<"},
                                     {"&gt;", ">"},
                                     {"&quot;", "\""},
                                     {"&amp;", "&"}})
        for (std::size_t at; (at = w.find(from)) != std::string::npos;)
          w.replace(at, from.size(), to);
      return w;
    };
    std::map<std::string, int> seen;
    for (const PdfWord& w : words.words) ++seen[unescaped(w.text)];
    for (const auto& label : labels) {
      // A figure shows the screen's visible space "\u2423" as a plain space.
      std::string s = label.get<std::string>();
      for (std::size_t at; (at = s.find("\u2423")) != std::string::npos;) s.replace(at, 3, " ");
      const std::string index = s.substr(0, s.find(' '));
      EXPECT_GE(seen[index], 2) << "token " << s << ": its row and column labels";
      std::istringstream parts(s.substr(s.find(' ') + 1));
      for (std::string part; parts >> part;) EXPECT_GE(seen[part], 1) << "token " << s;
    }
  }
  // Key importance at one column writes every token under its position.
  {
    const std::string json = dir.filePath(QStringLiteral("keys.json")).toStdString();
    const std::string pdf = dir.filePath(QStringLiteral("keys.pdf")).toStdString();
    const std::string args =
        "figure '" + kModel + "' --text " + kText + " --panel key-importance --preset one-column";
    ASSERT_EQ(cli(args + " --out '" + json + "' --force").exit, 0);
    ASSERT_EQ(cli(args + " --out '" + pdf + "' --force").exit, 0);
    const auto plot = nlohmann::json::parse(read_text(json));
    const auto tokens = plot.at("x_tick_labels").get<std::vector<std::string>>();
    ASSERT_EQ(tokens.size(), plot.at("series")[0].at("x").size());
    std::map<std::string, int> seen;
    for (const PdfWord& w : pdf_text(pdf).words) ++seen[w.text];
    for (std::string token : tokens) {
      for (std::size_t at; (at = token.find("\u2423")) != std::string::npos;) token.erase(at, 3);
      if (token == "<s>") token = "&lt;s&gt;";
      EXPECT_GE(seen[token], 1) << "token " << token;
    }
  }
  // The selection (query 5, key 3) is framed only with --selection; the
  // masked cell (query 3, key 5) never.
  auto outline = [&](const std::string& options) {
    const std::string png = dir.filePath(QStringLiteral("sel.png")).toStdString();
    const CliRun run = cli("figure '" + kModel + "' --text " + kText +
                           " --panel attention-map --preset one-column " + options + " --out '" +
                           png + "' --force");
    EXPECT_EQ(run.exit, 0) << run.out;
    return QImage(QString::fromStdString(png));
  };
  const QImage without = outline("--query 5 --key 3");
  const QImage with = outline("--query 5 --key 3 --selection");
  const QImage masked = outline("--query 3 --key 5 --selection");
  ASSERT_FALSE(without.isNull());
  EXPECT_NE(with, without) << "--selection frames the cell";
  EXPECT_EQ(masked, without) << "a masked cell is never framed";
}

TEST(FigureCli, EveryViewOfEveryPanelWritesItsNumbers) {
  QTemporaryDir dir;
  int views = 0;
  for (const ui::PanelEntry& panel : ui::panel_registry()) {
    if (panel.needsCheckpoints) continue;  // FigureCli.TheEmergenceOfASessionsCheckpoints
    for (const QString& view : panel.views) {
      SCOPED_TRACE(view.toStdString());
      const std::string csv = dir.filePath(view + QStringLiteral(".csv")).toStdString();
      const CliRun run =
          cli(figure_args("--panel " + view.toStdString() + " --layer 1 --head 2", csv));
      ASSERT_EQ(run.exit, 0) << run.out;
      // An experiment's view before the experiment ran says so, with no rows.
      if (read_text(csv).find(": not computed (Experiments menu)") != std::string::npos) continue;
      const io::CsvTable table = io::csv_parse(read_text(csv));
      EXPECT_FALSE(table.columns.empty());
      EXPECT_FALSE(table.rows.empty());
      EXPECT_NE(read_text(csv).find("# panel: "), std::string::npos);
      ++views;
    }
  }
  EXPECT_GE(views, 12);
}

// Every drawn series is in the legend once, or is a dashed twin of a listed
// quantity with an entry saying what the dashes are: alone, beside another
// sentence and beside another model (A solid, B dashed).
TEST(FigureCli, EveryDrawnSeriesHasOneLegendEntryAloneAndCompared) {
  QTemporaryDir dir;
  std::string panels;
  for (const ui::PanelEntry& panel : ui::panel_registry())
    if (!panel.needsCheckpoints) panels += " --panel " + panel.name.toStdString();
  const std::string other = SINKSCOPE_SOURCE_DIR "/resources/models/rope-decoder";
  int plots = 0;
  for (const std::string& comparison :
       {std::string(), std::string(" --compare-sentence 'A dog ran home.'"),
        " --compare-model '" + other + "'"}) {
    SCOPED_TRACE(comparison);
    const std::string out = dir.filePath(QStringLiteral("views.json")).toStdString();
    const CliRun run = cli(figure_args(panels + comparison + " --force", out));
    ASSERT_EQ(run.exit, 0) << run.out;
    const nlohmann::json views = nlohmann::json::parse(read_text(out));
    ASSERT_TRUE(views.contains("views")) << views.dump().substr(0, 300);
    for (const nlohmann::json& view : views.at("views")) {
      if (view.at("kind") != "plot") continue;
      ++plots;
      for (const std::string& gap : sinkscope::testing::legend_gaps(view))
        ADD_FAILURE() << view.at("title").get<std::string>() << ": " << gap;
    }
  }
  EXPECT_GE(plots, 3 * 8);
}

TEST(FigureCli, PdfsAreVectorsWithEmbeddedFontsAndSvgTextIsText) {
  QTemporaryDir dir;
  const std::string folder = dir.path().toStdString();
  for (const std::string panel : {"attention-map", "persistence", "graph"}) {
    SCOPED_TRACE(panel);
    const std::string pdf = folder + "/" + panel + ".pdf";
    const auto run = cli(figure_args("--panel " + panel, pdf));
    ASSERT_EQ(run.exit, 0) << run.out;
    // No raster image anywhere: cells, curves and the flat 3-D scene are vectors.
    const auto images = shell("pdfimages -list '" + pdf + "' | tail -n +3 | wc -l");
    EXPECT_EQ(std::stoi(images.out), 0) << images.out;
    // Every font embedded (pdffonts' "emb" column), and at least one font.
    const auto fonts = shell("pdffonts '" + pdf + "' | tail -n +3");
    ASSERT_EQ(fonts.exit, 0);
    EXPECT_NE(fonts.out.find("DejaVuSans"), std::string::npos) << fonts.out;
    std::istringstream lines(fonts.out);
    for (std::string line; std::getline(lines, line);) {
      if (!line.empty()) {
        EXPECT_NE(line.find(" yes "), std::string::npos) << line;
      }
    }
  }
  const std::string svg = folder + "/graph.svg";
  ASSERT_EQ(cli(figure_args("--panel graph", svg)).exit, 0);
  const std::string text = read_text(svg);
  EXPECT_NE(text.find(">Attention graph"), std::string::npos) << "the title as SVG text";
  EXPECT_NE(text.find("mat<"), std::string::npos) << "token labels as SVG text";
  // Math as its glyphs (DejaVu Sans has them), not as ASCII: alpha_k, eps, beta_0.
  const std::string keys = folder + "/keys.svg", betti = folder + "/betti.svg";
  ASSERT_EQ(cli(figure_args("--panel key-importance", keys)).exit, 0);
  ASSERT_EQ(cli(figure_args("--panel persistence --preset one-column", betti)).exit, 0);
  for (const auto& [file, glyphs] :
       {std::pair{keys, std::vector<std::string>{"\u03b1\u2096", "\u03b5 = "}},
        {betti, {"\u03b2\u2080", "\u03b2\u2081"}}}) {
    const std::string drawn = read_text(file);
    for (const std::string& g : glyphs)
      EXPECT_NE(drawn.find(g), std::string::npos) << file << ": " << g;
    for (const char* ascii : {"alpha_", "beta_", "eps ="})
      EXPECT_EQ(drawn.find(ascii), std::string::npos) << file << ": " << ascii;
  }
}

// Every panel's figure at a paper preset, read back by poppler: every word on
// the page, at the preset's size (one-column and slide), on no other word,
// and poppler has nothing to say about the file. No title unless asked: the
// view's title is in the metadata.
TEST(FigureCli, EveryPanelsTextIsOnThePageAtThePresetsSizeAndOnNoOtherText) {
  if (shell("command -v pdftotext").exit != 0) GTEST_SKIP() << "poppler-utils is not installed";
  QTemporaryDir dir;
  for (const auto& [preset, pt] :
       {std::pair<std::string, double>{"one-column", 8.0}, {"slide", 16.0}})
    for (const ui::PanelEntry& panel : ui::panel_registry()) {
      if (panel.name == QLatin1String("emergence"))
        continue;  // needs checkpoints (figure_set_test)
      const std::string out = dir.filePath(panel.name + QStringLiteral("-") +
                                           QString::fromStdString(preset) + QStringLiteral(".pdf"))
                                  .toStdString();
      const CliRun made =
          cli(figure_args("--panel " + panel.name.toStdString() + " --preset " + preset, out));
      ASSERT_EQ(made.exit, 0) << made.out;
      const PdfText text = pdf_text(out);
      ASSERT_TRUE(text.readable) << out;
      EXPECT_GT(text.words.size(), 3u) << out;
      // Token labels may shrink to 70% of the text before any is left out.
      for (const std::string& problem : pdf_text_problems(text, pt, R"(\([a-z]\))", 0.7 * pt))
        ADD_FAILURE() << panel.name.toStdString() << " (" << preset << "): " << problem;
      // Nothing shortened: a legend or label with "..." cannot be read.
      for (const PdfWord& w : text.words)
        EXPECT_EQ(w.text.find("\u2026"), std::string::npos)
            << panel.name.toStdString() << " (" << preset << "): " << w.text;
      const CliRun info = shell("pdfinfo '" + out + "'");
      EXPECT_NE(info.out.find("Title:"), std::string::npos) << info.out;
    }
  // A title asked for is drawn, once, above the figure.
  const std::string titled = dir.filePath(QStringLiteral("titled.pdf")).toStdString();
  ASSERT_EQ(cli(figure_args("--panel persistence --title 'Topology of one head'", titled)).exit, 0);
  const PdfText text = pdf_text(titled);
  int found = 0;
  for (const PdfWord& w : text.words) found += w.text == "Topology";
  EXPECT_EQ(found, 1);
}

TEST(FigureCli, TheSameRequestIsTheSameFileAndTheCameraTurnsTheScene) {
  QTemporaryDir dir;
  const std::string folder = dir.path().toStdString();
  // b by the programs (sinkscope-cli runs sinkscope), a in this process: the same bytes.
  for (const std::string name : {"a", "b"}) {
    const auto run = name == "a" ? cli : cli_process;
    ASSERT_EQ(run(figure_args("--panel attention-map --panel persistence --panel value-space",
                              folder + "/" + name + ".pdf"))
                  .exit,
              0);
    ASSERT_EQ(run(figure_args("--panel graph", folder + "/" + name + ".svg")).exit, 0);
  }
  EXPECT_EQ(read_text(folder + "/a.pdf"), read_text(folder + "/b.pdf"));
  EXPECT_EQ(read_text(folder + "/a.svg"), read_text(folder + "/b.svg"));
  ASSERT_EQ(
      cli(figure_args("--panel graph --azimuth 90 --elevation 30", folder + "/turned.svg")).exit,
      0);
  EXPECT_NE(read_text(folder + "/a.svg"), read_text(folder + "/turned.svg"));
  // A whole panel of several views in a two-column figure: two views a row, letters.
  const std::string png = folder + "/two.png";
  ASSERT_EQ(cli(figure_args("--panel persistence --preset two-columns --dpi 50", png)).exit, 0);
  const QImage image(QString::fromStdString(png));
  EXPECT_EQ(image.width(), pixels(178.0, 50));
  EXPECT_EQ(image.height(), pixels(140.0, 50));  // rows of 0.7 x 100 mm
  // One view's numbers as CSV, from the same command.
  const std::string csv = folder + "/map.csv";
  ASSERT_EQ(cli(figure_args("--panel attention-map --layer 1 --head 0", csv)).exit, 0);
  EXPECT_NE(read_text(csv).find("layer,head,query,key,query_token,key_token,weight"),
            std::string::npos);
}

TEST(FigureCli, BadRequestsSayWhatIsWrong) {
  QTemporaryDir dir;
  const std::string out = dir.filePath(QStringLiteral("f.pdf")).toStdString();
  auto expect = [](const CliRun& run, int status, const std::string& words) {
    EXPECT_EQ(run.exit, status) << run.out;
    EXPECT_NE(run.out.find(words), std::string::npos) << run.out;
  };
  expect(cli(figure_args("--panel nope", out)), 2, "no panel or view called \"nope\"");
  expect(cli(figure_args("--panel graph", dir.filePath(QStringLiteral("f.gif")).toStdString())), 2,
         "name a .png, .pdf, .svg, .csv or .json file");
  expect(cli(figure_args("--panel graph --format svg", out)), 2,
         "--format svg, but --out names a .pdf");
  expect(cli("figure '" + kModel + "' --text " + kText + " --out '" + out + "'"), 2, "--panel");
  expect(cli(figure_args("--panel graph --preset poster", out)), 2,
         "--preset: poster not in {one-column,two-columns,slide,screen}");
  expect(cli(figure_args("--panel graph --layer 99", out)), 1,
         "--layer 99: the model has layers 0 to");
  expect(cli(figure_args("--panel graph --head 40", out)), 1,
         "--head 40: the model has heads 0 to");
  expect(cli(figure_args("--panel graph --head first", out)), 2,
         "--head: \"first\" is not a whole number from 0 to 1048576, or avg");
  // One value to each --panel: a second word is not taken for a panel.
  expect(cli(figure_args("--panel attention-map persistence", out)), 2,
         "not an option or argument here: persistence");
  expect(cli("figure /nonexistent/model --panel graph --out '" + out + "'"), 1,
         "/nonexistent/model");
  // Never a silent substitution: a blank comparison, a bad byte in a sentence.
  expect(cli(figure_args("--panel attention-map --compare-sentence '   '", out)), 2,
         "--compare-sentence: nothing to compare with");
  expect(cli("figure '" + kModel + "' --text \"$(printf 'caf\\351')\" --panel graph --out '" + out +
             "'"),
         2, "--text: not valid UTF-8 (bad byte at offset 3");
  // A session file that is not one: named, with the problem.
  const std::string bad = dir.filePath(QStringLiteral("bad.sinkscope")).toStdString();
  std::ofstream(bad) << "{\"format\": \"sinkscope-session\", \"version\": 1, \"text\": 5}";
  expect(cli("figure --session '" + bad + "' --panel graph --out '" + out + "'"), 2,
         "bad.sinkscope");
  expect(cli("figure --session '" + bad + "' --text x --panel graph --out '" + out + "'"), 2,
         "give no MODEL, --text or --checkpoints");
  EXPECT_FALSE(std::filesystem::exists(out)) << "no figure from a refused request";
}

// --out keeps the rules of every other output: what exists is replaced only
// with --force and only when it is a regular file, a link is never written
// through, a PNG too large to draw is refused before the run, and a write that
// fails (here the file-size limit, as a full disk) leaves no file and exit 1.
TEST(FigureCli, TheFigureKeepsTheOutputRules) {
  QTemporaryDir dir;
  const std::string folder = dir.path().toStdString();
  auto expect = [](const CliRun& run, int status, const std::string& words) {
    EXPECT_EQ(run.exit, status) << run.out;
    EXPECT_NE(run.out.find(words), std::string::npos) << run.out;
  };
  const std::string csv = folder + "/map.csv";
  std::ofstream(csv) << "mine\n";
  expect(cli(figure_args("--panel attention-map", csv)), 2, "already exists (use --force");
  EXPECT_EQ(read_text(csv), "mine\n");
  ASSERT_EQ(cli(figure_args("--panel attention-map --force", csv)).exit, 0);
  EXPECT_NE(read_text(csv).find("layer,head,query,key"), std::string::npos);

  const std::string outside = folder + "/outside.csv";
  std::ofstream(outside) << "keep\n";
  const std::string link = folder + "/link.csv";
  std::filesystem::create_symlink(outside, link);
  expect(cli(figure_args("--panel attention-map --force", link)), 2, "not a regular file");
  EXPECT_EQ(read_text(outside), "keep\n");
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  const std::string fifo = folder + "/fifo.svg";
  ASSERT_EQ(shell("mkfifo '" + fifo + "'").exit, 0);
  expect(cli(figure_args("--panel graph --force", fifo)), 2, "not a regular file");
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));

  const std::string big = folder + "/big.png";
  expect(cli(figure_args("--panel attention-map --width-mm 2000 --height-mm 2000 --dpi 2400", big)),
         2, "million pixels");
  EXPECT_FALSE(std::filesystem::exists(big));

  // Files beyond 64 KiB cannot be written (SIGXFSZ ignored: the write fails instead).
  const std::string cut = folder + "/cut.png";
  const CliRun limited = shell("trap '' XFSZ; ulimit -f 64; '" SINKSCOPE_CLI "' " +
                               figure_args("--panel attention-map --dpi 600", cut) + " 2>&1");
  EXPECT_EQ(limited.exit, 1) << limited.out;
  EXPECT_NE(limited.out.find("write failed"), std::string::npos) << limited.out;
  EXPECT_EQ(limited.out.find("Figure: "), std::string::npos) << limited.out;
  EXPECT_FALSE(std::filesystem::exists(cut));
  std::set<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(folder))
    left.insert(e.path().filename().string());
  EXPECT_EQ(left, (std::set<std::string>{"fifo.svg", "link.csv", "map.csv", "outside.csv"}));
}

// A session whose model changed since it was saved still makes its figure, and
// says what changed (config.json's hash) on stderr.
TEST(FigureCli, ASessionWhoseModelChangedWarns) {
  QTemporaryDir dir;
  const std::string session = dir.filePath(QStringLiteral("old.sinkscope")).toStdString();
  std::ofstream(session) << R"({"format": "sinkscope-session", "version": 1,
    "model": {"name": ")" << kModel
                         << R"(", "folder": ")" << kModel << R"(",
              "config_sha256": "0000000000000000000000000000000000000000000000000000000000000000",
              "tokenizer_sha256": ""},
    "text": "A sentence to draw.", "selection": {"layer": 1, "head": 0}})";
  const std::string out = dir.filePath(QStringLiteral("map.svg")).toStdString();
  const CliRun run =
      cli("figure --session '" + session + "' --panel attention-map --out '" + out + "'");
  ASSERT_EQ(run.exit, 0) << run.out;
  EXPECT_NE(run.out.find("warning: The model changed since this session was saved"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("config.json (SHA-256 000000000000... now "), std::string::npos)
      << run.out;
  EXPECT_NE(read_text(out).find("layer 1, head 0"), std::string::npos) << "the session's selection";
}

// A session with a training run's checkpoints makes
// the emergence figure without a display (alpha_0 per layer and every head
// against the step).
TEST(FigureCli, TheEmergenceOfASessionsCheckpoints) {
  QTemporaryDir dir;
  const std::string run = dir.filePath(QStringLiteral("run")).toStdString();
  for (const char* step : {"step-10", "step-20"}) {
    const CliRun made = cli("random-model llama '" + run + "/checkpoints/" + step + "'");
    ASSERT_EQ(made.exit, 0) << made.out;
  }
  const std::string session = dir.filePath(QStringLiteral("ckpt.sinkscope")).toStdString();
  std::ofstream(session) << R"({"format": "sinkscope-session", "version": 1,
    "model": {"name": ")" << run
                         << R"(/checkpoints/step-20"},
    "text": "A cat sat.", "checkpoints": ")"
                         << run << R"("})";
  const std::string out = dir.filePath(QStringLiteral("emergence.svg")).toStdString();
  const CliRun fig =
      cli("figure --session '" + session + "' --panel emergence --out '" + out + "'");
  ASSERT_EQ(fig.exit, 0) << fig.out;
  const std::string svg = read_text(out);
  EXPECT_NE(svg.find("Sink emergence"), std::string::npos);
  EXPECT_NE(svg.find("every head by training step"), std::string::npos);
  // The same run given on the command line: its last checkpoint is the model.
  const std::string given = dir.filePath(QStringLiteral("given.svg")).toStdString();
  const CliRun byOption = cli("figure --checkpoints '" + run +
                              "' --text 'A cat sat.' --panel emergence --out '" + given + "'");
  ASSERT_EQ(byOption.exit, 0) << byOption.out;
  EXPECT_EQ(read_text(given), svg) << "the session's figure";
  const CliRun empty = cli("figure --checkpoints '" + dir.path().toStdString() +
                           "' --panel emergence --out '" + given + "' --force");
  EXPECT_EQ(empty.exit, 2);
  EXPECT_NE(empty.out.find("holds no checkpoint"), std::string::npos) << empty.out;
  EXPECT_EQ(cli("figure '" + kModel + "' --checkpoints '" + run + "' --panel emergence --out '" +
                given + "' --force")
                .exit,
            2)
      << "MODEL and --checkpoints";
  // Without checkpoints there is nothing to draw, and the figure says so.
  const CliRun none = cli(figure_args("--panel emergence --force", out));
  EXPECT_EQ(none.exit, 1);
  EXPECT_NE(none.out.find("--panel emergence needs a training run's checkpoints"),
            std::string::npos)
      << none.out;
}

// A session comparing a model of another shape, B's head
// pinned, draws B at its place without a display and says so in the CSV.
TEST(FigureCli, ASessionComparingModelsOfDifferentShapes) {
  QTemporaryDir dir;
  const auto [deep, session] = shapes_session(dir);
  ASSERT_FALSE(deep.empty());
  const std::string out = dir.filePath(QStringLiteral("map.csv")).toStdString();
  const CliRun fig =
      cli("figure --session '" + session + "' --panel attention-map --out '" + out + "'");
  ASSERT_EQ(fig.exit, 0) << fig.out;
  const std::string csv = read_text(out);
  // A's last layer (3 of 4) is B's last (5 of 6); B's head pinned at 1.
  EXPECT_NE(csv.find("layer 5, head 1"), std::string::npos) << csv.substr(0, 400);
  EXPECT_NE(csv.find("rope-decoder-bos-first: layer 3, head 0 | deep: layer 5, head 1"),
            std::string::npos);
  EXPECT_NE(csv.find("# compared run deep at layer 5 (same relative depth), head 1 (pinned)"),
            std::string::npos)
      << csv.substr(0, 1200);
  EXPECT_NE(csv.find("# compared_model_folder: " + deep), std::string::npos);
  // B's rows are B's own map at layer 5, head 1 (drawn alone from B's folder).
  const std::string single = dir.filePath(QStringLiteral("single.csv")).toStdString();
  const CliRun alone =
      cli("figure '" + deep +
          "' --text 'A cat sat.' --layer 5 --head 1 --panel attention-map --out '" + single + "'");
  ASSERT_EQ(alone.exit, 0) << alone.out;
  // Layer, head, query, key and weight of each cell (B's rows carry the run's name first).
  auto cells = [](const std::string& rows, const std::string& prefix) {
    std::vector<std::string> out;
    std::istringstream in(rows);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind(prefix, 0) != 0 || line.rfind("layer,", 0) == 0) continue;
      line = line.substr(prefix.size());
      std::vector<std::string> f;
      std::istringstream fields(line);
      for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
      out.push_back(f[0] + "," + f[1] + "," + f[2] + "," + f[3] + "," + f.back());
    }
    return out;
  };
  const std::vector<std::string> want = cells(csv_rows(single), "");
  const std::vector<std::string> got = cells(csv_rows(out), "deep,");
  EXPECT_FALSE(want.empty());
  EXPECT_EQ(got, want);
}

// A session sent with its model to another machine: the folder it names is
// gone, the model sits beside the session (folder_relative), and the figure
// is the one made with the model where it was.
TEST(FigureCli, ASessionOpensWhereItsModelWasMovedBesideIt) {
  QTemporaryDir dir;
  const std::filesystem::path sent = dir.filePath(QStringLiteral("sent")).toStdString();
  std::filesystem::create_directories(sent);
  std::filesystem::copy(kModel, sent / "model", std::filesystem::copy_options::recursive);
  const std::string config = read_text(kModel + "/config.json");
  const std::string session = (sent / "run.sinkscope").string();
  std::ofstream(session) << R"({"format": "sinkscope-session", "version": 2,
    "model": {"name": "/machine/of/the/author/rope-decoder-bos-first",
              "folder": "/machine/of/the/author/rope-decoder-bos-first",
              "folder_relative": "model", "config_sha256": ")"
                         << sinkscope::models::sha256_hex(config) << R"("},
    "text": "A cat sat.", "selection": {"layer": 1, "head": 2}})";
  const std::string there = dir.filePath(QStringLiteral("there.csv")).toStdString();
  const CliRun moved =
      cli("figure --session '" + session + "' --panel attention-map --out '" + there + "'");
  ASSERT_EQ(moved.exit, 0) << moved.out;
  const std::string here = dir.filePath(QStringLiteral("here.csv")).toStdString();
  ASSERT_EQ(
      cli("figure '" + kModel +
          "' --text 'A cat sat.' --panel attention-map --layer 1 --head 2 --out '" + here + "'")
          .exit,
      0);
  const auto body = [](const std::string& csv) {  // the cells, not the header naming the folder
    std::string out;
    std::istringstream lines(csv);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind("#", 0) != 0) out += line + "\n";
    return out;
  };
  EXPECT_EQ(body(read_text(there)), body(read_text(here)));
}

// --out FILE.html: the run as one web page (every panel and head, so no
// --panel); --panel with it, or no --panel for a figure, say what to give.
TEST(FigureCli, AWebPageOfTheRunFromTheCommandLine) {
  QTemporaryDir dir;
  const std::string page = dir.filePath(QStringLiteral("run.html")).toStdString();
  const CliRun made = cli("figure '" + kModel + "' --text 'A cat sat.' --out '" + page + "'");
  ASSERT_EQ(made.exit, 0) << made.out;
  const std::string html = read_text(page);
  EXPECT_NE(html.find("\"format\":\"sinkscope-web-page\""), std::string::npos);
  EXPECT_NE(html.find("\"sentence\":\"A cat sat.\""), std::string::npos);
  EXPECT_NE(html.find("--html run.html"), std::string::npos) << "the command that remakes it";
  const std::string other = dir.filePath(QStringLiteral("other.html")).toStdString();
  const CliRun withPanel =
      cli("figure '" + kModel + "' --text 'A cat sat.' --panel persistence --out '" + other + "'");
  EXPECT_EQ(withPanel.exit, 2);
  EXPECT_NE(withPanel.out.find("holds every panel and head; leave --panel out"), std::string::npos)
      << withPanel.out;
  const std::string png = dir.filePath(QStringLiteral("f.png")).toStdString();
  const CliRun noPanel = cli("figure '" + kModel + "' --text 'A cat sat.' --out '" + png + "'");
  EXPECT_EQ(noPanel.exit, 2);
  EXPECT_NE(noPanel.out.find("give at least one panel or view"), std::string::npos) << noPanel.out;
  EXPECT_FALSE(QFile::exists(QString::fromStdString(other)));
  EXPECT_FALSE(QFile::exists(QString::fromStdString(png)));
}

// The same comparison from the command line, without a session: the same
// file; and comparison requests that cannot be met say why.
TEST(FigureCli, ComparisonsFromTheCommandLine) {
  QTemporaryDir dir;
  const auto [deep, session] = shapes_session(dir);
  ASSERT_FALSE(deep.empty());
  const std::string fromSession = dir.filePath(QStringLiteral("session.csv")).toStdString();
  const std::string fromOptions = dir.filePath(QStringLiteral("options.csv")).toStdString();
  ASSERT_EQ(
      cli("figure --session '" + session + "' --panel attention-map --out '" + fromSession + "'")
          .exit,
      0);
  const CliRun options =
      cli("figure '" + kModel + "' --text 'A cat sat.' --layer 3 --head 0 --compare-model '" +
          deep + "' --compare-head 1 --panel attention-map --out '" + fromOptions + "'");
  ASSERT_EQ(options.exit, 0) << options.out;
  EXPECT_EQ(read_text(fromOptions), read_text(fromSession));
  // B alone (--comparison b) at a pinned layer: B's own map, titled with A's place.
  const std::string bAlone = dir.filePath(QStringLiteral("b.csv")).toStdString();
  const CliRun b =
      cli("figure '" + kModel + "' --text 'A cat sat.' --compare-model '" + deep +
          "' --compare-layer 2 --compare-head avg --comparison b --panel attention-map --out '" +
          bAlone + "'");
  ASSERT_EQ(b.exit, 0) << b.out;
  EXPECT_NE(read_text(bAlone).find("# panel: deep | layer 2, head average"), std::string::npos)
      << read_text(bAlone).substr(0, 300);
  // Requests that cannot be met.
  const std::string out = dir.filePath(QStringLiteral("x.csv")).toStdString();
  const CliRun tooDeep = cli(
      figure_args("--compare-model '" + deep + "' --compare-layer 6 --panel attention-map", out));
  EXPECT_EQ(tooDeep.exit, 1);
  EXPECT_NE(tooDeep.out.find("--compare-layer 6: deep has layers 0 to 5"), std::string::npos)
      << tooDeep.out;
  const CliRun noB = cli(figure_args("--compare-head 1 --panel attention-map", out));
  EXPECT_EQ(noB.exit, 1);
  EXPECT_NE(noB.out.find("need a comparison"), std::string::npos) << noB.out;
  const CliRun both = cli(figure_args(
      "--compare-sentence 'x y' --compare-model '" + deep + "' --panel attention-map", out));
  EXPECT_EQ(both.exit, 2);
  EXPECT_NE(both.out.find("not both"), std::string::npos) << both.out;
  const CliRun badWhat =
      cli(figure_args("--compare-sentence 'x y' --comparison sideways --panel attention-map", out));
  EXPECT_EQ(badWhat.exit, 2);
  EXPECT_NE(badWhat.out.find("--comparison: sideways not in {a,b,difference,side-by-side}"),
            std::string::npos);
  const CliRun withSession =
      cli("figure --session '" + session +
          "' --compare-sentence 'x y' --panel attention-map --out '" + out + "'");
  EXPECT_EQ(withSession.exit, 2);
  EXPECT_NE(withSession.out.find("--session names its comparison"), std::string::npos)
      << withSession.out;
}

// A session's places beyond the model or sentence, or a checkpoints folder
// without checkpoints: the figure is refused, naming the field and its bound,
// never drawn at a clamped place.
TEST(FigureCli, ASessionsPlacesOutsideTheModelAreRefused) {
  QTemporaryDir dir;
  const std::string out = dir.filePath(QStringLiteral("map.svg")).toStdString();
  auto session = [&](const std::string& name, const std::string& extra) {
    const std::string file = dir.filePath(QString::fromStdString(name)).toStdString();
    std::ofstream(file) << R"({"format": "sinkscope-session", "version": 1,
      "model": {"name": ")"
                        << kModel << R"("}, "text": "A sentence to draw.")" << extra << "}";
    return cli("figure --session '" + file + "' --panel attention-map --out '" + out + "'");
  };
  const CliRun layer = session("layer.sinkscope", R"(, "selection": {"layer": 40, "head": 0})");
  EXPECT_EQ(layer.exit, 2) << layer.out;
  EXPECT_NE(layer.out.find("selection.layer 40 (the model has 4 layers)"), std::string::npos)
      << layer.out;
  const CliRun query =
      session("query.sinkscope", R"(, "selection": {"layer": 0, "head": 9, "query": 300})");
  EXPECT_EQ(query.exit, 2) << query.out;
  EXPECT_NE(query.out.find("selection.head 9 (the model has 4 heads)"), std::string::npos)
      << query.out;
  EXPECT_NE(query.out.find("selection.query 300 (the sentence has"), std::string::npos)
      << query.out;
  const std::string empty = dir.filePath(QStringLiteral("empty-run")).toStdString();
  std::filesystem::create_directories(empty);
  const CliRun none = session("none.sinkscope", R"(, "checkpoints": ")" + empty + "\"");
  EXPECT_EQ(none.exit, 2) << none.out;
  EXPECT_NE(none.out.find("holds no checkpoint"), std::string::npos) << none.out;
  EXPECT_FALSE(std::filesystem::exists(out)) << "no figure of another place";
  // B's pinned place, known only once B has run: said too, never clamped.
  const CliRun compared =
      session("compare.sinkscope",
              R"(, "compare": {"sentence": "Another sentence here.", "layer": 40, "head": 7})");
  EXPECT_EQ(compared.exit, 2) << compared.out;
  EXPECT_NE(compared.out.find("compare.layer 40 (B has 4 layers); compare.head 7 (B has 4 heads)"),
            std::string::npos)
      << compared.out;
  EXPECT_FALSE(std::filesystem::exists(out)) << "no figure of another place";
  EXPECT_EQ(session("fine.sinkscope", R"(, "selection": {"layer": 3, "head": 3})").exit, 0);
}

// A capture (here `tensors`' file; any framework's NPZ of attention) opens in
// every panel that needs only attention and values: the numbers a figure's
// CSV holds are the model run's; what needs the model or values says why.
TEST(FigureCli, ACaptureDrawsWhatTheModelRunDraws) {
  QTemporaryDir dir;
  const std::string npz = dir.filePath(QStringLiteral("run.npz")).toStdString();
  const CliRun made = shell("'" SINKSCOPE_CLI "' tensors '" + kModel + "' --text " + kText +
                            " --out '" + npz + "' 2>&1");
  ASSERT_EQ(made.exit, 0) << made.out;
  auto csvBody = [](const QString& file) {
    QString body;
    for (const QString& line :
         QString::fromUtf8(read_text(file.toStdString())).split(QLatin1Char('\n')))
      if (!line.startsWith(QLatin1Char('#'))) body += line + QLatin1Char('\n');
    return body;
  };
  for (const char* view :
       {"attentionView", "profileView", "bettiCurves", "valueCurve", "spectrumView"}) {
    SCOPED_TRACE(view);
    const QString fromRun = dir.filePath(QStringLiteral("run-%1.csv").arg(QLatin1String(view)));
    const QString fromCapture =
        dir.filePath(QStringLiteral("capture-%1.csv").arg(QLatin1String(view)));
    const std::string panel = std::string(" --panel ") + view + " --layer 2 --head 1";
    // One thread: products rounded as tensors rounds them (as analyze does).
    const CliRun run = cli(figure_args(panel, fromRun.toStdString()) + " --threads 1");
    ASSERT_EQ(run.exit, 0) << run.out;
    const CliRun capture = cli("figure --capture '" + npz + "'" + panel + " --out '" +
                               fromCapture.toStdString() + "'");
    ASSERT_EQ(capture.exit, 0) << capture.out;
    EXPECT_EQ(csvBody(fromCapture), csvBody(fromRun));
  }
  const QString png = dir.filePath(QStringLiteral("all.png"));
  const CliRun all = cli("figure --capture '" + npz +
                         "' --panel overview --panel persistence "
                         "--panel graph --panel head-view --panel taxonomy --out '" +
                         png.toStdString() + "'");
  EXPECT_EQ(all.exit, 0) << all.out;
  EXPECT_TRUE(QImage(png).width() > 100);
  const CliRun refused = cli("figure --capture '" + npz + "' '" + kModel +
                             "' --panel graph --out '" + png.toStdString() + "' --force");
  EXPECT_EQ(refused.exit, 2);
  EXPECT_NE(refused.out.find("give no --session, --checkpoints, MODEL"), std::string::npos)
      << refused.out;
  const CliRun missing =
      cli("figure --capture '" + dir.filePath(QStringLiteral("none.npz")).toStdString() +
          "' --panel graph --out '" + png.toStdString() + "' --force");
  EXPECT_EQ(missing.exit, 2);
  EXPECT_NE(missing.out.find("none.npz: no such file"), std::string::npos) << missing.out;
}

// A panel's numbers are analyze's rows for the same head, string for string
// and column for column (one analysis, one function writing the rows, one CSV
// dialect): key importance is sinks.csv's, the persistence diagram and
// barcode persistence.csv's, the Betti curves betti.csv's, the spectrum
// eigenvalues.csv's (the combinatorial Laplacian it shows), the F_N curve
// value_space_curve.csv's (the same random subsets and seed).
TEST(FigureCli, PanelCsvsAreAnalyzesRowsForTheHead) {
  QTemporaryDir dir;
  const std::string out = dir.filePath(QStringLiteral("analyze")).toStdString();
  const CliRun analyze = analyze_into(out);
  ASSERT_EQ(analyze.exit, 0) << analyze.out;
  for (const auto& [view, table] :
       std::vector<std::pair<std::string, std::string>>{{"profileView", "sinks.csv"},
                                                        {"persistenceDiagram", "persistence.csv"},
                                                        {"barcode", "persistence.csv"},
                                                        {"bettiCurves", "betti.csv"},
                                                        {"spectrumView", "eigenvalues.csv"},
                                                        {"valueCurve", "value_space_curve.csv"}}) {
    SCOPED_TRACE(view);
    const std::string csv = dir.filePath(QString::fromStdString(view + ".csv")).toStdString();
    ASSERT_EQ(
        cli(figure_args(" --panel " + view + " --layer 1 --head 2", csv) + " --threads 1").exit, 0);
    const io::CsvTable panel = io::csv_parse(read_text(csv));
    const io::CsvTable analyzed = io::csv_parse(read_text(out + "/" + table));
    EXPECT_EQ(panel.columns, analyzed.columns);
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : analyzed.rows)
      if (r[0] == "1" && r[1] == "2" && (table != "eigenvalues.csv" || r[3] == "combinatorial"))
        rows.push_back(r);
    EXPECT_FALSE(rows.empty());
    EXPECT_EQ(panel.rows, rows);
  }
}

// A figure's JSON is its views' descriptions: what they draw and their
// numbers, analyze's rows for the head (a panel of three views: all three).
TEST(FigureCli, AFiguresJsonIsItsViewsAsData) {
  QTemporaryDir dir;
  const std::string out = dir.filePath(QStringLiteral("analyze")).toStdString();
  ASSERT_EQ(analyze_into(out).exit, 0);
  std::vector<std::vector<std::string>> bars;
  for (const auto& r : io::csv_parse(read_text(out + "/persistence.csv")).rows)
    if (r[0] == "1" && r[1] == "2") bars.push_back(r);
  ASSERT_FALSE(bars.empty());

  const std::string panel = dir.filePath(QStringLiteral("persistence.json")).toStdString();
  const CliRun run = cli(figure_args(" --panel persistence --layer 1 --head 2", panel));
  ASSERT_EQ(run.exit, 0) << run.out;
  const nlohmann::json all = nlohmann::json::parse(read_text(panel));
  ASSERT_EQ(all["views"].size(), 3u);
  EXPECT_EQ(all["views"][0]["view"], "persistenceDiagram");
  EXPECT_EQ(all["views"][0]["kind"], "plot");
  EXPECT_EQ(all["views"][0]["numbers"]["rows"].get<std::vector<std::vector<std::string>>>(), bars);
  EXPECT_EQ(all["views"][1]["numbers"]["rows"].get<std::vector<std::vector<std::string>>>(), bars);
  EXPECT_EQ(all["views"][2]["series"][0]["name"], "\u03b2\u2080 (components)");

  const std::string one = dir.filePath(QStringLiteral("map.json")).toStdString();
  ASSERT_EQ(cli(figure_args(" --panel attentionView --layer 1 --head 2", one)).exit, 0);
  const nlohmann::json map = nlohmann::json::parse(read_text(one));
  EXPECT_EQ(map["kind"], "heat_map");
  EXPECT_EQ(map["rows"], map["cols"]);
  EXPECT_EQ(map["values"].size(), map["rows"].get<std::size_t>() * map["cols"].get<std::size_t>());
  EXPECT_TRUE(map["header"].contains("model")) << map["header"].dump();
}

// The figure takes analyze's settings as analyze does (one declaration):
// its key importance under --percentile 50 --gamma 0.1 is analyze's sinks.csv
// under the same; a session names its own settings.
TEST(FigureCli, TheFigureTakesAnalyzesSettings) {
  QTemporaryDir dir;
  const std::string out = dir.filePath(QStringLiteral("analyze")).toStdString();
  const std::string settings = " --percentile 50 --gamma 0.1";
  const CliRun analyze = analyze_into(out, settings);
  ASSERT_EQ(analyze.exit, 0) << analyze.out;
  const std::string csv = dir.filePath(QStringLiteral("profile.csv")).toStdString();
  const CliRun figure = cli(figure_args(" --panel profileView --layer 1 --head 2" + settings, csv));
  ASSERT_EQ(figure.exit, 0) << figure.out;
  const io::CsvTable panel = io::csv_parse(read_text(csv));
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : io::csv_parse(read_text(out + "/sinks.csv")).rows)
    if (r[0] == "1" && r[1] == "2") rows.push_back(r);
  EXPECT_EQ(panel.rows, rows);
  // Under the defaults some key's is_sink differs: the settings reached the figure.
  const std::string plain = dir.filePath(QStringLiteral("plain.csv")).toStdString();
  ASSERT_EQ(cli(figure_args(" --panel profileView --layer 1 --head 2", plain)).exit, 0);
  EXPECT_NE(io::csv_parse(read_text(plain)).rows, panel.rows);

  const auto [deep, session] = shapes_session(dir);
  ASSERT_FALSE(session.empty());
  const CliRun refused =
      cli("figure --session '" + session + "' --panel profileView --gamma 0.1 --out '" +
          dir.filePath(QStringLiteral("s.csv")).toStdString() + "'");
  EXPECT_EQ(refused.exit, 2) << refused.out;
  EXPECT_NE(refused.out.find("--session names its analysis settings: give no --gamma with it"),
            std::string::npos)
      << refused.out;
}

// The attention map's CSV is `sinkscope-cli attention`'s rows for the same
// head (and head average), line for line: one table, made in the document layer.
TEST(FigureCli, TheAttentionMapCsvIsTheAttentionCommandsRows) {
  QTemporaryDir dir;
  const auto body = [](const std::string& file) {
    std::istringstream in(read_text(file));
    std::string out;
    for (std::string line; std::getline(in, line);)
      if (line.rfind("#", 0) != 0) out += line + "\n";
    return out;
  };
  for (const std::string head : {"2", "average"}) {
    SCOPED_TRACE(head);
    const std::string att =
        dir.filePath(QString::fromStdString("att-" + head + ".csv")).toStdString();
    const std::string map =
        dir.filePath(QString::fromStdString("map-" + head + ".csv")).toStdString();
    const CliRun attention =
        shell("'" SINKSCOPE_CLI "' attention '" + kModel + "' --text " + kText +
              " --layer 1 --head " + head + " --csv '" + att + "' 2>&1");
    ASSERT_EQ(attention.exit, 0) << attention.out;
    const std::string selected = head == "average" ? "avg" : head;
    const CliRun figure = cli(
        figure_args(" --panel attentionView --layer 1 --head " + selected, map) + " --threads 1");
    ASSERT_EQ(figure.exit, 0) << figure.out;
    const std::string rows = body(att);
    EXPECT_GT(std::count(rows.begin(), rows.end(), '\n'), 50);
    EXPECT_EQ(body(map), rows);
  }
  // The head view draws the same map (every head of the layer at the head
  // average): its CSV is the same rows.
  for (const auto& [selected, heads] :
       std::vector<std::pair<std::string, std::string>>{{"2", "2"}, {"avg", "all"}}) {
    SCOPED_TRACE(selected);
    const std::string att =
        dir.filePath(QString::fromStdString("hv-att-" + heads + ".csv")).toStdString();
    const std::string view =
        dir.filePath(QString::fromStdString("hv-" + heads + ".csv")).toStdString();
    ASSERT_EQ(shell("'" SINKSCOPE_CLI "' attention '" + kModel + "' --text " + kText +
                    " --layer 1 --head " + heads + " --csv '" + att + "' 2>&1")
                  .exit,
              0);
    const CliRun figure = cli(figure_args(" --panel headView --layer 1 --head " + selected, view));
    ASSERT_EQ(figure.exit, 0) << figure.out;
    EXPECT_EQ(body(view), body(att));
  }
}

// The overview's grid under every score, the taxonomy and the layer profiles
// write the document layer's tables: analyze's rows for the same heads and
// layers, string for string (the GUI's overview wrote its cells as floats).
TEST(FigureCli, GridTaxonomyAndProfileCsvsAreAnalyzesRows) {
  QTemporaryDir dir;
  const std::string out = dir.filePath(QStringLiteral("analyze")).toStdString();
  const CliRun analyze = analyze_into(out);
  ASSERT_EQ(analyze.exit, 0) << analyze.out;
  using Record = std::map<std::string, std::string>;
  auto records = [](const std::string& file) {
    const io::CsvTable t = io::csv_parse(read_text(file));
    std::vector<Record> rows;
    for (const auto& r : t.rows) {
      Record cell;
      for (std::size_t k = 0; k < t.columns.size(); ++k) cell[t.columns[k]] = r[k];
      rows.push_back(cell);
    }
    return rows;
  };
  using Rows = std::multiset<std::vector<std::string>>;
  auto project = [](const std::vector<Record>& rows, const std::vector<std::string>& columns,
                    const std::function<bool(const Record&)>& keep) {
    Rows picked;
    for (const Record& r : rows) {
      if (keep && !keep(r)) continue;
      std::vector<std::string> row;
      for (const auto& c : columns) row.push_back(r.at(c));
      picked.insert(row);
    }
    return picked;
  };
  auto analyzed = [&](const std::string& table, const std::vector<std::string>& columns,
                      const std::function<bool(const Record&)>& keep) {
    return project(records(out + "/" + table), columns, keep);
  };
  const auto aHead = [](const Record& r) { return r.at("head") != "average"; };
  // A view's CSV, drawn from a session that names the overview's score.
  auto drawn = [&](const std::string& view, const std::string& score) {
    const std::string session = dir.filePath(QStringLiteral("s.sinkscope")).toStdString();
    std::ofstream(session) << R"({"format": "sinkscope-session", "version": 1, "model": {"name": ")"
                           << kModel
                           << R"("}, "text": "The cat sat on the mat because it was tired.",
      "selection": {"layer": 1, "head": 2}, "panels": {"overview_score": ")"
                           << score << R"("}})";
    const std::string csv = dir.filePath(QString::fromStdString(view + ".csv")).toStdString();
    const CliRun figure = cli("figure --session '" + session + "' --panel " + view + " --out '" +
                              csv + "' --force --threads 1");
    EXPECT_EQ(figure.exit, 0) << figure.out;
    return records(csv);
  };
  auto same = [](const Rows& panel, const Rows& rows, const char* what) {
    EXPECT_FALSE(rows.empty()) << what;
    EXPECT_EQ(panel, rows) << what;
  };

  same(project(drawn("overviewView", "sink attention (mean A[i][0])"),
               {"layer", "head", "sink_attention"}, {}),
       analyzed("diagnostics.csv", {"layer", "head", "sink_attention"},
                [&](const Record& r) { return aHead(r) && r.at("query") == "mean"; }),
       "overview: sink attention");
  same(project(drawn("overviewView", "entropy (mean over queries)"), {"layer", "head", "entropy"},
               {}),
       analyzed("diagnostics.csv", {"layer", "head", "entropy"},
                [&](const Record& r) { return aHead(r) && r.at("query") == "mean"; }),
       "overview: entropy");
  same(project(drawn("overviewView", "sink boost (\u03b1\u2080 / uniform)"),
               {"layer", "head", "boost0"}, {}),
       analyzed("sink_summary.csv", {"layer", "head", "boost0"}, aHead), "overview: boost");
  same(project(drawn("overviewView", "Fiedler value (at the threshold)"),
               {"layer", "head", "threshold", "fiedler"}, {}),
       analyzed("spectra.csv", {"layer", "head", "threshold", "fiedler"},
                [&](const Record& r) { return aHead(r) && r.at("threshold") == "0.05"; }),
       "overview: Fiedler");
  // A session saved before the scores' names wrote F_N as Fₙ still names its score.
  same(project(drawn("overviewView", "F_N (value space, last query)"), {"layer", "head", "f"}, {}),
       analyzed("value_space.csv", {"layer", "head", "f"}, {}), "overview: F_N");
  same(project(drawn("overviewView", "taxonomy class"), {"layer", "head", "label"}, {}),
       analyzed("taxonomy.csv", {"layer", "head", "label"}, {}), "overview: taxonomy");

  const std::vector<std::string> votes{"layer",         "head",        "sink_votes",
                                       "current_votes", "other_votes", "label"};
  same(project(drawn("taxonomyView", ""), votes, {}), analyzed("taxonomy.csv", votes, {}),
       "taxonomy grid");
  // Counts per layer: taxonomy.csv's labels counted.
  std::map<std::string, std::map<std::string, int>> counted;
  for (const Record& r : records(out + "/taxonomy.csv")) ++counted[r.at("layer")][r.at("label")];
  Rows counts;
  for (const auto& [layer, byClass] : counted)
    counts.insert({layer, std::to_string(byClass.count("Retriever") ? byClass.at("Retriever") : 0),
                   std::to_string(byClass.count("Mixer") ? byClass.at("Mixer") : 0),
                   std::to_string(byClass.count("Reset") ? byClass.at("Reset") : 0)});
  same(project(drawn("taxonomyCounts", ""), {"layer", "retriever", "mixer", "reset"}, {}), counts,
       "taxonomy counts");

  const auto average = [](const Record& r) { return r.at("head") == "average"; };
  const std::vector<Record> sinks = drawn("layerSinkProfile", "");
  Rows attention = analyzed("diagnostics.csv", {"layer", "sink_attention"},
                            [&](const Record& r) { return average(r) && r.at("query") == "mean"; });
  same(project(sinks, {"layer", "sink_attention"}, {}), attention, "profile: sink attention");
  same(project(sinks, {"layer", "centralisation"}, {}),
       analyzed("spectra.csv", {"layer", "centralisation"},
                [&](const Record& r) { return average(r) && r.at("threshold") == "0.05"; }),
       "profile: centralisation");
  // The sink rate: the share of the layer's heads with alpha0_above_eps.
  std::map<std::string, std::pair<double, int>> above;
  for (const Record& r : records(out + "/sink_summary.csv"))
    if (aHead(r)) {
      above[r.at("layer")].first += std::stod(r.at("alpha0_above_eps"));
      ++above[r.at("layer")].second;
    }
  for (const Record& r : sinks)
    EXPECT_EQ(std::stod(r.at("sink_rate")),
              above.at(r.at("layer")).first / above.at(r.at("layer")).second)
        << "layer " << r.at("layer");
  const std::vector<Record> topology = drawn("layerTopologyProfile", "");
  same(project(topology, {"layer", "bars_h0_above_min", "bars_h1_above_min"}, {}),
       analyzed("persistence_summary.csv", {"layer", "bars_h0_above_min", "bars_h1_above_min"},
                average),
       "profile: bars");
  same(project(topology, {"layer", "fiedler"}, {}),
       analyzed("spectra.csv", {"layer", "fiedler"},
                [&](const Record& r) { return average(r) && r.at("threshold") == "0.05"; }),
       "profile: Fiedler");
}

// A figure the disk refuses (a file size limit here, as a full disk) is an
// error, and no part of it is left as if it were the figure.
TEST(FigureCli, AFigureTheDiskRefusesIsAnErrorAndLeavesNothing) {
  QTemporaryDir dir;
  for (const auto& [name, view] :
       std::vector<std::pair<const char*, const char*>>{{"f.pdf", "profileView"},
                                                        {"f.png", "profileView"},
                                                        {"f.svg", "profileView"},
                                                        {"f.csv", "attentionView"}}) {
    const std::string out = dir.filePath(QString::fromLatin1(name)).toStdString();
    const CliRun r = shell("bash -c \"ulimit -f 2; trap '' XFSZ; exec '" SINKSCOPE_CLI "' " +
                           figure_args(std::string(" --panel ") + view, out) + "\" 2>&1");
    EXPECT_EQ(r.exit, 1) << name << ": " << r.out;
    EXPECT_NE(r.out.find(": write failed ("), std::string::npos) << r.out;
    EXPECT_FALSE(std::filesystem::exists(out)) << name;
  }
  EXPECT_TRUE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries).isEmpty())
      << "no temporary file left";
}
