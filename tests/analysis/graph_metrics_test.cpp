// Head diagnostics and graph spectra (metrics.md s. 1 and 3) on maps whose
// answers are known in closed form.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/attention_matrix.h"
#include "analysis/graph_spectrum.h"
#include "analysis/head_diagnostics.h"
#include "analysis/ties.h"

using namespace sinkscope::analysis;

namespace {
AttentionMatrix star_on_first_key(int T) {
  AttentionMatrix m{std::vector<float>(static_cast<std::size_t>(T * T), 0.0f), T, true};
  for (int i = 0; i < T; ++i) m.weights[static_cast<std::size_t>(i * T)] = 1.0f;
  return m;
}
}  // namespace

TEST(HeadDiagnostics, UniformRowHasLogEntropy) {
  const AttentionMatrix u = attention_uniform(8, true);
  const HeadDiagnostics d = head_diagnostics_at(u.view(), -1, 3);
  EXPECT_NEAR(d.entropy, std::log(8.0), 1e-6);
  EXPECT_NEAR(d.top1, 0.125, 1e-7);
  EXPECT_NEAR(d.sinkAttention, 0.125, 1e-7);
  EXPECT_NEAR(d.currentToken, 0.125, 1e-7);
  EXPECT_NEAR(d.topNMass, 0.375, 1e-6);
  // Mean over queries 1..7 of ln(i + 1).
  double expected = 0;
  for (int i = 1; i < 8; ++i) expected += std::log(i + 1.0);
  EXPECT_NEAR(head_diagnostics_mean(u.view(), 1).entropy, expected / 7, 1e-6);
}

TEST(HeadDiagnostics, StarIsAllSink) {
  const HeadDiagnostics d = head_diagnostics_mean(star_on_first_key(6).view(), 2);
  EXPECT_DOUBLE_EQ(d.entropy, 0.0);
  EXPECT_DOUBLE_EQ(d.sinkAttention, 1.0);
  EXPECT_DOUBLE_EQ(d.currentToken, 0.0);
  EXPECT_DOUBLE_EQ(d.top1, 1.0);
  EXPECT_DOUBLE_EQ(d.topNMass, 1.0);
}

TEST(GraphSpectrum, StarHasTheStarSpectrum) {
  // B: every query i >= 1 points at 0; W has weight 1/2 on the star's edges.
  // A weighted star K_{1,n-1} with weight w: eigenvalues 0, w (n-2 times), w n.
  const int n = 7;
  const GraphSpectrum g = graph_spectrum(star_on_first_key(n).view(), {0.5, false});
  ASSERT_EQ(g.eigenvalues.size(), 7u);
  EXPECT_NEAR(g.eigenvalues[0], 0.0, 1e-9);
  for (int k = 1; k < n - 1; ++k)
    EXPECT_NEAR(g.eigenvalues[static_cast<std::size_t>(k)], 0.5, 1e-9);
  EXPECT_NEAR(g.eigenvalues[6], 0.5 * n, 1e-9);
  EXPECT_NEAR(g.fiedlerValue, 0.5, 1e-9);
  EXPECT_DOUBLE_EQ(g.centralisation, 1.0);
  EXPECT_DOUBLE_EQ(g.starLikeness, 1.0);
  EXPECT_NEAR(g.density, 6.0 / 42.0, 1e-12);
  EXPECT_TRUE(g.connected);
  EXPECT_TRUE(g.effective);
  EXPECT_EQ(g.inDegrees[0], 6);
}

TEST(GraphSpectrum, UniformCausalMapIsACompleteGraph) {
  // Every pair connected once (j < i), W = 1/2 everywhere: eigenvalues 0 and n/2 (n-1 times).
  const int n = 6;
  const GraphSpectrum g = graph_spectrum(attention_uniform(n, true).view(), {0.01, false});
  EXPECT_NEAR(g.eigenvalues[0], 0.0, 1e-9);
  for (int k = 1; k < n; ++k)
    EXPECT_NEAR(g.eigenvalues[static_cast<std::size_t>(k)], n / 2.0, 1e-9);
  // In-degrees n-1-j; centralisation sum_j j / (n-1)^2 = (n-1) n / 2 / (n-1)^2.
  EXPECT_NEAR(g.centralisation, n / (2.0 * (n - 1)), 1e-12);
  EXPECT_NEAR(g.density, 0.5, 1e-12);
  // Normalised Laplacian of a complete graph: 0 and n/(n-1).
  const GraphSpectrum nl = graph_spectrum(attention_uniform(n, true).view(), {0.01, true});
  EXPECT_NEAR(nl.eigenvalues[0], 0.0, 1e-9);
  EXPECT_NEAR(nl.eigenvalues[5], n / (n - 1.0), 1e-9);
}

// A weight equal to theta as a real number is an edge whichever way float32
// rounded it: 1/100 in float32 is 0.0099999998 < 0.01, yet a uniform encoder
// row of 100 keys at theta = 0.01 is a complete graph.
TEST(GraphSpectrum, AWeightEqualToTheThresholdIsAnEdgeWhateverItsRounding) {
  const int n = 100;
  const AttentionMatrix u = attention_uniform(n, false);
  ASSERT_LT(static_cast<double>(u.weights[0]), 0.01);
  const GraphSpectrum g = graph_spectrum(u.view(), {0.01, false});
  EXPECT_EQ(g.inDegrees[0], n - 1);
  EXPECT_DOUBLE_EQ(g.density, 1.0);
  EXPECT_NEAR(g.eigenvalues[1], n, 1e-9);  // complete graph, W = 1 on every pair
  EXPECT_TRUE(reaches_threshold(0.01f, 0.01));
  EXPECT_TRUE(reaches_threshold(0.01 * (1 - 0.5e-6), 0.01));
  EXPECT_FALSE(reaches_threshold(0.01 * (1 - 2e-6), 0.01));
  EXPECT_FALSE(reaches_threshold(0.0099f, 0.01));
}

TEST(GraphSpectrum, DisconnectedAboveAHighThreshold) {
  const GraphSpectrum g = graph_spectrum(attention_uniform(6, true).view(), {0.6, false});
  EXPECT_EQ(g.components, 6);
  EXPECT_FALSE(g.connected);
  EXPECT_NEAR(g.fiedlerValue, 0.0, 1e-12);
  EXPECT_FALSE(g.effective);
}

TEST(GraphStatistics, GiniAndPearson) {
  EXPECT_DOUBLE_EQ(gini({1, 1, 1, 1}), 0.0);
  EXPECT_NEAR(gini({0, 0, 0, 4}), 0.75, 1e-12);
  EXPECT_NEAR(pearson({1, 2, 3}, {2, 4, 6}), 1.0, 1e-12);
  EXPECT_NEAR(pearson({1, 2, 3}, {3, 2, 1}), -1.0, 1e-12);
  // metrics.md s. 3: a correlation over a constant series is undefined (NaN,
  // written empty), never 0 (every Fiedler value 0 at a high threshold).
  EXPECT_TRUE(std::isnan(pearson({1, 1, 1}, {1, 2, 3})));
  EXPECT_TRUE(std::isnan(pearson({0, 0, 0, 0}, {0.2, 0.1, 0.3, 0.0})));
  EXPECT_TRUE(std::isnan(pearson({1}, {2})));
}

#include <unistd.h>

#include <Eigen/Dense>
#include <filesystem>
#include <fstream>
#include <random>

#include "analysis/taxonomy.h"
#include "analysis/weight_spectrum.h"

TEST(Taxonomy, WinnersWeighAttentionByValueNorm) {
  // T = 4, head_dim 1. Values: ||v_0|| = 0.1, others 1.
  const std::vector<float> values{0.1f, 1.0f, 1.0f, 1.0f};
  // A star: the sink gets 1 but its tiny value loses to nothing else (others 0) -> sink wins.
  AttentionMatrix s{std::vector<float>(16, 0.0f), 4, true};
  for (int i = 0; i < 4; ++i) s.weights[static_cast<std::size_t>(i * 4)] = 1.0f;
  auto v = taxonomy_votes(s.view(), values, 1);
  EXPECT_EQ(v.sink, 3);
  EXPECT_EQ(taxonomy_label(v), HeadClass::Mixer);
  // 0.6 on the sink, 0.4 on the current token: 0.06 < 0.4, the current token wins.
  AttentionMatrix r{std::vector<float>(16, 0.0f), 4, true};
  for (int i = 0; i < 4; ++i) {
    r.weights[static_cast<std::size_t>(i * 4)] = i == 0 ? 1.0f : 0.6f;
    if (i > 0) r.weights[static_cast<std::size_t>(i * 4 + i)] = 0.4f;
  }
  v = taxonomy_votes(r.view(), values, 1);
  EXPECT_EQ(v.current, 3);
  EXPECT_EQ(taxonomy_label(v), HeadClass::Retriever);
  EXPECT_STREQ(head_class_name(taxonomy_label(v)), "Retriever");
  // A tie between sink and current votes is a Reset.
  EXPECT_EQ(taxonomy_label({2, 2, 0}), HeadClass::Reset);
  EXPECT_EQ(taxonomy_label({0, 0, 5}), HeadClass::Reset);
}

// metrics.md s. 7: scores equal as real numbers tie whatever float rounding
// did to them; the lower index wins. Beyond the tolerance the larger wins.
TEST(Taxonomy, TiesWithinTheToleranceGoToTheLowerIndex) {
  const std::vector<float> values{1.0f, 1.0f, 1.0f};
  auto votes = [&](float toOne, float toTwo) {
    AttentionMatrix m{std::vector<float>(9, 0.0f), 3, true};
    m.weights[0] = 1.0f;
    m.weights[3] = 0.5f, m.weights[4] = 0.5f;  // query 1: sink and itself tie exactly
    m.weights[6] = 1.0f - toOne - toTwo, m.weights[7] = toOne, m.weights[8] = toTwo;
    return taxonomy_votes(m.view(), values, 1);
  };
  // Query 2: keys 1 and 2 hold 0.4 each, key 2 one float step above (rounding).
  const float step = std::nextafter(0.4f, 1.0f);
  TaxonomyVotes v = votes(0.4f, step);
  EXPECT_EQ(v.sink, 1) << "query 1: the exact tie goes to the sink (index 0)";
  EXPECT_EQ(v.other, 1) << "query 2: key 1 wins the rounding tie against the current token";
  EXPECT_EQ(v.current, 0);
  v = votes(0.3f, 0.45f);
  EXPECT_EQ(v.current, 1) << "a real difference still decides";
}

// metrics.md s. 7: in an encoder every key competes, later ones included
// (the old reading stopped at j <= i and called query 1 a sink vote here).
TEST(Taxonomy, EncoderQueriesWeighEveryKey) {
  const std::vector<float> values{1.0f, 1.0f, 1.0f};
  const AttentionMatrix enc{{0.4f, 0.3f, 0.3f,  //
                             0.3f, 0.2f, 0.5f,  // query 1: key 2 (later) wins -> other
                             0.1f, 0.1f, 0.8f},
                            3,
                            false};
  const TaxonomyVotes v = taxonomy_votes(enc.view(), values, 1);
  EXPECT_EQ(v.sink, 0);
  EXPECT_EQ(v.other, 1);
  EXPECT_EQ(v.current, 1);
  // The same weights read causally (keys after the query masked) vote as before.
  const AttentionMatrix dec{{1.0f, 0, 0, 0.6f, 0.4f, 0, 0.1f, 0.1f, 0.8f}, 3, true};
  const TaxonomyVotes c = taxonomy_votes(dec.view(), values, 1);
  EXPECT_EQ(c.sink, 1);
  EXPECT_EQ(c.current, 1);
}

TEST(WeightSpectrum, RandomMatrixStaysInsideTheMarchenkoPasturBulk) {
  std::mt19937 rng(3);
  std::normal_distribution<float> g(0.0f, 0.5f);
  const int m = 400, n = 100;
  std::vector<float> w(static_cast<std::size_t>(m * n));
  for (auto& x : w) x = g(rng);
  WeightSpectrum s = weight_spectrum(w, m, n);
  EXPECT_NEAR(s.sigma2, 0.25, 0.01);
  EXPECT_NEAR(s.ratio, 0.25, 1e-12);
  EXPECT_NEAR(s.upperEdge, 0.25 * 2.25, 0.03);
  EXPECT_LE(s.outliers, 2) << "a Gaussian matrix has (almost) no eigenvalue beyond the edge";
  // A planted rank-one spike leaves the bulk.
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < n; ++c)
      w[static_cast<std::size_t>(r * n + c)] += 1.5f * (c == 0 ? 1.0f : 0.0f);
  s = weight_spectrum(w, m, n);
  EXPECT_GE(s.outliers, 1);
  // The density integrates to 1 over the bulk.
  double integral = 0;
  const double lo = 0.25 * 0.25, hi = 0.25 * 2.25, step = (hi - lo) / 20000;
  for (double x = lo; x < hi; x += step)
    integral += marchenko_pastur_density(x + step / 2, 0.25, 0.25) * step;
  EXPECT_NEAR(integral, 1.0, 1e-3);
  // A wide matrix is transposed first.
  EXPECT_EQ(weight_spectrum(std::vector<float>(6, 1.0f), 2, 3).rows, 3);
}

TEST(WeightSpectrum, EqualsADoublePrecisionReference) {
  // LAPACK in float against Eigen's self-adjoint solver in double on W^T W / m
  // (a tall and a wide matrix, a planted spike): the same eigenvalues to
  // single precision relative to the largest.
  std::mt19937 rng(21);
  std::normal_distribution<float> g(0.0f, 0.3f);
  for (auto [m, n] : {std::pair{300, 120}, std::pair{90, 250}}) {
    std::vector<float> w(static_cast<std::size_t>(m * n));
    for (auto& x : w) x = g(rng);
    for (int c = 0; c < n; ++c) w[static_cast<std::size_t>(c)] += 3.0f;  // a spike in row 0
    Eigen::MatrixXd W(m, n);
    for (int r = 0; r < m; ++r)
      for (int c = 0; c < n; ++c) W(r, c) = w[static_cast<std::size_t>(r * n + c)];
    if (m < n) W.transposeInPlace();
    const Eigen::MatrixXd gram = W.transpose() * W / static_cast<double>(W.rows());
    const Eigen::VectorXd ref =
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(gram, Eigen::EigenvaluesOnly).eigenvalues();
    const WeightSpectrum s = weight_spectrum(w, m, n);
    ASSERT_EQ(s.eigenvalues.size(), static_cast<std::size_t>(ref.size()));
    EXPECT_EQ(s.rows, std::max(m, n));
    EXPECT_EQ(s.cols, std::min(m, n));
    for (Eigen::Index k = 0; k < ref.size(); ++k)
      EXPECT_NEAR(s.eigenvalues[static_cast<std::size_t>(k)], std::max(0.0, ref(k)),
                  2e-5 * ref(ref.size() - 1))
          << "eigenvalue " << k << " of " << m << " x " << n;
    EXPECT_GE(s.outliers, 1);
  }
}

#include "analysis/frames.h"

// metrics.md s. 1: ties between token strings go to the token whose first
// sink occurrence has the lower position, never to the alphabetical order
// (where "." sorts before "<s>").
TEST(ReferenceFrames, SpecialisationTiesGoToTheEarliestPosition) {
  const HeadSpecialisation h =
      head_specialisation({{{".", 9}}, {{"<s>", 0}}, {{".", 7}, {"<s>", 0}}, {}});
  EXPECT_EQ(h.topToken, "<s>");
  const HeadSpecialisation later = head_specialisation({{{"a", 5}}, {{"b", 2}}});
  EXPECT_EQ(later.topToken, "b") << "b first sinks at position 2, a at 5";
  const HeadSpecialisation more = head_specialisation({{{".", 9}}, {{".", 9}}, {{"<s>", 0}}});
  EXPECT_EQ(more.topToken, ".") << "a plain majority still wins";
  // Equal counts and equal first positions: the token of the earlier sample,
  // then the lower position in it; never string order.
  const HeadSpecialisation sample = head_specialisation({{{"zeta", 3}}, {{"alpha", 3}}});
  EXPECT_EQ(sample.topToken, "zeta") << "zeta sinks in the first sample";
  const HeadSpecialisation inFirst =
      head_specialisation({{{"zeta", 4}, {"alpha", 6}}, {{"alpha", 4}, {"zeta", 6}}});
  EXPECT_EQ(inFirst.topToken, "zeta") << "both in sample 0, zeta at the lower position";
  const HeadSpecialisation swapped =
      head_specialisation({{{"alpha", 4}, {"zeta", 6}}, {{"zeta", 4}, {"alpha", 6}}});
  EXPECT_EQ(swapped.topToken, "alpha");
}

TEST(ReferenceFrames, TheOtherShareIsCountedSoZeroIsZero) {
  // Ten specialised heads split 0.7 / 0.2 / 0.1 between [CLS], [SEP] and ",":
  // 1 - 0.7 - 0.2 is 0.10000000000000003 in floating point, and with no
  // other token it would be 5.55e-17, not 0.
  std::vector<HeadSpecialisation> heads(10);
  for (auto& h : heads) {
    h.specialised = true;
    h.topToken = "[CLS]";
  }
  heads[0].topToken = heads[1].topToken = "[SEP]";
  heads[2].topToken = ",";
  FrameEvidence e = reference_frame(heads, "[CLS]", "[SEP]", true);
  EXPECT_EQ(e.otherShare, 0.1);
  heads[2].topToken = "[SEP]";
  for (int k = 3; k < 10; ++k)
    heads[static_cast<std::size_t>(k)].topToken = k < 6 ? "[SEP]" : "[CLS]";
  e = reference_frame(heads, "[CLS]", "[SEP]", true);
  EXPECT_EQ(e.otherShare, 0.0);
  EXPECT_EQ(e.firstTokenShare + e.lastTokenShare, 1.0);
}

TEST(ReferenceFrames, SpecialisationAndTheRule) {
  // A head with a sink in 4 of 5 samples, mostly on <s>.
  const SinkOccurrence bos{"<s>", 0}, comma{",", 4};
  const HeadSpecialisation a = head_specialisation({{bos}, {bos, comma}, {bos}, {}, {comma}});
  EXPECT_TRUE(a.specialised);
  EXPECT_DOUBLE_EQ(a.sampleShare, 0.8);
  EXPECT_EQ(a.topToken, "<s>");
  const HeadSpecialisation rare = head_specialisation({{{".", 3}}, {}, {}, {}, {}});
  EXPECT_FALSE(rare.specialised);

  std::vector<HeadSpecialisation> heads(10, a);
  EXPECT_EQ(reference_frame(heads, "<s>", "</s>", false).frame, ReferenceFrame::Centralised);
  heads[0].topToken = heads[1].topToken = ",";  // 80% on <s>
  FrameEvidence e = reference_frame(heads, "<s>", "</s>", false);
  EXPECT_EQ(e.frame, ReferenceFrame::Distributed);
  EXPECT_DOUBLE_EQ(e.firstTokenShare, 0.8);
  EXPECT_DOUBLE_EQ(e.tokenShares.at(","), 0.2);
  // An encoder whose specialised heads split between [CLS] and [SEP].
  std::vector<HeadSpecialisation> enc(4, a);
  for (auto& h : enc) h.topToken = "[CLS]";
  enc[2].topToken = enc[3].topToken = "[SEP]";
  e = reference_frame(enc, "[CLS]", "[SEP]", true);
  EXPECT_EQ(e.frame, ReferenceFrame::Bidirectional);
  EXPECT_STREQ(reference_frame_name(e.frame), "bidirectional");
  EXPECT_EQ(reference_frame(enc, "[CLS]", "[SEP]", false).frame, ReferenceFrame::Distributed)
      << "decoders are never bidirectional";
}

#include "analysis/graph_layout.h"

TEST(GraphLayout, ForceLayoutOfAStarPutsTheHubInTheMiddleAndIsSeeded) {
  // Every token attends only to token 0 (and itself): a star into the sink.
  const int T = 9;
  AttentionMatrix m{std::vector<float>(T * T, 0.0f), T, true};
  m.weights[0] = 1.0f;
  for (int i = 1; i < T; ++i)
    m.weights[static_cast<std::size_t>(i * T)] = m.weights[static_cast<std::size_t>(i * T + i)] =
        0.5f;
  const auto a = graph_layout_force(m.view(), {0.1, 200, 3});
  ASSERT_EQ(a.size(), static_cast<std::size_t>(T));
  double hub = std::hypot(a[0][0], a[0][1]), leaves = 0;
  for (int k = 1; k < T; ++k) {
    EXPECT_LE(std::abs(a[static_cast<std::size_t>(k)][0]), 1.0 + 1e-9);
    EXPECT_LE(std::abs(a[static_cast<std::size_t>(k)][1]), 1.0 + 1e-9);
    leaves +=
        std::hypot(a[static_cast<std::size_t>(k)][0], a[static_cast<std::size_t>(k)][1]) / (T - 1);
  }
  EXPECT_LT(hub, 0.5 * leaves) << "the sink sits at the centre of its star";
  EXPECT_EQ(graph_layout_force(m.view(), {0.1, 200, 3}), a) << "the same seed, the same figure";
}

// A long input's diffuse head: few weights reach the threshold, so most
// tokens have no edge. Free tokens must not be pushed onto the layout's
// border (Fruchterman-Reingold in a bounded square parks them on its edges):
// every token is also pulled to the key it attends to most.
TEST(GraphLayout, ALongDiffuseHeadDoesNotCollapseOntoTheBorder) {
  const int T = 415;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(0.5f, 1.5f);
  AttentionMatrix m{std::vector<float>(static_cast<std::size_t>(T) * T, 0.0f), T, true};
  for (int i = 0; i < T; ++i) {
    float sum = 0;
    for (int j = 0; j <= i; ++j)
      sum += m.weights[static_cast<std::size_t>(i) * T + j] = (j == 0 ? 3.0f : u(rng));
    for (int j = 0; j <= i; ++j) m.weights[static_cast<std::size_t>(i) * T + j] /= sum;
  }
  const auto a = graph_layout_force(m.view(), {0.05, 100, 1});
  int onBorder = 0;
  for (const auto& p : a)
    if (std::max(std::abs(p[0]), std::abs(p[1])) > 0.97) ++onBorder;
  EXPECT_LT(onBorder, T / 10) << onBorder << " of " << T << " tokens on the border";
  // The sink every token attends to most sits inside, not on the edge.
  EXPECT_LT(std::max(std::abs(a[0][0]), std::abs(a[0][1])), 0.5);
}

TEST(GraphSpectrum, LongInputsEigenvaluesEqualTheEigenvectorPath) {
  // The eigenvalues-only path (what summaries over every head compute) and
  // the path with eigenvectors: the same spectrum, both Laplacians.
  std::mt19937 rng(8);
  std::exponential_distribution<float> e(1.0f);
  const int T = 300;
  AttentionMatrix a{std::vector<float>(static_cast<std::size_t>(T * T), 0.0f), T, true};
  for (int i = 0; i < T; ++i) {
    float z = 0;
    for (int j = 0; j <= i; ++j)
      z += (a.weights[static_cast<std::size_t>(i * T + j)] =
                std::pow(e(rng), 3.0f) + (j == 0 ? 5.0f : 0.0f));
    for (int j = 0; j <= i; ++j) a.weights[static_cast<std::size_t>(i * T + j)] /= z;
  }
  for (bool normalised : {false, true})
    for (double t : {0.01, 0.05, 0.1, 0.2}) {
      const GraphSpectrum fast = graph_spectrum(a.view(), {t, normalised, false});
      const GraphSpectrum ref = graph_spectrum(a.view(), {t, normalised, true});
      ASSERT_EQ(fast.eigenvalues.size(), ref.eigenvalues.size());
      for (std::size_t k = 0; k < ref.eigenvalues.size(); ++k)
        ASSERT_NEAR(fast.eigenvalues[k], ref.eigenvalues[k], 1e-9 * (1.0 + ref.eigenvalues.back()))
            << "eigenvalue " << k << ", threshold " << t << (normalised ? ", normalised" : "");
      EXPECT_NEAR(fast.fiedlerValue, ref.fiedlerValue, 1e-9);
      EXPECT_GT(ref.eigenvalues.back(), 0.0);
    }
}

TEST(GraphSpectrum, TwinReductionEqualsTheDenseSpectrum) {
  // The eigenvalues-only path folds interchangeable tokens (identical rows of
  // W: star leaves, isolated tokens) and splits components; the eigenvector
  // path solves the whole dense Laplacian. Graphs made to have many twins,
  // several components and isolated tokens, and graphs with none of them.
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (int trial = 0; trial < 40; ++trial) {
    const int T = 5 + trial * 3;
    AttentionMatrix a{std::vector<float>(static_cast<std::size_t>(T * T), 0.0f), T, true};
    const int hubs = 1 + trial % 4;  // queries attend mostly to one of a few hubs
    for (int i = 0; i < T; ++i) {
      float z = 0;
      for (int j = 0; j <= i; ++j) {
        float w = trial % 5 == 4 ? u(rng) : 0.001f * u(rng);  // every fifth: no structure
        if (j < hubs && (i % hubs) == j) w += 1.0f;
        if (trial % 3 == 0 && i > T / 2 && j == i) w += 3.0f;  // isolated tail tokens
        z += (a.weights[static_cast<std::size_t>(i * T + j)] = w);
      }
      for (int j = 0; j <= i; ++j) a.weights[static_cast<std::size_t>(i * T + j)] /= z;
    }
    for (double t : {0.01, 0.05, 0.1, 0.2, 0.6}) {
      const GraphSpectrumPair pair = graph_spectrum_pair(a.view(), t, false);
      for (bool normalised : {false, true}) {
        const GraphSpectrum& fast = normalised ? pair.normalised : pair.combinatorial;
        const GraphSpectrum ref = graph_spectrum(a.view(), {t, normalised, true});
        const GraphSpectrum single = graph_spectrum(a.view(), {t, normalised, false});
        ASSERT_EQ(fast.eigenvalues.size(), static_cast<std::size_t>(T));
        ASSERT_EQ(single.eigenvalues, fast.eigenvalues);
        for (std::size_t k = 0; k < ref.eigenvalues.size(); ++k)
          ASSERT_NEAR(fast.eigenvalues[k], ref.eigenvalues[k],
                      1e-9 * (1.0 + ref.eigenvalues.back()))
              << "T " << T << ", eigenvalue " << k << ", threshold " << t
              << (normalised ? ", normalised" : "");
        EXPECT_EQ(fast.components, ref.components);
        EXPECT_EQ(fast.inDegrees, ref.inDegrees);
        EXPECT_EQ(fast.density, ref.density);
        EXPECT_EQ(fast.effective, ref.effective);
        // Zero eigenvalues: one per component (isolated tokens included).
        const auto zeros = std::count(fast.eigenvalues.begin(), fast.eigenvalues.end(), 0.0);
        EXPECT_EQ(zeros, ref.components) << "T " << T << ", threshold " << t;
      }
    }
  }
}

// A sink taking most of the attention with a short value: the reason the
// taxonomy's A[i][j] * ||v_j|| vote goes elsewhere, in closed form.
TEST(Taxonomy, TheSinksVoteReasonIsItsAttentionAndItsValuesLength) {
  // T = 4, causal: queries 1..3 give 0.8, 0.7, 0.6 to token 0.
  const int T = 4;
  AttentionMatrix m{std::vector<float>(T * T, 0.0f), T, true};
  m.weights[0] = 1.0f;
  const float sink[] = {0.8f, 0.7f, 0.6f};
  for (int i = 1; i < T; ++i) {
    m.weights[static_cast<std::size_t>(i * T)] = sink[i - 1];
    for (int j = 1; j <= i; ++j)
      m.weights[static_cast<std::size_t>(i * T + j)] = (1.0f - sink[i - 1]) / i;
  }
  // Values of length 0.1 (the sink), 1, 2, 4: the median of the others is 2.
  const std::vector<float> values{0.1f, 0.0f, 0.0f, 1.0f, 2.0f, 0.0f, 0.0f, 4.0f};
  const SinkVoteReason r = sink_vote_reason(m.view(), values, 2);
  EXPECT_NEAR(r.sinkAttention, (0.8 + 0.7 + 0.6) / 3, 1e-6);
  EXPECT_NEAR(r.sinkValueRatio, 0.1 / 2.0, 1e-6);
  // And the vote agrees: the sink's 0.8 * 0.1 loses to the others, no sink winner.
  EXPECT_EQ(taxonomy_votes(m.view(), values, 2).sink, 0);
  EXPECT_THROW(sink_vote_reason(m.view(), std::vector<float>(3, 1.0f), 2), std::invalid_argument);
}
