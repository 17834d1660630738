#include "app/cli/command_line.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <vector>

#include "app/cli/cli_support.h"

namespace sinkscope::cli {

void add_model_argument(CLI::App& app, std::string& spec) {
  app.add_option("MODEL", spec, "a model folder or a Hugging Face cache name org/name")
      ->type_name("")
      ->required();
}

void add_load_options(CLI::App& app, models::LoadOptions& load) {
  app.add_option("--device", load.device, "where the forward pass runs (cpu, cuda, cuda:N)")
      ->type_name("DEVICE")
      ->capture_default_str();
  app.add_option_function<std::string>(
         "--precision",
         [&load](const std::string& p) {
           load.precision =
               p == "stored" ? models::ComputePrecision::Stored : models::ComputePrecision::Float32;
         },
         "float32 (the default) widens BF16/F16 weights before use; stored computes in the\n"
         "folder's dtype as Hugging Face's eager attention does (norms and softmax in float32)")
      ->type_name("P")
      ->check(CLI::IsMember({"float32", "stored"}));
}

namespace {

namespace R = document::setting_range;

CLI::Validator number_in_range(const document::SettingRange& r) { return number_in(r.lo, r.hi); }

CLI::Validator whole_in_range(const document::SettingRange& r) {
  return whole_in(static_cast<long long>(r.lo), static_cast<long long>(r.hi));
}

}  // namespace

AnalysisOptions::AnalysisOptions(CLI::App& app, document::AnalysisSettings& s) : settings_(s) {
  declareSinkOptions(app, s);
  declareHeadOptions(app, s);
  declarePoolingOptions(app, s);
  declareInterventionOptions(app, s);
}

void AnalysisOptions::declareSinkOptions(CLI::App& app, document::AnalysisSettings& s) {
  const char* sinks = "Sink set and sink metric (metrics.md s. 1)";
  app.add_option("--percentile", s.percentile,
                 range_text("the score threshold tau is the P-th percentile", R::percentile.lo,
                            R::percentile.hi))
      ->type_name("P")
      ->check(number_in_range(R::percentile))
      ->group(sinks)
      ->capture_default_str();
  app.add_option("--gamma", s.gamma,
                 range_text("a key is a sink for at least this share of the queries", R::gamma.lo,
                            R::gamma.hi))
      ->type_name("G")
      ->check(number_in_range(R::gamma))
      ->group(sinks)
      ->capture_default_str();
  app.add_option("--sink-mode", sinkMode_, "percentile, or column-sum (the released code's)")
      ->type_name("MODE")
      ->check(CLI::IsMember({"percentile", "column-sum"}))
      ->group(sinks)
      ->capture_default_str();
  app.add_option("--sink-denominator", sinkDenominator_,
                 "all: gamma of all T queries; visible: of the queries that see the key")
      ->type_name("OF")
      ->check(CLI::IsMember({"all", "visible"}))
      ->group(sinks)
      ->capture_default_str();
  app.add_option("--eps", s.eps,
                 range_text("a head has a sink when alpha_0 > E", R::eps.lo, R::eps.hi))
      ->type_name("E")
      ->check(number_in_range(R::eps))
      ->group(sinks)
      ->capture_default_str();
}

void AnalysisOptions::declareHeadOptions(CLI::App& app, document::AnalysisSettings& s) {
  const char* heads = "Diagnostics, value space and topology (s. 2, 3, 6)";
  app.add_option(
         "--top-n", s.topN,
         range_text("the top-N keys of diagnostics and the value space", R::topN.lo, R::topN.hi))
      ->type_name("N")
      ->check(whole_in_range(R::topN))
      ->group(heads)
      ->capture_default_str();
  app.add_option(
         "--query", s.query,
         range_text("the value-space query (default: the last token)", R::query.lo, R::query.hi))
      ->type_name("Q")
      ->check(whole_in_range(R::query))
      ->group(heads);
  app.add_option(
         "--random-subsets", s.randomSubsets,
         range_text("random N-subsets of F_N's baseline", R::randomSubsets.lo, R::randomSubsets.hi))
      ->type_name("K")
      ->check(whole_in_range(R::randomSubsets))
      ->group(heads)
      ->capture_default_str();
  app.add_option("--seed", s.seed,
                 range_text("the seed of the random subsets", R::seed.lo, R::seed.hi))
      ->type_name("S")
      ->check(whole_in_range(R::seed))
      ->group(heads)
      ->capture_default_str();
  app.add_option("--min-persistence", s.minPersistence,
                 range_text("bars counted above this persistence", R::minPersistence.lo,
                            R::minPersistence.hi))
      ->type_name("M")
      ->check(number_in_range(R::minPersistence))
      ->group(heads)
      ->capture_default_str();
  app.add_option("--betti-points", s.bettiPoints,
                 range_text("points of the Betti curves' grid over [0, 1]", R::bettiPoints.lo,
                            R::bettiPoints.hi))
      ->type_name("K")
      ->check(whole_in_range(R::bettiPoints))
      ->group(heads)
      ->capture_default_str();
  app.add_option("--symmetrise", symmetrise_, "how A becomes a symmetric graph")
      ->type_name("HOW")
      ->check(CLI::IsMember({"mean", "max"}))
      ->group(heads)
      ->capture_default_str();
  thresholdsOption_ = app.add_option("--thresholds", thresholds_,
                                     "graph thresholds theta (default 0.01,0.05,0.1,0.2)")
                          ->type_name("a,b,...")
                          ->group(heads);
}

void AnalysisOptions::declarePoolingOptions(CLI::App& app, document::AnalysisSettings& s) {
  const char* pooling = "Sentences pooled (analyze --sentences, study)";
  app.add_option("--specialised-share", s.specialisedShare,
                 range_text("a head is specialised above this share", R::specialisedShare.lo,
                            R::specialisedShare.hi))
      ->type_name("S")
      ->check(number_in_range(R::specialisedShare))
      ->group(pooling)
      ->capture_default_str();
  app.add_flag("--functional", s.functional, "also KL of sink removal and BOS removal per sentence")
      ->group(pooling);
  app.add_option("--batch", s.batch,
                 range_text("sentences per block, one batched pass per token count", R::batch.lo,
                            R::batch.hi))
      ->type_name("B")
      ->check(whole_in_range(R::batch))
      ->group(pooling)
      ->capture_default_str();
  app.add_option(
         "--bootstrap", s.bootstrap,
         range_text("resamples of the 95% intervals (0: none)", R::bootstrap.lo, R::bootstrap.hi))
      ->type_name("B")
      ->check(whole_in_range(R::bootstrap))
      ->group(pooling)
      ->capture_default_str();
  app.add_option("--bootstrap-seed", s.bootstrapSeed,
                 range_text("the seed of the resamples", R::bootstrapSeed.lo, R::bootstrapSeed.hi))
      ->type_name("S")
      ->check(whole_in_range(R::bootstrapSeed))
      ->group(pooling)
      ->capture_default_str();
}

void AnalysisOptions::declareInterventionOptions(CLI::App& app, document::AnalysisSettings& s) {
  const char* interventions = "Interventions (analysed instead of the plain run)";
  app.add_flag("--drop-first", s.intervention.dropFirstToken,
               "drop the first token (refused when it is not a special token)")
      ->group(interventions);
  app.add_flag("--remove-sinks", removeSinks_,
               "zero each head's sinks (at --percentile, --gamma) after softmax")
      ->group(interventions);
  ablateOption_ = app.add_option("--ablate", ablate_, "zero these heads' outputs")
                      ->type_name("L:H,...")
                      ->group(interventions);
  ropeTheta_ =
      app.add_option("--rope-theta", ropeThetaValue_, range_text("the RoPE base", 1e-6, 1e30))
          ->type_name("X")
          ->check(number_in(1e-6, 1e30))
          ->group(interventions);
  app.add_option("--ntk-scale", s.intervention.ntkScale,
                 range_text("NTK-aware RoPE scaling", 1e-6, 1e6))
      ->type_name("S")
      ->check(number_in(1e-6, 1e6))
      ->group(interventions);
}

void AnalysisOptions::apply() {
  document::AnalysisSettings& s = settings_;
  s.symmetriseByMax = symmetrise_ == "max";
  s.columnSumSinks = sinkMode_ == "column-sum";
  s.sinkDenominator = sinkDenominator_ == "all"
                          ? analysis::SinkSetParams::Denominator::AllQueries
                          : analysis::SinkSetParams::Denominator::VisibleQueries;
  if (thresholdsOption_->count() > 0) {
    s.thresholds = parse_reals("thresholds", thresholds_, 0, 1);
    if (s.thresholds.size() > 32) throw UsageError("option --thresholds: at most 32 thresholds");
    if (s.thresholds.empty()) throw UsageError("option --thresholds: give at least one threshold");
  }
  if (removeSinks_) {
    models::SinkRemoval removal;
    removal.percentile = s.percentile;
    removal.gamma = s.gamma;
    s.intervention.removeSinks = {removal};
  }
  if (ablateOption_->count() > 0) s.intervention.ablateHeads = parse_heads("ablate", ablate_);
  if (ropeTheta_->count() > 0) s.intervention.ropeTheta = ropeThetaValue_;
  if (s.functional && !s.intervention.empty())
    throw UsageError("--functional measures the plain model: give it without interventions");
}

}  // namespace sinkscope::cli
