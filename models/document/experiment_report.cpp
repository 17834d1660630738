#include "models/document/experiment_report.h"

#include "models/cpu_runtime.h"

#include <algorithm>
#include <cmath>
#include <deque>

#include "models/document/report_parts.h"
#include "models/fisher.h"
#include "models/io/table_io.h"

namespace sinkscope::document {

namespace fs = std::filesystem;
using io::csv_number;

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

using report::num;

namespace {

std::string list(const std::vector<double>& v) {
  std::string s;
  for (double x : v) s += (s.empty() ? "" : " ") + num(x);
  return s;
}

// What every experiment reads: the sentence's plain run and the parameters.
struct ExperimentInput {
  const models::Model& model;
  const models::Trace& base;
  const std::vector<std::string>& tokens;  // display strings of the run's tokens
  bool firstIsSpecial;
  const ExperimentParams& p;
  const models::ProgressFn& progress;
};

// What an experiment writes: header lines and tables held in memory (a deque:
// a table handed out stays where it is while others are added).
struct ExperimentOutput {
  std::vector<std::pair<std::string, std::string>> header;
  std::deque<std::pair<std::string, io::CsvTable>> files;
  io::CsvTable& table(const std::string& name, std::vector<std::string> columns) {
    files.emplace_back(name, io::CsvTable{});
    files.back().second.columns = std::move(columns);
    return files.back().second;
  }
};

namespace m = models;

void kl_tables(const ExperimentInput& x, ExperimentOutput& out) {
  out.header.emplace_back("sinks", "percentile mode, p = " + num(x.p.removal.percentile) +
                                       ", gamma = " + num(x.p.removal.gamma) +
                                       " of all T queries (metrics.md s. 1), per head");
  out.header.emplace_back(
      "removal",
      x.p.removal.beforeSoftmax
          ? "keys masked before softmax (a query left with no visible key keeps its keys)"
          : "keys zeroed after softmax, rows renormalised (uniform over the other visible "
            "keys when a row empties; a row with no other visible key, such as query 0 of a "
            "causal model when key 0 is a sink, is left unchanged)");
  out.header.emplace_back("kl", "mean over positions of KL(P_base || P_removed), nats");
  auto& t = out.table("kl.csv", {"layers", "mean_kl", "edited_heads"});
  for (const auto& r : m::kl_sink_removal(x.model, x.base, x.p.removal, x.progress))
    t.rows.push_back({r.scope, num(r.meanKl), std::to_string(r.editedHeads)});
}

// BOS removal: each token's NLL with and without the first token, their mean,
// and both runs' attention maps.
void bos_tables(const ExperimentInput& x, ExperimentOutput& out, const fs::path& dir, bool force,
                io::AtomicFileSet& streamed) {
  const m::BosRemoval r = m::bos_removal(x.model, x.base, x.firstIsSpecial, x.progress);
  out.header.emplace_back("nll", x.base.causal()
                                     ? "next-token NLL (nats) of each token both runs predict"
                                     : "NLL (nats) of each token at its own position");
  auto& t = out.table("bos_nll.csv",
                      {"position", "token", "nll_with_first", "nll_without_first", "delta"});
  double with = 0, without = 0;
  for (std::size_t k = 0; k < r.tokens.size(); ++k) {
    t.rows.push_back({std::to_string(r.tokens[k]), x.tokens[static_cast<std::size_t>(r.tokens[k])],
                      num(r.nllWith[k]), num(r.nllWithout[k]),
                      num(r.nllWithout[k] - r.nllWith[k])});
    with += r.nllWith[k];
    without += r.nllWithout[k];
  }
  // The number 003 reports: the mean change, beside its per-token table.
  const double n = std::max<std::size_t>(1, r.tokens.size());
  auto& summary = out.table(
      "bos_summary.csv", {"tokens", "mean_nll_with_first", "mean_nll_without_first", "mean_delta"});
  summary.rows.push_back({std::to_string(r.tokens.size()), num(with / n), num(without / n),
                          num((without - with) / n)});
  out.header.emplace_back("positions", "query and key are positions in the original input");
  // One row per visible pair of every head of both runs: gigabytes of text
  // for a real model, so streamed into its file head by head, never held.
  for (const char* name : {"bos_nll.csv", "bos_summary.csv", "bos_attention.csv"})
    io::output_check_replaceable(dir / name, force);
  io::CsvTable head;
  head.comments = out.header;
  head.columns = {"run", "layer", "head", "query", "key", "weight"};
  const std::size_t attention = streamed.open(dir / "bos_attention.csv");
  streamed.append(attention, io::csv_render_head(head));
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
              io::csv_append_row(
                  rows, {name, std::to_string(l), std::to_string(h), std::to_string(i + offset),
                         std::to_string(j + offset), num(A.at(i, j))});
        streamed.append(attention, rows);
      }
    }
}

void fisher_tables(const ExperimentInput& x, ExperimentOutput& out) {
  out.header.emplace_back("fisher",
                          "E_t ||grad_theta_l log p(x_t | context)||^2 over the input's "
                          "tokens (autograd); layer -1: embeddings, final norm and head");
  auto& t = out.table("fisher.csv", {"layer", "parameters", "trace", "per_parameter"});
  for (const auto& f : m::fisher_per_layer(x.model, x.base.ids(), x.progress))
    t.rows.push_back(
        {std::to_string(f.layer), std::to_string(f.parameters), num(f.trace), num(f.perParameter)});
}

void perturb_tables(const ExperimentInput& x, ExperimentOutput& out) {
  const m::Perturbation& q = x.p.perturbation;
  out.header.emplace_back(
      "perturbation",
      "position " + std::to_string(q.position) +
          (q.replacementId ? ", token replaced by id " + std::to_string(*q.replacementId)
                           : ", Gaussian embedding noise of relative size " + num(q.sigma) +
                                 " (seed " + std::to_string(q.seed) + ")") +
          (q.withoutFirstToken ? ", both runs without the first token" : ""));
  out.header.emplace_back("change",
                          "||h_l(i) - h'_l(i)|| / ||h_l(i)||, h_l = residual stream entering "
                          "layer l (l = layers: the output)");
  const m::PerturbationMap map = m::perturbation_sensitivity(x.model, x.base.ids(), q, x.progress);
  auto& t = out.table("perturb.csv", {"layer", "position", "token", "relative_change"});
  const int offset = q.withoutFirstToken ? 1 : 0;
  for (int l = 0; l <= map.layers; ++l)
    for (int i = 0; i < map.tokens; ++i)
      t.rows.push_back({std::to_string(l), std::to_string(i + offset),
                        x.tokens[static_cast<std::size_t>(i + offset)],
                        num(map.change[static_cast<std::size_t>(l * map.tokens + i)])});
}

void rank_tables(const ExperimentInput& x, ExperimentOutput& out) {
  out.header.emplace_back("effective_rank",
                          "exp of the entropy of the normalised singular values of "
                          "the [T x hidden] residual stream entering each layer");
  auto& t = out.table("effective_rank.csv", {"layer", "effective_rank"});
  const auto ranks = m::effective_rank_per_layer(x.base);
  for (std::size_t l = 0; l < ranks.size(); ++l)
    t.rows.push_back({std::to_string(l), num(ranks[l])});
}

void ablation_tables(const ExperimentInput& x, ExperimentOutput& out, const std::string& kind) {
  out.header.emplace_back("dnll",
                          "mean NLL with the ablation minus without, on the input's tokens "
                          "(heads' outputs zeroed before the output projection)");
  out.header.emplace_back("base_nll", num(m::trace_mean_nll(x.base)));
  const auto dnll =
      m::head_ablation_dnll(x.model, x.base, true, kind == "ablate" ? x.progress : m::ProgressFn{});
  if (kind == "ablate") {
    auto& t = out.table("ablation.csv", {"layer", "head", "dnll"});
    for (int l = 0; l < x.base.layers(); ++l)
      for (int h = 0; h < x.base.heads(); ++h)
        t.rows.push_back({std::to_string(l), std::to_string(h),
                          num(dnll[static_cast<std::size_t>(l * x.base.heads() + h)])});
    out.header.emplace_back("diagnostics", "averaged over queries i >= 1, top-N mass with N = " +
                                               std::to_string(x.p.topN));
    auto& c = out.table("ablation_correlation.csv", {"diagnostic", "spearman", "pearson"});
    for (const auto& r : m::diagnostic_dnll_correlation(x.base, dnll, x.p.topN))
      c.rows.push_back({r.diagnostic, io::csv_number_or_empty(r.spearman),
                        io::csv_number_or_empty(r.pearson)});  // undefined: empty
  } else {
    const m::Sparsification& s = x.p.sparsification;
    std::string pinned;
    for (const auto& [l, h] : s.pinned)
      pinned += (pinned.empty() ? "" : " ") + std::to_string(l) + ":" + std::to_string(h);
    out.header.emplace_back("retained", list(s.retained) + " (fraction of heads kept per layer)");
    out.header.emplace_back("pinned", pinned.empty() ? "none" : pinned);
    out.header.emplace_back(
        "random", std::to_string(s.randomSeeds) + " seeds from " + std::to_string(s.seed));
    auto& t = out.table("sparsification.csv", {"ranking", "retained", "dnll", "dnll_std"});
    for (const auto& q : m::sparsification_curves(x.model, x.base, dnll, s, x.progress))
      t.rows.push_back(
          {m::head_ranking_name(q.ranking), num(q.retained), num(q.dnll), num(q.dnllStd)});
  }
}

}  // namespace

std::vector<fs::path> experiment_write(const models::LoadedModel& loaded, const std::string& text,
                                       const std::string& kind, const ExperimentParams& p,
                                       const fs::path& dir, bool force,
                                       const models::ProgressFn& progress) {
  // On one BLAS thread, as analyze and corpus runs: the same numbers for every
  // --threads, and those a one-sentence corpus pools.
  const m::SingleThreadedBlas exactProducts;
  const m::SentenceTrace run = m::loaded_model_run(loaded, text);
  const m::Model& model = *loaded.model;
  const ExperimentInput in{model,
                           run.trace,
                           run.encoding.display,
                           !run.encoding.special.empty() && run.encoding.special.front(),
                           p,
                           progress};
  ExperimentOutput out;
  out.header = {{"tool", std::string("sinkscope-cli experiment ") + kind + " " + SINKSCOPE_VERSION},
                {"model", model.folder().string()},
                {"model_type", model.config().model_type},
                {"text", text},
                {"tokens", std::to_string(run.trace.tokens())}};
  out.header.insert(out.header.end(), p.provenance.begin(), p.provenance.end());
  io::AtomicFileSet streamed(force);  // tables too big to hold, and then the rest
  if (kind == "kl")
    kl_tables(in, out);
  else if (kind == "bos")
    bos_tables(in, out, dir, force, streamed);
  else if (kind == "fisher")
    fisher_tables(in, out);
  else if (kind == "perturb")
    perturb_tables(in, out);
  else if (kind == "rank")
    rank_tables(in, out);
  else if (kind == "ablate" || kind == "sparsify")
    ablation_tables(in, out, kind);
  else
    throw models::ModelRunError("experiment: unknown kind \"" + kind + "\"");

  std::vector<fs::path> written;
  for (auto& [name, t] : out.files) {
    t.comments = out.header;
    streamed.append(streamed.open(dir / name), io::csv_render_taking(t));
    written.push_back(dir / name);
  }
  if (kind == "bos") written.push_back(dir / "bos_attention.csv");
  streamed.commit();  // all of them or none
  return written;
}

}  // namespace sinkscope::document
