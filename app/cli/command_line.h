#pragma once
// What sinkscope-cli's commands declare alike on their command lines
// (app/command_line.h): the model, where it runs, the analysis settings.
#include "app/command_line.h"
#include <string>

#include "app/setting_options.h"
#include "models/document/analysis_settings.h"
#include "models/loaded_model.h"

namespace sinkscope::cli {

using app::head_in;
using app::number_in;
using app::range_text;
using app::whole_in;

// A sinkscope-cli command's command line: "sinkscope-cli COMMAND" in its
// usage, "COMMAND: " before its mistakes.
class CommandLine : public app::CommandLine {
 public:
  CommandLine(const std::string& command, const std::string& about,
              const std::string& details = {})
      : app::CommandLine("sinkscope-cli " + command, about, details, command + ": ") {}
  // Parses argv[2..] (argv[1] is the command).
  bool parse(int argc, char** argv) { return app::CommandLine::parse(argc, argv, 2); }
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
  void declareInterventionOptions(CLI::App& app, document::AnalysisSettings& s);
  document::AnalysisSettings& settings_;
  app::SettingOptions settingOptions_;  // every setting of analysis_setting_specs()
  std::string ablate_;
  bool removeSinks_ = false;
  CLI::Option* ablateOption_ = nullptr;
  CLI::Option* ropeTheta_ = nullptr;
  double ropeThetaValue_ = 0;
};

}  // namespace sinkscope::cli
