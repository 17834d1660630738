// The shared selection: clamping, no signal for unchanged values, stepping.
#include <gtest/gtest.h>

#include <QSignalSpy>

#include "ui/selection_model.h"
#include "ui/shown_place.h"

using sinkscope::models::Intervention;
using sinkscope::ui::SelectionModel;

TEST(SelectionModel, SettingAnUnchangedValueEmitsNothing) {
  SelectionModel s;
  s.setBounds(4, 8, 10);
  QSignalSpy changed(&s, &SelectionModel::changed);
  QSignalSpy layer(&s, &SelectionModel::layerChanged);
  s.setLayer(2);
  EXPECT_EQ(layer.count(), 1);
  EXPECT_EQ(layer.at(0).at(0).toInt(), 2);
  EXPECT_EQ(changed.count(), 1);
  s.setLayer(2);
  s.setHead(s.head());
  s.setThreshold(s.threshold());
  s.setTopN(s.topN());
  s.setQueryToken(s.queryToken());
  s.setInterventions(s.interventions());
  s.setBounds(4, 8, 10);
  EXPECT_EQ(layer.count(), 1);
  EXPECT_EQ(changed.count(), 1);
}

TEST(SelectionModel, ValuesAreClampedToBounds) {
  SelectionModel s;
  s.setBounds(3, 4, 5);
  s.setLayer(99);
  EXPECT_EQ(s.layer(), 2);
  s.setHead(-7);
  EXPECT_EQ(s.head(), 0);
  s.setHead(SelectionModel::kHeadAverage);
  EXPECT_TRUE(s.headAveraged());
  s.setQueryToken(12);
  EXPECT_EQ(s.queryToken(), 4);
  s.setThreshold(3.0);
  EXPECT_DOUBLE_EQ(s.threshold(), 1.0);
  s.setTopN(0);
  EXPECT_EQ(s.topN(), 1);

  // Shrinking the bounds moves values inside and says so.
  QSignalSpy query(&s, &SelectionModel::queryTokenChanged);
  s.setBounds(3, 4, 2);
  EXPECT_EQ(s.queryToken(), 1);
  EXPECT_EQ(query.count(), 1);
}

TEST(SelectionModel, TopNReturnsToTheRequestedValueWhenTokensArrive) {
  SelectionModel s;
  s.setBounds(1, 1, 0);
  EXPECT_EQ(s.topN(), 1);
  s.setBounds(1, 1, 20);
  EXPECT_EQ(s.topN(), SelectionModel::kDefaultTopN);
}

TEST(SelectionModel, StepHeadWalksThroughTheAverageFirst) {
  SelectionModel s;
  s.setBounds(2, 3, 4);
  s.setHead(0);
  s.stepHead(-1);
  EXPECT_EQ(s.head(), SelectionModel::kHeadAverage);
  s.stepHead(-1);
  EXPECT_EQ(s.head(), SelectionModel::kHeadAverage);
  s.stepHead(+2);
  EXPECT_EQ(s.head(), 1);
  s.stepHead(+5);
  EXPECT_EQ(s.head(), 2);
  s.stepLayer(+1);
  s.stepLayer(+1);
  EXPECT_EQ(s.layer(), 1);
}

TEST(SelectionModel, InterventionsAreAddedOnceAndListed) {
  SelectionModel s;
  QSignalSpy spy(&s, &SelectionModel::interventionsChanged);
  Intervention drop;
  drop.dropFirstToken = true;
  Intervention remove;
  remove.removeSinks = {{{1, 2}, {}}};
  Intervention ablate;
  ablate.ablateHeads = {{0, 3}};
  s.addIntervention(drop);
  s.addIntervention(drop);
  s.addIntervention(remove);
  s.addIntervention(remove);
  s.addIntervention(ablate);
  EXPECT_EQ(spy.count(), 3);
  EXPECT_EQ(s.interventions().labels(),
            (std::vector<std::string>{"drop first token", "remove sinks (layers 1, 2; all heads)",
                                      "ablate heads (layer 0; head 3)"}));
  s.removeIntervention(0);  // the first entry listed
  EXPECT_EQ(s.interventions().labels(),
            (std::vector<std::string>{"remove sinks (layers 1, 2; all heads)", "ablate heads (layer 0; head 3)"}));
  s.removeIntervention(1);
  EXPECT_EQ(s.interventions().labels(), (std::vector<std::string>{"remove sinks (layers 1, 2; all heads)"}));
  s.removeIntervention(7);  // no such entry: nothing changes
  EXPECT_EQ(spy.count(), 5);
}

TEST(SelectionModel, TheCounterpartInAComparedRunFollowsOrIsPinned) {
  SelectionModel s;
  s.setBounds(4, 8, 10);
  s.setLayer(3);
  s.setHead(5);
  EXPECT_FALSE(s.hasCounterpart());
  EXPECT_EQ(s.counterpartLayer(), 3) << "no B: the selection itself";
  EXPECT_EQ(s.counterpartHead(), 5);
  QSignalSpy changed(&s, &SelectionModel::changed);
  QSignalSpy counterpart(&s, &SelectionModel::counterpartChanged);
  s.setCounterpartLayer(1);  // no B to pin: ignored
  EXPECT_EQ(changed.count(), 0);
  // B of another shape: the last layer of A is B's last; 8 heads against 12: B's average.
  s.setCounterpartBounds(12, 12);
  EXPECT_EQ(counterpart.count(), 1);
  EXPECT_EQ(changed.count(), 1);
  EXPECT_EQ(s.counterpartLayer(), 11);
  EXPECT_EQ(s.counterpartHead(), SelectionModel::kHeadAverage);
  s.setLayer(1);
  EXPECT_EQ(s.counterpartLayer(), 4) << "1/3 of the depth of 12 layers: 3.67 -> 4";
  // Pinned: B's place no longer follows the selection; clamped to B's shape.
  s.setCounterpartLayer(40);
  s.setCounterpartHead(7);
  EXPECT_EQ(s.pinnedCounterpartLayer(), 11);
  EXPECT_EQ(s.counterpartLayer(), 11);
  EXPECT_EQ(s.counterpartHead(), 7);
  s.setLayer(0);
  EXPECT_EQ(s.counterpartLayer(), 11);
  const int before = changed.count();
  s.setCounterpartHead(7);
  EXPECT_EQ(changed.count(), before) << "unchanged: no signal";
  // The same shape again keeps the pins; a new shape unpins; same shape: heads correspond.
  s.setCounterpartBounds(12, 12);
  EXPECT_EQ(s.counterpartHead(), 7);
  s.setCounterpartBounds(4, 8);
  EXPECT_EQ(s.pinnedCounterpartLayer(), SelectionModel::kAutomatic);
  EXPECT_EQ(s.counterpartLayer(), 0);
  EXPECT_EQ(s.counterpartHead(), 5) << "as many heads: the same head";
  s.setCounterpartHead(SelectionModel::kHeadAverage);
  EXPECT_EQ(s.counterpartHead(), SelectionModel::kHeadAverage);
  s.setCounterpartBounds(0, 0);
  EXPECT_FALSE(s.hasCounterpart());
  EXPECT_EQ(s.counterpartHead(), 5);
}

// Where the selection on A lands in the run a view draws (ui/shown_place).
TEST(SelectionModel, AShownPlaceCarriesTheSelectionIntoRunBAndBack) {
  SelectionModel s;
  s.setBounds(2, 2, 4);  // A: 4 tokens
  s.setLayer(1);
  s.setHead(1);
  s.setQueryToken(3);
  s.setKeyToken(1);
  s.setCounterpartBounds(5, 4);
  const sinkscope::ui::ShownPlace a(&s);
  EXPECT_EQ(a.layer(), 1);
  EXPECT_EQ(a.queryToken(), 3);
  EXPECT_TRUE(a.note(QStringLiteral("A")).isEmpty());
  // B of another tokenizer: A's tokens 1 and 2 both lie in B's token 1.
  const sinkscope::ui::ShownPlace b(&s, 3, {0, 1, 1, 2});
  EXPECT_EQ(b.layer(), 4);
  EXPECT_EQ(b.head(), SelectionModel::kHeadAverage);
  EXPECT_EQ(b.queryToken(), 2);
  EXPECT_EQ(b.keyToken(), 1);
  EXPECT_EQ(b.note(QStringLiteral("A")), QStringLiteral(" | A at layer 1, head 1"));
  EXPECT_EQ(b.tokensOfA(1), (QList<int>{1, 2}));
  EXPECT_TRUE(b.tokensOfA(7).isEmpty());
  b.highlight({1}, {{1, 2}});
  EXPECT_EQ(s.highlightedTokens(), (QList<int>{1, 2}));
  EXPECT_EQ(s.highlightedEdges(), (QList<QPair<int, int>>{{1, 3}}));
  EXPECT_TRUE(b.lit(1));
  EXPECT_FALSE(b.lit(0));
  EXPECT_EQ(b.highlightedEdges(), (std::vector<std::pair<int, int>>{{1, 2}}));
  // B of the same tokenizer (another sentence): by position, up to B's length.
  const sinkscope::ui::ShownPlace shorter(&s, 2, {});
  EXPECT_EQ(shorter.queryToken(), SelectionModel::kNoToken) << "B has no token 3";
  EXPECT_EQ(shorter.keyToken(), 1);
  EXPECT_EQ(shorter.tokensOfA(1), (QList<int>{1}));
}
