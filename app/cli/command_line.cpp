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

AnalysisOptions::AnalysisOptions(CLI::App& app, document::AnalysisSettings& s)
    : settings_(s), settingOptions_(app) {
  declareInterventionOptions(app, s);
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
  settingOptions_.apply(s);
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
