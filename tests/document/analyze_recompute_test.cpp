// The numbers `sinkscope-cli analyze` writes, checked against a plain
// re-implementation inside this test: the CLI runs a model
// folder, this test runs the same folder and text through the runtime and
// recomputes every checked number with straightforward loops, sharing no code
// with analysis/.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <numeric>
#include <sstream>

#include "models/cpu_runtime.h"
#include "models/loaded_model.h"

namespace fs = std::filesystem;

namespace {

// The recomputation runs the model here with the kernels sinkscope-cli runs it
// with (its main() picks OpenBLAS's core for this CPU) and on one BLAS thread
// as analyze does: 1e-9 agreement needs the same matrix products on both sides.
const std::string runtimeSetup = sinkscope::models::configure_cpu_runtime();

const char* kText = "the cat sat on the mat, and the dog slept";

// A CSV written by analyze: comment lines skipped, one map per row keyed by column.
std::vector<std::map<std::string, std::string>> read_csv(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> columns;
  std::vector<std::map<std::string, std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::stringstream ss(line);
    for (std::string f; std::getline(ss, f, ',');) fields.push_back(f);
    if (line.back() == ',') fields.emplace_back();
    if (columns.empty()) {
      columns = fields;
      continue;
    }
    std::map<std::string, std::string> row;
    for (std::size_t k = 0; k < columns.size() && k < fields.size(); ++k)
      row[columns[k]] = fields[k];
    rows.push_back(row);
  }
  return rows;
}

double number(const std::map<std::string, std::string>& row, const std::string& column) {
  return std::stod(row.at(column));
}

// One head's map as a plain T x T table.
using Map = std::vector<std::vector<double>>;

Map plain_map(const sinkscope::analysis::AttentionView& v) {
  Map m(static_cast<std::size_t>(v.size), std::vector<double>(static_cast<std::size_t>(v.size)));
  for (int i = 0; i < v.size; ++i)
    for (int j = 0; j < v.size; ++j) m[i][j] = v.at(i, j);
  return m;
}

// H0 of the Rips filtration: every finite bar dies at a minimum-spanning-tree
// edge (Prim's algorithm here), plus the one class that dies at 1.
int h0_bars_above(const Map& a, double minPersistence) {
  const std::size_t n = a.size();
  auto d = [&](std::size_t i, std::size_t j) { return 1.0 - (a[i][j] + a[j][i]) / 2.0; };
  std::vector<bool> inTree(n, false);
  std::vector<double> best(n, 1e300);
  best[0] = 0;
  int above = 1;  // the class that never merges (dies at 1)
  for (std::size_t step = 0; step < n; ++step) {
    std::size_t u = n;
    for (std::size_t k = 0; k < n; ++k)
      if (!inTree[k] && (u == n || best[k] < best[u])) u = k;
    inTree[u] = true;
    if (step > 0 && best[u] > minPersistence) ++above;
    for (std::size_t k = 0; k < n; ++k)
      if (!inTree[k]) best[k] = std::min(best[k], d(u, k));
  }
  return above;
}

}  // namespace

TEST(AnalyzeRecompute, CsvNumbersMatchAPlainRecomputation) {
  const fs::path dir =
      fs::temp_directory_path() / ("sinkscope-analyze-recompute-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string model = (dir / "model").string(), out = (dir / "out").string();
  ASSERT_EQ(std::system(("'" + std::string(SINKSCOPE_CLI) + "' random-model llama '" + model +
                         "' > /dev/null")
                            .c_str()),
            0);
  ASSERT_EQ(std::system(("'" + std::string(SINKSCOPE_CLI) + "' analyze '" + model + "' --text '" +
                         kText + "' --out '" + out + "' --top-n 4 --thresholds 0.05 > /dev/null")
                            .c_str()),
            0);

  const auto loaded = sinkscope::models::loaded_model_open(model);
  // On one BLAS thread, as analyze runs its passes.
  const auto run = [&] {
    const sinkscope::models::SingleThreadedBlas exactProducts;
    return sinkscope::models::loaded_model_run(loaded, kText);
  }();
  const int T = run.trace.tokens();
  ASSERT_GT(T, 6);

  const auto summary = read_csv(fs::path(out) / "sink_summary.csv");
  const auto diagnostics = read_csv(fs::path(out) / "diagnostics.csv");
  const auto spectra = read_csv(fs::path(out) / "spectra.csv");
  const auto persistenceSummary = read_csv(fs::path(out) / "persistence_summary.csv");
  const auto taxonomy = read_csv(fs::path(out) / "taxonomy.csv");
  const auto valueSpace = read_csv(fs::path(out) / "value_space.csv");
  auto find = [](const auto& rows, const std::string& layer, const std::string& head,
                 const std::function<bool(const std::map<std::string, std::string>&)>& extra =
                     nullptr) {
    for (const auto& r : rows)
      if (r.at("layer") == layer && r.at("head") == head && (!extra || extra(r))) return r;
    ADD_FAILURE() << "no row for layer " << layer << " head " << head;
    return std::map<std::string, std::string>{};
  };

  int checkedHeads = 0;
  for (int l = 0; l < run.trace.layers(); ++l) {
    const auto cap = run.trace.layer(l);
    for (int h = 0; h < cap.heads; ++h) {
      const Map a = plain_map(cap.attentionOf(h));
      const std::string L = std::to_string(l), H = std::to_string(h);
      SCOPED_TRACE("layer " + L + " head " + H);

      // s. 1: mean attention to key 0 over the queries that see it (all of them).
      double alpha0 = 0;
      for (int i = 0; i < T; ++i) alpha0 += a[i][0];
      alpha0 /= T;
      EXPECT_NEAR(number(find(summary, L, H), "alpha0"), alpha0, 1e-9);

      // s. 1: entropy of the last query's row.
      double entropy = 0;
      for (int j = 0; j < T; ++j)
        if (a[T - 1][j] > 0) entropy -= a[T - 1][j] * std::log(a[T - 1][j]);
      EXPECT_NEAR(
          number(find(diagnostics, L, H,
                      [&](const auto& r) { return r.at("query") == std::to_string(T - 1); }),
                 "entropy"),
          entropy, 1e-9);

      // s. 3: in-degree centralisation and density of the graph A >= 0.05.
      std::vector<int> in(static_cast<std::size_t>(T), 0);
      int edges = 0;
      for (int i = 0; i < T; ++i)
        for (int j = 0; j < T; ++j)
          if (i != j && a[i][j] >= 0.05) {
            ++in[j];
            ++edges;
          }
      const int dMax = *std::max_element(in.begin(), in.end());
      double central = 0;
      for (int d : in) central += dMax - d;
      central /= static_cast<double>(T - 1) * (T - 1);
      const auto spectrum = find(spectra, L, H);
      EXPECT_NEAR(number(spectrum, "centralisation"), central, 1e-12);
      EXPECT_NEAR(number(spectrum, "density"), static_cast<double>(edges) / (T * (T - 1)), 1e-12);
      // s. 2: H0 bars above the minimum persistence, from a minimum spanning tree.
      EXPECT_EQ(number(find(persistenceSummary, L, H), "bars_h0_above_min"), h0_bars_above(a, 0.05));

      // s. 7: winners argmax_j A[i][j] ||v_j|| per query i >= 1.
      const auto values = cap.valuesOf(h);
      const int dim = cap.head_dim;
      auto vnorm = [&](int j) {
        double s = 0;
        for (int c = 0; c < dim; ++c)
          s += static_cast<double>(values[j * dim + c]) * values[j * dim + c];
        return std::sqrt(s);
      };
      int sink = 0, current = 0, other = 0;
      for (int i = 1; i < T; ++i) {
        int best = 0;
        for (int j = 1; j <= i; ++j)
          if (a[i][j] * vnorm(j) > a[i][best] * vnorm(best)) best = j;
        (best == 0 ? sink : best == i ? current : other)++;
      }
      const auto tax = find(taxonomy, L, H);
      EXPECT_EQ(number(tax, "sink_votes"), sink);
      EXPECT_EQ(number(tax, "current_votes"), current);
      EXPECT_EQ(number(tax, "other_votes"), other);

      // s. 6: F_N at the last query, N = 4, by brute force over the contributions.
      const int N = 4, q = T - 1;
      std::vector<int> order(static_cast<std::size_t>(T));
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int x, int z) { return a[q][x] > a[q][z]; });
      std::vector<bool> selected(static_cast<std::size_t>(T), false);
      for (int k = 0; k < N; ++k) selected[order[k]] = true;
      std::vector<double> s(static_cast<std::size_t>(dim), 0.0);
      for (int j = 0; j < T; ++j)
        if (selected[j])
          for (int c = 0; c < dim; ++c) s[c] += a[q][j] * values[j * dim + c];
      std::vector<double> D(static_cast<std::size_t>(T), 0.0);
      for (int j = 0; j < T; ++j)
        for (int c = 0; c < dim; ++c) {
          const double e = a[q][j] * values[j * dim + c] - s[c];
          D[j] += e * e;
        }
      double rMax2 = 0, rMin2 = 1e300;
      for (int j = 0; j < T; ++j)
        (selected[j] ? rMax2 = std::max(rMax2, D[j]) : rMin2 = std::min(rMin2, D[j]));
      int inBall = 0, selectedInBall = 0, selectedInOpen = 0, inversions = 0;
      for (int j = 0; j < T; ++j) {
        if (D[j] <= rMax2) ++inBall, selectedInBall += selected[j];
        if (selected[j] && D[j] < rMin2) ++selectedInOpen;
        if (selected[j])
          for (int k = 0; k < T; ++k) inversions += (!selected[k] && D[k] <= D[j]) ? 1 : 0;
      }
      const double P = static_cast<double>(selectedInBall) / inBall,
                   R = static_cast<double>(selectedInOpen) / N;
      const double F = P + R > 0 ? 2 * P * R / (P + R) : 0.0;
      const auto vs = find(valueSpace, L, H);
      EXPECT_NEAR(number(vs, "precision"), P, 1e-12);
      EXPECT_NEAR(number(vs, "recall"), R, 1e-12);
      EXPECT_NEAR(number(vs, "f"), F, 1e-12);
      EXPECT_EQ(number(vs, "inversions"), inversions);
      EXPECT_GE(number(vs, "k_sink"), inversions);
      ++checkedHeads;
    }
  }
  EXPECT_EQ(checkedHeads, run.trace.layers() * run.trace.layer(0).heads);

  // layer_summary.csv: means over the heads of the per-head tables.
  const auto layerSummary = read_csv(fs::path(out) / "layer_summary.csv");
  auto scopeRow = [&](const std::string& scope) {
    for (const auto& r : layerSummary)
      if (r.at("scope") == scope) return r;
    ADD_FAILURE() << "no layer_summary row " << scope;
    return std::map<std::string, std::string>{};
  };
  double alphaSum = 0, boost3 = 0, mixers = 0, heads = 0, bars0 = 0;
  for (int l = 0; l < run.trace.layers(); ++l) {
    double layerAlpha = 0, layerHeads = 0;
    for (int h = 0; h < run.trace.layer(0).heads; ++h) {
      const std::string L = std::to_string(l), H = std::to_string(h);
      const double alpha0 = number(find(summary, L, H), "alpha0");
      layerAlpha += alpha0;
      ++layerHeads;
      alphaSum += alpha0;
      boost3 += number(find(summary, L, H), "boost0") >= 3.0 ? 1 : 0;
      mixers += find(taxonomy, L, H).at("label") == "Mixer" ? 1 : 0;
      bars0 += number(find(persistenceSummary, L, H), "bars_h0");
      ++heads;
    }
    EXPECT_NEAR(number(scopeRow(std::to_string(l)), "mean_alpha0"), layerAlpha / layerHeads, 1e-12);
  }
  const auto modelRow = scopeRow("model");
  EXPECT_NEAR(number(modelRow, "mean_alpha0"), alphaSum / heads, 1e-12);
  EXPECT_NEAR(number(modelRow, "share_boost0_at_least_3"), boost3 / heads, 1e-12);
  EXPECT_NEAR(number(modelRow, "mixer_share"), mixers / heads, 1e-12);
  EXPECT_NEAR(number(modelRow, "mean_bars_h0"), bars0 / heads, 1e-12);
  EXPECT_NEAR(number(modelRow, "retriever_share") + number(modelRow, "mixer_share") +
                  number(modelRow, "reset_share"),
              1.0, 1e-12);
  fs::remove_all(dir);
}
