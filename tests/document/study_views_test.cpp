// The views of a corpus study and of sink emergence over training, built in
// the document layer from tables made here: the grid's values and title, a
// profile's series with its intervals and baseline, the head classes per
// layer, and the emergence curves as means over heads.
#include <gtest/gtest.h>

#include <cmath>

#include "models/document/study_views.h"
#include "models/document/training_views.h"

namespace sinkscope {
namespace {

using namespace document;

StudyTables two_by_two() {
  StudyTables s;
  s.layers = 2;
  s.heads = 2;
  s.sentences = 12;
  const char* labels[4] = {"Retriever", "Mixer", "Reset", "Mixer"};
  for (int k = 0; k < 4; ++k) {
    StudyHead h;
    h.sampleShare = {0.1 * (k + 1), 0.05 * (k + 1), 0.15 * (k + 1)};
    h.sinkShare = {0.5, std::nan(""), std::nan("")};
    h.label = labels[k];
    s.perHead.push_back(h);
  }
  s.profiles["alpha0"] = {{0.4, 0.3, 0.5}, {0.6, 0.55, 0.65}};
  s.profiles["f_n"] = {{0.9, 0.8, 1.0}, {0.7, 0.6, 0.8}};  // its baseline absent
  s.profileOrder = {"alpha0", "f_n"};
  s.meanUniformBaseline = 0.125;
  return s;
}

TEST(StudyViews, TheGridShowsThePooledNumberAndNamesTheFramedHead) {
  const StudyTables s = two_by_two();
  const views::HeatMap g = study_grid(s, StudyGrid::SampleShare, 1, 0);
  EXPECT_EQ(g.values, (std::vector<float>{0.1f, 0.2f, 0.3f, 0.4f}));
  EXPECT_EQ(g.outlineRow, 1);
  EXPECT_EQ(g.outlineCol, 0);
  EXPECT_EQ(g.title, "Share of sentences with a sink | layer 1, head 0: 0.30 [0.15, 0.45]");
  EXPECT_EQ(g.quantity, "share of sentences with a sink");
  const views::HeatMap votes = study_grid(s, StudyGrid::SinkVotes, 0, 1);
  EXPECT_EQ(votes.title, "Taxonomy: sink vote share | layer 0, head 1: 0.50") << "no interval";
  const views::HeatMap classes = study_grid(s, StudyGrid::HeadClass, 0, 1);
  EXPECT_EQ(classes.values, (std::vector<float>{0, 1, 2, 1}));
  EXPECT_EQ(classes.categories.size(), 3u);
  EXPECT_EQ(classes.title, "Head class (pooled votes) | layer 0, head 1: Mixer");
}

TEST(StudyViews, AProfileIsOfferedOnlyWithItsBaselineAndDrawsItsIntervals) {
  const StudyTables s = two_by_two();
  const auto profiles = study_profiles(s);
  ASSERT_EQ(profiles.size(), 1u) << "F_N without its random baseline is not offered";
  EXPECT_EQ(profiles[0].metrics, (std::vector<std::string>{"alpha0"}));
  const views::LinePlot p = study_profile_plot(s, 0);
  EXPECT_EQ(p.title,
            "Sink metric \u03b1\u2080 of the first token | mean over 12 sentences, 95% intervals");
  ASSERT_EQ(p.series.size(), 2u);
  EXPECT_EQ(p.series[0].y, (std::vector<double>{0.4, 0.6}));
  EXPECT_EQ(p.series[0].lo, (std::vector<double>{0.3, 0.55}));
  EXPECT_TRUE(p.series[1].reference);
  EXPECT_EQ(p.series[1].y, (std::vector<double>{0.125, 0.125}));
  EXPECT_EQ(study_profile_plot(s, 5).title, "No layer profiles in this study");
}

TEST(StudyViews, HeadClassesAreCountedPerLayer) {
  const views::LinePlot p = study_head_classes_plot(two_by_two());
  ASSERT_EQ(p.series.size(), 3u);
  EXPECT_EQ(p.series[0].name, "Retriever");
  EXPECT_EQ(p.series[0].y, (std::vector<double>{1, 0}));
  EXPECT_EQ(p.series[1].y, (std::vector<double>{1, 1}));
  EXPECT_EQ(p.series[2].y, (std::vector<double>{0, 1}));
  for (const views::PlotSeries& series : p.series) EXPECT_TRUE(series.stacked) << series.name;
}

TEST(TrainingViews, EmergenceCurvesAreMeansOverHeadsAtEveryStep) {
  std::vector<models::Checkpoint> steps(2);
  steps[0].step = 100;
  steps[1].step = 200;
  CheckpointAlpha0 a;
  a.layers = 2;
  a.heads = 2;
  a.values = {{0.1, 0.35, 0.5, 0.7}, {0.2, 0.4, 0.9, 0.9}};
  a.uniform0 = {0.1, 0.1};
  const views::LinePlot alpha = emergence_plot(steps, a, "a sentence");
  ASSERT_EQ(alpha.series.size(), 4u) << "per layer, the model's, the uniform head's";
  EXPECT_EQ(alpha.series[0].x, (std::vector<double>{100, 200}));
  EXPECT_NEAR(alpha.series[0].y[0], 0.225, 1e-12);
  EXPECT_NEAR(alpha.series[1].y[1], 0.9, 1e-12);
  EXPECT_NEAR(alpha.series[2].y[0], 0.4125, 1e-12) << "every head of the model";
  EXPECT_TRUE(alpha.series[2].dashed);
  EXPECT_TRUE(alpha.series[3].reference);
  EXPECT_EQ(alpha.series[3].y, a.uniform0) << "a uniform head's alpha_0 at each step";
  const views::LinePlot boost = emergence_plot(steps, a, "s", EmergenceMetric::Boost);
  EXPECT_EQ(boost.series.back().y, (std::vector<double>{1.0, 1.0})) << "boost of a uniform head";
  const views::LinePlot strong = emergence_plot(steps, a, "s", EmergenceMetric::StrongBoost);
  EXPECT_EQ(strong.series[0].y, (std::vector<double>{0.5, 0.5})) << "boost >= 3: 0.35 and 0.4";
  EXPECT_EQ(strong.title,
            "Sink emergence | share of heads with boost >= 3 by training step | \"s\"");
  // A long sentence is cut by code points, never inside one.
  const std::string longText(39, 'x');
  const views::LinePlot cut = emergence_plot(steps, a, longText + "\xc3\xa9\xc3\xa9\xc3\xa9");
  EXPECT_NE(cut.title.find("\"" + std::string(37, 'x') + "...\""), std::string::npos) << cut.title;

  const views::HeatMap grid = emergence_grid(steps, a);
  EXPECT_EQ(grid.rows, 4);
  EXPECT_EQ(grid.cols, 2);
  EXPECT_EQ(grid.values[2 * 2 + 1], 0.9f) << "layer 1 head 0 at step 200";
  EXPECT_EQ(grid.colLabels, (std::vector<std::string>{"100", "200"}));
  a.values[1].resize(1);  // a damaged result: the grid stops before it
  EXPECT_EQ(emergence_grid(steps, a).cols, 1);
}

}  // namespace
}  // namespace sinkscope
