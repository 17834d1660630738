#pragma once
// Every analysis setting declared once: its name, type, default (from
// AnalysisSettings{}), range, help, paper reference and where it is read.
// The command lines' options, Python's keyword arguments and their
// documentation, study.json and --json's "params" are all made from this
// list, so a setting added here reaches each of them.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "models/document/analysis_settings.h"

namespace sinkscope::document {

enum class SettingType {
  Number,      // a real number in [lo, hi]
  Whole,       // a whole number in [lo, hi]
  Word,        // one of `words`
  NumberList,  // 1 to 32 real numbers, each in [lo, hi]
  Flag         // true or false
};

struct SettingSpec {
  std::string name;     // Python's keyword, study.json's and --json's key
  std::string flag;     // the command line's option ("--top-n")
  std::string metavar;  // the command line's value name ("N")
  std::string help;     // one line, without the range
  std::string group;    // the command line's help group
  std::string paper;    // where metrics.md defines it ("s. 1")
  SettingType type = SettingType::Number;
  double lo = 0, hi = 0;           // Number, Whole; NumberList: each item
  std::vector<std::string> words;  // Word: the values, the default first
  // Where it is read besides the command line.
  bool python = true;      // a keyword argument of sinkscope.analyze
  bool study = true;       // a field of study.json's "params"
  bool params = true;      // a field of --json's "params" (settings_json)
  std::string paramsName;  // that field's name where it differs from `name`
  // Whole settings that may be unset (the value-space query: the last token).
  bool optional = false;
  // The window's selection sets it for the panels (top-N, the query): not a
  // field of its analysis settings dialog nor an option of `sinkscope figure`.
  bool selection = false;
  // Reading and writing the setting's field: numbers (Number, Whole, Flag as
  // 0/1), words, lists.
  std::function<double(const AnalysisSettings&)> number;
  std::function<void(AnalysisSettings&, double)> setNumber;
  std::function<std::string(const AnalysisSettings&)> word;
  std::function<void(AnalysisSettings&, const std::string&)> setWord;
  std::function<std::vector<double>(const AnalysisSettings&)> list;
  std::function<void(AnalysisSettings&, const std::vector<double>&)> setList;

  bool contains(double v) const { return v >= lo && v <= hi; }
  const std::string& jsonName() const { return paramsName.empty() ? name : paramsName; }
  // The default as the command line's help shows it ("90", "0.3",
  // "percentile"; empty for an optional setting and a list).
  std::string defaultText() const;
  // "percentile, gamma, ..." or "all, visible": for messages.
  std::string wordsText() const;
  // The setting's value in `s` as plain JSON (an unset optional one: null).
  nlohmann::json json(const AnalysisSettings& s) const;
};

// In the command lines' help order.
const std::vector<SettingSpec>& analysis_setting_specs();
// The setting of that name (or --json name), or null.
const SettingSpec* analysis_setting(std::string_view name);

// The settings Python's analyze takes, "percentile, gamma, ..." (messages, docs).
std::string python_setting_names();

// The settings a run's heads are analysed with (those Python takes) as a JSON
// object of plain values by name, and back: every field optional (absent:
// the default), an unknown field or a value outside its declaration
// refused with std::invalid_argument naming `where` and the field.
nlohmann::json head_settings_json(const AnalysisSettings& s);
AnalysisSettings head_settings_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace sinkscope::document
