// Bad input to the analysis core: NaN or Inf in a map, rows
// that do not sum to 1, T = 0 or 1, N > T. Each gives a clear error or the
// documented result, never undefined behaviour.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "analysis/graph_spectrum.h"
#include "analysis/head_diagnostics.h"
#include "analysis/persistence.h"
#include "analysis/sink_metric.h"
#include "analysis/sinks.h"
#include "analysis/taxonomy.h"
#include "analysis/value_space.h"
#include "analysis/weight_spectrum.h"

using namespace sinkscope::analysis;

namespace {

// Runs every map analysis on `a` (with `values` of head_dim 2).
void analyse_all(const AttentionView& a, const std::vector<float>& values) {
  (void)sink_set(a);
  (void)sink_concentration(a, {});
  (void)sink_key_importance(a);
  (void)head_diagnostics_mean(a, 3);
  (void)graph_spectrum(a);
  (void)persistence_rips(attention_distances(a), a.size);
  (void)taxonomy_votes(a, values, 2);
  (void)value_space(a, values, 2);
}

// Expects every analysis to refuse `a`, each naming itself and the entry.
void expect_every_analysis_refuses(const AttentionView& a, const std::vector<float>& values,
                                   const std::string& entry) {
  const auto check = [&](auto&& call, const std::string& who) {
    try {
      call();
      ADD_FAILURE() << who << " accepted the map";
    } catch (const std::invalid_argument& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(who), std::string::npos) << message;
      EXPECT_NE(message.find(entry), std::string::npos) << message;
    }
  };
  check([&] { (void)sink_set(a); }, "sink_set");
  check([&] { (void)sink_concentration(a, {0}); }, "sink_concentration");
  check([&] { (void)sink_key_importance(a); }, "sink_key_importance");
  check([&] { (void)head_diagnostics_at(a, -1, 3); }, "head_diagnostics");
  check([&] { (void)head_diagnostics_mean(a, 3); }, "head_diagnostics");
  check([&] { (void)graph_spectrum(a); }, "graph_spectrum");
  check([&] { (void)attention_distances(a); }, "attention_distances");
  check([&] { (void)taxonomy_votes(a, values, 2); }, "taxonomy_votes");
  check([&] { (void)value_space(a, values, 2); }, "value_space");
}

}  // namespace

TEST(AnalysisBadInput, NaNAndInfinityAreRefusedByName) {
  for (float bad :
       {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(), -0.5f}) {
    AttentionMatrix a = attention_uniform(4, true);
    a.weights[2 * 4 + 1] = bad;  // query 2, key 1
    expect_every_analysis_refuses(a.view(), std::vector<float>(8, 1.0f), "(query 2, key 1)");
  }
}

TEST(AnalysisBadInput, WrongBufferSizeIsRefused) {
  const std::vector<float> weights(5, 0.2f);
  expect_every_analysis_refuses({weights, 2, true}, std::vector<float>(4, 1.0f), "expected 4");
}

TEST(AnalysisBadInput, NonFiniteValuesAndDistancesAreRefused) {
  const AttentionMatrix a = attention_uniform(3, true);
  std::vector<float> values(6, 1.0f);
  values[3] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW((void)taxonomy_votes(a.view(), values, 2), std::invalid_argument);
  EXPECT_THROW((void)value_space(a.view(), values, 2), std::invalid_argument);
  std::vector<double> d(9, 0.5);
  d[4] = std::numeric_limits<double>::infinity();
  EXPECT_THROW((void)persistence_rips(d, 3), std::invalid_argument);
  std::vector<float> w(6, 1.0f);
  w[1] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW((void)weight_spectrum(w, 3, 2), std::invalid_argument);
}

TEST(AnalysisBadInput, EmptyAndSingleTokenMapsHaveDefinedResults) {
  const AttentionMatrix empty{{}, 0, true};
  EXPECT_NO_THROW(analyse_all(empty.view(), {}));
  EXPECT_TRUE(sink_set(empty.view()).sinks.empty());
  EXPECT_TRUE(persistence_rips({}, 0).h0.empty());
  EXPECT_TRUE(value_space(empty.view(), {}, 2).selected.empty());

  const AttentionMatrix one = attention_uniform(1, true);
  const std::vector<float> v{0.5f, 0.25f};
  EXPECT_NO_THROW(analyse_all(one.view(), v));
  // One token: it is its own sink, the one H0 class dies at 1, N = 1 selects it.
  EXPECT_DOUBLE_EQ(sink_key_importance(one.view())[0], 1.0);
  const PersistenceDiagram p = persistence_rips(attention_distances(one.view()), 1);
  ASSERT_EQ(p.h0.size(), 1u);
  EXPECT_DOUBLE_EQ(p.h0[0].death, 1.0);
  EXPECT_TRUE(p.h1.empty());
  const ValueSpace s = value_space(one.view(), v, 2, {5, -1, 4, 7});
  EXPECT_EQ(s.topN, 1);
  EXPECT_DOUBLE_EQ(s.scores.f, 1.0);
  EXPECT_EQ(graph_spectrum(one.view()).components, 1);
}

TEST(AnalysisBadInput, RowsNotSummingToOneAreTakenAsGiven) {
  // Documented result: the analyses do not renormalise; a map scaled by 2 gives
  // twice the key importance, and attention_validate is the strict check.
  AttentionMatrix a = attention_uniform(5, true);
  const auto before = sink_key_importance(a.view());
  for (float& w : a.weights) w *= 2.0f;
  const auto after = sink_key_importance(a.view());
  for (std::size_t k = 0; k < before.size(); ++k) EXPECT_NEAR(after[k], 2.0 * before[k], 1e-6);
  EXPECT_THROW(attention_validate(a.view()), std::invalid_argument);
}

TEST(AnalysisBadInput, TopNBeyondTheSequenceSelectsEveryKey) {
  const AttentionMatrix a = attention_uniform(4, true);
  const std::vector<float> v{1, 0, 0, 1, 1, 1, -1, 0};
  const ValueSpace s = value_space(a.view(), v, 2, {99, -1, 4, 7});
  EXPECT_EQ(s.topN, 4);
  EXPECT_EQ(s.inversions, 0);
  EXPECT_TRUE(std::isinf(s.rMin));  // no unselected key: the open ball is unbounded
  EXPECT_DOUBLE_EQ(head_diagnostics_at(a.view(), -1, 99).topNMass, 1.0);
}
