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

#include "app/cli/command_line.h"
#include "models/corpus.h"
#include "models/document/analyze_report.h"
#include "models/document/experiment_report.h"
#include "models/input_files.h"
#include "models/loaded_model.h"
#include "models/model_identity.h"

namespace sinkscope::cli {

namespace {

// What analyze left out (persistence past its bounds, on long inputs) is in
// every table's header; said on standard error too, where a user sees it.
void report_left_out(const std::vector<std::filesystem::path>& written) {
  for (const auto& f : written) {
    if (f.filename() != "persistence_summary.csv") continue;
    std::ifstream in(f);
    const std::string key = "# persistence_left_out: ";
    for (std::string line; std::getline(in, line) && line.starts_with("#");)
      if (line.starts_with(key))
        std::cerr << "sinkscope-cli: analyze: persistence left out " << line.substr(key.size())
                  << "\n";
  }
}

const char* kAnalyzeAbout =
    "Runs MODEL on TEXT and writes, for every layer and head and the head average, one CSV\n"
    "per metric family of metrics.md; with --sentences, the tables pooled over the sentences.";

const char* kAnalyzeDetails =
    "Files (--text): sinks.csv and sink_summary.csv (s. 1), diagnostics.csv, persistence.csv,\n"
    "persistence_summary.csv (bar counts per head) and betti.csv (s. 2), spectra.csv,\n"
    "eigenvalues.csv, sign_flip.csv and effectiveness.csv (s. 3), value_space.csv (s. 6 at\n"
    "query Q, default the last, N = --top-n, with K_N^sink and the sink diagnostics) and\n"
    "value_space_curve.csv (every N from 1 to T), taxonomy.csv (s. 7), weights.csv (s. 9:\n"
    "computed once per model and kept in ~/.cache/sinkscope/weight-spectra, keyed by the\n"
    "weights' hash; SINKSCOPE_CACHE_DIR moves it), and layer_summary.csv: per layer and for\n"
    "the model, mean alpha0 and boost, the share of heads with boost >= 3, sink\n"
    "concentration, bar counts and taxonomy class shares. Every file starts with comment\n"
    "lines giving the parameters, the model and the text.\n"
    "A key is a sink when A >= tau (the p-th percentile) for at least gamma of all T queries;\n"
    "--sink-denominator visible divides by the queries that see the key instead (in a causal\n"
    "model it makes the last key a sink whenever its one observer attends to it).\n"
    "--json FILE (schema_version 1): \"params\" (typed), \"header\" (the readings of the CSV\n"
    "headers), \"tables\" (every CSV as columns and typed rows; empty fields are null) and,\n"
    "for --text, per-head detail under \"layers\".\n"
    "\n"
    "Files (--sentences FILE: one sentence per line, or FILE.jsonl/.json with a \"text\" field\n"
    "per line): specialisation.csv (specialised heads, s. 1), token_specialisation.csv,\n"
    "taxonomy_pooled.csv (s. 7), sink_rate.csv (Gu et al.'s sink rate with its baseline),\n"
    "frame.csv (the reference frame of s. 4 with its evidence), layer_profile.csv (per layer,\n"
    "the mean over sentences of: sink concentration, alpha_0 and its boost, bars above\n"
    "--min-persistence, F_N at the last token or --query against its random baseline, Fiedler\n"
    "value and centralisation of the head-averaged graph per --thresholds value) and\n"
    "top_sentences.csv (per head, the sentences with the highest alpha_0); --functional adds\n"
    "functional.csv (L + 2 more passes per sentence). Every share, rate and mean carries its\n"
    "95% bootstrap interval over the sentences (_lo and _hi columns).\n"
    "\n"
    "Files (--capture FILE, no MODEL): the --text files of attention captured elsewhere\n"
    "(Hugging Face, TransformerLens, `tensors`), without weights.csv (it needs the weights);\n"
    "interventions are refused (they rerun the model). Without values in the capture,\n"
    "taxonomy.csv, value_space.csv and value_space_curve.csv hold no rows.\n";

// analyze --capture: the attention (and values) someone captured elsewhere;
// what needs the model itself (interventions, weight spectra) is refused or
// left out, saying why.
int analyze_capture(const std::string& file, const std::string& model, const std::string& out,
                    const std::string& json, const std::string& html, bool force,
                    sinkscope::document::AnalysisSettings p, int argc, char** argv) {
  namespace m = sinkscope::models;
  if (!model.empty())
    throw UsageError("--capture holds the attention: give no MODEL with it (its 'model' array "
                     "names the model)");
  if (!p.intervention.describe().empty())
    throw UsageError("interventions rerun the model: a capture holds its attention only");
  p.weightSpectra = false;  // weights.csv needs the model's weights
  p.provenance = {{"command", command_line(argc, argv)}};
  m::Capture c;
  try {
    c = m::capture_read(file);
  } catch (const m::CaptureError& e) {
    throw UsageError(e.what());
  }
  const m::Trace trace = m::capture_trace(c);
  const auto subject = sinkscope::document::analyze_subject_of(c, trace);
  return on_model([&] {
    const auto written =
        sinkscope::document::analyze_subject_write(subject, out, p, force, json, html);
    for (const auto& f : written) std::cout << f.string() << "\n";
    report_left_out(written);
    return kOk;
  });
}

}  // namespace

int command_analyze(int argc, char** argv) {
  namespace m = sinkscope::models;
  sinkscope::document::AnalysisSettings p;
  std::string spec, textGiven, sentencesFile, captureFile, out, json, html;
  bool force = false, noWeightSpectra = false;
  std::size_t keptMapsMib = m::RunOptions{}.capture_budget_bytes >> 20;
  CommandLine command("analyze", kAnalyzeAbout, kAnalyzeDetails);
  CLI::App& app = command.app();
  app.add_option("MODEL", spec, "a model folder or a Hugging Face cache name org/name")->type_name("");
  CLI::Option* text = app.add_option("--text", textGiven, "the sentence (-: standard input)")->type_name("TEXT");
  CLI::Option* sentences =
      app.add_option("--sentences", sentencesFile, "pool over its sentences instead")->type_name("FILE")
          ->excludes(text);
  CLI::Option* capture =
      app.add_option("--capture", captureFile,
                     "analyse a capture instead of running a model: an NPZ with attention [L, H, "
                     "T, T] and optionally values [L, H, T, d], tokens, ids and model (what "
                     "`tensors` and Python's sinkscope.save_capture write)")
          ->type_name("FILE")
          ->excludes(text)
          ->excludes(sentences);
  app.add_option("--out", out, "where the CSV files go")->type_name("DIR")->required();
  app.add_option("--json", json, "everything in one JSON file as well")->type_name("FILE");
  app.add_option("--html", html,
                 "the run as one self-contained web page as well (every head's map, key "
                 "importance, head view, persistence, spectrum, value space and numbers; "
                 "opens from disk in any browser, no network)")
      ->type_name("FILE")
      ->excludes(sentences);
  app.add_flag("--force", force, "replace files that exist");
  app.add_flag("--no-weight-spectra", noWeightSpectra, "leave weights.csv out");
  CLI::Option* keptMaps =
      app.add_option("--kept-maps", keptMapsMib,
                     "MiB of attention maps the run keeps for every layer (default 2048); past "
                     "it the run keeps the residual stream only and recomputes each layer for "
                     "its analysis, a group of heads at a time: the same numbers in less "
                     "memory, at the cost of recomputing the layers' attention")
          ->type_name("MIB")
          ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 30))
          ->excludes(sentences)
          ->excludes(capture);
  AnalysisOptions analysis(app, p);
  if (!command.parse(argc, argv)) return kOk;  // --help was printed
  analysis.apply();
  if (capture->count() > 0)
    return analyze_capture(captureFile, spec, out, json, html, force, p, argc, argv);
  if (spec.empty()) throw UsageError("analyze: give MODEL (or --capture FILE)");
  if (text->count() == 0 && sentences->count() == 0)
    throw UsageError("analyze: give one of --text or --sentences");
  p.weightSpectra = !noWeightSpectra;
  if (sentences->count() > 0) {
    std::vector<std::string> lines;
    try {
      lines = m::corpus_read_sentences(sentencesFile);
    } catch (const std::runtime_error& e) {
      throw UsageError(e.what());
    }
    return on_model([&] {
      const m::LoadedModel loaded = m::loaded_model_open(spec);
      p.provenance = provenance(loaded, argc, argv);
      // The sentences file by name, hash and count: pooled numbers name their inputs.
      p.provenance.emplace_back("sentences_file", sentencesFile);
      p.provenance.emplace_back("sentences_sha256",
                                m::sha256_hex(m::input_file_read(sentencesFile, m::kTextFileMaxBytes)));
      for (const auto& f : sinkscope::document::analyze_corpus_write(loaded, lines, out, p, force, json))
        std::cout << f.string() << "\n";
      return kOk;
    });
  }
  if (keptMaps->count() > 0 && !p.intervention.describe().empty())
    throw UsageError("--kept-maps applies to a plain run: give it without an intervention");
  const std::string checked = text_checked(textGiven);
  return on_model([&] {
    const m::LoadedModel loaded = m::loaded_model_open(spec);
    p.provenance = provenance(loaded, argc, argv);
    const auto written = sinkscope::document::analyze_write(loaded, checked, out, p, force, json,
                                                            html, keptMapsMib << 20);
    for (const auto& f : written) std::cout << f.string() << "\n";
    report_left_out(written);
    return kOk;
  });
}

int command_experiment(int argc, char** argv) {
  namespace m = sinkscope::models;
  std::string kinds;
  for (const auto& [k, line] : sinkscope::document::experiment_kinds())
    kinds += "  " + k + std::string(std::max<std::size_t>(1, 10 - k.size()), ' ') + line + "\n";
  sinkscope::document::ExperimentParams p;
  std::string kind, spec, textGiven, out, pinned, retained, seedText;
  bool force = false;
  CommandLine command("experiment",
                      "Runs one functional experiment of metrics.md sections 5 and 8 on TEXT and\n"
                      "writes its CSV files into DIR, each with the parameters, the model and the\n"
                      "text in its header.",
                      "KIND:\n" + kinds);
  CLI::App& app = command.app();
  std::vector<std::string> kindNames;
  for (const auto& [k, line] : sinkscope::document::experiment_kinds()) kindNames.push_back(k);
  app.add_option("KIND", kind, "the experiment (below)")->type_name("")->required()->check(CLI::IsMember(kindNames));
  app.add_option("MODEL", spec, "a model folder or a Hugging Face cache name org/name")->type_name("");
  app.add_option("--text", textGiven, "the sentence (-: standard input)")->type_name("TEXT")->required();
  app.add_option("--out", out, "where the CSV files go")->type_name("DIR")->required();
  app.add_flag("--force", force, "replace files that exist");
  const char* kl = "kl: sink removal";
  app.add_option("--percentile", p.removal.percentile, range_text("the sink set's percentile", 0, 100))->type_name("P")->check(number_in(0, 100))->group(kl)->capture_default_str();
  app.add_option("--gamma", p.removal.gamma, range_text("the sink set's share of queries", 0, 1))->type_name("G")->check(number_in(0, 1))->group(kl)->capture_default_str();
  app.add_flag("--before-softmax", p.removal.beforeSoftmax, "mask the sinks' scores instead of zeroing")
      ->group(kl);
  const char* perturb = "perturb: one position changed";
  app.add_option("--position", p.perturbation.position, range_text("the position perturbed", 0, 1 << 24))->type_name("P")->check(whole_in(0, 1 << 24))->group(perturb)->capture_default_str();
  int replacement = 0;
  CLI::Option* replace = app.add_option("--replace-with", replacement, range_text("a token id put there", 0, std::numeric_limits<int>::max()))->type_name("ID")->check(whole_in(0, std::numeric_limits<int>::max()))->group(perturb);
  app.add_option("--noise", p.perturbation.sigma, range_text("Gaussian noise on its embedding instead", 0, 1e6))->type_name("SIGMA")->check(number_in(0, 1e6))->group(perturb)->capture_default_str()->excludes(replace);
  app.add_flag("--without-first", p.perturbation.withoutFirstToken, "run without the first token")
      ->group(perturb);
  CLI::Option* seed = app.add_option("--seed", seedText, range_text("the seed of the noise and the random heads", 0, std::numeric_limits<int>::max()))->type_name("S")->check(whole_in(0, std::numeric_limits<int>::max()))->group(perturb);
  const char* sparsify = "sparsify: heads kept";
  app.add_option("--retained", retained, "the shares of heads kept (1,0.75,0.5,0.25,0)")->type_name("a,b,...")
      ->group(sparsify);
  app.add_option("--pin", pinned, "heads always kept")->type_name("L:H,...")->group(sparsify);
  app.add_option("--seeds", p.sparsification.randomSeeds, range_text("random orders of the heads", 1, 1000))->type_name("K")->check(whole_in(1, 1000))->group(sparsify)->capture_default_str();
  app.add_option("--top-n", p.topN, range_text("the top-N mass of ablate's correlation table", 1, 100000))->type_name("N")->check(whole_in(1, 100000))->group("ablate")->capture_default_str();
  if (!command.parse(argc, argv)) return kOk;
  if (replace->count() > 0) p.perturbation.replacementId = replacement;
  if (seed->count() > 0) p.perturbation.seed = p.sparsification.seed = std::stoull(seedText);
  if (!retained.empty()) p.sparsification.retained = parse_reals("retained", retained, 0, 1);
  if (!pinned.empty()) p.sparsification.pinned = parse_heads("pin", pinned);
  const std::string text = text_checked(textGiven);
  return on_model([&] {
    const m::LoadedModel loaded = m::loaded_model_open(spec);
    p.provenance = provenance(loaded, argc, argv);
    for (const auto& f : sinkscope::document::experiment_write(loaded, text, kind, p, out, force))
      std::cout << f.string() << "\n";
    return kOk;
  });
}

}  // namespace sinkscope::cli
