#include "models/document/experiment_report.h"

#include "models/cpu_runtime.h"

#include <algorithm>
#include <cmath>

#include "analysis/table_io.h"
#include "models/fisher.h"

namespace sinkscope::document {

namespace fs = std::filesystem;
using analysis::csv_number;

const std::vector<std::pair<std::string, std::string>>& experiment_kinds() {
  static const std::vector<std::pair<std::string, std::string>> kinds{
      {"kl",
       "KL(P_base || P_removed) of the output distributions, sinks removed per layer and in all"},
      {"bos", "run without the first token: NLL change per token and both attention maps"},
      {"fisher", "empirical Fisher trace per layer (autograd), raw and per parameter"},
      {"perturb", "relative change of every layer's hidden state at every position"},
      {"rank", "effective rank of the hidden states entering every layer"},
      {"ablate", "dNLL of ablating each head alone, and its correlation with head diagnostics"},
      {"sparsify", "dNLL against the fraction of heads kept, for every ranking of s. 8"}};
  return kinds;
}

namespace {

std::string num(double v) { return csv_number(v); }

std::string list(const std::vector<double>& v) {
  std::string s;
  for (double x : v) s += (s.empty() ? "" : " ") + num(x);
  return s;
}

}  // namespace

std::vector<fs::path> experiment_write(const models::LoadedModel& loaded, const std::string& text,
                                       const std::string& kind, const ExperimentParams& p,
                                       const fs::path& dir, bool force,
                                       const models::ProgressFn& progress) {
  namespace m = models;
  // On one BLAS thread, as analyze and corpus runs: the same numbers for every
  // --threads, and those a one-sentence corpus pools.
  const m::SingleThreadedBlas exactProducts;
  const m::SentenceTrace run = m::loaded_model_run(loaded, text);
  const m::Trace& base = run.trace;
  const m::Model& model = *loaded.model;
  const auto& tokens = run.encoding.display;
  const bool firstIsSpecial = !run.encoding.special.empty() && run.encoding.special.front();
  std::vector<std::pair<std::string, std::string>> header{
      {"tool", std::string("sinkscope-cli experiment ") + kind + " " + SINKSCOPE_VERSION},
      {"model", model.folder().string()},
      {"model_type", model.config().model_type},
      {"text", text},
      {"tokens", std::to_string(base.tokens())}};
  header.insert(header.end(), p.provenance.begin(), p.provenance.end());
  std::vector<std::pair<std::string, analysis::CsvTable>> files;
  analysis::AtomicFileSet streamed(force);  // tables too big to hold, and then the rest
  auto table = [&](const std::string& name,
                   std::vector<std::string> columns) -> analysis::CsvTable& {
    files.emplace_back(name, analysis::CsvTable{});
    files.back().second.columns = std::move(columns);
    return files.back().second;
  };

  if (kind == "kl") {
    header.emplace_back("sinks", "percentile mode, p = " + num(p.removal.percentile) +
                                     ", gamma = " + num(p.removal.gamma) +
                                     " of all T queries (metrics.md s. 1), per head");
    header.emplace_back(
        "removal",
        p.removal.beforeSoftmax
            ? "keys masked before softmax (a query left with no visible key keeps its keys)"
            : "keys zeroed after softmax, rows renormalised (uniform over the other visible "
              "keys when a row empties; a row with no other visible key, such as query 0 of a "
              "causal model when key 0 is a sink, is left unchanged)");
    header.emplace_back("kl", "mean over positions of KL(P_base || P_removed), nats");
    auto& t = table("kl.csv", {"layers", "mean_kl", "edited_heads"});
    for (const auto& r : m::kl_sink_removal(model, base, p.removal, progress))
      t.rows.push_back({r.scope, num(r.meanKl), std::to_string(r.editedHeads)});
  } else if (kind == "bos") {
    const m::BosRemoval r = m::bos_removal(model, base, firstIsSpecial, progress);
    header.emplace_back("nll", base.causal()
                                   ? "next-token NLL (nats) of each token both runs predict"
                                   : "NLL (nats) of each token at its own position");
    auto& t =
        table("bos_nll.csv", {"position", "token", "nll_with_first", "nll_without_first", "delta"});
    double with = 0, without = 0;
    for (std::size_t k = 0; k < r.tokens.size(); ++k) {
      t.rows.push_back({std::to_string(r.tokens[k]), tokens[static_cast<std::size_t>(r.tokens[k])],
                        num(r.nllWith[k]), num(r.nllWithout[k]),
                        num(r.nllWithout[k] - r.nllWith[k])});
      with += r.nllWith[k];
      without += r.nllWithout[k];
    }
    // The number 003 reports: the mean change, beside its per-token table.
    const double n = std::max<std::size_t>(1, r.tokens.size());
    auto& summary = table("bos_summary.csv", {"tokens", "mean_nll_with_first",
                                              "mean_nll_without_first", "mean_delta"});
    summary.rows.push_back({std::to_string(r.tokens.size()), num(with / n), num(without / n),
                            num((without - with) / n)});
    header.emplace_back("positions", "query and key are positions in the original input");
    // One row per visible pair of every head of both runs: gigabytes of text
    // for a real model, so streamed into its file head by head, never held.
    for (const char* name : {"bos_nll.csv", "bos_summary.csv", "bos_attention.csv"})
      analysis::output_check_replaceable(dir / name, force);
    analysis::CsvTable head;
    head.comments = header;
    head.columns = {"run", "layer", "head", "query", "key", "weight"};
    const std::size_t attention = streamed.open(dir / "bos_attention.csv");
    streamed.append(attention, analysis::csv_render_head(head));
    std::string rows;
    for (const auto& [name, trace, offset] :
         {std::tuple<const char*, const m::Trace*, int>{"with_first", &r.with, 0},
          std::tuple<const char*, const m::Trace*, int>{"without_first", &r.without, 1}})
      for (int l = 0; l < trace->layers(); ++l) {
        const m::LayerCapture cap = trace->layer(l);
        for (int h = 0; h < cap.heads; ++h) {
          const auto A = cap.attentionOf(h);
          rows.clear();
          for (int i = 0; i < A.size; ++i)
            for (int j = 0; j < A.size; ++j)
              if (A.visible(i, j))
                analysis::csv_append_row(
                    rows, {name, std::to_string(l), std::to_string(h), std::to_string(i + offset),
                           std::to_string(j + offset), num(A.at(i, j))});
          streamed.append(attention, rows);
        }
      }
  } else if (kind == "fisher") {
    header.emplace_back("fisher",
                        "E_t ||grad_theta_l log p(x_t | context)||^2 over the input's "
                        "tokens (autograd); layer -1: embeddings, final norm and head");
    auto& t = table("fisher.csv", {"layer", "parameters", "trace", "per_parameter"});
    for (const auto& f : m::fisher_per_layer(model, base.ids(), progress))
      t.rows.push_back({std::to_string(f.layer), std::to_string(f.parameters), num(f.trace),
                        num(f.perParameter)});
  } else if (kind == "perturb") {
    const m::Perturbation& q = p.perturbation;
    header.emplace_back(
        "perturbation",
        "position " + std::to_string(q.position) +
            (q.replacementId ? ", token replaced by id " + std::to_string(*q.replacementId)
                             : ", Gaussian embedding noise of relative size " + num(q.sigma) +
                                   " (seed " + std::to_string(q.seed) + ")") +
            (q.withoutFirstToken ? ", both runs without the first token" : ""));
    header.emplace_back("change",
                        "||h_l(i) - h'_l(i)|| / ||h_l(i)||, h_l = residual stream entering "
                        "layer l (l = layers: the output)");
    const m::PerturbationMap map = m::perturbation_sensitivity(model, base.ids(), q, progress);
    auto& t = table("perturb.csv", {"layer", "position", "token", "relative_change"});
    const int offset = q.withoutFirstToken ? 1 : 0;
    for (int l = 0; l <= map.layers; ++l)
      for (int i = 0; i < map.tokens; ++i)
        t.rows.push_back({std::to_string(l), std::to_string(i + offset),
                          tokens[static_cast<std::size_t>(i + offset)],
                          num(map.change[static_cast<std::size_t>(l * map.tokens + i)])});
  } else if (kind == "rank") {
    header.emplace_back("effective_rank",
                        "exp of the entropy of the normalised singular values of "
                        "the [T x hidden] residual stream entering each layer");
    auto& t = table("effective_rank.csv", {"layer", "effective_rank"});
    const auto ranks = m::effective_rank_per_layer(base);
    for (std::size_t l = 0; l < ranks.size(); ++l)
      t.rows.push_back({std::to_string(l), num(ranks[l])});
  } else if (kind == "ablate" || kind == "sparsify") {
    header.emplace_back("dnll",
                        "mean NLL with the ablation minus without, on the input's tokens "
                        "(heads' outputs zeroed before the output projection)");
    header.emplace_back("base_nll", num(m::trace_mean_nll(base)));
    const auto dnll =
        m::head_ablation_dnll(model, base, true, kind == "ablate" ? progress : m::ProgressFn{});
    if (kind == "ablate") {
      auto& t = table("ablation.csv", {"layer", "head", "dnll"});
      for (int l = 0; l < base.layers(); ++l)
        for (int h = 0; h < base.heads(); ++h)
          t.rows.push_back({std::to_string(l), std::to_string(h),
                            num(dnll[static_cast<std::size_t>(l * base.heads() + h)])});
      header.emplace_back("diagnostics", "averaged over queries i >= 1, top-N mass with N = " +
                                             std::to_string(p.topN));
      auto& c = table("ablation_correlation.csv", {"diagnostic", "spearman", "pearson"});
      for (const auto& r : m::diagnostic_dnll_correlation(base, dnll, p.topN))
        c.rows.push_back({r.diagnostic, analysis::csv_number_or_empty(r.spearman),
                          analysis::csv_number_or_empty(r.pearson)});  // undefined: empty
    } else {
      const m::Sparsification& s = p.sparsification;
      std::string pinned;
      for (const auto& [l, h] : s.pinned)
        pinned += (pinned.empty() ? "" : " ") + std::to_string(l) + ":" + std::to_string(h);
      header.emplace_back("retained", list(s.retained) + " (fraction of heads kept per layer)");
      header.emplace_back("pinned", pinned.empty() ? "none" : pinned);
      header.emplace_back("random",
                          std::to_string(s.randomSeeds) + " seeds from " + std::to_string(s.seed));
      auto& t = table("sparsification.csv", {"ranking", "retained", "dnll", "dnll_std"});
      for (const auto& q : m::sparsification_curves(model, base, dnll, s, progress))
        t.rows.push_back(
            {m::head_ranking_name(q.ranking), num(q.retained), num(q.dnll), num(q.dnllStd)});
    }
  } else {
    throw models::ModelRunError("experiment: unknown kind \"" + kind + "\"");
  }

  std::vector<fs::path> written;
  for (auto& [name, t] : files) {
    t.comments = header;
    streamed.append(streamed.open(dir / name), analysis::csv_render_taking(t));
    written.push_back(dir / name);
  }
  if (kind == "bos") written.push_back(dir / "bos_attention.csv");
  streamed.commit();  // all of them or none
  return written;
}

}  // namespace sinkscope::document
