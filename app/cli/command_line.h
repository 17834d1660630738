#pragma once
// A sinkscope-cli command's command line, with CLI11: each option declared
// once, with its type, its range and its help; `--help` is generated from
// the declarations. Mistakes are UsageError (exit 2) naming the option.
#include <CLI/CLI.hpp>
#include <string>

#include "models/document/analysis_settings.h"
#include "models/loaded_model.h"

namespace sinkscope::cli {

// A number from lo to hi (any form strtod reads, hexadecimal floats too).
CLI::Validator number_in(double lo, double hi);
// A whole number from lo to hi.
CLI::Validator whole_in(long long lo, long long hi);
// An option's help with its range: "TEXT (lo to hi)".
std::string range_text(const std::string& text, double lo, double hi);

class CommandLine {
 public:
  // `command`: its name after sinkscope-cli; `about`: what it does, shown
  // above the options; `details`: shown after them.
  CommandLine(const std::string& command, const std::string& about,
              const std::string& details = {});
  CLI::App& app() { return app_; }
  // Parses argv[2..] (argv[1] is the command). False when --help was asked
  // for: the help of the command (or of its subcommand) is then printed.
  bool parse(int argc, char** argv);

 private:
  CLI::App app_;
};

// MODEL: a folder or a Hugging Face cache name org/name (required).
void add_model_argument(CLI::App& app, std::string& spec);
// --device cpu|cuda and --precision float32|stored, for the commands that run a model.
void add_load_options(CLI::App& app, models::LoadOptions& load);

// The options of the analysis settings (sink set and metric, diagnostics,
// value space, topology, layer profiles, corpus pooling, interventions), in
// help groups, bound to `settings`; shared by analyze and study.
class AnalysisOptions {
 public:
  AnalysisOptions(CLI::App& app, document::AnalysisSettings& settings);
  // After parsing: the options given as words and lists, into the settings
  // (throws UsageError naming the option).
  void apply();

 private:
  document::AnalysisSettings& settings_;
  std::string symmetrise_ = "mean", sinkMode_ = "percentile", sinkDenominator_ = "all";
  std::string thresholds_, ablate_;
  bool removeSinks_ = false;
  CLI::Option* thresholdsOption_ = nullptr;
  CLI::Option* ablateOption_ = nullptr;
  CLI::Option* ropeTheta_ = nullptr;
  double ropeThetaValue_ = 0;
};

}  // namespace sinkscope::cli
