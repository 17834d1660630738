// The window's document without Qt: which run is shown, answers for runs no
// longer shown are dropped, places a run lacks are said, a comparison's B
// and its pinned place, and the provenance lines every export writes. Runs
// come from captures made here (a trace without a model).
#include <gtest/gtest.h>

#include "models/capture.h"
#include "models/document/workbench.h"

namespace sinkscope {
namespace {

using namespace document;

// A uniform causal capture of `layers` x `heads` over `tokens` tokens.
SentenceRun capture_run(int layers, int heads, int tokens, const std::string& name = "toy") {
  models::Capture c;
  c.layers = layers;
  c.heads = heads;
  c.tokens = tokens;
  c.model = name;
  c.attention.assign(static_cast<std::size_t>(layers * heads * tokens * tokens), 0.0f);
  for (int m = 0; m < layers * heads; ++m)
    for (int i = 0; i < tokens; ++i)
      for (int j = 0; j <= i; ++j)
        c.attention[static_cast<std::size_t>((m * tokens + i) * tokens + j)] = 1.0f / (i + 1);
  for (int t = 0; t < tokens; ++t) c.tokenText.push_back("t" + std::to_string(t));
  models::capture_check(c, "test");
  SentenceRun run = sentence_run_capture(c);
  run.text = "the text of " + name;
  return run;
}

TEST(Workbench, ShowingARunClearsBAndDropsAnswersForTheRunItReplaced) {
  Workbench w;
  Selection selection;
  EXPECT_EQ(w.shownRun(), nullptr);
  w.showRun(capture_run(2, 2, 4));
  const auto oldTrace = w.run()->trace;
  EXPECT_TRUE(w.showingCapture());
  EXPECT_TRUE(w.setHeadDnll(oldTrace, {1, 2, 3, 4}));
  w.setRunB(capture_run(2, 2, 4, "b"), selection);
  EXPECT_EQ(w.shownRun(), &*w.runB()) << "B is shown after interventions by default";
  EXPECT_TRUE(w.setComparison(Comparison::Before));
  EXPECT_FALSE(w.setComparison(Comparison::Before)) << "no change, nothing to redraw";
  EXPECT_EQ(w.shownRun(), &*w.run());

  w.showRun(capture_run(2, 2, 5));
  EXPECT_FALSE(w.runB());
  EXPECT_TRUE(w.experiments().headDnll.empty());
  EXPECT_FALSE(w.setHeadDnll(oldTrace, {1, 2, 3, 4})) << "an ablation of the old run";
  EXPECT_FALSE(w.setAnalysis(oldTrace, nullptr)) << "an analysis of the old run";
  EXPECT_FALSE(w.setLayerFunction(oldTrace, {1}, {2}));
  EXPECT_TRUE(w.setLayerFunction(w.run()->trace, {0.5, 0.25}, {3, 4}));
  EXPECT_EQ(w.experiments().klPerLayer, (std::vector<double>{0.5, 0.25}));
}

TEST(Workbench, NewAnalysisSettingsDropTheRunsAnalysisOnlyWhenTheyDiffer) {
  Workbench w;
  w.showRun(capture_run(1, 1, 3));
  w.setAnalysis(w.run()->trace, std::make_shared<const TraceAnalysis>());
  EXPECT_FALSE(w.setAnalysisSettings(AnalysisSettings{}));
  EXPECT_TRUE(w.run()->analysis);
  AnalysisSettings other;
  other.percentile = 95;
  EXPECT_TRUE(w.setAnalysisSettings(other));
  EXPECT_FALSE(w.run()->analysis);
  EXPECT_EQ(w.analysisSettings().percentile, 95);
}

TEST(Workbench, APlaceTheRunLacksIsSaidNotClamped) {
  Selection selection;
  selection.setBounds(2, 4, 5);
  EXPECT_EQ(Workbench::placeOutside({1, 3}, selection), "");
  EXPECT_EQ(Workbench::placeOutside({-1, Selection::kHeadAverage}, selection), "");
  EXPECT_EQ(Workbench::placeOutside({5, 1}, selection),
            "Layer 5, head 1: the model has 2 layers of 4 heads (0..1, 0..3); the selection "
            "stays where it was");
  EXPECT_EQ(Workbench::placeOutside({-1, 4}, selection),
            "head 4: the model has 2 layers of 4 heads (0..1, 0..3); the selection stays where "
            "it was");
  Workbench w;
  w.selectAfterNextRun(1, 2);
  const auto place = w.takePendingPlace();
  ASSERT_TRUE(place);
  EXPECT_EQ(place->layer, 1);
  EXPECT_EQ(place->head, 2);
  EXPECT_FALSE(w.takePendingPlace()) << "taken once";
}

TEST(Workbench, AComparisonNeedsAModelAndEndsWithItsNames) {
  Workbench w;
  w.showRun(capture_run(2, 2, 4));
  w.beginComparison({"another sentence", std::nullopt});
  EXPECT_TRUE(w.comparing());
  EXPECT_EQ(w.comparison(), Comparison::SideBySide);
  const auto [toMake, refusal] = w.comparedRunToMake();
  EXPECT_FALSE(toMake);
  EXPECT_EQ(refusal, "Compare: open a model first");
  EXPECT_FALSE(w.comparing()) << "a refused comparison ends";
}

TEST(Workbench, TheComparedRunTakesItsPinnedPlaceAndNamesWhatItLacks) {
  Workbench w;
  Selection selection;
  w.showRun(capture_run(4, 2, 4));
  const auto base = w.run()->trace;
  selection.setBounds(4, 2, 4);
  w.beginComparison({"another sentence", std::nullopt});
  EXPECT_TRUE(w.holdPinUntilComparedRun(7, 1, selection)) << "B has no place yet";

  EXPECT_FALSE(w.takeComparedRun(capture_run(2, 2, 3, "b"), std::make_shared<models::Trace>()))
      << "a B computed for another run A";
  const auto taken = w.takeComparedRun(capture_run(2, 2, 3, "b"), base);
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->layers, 2);
  EXPECT_EQ(taken->heads, 2);
  ASSERT_TRUE(taken->pinned);
  EXPECT_EQ(*taken->pinned, std::make_pair(7, 1));
  EXPECT_EQ(taken->outside, "compare.layer 7 (B has 2 layers)");
  EXPECT_TRUE(w.comparedTokens().empty()) << "one tokenizer: by position";
  EXPECT_FALSE(w.droppedFirstAlignment());
  EXPECT_EQ(w.comparisonNotice(),
            "Comparing before: \"the text of toy\" with after: \"the text of b\" (4 x 2 heads "
            "against 2 x 2: B's layer at the same relative depth, B's head average unless the "
            "layers have as many heads; pin B's layer and head in the selection bar)");

  EXPECT_TRUE(w.endComparison());
  EXPECT_FALSE(w.endComparison());
  EXPECT_FALSE(w.runB());
  EXPECT_EQ(w.runNames().before, "before");
  EXPECT_EQ(w.runNames().after, "after");
}

TEST(Workbench, ProvenanceNamesTheRunTheSelectionAndTheInterventions) {
  Workbench w;
  Selection selection;
  const auto none = w.provenance(selection, "sinkscope 1.0");
  ASSERT_EQ(none.size(), 2u);
  EXPECT_EQ(none[0], "tool: sinkscope 1.0");
  EXPECT_EQ(none[1], "selection: layer 0, head 0, threshold 0.05, top-N 3");

  w.showRun(capture_run(2, 2, 4));
  selection.setBounds(2, 2, 4);
  selection.setHead(Selection::kHeadAverage);
  models::Intervention drop;
  drop.dropFirstToken = true;
  selection.setInterventions(drop);
  const auto lines = w.provenance(selection, "sinkscope 1.0");
  const std::vector<std::string> expected{
      "tool: sinkscope 1.0", "model: toy (capture)", "text: the text of toy",
      "sink_set: percentile mode, p = 90, gamma = 0.3 (reading: A >= tau and A > 0); frequency "
      "over all T queries (metrics.md s. 1)",
      "selection: layer 0, head average, threshold 0.05, top-N 3"};
  ASSERT_GE(lines.size(), expected.size() + 1);
  for (std::size_t k = 0; k < expected.size(); ++k) EXPECT_EQ(lines[k], expected[k]);
  EXPECT_EQ(lines.back().rfind("intervention: ", 0), 0u) << lines.back();
}

}  // namespace
}  // namespace sinkscope
