// The plots of the panels, built without Qt from analysis results: what each
// series draws is the analysis's numbers, the legend names every series, the
// table is analyze's rows, and a compared run adds its dashed twins and a run
// column.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "analysis/head_analysis.h"
#include "analysis/persistence.h"
#include "analysis/sink_metric.h"
#include "models/document/map_views.h"
#include "models/document/panel_views.h"
#include "models/document/plot_views.h"
#include "models/document/scene_views.h"
#include "models/views/view_json.h"
#include "support/legend_check.h"

using namespace sinkscope;

namespace {

// A causal map whose every query gives `sink` to key 0 and spreads the rest
// evenly over the other keys it sees.
analysis::AttentionMatrix sink_map(int T, float sink) {
  analysis::AttentionMatrix m{std::vector<float>(static_cast<std::size_t>(T) * T, 0.0f), T, true};
  m.weights[0] = 1.0f;
  for (int q = 1; q < T; ++q) {
    m.weights[static_cast<std::size_t>(q) * T] = sink;
    for (int k = 1; k <= q; ++k) m.weights[static_cast<std::size_t>(q) * T + k] = (1 - sink) / q;
  }
  return m;
}

}  // namespace

TEST(PlotViews, NumbersInTitlesArePrintfsShortForm) {
  for (double v : {0.3, 0.05, 1.0 / 3, 1e-7, 123456789.0}) {
    char expected[32];
    std::snprintf(expected, sizeof expected, "%g", v);
    EXPECT_EQ(document::short_number(v), expected);
  }
  EXPECT_EQ(document::short_number(0.70213, 3), "0.702");
  EXPECT_EQ(document::head_name(-1), "head average");
  EXPECT_EQ(document::head_name(3), "head 3");
}

TEST(PlotViews, KeyImportanceDrawsAlphaItsBaselineAndEps) {
  const analysis::AttentionMatrix map = sink_map(6, 0.7f);
  const std::vector<std::string> tokens{"<s>", "the", "cat", "sat", "on", "it"};
  document::KeyImportanceInputs in;
  in.source = "tiny";
  in.place = {2, 1, ""};
  in.map = &map;
  in.tokens = &tokens;
  in.keyToken = 3;
  const views::LinePlot plot = document::key_importance_plot(in);
  EXPECT_EQ(plot.title, "Key importance \u03b1\u2096 | tiny, layer 2, head 1");
  ASSERT_EQ(plot.series.size(), 3u);
  EXPECT_EQ(plot.series[0].y, analysis::sink_key_importance(map.view()));
  EXPECT_EQ(plot.series[0].labels, tokens);
  EXPECT_TRUE(plot.series[1].reference);
  EXPECT_EQ(plot.series[1].y, analysis::sink_uniform_baselines(6, true));
  EXPECT_TRUE(plot.series[2].threshold);
  EXPECT_EQ(plot.series[2].y[0], analysis::kDefaultSinkMetricEps);
  EXPECT_EQ(plot.markedX, 3.0);
  EXPECT_EQ(plot.numbers, nullptr) << "no analysis yet: no table";

  in.uniform = true;  // no trace: the uniform head, no baseline
  EXPECT_EQ(document::key_importance_plot(in).series.size(), 2u);
  in.uniform = false;

  // Beside a plain run (an intervention): the intervened run solid, the plain
  // run dashed in the palette's next colour, each named in the legend.
  const analysis::AttentionMatrix plainMap = sink_map(6, 0.2f);
  document::KeyImportanceBefore before;
  before.map = &plainMap;
  before.tokens = &tokens;
  before.names = {"before", "after"};
  const views::LinePlot both = document::key_importance_plot(in, &before);
  ASSERT_EQ(both.series.size(), 4u);
  EXPECT_EQ(both.series[0].name, "\u03b1\u2096, after");
  EXPECT_EQ(both.series[0].run, "after");
  EXPECT_FALSE(both.series[0].dashed);
  EXPECT_EQ(both.series[1].name, "\u03b1\u2096, before");
  EXPECT_TRUE(both.series[1].dashed);
  EXPECT_EQ(both.series[1].colourOf, 0);
  EXPECT_EQ(both.series[1].y, analysis::sink_key_importance(plainMap.view()));
  EXPECT_TRUE(sinkscope::testing::legend_gaps(views::view_json(both)).empty());
  // A comparison: A (the plain side) solid, B dashed.
  before.names = {"A", "B", true};
  const views::LinePlot compared = document::key_importance_plot(in, &before);
  EXPECT_EQ(compared.series[0].name, "\u03b1\u2096, A");
  EXPECT_EQ(compared.series[0].y, analysis::sink_key_importance(plainMap.view()));
  EXPECT_FALSE(compared.series[0].dashed);
  EXPECT_EQ(compared.series[1].name, "\u03b1\u2096, B");
  EXPECT_TRUE(compared.series[1].dashed);

  // Two tokenizers: B's keys at A's positions, those without a place left out.
  before.byToken = true;
  before.bToA = {0, -1, 1, 2, -1, 3};
  const views::LinePlot aligned = document::key_importance_plot(in, &before);
  EXPECT_EQ(aligned.series[1].x, (std::vector<double>{0, 1, 2, 3}));
  EXPECT_EQ(aligned.series[1].labels, (std::vector<std::string>{"<s>", "cat", "sat", "it"}));
  EXPECT_EQ(aligned.xLabel, "key position k (A's tokens)");
}

TEST(PlotViews, PersistencePlotsDrawEveryBarAndTableItsRows) {
  const analysis::AttentionMatrix map = sink_map(7, 0.6f);
  const analysis::HeadAnalysis r = analysis::analyse_head(map.view(), {}, 0);
  const std::vector<std::string> tokens{"<s>", "a", "b", "c", "d", "e", "f"};
  const document::PlotPlace place{1, 0, " | A at layer 0, head 0"};
  const views::LinePlot diagram = document::persistence_diagram_plot(r, place, 0.05, tokens);
  EXPECT_EQ(diagram.title, "Persistence diagram | layer 1, head 0 | A at layer 0, head 0");
  ASSERT_EQ(diagram.series.size(), 4u);
  EXPECT_EQ(diagram.series[0].x.size(), r.persistence.h0.size());
  EXPECT_EQ(diagram.series[1].x.size(), r.persistence.h1.size());
  EXPECT_EQ(diagram.series[0].tips.size(), r.persistence.h0.size());
  EXPECT_EQ(diagram.series[3].name, "min persistence 0.05");
  ASSERT_NE(diagram.numbers, nullptr);
  EXPECT_EQ(diagram.numbers->rows.size(), r.persistence.h0.size() + r.persistence.h1.size());

  const views::LinePlot code = document::barcode_plot(r, place);
  ASSERT_EQ(code.series.size(), 2u);
  EXPECT_EQ(code.series[0].x.size(), 2 * r.persistence.h0.size());
  EXPECT_TRUE(code.series[0].segments);

  const views::LinePlot betti = document::betti_plot(r, place, 0.05);
  ASSERT_EQ(betti.series.size(), 2u);
  EXPECT_EQ(betti.series[0].x, r.betti.grid);
  EXPECT_EQ(betti.numbers->rows.size(), r.betti.grid.size());
  // Beside the plain run: its curves dashed in their twins' colours, an entry
  // for each line style, both runs tabled.
  const document::BettiBefore plain{&r.betti, 0, 0, {"before", "after"}};
  const views::LinePlot both = document::betti_plot(r, place, 0.05, &plain);
  ASSERT_EQ(both.series.size(), 6u);
  EXPECT_EQ(both.series[4].name, "solid: after");
  EXPECT_EQ(both.series[5].name, "dashed: before");
  EXPECT_EQ(both.series[2].colourOf, 0);
  EXPECT_EQ(both.series[3].colourOf, 1);
  EXPECT_TRUE(both.series[3].dashed);
  EXPECT_EQ(both.numbers->columns.front(), "run");
  EXPECT_EQ(both.numbers->rows.size(), 2 * r.betti.grid.size());
}

TEST(PlotViews, TaxonomyCountsAddUpToTheLayersHeads) {
  document::TaxonomyView v;
  v.layers = 2, v.heads = 3;
  v.classes = {0, 1, 1, 2, -1, 2};  // layer 1's second head has no class
  v.counts_table.columns = {"layer", "retriever", "mixer", "reset"};
  const views::LinePlot counts =
      document::taxonomy_counts_plot(v, nullptr, false, {}, document::RunNames{});
  ASSERT_EQ(counts.series.size(), 3u);
  EXPECT_EQ(counts.series[0].y, (std::vector<double>{1, 0}));
  EXPECT_EQ(counts.series[1].y, (std::vector<double>{2, 0}));
  EXPECT_EQ(counts.series[2].y, (std::vector<double>{0, 2}));
  EXPECT_EQ(counts.series[1].name, "Mixer");
  EXPECT_TRUE(counts.integerY);
  // Shares by relative depth beside a run of another shape.
  const document::LayerAxis byDepth{true};
  const views::LinePlot shares =
      document::taxonomy_counts_plot(v, &v, true, byDepth, document::RunNames{"A", "B", true});
  // A's three classes solid, B's dashed twins in a tint of their colours, and
  // two entries saying which run each line style is.
  ASSERT_EQ(shares.series.size(), 8u);
  EXPECT_EQ(shares.series[1].y, (std::vector<double>{2.0 / 3, 0}));
  EXPECT_EQ(shares.series[0].x, (std::vector<double>{0, 1}));
  EXPECT_EQ(shares.series[0].run, "A");
  EXPECT_EQ(shares.series[4].name, "Mixer");
  EXPECT_EQ(shares.series[4].run, "B");
  EXPECT_TRUE(shares.series[4].dashed);
  EXPECT_EQ(shares.series[4].colourOf, 1);
  EXPECT_FALSE(shares.series[4].inLegend);
  EXPECT_EQ(shares.series[6].name, "solid: A");
  EXPECT_EQ(shares.series[7].name, "dashed: B");
  EXPECT_TRUE(shares.series[7].x.empty());
  EXPECT_EQ(shares.title, "Head classes per layer | A (solid) and B (dashed)");
  EXPECT_TRUE(sinkscope::testing::legend_gaps(views::view_json(shares)).empty());
  EXPECT_EQ(shares.xLabel, "relative depth (layer / (layers - 1))");
  EXPECT_EQ(shares.yLabel, "share of the layer's heads");
}

// The legend check itself: a drawn series left out of the legend, a dashed
// twin with no entry saying what dashes are, a key explaining nothing and two
// entries of one name are each found.
TEST(PlotViews, TheLegendCheckFindsWhatTheLegendLeavesOut) {
  views::LinePlot plot;
  plot.series = {{"a", {0, 1}, {1, 2}}, {"b", {0, 1}, {2, 3}}};
  EXPECT_TRUE(sinkscope::testing::legend_gaps(views::view_json(plot)).empty());
  plot.series[1].inLegend = false;
  EXPECT_EQ(sinkscope::testing::legend_gaps(views::view_json(plot)),
            std::vector<std::string>{"'b' is drawn and not in the legend"});
  plot.series[1].dashed = true;
  plot.series[1].colourOf = 0;
  EXPECT_EQ(sinkscope::testing::legend_gaps(views::view_json(plot)).size(), 1u)
      << "a twin needs an entry saying what the dashes are";
  views::PlotSeries key{"dashed: B", {}, {}};
  key.dashed = true;
  plot.series.push_back(key);
  EXPECT_TRUE(sinkscope::testing::legend_gaps(views::view_json(plot)).empty());
  plot.series[1].inLegend = true;
  plot.series[1].name = "a";
  EXPECT_EQ(sinkscope::testing::legend_gaps(views::view_json(plot)),
            (std::vector<std::string>{"two legend entries say 'a'",
                                      "the legend's 'dashed: B' stands for nothing drawn"}));
}

TEST(PlotViews, FunctionByLayerIsScaledToItsMaximum) {
  const views::LinePlot none = document::layer_function_plot({}, {}, 1);
  EXPECT_TRUE(none.series.empty());
  EXPECT_EQ(none.title, "KL and Fisher by layer: not computed (Experiments menu)");
  const views::LinePlot f = document::layer_function_plot({0.5, 2.0, 1.0}, {4, -8, 2}, 1);
  ASSERT_EQ(f.series.size(), 2u);
  EXPECT_EQ(f.series[0].y, (std::vector<double>{0.25, 1.0, 0.5}));
  EXPECT_EQ(f.series[1].y, (std::vector<double>{0.5, -1.0, 0.25}));
  EXPECT_EQ(f.title, "Function by layer | max KL 2 nats, max Fisher/param 8");
  EXPECT_EQ(f.markedX, 1.0);
}

TEST(PlotViews, APlotRefusesSeriesOfMismatchedLengths) {
  views::LinePlot plot;
  plot.title = "p";
  plot.series = {{"s", {0, 1}, {0.5}}};
  EXPECT_THROW(views::line_plot_check(plot), std::invalid_argument);
  plot.series = {{"s", {0, 1}, {0.5, 0.6}}};
  EXPECT_NO_THROW(views::line_plot_check(plot));
  plot.series[0].lo = {0.1};
  plot.series[0].hi = {0.1, 0.2};
  EXPECT_THROW(views::line_plot_check(plot), std::invalid_argument);
}

TEST(MapViews, AnAttentionMapMasksTheFutureAndTablesTheAttentionRows) {
  const analysis::AttentionMatrix map = sink_map(5, 0.8f);
  const std::vector<std::string> tokens{"<s>", "a", "b", "c", "d"};
  document::AttentionMapInputs in;
  in.source = "tiny";
  in.tokens = &tokens;
  in.map = &map;
  in.layer = 1;
  in.head = 2;
  in.query = 3, in.key = 0;
  in.highlightedEdges = {{1, 2}};
  const views::HeatMap m = document::attention_map(in);
  EXPECT_EQ(m.title, "tiny | layer 1, head 2 | 5 tokens");
  EXPECT_EQ(m.values, map.weights);
  EXPECT_TRUE(m.hidden[1]) << "query 0 cannot see key 1";
  EXPECT_FALSE(m.hidden[5]);
  EXPECT_EQ(m.rowLabels[2], "2 b");
  EXPECT_EQ(m.outlineRow, 3);
  EXPECT_EQ(m.framedCells, (std::vector<std::pair<int, int>>{{1, 2}, {2, 1}}));
  ASSERT_NE(m.numbers, nullptr);
  EXPECT_EQ(m.numbers->rows.size(), 15u) << "the cells a query sees: 1 + 2 + ... + 5";
  EXPECT_EQ(views::heat_map_range(m), (std::pair<double, double>{0.0, 1.0}));

  // The difference to another map: diverging, no attention table.
  const analysis::AttentionMatrix plain = sink_map(5, 0.3f);
  in.subtract = &plain;
  in.names = {"A", "B"};
  const views::HeatMap diff = document::attention_map(in);
  EXPECT_TRUE(diff.diverging);
  EXPECT_EQ(diff.quantity, "attention B - A");
  EXPECT_NEAR(diff.values[5], 0.5, 1e-6);
  EXPECT_EQ(diff.numbers, nullptr);

  // Side by side: one table of both runs.
  in.subtract = nullptr;
  const views::HeatMap both =
      document::maps_side_by_side(m, document::attention_map(in), {"A", "B"}, "both");
  EXPECT_EQ(both.cols, 11);
  EXPECT_EQ(both.title, "both");
  ASSERT_NE(both.numbers, nullptr);
  EXPECT_EQ(both.numbers->columns.front(), "run");
  EXPECT_EQ(both.numbers->rows.size(), 30u);
}

TEST(MapViews, ALongMapClipsItsLinearScaleAndSaysSo) {
  const analysis::AttentionMatrix map = sink_map(200, 0.9f);
  std::vector<std::string> tokens(200, "t");
  document::AttentionMapInputs in;
  in.tokens = &tokens;
  in.map = &map;
  const views::HeatMap m = document::attention_map(in);
  EXPECT_LT(m.rangeMax, 0.9) << "the sink column shares the top colour";
  EXPECT_NE(m.title.find("clipped at the 99th percentile"), std::string::npos);
  in.logScale = true;
  EXPECT_EQ(document::attention_map(in).rangeMax, 1.0) << "the log scale shows every weight";
}

TEST(MapViews, MiniatureMapsAreBlockMeansWithGaps) {
  const int T = 48;  // two original cells per miniature cell on a side
  const analysis::AttentionMatrix map = analysis::attention_uniform(T, false);
  const views::HeatMap m = document::miniature_maps(
      2, 3, T, [&](int, int) { return map; }, 0, 1);
  const int side = document::miniature_side(T);
  EXPECT_EQ(side, 24);
  EXPECT_EQ(m.rows, 2 * 25 - 1);
  EXPECT_EQ(m.cols, 3 * 25 - 1);
  EXPECT_NEAR(m.values[0], 1.0 / T, 1e-7);
  EXPECT_TRUE(m.hidden[24]) << "the gap between two heads' maps";
  EXPECT_EQ(m.title, "Every head's attention map | layer 0, head 1 framed");
}

TEST(MapViews, TheTaxonomyGridIsCategorical) {
  document::TaxonomyView v;
  v.layers = 1, v.heads = 3;
  v.classes = {2, -1, 0};
  const views::HeatMap g = document::taxonomy_grid(v, 0, 2, "classes");
  EXPECT_EQ(g.categories, (std::vector<std::string>{"Retriever", "Mixer", "Reset"}));
  EXPECT_EQ(g.values, (std::vector<float>{2, 0, 0}));
  EXPECT_EQ(g.hidden, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(g.colLabels, (std::vector<std::string>{"H0", "H1", "H2"}));
  EXPECT_NO_THROW(views::heat_map_check(g));
}

TEST(SceneViews, TheGraphSizesTokensByAttentionAndDrawsEdgesAboveTheta) {
  const analysis::AttentionMatrix map = sink_map(5, 0.8f);
  const analysis::HeadAnalysis r = analysis::analyse_head(map.view(), {}, 0);
  const std::vector<std::array<double, 3>> positions(5, {0.0, 0.0, 0.0});
  const std::vector<std::string> tokens{"<s>", "a", "b", "c", "d"};
  document::GraphSceneInputs in;
  in.map = &map;
  in.analysis = &r;
  in.positions = &positions;
  in.tokens = &tokens;
  in.theta = 0.5;
  in.lit = [](int t) { return t == 3; };
  in.highlightedEdges = {{2, 4}};
  const views::Scene g = document::graph_scene(in);
  ASSERT_EQ(g.points.size(), 5u);
  EXPECT_EQ(g.points[0].color.r, views::kSinkHighlight.r) << "the first token is the sink";
  EXPECT_EQ(g.points[3].color.g, views::kSelectedHighlight.g);
  EXPECT_GT(g.points[0].size, g.points[4].size);
  EXPECT_EQ(g.points[2].label, "2 b");
  // Every query gives the sink 0.8 >= theta; no other weight reaches 0.5.
  ASSERT_EQ(g.edges.size(), 5u);
  for (int k = 0; k < 4; ++k) EXPECT_EQ(g.edges[k].to, 0);
  EXPECT_TRUE(g.edges.back().lit);
  EXPECT_NO_THROW(views::scene_check(g));
}

TEST(SceneViews, TheHeadViewTablesTheDrawnTokensOnly) {
  std::vector<std::string> tokens(100, "t");
  const analysis::AttentionMatrix map = sink_map(100, 0.5f);
  document::HeadViewInputs in;
  in.source = "tiny";
  in.tokens = &tokens;
  in.layer = 1;
  in.head = 2;
  in.heads = 4;
  in.mapOf = [&](int) { return map; };
  const views::HeadViewData one = document::head_view(in);
  EXPECT_EQ(one.title, "Head view | tiny, layer 1, head 2");
  EXPECT_EQ(one.tokens.size(), 96u);
  EXPECT_EQ(one.note, "the first 96 of 100 tokens (a longer view would be a wall of lines)");
  ASSERT_EQ(one.heads.size(), 1u);
  EXPECT_EQ(one.heads[0].name, "head 2");
  EXPECT_EQ(one.numbers->rows.size(), 96u * 97u / 2) << "the cells the drawn queries see";
  EXPECT_NO_THROW(views::head_view_check(one));
  in.allHeads = true;
  EXPECT_EQ(document::head_view(in).heads.size(), 4u);
}

TEST(ViewJson, EveryViewWritesWhatItDrawsWithNullForUndefinedNumbers) {
  views::LinePlot plot;
  plot.title = "p";
  plot.series = {{"s", {0, 1}, {0.5, std::nan("")}, true}};
  auto table = std::make_shared<io::CsvTable>();
  table->columns = {"x", "y"};
  table->rows = {{"0", "0.5"}, {"1", ""}};
  plot.numbers = table;
  const nlohmann::json j = views::view_json(plot);
  EXPECT_EQ(j["kind"], "plot");
  EXPECT_EQ(j["series"][0]["style"], "reference");
  EXPECT_TRUE(j["series"][0]["y"][1].is_null());
  EXPECT_TRUE(j["marked_x"].is_null());
  EXPECT_EQ(j["numbers"]["rows"][1][1], "");
  EXPECT_EQ(j["numbers"]["columns"], (std::vector<std::string>{"x", "y"}));

  document::TaxonomyView v;
  v.layers = 1, v.heads = 2;
  v.classes = {0, -1};
  const nlohmann::json grid = views::view_json(document::taxonomy_grid(v, 0, 0, "t"));
  EXPECT_EQ(grid["kind"], "heat_map");
  EXPECT_EQ(grid["categories"][1]["name"], "Mixer");
  EXPECT_EQ(grid["hidden"][1], true);
  EXPECT_EQ(grid["range"][1], 2.0);
  EXPECT_EQ(views::view_json(document::note_scene("why"))["title"], "why");
}

// The spectral embedding colours each token by its Fiedler entry on the
// diverging map and says so with a colour bar from -max|v| to +max|v|.
TEST(SceneViews, TheSpectralEmbeddingHasAColourBarForItsFiedlerColours) {
  analysis::GraphSpectrum g;
  g.threshold = 0.05;
  g.fiedlerVector = {0.5, -0.25, 0.0};
  g.embedding = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  const std::vector<std::string> tokens{"<s>", "a", "b"};
  const views::Scene scene =
      document::spectral_embedding_scene(g, tokens, [](int) { return false; });
  ASSERT_TRUE(scene.colourBar.has_value());
  EXPECT_EQ(scene.colourBar->name, "Fiedler vector");
  EXPECT_DOUBLE_EQ(scene.colourBar->lo, -0.5);
  EXPECT_DOUBLE_EQ(scene.colourBar->hi, 0.5);
  ASSERT_EQ(scene.points.size(), 3u);
  const views::Rgb low = views::colormap_diverging(-0.5);
  EXPECT_DOUBLE_EQ(scene.points[1].color.b, low.b) << "-0.25 of 0.5: halfway to blue";
  EXPECT_EQ(views::view_json(scene).at("colour_bar").at("lo"), -0.5);
  // Its sinks are ringed in the sink colour (the fill already shows the Fiedler entry).
  EXPECT_FALSE(scene.points[0].sinkRing);
  const views::Scene ringed =
      document::spectral_embedding_scene(g, tokens, [](int) { return false; }, {0});
  EXPECT_TRUE(ringed.points[0].sinkRing);
  EXPECT_FALSE(ringed.points[1].sinkRing);
  EXPECT_NE(ringed.legend.find("red ring: sinks (1)"), std::string::npos) << ringed.legend;
}

// A long input's map has millions of cells: its numbers are kept as CSV text,
// the same text the rows would give, and still read back as rows for JSON
// and for a comparison's "run" table.
TEST(PlotViews, ALongMapsNumbersAreCsvTextEqualToItsRows) {
  const int T = 500;  // 125,250 visible cells, past kAttentionRowsAsText
  analysis::AttentionMatrix a{std::vector<float>(static_cast<std::size_t>(T) * T, 0.0f), T, true};
  for (int i = 0; i < T; ++i)
    for (int j = 0; j <= i; ++j)
      a.weights[static_cast<std::size_t>(i) * T + j] = 1.0f / static_cast<float>(i + 1 + (j % 3));
  std::vector<std::string> tokens;
  for (int i = 0; i < T; ++i) tokens.push_back(i % 7 == 0 ? "a,\"b\"" : "t" + std::to_string(i));
  const io::CsvTable t = document::attention_table(a.view(), 3, -1, tokens);
  EXPECT_TRUE(t.rows.empty());
  EXPECT_TRUE(io::csv_has_text_rows(t));
  // The rows written out here, independently, as fields.
  io::CsvTable expected;
  expected.columns = document::attention_columns();
  for (int i = 0; i < T; ++i)
    for (int j = 0; j <= i; ++j)
      expected.rows.push_back({"3", "average", std::to_string(i), std::to_string(j),
                               tokens[static_cast<std::size_t>(i)],
                               tokens[static_cast<std::size_t>(j)],
                               io::csv_number(a.weights[static_cast<std::size_t>(i) * T + j])});
  EXPECT_EQ(io::csv_render(t), io::csv_render(expected));
  EXPECT_EQ(io::csv_with_rows_parsed(t).rows, expected.rows);
  const auto json = views::table_json(t);
  ASSERT_EQ(json["rows"].size(), expected.rows.size());
  EXPECT_EQ(json["rows"][28][4], "a,\"b\"");  // query 7, key 0
  const io::CsvTable both = document::tables_by_run({{"plain", &t}, {"edited", &t}});
  EXPECT_EQ(both.rows.size(), 2 * expected.rows.size());
  // A short map keeps its rows as fields.
  analysis::AttentionMatrix small{std::vector<float>(16, 0.25f), 4, false};
  EXPECT_EQ(document::attention_table(small.view(), 0, 0, {"a", "b", "c", "d"}).rows.size(), 16u);
}
