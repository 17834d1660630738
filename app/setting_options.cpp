#include "app/setting_options.h"

#include <cstdlib>
#include <sstream>
#include <vector>

#include "app/command_line.h"

namespace sinkscope::app {

namespace {

// "a,b,c": 1 to 32 numbers, each in the setting's range.
std::vector<double> number_list(const document::SettingSpec& spec, const std::string& text) {
  std::vector<double> out;
  std::stringstream parts(text);
  for (std::string part; std::getline(parts, part, ',');) {
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != part.size())
      throw UsageError("option " + spec.flag + ": \"" + part + "\" is not a number");
    if (!spec.contains(v)) {  // NaN, which no comparison holds for, is refused too
      std::ostringstream range;
      range << spec.lo << ".." << spec.hi;
      throw UsageError("option " + spec.flag + ": \"" + part + "\" must be a number in " +
                       range.str());
    }
    out.push_back(v);
  }
  if (out.empty()) throw UsageError("option " + spec.flag + ": give at least one value");
  if (out.size() > 32) throw UsageError("option " + spec.flag + ": at most 32 " + spec.name);
  return out;
}

}  // namespace

SettingOptions::SettingOptions(CLI::App& app,
                               const std::function<bool(const document::SettingSpec&)>& which) {
  using document::SettingType;
  for (const document::SettingSpec& spec : document::analysis_setting_specs()) {
    if (which && !which(spec)) continue;
    Given& given = given_[spec.name];
    given.spec = &spec;
    if (spec.type == SettingType::Flag) {
      given.option = app.add_flag(spec.flag, given.on, spec.help)->group(spec.group);
      continue;
    }
    const bool ranged = spec.type == SettingType::Number || spec.type == SettingType::Whole;
    CLI::Option* option =
        app.add_option(spec.flag, given.text,
                       ranged ? range_text(spec.help, spec.lo, spec.hi) : spec.help)
            ->type_name(spec.metavar)
            ->group(spec.group);
    if (spec.type == SettingType::Number) option->check(number_in(spec.lo, spec.hi));
    if (spec.type == SettingType::Whole)
      option->check(whole_in(static_cast<long long>(spec.lo), static_cast<long long>(spec.hi)));
    if (spec.type == SettingType::Word) option->check(CLI::IsMember(spec.words));
    if (!spec.defaultText().empty()) option->default_str(spec.defaultText());
    given.option = option;
  }
}

void SettingOptions::apply(document::AnalysisSettings& s) const {
  using document::SettingType;
  for (const auto& [name, given] : given_) {
    if (given.option->count() == 0) continue;
    const document::SettingSpec& spec = *given.spec;
    switch (spec.type) {
      case SettingType::Flag:
        spec.setNumber(s, given.on ? 1 : 0);
        break;
      case SettingType::Number:
      case SettingType::Whole:  // checked by the option's validator
        spec.setNumber(s, std::strtod(given.text.c_str(), nullptr));
        break;
      case SettingType::Word:
        spec.setWord(s, given.text);
        break;
      case SettingType::NumberList:
        spec.setList(s, number_list(spec, given.text));
        break;
    }
  }
}

std::string SettingOptions::given() const {
  std::string out;
  for (const auto& [name, given] : given_)
    if (given.option->count() > 0) out += (out.empty() ? "" : ", ") + given.spec->flag;
  return out;
}

}  // namespace sinkscope::app
