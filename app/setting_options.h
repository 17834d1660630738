#pragma once
// The analysis settings as command-line options, one per entry of
// document::analysis_setting_specs() (its flag, value name, help with range,
// default and help group), for every command of both programs that takes
// them: sinkscope-cli's analyze, study and figure-set, and sinkscope figure.
#include <CLI/CLI.hpp>
#include <functional>
#include <map>
#include <string>

#include "models/document/analysis_setting_specs.h"

namespace sinkscope::app {

class SettingOptions {
 public:
  // Declares the settings `which` keeps (all by default) on `app`.
  explicit SettingOptions(CLI::App& app,
                          const std::function<bool(const document::SettingSpec&)>& which = {});
  // After parsing: the settings given, into `settings` (throws UsageError
  // naming the option for a bad list).
  void apply(document::AnalysisSettings& settings) const;
  // Whether any was given ("--percentile, --gamma": for messages; empty: none).
  std::string given() const;

 private:
  struct Given {
    const document::SettingSpec* spec = nullptr;
    CLI::Option* option = nullptr;
    std::string text;
    bool on = false;
  };
  std::map<std::string, Given> given_;  // by setting name
};

}  // namespace sinkscope::app
