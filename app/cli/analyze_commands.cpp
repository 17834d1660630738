// sinkscope-cli analyze (one sentence or pooled sentences) and experiment.
#include "app/cli/commands.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "models/corpus.h"
#include "models/document/analyze_report.h"
#include "models/document/experiment_report.h"
#include "models/input_files.h"
#include "models/loaded_model.h"
#include "models/model_identity.h"

namespace sinkscope::cli {

const char* kAnalyzeHelp =
    "usage: sinkscope-cli analyze MODEL (--text TEXT | --sentences FILE) --out DIR [--json FILE] "
    "[--force]\n"
    "                             [--percentile P] [--gamma G] [--sink-mode "
    "percentile|column-sum]\n"
    "                             [--sink-denominator all|visible]\n"
    "                             [--eps E] [--top-n N] [--query Q] [--random-subsets K] [--seed "
    "S]\n"
    "                             [--min-persistence X] [--symmetrise mean|max]\n"
    "                             [--thresholds 0.01,0.05,0.1,0.2]\n"
    "                             [--drop-first] [--remove-sinks] [--ablate L:H,...]\n"
    "                             [--rope-theta X] [--ntk-scale S] [--no-weight-spectra]\n"
    "\n"
    "Runs MODEL on TEXT and writes, for every layer and head and the head average, one CSV\n"
    "per metric family of metrics.md: sinks.csv and sink_summary.csv (s. 1), diagnostics.csv,\n"
    "persistence.csv, persistence_summary.csv (bar counts per head) and betti.csv (s. 2),\n"
    "spectra.csv, eigenvalues.csv, sign_flip.csv and effectiveness.csv (s. 3), value_space.csv\n"
    "(s. 6 at query Q, default the last, N = --top-n, with K_N^sink and the sink diagnostics)\n"
    "and value_space_curve.csv (every N from 1 to T), taxonomy.csv (s. 7), weights.csv (s. 9:\n"
    "computed once per model and kept in ~/.cache/sinkscope/weight-spectra, keyed by the\n"
    "weights' hash; SINKSCOPE_CACHE_DIR moves it; --no-weight-spectra leaves the file out),\n"
    "and layer_summary.csv: per layer and for the model, mean alpha0 and boost, the share of\n"
    "heads with boost >= 3, sink concentration, bar counts and taxonomy class shares.\n"
    "Every file starts with comment lines giving the parameters, the model and the text.\n"
    "A key is a sink when A >= tau (the p-th percentile) for at least gamma of all T queries;\n"
    "--sink-denominator visible divides by the queries that see the key instead (an option:\n"
    "in a causal model it makes the last key a sink whenever its one observer attends to it).\n"
    "--json FILE writes everything into one file (schema_version 1): \"params\" (typed),\n"
    "\"header\" (the readings of the CSV headers), \"tables\" (every CSV as columns and\n"
    "typed rows; empty fields are null) and, for --text, per-head detail under \"layers\".\n"
    "Interventions (analysed instead of the plain run, listed in every header): --drop-first\n"
    "(refused when the first token is not a special token), --remove-sinks (each head's sinks\n"
    "at --percentile/--gamma, zeroed after softmax), --ablate L:H,... (heads' outputs zeroed),\n"
    "--rope-theta X (RoPE base), --ntk-scale S (NTK-aware scaling).\n"
    "\n"
    "--sentences FILE (one sentence per line; FILE.jsonl or .json: a JSON object with a \"text\" field per\n"
    "line) pools over the sentences instead: "
    "specialisation.csv\n"
    "(specialised heads, s. 1; --specialised-share S, default 0.8), token_specialisation.csv,\n"
    "taxonomy_pooled.csv (s. 7), sink_rate.csv (Gu et al.'s sink rate with its baseline) and\n"
    "frame.csv (the reference frame of s. 4 with its evidence), layer_profile.csv (per layer,\n"
    "the mean over sentences of: sink concentration, alpha_0 and its boost, bars above\n"
    "--min-persistence, F_N at the last token or --query against its random baseline, Fiedler\n"
    "value and centralisation of the head-averaged graph per --thresholds value) and\n"
    "top_sentences.csv (per head, the sentences with the highest alpha_0). --functional adds\n"
    "functional.csv: KL of sink removal per layer and in all layers, BOS-removal NLL change\n"
    "(L + 2 more passes per sentence). Sentences run in blocks of --batch B (16) consecutive\n"
    "sentences, those of one token count in a block as one batched pass (1: one pass each).\n"
    "Every share, rate and mean carries its 95% bootstrap\n"
    "interval over the sentences (_lo and _hi columns; --bootstrap B resamples, default 200,\n"
    "0 for none; --bootstrap-seed S, default 1).\n";

// The options that decide the pooled corpus tables (sink set, sink metric,
// specialisation, the analysis behind the layer profiles, functional
// experiments), shared by analyze and study.
void parse_pooling_options(const Args& args, sinkscope::document::AnalysisSettings& p) {
  auto real = [&](const char* k, double lo, double hi) {
    return parse_real(k, args.options.at(k), lo, hi);
  };
  if (args.options.count("percentile")) p.percentile = real("percentile", 0, 100);
  if (args.options.count("gamma")) p.gamma = real("gamma", 0, 1);
  if (args.options.count("eps")) p.eps = real("eps", 0, 1);
  if (args.options.count("specialised-share")) p.specialisedShare = real("specialised-share", 0, 1);
  if (args.options.count("bootstrap"))
    p.bootstrap = parse_int("bootstrap", args.options.at("bootstrap"), 0, 100000);
  if (args.options.count("bootstrap-seed"))
    p.bootstrapSeed = parse_seed("bootstrap-seed", args.options.at("bootstrap-seed"));
  if (args.options.count("min-persistence")) p.minPersistence = real("min-persistence", 0, 1);
  if (args.options.count("top-n")) p.topN = parse_int("top-n", args.options.at("top-n"), 1, 100000);
  if (args.options.count("query"))
    p.query = parse_int("query", args.options.at("query"), 0, 1 << 24);
  if (args.options.count("random-subsets"))
    p.randomSubsets = parse_int("random-subsets", args.options.at("random-subsets"), 0, 100000);
  if (args.options.count("seed")) p.seed = parse_seed("seed", args.options.at("seed"));
  if (args.options.count("symmetrise")) {
    const std::string s = args.options.at("symmetrise");
    if (s != "mean" && s != "max") throw UsageError("option --symmetrise: use mean or max");
    p.symmetriseByMax = s == "max";
  }
  if (args.options.count("thresholds")) {
    p.thresholds.clear();
    std::stringstream ss(args.options.at("thresholds"));
    for (std::string part; std::getline(ss, part, ',');) {
      p.thresholds.push_back(parse_real("thresholds", part, 0, 1));
      if (p.thresholds.size() > 32) throw UsageError("option --thresholds: at most 32 thresholds");
    }
    if (p.thresholds.empty()) throw UsageError("option --thresholds: give at least one threshold");
  }
  p.functional = args.options.count("functional") > 0;
  if (args.options.count("batch")) p.batch = parse_int("batch", args.options.at("batch"), 1, 4096);
  if (args.options.count("sink-mode")) {
    const std::string s = args.options.at("sink-mode");
    if (s != "percentile" && s != "column-sum")
      throw UsageError("option --sink-mode: use percentile or column-sum");
    p.columnSumSinks = s == "column-sum";
  }
  if (args.options.count("sink-denominator")) {
    const std::string s = args.options.at("sink-denominator");
    if (s != "all" && s != "visible")
      throw UsageError("option --sink-denominator: use all or visible");
    p.sinkDenominator = s == "all" ? sinkscope::analysis::SinkSetParams::Denominator::AllQueries
                                   : sinkscope::analysis::SinkSetParams::Denominator::VisibleQueries;
  }
  // Interventions: the intervened run is analysed instead of the plain one.
  p.intervention.dropFirstToken = args.options.count("drop-first") > 0;
  if (args.options.count("remove-sinks")) {
    sinkscope::models::SinkRemoval removal;
    removal.percentile = p.percentile;
    removal.gamma = p.gamma;
    p.intervention.removeSinks = {removal};
  }
  if (args.options.count("ablate"))
    p.intervention.ablateHeads = parse_heads("ablate", args.options.at("ablate"));
  if (args.options.count("rope-theta")) p.intervention.ropeTheta = real("rope-theta", 1e-6, 1e30);
  if (args.options.count("ntk-scale")) p.intervention.ntkScale = real("ntk-scale", 1e-6, 1e6);
  if (p.functional && !p.intervention.empty())
    throw UsageError("--functional measures the plain model: give it without interventions");
}

int command_analyze(int argc, char** argv) {
  namespace m = sinkscope::models;
  const auto parsed = parse_command(
      argc, argv, {"help", "force", "drop-first", "remove-sinks", "no-weight-spectra", "functional"},
      {"text", "sentences", "out", "json", "percentile", "gamma", "eps", "top-n", "ablate",
       "rope-theta", "ntk-scale", "min-persistence", "symmetrise", "thresholds",
       "specialised-share", "query", "random-subsets", "seed", "sink-mode", "sink-denominator",
       "bootstrap", "bootstrap-seed", "batch"},
      kAnalyzeHelp);
  if (!parsed) return kOk;  // --help was printed
  const Args& args = *parsed;
  const std::string spec = model_argument(args, "analyze");
  if (args.options.count("text") == args.options.count("sentences") || !args.options.count("out"))
    throw UsageError("analyze: give --out and one of --text or --sentences");
  sinkscope::document::AnalysisSettings p;
  parse_pooling_options(args, p);
  p.weightSpectra = args.options.count("no-weight-spectra") == 0;
  if (args.options.count("sentences")) {
    std::vector<std::string> sentences;
    try {
      sentences = m::corpus_read_sentences(args.options.at("sentences"));
    } catch (const std::runtime_error& e) {
      throw UsageError(e.what());
    }
    return on_model([&] {
      const m::LoadedModel loaded = m::loaded_model_open(spec);
      p.provenance = provenance(loaded, argc, argv);
      // The sentences file by name, hash and count: pooled numbers name their inputs.
      const std::string file = args.options.at("sentences");
      p.provenance.emplace_back("sentences_file", file);
      p.provenance.emplace_back("sentences_sha256",
                                m::sha256_hex(m::input_file_read(file, m::kTextFileMaxBytes)));
      for (const auto& f : sinkscope::document::analyze_corpus_write(
               loaded, sentences, args.options.at("out"), p, args.options.count("force") > 0,
               args.options.count("json") ? args.options.at("json") : ""))
        std::cout << f.string() << "\n";
      return kOk;
    });
  }
  const std::string text = text_option(args);
  return on_model([&] {
    const m::LoadedModel loaded = m::loaded_model_open(spec);
    p.provenance = provenance(loaded, argc, argv);
    const auto files = sinkscope::document::analyze_write(
        loaded, text, args.options.at("out"), p, args.options.count("force") > 0,
        args.options.count("json") ? args.options.at("json") : "");
    for (const auto& f : files) std::cout << f.string() << "\n";
    return kOk;
  });
}

const char* kExperimentHelp =
    "usage: sinkscope-cli experiment KIND MODEL --text TEXT --out DIR [--force] [options]\n"
    "\n"
    "Runs one functional experiment of metrics.md sections 5 and 8 on TEXT and writes its\n"
    "CSV files into DIR, each with the parameters, the model and the text in its header.\n"
    "KIND:\n"
    "%KINDS%"
    "\n"
    "kl:       --percentile P (90) --gamma G (0.3) --before-softmax (mask instead of zeroing)\n"
    "perturb:  --position P (1) and --replace-with ID or --noise SIGMA (0.1) [--seed S]\n"
    "          [--without-first]\n"
    "sparsify: --retained 1,0.75,0.5,0.25,0 --pin L:H,L:H --seeds K (5) --seed S (1)\n"
    "ablate:   --top-n N (3) for the top-N mass of the correlation table\n";

int command_experiment(int argc, char** argv) {
  namespace m = sinkscope::models;
  std::string kinds;
  for (const auto& [k, line] : sinkscope::document::experiment_kinds())
    kinds += "  " + k + std::string(std::max<std::size_t>(1, 10 - k.size()), ' ') + line + "\n";
  std::string help = kExperimentHelp;
  help.replace(help.find("%KINDS%"), 7, kinds);
  const auto parsed =
      parse_command(argc, argv, {"help", "force", "before-softmax", "without-first"},
                    {"text", "out", "percentile", "gamma", "position", "replace-with", "noise",
                     "seed", "retained", "pin", "seeds", "top-n"},
                    help.c_str());
  if (!parsed) return kOk;
  const Args& args = *parsed;
  if (args.positional.size() != 2)
    throw UsageError("experiment: give KIND and MODEL (see experiment --help)");
  const std::string kind = args.positional[0], spec = args.positional[1];
  bool known = false;
  for (const auto& [k, line] : sinkscope::document::experiment_kinds()) known = known || k == kind;
  if (!known) throw UsageError("experiment: unknown KIND \"" + kind + "\" (see experiment --help)");
  if (!args.options.count("text") || !args.options.count("out"))
    throw UsageError("experiment: give --text and --out");
  sinkscope::document::ExperimentParams p;
  auto real = [&](const char* k, double lo, double hi) {
    return parse_real(k, args.options.at(k), lo, hi);
  };
  auto integer = [&](const char* k, int lo, int hi) {
    return parse_int(k, args.options.at(k), lo, hi);
  };
  if (args.options.count("percentile")) p.removal.percentile = real("percentile", 0, 100);
  if (args.options.count("gamma")) p.removal.gamma = real("gamma", 0, 1);
  p.removal.beforeSoftmax = args.options.count("before-softmax") > 0;
  if (args.options.count("position")) p.perturbation.position = integer("position", 0, 1 << 24);
  if (args.options.count("replace-with") && args.options.count("noise"))
    throw UsageError("experiment perturb: give --replace-with or --noise, not both");
  if (args.options.count("replace-with"))
    p.perturbation.replacementId = integer("replace-with", 0, std::numeric_limits<int>::max());
  if (args.options.count("noise")) p.perturbation.sigma = real("noise", 0, 1e6);
  if (args.options.count("seed")) {
    const auto seed =
        static_cast<std::uint64_t>(integer("seed", 0, std::numeric_limits<int>::max()));
    p.perturbation.seed = p.sparsification.seed = seed;
  }
  p.perturbation.withoutFirstToken = args.options.count("without-first") > 0;
  if (args.options.count("seeds")) p.sparsification.randomSeeds = integer("seeds", 1, 1000);
  if (args.options.count("top-n")) p.topN = integer("top-n", 1, 100000);
  if (args.options.count("retained")) {
    p.sparsification.retained.clear();
    std::stringstream ss(args.options.at("retained"));
    for (std::string part; std::getline(ss, part, ',');)
      p.sparsification.retained.push_back(parse_real("retained", part, 0, 1));
  }
  if (args.options.count("pin"))
    p.sparsification.pinned = parse_heads("pin", args.options.at("pin"));
  const std::string text = text_option(args);
  return on_model([&] {
    const m::LoadedModel loaded = m::loaded_model_open(spec);
    p.provenance = provenance(loaded, argc, argv);
    for (const auto& f : sinkscope::document::experiment_write(
             loaded, text, kind, p, args.options.at("out"), args.options.count("force") > 0))
      std::cout << f.string() << "\n";
    return kOk;
  });
}

}  // namespace sinkscope::cli
