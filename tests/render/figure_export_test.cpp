// A PNG export is the PDF's drawing at the chosen DPI: the
// figure is w x h points, the PNG w x h x dpi / 72 pixels, and a PNG at 72 DPI
// matches the PDF rasterised by poppler (pdftoppm) at 72 DPI, text included.
// Before, text in PNGs was drawn dpi / 72 times too large and clipped.
#include <gtest/gtest.h>

#include <QApplication>
#include <QFile>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QImage>
#include <QTest>
#include <QTemporaryDir>
#include <cmath>
#include <cstdlib>
#include <algorithm>
#include <sstream>
#include <limits>
#include <vector>

#include "models/io/table_io.h"
#include "render/drawn_views.h"
#include "render/figure_legend.h"
#include "render/figure_part.h"
#include "render/head_view.h"
#include "render/heat_map_view.h"
#include "render/label_layout.h"
#include "render/line_plot_view.h"
#include "render/panel_export.h"
#include "render/qcustomplot_include.h"
#include "render/scene_view.h"
#include "support/shell_run.h"

namespace views = sinkscope::views;

// A description's text as the Qt checks below read it.
QString q(const std::string& s) { return QString::fromStdString(s); }

using namespace sinkscope::render;

namespace {

views::LinePlot plot_data() {
  views::LinePlot d;
  d.title = "Persistence diagram | layer 0, head 0";
  d.xLabel = "birth (distance e)";
  d.yLabel = "death";
  views::PlotSeries s;
  s.name = "H0 (12 bars)";
  for (int k = 0; k < 12; ++k) {
    s.x.push_back(0.0);
    s.y.push_back(0.5 + 0.04 * k);
  }
  s.scatter = true;
  views::PlotSeries diagonal;
  diagonal.name = "birth = death";
  diagonal.x = {0, 1};
  diagonal.y = {0, 1};
  diagonal.reference = true;
  d.series = {s, diagonal};
  return d;
}

// Share of pixels whose grey levels differ by more than 96 (of 255).
double differing_share(const QImage& a, const QImage& b) {
  const QImage x = a.convertToFormat(QImage::Format_Grayscale8);
  const QImage y = b.convertToFormat(QImage::Format_Grayscale8);
  long differing = 0;
  for (int r = 0; r < x.height(); ++r)
    for (int c = 0; c < x.width(); ++c)
      differing += std::abs(x.pixelColor(c, r).value() - y.pixelColor(c, r).value()) > 96 ? 1 : 0;
  return static_cast<double>(differing) / (x.width() * x.height());
}

bool have_pdftoppm() { return shell("command -v pdftoppm >/dev/null 2>&1").exit == 0; }

}  // namespace

TEST(FigureExport, PngIsThePdfsDrawingAtTheChosenDpi) {
  QTemporaryDir dir;
  LinePlotView view;
  view.resize(560, 420);
  view.setData(plot_data());
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  // The figure is the plot's size in points (at least 400 x 300).
  const int w = std::max(view.plot()->width(), 400), h = std::max(view.plot()->height(), 300);
  const QString pdf = dir.filePath(QStringLiteral("plot.pdf"));
  line_plot_export(view, pdf, 300, {}, true);
  for (int dpi : {72, 150, 300}) {
    const QString png = dir.filePath(QStringLiteral("plot-%1.png").arg(dpi));
    line_plot_export(view, png, dpi, {}, true);
    const QImage image(png);
    ASSERT_FALSE(image.isNull());
    // w x h points at `dpi`.
    EXPECT_EQ(image.width(), static_cast<int>(std::lround(w * dpi / 72.0)));
    EXPECT_EQ(image.height(), static_cast<int>(std::lround(h * dpi / 72.0)));
    EXPECT_NEAR(image.dotsPerMeterX() * 0.0254, dpi, 1.0);
  }
  if (!have_pdftoppm()) GTEST_SKIP() << "pdftoppm (poppler-utils) is not installed";
  const std::string prefix = dir.filePath(QStringLiteral("poppler")).toStdString();
  ASSERT_EQ(shell("pdftoppm -r 72 -png -singlefile '" + pdf.toStdString() + "' '" + prefix + "'").exit, 0);
  const QImage reference(QString::fromStdString(prefix + ".png"));
  const QImage ours(dir.filePath(QStringLiteral("plot-72.png")));
  ASSERT_EQ(reference.size(), ours.size());
  // Anti-aliasing and font hinting differ between the two rasterisers; the
  // drawing (text size and place included) must not.
  EXPECT_LT(differing_share(ours, reference), 0.01);
}

TEST(FigureExport, HeatMapPngMatchesItsPdf) {
  if (!have_pdftoppm()) GTEST_SKIP() << "pdftoppm (poppler-utils) is not installed";
  QTemporaryDir dir;
  HeatMapView view;
  view.resize(500, 450);
  views::HeatMap d;
  d.rows = d.cols = 8;
  for (int r = 0; r < 8; ++r) {
    d.rowLabels.push_back(std::to_string(r) + " tok");
    d.colLabels.push_back(std::to_string(r) + " tok");
    for (int c = 0; c < 8; ++c) d.values.push_back(c == 0 ? 0.8f : (c <= r ? 0.2f / (r + 1) : 0.0f));
  }
  d.title = "model | layer 0, head 0 | 8 tokens";
  d.quantity = "attention weight";
  view.setData(d);
  const QString pdf = dir.filePath(QStringLiteral("map.pdf"));
  const QString png = dir.filePath(QStringLiteral("map.png"));
  heat_map_export(view, pdf, 72, {}, true);
  heat_map_export(view, png, 72, {}, true);
  const std::string prefix = dir.filePath(QStringLiteral("poppler")).toStdString();
  ASSERT_EQ(shell("pdftoppm -r 72 -png -singlefile '" + pdf.toStdString() + "' '" + prefix + "'").exit, 0);
  const QImage reference(QString::fromStdString(prefix + ".png"));
  const QImage ours(png);
  ASSERT_EQ(reference.size(), ours.size());
  EXPECT_LT(differing_share(ours, reference), 0.01);
}

// Presets, fonts, spaces and background.
TEST(FigureExport, PresetsGivePaperSizesWithEmbeddedFontsAndPlainSpaces) {
  QTemporaryDir dir;
  LinePlotView view;
  view.resize(560, 420);
  views::LinePlot d = plot_data();
  d.series.front().name = std::string("\u2423the token");  // a visible space on screen
  view.setData(d);
  FigureOptions one = figure_preset(FigurePreset::OneColumn, 300);
  const QString png = dir.filePath(QStringLiteral("one.png"));
  line_plot_export(view, png, one, {}, true);
  const QImage image(png);
  EXPECT_EQ(image.width(), static_cast<int>(std::lround(std::lround(85.0 / 25.4 * 72) * 300 / 72.0)));
  // SVG text is text, with plain spaces unless asked.
  const QString svg = dir.filePath(QStringLiteral("one.svg"));
  line_plot_export(view, svg, one, {}, true);
  const std::string svgText = read_text(svg.toStdString());
  EXPECT_NE(svgText.find(">birth = death<"), std::string::npos);
  EXPECT_EQ(svgText.find("\u2423"), std::string::npos);
  EXPECT_NE(svgText.find(" the token"), std::string::npos);
  one.visibleSpaces = true;
  line_plot_export(view, svg, one, {}, true);
  EXPECT_NE(read_text(svg.toStdString()).find("\u2423the token"), std::string::npos);
  QFile::remove(QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/figure-one-column.png"));  // kept for a look
  QFile::copy(png, QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/figure-one-column.png"));
  // A transparent background leaves the corners clear.
  one.transparent = true;
  line_plot_export(view, png, one, {}, true);
  EXPECT_EQ(QImage(png).pixelColor(1, 1).alpha(), 0);
  if (!have_pdftoppm()) GTEST_SKIP() << "poppler-utils is not installed";
  // The PDF: a 85 mm page, DejaVu Sans embedded, and a heat map drawn as vectors (no image).
  const QString pdf = dir.filePath(QStringLiteral("one.pdf"));
  line_plot_export(view, pdf, figure_preset(FigurePreset::OneColumn), {}, true);
  const std::string info = shell("pdfinfo '" + pdf.toStdString() + "'").out;
  EXPECT_NE(info.find(" 241 x 181 pts"), std::string::npos) << info;
  const std::string fonts = shell("pdffonts '" + pdf.toStdString() + "'").out;
  EXPECT_NE(fonts.find("DejaVuSans"), std::string::npos) << fonts;
  // Every font line (after the two header lines) says "yes" in the emb column,
  // the fifth field from the end.
  std::istringstream lines(fonts);
  std::string line;
  int fontLines = 0;
  for (int n = 0; std::getline(lines, line); ++n) {
    if (n < 2 || line.empty()) continue;
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string x; fields >> x;) f.push_back(x);
    ASSERT_GE(f.size(), 6u) << line;
    EXPECT_EQ(f[f.size() - 5], "yes") << "not embedded: " << line;
    ++fontLines;
  }
  EXPECT_GE(fontLines, 1);
  HeatMapView map;
  views::HeatMap h;
  h.rows = h.cols = 3;
  h.values = {1, 0, 0, 0.5f, 0.5f, 0, 0.3f, 0.3f, 0.4f};
  h.rowLabels = h.colLabels = {"a", "b", "c"};
  map.setData(h);
  const QString mapPdf = dir.filePath(QStringLiteral("map.pdf"));
  heat_map_export(map, mapPdf, figure_preset(FigurePreset::TwoColumns), {}, true);
  QFile::remove(QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/figure-two-columns-map.png"));
  heat_map_export(map, QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/figure-two-columns-map.png"),
                  figure_preset(FigurePreset::TwoColumns, 150), {}, true);
  const std::string images = shell("pdfimages -list '" + mapPdf.toStdString() + "'").out;
  EXPECT_EQ(std::count(images.begin(), images.end(), '\n'), 2) << "only the header lines:\n" << images;
}

// A panel's CSV is in the dialect of every SinkScope table (what analyze
// writes, models/io/table_io.h): fields quoted where they must be, numbers
// in their shortest exact form, NaN (undefined) an empty field, one header
// line per comment; io::csv_parse reads it back cell for cell.
TEST(FigureExport, PanelCsvsAreInTheDialectOfEveryTable) {
  views::LinePlot plot;
  plot.title = std::string("Key importance\nof layer 0");
  views::PlotSeries s{
      "alpha_k", {0, 1, 2}, {0.1, std::numeric_limits<double>::quiet_NaN(), 1.0 / 3}};
  s.labels = {"a,b", std::string("say \"hi\""), std::string("x\ry")};
  plot.series = {s};
  const std::string csv = line_plot_csv(plot, {QStringLiteral("model: m")}).toStdString();
  EXPECT_EQ(csv.rfind("# panel: Key importance of layer 0\n# model: m\nseries,x,label,y\n", 0), 0u) << csv;
  const sinkscope::io::CsvTable t = sinkscope::io::csv_parse(csv);
  ASSERT_EQ(t.rows.size(), 3u) << csv;
  EXPECT_EQ(t.rows[0], (std::vector<std::string>{"alpha_k", "0", "a,b", "0.1"}));
  EXPECT_EQ(t.rows[1], (std::vector<std::string>{"alpha_k", "1", "say \"hi\"", ""}));
  EXPECT_EQ(t.rows[2][2], "x\ry");
  EXPECT_EQ(std::stod(t.rows[2][3]), 1.0 / 3);  // reads back the same double
  EXPECT_EQ(t.rows[2][3], sinkscope::io::csv_number(1.0 / 3));
}

// CSVs of compared runs say which run each number belongs
// to, and points that stand for tokens carry the token.
TEST(FigureExport, CsvsNameTheRunAndTheTokens) {
  views::LinePlot plot;
  plot.title = "Key importance";
  views::PlotSeries after{"alpha_k after", {0, 1}, {0.5, 0.25}};
  after.labels = {"<s>", std::string("\u2423the")};
  after.run = "after";
  views::PlotSeries before{"alpha_k before", {0, 1}, {0.625, 0.125}};
  before.labels = after.labels;
  before.run = "before";
  plot.series = {after, before};
  const QString csv = line_plot_csv(plot, {});
  EXPECT_TRUE(csv.contains(QStringLiteral("\nseries,run,x,label,y\n"))) << csv.toStdString();
  EXPECT_TRUE(csv.contains(QStringLiteral("\nalpha_k before,before,1,\u2423the,0.125\n"))) << csv.toStdString();
  // Without runs or labels: the plain columns.
  views::LinePlot plain;
  plain.series = {views::PlotSeries{"s", {0}, {1}}};
  EXPECT_TRUE(line_plot_csv(plain, {}).contains(QStringLiteral("\nseries,x,y\ns,0,1\n")));

  views::HeatMap left, right;
  left.rows = right.rows = 2;
  left.cols = right.cols = 2;
  left.values = {1, 0, 0.5f, 0.5f};
  right.values = {1, 0, 0.25f, 0.75f};
  left.rowLabels = left.colLabels = {"<s>", "a"};
  right.rowLabels = right.colLabels = {"a", "b"};
  const QString map =
      heat_map_csv(views::heat_map_side_by_side(left, right, "before", "after"), {});
  EXPECT_TRUE(map.contains(QStringLiteral("\nrun,row,column,row_label,column_label,value\n")))
      << map.toStdString();
  EXPECT_TRUE(map.contains(QStringLiteral("\nbefore,1,0,a,<s>,0.5\n"))) << map.toStdString();
  EXPECT_TRUE(map.contains(QStringLiteral("\nafter,1,1,b,b,0.75\n"))) << map.toStdString();
  // Each map lights its own highlighted tokens (B's own tokens on the right).
  left.highlighted = {0};
  right.highlighted = {1};
  right.outlineRow = 0;
  right.outlineCol = -1;  // the head average: no cell
  const views::HeatMap both = views::heat_map_side_by_side(left, right, "before", "after");
  EXPECT_TRUE(views::heat_map_label_lit(both, false, false, 0)) << "A's row 0";
  EXPECT_FALSE(views::heat_map_label_lit(both, false, false, 1));
  EXPECT_TRUE(views::heat_map_label_lit(both, false, true, 1)) << "B's row 1";
  EXPECT_FALSE(views::heat_map_label_lit(both, false, true, 0));
  EXPECT_TRUE(views::heat_map_label_lit(both, true, false, 0)) << "A's column 0";
  EXPECT_FALSE(views::heat_map_label_lit(both, true, false, 2)) << "the gap";
  EXPECT_FALSE(views::heat_map_label_lit(both, true, false, 3)) << "B's column 0";
  EXPECT_TRUE(views::heat_map_label_lit(both, true, false, 4)) << "B's column 1";
  EXPECT_LT(both.outlineCol, 0) << "no frame in the gap for B's head average";
}

// A grid's labels along one axis: the font follows the cells down to its floor,
// then labels thin out so that two drawn ones are at least a label apart, and a
// selected label is always drawn with its too-close neighbours left out.
TEST(FigureExport, GridLabelsShrinkThenThinOutAndKeepTheSelection) {
  EXPECT_EQ(grid_label_plan(40.0).fontPx, 11);
  EXPECT_EQ(grid_label_plan(40.0).stride, 1);
  EXPECT_EQ(grid_label_plan(9.5).fontPx, 9);
  EXPECT_EQ(grid_label_plan(9.5).stride, 1);
  // The 28 layers of a 7B model in a 130-pixel overview: 4.6 px a cell.
  const GridLabelPlan small = grid_label_plan(130.0 / 28);
  EXPECT_EQ(small.fontPx, 7);
  EXPECT_EQ(small.stride, 2);
  for (double cell : {0.5, 1.0, 2.5, 4.0, 6.0, 6.99, 7.0, 8.3, 9.0, 13.0, 30.0}) {
    const GridLabelPlan p = grid_label_plan(cell);
    EXPECT_GE(p.stride * cell, p.fontPx - 1e-9) << cell;      // no two overlap
    EXPECT_LT((p.stride - 1) * cell, p.fontPx) << cell;       // none left out needlessly
    EXPECT_GE(p.fontPx, 7);
    EXPECT_LE(p.fontPx, 11);
  }
  EXPECT_EQ(grid_labels_shown(7, 3), (std::vector<bool>{true, false, false, true, false, false, true}));
  // Label 4 selected: 3 and 6 are closer than the stride and give way.
  EXPECT_EQ(grid_labels_shown(7, 3, {4}),
            (std::vector<bool>{true, false, false, false, true, false, false}));
  EXPECT_EQ(grid_labels_shown(3, 1, {-1, 9}), (std::vector<bool>{true, true, true}));
  EXPECT_TRUE(grid_labels_shown(0, 2).empty());
}

// Long scenes label only their largest points, and a flat export puts each
// label in a place of its own.
TEST(FigureExport, LongScenesLabelTheirLargestPointsEachInAPlaceOfItsOwn) {
  std::vector<views::ScenePoint> many(100);
  for (std::size_t k = 0; k < many.size(); ++k) {
    many[k].label = "t" + std::to_string(k);
    many[k].size = static_cast<double>(k % 50);  // 49 and 48 ... largest twice each
  }
  const auto labelled = views::scene_labelled_points(many);
  ASSERT_EQ(labelled.size(), static_cast<std::size_t>(views::kSceneTopLabels));
  for (std::size_t k : labelled) EXPECT_GE(many[k].size, 37.0) << k;
  std::vector<views::ScenePoint> few(many.begin(), many.begin() + 10);
  EXPECT_EQ(views::scene_labelled_points(few).size(), 10u);

  // A flat export of ten points in one place draws each label in a place of
  // its own around them (FigureLabels: none over another), not ten on top of
  // each other.
  QTemporaryDir dir;
  SceneView view;
  view.resize(400, 300);
  views::Scene scene;
  scene.title = std::string("Spectral embedding");
  for (int k = 0; k < 10; ++k) {
    views::ScenePoint p;
    p.position = {0.0, 0.0, 0.0};
    p.label = "label" + std::to_string(k) + "x";
    p.size = 1.0 + 0.01 * k;  // one place, (almost) one size: the labels would coincide
    scene.points.push_back(p);
  }
  view.setData(scene);
  const QString svg = dir.filePath(QStringLiteral("scene.svg"));
  scene_export(view, svg, FigureOptions{}, {}, true);
  const std::string text = read_text(svg.toStdString());
  int drawn = 0;
  for (int k = 0; k < 10; ++k)
    drawn += text.find(">label" + std::to_string(k) + "x<") != std::string::npos ? 1 : 0;
  EXPECT_EQ(drawn, 10);
  EXPECT_NE(text.find(">label9x<"), std::string::npos) << "the largest point's label";
  std::vector<std::pair<double, double>> at;  // each text's x and y in the SVG
  for (std::size_t pos = 0; (pos = text.find("<text", pos)) != std::string::npos; ++pos) {
    const auto x = text.find(" x=\"", pos), y = text.find(" y=\"", pos);
    if (x == std::string::npos || y == std::string::npos) break;
    at.emplace_back(std::stod(text.substr(x + 4)), std::stod(text.substr(y + 4)));
  }
  for (std::size_t i = 0; i < at.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(at[i], at[j]) << "two texts at one place";
}

// The head view draws a line per weight of at least 1%, as
// opaque as the weight; a focused token keeps its own lines only; hovering
// and clicking name tokens by side; the figure is vectors and its CSV every weight.
TEST(HeadView, LinesFollowTheWeightsAndTheFocusedToken) {
  views::HeadViewData d;
  d.title = "Head view | toy, layer 0, head 0";
  d.tokens = {"<s>", "a", "b"};
  const float nan = std::numeric_limits<float>::quiet_NaN();
  d.heads.push_back({"head 0", {0, 0, 1}, {1.0f, nan, nan, 0.995f, 0.005f, nan, 0.6f, 0.3f, 0.1f}});
  std::vector<views::HeadViewLine> lines = views::head_view_lines(d);
  ASSERT_EQ(lines.size(), 5u) << "0.005 is under 1%, NaN is a key the query cannot see";
  EXPECT_EQ(lines[0].query, 0);
  EXPECT_DOUBLE_EQ(lines[0].opacity, 1.0);
  EXPECT_NEAR(lines[4].opacity, 0.1, 1e-6);
  d.focusQuery = 2;
  lines = views::head_view_lines(d);
  ASSERT_EQ(lines.size(), 3u);
  for (const views::HeadViewLine& l : lines) EXPECT_EQ(l.query, 2);
  d.focusQuery = -1;
  d.focusKey = 0;
  EXPECT_EQ(views::head_view_lines(d).size(), 3u) << "every query's line into key 0";
  d.focusKey = -1;
  d.heads.push_back({"head 1", {1, 0, 0}, std::vector<float>(4, 0.5f)});
  EXPECT_THROW(views::head_view_check(d), std::invalid_argument);
  d.heads.pop_back();

  HeadView view;
  view.resize(400, 300);
  view.setData(d);
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  QSignalSpy hovered(&view, &HeadView::tokenHovered), clicked(&view, &HeadView::tokenClicked);
  // Find token rows through the view's own geometry: left of centre is a query, right a key.
  QPoint left(-1, -1), right(-1, -1);
  for (int y = 0; y < view.height() && (left.x() < 0 || right.x() < 0); ++y) {
    if (head_view_token_at(d, 400, 300, 9.0, QPointF(40, y), view.font().family()) == std::pair{0, 2})
      left = {40, y};
    if (head_view_token_at(d, 400, 300, 9.0, QPointF(360, y), view.font().family()) == std::pair{1, 1})
      right = {360, y};
  }
  ASSERT_GE(left.x(), 0);
  ASSERT_GE(right.x(), 0);
  QMouseEvent move(QEvent::MouseMove, QPointF(left), view.mapToGlobal(QPointF(left)), Qt::NoButton,
                   Qt::NoButton, Qt::NoModifier);
  QApplication::sendEvent(&view, &move);
  ASSERT_GE(hovered.count(), 1);
  EXPECT_EQ(hovered.last().at(0).toInt(), 0);
  EXPECT_EQ(hovered.last().at(1).toInt(), 2);
  QTest::mouseClick(&view, Qt::LeftButton, {}, right);
  ASSERT_EQ(clicked.count(), 1);
  EXPECT_EQ(clicked.last().at(0).toInt(), 1);
  EXPECT_EQ(clicked.last().at(1).toInt(), 1);
  QEvent leave(QEvent::Leave);
  QApplication::sendEvent(&view, &leave);
  EXPECT_EQ(hovered.last().at(1).toInt(), -1) << "leaving the view clears the hover";

  QTemporaryDir dir;
  const QString pdf = dir.filePath("head.pdf"), csv = dir.filePath("head.csv"),
                svg = dir.filePath("head.svg");
  // The window's exports read what a view was given, not the view.
  DrawnViews board;
  view.setObjectName(QStringLiteral("headView"));
  board.show(&view, view.data());
  ASSERT_TRUE(board.exportable(&view));
  const FigurePart part = *board.part(&view);
  figure_part_export(part, pdf, figure_preset(FigurePreset::OneColumn), {}, true);
  figure_part_export(part, svg, figure_preset(FigurePreset::OneColumn), {}, true);
  figure_part_export(part, csv, FigureOptions{}, {"model: toy"}, true);
  EXPECT_EQ(std::stoi(shell("pdfimages -list '" + pdf.toStdString() + "' | tail -n +3 | wc -l").out), 0);
  EXPECT_NE(read_text(svg.toStdString()).find(">2 b<"), std::string::npos) << "token labels as text";
  const std::string rows = csv_rows(csv.toStdString());
  EXPECT_NE(rows.find("head,query,key,query_token,key_token,weight\n"), std::string::npos);
  EXPECT_NE(rows.find("head 0,1,1,a,a,0.004999999888241291"), std::string::npos) << rows;
  EXPECT_EQ(std::count(rows.begin(), rows.end(), '\n'), 1 + 6) << "the visible weights";
}

TEST(FigureExport, ColourBarsTickAtRoundNumbersAndDecades) {
  using sinkscope::render::colour_bar_ticks;
  EXPECT_EQ(colour_bar_ticks(0, 1, false), (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(colour_bar_ticks(0, 0.99, false), (std::vector<double>{0, 0.2, 0.4, 0.6, 0.8}));
  const std::vector<double> small = colour_bar_ticks(0.0021, 0.0133, false);
  ASSERT_GE(small.size(), 4u);
  for (double t : small) EXPECT_NEAR(t * 2000, std::round(t * 2000), 1e-9) << t;  // 0.0025, 0.005, ...
  // A log scale: the decades, never 0.204 or 0.0414.
  EXPECT_EQ(colour_bar_ticks(0.0005, 1, true), (std::vector<double>{0.001, 0.01, 0.1, 1}));
  const std::vector<double> narrow = colour_bar_ticks(0.15, 0.9, true);
  EXPECT_EQ(narrow, (std::vector<double>{0.2, 0.5}));
  EXPECT_TRUE(colour_bar_ticks(1, 1, false).empty());
}


// A legend's texts are drawn in full whenever they fit the figure's width:
// a long legend takes more rows (more of the height), never shortened names.
TEST(FigureLegend, TextsAreShortenedOnlyWhenWiderThanTheFigure) {
  QFont font(QStringLiteral("DejaVu Sans"));
  font.setPixelSize(8);
  const QFontMetricsF metrics(font);
  const std::vector<QString> texts = {
      QStringLiteral("H0 bars > 0.05 (head average)"), QStringLiteral("H1 bars > 0.05 (head average)"),
      QStringLiteral("effective rank of the layer's input"),
      QStringLiteral("Fiedler value (head average, theta 0.05)")};
  // One column's figure cell: 241 x 127 points, too low for four rows in 30% of it.
  const LegendLayout below = legend_layout(texts, metrics, QSizeF(241, 127));
  ASSERT_EQ(below.shown.size(), texts.size());
  EXPECT_FALSE(below.beside);
  for (std::size_t k = 0; k < texts.size(); ++k) {
    EXPECT_EQ(below.shown[k], texts[k]);
    EXPECT_LE(below.texts[k].right(), 241.0 + 1e-9) << "inside the figure";
    EXPECT_GE(below.texts[k].left(), 0.0);
  }
  // Rows never overlap, and the axes keep what the legend leaves.
  for (std::size_t k = 1; k < texts.size(); ++k)
    for (std::size_t j = 0; j < k; ++j)
      EXPECT_FALSE(below.texts[k].intersects(below.texts[j])) << k << " and " << j;
  EXPECT_NEAR(below.plotArea.height() + below.box.height(), 127.0, 1e-9);
  // A wide figure puts them side by side, still in full.
  const LegendLayout wide = legend_layout(texts, metrics, QSizeF(900, 127));
  for (std::size_t k = 0; k < texts.size(); ++k) EXPECT_EQ(wide.shown[k], texts[k]);
  // A text wider than the whole figure breaks between its words, every word
  // kept, and the next entry starts below its last line; only a single word
  // wider than the figure is shortened.
  const std::vector<QString> huge = {texts[3], QString(200, QLatin1Char('x')), QStringLiteral("short")};
  const LegendLayout narrow = legend_layout(huge, metrics, QSizeF(120, 200));
  ASSERT_EQ(narrow.shown.size(), 3u);
  EXPECT_GT(narrow.shown[0].count(QLatin1Char('\n')), 0);
  EXPECT_EQ(QString(narrow.shown[0]).replace(QLatin1Char('\n'), QLatin1Char(' ')), huge[0]);
  EXPECT_GE(narrow.texts[1].top(), narrow.texts[0].bottom() - 1e-9);
  EXPECT_TRUE(narrow.shown[1].contains(QChar(0x2026)));
  for (const QRectF& r : narrow.texts) EXPECT_LE(r.right(), 120.0 + 1e-9);
  EXPECT_EQ(narrow.shown[2], huge[2]);
  EXPECT_NEAR(narrow.plotArea.height() + narrow.box.height(), 200.0, 1e-9);
  EXPECT_LE(narrow.texts[2].bottom(), 200.0 + 1e-9);
}

// A square plot (a persistence diagram) in a wide, low cell: its legend goes
// beside it when that leaves the larger square of axes, counting the room
// the ticks and axis labels take (without them, below looks as good).
TEST(FigureLegend, ASquarePlotsLegendGoesBesideWhereItLeavesTheLargerAxes) {
  QFont font(QStringLiteral("DejaVu Sans"));
  font.setPixelSize(8);
  const QFontMetricsF metrics(font);
  const std::vector<QString> texts = {QStringLiteral("H0 (15 bars)"), QStringLiteral("H1 (9 bars)"),
                                      QStringLiteral("birth = death"),
                                      QStringLiteral("min persistence 0.05")};
  const QSizeF cell(241, 127), decoration(40, 50);
  const LegendLayout laid = legend_layout(texts, metrics, cell, true, decoration);
  EXPECT_TRUE(laid.beside);
  const auto side = [&](const QSizeF& area) {
    return std::min(area.width() - decoration.width(), area.height() - decoration.height());
  };
  // What below would leave: the legend's rows off the height.
  const double rowsBelow = std::ceil(texts.size() / 2.0) * metrics.height() * 1.1;
  EXPECT_GT(side(laid.plotArea), side(QSizeF(cell.width(), cell.height() - rowsBelow)));
  // A plot of free shape in the same cell keeps its legend below.
  EXPECT_FALSE(legend_layout(texts, metrics, cell, false, decoration).beside);
}

// A plot's decoration is what its ticks, labels and title take, not the
// width equal scale leaves empty.
TEST(FigureExport, APlotsDecorationLeavesOutWhatEqualScaleGivesUp) {
  const auto decoration = [](bool equal) {
    LinePlotView view;
    views::LinePlot plot;
    plot.series = {{"points", {0, 0.5, 1}, {0.2, 0.8, 1}}};
    plot.series[0].scatter = true;
    plot.equalScale = equal;
    view.setData(plot);
    view.layOutAsFigure(QSize(400, 200));
    return view.decoration();
  };
  // (Equal scale also drops the axes' minimum margins: at most the free plot's.)
  const QSize free = decoration(false), square = decoration(true);
  EXPECT_LE(square.width(), free.width());
  EXPECT_LE(square.height(), free.height());
  EXPECT_GT(square.width(), 0);
  EXPECT_LT(square.width(), 100) << "a y axis' ticks and label, not the empty width";
}

// A figure of several plots: one with nothing to draw is left out (its title
// returned), and a long legend below grows the rows instead of flattening
// the axes, up to a page.
TEST(FigureExport, EmptyPlotsAreLeftOutAndLongLegendsGrowTheRows) {
  QTemporaryDir dir;
  LinePlotView drawn, empty, crowded;
  drawn.setObjectName(QStringLiteral("drawn"));
  empty.setObjectName(QStringLiteral("empty"));
  crowded.setObjectName(QStringLiteral("crowded"));
  DrawnViews board;
  EXPECT_THROW(board.parts({&drawn}), std::invalid_argument) << "nothing drawn yet";
  board.show(&drawn, plot_data());
  views::LinePlot nothing;
  nothing.title = "KL by layer: not computed";
  board.show(&empty, nothing);
  views::LinePlot many = plot_data();
  for (int k = 0; k < 6; ++k) {
    views::PlotSeries s;
    s.name = "a long series name, number " + std::to_string(k) + " of six";
    s.x = {0, 1};
    s.y = {0.1 * k, 0.2 * k};
    many.series.push_back(s);
  }
  board.show(&crowded, many);
  const FigureOptions oneColumn = figure_preset(FigurePreset::OneColumn, 72);
  const auto height_mm = [](const QImage& image) { return image.height() / 72.0 * 25.4; };

  const QString two = dir.filePath(QStringLiteral("two.png"));
  const QStringList leftOut =
      figure_export(board.parts({&drawn, &empty, &drawn}), two, oneColumn, 0, true);
  EXPECT_EQ(leftOut, QStringList{QString::fromStdString(nothing.title)});
  EXPECT_GE(height_mm(QImage(two)), 2 * 44.8 - 0.5);
  EXPECT_LT(height_mm(QImage(two)), 2 * 44.8 + 10) << "two rows: the empty plot is not one";

  // Nothing but empty plots: kept, their titles say why.
  const QString none = dir.filePath(QStringLiteral("none.png"));
  EXPECT_TRUE(figure_export(board.parts({&empty, &empty}), none, oneColumn, 0, true).isEmpty());

  const QString tall = dir.filePath(QStringLiteral("tall.png"));
  EXPECT_TRUE(figure_export(board.parts({&drawn, &crowded}), tall, oneColumn, 0, true).isEmpty());
  const double grown = height_mm(QImage(tall));
  EXPECT_GT(grown, 2 * 44.8 + 5) << "eight legend rows below the axes";
  EXPECT_LE(grown, kPageTextHeightMm + 0.5);
}

// A figure's legend goes into a corner of the axes that no data reaches
// (the axes keep the whole figure), and below them when every corner is taken.
TEST(FigureLegend, InsideACornerTheDataLeavesFreeElseBelow) {
  QFont font(QStringLiteral("DejaVu Sans"));
  font.setPixelSize(8);
  const QFontMetricsF metrics(font);
  const std::vector<QString> texts = {QStringLiteral("rising"), QStringLiteral("flat")};
  const QRectF axes(30, 10, 200, 120);
  const LegendLayout topRight = legend_inside(texts, metrics, QSizeF(241, 160), axes, 0);
  ASSERT_FALSE(topRight.box.isEmpty());
  EXPECT_TRUE(topRight.inside);
  EXPECT_TRUE(axes.contains(topRight.box));
  EXPECT_LT(std::abs(topRight.box.right() - axes.right()), 5.0);
  EXPECT_LT(std::abs(topRight.box.top() - axes.top()), 5.0);
  EXPECT_EQ(topRight.plotArea, QSizeF(241, 160));
  const LegendLayout bottomLeft = legend_inside(texts, metrics, QSizeF(241, 160), axes, 3);
  EXPECT_LT(std::abs(bottomLeft.box.left() - axes.left()), 5.0);
  EXPECT_LT(std::abs(bottomLeft.box.bottom() - axes.bottom()), 5.0);
  // Too large for any corner: none.
  const std::vector<QString> many(12, QStringLiteral("a long legend entry of many words"));
  EXPECT_TRUE(legend_inside(many, metrics, QSizeF(241, 160), axes, 0).box.isEmpty());

  // A plot: what its line crosses is taken, the corner it leaves is free.
  LinePlotView view;
  view.resize(400, 300);
  views::LinePlot plot;
  plot.series = {{"rising", {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}}};
  view.setData(plot);
  view.refit();
  view.thinTicks();  // lays the plot out at its size
  const QRectF rect = view.plot()->axisRect()->rect();
  const QRectF topLeftCorner(rect.left() + 4, rect.top() + 4, 60, 30);
  const QRectF bottomRightCorner(rect.right() - 64, rect.bottom() - 34, 60, 30);
  const QRectF onTheLine(view.plot()->xAxis->coordToPixel(2) - 10,
                         view.plot()->yAxis->coordToPixel(2) - 10, 20, 20);
  EXPECT_FALSE(view.drawsInside(topLeftCorner));
  EXPECT_FALSE(view.drawsInside(bottomRightCorner));
  EXPECT_TRUE(view.drawsInside(onTheLine));
}

// Point labels in a flat scene: none covers a marker or another label or
// leaves the picture; a point crowded by others gets its label farther out
// (with a leader line) rather than none.
TEST(FigureLabels, PointLabelsCoverNoMarkerAndMoveOutWhenCrowded) {
  std::vector<PointLabel> labels;
  // A cluster of five points 6 px apart and one lone point.
  for (int k = 0; k < 5; ++k)
    labels.push_back({QPointF(100 + 6 * k, 100), 4.0, QSizeF(30, 10), 5.0 - k});
  labels.push_back({QPointF(40, 40), 4.0, QSizeF(30, 10), 1.0});
  labels.push_back({QPointF(103, 106), 5.0, QSizeF(0, 0), 0.0});  // a marker only
  const QRectF bounds(0, 0, 240, 200);
  const std::vector<PlacedLabel> placed = place_point_labels(labels, bounds);
  ASSERT_EQ(placed.size(), labels.size());
  int shown = 0, leaders = 0;
  for (std::size_t i = 0; i < placed.size(); ++i) {
    if (!placed[i].shown) continue;
    ++shown;
    leaders += placed[i].leader ? 1 : 0;
    EXPECT_TRUE(bounds.contains(placed[i].box)) << i;
    for (const PointLabel& marker : labels) {
      const QRectF m(marker.point.x() - marker.radius, marker.point.y() - marker.radius,
                     2 * marker.radius, 2 * marker.radius);
      EXPECT_FALSE(placed[i].box.intersects(m)) << "label " << i << " on a marker";
    }
    for (std::size_t j = 0; j < i; ++j)
      if (placed[j].shown) {
        EXPECT_FALSE(placed[i].box.intersects(placed[j].box)) << i << ", " << j;
      }
  }
  EXPECT_EQ(shown, 6) << "every labelled point of this picture finds a place";
  // No leader line runs through another point's marker or label (checked by
  // sampling the line, independently of the layout's own geometry).
  for (std::size_t i = 0; i < placed.size(); ++i) {
    if (!placed[i].leader) continue;
    const QLineF line = leader_line(labels[i].point, labels[i].radius, placed[i].box);
    ASSERT_FALSE(line.isNull()) << i;
    for (std::size_t j = 0; j < placed.size(); ++j) {
      if (j == i) continue;
      const QRectF m(labels[j].point.x() - labels[j].radius, labels[j].point.y() - labels[j].radius,
                     2 * labels[j].radius, 2 * labels[j].radius);
      for (int t = 0; t <= 100; ++t) {
        const QPointF at = line.pointAt(t / 100.0);
        EXPECT_FALSE(m.contains(at)) << "leader " << i << " through marker " << j;
        if (placed[j].shown) {
          EXPECT_FALSE(placed[j].box.contains(at)) << "leader " << i << " through label " << j;
        }
      }
    }
  }
  EXPECT_FALSE(placed[6].shown) << "a marker only has no label";
  EXPECT_GE(leaders, 1) << "the cluster needs the outer rings";
  EXPECT_FALSE(placed[5].leader) << "the lone point's label sits beside it";
}

// A plot of equal scale (a persistence diagram) gives its axes a unit as
// long on x as on y, whatever the figure's shape.
TEST(FigureExport, EqualScaleAxesDrawTheDiagonalAt45Degrees) {
  for (const QSize size : {QSize(400, 200), QSize(200, 400)}) {
    LinePlotView view;
    view.resize(size);
    views::LinePlot plot;
    plot.series = {{"points", {0, 0.5, 1}, {0.2, 0.8, 1}}};
    plot.series[0].scatter = true;
    plot.equalScale = true;
    view.setData(plot);
    view.refit();
    view.thinTicks();
    view.fitEqualScale();
    const QCPAxisRect* rect = view.plot()->axisRect();
    const double xPerPixel = view.plot()->xAxis->range().size() / rect->width();
    const double yPerPixel = view.plot()->yAxis->range().size() / rect->height();
    EXPECT_NEAR(xPerPixel / yPerPixel, 1.0, 0.03) << size.width() << " x " << size.height();
  }
}
