// Figure sets: `sinkscope-cli figure-set` pools the seed
// papers' figure kinds over a sentence file. For one sentence every pooled
// curve must equal the mean over heads of the per-head tables `analyze --text`
// writes (another code path: the single-sentence report), and pooling over
// sentences of different lengths counts each position's sentences.
#include <gtest/gtest.h>

#include <QTemporaryDir>
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>

#include "models/cpu_runtime.h"
#include "models/document/figure_set_data.h"
#include "models/io/table_io.h"
#include "models/loaded_model.h"
#include "models/views/view_json.h"
#include "support/legend_check.h"
#include "support/pdf_text.h"
#include "support/shell_run.h"

namespace fs = std::filesystem;
using sinkscope::io::CsvTable;
using sinkscope::io::csv_parse;

namespace {

const std::string kModel = SINKSCOPE_SOURCE_DIR "/resources/models/rope-decoder-bos-first";

CsvTable table(const fs::path& p) { return csv_parse(read_text(p)); }

int column(const CsvTable& t, const std::string& name) {
  for (std::size_t k = 0; k < t.columns.size(); ++k)
    if (t.columns[k] == name) return static_cast<int>(k);
  ADD_FAILURE() << "no column " << name;
  return 0;
}

// Mean over the numbered heads (not "average") of `value`, by (layer, key
// column), over the heads where it is defined (a finite number) and, with
// `onlyIf`, where column onlyIf.first holds onlyIf.second; over several
// tables, the mean over every (sentence, head) instance.
std::map<std::pair<int, std::string>, double> head_means(
    const std::vector<CsvTable>& tables, const std::string& key, const std::string& value,
    const std::pair<std::string, std::string>& onlyIf = {}) {
  std::map<std::pair<int, std::string>, std::pair<double, int>> sums;
  for (const CsvTable& t : tables) {
    const int l = column(t, "layer"), h = column(t, "head"), k = column(t, key),
              v = column(t, value);
    const int c = onlyIf.first.empty() ? -1 : column(t, onlyIf.first);
    for (const auto& row : t.rows) {
      if (row[static_cast<std::size_t>(h)] == "average") continue;
      if (c >= 0 && row[static_cast<std::size_t>(c)] != onlyIf.second) continue;
      const std::string& cell = row[static_cast<std::size_t>(v)];
      if (cell.empty() || !std::isfinite(std::stod(cell))) continue;
      auto& s =
          sums[{std::stoi(row[static_cast<std::size_t>(l)]), row[static_cast<std::size_t>(k)]}];
      s.first += std::stod(cell);
      ++s.second;
    }
  }
  std::map<std::pair<int, std::string>, double> out;
  for (const auto& [at, s] : sums) out[at] = s.first / s.second;
  return out;
}

std::map<std::pair<int, std::string>, double> head_means(
    const CsvTable& t, const std::string& key, const std::string& value,
    const std::pair<std::string, std::string>& onlyIf = {}) {
  return head_means(std::vector<CsvTable>{t}, key, value, onlyIf);
}

// The curves against N beyond F_N: each figure's file, its column, and the
// value_space_curve.csv column whose head mean it pools (over the heads where
// `onlyIf` holds).
struct PerNColumn {
  const char* file;
  const char* column;
  const char* perHead;
  std::pair<std::string, std::string> onlyIf;
};
const std::vector<PerNColumn>& per_n_columns() {
  static const std::vector<PerNColumn> columns{
      {"precision_against_n_by_layer", "precision", "precision", {}},
      {"precision_against_n_by_layer", "precision_random", "random_precision_mean", {}},
      {"recall_against_n_by_layer", "recall", "recall", {}},
      {"recall_against_n_by_layer", "recall_random", "random_recall_mean", {}},
      {"loo_alignment_margin_against_n_by_layer",
       "loo_alignment_margin",
       "loo_alignment_margin",
       {}},
      {"positive_loo_share_against_n_by_layer", "positive_loo_share", "positive_loo_share", {}},
      {"loo_margin_against_n_by_layer", "loo_margin", "loo_margin", {}},
      {"sink_selection_rate_against_n_by_layer", "sink_selection_rate", "sink_selected", {}},
      {"fn_by_sink_selection_against_n_by_layer", "f_n_sink_selected", "f", {"sink_selected", "1"}},
      {"fn_by_sink_selection_against_n_by_layer",
       "f_n_sink_unselected",
       "f",
       {"sink_selected", "0"}},
      {"sink_share_of_aggregate_against_n_by_layer",
       "sink_share_of_aggregate",
       "sink_share_of_aggregate",
       {}},
      {"sink_direction_change_against_n_by_layer",
       "sink_direction_change",
       "sink_direction_change",
       {}},
      {"sink_intrusion_rate_against_n_by_layer", "sink_intrusion_rate", "sink_intrusion", {}},
      {"sink_inverted_share_against_n_by_layer", "sink_inverted_share", "sink_inverted_share", {}},
      {"sink_alignment_against_n_by_layer",
       "sink_alignment_selected",
       "sink_alignment_selected",
       {}}};
  return columns;
}

// The value geometry by layer: each figure's file and the value_space.csv
// columns whose per-head distribution it summarises.
const std::vector<std::pair<std::string, std::vector<std::string>>>& geometry_figures() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> figures{
      {"sink_value_norm_ratio_by_layer", {"lambda"}},
      {"value_norm_cv_by_layer", {"norm_cv"}},
      {"value_coherence_by_layer", {"coherence_max", "sink_alignment_range"}}};
  return figures;
}

// The q-quantile of `v` with linear interpolation between order statistics (numpy's default).
double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const double lower = v[static_cast<std::size_t>(at)];
  const double upper = v[std::min(v.size() - 1, static_cast<std::size_t>(at) + 1)];
  return lower + (at - std::floor(at)) * (upper - lower);
}

// Every figure of a set drawn from a model with an output head.
std::vector<std::string> every_figure() {
  std::vector<std::string> names{"key_importance_by_layer", "betti0_by_layer", "betti1_by_layer",
                                 "fn_against_n_by_layer", "fn_by_sink_selection_against_n"};
  for (const PerNColumn& c : per_n_columns())
    if (names.back() != c.file) names.push_back(c.file);
  for (const auto& [file, columns] : geometry_figures()) names.push_back(file);
  names.push_back("value_cosine_distribution");
  for (const char* name :
       {"taxonomy_by_layer", "class_value_alignment_against_n", "class_loo_norm_against_n",
        "fiedler_by_layer", "centralisation_by_layer", "sink_removal_kl_by_layer",
        "fisher_by_layer", "perturbation_by_layer", "bos_removal", "sparsification"})
    names.push_back(name);
  return names;
}

// Mean over every (sentence, head) instance of each head class (the label
// taxonomy.csv gives the head in that sentence) of value_space_curve.csv's
// `value`, by (class, n), over the instances where it is defined.
std::map<std::pair<std::string, int>, double> class_means(const std::vector<CsvTable>& curves,
                                                          const std::vector<CsvTable>& labels,
                                                          const std::string& value) {
  std::map<std::pair<std::string, int>, std::pair<double, int>> sums;
  for (std::size_t s = 0; s < curves.size(); ++s) {
    std::map<std::pair<std::string, std::string>, std::string> label;  // (layer, head)
    for (const auto& row : labels[s].rows) label[{row[0], row[1]}] = row.back();
    const CsvTable& t = curves[s];
    const int v = column(t, value), n = column(t, "n");
    for (const auto& row : t.rows) {
      if (row[1] == "average" || row[static_cast<std::size_t>(v)].empty()) continue;
      auto& sum = sums[{label.at({row[0], row[1]}), std::stoi(row[static_cast<std::size_t>(n)])}];
      sum.first += std::stod(row[static_cast<std::size_t>(v)]);
      ++sum.second;
    }
  }
  std::map<std::pair<std::string, int>, double> out;
  for (const auto& [at, sum] : sums) out[at] = sum.first / sum.second;
  return out;
}

// Each head class's trajectory figure against class_means() of the per-head tables.
void expect_class_pooled(const fs::path& set, const std::vector<CsvTable>& curves,
                         const std::vector<CsvTable>& labels) {
  for (const auto& [file, columns] :
       {std::pair{"class_value_alignment_against_n",
                  std::vector<std::string>{"sink_value_cosine", "current_value_cosine"}},
        std::pair{"class_loo_norm_against_n",
                  std::vector<std::string>{"sink_removed_norm", "current_removed_norm"}}}) {
    const CsvTable pooled = table(set / (std::string(file) + ".csv"));
    ASSERT_FALSE(pooled.rows.empty()) << file;
    for (const std::string& name : columns) {
      const auto expected = class_means(curves, labels, name);
      const int v = column(pooled, name);
      std::size_t checked = 0;
      for (const auto& row : pooled.rows) {
        const auto at = expected.find({row[0], std::stoi(row[1])});
        if (row[static_cast<std::size_t>(v)].empty()) {
          EXPECT_EQ(at, expected.end())
              << file << " " << name << " " << row[0] << " N = " << row[1];
          continue;
        }
        ASSERT_NE(at, expected.end()) << file << " " << name << " " << row[0] << " N = " << row[1];
        EXPECT_NEAR(std::stod(row[static_cast<std::size_t>(v)]), at->second, 1e-9)
            << file << " " << name << " " << row[0] << " N = " << row[1];
        ++checked;
      }
      EXPECT_EQ(checked, expected.size()) << file << " " << name << ": every class and N pooled";
    }
  }
}

// Every row of the pooled table `t` (layer, x, value) equals the per-head mean.
void expect_pooled(const CsvTable& t, const std::string& x, const std::string& value,
                   const std::map<std::pair<int, std::string>, double>& expected) {
  const int l = column(t, "layer"), xi = column(t, x), v = column(t, value);
  ASSERT_FALSE(t.rows.empty());
  std::size_t checked = 0;
  for (const auto& row : t.rows) {
    if (row[static_cast<std::size_t>(v)].empty()) {  // no head's is defined there
      for (const auto& [at, want] : expected)
        EXPECT_FALSE(at.first == std::stoi(row[static_cast<std::size_t>(l)]) &&
                     std::abs(std::stod(at.second) - std::stod(row[static_cast<std::size_t>(xi)])) <
                         1e-12)
            << value << " is empty at layer " << at.first << ", " << x << " " << at.second;
      ++checked;
      continue;
    }
    const double got = std::stod(row[static_cast<std::size_t>(v)]);
    // The pooled x is a number; the per-head table's key may be written otherwise (0.01 vs 0.01).
    for (const auto& [at, want] : expected)
      if (at.first == std::stoi(row[static_cast<std::size_t>(l)]) &&
          std::abs(std::stod(at.second) - std::stod(row[static_cast<std::size_t>(xi)])) < 1e-12) {
        EXPECT_NEAR(got, want, 1e-9) << value << " at layer " << at.first << ", " << x << " " << at.second;
        ++checked;
      }
  }
  EXPECT_EQ(checked, t.rows.size()) << value << ": every pooled row has its per-head rows";
}

}  // namespace

TEST(FigureSet, OneSentenceEqualsTheMeanOverHeadsOfTheSingleSentenceReport) {
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  const std::string text = "The old lighthouse keeper counted the ships at dawn.";
  std::ofstream(root / "one.txt") << text << "\n";
  const CliRun set = cli("figure-set '" + kModel + "' --sentences '" + (root / "one.txt").string() +
                         "' --out '" + (root / "set").string() + "'");
  ASSERT_EQ(set.exit, 0) << set.out;
  const CliRun single = cli("analyze '" + kModel + "' --text '" + text + "' --out '" + (root / "single").string() + "'");
  ASSERT_EQ(single.exit, 0) << single.out;
  // Sparsification of one sentence: the experiment's curves, the random
  // ranking's spread over its seeds as the experiment's dnll_std.
  const CliRun sparsify = cli("experiment sparsify '" + kModel + "' --text '" + text + "' --out '" +
                              (root / "sparsify").string() + "'");
  ASSERT_EQ(sparsify.exit, 0) << sparsify.out;
  {
    std::map<std::pair<std::string, double>, std::pair<double, double>> experiment;
    for (const auto& r : table(root / "sparsify/sparsification.csv").rows)
      experiment[{r[0], std::stod(r[1])}] = {std::stod(r[2]), std::stod(r[3])};
    const CsvTable pooled = table(root / "set/sparsification.csv");
    ASSERT_EQ(pooled.rows.size(), experiment.size());
    const int dnll = column(pooled, "dnll"), spread = column(pooled, "dnll_std");
    for (const auto& r : pooled.rows) {
      const auto& [mean, sd] = experiment.at({r[0], std::stod(r[1])});
      EXPECT_NEAR(std::stod(r[static_cast<std::size_t>(dnll)]), mean, 1e-9) << r[0] << " " << r[1];
      EXPECT_NEAR(std::stod(r[static_cast<std::size_t>(spread)]), sd, 1e-9) << r[0] << " " << r[1];
    }
  }

  // The perturbation's spread: experiment perturb's relative change after the
  // perturbed token, averaged per layer, with and without the first token.
  for (const auto& [flag, kept] :
       {std::pair{"", "kept"}, std::pair{" --without-first", "removed"}}) {
    const fs::path out = root / (std::string("perturb") + kept);
    ASSERT_EQ(cli("experiment perturb '" + kModel + "' --text '" + text + "'" + flag + " --out '" +
                  out.string() + "'")
                  .exit,
              0);
    std::map<std::string, std::pair<double, int>> mean;
    for (const auto& r : table(out / "perturb.csv").rows)
      if (std::stoi(r[1]) > 1) mean[r[0]].first += std::stod(r[3]), ++mean[r[0]].second;
    std::size_t checked = 0;
    for (const auto& r : table(root / "set/perturbation_by_layer.csv").rows) {
      if (r[1] != kept) continue;
      const auto& [sum, count] = mean.at(r[0]);
      EXPECT_NEAR(std::stod(r[2]), sum / count, 1e-12) << kept << " layer " << r[0];
      ++checked;
    }
    EXPECT_EQ(checked, mean.size()) << kept << ": every layer and the output";
  }
  // Fisher information of one sentence: the experiment's, layer by layer.
  {
    const CliRun fisher = cli("experiment fisher '" + kModel + "' --text '" + text + "' --out '" +
                              (root / "fisher").string() + "'");
    ASSERT_EQ(fisher.exit, 0) << fisher.out;
    std::map<std::string, double> experiment;
    for (const auto& r : table(root / "fisher/fisher.csv").rows) experiment[r[0]] = std::stod(r[3]);
    const CsvTable pooled = table(root / "set/fisher_by_layer.csv");
    ASSERT_EQ(pooled.rows.size(), experiment.size());
    for (const auto& r : pooled.rows)
      EXPECT_NEAR(std::stod(r[3]), experiment.at(r[0]), 1e-5 * experiment.at(r[0]))
          << r[0];  // float32 gradients
  }
  expect_pooled(table(root / "set/key_importance_by_layer.csv"), "position", "alpha_k",
                head_means(table(root / "single/sinks.csv"), "key", "alpha"));
  expect_pooled(table(root / "set/key_importance_by_layer.csv"), "position", "uniform_baseline",
                head_means(table(root / "single/sinks.csv"), "key", "uniform_baseline"));
  expect_pooled(table(root / "set/betti0_by_layer.csv"), "e", "beta_0",
                head_means(table(root / "single/betti.csv"), "e", "beta0"));
  expect_pooled(table(root / "set/betti1_by_layer.csv"), "e", "beta_1",
                head_means(table(root / "single/betti.csv"), "e", "beta1"));
  expect_pooled(table(root / "set/fn_against_n_by_layer.csv"), "n", "f_n",
                head_means(table(root / "single/value_space_curve.csv"), "n", "f"));
  expect_pooled(table(root / "set/fn_against_n_by_layer.csv"), "n", "f_n_random",
                head_means(table(root / "single/value_space_curve.csv"), "n", "random_f_mean"));
  for (const PerNColumn& c : per_n_columns())
    expect_pooled(
        table(root / "set" / (std::string(c.file) + ".csv")), "n", c.column,
        head_means(table(root / "single/value_space_curve.csv"), "n", c.perHead, c.onlyIf));
  expect_class_pooled(root / "set", {table(root / "single/value_space_curve.csv")},
                      {table(root / "single/taxonomy.csv")});

  // The value geometry: median and quartiles over the layer's heads of value_space.csv's columns.
  {
    const CsvTable perHead = table(root / "single/value_space.csv");
    const int layerAt = column(perHead, "layer"), headAt = column(perHead, "head");
    for (const auto& [file, columns] : geometry_figures()) {
      const CsvTable pooled = table(root / "set" / (file + ".csv"));
      ASSERT_EQ(pooled.rows.size(), 4u * columns.size()) << file;
      for (const auto& row : pooled.rows) {
        std::vector<double> v;
        const int c = column(perHead, row[1]);
        for (const auto& r : perHead.rows)
          if (r[static_cast<std::size_t>(headAt)] != "average" &&
              r[static_cast<std::size_t>(layerAt)] == row[0])
            v.push_back(std::stod(r[static_cast<std::size_t>(c)]));
        ASSERT_EQ(v.size(), 4u) << file << " layer " << row[0];
        EXPECT_NEAR(std::stod(row[2]), quantile(v, 0.5), 1e-12) << file << " " << row[1];
        EXPECT_NEAR(std::stod(row[3]), quantile(v, 0.25), 1e-12) << file << " " << row[1];
        EXPECT_NEAR(std::stod(row[4]), quantile(v, 0.75), 1e-12) << file << " " << row[1];
        EXPECT_EQ(row[6], "4");
      }
    }
  }

  // Head classes: the share of each label among a layer's heads.
  const CsvTable labels = table(root / "single/taxonomy.csv");
  std::map<std::pair<int, std::string>, double> share;
  std::map<int, int> heads;
  for (const auto& row : labels.rows) {
    if (row[1] == "average") continue;
    share[std::pair(std::stoi(row[0]), row.back())] += 1.0;
    ++heads[std::stoi(row[0])];
  }
  const CsvTable classes = table(root / "set/taxonomy_by_layer.csv");
  ASSERT_EQ(classes.rows.size(), heads.size());
  for (const auto& row : classes.rows) {
    const int l = std::stoi(row[0]);
    const double h = heads[l];
    EXPECT_NEAR(std::stod(row[1]), (share[std::pair(l, std::string("Retriever"))] / h), 1e-12) << l;
    EXPECT_NEAR(std::stod(row[2]), (share[std::pair(l, std::string("Mixer"))] / h), 1e-12) << l;
    EXPECT_NEAR(std::stod(row[3]), (share[std::pair(l, std::string("Reset"))] / h), 1e-12) << l;
  }
  // The class distribution: each label's share of every head; one sentence
  // resamples to itself, so its interval is the share.
  {
    std::map<std::string, double> overall;
    int all = 0;
    for (const auto& row : labels.rows)
      if (row[1] != "average") overall[row.back()] += 1.0, ++all;
    const CsvTable distribution = table(root / "set/head_class_distribution.csv");
    ASSERT_EQ(distribution.rows.size(), 3u);
    for (const auto& row : distribution.rows) {
      EXPECT_NEAR(std::stod(row[1]), overall[row[0]] / all, 1e-12) << row[0];
      EXPECT_NEAR(std::stod(row[2]), overall[row[0]] / all, 1e-12) << row[0];
      EXPECT_NEAR(std::stod(row[3]), overall[row[0]] / all, 1e-12) << row[0];
      EXPECT_EQ(row[4], std::to_string(all));
    }
  }
  // The functional figures (this model has an output head and a BOS token).
  const CsvTable bos = table(root / "set/bos_removal.csv");
  ASSERT_EQ(bos.rows.size(), 1u);
  EXPECT_TRUE(std::isfinite(std::stod(bos.rows[0][2])));
  const CsvTable sparse = table(root / "set/sparsification.csv");
  EXPECT_EQ(sparse.rows.size(), 7u * 5u) << "7 rankings x 5 shares kept";
  EXPECT_EQ(table(root / "set/reference_frame.csv").rows.size(), 1u);
  // Every figure as a PDF beside its CSV, fonts embedded.
  for (const std::string& name : every_figure()) {
    const fs::path pdf = root / "set" / (name + ".pdf");
    ASSERT_TRUE(fs::exists(pdf)) << name;
    EXPECT_NE(shell("pdffonts '" + pdf.string() + "'").out.find("DejaVuSans"), std::string::npos) << name;
  }
}

// Ranks 1..n, ties given their average rank (as Spearman's rho takes them).
std::vector<double> average_ranks(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  for (std::size_t k = 0; k < v.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> rank(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (std::size_t k = i; k <= j; ++k) rank[order[k]] = (static_cast<double>(i + j) / 2.0) + 1.0;
    i = j + 1;
  }
  return rank;
}

double pearson_of(const std::vector<double>& x, const std::vector<double>& y) {
  double mx = 0, my = 0;
  for (std::size_t k = 0; k < x.size(); ++k) mx += x[k], my += y[k];
  mx /= static_cast<double>(x.size()), my /= static_cast<double>(y.size());
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t k = 0; k < x.size(); ++k)
    sxy += (x[k] - mx) * (y[k] - my), sxx += (x[k] - mx) * (x[k] - mx),
        syy += (y[k] - my) * (y[k] - my);
  return sxy / std::sqrt(sxx * syy);
}

// Table 2 pooled over the ablated sentences: a head's diagnostic and dNLL are
// its means over them, correlated across heads. Recomputed here from each
// sentence's own tables (experiment ablate's dNLL per head, analyze's
// per-head diagnostics averaged over queries), with the correlations written out.
TEST(FigureSet, AblationCorrelationPoolsEachHeadOverTheAblatedSentences) {
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  const std::vector<std::string> texts{"The old lighthouse keeper counted the ships at dawn.",
                                       "A small dog ran across the busy street."};
  std::ofstream(root / "two.txt") << texts[0] << "\n" << texts[1] << "\nBirds sing.\n";
  const CliRun set = cli("figure-set '" + kModel + "' --sentences '" + (root / "two.txt").string() +
                         "' --out '" + (root / "set").string() + "' --sparsification-sentences 2");
  ASSERT_EQ(set.exit, 0) << set.out;
  std::map<std::pair<int, int>, double> dnll;
  std::map<std::string, std::map<std::pair<int, int>, double>> diagnostic;
  for (std::size_t s = 0; s < texts.size(); ++s) {
    const fs::path ablate = root / ("ablate" + std::to_string(s)),
                   single = root / ("single" + std::to_string(s));
    ASSERT_EQ(cli("experiment ablate '" + kModel + "' --text '" + texts[s] + "' --out '" +
                  ablate.string() + "'")
                  .exit,
              0);
    ASSERT_EQ(
        cli("analyze '" + kModel + "' --text '" + texts[s] + "' --out '" + single.string() + "'")
            .exit,
        0);
    for (const auto& r : table(ablate / "ablation.csv").rows)
      dnll[{std::stoi(r[0]), std::stoi(r[1])}] += std::stod(r[2]) / 2.0;
    const CsvTable d = table(single / "diagnostics.csv");
    for (const auto& r : d.rows) {
      if (r[1] == "average" || r[2] != "mean") continue;
      for (const char* name : {"entropy", "top1", "sink_attention", "current_token", "top_n_mass"})
        diagnostic[name][{std::stoi(r[0]), std::stoi(r[1])}] +=
            std::stod(r[static_cast<std::size_t>(column(d, name))]) / 2.0;
    }
  }
  const CsvTable pooled = table(root / "set/ablation_correlation.csv");
  ASSERT_EQ(pooled.rows.size(), 5u);
  double previous = 2.0;
  for (const auto& row : pooled.rows) {
    std::vector<double> x, y;
    for (const auto& [head, v] : diagnostic.at(row[0])) x.push_back(v), y.push_back(dnll.at(head));
    ASSERT_EQ(x.size(), 16u) << "4 layers x 4 heads";
    EXPECT_NEAR(std::stod(row[1]), pearson_of(average_ranks(x), average_ranks(y)), 1e-6) << row[0];
    EXPECT_NEAR(std::stod(row[4]), pearson_of(x, y), 1e-6) << row[0];
    // Intervals ordered; rows from the strongest |Spearman|.
    EXPECT_LE(std::stod(row[2]), std::stod(row[3])) << row[0];
    EXPECT_LE(std::stod(row[5]), std::stod(row[6])) << row[0];
    EXPECT_LE(std::abs(std::stod(row[1])), previous) << row[0];
    previous = std::abs(std::stod(row[1]));
    EXPECT_EQ(row[7], "16");
    EXPECT_EQ(row[8], "2");
  }
  // One sentence: the experiment's own correlations.
  ASSERT_EQ(cli("figure-set '" + kModel + "' --sentences '" + (root / "two.txt").string() +
                "' --out '" + (root / "one").string() + "' --sparsification-sentences 1")
                .exit,
            0);
  std::map<std::string, std::pair<double, double>> experiment;
  for (const auto& r : table(root / "ablate0/ablation_correlation.csv").rows)
    experiment[r[0]] = {std::stod(r[1]), std::stod(r[2])};
  for (const auto& row : table(root / "one/ablation_correlation.csv").rows) {
    EXPECT_NEAR(std::stod(row[1]), experiment.at(row[0]).first, 1e-12) << row[0];
    EXPECT_NEAR(std::stod(row[4]), experiment.at(row[0]).second, 1e-12) << row[0];
  }
}

// Ruscio et al.'s summary table, spectral summaries and KL of sink removal
// against `analyze --sentences --functional`'s pooled tables (another code
// path, the same resamples of the sentences): equal to the last digit.
TEST(FigureSet, RuscioFiguresEqualThePooledTablesOfAnalyze) {
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  std::ofstream(root / "s.txt") << "The old lighthouse keeper counted the ships at dawn.\n"
                                   "A small dog ran across the busy street.\n"
                                   "She wrote a letter to her grandmother.\n";
  const std::string sentences = " --sentences '" + (root / "s.txt").string() + "'";
  ASSERT_EQ(cli("figure-set '" + kModel + "'" + sentences + " --out '" + (root / "set").string() +
                "' --sparsification-sentences 0")
                .exit,
            0);
  ASSERT_EQ(cli("analyze '" + kModel + "'" + sentences + " --functional --out '" +
                (root / "pooled").string() + "'")
                .exit,
            0);
  // (layer, metric, threshold) -> (mean, lo, hi) of layer_profile.csv and functional.csv.
  std::map<std::tuple<std::string, std::string, std::string>, std::array<double, 3>> pooled;
  for (const auto& r : table(root / "pooled/layer_profile.csv").rows)
    pooled[{r[0], r[1], r[2]}] = {std::stod(r[4]), std::stod(r[5]), std::stod(r[6])};
  for (const auto& r : table(root / "pooled/functional.csv").rows)
    if (r[0] == "kl_sink_removal")
      pooled[{r[1], "kl", ""}] = {std::stod(r[3]), std::stod(r[4]), std::stod(r[5])};
  auto expect_row = [&](const std::vector<std::string>& row, std::size_t from,
                        const std::array<double, 3>& want, const std::string& what) {
    for (std::size_t k = 0; k < 3; ++k)
      EXPECT_NEAR(std::stod(row[from + k]), want[k], 1e-12) << what << " column " << from + k;
  };
  for (const char* metric : {"fiedler", "centralisation"}) {
    const CsvTable t = table(root / "set" / (std::string(metric) + "_by_layer.csv"));
    ASSERT_EQ(t.rows.size(), 4u * 4u) << "4 layers x 4 thresholds";
    for (const auto& r : t.rows) {
      // The figure's threshold as layer_profile writes it.
      std::string threshold;
      for (const auto& [key, value] : pooled)
        if (std::get<0>(key) == r[0] && std::get<1>(key) == metric && !std::get<2>(key).empty() &&
            std::abs(std::stod(std::get<2>(key)) - std::stod(r[1])) < 1e-12)
          threshold = std::get<2>(key);
      ASSERT_FALSE(threshold.empty()) << metric << " layer " << r[0] << " threshold " << r[1];
      expect_row(r, 2, pooled.at({r[0], metric, threshold}), std::string(metric) + " " + r[0]);
      EXPECT_EQ(r[5], "3");
    }
  }
  const CsvTable kl = table(root / "set/sink_removal_kl_by_layer.csv");
  ASSERT_EQ(kl.rows.size(), 5u) << "4 layers and all";
  for (const auto& r : kl.rows) expect_row(r, 2, pooled.at({r[0], "kl", ""}), "kl " + r[0]);
  // The summary table: analyze's frame.csv, then the share of specialised
  // heads and the Betti numbers: the first layer's as layer_profile pools them,
  // the mean over layers the mean of its layers' means.
  const CsvTable frame = table(root / "set/reference_frame.csv"),
                 analyzed = table(root / "pooled/frame.csv");
  ASSERT_EQ(frame.rows.size(), 1u);
  const auto& row = frame.rows.front();
  for (std::size_t c = 0; c < analyzed.columns.size(); ++c) {
    EXPECT_EQ(frame.columns[c], analyzed.columns[c]);
    EXPECT_EQ(row[c], analyzed.rows.front()[c]) << analyzed.columns[c];
  }
  EXPECT_EQ(row[static_cast<std::size_t>(column(frame, "heads"))], "16");
  EXPECT_NEAR(std::stod(row[static_cast<std::size_t>(column(frame, "specialised_share"))]),
              std::stod(row[static_cast<std::size_t>(column(frame, "specialised_heads"))]) / 16,
              1e-15);
  for (const auto& [dimension, metric] :
       {std::pair{"0", "bars0_above_min_persistence"}, {"1", "bars1_above_min_persistence"}}) {
    const std::string first = std::string("betti") + dimension + "_first_layer";
    expect_row(row, static_cast<std::size_t>(column(frame, first)), pooled.at({"0", metric, ""}),
               first);
    double mean = 0;
    for (int l = 0; l < 4; ++l) mean += pooled.at({std::to_string(l), metric, ""})[0] / 4;
    const std::string all = std::string("betti") + dimension + "_mean_over_layers";
    EXPECT_NEAR(std::stod(row[static_cast<std::size_t>(column(frame, all))]), mean, 1e-12) << all;
    EXPECT_LE(std::stod(row[static_cast<std::size_t>(column(frame, all + "_lo"))]), mean + 1e-12);
    EXPECT_GE(std::stod(row[static_cast<std::size_t>(column(frame, all + "_hi"))]), mean - 1e-12);
  }
}

// Precision and recall across context lengths: at length L each sentence of
// at least L tokens gives the mean over every head of its curve at query
// L - 1, which `analyze --text --query L-1` writes per head; the sentences'
// means are averaged. A study recorded with the lengths gives the same table.
TEST(FigureSet, ContextLengthsPoolTheCurvesAtQueryLMinusOne) {
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  const std::vector<std::string> texts{"The old lighthouse keeper counted the ships at dawn.",
                                       "A small dog ran home."};
  std::ofstream(root / "s.txt") << texts[0] << "\n" << texts[1] << "\n";
  const std::string sentences = " --sentences '" + (root / "s.txt").string() + "'";
  const CliRun set =
      cli("figure-set '" + kModel + "'" + sentences + " --out '" + (root / "set").string() +
          "' --sparsification-sentences 0 --context-lengths 8,4,100");
  ASSERT_EQ(set.exit, 0) << set.out;
  // Each sentence's tokens, and its per-head curves at queries 3 and 7.
  std::map<std::pair<int, std::size_t>, std::map<int, std::pair<double, double>>> perSentence;
  for (std::size_t s = 0; s < texts.size(); ++s)
    for (int length : {4, 8}) {
      const fs::path out = root / ("q" + std::to_string(s) + "_" + std::to_string(length));
      ASSERT_EQ(cli("analyze '" + kModel + "' --text '" + texts[s] + "' --query " +
                    std::to_string(length - 1) + " --out '" + out.string() + "'")
                    .exit,
                0);
      const CsvTable t = table(out / "value_space_curve.csv");
      const int n = column(t, "n"), p = column(t, "precision"), r = column(t, "recall");
      std::map<int, std::pair<double, double>> sums;
      std::map<int, int> counts;
      for (const auto& row : t.rows) {
        if (row[1] == "average") continue;
        auto& sum = sums[std::stoi(row[static_cast<std::size_t>(n)])];
        sum.first += std::stod(row[static_cast<std::size_t>(p)]);
        sum.second += std::stod(row[static_cast<std::size_t>(r)]);
        ++counts[std::stoi(row[static_cast<std::size_t>(n)])];
      }
      for (auto& [k, sum] : sums) sum.first /= counts[k], sum.second /= counts[k];
      ASSERT_EQ(sums.size(), static_cast<std::size_t>(length)) << "N = 1 .. L at query L - 1";
      perSentence[{length, s}] = sums;
    }
  const CsvTable precision = table(root / "set/precision_by_context_length.csv"),
                 recall = table(root / "set/recall_by_context_length.csv");
  ASSERT_EQ(precision.rows.size(), 4u + 8u) << "L = 100 reached by no sentence";
  // The short sentence reaches L = 4 only (fewer than 8 tokens).
  for (const auto& [t, second] : {std::pair{&precision, false}, std::pair{&recall, true}})
    for (const auto& row : t->rows) {
      const int length = std::stoi(row[0]), n = std::stoi(row[1]);
      double sum = 0;
      int reached = 0;
      for (std::size_t s = 0; s < texts.size(); ++s) {
        const auto& curve = perSentence.at({length, s});
        // A sentence shorter than L has no query L - 1: analyze clamps to its last token.
        if (static_cast<int>(curve.size()) != length) continue;
        const auto& [p, r] = curve.at(n);
        sum += second ? r : p;
        ++reached;
      }
      EXPECT_EQ(row[3], std::to_string(reached)) << "L " << length << " N " << n;
      EXPECT_NEAR(std::stod(row[2]), sum / reached, 1e-12) << "L " << length << " N " << n;
    }
  EXPECT_NE(
      read_text(root / "set/precision_by_context_length.csv").find("no sentence reaches L = 100"),
      std::string::npos);
  // Drawn at the one-column preset: every word on the page at 8 pt, on no other.
  for (const char* name : {"precision_by_context_length", "recall_by_context_length"}) {
    const PdfText words = pdf_text((root / "set" / (std::string(name) + ".pdf")).string());
    ASSERT_TRUE(words.readable) << name;
    for (const std::string& problem : pdf_text_problems(words, 8.0))
      ADD_FAILURE() << name << ": " << problem;
  }

  // The same from a study recorded with the lengths; without --curves refused.
  ASSERT_EQ(cli("study run '" + kModel + "'" + sentences +
                " --curves --context-lengths 4,8,100 --out '" + (root / "study").string() + "'")
                .exit,
            0);
  ASSERT_EQ(cli("figure-set --study '" + (root / "study").string() + "' --out '" +
                (root / "from-study").string() + "' --sparsification-sentences 0")
                .exit,
            0);
  for (const char* file : {"precision_by_context_length.csv", "recall_by_context_length.csv"})
    EXPECT_EQ(table(root / "from-study" / file).rows, table(root / "set" / file).rows) << file;
  // A record's curve at a length the study was not run with: the file and line named.
  const fs::path records = root / "study/shards/shard-0-of-1/records.jsonl";
  std::string text = read_text(records);
  const auto at = text.find("\"L\":8");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 5, "\"L\":9");
  std::ofstream(records) << text;
  const CliRun damaged = cli("figure-set --study '" + (root / "study").string() + "' --out '" +
                             (root / "damaged").string() + "'");
  EXPECT_EQ(damaged.exit, 2);
  EXPECT_NE(damaged.out.find("records.jsonl:1: ctx: length 9 is not one of the study's"),
            std::string::npos)
      << damaged.out;
  const CliRun noCurves = cli("study run '" + kModel + "'" + sentences +
                              " --context-lengths 4 --out '" + (root / "plain").string() + "'");
  EXPECT_EQ(noCurves.exit, 2);
  EXPECT_NE(noCurves.out.find("--context-lengths needs --curves"), std::string::npos)
      << noCurves.out;
  const CliRun bad = cli("figure-set '" + kModel + "'" + sentences + " --out '" +
                         (root / "bad").string() + "' --context-lengths 1");
  EXPECT_EQ(bad.exit, 2);
  EXPECT_NE(bad.out.find("--context-lengths: 1 is outside 2 to"), std::string::npos) << bad.out;
}

TEST(FigureSet, SentencesOfEveryLengthPoolByPositionAndBadRequestsAreRefused) {
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  std::ofstream(root / "three.txt") << "A cat.\nThe dog ran to the far gate and back again.\nBirds sing.\n";
  const std::string base = "figure-set '" + kModel + "' --sentences '" + (root / "three.txt").string() + "'";
  const CliRun run = cli(base + " --out '" + (root / "set").string() + "' --sparsification-sentences 0");
  ASSERT_EQ(run.exit, 0) << run.out;
  const CsvTable alpha = table(root / "set/key_importance_by_layer.csv");
  const int count = column(alpha, "sentences"), position = column(alpha, "position");
  int first = 0, last = 0;
  for (const auto& row : alpha.rows)
    if (row[0] == "0") {
      if (row[static_cast<std::size_t>(position)] == "0") first = std::stoi(row[static_cast<std::size_t>(count)]);
      last = std::stoi(row[static_cast<std::size_t>(count)]);
    }
  EXPECT_EQ(first, 3) << "every sentence has a first token";
  EXPECT_EQ(last, 1) << "only the longest sentence reaches its last position";
  // Curves over some heads (those with the sink selected, or without) pool
  // every (sentence, head) instance: each sentence's mean weighted by its
  // share of those heads, against the three sentences analysed one by one.
  {
    std::vector<CsvTable> single, labels;
    std::ifstream in(root / "three.txt");
    std::string line;
    for (int k = 0; std::getline(in, line); ++k) {
      const fs::path out = root / ("single" + std::to_string(k));
      ASSERT_EQ(
          cli("analyze '" + kModel + "' --text '" + line + "' --out '" + out.string() + "'").exit,
          0);
      single.push_back(table(out / "value_space_curve.csv"));
      labels.push_back(table(out / "taxonomy.csv"));
    }
    expect_class_pooled(root / "set", single, labels);
    // Fig. 3(c): F_N over every (sentence, layer, head) with the sink selected, and without.
    std::map<std::pair<int, bool>, std::pair<double, int>> sums;
    for (const CsvTable& t : single) {
      const int n = column(t, "n"), f = column(t, "f"), sink = column(t, "sink_selected");
      for (const auto& row : t.rows) {
        if (row[1] == "average") continue;
        auto& sum = sums[{std::stoi(row[static_cast<std::size_t>(n)]),
                          row[static_cast<std::size_t>(sink)] == "1"}];
        sum.first += std::stod(row[static_cast<std::size_t>(f)]);
        ++sum.second;
      }
    }
    const CsvTable pooled = table(root / "set/fn_by_sink_selection_against_n.csv");
    ASSERT_FALSE(pooled.rows.empty());
    for (const auto& row : pooled.rows)
      for (const auto& [selected, value, count] :
           {std::tuple{true, 1, 3}, std::tuple{false, 2, 4}}) {
        const auto at = sums.find({std::stoi(row[0]), selected});
        const std::string what = "N " + row[0] + (selected ? " selected" : " unselected");
        if (at == sums.end()) {
          EXPECT_TRUE(row[static_cast<std::size_t>(value)].empty()) << what;
          EXPECT_EQ(row[static_cast<std::size_t>(count)], "0") << what;
          continue;
        }
        EXPECT_NEAR(std::stod(row[static_cast<std::size_t>(value)]),
                    at->second.first / at->second.second, 1e-12)
            << what;
        EXPECT_EQ(row[static_cast<std::size_t>(count)], std::to_string(at->second.second)) << what;
      }
    for (const PerNColumn& c : per_n_columns())
      if (!c.onlyIf.first.empty() || std::string(c.column) == "sink_intrusion_rate")
        expect_pooled(table(root / "set" / (std::string(c.file) + ".csv")), "n", c.column,
                      head_means(single, "n", c.perHead, c.onlyIf));
  }
  EXPECT_EQ(table(root / "set/sparsification.csv").rows.size(), 0u);
  // Every table says how it was made: the command, every parameter, the hashes.
  const std::string head = read_text(root / "set/key_importance_by_layer.csv");
  for (const char* line : {"# command: ", "# params: {", "\"symmetrise\":", "\"seed\":",
                           "\"min_persistence\":", "\"thresholds\":", "\"sparsification_retained\":",
                           "# model_config_sha256: ", "# sentences_sha256: "})
    EXPECT_NE(head.find(line), std::string::npos) << line << "\n" << head.substr(0, 1500);

  // Written files are never replaced without --force; bad requests exit 2 with the reason.
  const CliRun again = cli(base + " --out '" + (root / "set").string() + "'");
  EXPECT_NE(again.exit, 0);
  EXPECT_NE(again.out.find("exists"), std::string::npos) << again.out;
  // A set is written all or none: one PNG beyond the file-size limit (a full
  // disk) leaves no file of the set, no temporary and no folder.
  const fs::path cut = root / "cut";
  const CliRun limited = shell("trap '' XFSZ; ulimit -f 24; '" SINKSCOPE_CLI "' " + base +
                               " --out '" + cut.string() + "' --sparsification-sentences 0 --png 300 2>&1");
  EXPECT_EQ(limited.exit, 1) << limited.out;
  EXPECT_NE(limited.out.find("write failed"), std::string::npos) << limited.out;
  EXPECT_FALSE(fs::exists(cut)) << "a partial set";
  const CliRun noOut = cli(base);
  EXPECT_EQ(noOut.exit, 2);
  EXPECT_NE(noOut.out.find("--out is required"), std::string::npos) << noOut.out;
  std::ofstream(root / "empty.txt") << "\n\n";
  const CliRun empty = cli("figure-set '" + kModel + "' --sentences '" + (root / "empty.txt").string() +
                           "' --out '" + (root / "e").string() + "'");
  EXPECT_NE(empty.exit, 0);
  EXPECT_NE(empty.out.find("empty.txt"), std::string::npos) << empty.out;
}

// A corpus study run with --curves in two shards draws the figure set of its
// sentence file (every table equal, row for row); a study without curves, or
// with damaged ones, is refused with the reason.
TEST(FigureSet, AStudyFolderGivesTheFigureSetOfItsSentenceFile) {
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  {
    std::ofstream out(root / "s.txt");
    std::ifstream in(SINKSCOPE_SOURCE_DIR "/resources/examples/sentences.txt");
    std::string line;
    for (int k = 0; k < 20 && std::getline(in, line); ++k) out << line << "\n";
  }
  const std::string sentences = "--sentences '" + (root / "s.txt").string() + "'";
  for (const char* shard : {"0/2", "1/2"}) {
    const CliRun run = cli("study run '" + kModel + "' " + sentences + " --out '" + (root / "study").string() +
                           "' --curves --functional --shard " + shard);
    ASSERT_EQ(run.exit, 0) << run.out;
  }
  ASSERT_EQ(cli("figure-set --study '" + (root / "study").string() + "' --out '" + (root / "a").string() + "'").exit, 0);
  ASSERT_EQ(cli("figure-set '" + kModel + "' " + sentences + " --out '" + (root / "b").string() + "'").exit, 0);
  // Two studies side by side (here the same one twice): each label's rows are the study's own.
  ASSERT_EQ(cli("figure-set --study '" + (root / "study").string() + "' --study '" +
                (root / "study").string() + "' --labels x,y --sparsification-sentences 0 --out '" +
                (root / "c").string() + "'")
                .exit,
            0);
  for (const char* kind : {"fn_against_n_by_layer", "reference_frame", "sink_rate"}) {
    const CsvTable own = table(root / "a" / (std::string(kind) + ".csv"));
    const CsvTable both = table(root / "c" / (std::string(kind) + ".csv"));
    ASSERT_EQ(both.rows.size(), 2 * own.rows.size()) << kind;
    for (std::size_t r = 0; r < both.rows.size(); ++r) {
      EXPECT_EQ(both.rows[r].front(), r < own.rows.size() ? "x" : "y") << kind;
      EXPECT_EQ(std::vector<std::string>(both.rows[r].begin() + 1, both.rows[r].end()),
                own.rows[r % own.rows.size()])
          << kind << " row " << r;
    }
  }
  std::vector<std::string> names = every_figure();
  names.push_back("reference_frame");
  names.push_back("head_class_distribution");
  for (const std::string& name : names) {
    const std::string file = name + ".csv";
    EXPECT_EQ(csv_rows(root / "a" / file), csv_rows(root / "b" / file)) << name;
    EXPECT_TRUE(fs::exists(root / "a" / (name + ".pdf")) || name == "reference_frame" ||
                name == "head_class_distribution");
  }
  // Read back by poppler: every word of every figure on the page, at the
  // one-column preset's 8 pt, on no other word; no title drawn.
  if (shell("command -v pdftotext").exit == 0)
    for (const std::string& name : every_figure()) {
      const PdfText text = pdf_text((root / "a" / (name + ".pdf")).string());
      ASSERT_TRUE(text.readable) << name;
      EXPECT_NEAR(text.width, 241, 1) << name;  // 85 mm
      for (const std::string& problem : pdf_text_problems(text, 8.0)) ADD_FAILURE() << name << ": " << problem;
    }
  // The same at two columns (178 mm, 8 pt) and slide size (254 mm, 16 pt).
  if (shell("command -v pdftotext").exit == 0)
    for (const auto& [preset, width, pt] :
         {std::tuple{"two-columns", 504.6, 8.0}, std::tuple{"slide", 720.0, 16.0}}) {
      const fs::path out = root / preset;
      ASSERT_EQ(cli("figure-set --study '" + (root / "study").string() + "' --out '" +
                    out.string() + "' --preset " + preset + " --sparsification-sentences 0")
                    .exit,
                0)
          << preset;
      for (const std::string& name : every_figure()) {
        // Head ablation's figures are left out above (--sparsification-sentences 0).
        if (name == "sparsification" || name == "fisher_by_layer" ||
            name == "perturbation_by_layer")
          continue;
        const PdfText text = pdf_text((out / (name + ".pdf")).string());
        ASSERT_TRUE(text.readable) << preset << " " << name;
        EXPECT_NEAR(text.width, width, 1) << preset << " " << name;
        for (const std::string& problem : pdf_text_problems(text, pt))
          ADD_FAILURE() << preset << " " << name << ": " << problem;
      }
    }

  // A study recorded before the curves against N beyond F_N were kept still
  // gives every other figure, the same; those kinds are left out.
  fs::copy(root / "study", root / "older", fs::copy_options::recursive);
  const CliRun stripped = shell(
      "python3 -c \"import json, pathlib, sys\n"
      "for p in pathlib.Path(sys.argv[1]).rglob('records.jsonl'):\n"
      "    lines = [json.loads(l) for l in p.read_text().splitlines() if l.strip()]\n"
      "    for r in lines:\n"
      "        [h.pop('vg') for h in r['heads']]\n"
      "        r.pop('classes')\n"
      "        for c in r.get('curves', []):\n"
      "            [c.pop(k) for k in ('lm', 'la', 'lp', 'p', 'r', 'pr', 'rr', 'sr', 'fi', 'fo', "
      "'ss', 'st', 'si', 'sv', 'sa')]\n"
      "    p.write_text(''.join(json.dumps(r) + '\\n' for r in lines))\" '" +
      (root / "older").string() + "' 2>&1");
  ASSERT_EQ(stripped.exit, 0) << stripped.out;
  const CliRun older = cli("figure-set --study '" + (root / "older").string() + "' --out '" +
                           (root / "d").string() + "'");
  ASSERT_EQ(older.exit, 0) << older.out;
  EXPECT_NE(
      older.out.find("left out Mudarisov et al., Fig. 13: sink_selection_rate_against_n_by_layer: "
                     "the study's records were made before"),
      std::string::npos)
      << older.out;
  EXPECT_EQ(csv_rows(root / "d/fn_against_n_by_layer.csv"),
            csv_rows(root / "a/fn_against_n_by_layer.csv"));
  for (const PerNColumn& c : per_n_columns())
    EXPECT_FALSE(fs::exists(root / "d" / (std::string(c.file) + ".csv"))) << c.file;
  for (const auto& [file, columns] : geometry_figures())
    EXPECT_FALSE(fs::exists(root / "d" / (file + ".csv"))) << file;
  for (const char* file : {"class_value_alignment_against_n", "class_loo_norm_against_n"}) {
    EXPECT_FALSE(fs::exists(root / "d" / (std::string(file) + ".csv"))) << file;
    EXPECT_NE(older.out.find(std::string("left out Mudarisov et al., Fig. 4(b): ") + file),
              std::string::npos)
        << older.out;
  }
  // The atlas of that study names each missing kind and why.
  ASSERT_EQ(cli("paper --study '" + (root / "older").string() + "' --out '" +
                (root / "atlas").string() + "'")
                .exit,
            0);
  const CsvTable index = table(root / "atlas/atlas.csv");
  for (const PerNColumn& c : per_n_columns()) {
    bool listed = false;
    for (const auto& row : index.rows)
      if (row[1] == std::string(c.file) + ".csv") {
        listed = true;
        EXPECT_EQ(row[2], "left out") << c.file;
        EXPECT_NE(row[3].find("run the study again"), std::string::npos) << row[3];
      }
    EXPECT_TRUE(listed) << c.file;
  }

  // Without --curves: refused, saying how to get them.
  ASSERT_EQ(cli("study run '" + kModel + "' " + sentences + " --out '" + (root / "plain").string() + "'").exit, 0);
  const CliRun plain = cli("figure-set --study '" + (root / "plain").string() + "' --out '" + (root / "c").string() + "'");
  EXPECT_EQ(plain.exit, 2);
  EXPECT_NE(plain.out.find("study run --curves"), std::string::npos) << plain.out;
  // Damaged curves: the record's file and line are named.
  const fs::path records = root / "study/shards/shard-0-of-2/records.jsonl";
  std::string text = read_text(records);
  const std::string pristine = text;
  const auto at = text.find("\"b0\":[");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 6, "\"b0\":[\"0x1p+0\",");
  std::ofstream(records) << text;
  const CliRun damaged = cli("figure-set --study '" + (root / "study").string() + "' --out '" + (root / "d").string() + "'");
  EXPECT_EQ(damaged.exit, 2);
  EXPECT_NE(damaged.out.find("records.jsonl:1"), std::string::npos) << damaged.out;
  EXPECT_NE(damaged.out.find("beta0"), std::string::npos) << damaged.out;
  // Finite but impossible: a head's alpha_0 of 2^1000 would pool into inf.
  text = read_text(records);
  const auto head = text.find("\"heads\":[{\"a\":\"");
  ASSERT_NE(head, std::string::npos);
  const auto value = head + 15;
  text.replace(value, text.find('"', value) - value, "0x1p+1000");
  std::ofstream(records) << text;
  const CliRun impossible =
      cli("figure-set --study '" + (root / "study").string() + "' --out '" + (root / "e").string() + "'");
  EXPECT_EQ(impossible.exit, 2);
  EXPECT_NE(impossible.out.find("records.jsonl:1: alpha0: 1.07151e+301 is outside its range [0, 1]"),
            std::string::npos)
      << impossible.out;
  // The head classes must account for every head (the damages above undone).
  text.replace(value, text.find('"', value) - value, "0x1p-2");
  text.replace(text.find("\"b0\":[\"0x1p+0\","), 15, "\"b0\":[");
  const auto classes = text.find("\"h\":", text.find("\"classes\":"));
  ASSERT_NE(classes, std::string::npos);
  text.replace(classes + 4, text.find(',', classes) - classes - 4, "99");
  std::ofstream(records) << text;
  const CliRun miscounted = cli("figure-set --study '" + (root / "study").string() + "' --out '" +
                                (root / "f").string() + "'");
  EXPECT_EQ(miscounted.exit, 2);
  EXPECT_NE(miscounted.out.find("records.jsonl:1: classes: "), std::string::npos) << miscounted.out;
  EXPECT_NE(miscounted.out.find("heads classed, the study has 16"), std::string::npos)
      << miscounted.out;
  // Value-direction counts beyond the pairs a sentence has.
  text = pristine;
  const auto counts = text.find("\"vc\":[");
  ASSERT_NE(counts, std::string::npos);
  text.replace(counts + 6, text.find(',', counts) - counts - 6, "99999999");
  std::ofstream(records) << text;
  const CliRun overcounted = cli("figure-set --study '" + (root / "study").string() + "' --out '" +
                                 (root / "g").string() + "'");
  EXPECT_EQ(overcounted.exit, 2);
  EXPECT_NE(overcounted.out.find("records.jsonl:1: value cosine counts"), std::string::npos)
      << overcounted.out;
}

// Every figure of the set explains each drawn series in its legend (the F_N
// figure's dashed random baselines by one entry in each layer's colour).
TEST(FigureSet, EveryDrawnSeriesHasOneLegendEntry) {
  const sinkscope::models::LoadedModel model = sinkscope::models::loaded_model_open(kModel);
  sinkscope::document::FigureSetParams params;
  params.sparsificationSentences = 1;
  const auto figures = sinkscope::document::figure_set(
      model, {"The cat sat on the mat because it was tired.", "A dog ran home."}, params);
  EXPECT_GE(figures.size(), 6u);
  for (const sinkscope::document::SetFigure& f : figures)
    for (const std::string& gap :
         sinkscope::testing::legend_gaps(sinkscope::views::view_json(f.plot)))
      ADD_FAILURE() << f.file << ": " << gap;
}

// `paper`: the figure set, report.pdf with every drawn figure in the papers'
// order with its caption, and atlas.csv naming what is drawn and why not.
TEST(FigureSet, PaperWritesTheAtlasAndItsReport) {
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  std::ofstream(root / "s.txt")
      << "The cat sat on the mat because it was tired.\nA dog ran home.\n";
  const CliRun run = cli("paper '" + kModel + "' --sentences '" + (root / "s.txt").string() +
                         "' --out '" + (root / "a").string() + "' --sparsification-sentences 1");
  ASSERT_EQ(run.exit, 0) << run.out;
  const CsvTable index = table(root / "a/atlas.csv");
  std::vector<std::string> drawn;
  for (const auto& row : index.rows) {
    if (row[2] == "drawn") {
      drawn.push_back(row[1].substr(0, row[1].size() - 4));
      EXPECT_TRUE(fs::exists(root / "a" / row[1])) << row[1];
    } else {
      EXPECT_FALSE(row[3].empty()) << row[0] << ": a reason";
    }
  }
  // The built-in decoder has an output head: every kind the set can draw is drawn.
  for (const std::string& name : every_figure())
    EXPECT_NE(std::find(drawn.begin(), drawn.end(), name), drawn.end()) << name;
  // One page of contents, then two figures a page, each captioned in the papers' order.
  std::size_t figures = 0;  // tables (reference_frame, head_class_distribution) have no page
  for (const std::string& name : drawn) figures += fs::exists(root / "a" / (name + ".pdf"));
  const PdfText text = pdf_text((root / "a/report.pdf").string());
  ASSERT_TRUE(text.readable);
  const std::string all =
      shell("pdftotext -layout '" + (root / "a/report.pdf").string() + "' -").out;
  // Front matter (contents, tables, lists) first; the first figure's caption opens the figures.
  std::vector<std::string> pages{""};
  for (char c : all)
    if (c == '\f')
      pages.emplace_back();
    else
      pages.back().push_back(c);
  if (pages.back().empty()) pages.pop_back();
  std::size_t firstFigurePage = 0;
  while (firstFigurePage < pages.size() &&
         pages[firstFigurePage].find("Figure 1. (") == std::string::npos)
    ++firstFigurePage;
  EXPECT_GE(firstFigurePage, 1u);
  EXPECT_EQ(pages.size() - firstFigurePage, (figures + 1) / 2) << "two figures a page";
  // The tables drawn as tables: Table 2's diagnostics, each with its interval.
  for (const char* diagnostic :
       {"entropy", "top1", "sink_attention", "current_token", "top_n_mass"})
    EXPECT_NE(all.find(diagnostic), std::string::npos) << diagnostic;
  EXPECT_NE(all.find("spearman [95%]"), std::string::npos);
  // The front pages' words (tables' cells included) inside the text width, none on another.
  for (std::size_t page = 1; page <= firstFigurePage; ++page) {
    const PdfText front = pdf_text((root / "a/report.pdf").string(), static_cast<int>(page));
    ASSERT_TRUE(front.readable);
    const double margin = 16 * 72.0 / 25.4;
    for (std::size_t i = 0; i < front.words.size(); ++i) {
      const PdfWord& w = front.words[i];
      EXPECT_GE(w.box.left(), margin - 1) << "page " << page << ": " << w.text;
      EXPECT_LE(w.box.right(), front.width - margin + 1) << "page " << page << ": " << w.text;
      for (std::size_t j = i + 1; j < front.words.size(); ++j) {
        const QRectF overlap = w.box.intersected(front.words[j].box);
        EXPECT_FALSE(overlap.width() > 1.0 && overlap.height() > 1.5)
            << "page " << page << ": " << w.text << " on " << front.words[j].text;
      }
    }
  }
  std::size_t at = 0;
  for (const char* paper : {"(Ruscio et al., Betti curves)", "(Barbero et al., the sink metric)",
                            "(Mudarisov et al., Fig. 2)", "(Mudarisov et al., Fig. 8 (left))",
                            "(Mudarisov et al., Fig. 19)"}) {
    const std::size_t next = all.find(paper, at);
    EXPECT_NE(next, std::string::npos) << paper << " after offset " << at;
    if (next != std::string::npos) at = next;
  }
  for (std::size_t k = 1; k <= figures; ++k)
    EXPECT_NE(all.find("Figure " + std::to_string(k) + ". ("), std::string::npos) << k;
  // Fig. 3(b)'s counts: every head of every layer (4 x 4) meets each sentence's T - 1 non-sink
  // keys once from the sink and in C(T - 1, 2) pairs (T from bos_removal.csv; no zero values).
  {
    const CsvTable cosines = table(root / "a/value_cosine_distribution.csv");
    const CsvTable sentences = table(root / "a/bos_removal.csv");
    double sink = 0, pairs = 0, sinkWanted = 0, pairsWanted = 0;
    for (const auto& row : cosines.rows)
      sink += std::stod(row[static_cast<std::size_t>(column(cosines, "sink_count"))]),
          pairs += std::stod(row[static_cast<std::size_t>(column(cosines, "pair_count"))]);
    for (const auto& row : sentences.rows) {
      const double others =
          std::stod(row[static_cast<std::size_t>(column(sentences, "tokens"))]) - 1;
      sinkWanted += 16 * others, pairsWanted += 16 * others * (others - 1) / 2;
    }
    EXPECT_EQ(sink, sinkWanted);
    EXPECT_EQ(pairs, pairsWanted);
    EXPECT_EQ(cosines.rows.size(), 40u);
  }
  EXPECT_NE(all.find("Pooled over 2 sentences"), std::string::npos);
  // The same report as one web page: a figure element per figure, its drawing inline.
  {
    const std::string html = read_text(root / "a/report.html");
    std::size_t svgs = 0, figureElements = 0;
    for (std::size_t at = html.find("<svg"); at != std::string::npos;
         at = html.find("<svg", at + 1))
      ++svgs;
    for (std::size_t at = html.find("<figure id="); at != std::string::npos;
         at = html.find("<figure id=", at + 1))
      ++figureElements;
    EXPECT_EQ(svgs, figures);
    EXPECT_EQ(figureElements, figures);
    EXPECT_NE(html.find("spearman [95%]"), std::string::npos);
    EXPECT_EQ(html.find("<script"), std::string::npos);
    EXPECT_EQ(html.find("<?xml"), std::string::npos);
  }
  // Written files are never replaced without --force.
  const CliRun again = cli("paper '" + kModel + "' --sentences '" + (root / "s.txt").string() +
                           "' --out '" + (root / "a").string() + "'");
  EXPECT_NE(again.exit, 0) << again.out;
  EXPECT_NE(again.out.find("sinkscope paper:"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("exists"), std::string::npos) << again.out;
}

// Fig. 3(b) recomputed here from the model's value vectors (another path:
// one forward pass, cosines as dot / (|a| |b|), own binning): every head's
// cos(v_0, v_k), k > 0, and its non-sink pairs at the last query, in 40 bins
// over [-1, 1]. The passes may round differently (threads): at most a
// couple of cosines on a bin edge may land in the neighbouring bin.
TEST(FigureSet, ValueCosineCountsEqualARecomputationFromTheValues) {
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  const std::string text = "The old lighthouse keeper counted the ships at dawn.";
  std::ofstream(root / "one.txt") << text << "\n";
  ASSERT_EQ(cli("figure-set '" + kModel + "' --sentences '" + (root / "one.txt").string() +
                "' --out '" + (root / "set").string() + "' --sparsification-sentences 0")
                .exit,
            0);
  const CsvTable drawn = table(root / "set/value_cosine_distribution.csv");
  ASSERT_EQ(drawn.rows.size(), 40u);
  const sinkscope::models::SingleThreadedBlas exactProducts;
  const auto model = sinkscope::models::loaded_model_open(kModel);
  const auto run = sinkscope::models::loaded_model_run(model, text);
  const auto& trace = run.trace;
  std::array<long long, 40> sink{}, pairs{};
  auto bin = [](double c) {
    return std::min(39, static_cast<int>(std::floor((std::clamp(c, -1.0, 1.0) + 1.0) * 20.0)));
  };
  for (int l = 0; l < trace.layers(); ++l) {
    const auto capture = trace.layer(l);
    const int T = capture.tokens, d = capture.head_dim;
    for (int h = 0; h < capture.heads; ++h) {
      auto v = [&](int k, int c) {
        return static_cast<double>(capture.values[static_cast<std::size_t>((h * T + k) * d + c)]);
      };
      auto cosine = [&](int a, int b) {
        double ab = 0, aa = 0, bb = 0;
        for (int c = 0; c < d; ++c)
          ab += v(a, c) * v(b, c), aa += v(a, c) * v(a, c), bb += v(b, c) * v(b, c);
        return ab / std::sqrt(aa * bb);
      };
      for (int k = 1; k < T; ++k) {
        ++sink[static_cast<std::size_t>(bin(cosine(0, k)))];
        for (int q = k + 1; q < T; ++q) ++pairs[static_cast<std::size_t>(bin(cosine(k, q)))];
      }
    }
  }
  long long sinkMoved = 0, pairsMoved = 0;
  for (std::size_t b = 0; b < 40; ++b) {
    sinkMoved += std::llabs(
        std::stoll(drawn.rows[b][static_cast<std::size_t>(column(drawn, "sink_count"))]) - sink[b]);
    pairsMoved += std::llabs(
        std::stoll(drawn.rows[b][static_cast<std::size_t>(column(drawn, "pair_count"))]) -
        pairs[b]);
  }
  EXPECT_LE(sinkMoved, 2);
  EXPECT_LE(pairsMoved, 2);
  long long total = 0;
  for (long long c : pairs) total += c;
  EXPECT_GT(total, 0);
}

// Several models side by side: each model's own set in the folder of its
// label, and at the top every kind with a panel per model and one CSV whose
// rows are the models' own after a column naming the model; each model's
// sink rate equals the pooled table analyze --sentences writes (another code
// path), and bad labels are refused before anything is written.
TEST(FigureSet, PaperDrawsSeveralModelsSideBySide) {
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  std::ofstream(root / "s.txt") << "The cat sat on the mat because it was tired.\nA dog ran "
                                   "home.\nBirds sing in the early morning light.\n";
  const std::string encoder = SINKSCOPE_SOURCE_DIR "/resources/models/learned-encoder";
  const std::string sentences = " --sentences '" + (root / "s.txt").string() + "'";
  const fs::path out = root / "cmp";
  const CliRun run = cli("paper '" + kModel + "' '" + encoder + "'" + sentences + " --out '" +
                         out.string() + "' --sparsification-sentences 1 --labels 'dec,<enc>'");
  ASSERT_EQ(run.exit, 0) << run.out;
  // A label is the user's text: "<enc>" names a folder and is escaped in the web page.
  const std::vector<std::string> labels{"dec", "<enc>"};
  std::vector<std::string> kinds = every_figure();
  for (const char* table_kind :
       {"reference_frame", "head_class_distribution", "sink_rate", "ablation_correlation"})
    kinds.push_back(table_kind);
  for (const std::string& kind : kinds) {
    const CsvTable joined = table(out / (kind + ".csv"));
    ASSERT_FALSE(joined.columns.empty()) << kind;
    EXPECT_EQ(joined.columns.front(), "model") << kind;
    for (const std::string& label : labels) {
      const CsvTable own = table(out / label / (kind + ".csv"));
      std::vector<std::vector<std::string>> rows;
      for (const auto& row : joined.rows) {
        if (row.front() != label) continue;
        std::vector<std::string> mapped;
        for (const std::string& name : own.columns)
          mapped.push_back(row[static_cast<std::size_t>(column(joined, name))]);
        rows.push_back(mapped);
      }
      EXPECT_EQ(rows, own.rows) << kind << " of " << label;
    }
    // A drawn kind side by side: one panel per model, lettered and named.
    if (kind == "sink_rate" || fs::exists(out / "dec" / (kind + ".pdf"))) {
      ASSERT_TRUE(fs::exists(out / (kind + ".pdf"))) << kind;
      if (shell("command -v pdftotext").exit != 0) continue;
      const PdfText text = pdf_text((out / (kind + ".pdf")).string());
      ASSERT_TRUE(text.readable) << kind;
      // Exempt: the sub-figure letters (larger, bold) and a tick's exponent
      // (superscript: 1.5·10⁻⁵).
      for (const std::string& problem : pdf_text_problems(text, 8.0, R"(\([a-z]\)|-[0-9]+)"))
        ADD_FAILURE() << kind << ": " << problem;
      if (kind == "sink_rate") continue;
      // (poppler's word list writes "<enc>" as XHTML: &lt;enc&gt;)
      for (const char* word : {"(a)", "dec", "(b)", "enc&gt;"})
        EXPECT_TRUE(
            std::any_of(text.words.begin(), text.words.end(),
                        [&](const PdfWord& w) { return w.text.find(word) != std::string::npos; }))
            << kind << ": " << word;
    }
  }
  // The sink rate of each model: analyze's pooled sink_rate.csv, same resamples.
  const CsvTable rates = table(out / "sink_rate.csv");
  ASSERT_EQ(rates.rows.size(), 2u);
  for (std::size_t m = 0; m < 2; ++m) {
    const fs::path pooled = root / ("analyze-" + labels[m]);
    ASSERT_EQ(cli("analyze '" + (m == 0 ? kModel : encoder) + "'" + sentences + " --out '" +
                  pooled.string() + "'")
                  .exit,
              0);
    const CsvTable reference = table(pooled / "sink_rate.csv");
    ASSERT_EQ(reference.rows.size(), 1u);
    EXPECT_EQ(rates.rows[m].front(), labels[m]);
    for (const char* name : {"sink_rate_percent", "sink_rate_percent_lo", "sink_rate_percent_hi",
                             "mean_boost", "mean_boost_lo", "mean_boost_hi"})
      EXPECT_NEAR(std::stod(rates.rows[m][static_cast<std::size_t>(column(rates, name))]),
                  std::stod(reference.rows[0][static_cast<std::size_t>(column(reference, name))]),
                  1e-9)
          << labels[m] << " " << name;
  }
  // atlas.csv names the models that drew each kind.
  bool keyImportance = false;
  for (const auto& row : table(out / "atlas.csv").rows)
    if (row[1] == "key_importance_by_layer.csv") {
      keyImportance = true;
      EXPECT_EQ(row[2], "dec;<enc>");
      EXPECT_EQ(row[3], "");
    }
  EXPECT_TRUE(keyImportance);
  EXPECT_TRUE(fs::exists(out / "dec/atlas.csv"));
  // The report: the comparisons captioned panel by panel, and a PDF poppler reads without an error.
  if (shell("command -v pdftotext").exit == 0) {
    const std::string all = shell("pdftotext '" + (out / "report.pdf").string() + "' - 2>&1").out;
    for (const char* words : {"One panel per model", "(a) dec", "(b) <enc>", "dec: ", "<enc>: "})
      EXPECT_NE(all.find(words), std::string::npos) << words;
    const CliRun drawn = shell("pdftoppm -r 10 -png '" + (out / "report.pdf").string() + "' '" +
                               (root / "page").string() + "' 2>&1");
    EXPECT_EQ(drawn.exit, 0);
    EXPECT_EQ(drawn.out.find("Error"), std::string::npos) << drawn.out;
  }
  // The web page: every comparison figure inline, the label escaped wherever it is written.
  const std::string html = read_text(out / "report.html");
  EXPECT_EQ(html.find("<enc>"), std::string::npos);
  EXPECT_NE(html.find("&lt;enc&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  std::size_t svgs = 0, captions = 0;
  for (std::size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1))
    ++svgs;
  for (std::size_t at = html.find("<figcaption>"); at != std::string::npos;
       at = html.find("<figcaption>", at + 1))
    ++captions;
  EXPECT_GT(svgs, 20u);
  EXPECT_EQ(svgs, captions);
  // Labels that cannot name the models' folders: refused, nothing written.
  for (const char* bad : {"--labels dec", "--labels a/b,c", "--labels same,same"}) {
    const CliRun refused = cli("paper '" + kModel + "' '" + encoder + "'" + sentences + " --out '" +
                               (root / "bad").string() + "' " + bad);
    EXPECT_EQ(refused.exit, 2) << bad << ": " << refused.out;
    EXPECT_NE(refused.out.find("--labels"), std::string::npos) << refused.out;
    EXPECT_FALSE(fs::exists(root / "bad")) << bad;
  }
}
