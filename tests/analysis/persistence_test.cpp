// Persistent homology of attention graphs against GUDHI (an independent exact
// implementation) on the same distance matrices, and on closed forms.
#include <gtest/gtest.h>

#include <gudhi/Persistent_cohomology.h>
#include <gudhi/Rips_complex.h>
#include <gudhi/Simplex_tree.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "analysis/attention_matrix.h"
#include "analysis/head_analysis.h"
#include "analysis/persistence.h"

using namespace sinkscope::analysis;

namespace {

// GUDHI's fast-persistence options store filtrations as float; compare in double.
struct DoubleFiltration : Gudhi::Simplex_tree_options_fast_persistence {
  typedef double Filtration_value;
};
using SimplexTree = Gudhi::Simplex_tree<DoubleFiltration>;
using RipsComplex = Gudhi::rips_complex::Rips_complex<SimplexTree::Filtration_value>;
using Cohomology =
    Gudhi::persistent_cohomology::Persistent_cohomology<SimplexTree,
                                                        Gudhi::persistent_cohomology::Field_Zp>;
using Intervals = std::vector<std::pair<double, double>>;

// GUDHI's bars of dimension 0 and 1 (infinite deaths as 1), without the bars
// that persistence_rips does not report: those no longer than kBarTolerance
// times the largest distance.
std::array<Intervals, 2> gudhi_bars(const std::vector<double>& d, int n) {
  const double shortest = kBarTolerance * *std::max_element(d.begin(), d.end());
  std::vector<std::vector<double>> lower(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < i; ++j)
      lower[static_cast<std::size_t>(i)].push_back(d[static_cast<std::size_t>(i) * n + j]);
  RipsComplex rips(lower, 1.0);
  SimplexTree st;
  rips.create_complex(st, 2);
  Cohomology pcoh(st);
  pcoh.init_coefficients(2);
  pcoh.compute_persistent_cohomology(0.0);
  std::array<Intervals, 2> out;
  for (int dim : {0, 1})
    for (auto [b, e] : pcoh.intervals_in_dimension(dim)) {
      if (std::isinf(e)) e = 1.0;
      if (e - b > shortest) out[static_cast<std::size_t>(dim)].emplace_back(b, e);
    }
  for (auto& v : out) std::sort(v.begin(), v.end());
  return out;
}

Intervals ours(const std::vector<PersistenceBar>& bars) {
  Intervals v;
  for (const auto& b : bars) v.emplace_back(b.birth, b.death);
  std::sort(v.begin(), v.end());
  return v;
}

AttentionMatrix random_attention(int T, bool causal, std::mt19937& rng, double sinkBias) {
  std::normal_distribution<double> noise(0.0, 1.5);
  AttentionMatrix m{std::vector<float>(static_cast<std::size_t>(T * T), 0.0f), T, causal};
  for (int i = 0; i < T; ++i) {
    std::vector<double> s(static_cast<std::size_t>(T), -INFINITY);
    double mx = -INFINITY;
    for (int j = 0; j < T; ++j) {
      if (causal && j > i) continue;
      s[static_cast<std::size_t>(j)] = noise(rng) + (j == 0 ? sinkBias : 0.0);
      mx = std::max(mx, s[static_cast<std::size_t>(j)]);
    }
    double z = 0;
    for (auto& x : s) z += (x = std::isinf(x) ? 0.0 : std::exp(x - mx));
    for (int j = 0; j < T; ++j)
      m.weights[static_cast<std::size_t>(i * T + j)] =
          static_cast<float>(s[static_cast<std::size_t>(j)] / z);
  }
  return m;
}

void expect_same(const Intervals& a, const Intervals& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t k = 0; k < a.size(); ++k) {
    EXPECT_NEAR(a[k].first, b[k].first, 1e-9) << what << " bar " << k;
    EXPECT_NEAR(a[k].second, b[k].second, 1e-9) << what << " bar " << k;
  }
}

}  // namespace

TEST(Persistence, MatchesGudhiOnRandomAttentionMaps) {
  std::mt19937 rng(2026);
  int withLoops = 0;
  for (int T : {3, 6, 12, 20, 33}) {
    for (bool causal : {true, false}) {
      for (double sink : {0.0, 3.0}) {
        const AttentionMatrix m = random_attention(T, causal, rng, sink);
        for (bool useMax : {false, true}) {
          const auto d = attention_distances(m.view(), {useMax});
          const PersistenceDiagram p = persistence_rips(d, T);
          const auto ref = gudhi_bars(d, T);
          const std::string what = "T=" + std::to_string(T) + (causal ? " causal" : " encoder") +
                                   (useMax ? " max" : " mean") + " sink " + std::to_string(sink);
          expect_same(ours(p.h0), ref[0], what + " H0");
          expect_same(ours(p.h1), ref[1], what + " H1");
          withLoops += p.h1.empty() ? 0 : 1;
        }
      }
    }
  }
  EXPECT_GT(withLoops, 5) << "the fixtures must exercise H1";
}

TEST(Persistence, MatchesGudhiOnAThousandRandomMatrices) {
  // Acceptance: at least 1,000 random distance matrices of up to 128
  // points. Sizes are drawn so that a quarter are large (65-128 points); half the
  // matrices come from random attention maps (with and without a sink), half are
  // arbitrary symmetric matrices in [0, 1] (not even metric).
  std::mt19937 rng(1000);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int withLoops = 0;
  for (int instance = 0; instance < 1000; ++instance) {
    const int n =
        instance % 4 == 0 ? 65 + static_cast<int>(rng() % 64) : 2 + static_cast<int>(rng() % 40);
    std::vector<double> d;
    if (instance % 2 == 0) {
      const AttentionMatrix m = random_attention(n, rng() % 2 == 0, rng, (rng() % 2) * 3.0);
      d = attention_distances(m.view(), {rng() % 2 == 0});
    } else {
      d.assign(static_cast<std::size_t>(n * n), 0.0);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < i; ++j)
          d[static_cast<std::size_t>(i * n + j)] = d[static_cast<std::size_t>(j * n + i)] =
              unit(rng);
    }
    const PersistenceDiagram p = persistence_rips(d, n);
    const auto ref = gudhi_bars(d, n);
    const std::string what = "instance " + std::to_string(instance) + " n " + std::to_string(n);
    expect_same(ours(p.h0), ref[0], what + " H0");
    expect_same(ours(p.h1), ref[1], what + " H1");
    if (HasFailure()) return;
    withLoops += p.h1.empty() ? 0 : 1;
  }
  EXPECT_GT(withLoops, 300) << "the matrices must exercise H1";
}

TEST(Persistence, MatchesGudhiWithManyTies) {
  // The uniform map: distances take few values, so the order of equal edges matters.
  for (int T : {5, 9, 16}) {
    const AttentionMatrix u = attention_uniform(T, true);
    const auto d = attention_distances(u.view());
    const PersistenceDiagram p = persistence_rips(d, T);
    const auto ref = gudhi_bars(d, T);
    expect_same(ours(p.h0), ref[0], "uniform H0");
    expect_same(ours(p.h1), ref[1], "uniform H1");
  }
}

TEST(Persistence, SquareHasOneLoopWithItsTokens) {
  // Four points on a square: sides 0.2, diagonals 0.5: a loop born at 0.2, dead at 0.5.
  const int n = 4;
  std::vector<double> d(16, 0.0);
  auto set = [&](int i, int j, double v) {
    d[static_cast<std::size_t>(i * n + j)] = d[static_cast<std::size_t>(j * n + i)] = v;
  };
  set(0, 1, 0.2);
  set(1, 2, 0.2);
  set(2, 3, 0.2);
  set(3, 0, 0.2);
  set(0, 2, 0.5);
  set(1, 3, 0.5);
  const PersistenceDiagram p = persistence_rips(d, n);
  ASSERT_EQ(p.h1.size(), 1u);
  EXPECT_DOUBLE_EQ(p.h1[0].birth, 0.2);
  EXPECT_DOUBLE_EQ(p.h1[0].death, 0.5);
  EXPECT_EQ(p.h1[0].cycle.size(), 4u) << "the loop's four edges";
  const auto t = p.h1[0].triangle;
  EXPECT_TRUE(t[0] < t[1] && t[1] < t[2] && t[2] < 4);
  // H0: three merges at 0.2 plus the infinite class.
  ASSERT_EQ(p.h0.size(), 4u);
  EXPECT_DOUBLE_EQ(p.h0[0].death, 0.2);
  EXPECT_DOUBLE_EQ(p.h0.back().death, 1.0);
  EXPECT_EQ(p.h0.back().edge[0], -1);

  const BettiCurves c = betti_curves(p, 11);
  EXPECT_EQ(c.beta0[0], 4);  // e = 0: four points
  EXPECT_EQ(c.beta0[2], 1);  // e = 0.2: one component
  EXPECT_EQ(c.beta1[2], 1);  // the loop lives on [0.2, 0.5)
  EXPECT_EQ(c.beta1[5], 0);
  EXPECT_EQ(c.beta0[10], 1);  // the infinite class is still there at 1
  EXPECT_EQ(bars_above(p.h1, 0.05), 1);
  EXPECT_EQ(bars_above(p.h1, 0.4), 0);
}

// Counts must not depend on float rounding (which differs between BLAS
// kernels): a loop that closes within 1e-6 of the largest distance after it
// opens is no bar, and bar ends within 1e-6 of a Betti grid point or of
// min_persistence count as equal to it whichever way they were rounded.
TEST(Persistence, CountsDoNotDependOnRoundingAtTheTolerance) {
  auto square = [](double side, double diagonal) {
    std::vector<double> d(16, 0.0);
    auto set = [&](int i, int j, double v) {
      d[static_cast<std::size_t>(i * 4 + j)] = d[static_cast<std::size_t>(j * 4 + i)] = v;
    };
    set(0, 1, side);
    set(1, 2, side);
    set(2, 3, side);
    set(3, 0, side);
    set(0, 2, diagonal);
    set(1, 3, diagonal);
    return d;
  };
  EXPECT_EQ(persistence_rips(square(0.2, 0.5), 4).h1.size(), 1u);
  EXPECT_EQ(persistence_rips(square(0.2, 0.2 + 1e-3), 4).h1.size(), 1u);
  EXPECT_TRUE(persistence_rips(square(0.2, 0.2 + 2.3e-10), 4).h1.empty());
  // Relative to the largest distance (here the diagonal, about 0.2): 1e-7 is
  // below 2e-7, 4e-7 above; scaled by 1000, so is the tolerance.
  EXPECT_TRUE(persistence_rips(square(0.2, 0.2 + 1e-7), 4).h1.empty());
  EXPECT_EQ(persistence_rips(square(0.2, 0.2 + 4e-7), 4).h1.size(), 1u);
  EXPECT_TRUE(persistence_rips(square(200, 200 + 1e-4), 4).h1.empty());

  // The same bar with its ends a rounding above and below 0.3 and 0.5.
  for (const double wobble : {-1e-9, 0.0, 1e-9}) {
    PersistenceDiagram p;
    PersistenceBar loop;
    loop.dimension = 1;
    loop.birth = 0.3 + wobble;
    loop.death = 0.5 - wobble;
    loop.edge = {0, 1};
    p.h1.push_back(loop);
    const BettiCurves c = betti_curves(p, 11);  // e = 0, 0.1, ..., 1
    EXPECT_EQ(c.beta1[2], 0) << wobble;
    EXPECT_EQ(c.beta1[3], 1) << wobble;  // born at 0.3
    EXPECT_EQ(c.beta1[4], 1) << wobble;
    EXPECT_EQ(c.beta1[5], 0) << wobble;                      // dead at 0.5
    EXPECT_EQ(bars_above(p.h1, 0.2 - wobble), 0) << wobble;  // persistence 0.2: not above 0.2
    EXPECT_EQ(bars_above(p.h1, 0.19), 1) << wobble;
  }
}

TEST(Persistence, StarMapMergesEverythingThroughTheSink) {
  AttentionMatrix m{std::vector<float>(36, 0.0f), 6, true};
  for (int i = 0; i < 6; ++i) m.weights[static_cast<std::size_t>(i * 6)] = 1.0f;
  const auto d = attention_distances(m.view());
  // Sink edges: 1 - 1/2 = 0.5; other pairs: 1.
  const PersistenceDiagram p = persistence_rips(d, 6);
  ASSERT_EQ(p.h0.size(), 6u);
  for (int k = 0; k < 5; ++k) {
    EXPECT_DOUBLE_EQ(p.h0[static_cast<std::size_t>(k)].death, 0.5);
    EXPECT_EQ(p.h0[static_cast<std::size_t>(k)].edge[0], 0) << "every merge goes through the sink";
  }
  EXPECT_TRUE(p.h1.empty());
}

// A long computation reports its progress (fractions rising in [0, 1]) and
// ends with AnalysisStopped once the callback answers false; answered true
// throughout, the result is the same as without a callback.
TEST(Persistence, ReportsProgressAndStopsWhenTold) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const int n = 64;
  std::vector<double> d(static_cast<std::size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      d[static_cast<std::size_t>(i) * n + j] = d[static_cast<std::size_t>(j) * n + i] = u(rng);
  std::vector<double> heard;
  const PersistenceDiagram plain = persistence_rips(d, n);
  const PersistenceDiagram watched = persistence_rips(d, n, [&](double f) {
    heard.push_back(f);
    return true;
  });
  ASSERT_FALSE(heard.empty()) << "progress is reported";
  EXPECT_TRUE(std::is_sorted(heard.begin(), heard.end()));
  EXPECT_GE(heard.front(), 0.0);
  EXPECT_LE(heard.back(), 1.0);
  ASSERT_EQ(watched.h1.size(), plain.h1.size());
  for (std::size_t k = 0; k < plain.h1.size(); ++k)
    EXPECT_EQ(watched.h1[k].death, plain.h1[k].death);
  EXPECT_THROW((void)persistence_rips(d, n, [](double) { return false; }), AnalysisStopped);

  AttentionMatrix m{std::vector<float>(static_cast<std::size_t>(n) * n, 1.0f / n), n, false};
  HeadAnalysisParams params;
  params.progress = [](double) { return false; };
  EXPECT_THROW((void)analyse_head(m.view(), {}, 0, params), AnalysisStopped);
  params.topology = false;  // nothing long to report on
  EXPECT_NO_THROW((void)analyse_head(m.view(), {}, 0, params));
}

// The cost of exact persistence depends on the map's geometry, not its size:
// a dense random map of 64 tokens needs thousands of coboundary visits, a
// sink map of 64 tokens next to none. Past the bounds the reduction stops
// with PersistenceTooLarge naming the map's size and the bound it met.
TEST(Persistence, StopsPastItsBoundsNamingThem) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const int n = 64;
  std::vector<double> random(static_cast<std::size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      random[static_cast<std::size_t>(i) * n + j] = random[static_cast<std::size_t>(j) * n + i] =
          u(rng);
  EXPECT_FALSE(persistence_rips(random, n).h1.empty());
  const auto message = [&](const PersistenceBounds& bounds) {
    try {
      (void)persistence_rips(random, n, {}, bounds);
    } catch (const PersistenceTooLarge& e) {
      return std::string(e.what());
    }
    return std::string("no PersistenceTooLarge");
  };
  const std::string visited = message({.heldEntries = 1u << 26, .work = 4096});
  EXPECT_NE(visited.find("map of 64 tokens"), std::string::npos) << visited;
  EXPECT_NE(visited.find("more than 4096 coboundary entries"), std::string::npos) << visited;
  const std::string held = message({.heldEntries = 40, .work = 1u << 29});
  EXPECT_NE(held.find("hold more than 40 entries at once"), std::string::npos) << held;

  // A sink map: every token attends mostly to token 0, a little to itself.
  AttentionMatrix sink{std::vector<float>(static_cast<std::size_t>(n) * n, 0.0f), n, true};
  for (int i = 0; i < n; ++i) {
    sink.weights[static_cast<std::size_t>(i) * n] = i == 0 ? 1.0f : 0.9f;
    if (i > 0) sink.weights[static_cast<std::size_t>(i) * n + i] = 0.1f;
  }
  const auto d = attention_distances(sink.view());
  const PersistenceDiagram tight = persistence_rips(d, n, {}, {.heldEntries = 40, .work = 4096});
  const PersistenceDiagram free = persistence_rips(d, n);
  EXPECT_EQ(ours(tight.h0), ours(free.h0));
  EXPECT_EQ(ours(tight.h1), ours(free.h1));
}

TEST(Persistence, AHeadPastItsBoundsKeepsItsOtherFamiliesWhenAsked) {
  // A dense random causal map, whose reduction goes past a small bound.
  const int n = 48;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(0.05f, 1.0f);
  AttentionMatrix a{std::vector<float>(static_cast<std::size_t>(n) * n, 0.0f), n, true};
  for (int i = 0; i < n; ++i) {
    float z = 0;
    for (int j = 0; j <= i; ++j) z += (a.weights[static_cast<std::size_t>(i) * n + j] = u(rng));
    for (int j = 0; j <= i; ++j) a.weights[static_cast<std::size_t>(i) * n + j] /= z;
  }
  std::vector<float> values(static_cast<std::size_t>(n) * 4);
  for (float& v : values) v = u(rng) - 0.5f;
  HeadAnalysisParams p;
  p.persistenceBounds = {.heldEntries = 1u << 26, .work = 2000};
  EXPECT_THROW((void)analyse_head(a.view(), values, 4, p), PersistenceTooLarge);

  p.persistenceMayBeLeftOut = true;
  const HeadAnalysis left = analyse_head(a.view(), values, 4, p);
  EXPECT_NE(left.persistenceLeftOut.find("more than 2000 coboundary entries"), std::string::npos)
      << left.persistenceLeftOut;
  EXPECT_TRUE(left.persistence.h0.empty());
  EXPECT_TRUE(left.persistence.h1.empty());
  EXPECT_TRUE(left.betti.grid.empty());
  // Everything else is as without bounds.
  const HeadAnalysis full = analyse_head(a.view(), values, 4, HeadAnalysisParams{});
  EXPECT_TRUE(full.persistenceLeftOut.empty());
  EXPECT_FALSE(full.persistence.h1.empty());
  EXPECT_EQ(left.keyImportance, full.keyImportance);
  ASSERT_EQ(left.spectra.size(), full.spectra.size());
  for (std::size_t k = 0; k < full.spectra.size(); ++k)
    EXPECT_EQ(left.spectra[k].eigenvalues, full.spectra[k].eigenvalues);
  ASSERT_TRUE(left.valueSpace && full.valueSpace);
  EXPECT_EQ(left.valueSpace->scores.f, full.valueSpace->scores.f);
}
