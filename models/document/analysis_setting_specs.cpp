#include "models/document/analysis_setting_specs.h"

#include <cmath>
#include <stdexcept>

#include "models/io/table_io.h"

namespace sinkscope::document {

namespace {

using Denominator = analysis::SinkSetParams::Denominator;

const char* kSinks = "Sink set and sink metric (metrics.md s. 1)";
const char* kHeads = "Diagnostics, value space and topology (s. 2, 3, 6)";
const char* kPooled = "Sentences pooled (analyze --sentences, study)";

// A setting held in a double or int field of AnalysisSettings.
template <class Field>
SettingSpec numeric(SettingType type, std::string name, std::string flag, std::string metavar,
                    std::string help, const char* group, std::string paper, double lo, double hi,
                    Field AnalysisSettings::*field) {
  SettingSpec s;
  s.name = std::move(name), s.flag = std::move(flag), s.metavar = std::move(metavar);
  s.help = std::move(help), s.group = group, s.paper = std::move(paper);
  s.type = type, s.lo = lo, s.hi = hi;
  s.number = [field](const AnalysisSettings& a) { return static_cast<double>(a.*field); };
  s.setNumber = [field](AnalysisSettings& a, double v) { a.*field = static_cast<Field>(v); };
  return s;
}

SettingSpec word(std::string name, std::string flag, std::string metavar, std::string help,
                 const char* group, std::string paper, std::vector<std::string> words,
                 std::function<std::string(const AnalysisSettings&)> get,
                 std::function<void(AnalysisSettings&, const std::string&)> set) {
  SettingSpec s;
  s.name = std::move(name), s.flag = std::move(flag), s.metavar = std::move(metavar);
  s.help = std::move(help), s.group = group, s.paper = std::move(paper);
  s.type = SettingType::Word, s.words = std::move(words);
  s.word = std::move(get), s.setWord = std::move(set);
  return s;
}

std::vector<SettingSpec> make_specs() {
  using T = SettingType;
  std::vector<SettingSpec> v;
  v.push_back(numeric(T::Number, "percentile", "--percentile", "P",
                      "the score threshold tau is the P-th percentile", kSinks, "s. 1", 0, 100,
                      &AnalysisSettings::percentile));
  v.push_back(numeric(T::Number, "gamma", "--gamma", "G",
                      "a key is a sink for at least this share of the queries", kSinks, "s. 1", 0,
                      1, &AnalysisSettings::gamma));
  v.push_back(word(
      "sink_mode", "--sink-mode", "MODE", "percentile, or column-sum (the released code's)", kSinks,
      "s. 1", {"percentile", "column-sum"},
      [](const AnalysisSettings& a) { return a.columnSumSinks ? "column-sum" : "percentile"; },
      [](AnalysisSettings& a, const std::string& w) { a.columnSumSinks = w == "column-sum"; }));
  v.push_back(word(
      "sink_denominator", "--sink-denominator", "OF",
      "all: gamma of all T queries; visible: of the queries that see the key", kSinks, "s. 1",
      {"all", "visible"},
      [](const AnalysisSettings& a) { return analysis::sink_denominator_name(a.sinkDenominator); },
      [](AnalysisSettings& a, const std::string& w) {
        a.sinkDenominator = w == "all" ? Denominator::AllQueries : Denominator::VisibleQueries;
      }));
  v.push_back(numeric(T::Number, "eps", "--eps", "E", "a head has a sink when alpha_0 > E", kSinks,
                      "s. 1", 0, 1, &AnalysisSettings::eps));
  v.back().paramsName = "sink_metric_eps";

  v.push_back(numeric(T::Whole, "top_n", "--top-n", "N",
                      "the top-N keys of diagnostics and the value space", kHeads, "s. 1, 6", 1,
                      100000, &AnalysisSettings::topN));
  v.back().selection = true;
  v.push_back(numeric(T::Whole, "query", "--query", "Q",
                      "the query of diagnostics and the value space (default: the last token)",
                      kHeads, "s. 1, 6", 0, 1 << 24, &AnalysisSettings::query));
  v.back().optional = true, v.back().selection = true;
  v.push_back(numeric(T::Whole, "random_subsets", "--random-subsets", "K",
                      "random N-subsets of F_N's baseline", kHeads, "s. 6", 0, 100000,
                      &AnalysisSettings::randomSubsets));
  v.push_back(numeric(T::Whole, "seed", "--seed", "S", "the seed of the random subsets", kHeads,
                      "s. 6", 0, 2147483647, &AnalysisSettings::seed));
  v.push_back(numeric(T::Number, "min_persistence", "--min-persistence", "M",
                      "bars counted above this persistence", kHeads, "s. 2", 0, 1,
                      &AnalysisSettings::minPersistence));
  v.push_back(numeric(T::Whole, "betti_points", "--betti-points", "K",
                      "points of the Betti curves' grid over [0, 1]", kHeads, "s. 2", 2, 100000,
                      &AnalysisSettings::bettiPoints));
  v.push_back(word(
      "symmetrise", "--symmetrise", "HOW", "how A becomes a symmetric graph", kHeads, "s. 2",
      {"mean", "max"}, [](const AnalysisSettings& a) { return a.symmetriseByMax ? "max" : "mean"; },
      [](AnalysisSettings& a, const std::string& w) { a.symmetriseByMax = w == "max"; }));
  {
    SettingSpec s;
    s.name = "thresholds", s.flag = "--thresholds", s.metavar = "a,b,...";
    s.help = "graph thresholds theta (default 0.01,0.05,0.1,0.2)", s.group = kHeads;
    s.paper = "s. 3, 4", s.type = T::NumberList, s.lo = 0, s.hi = 1;
    s.list = [](const AnalysisSettings& a) { return a.thresholds; };
    s.setList = [](AnalysisSettings& a, const std::vector<double>& t) { a.thresholds = t; };
    v.push_back(std::move(s));
  }

  v.push_back(numeric(T::Number, "specialised_share", "--specialised-share", "S",
                      "a head is specialised at or above this share", kPooled, "s. 1", 0, 1,
                      &AnalysisSettings::specialisedShare));
  v.back().python = false;
  {
    SettingSpec s;
    s.name = "functional", s.flag = "--functional";
    s.help = "also KL of sink removal and BOS removal per sentence", s.group = kPooled;
    s.paper = "s. 5", s.type = T::Flag, s.python = false, s.params = false;
    s.number = [](const AnalysisSettings& a) { return a.functional ? 1.0 : 0.0; };
    s.setNumber = [](AnalysisSettings& a, double on) { a.functional = on != 0; };
    v.push_back(std::move(s));
  }
  v.push_back(numeric(T::Whole, "batch", "--batch", "B",
                      "sentences per block, one batched pass per token count", kPooled, "", 1, 4096,
                      &AnalysisSettings::batch));
  v.back().python = false, v.back().params = false;
  v.push_back(numeric(T::Whole, "bootstrap", "--bootstrap", "B",
                      "resamples of the 95% intervals (0: none)", kPooled, "s. 1", 0, 100000,
                      &AnalysisSettings::bootstrap));
  v.back().python = false, v.back().study = false, v.back().params = false;
  v.push_back(numeric(T::Whole, "bootstrap_seed", "--bootstrap-seed", "S",
                      "the seed of the resamples", kPooled, "s. 1", 0, 2147483647,
                      &AnalysisSettings::bootstrapSeed));
  v.back().python = false, v.back().study = false, v.back().params = false;
  return v;
}

}  // namespace

std::string SettingSpec::defaultText() const {
  const AnalysisSettings defaults;
  switch (type) {
    case SettingType::Number:
      return io::csv_number(number(defaults));
    case SettingType::Whole:
      return optional ? std::string() : io::csv_number(number(defaults));
    case SettingType::Word:
      return word(defaults);
    case SettingType::Flag:
      return number(defaults) != 0 ? "true" : "false";
    case SettingType::NumberList:
      break;
  }
  return {};
}

std::string SettingSpec::wordsText() const {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

const std::vector<SettingSpec>& analysis_setting_specs() {
  static const std::vector<SettingSpec> specs = make_specs();
  return specs;
}

const SettingSpec* analysis_setting(std::string_view name) {
  for (const SettingSpec& s : analysis_setting_specs())
    if (s.name == name || s.jsonName() == name) return &s;
  return nullptr;
}

std::string python_setting_names() {
  std::string out;
  for (const SettingSpec& s : analysis_setting_specs())
    if (s.python) out += (out.empty() ? "" : ", ") + s.name;
  return out;
}

nlohmann::json SettingSpec::json(const AnalysisSettings& s) const {
  switch (type) {
    case SettingType::Number:
      return number(s);
    case SettingType::Whole: {
      const auto v = static_cast<long long>(number(s));
      return optional && v < 0 ? nlohmann::json(nullptr) : nlohmann::json(v);
    }
    case SettingType::Word:
      return word(s);
    case SettingType::NumberList:
      return list(s);
    case SettingType::Flag:
      return number(s) != 0;
  }
  return nullptr;
}

nlohmann::json head_settings_json(const AnalysisSettings& s) {
  nlohmann::json out = nlohmann::json::object();
  for (const SettingSpec& spec : analysis_setting_specs())
    if (spec.python) out[spec.name] = spec.json(s);
  return out;
}

AnalysisSettings head_settings_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw std::invalid_argument(where + ": expected an object of settings");
  AnalysisSettings s;
  for (const auto& [key, value] : j.items()) {
    const SettingSpec* spec = analysis_setting(key);
    const std::string at = where + "." + key;
    if (!spec || !spec->python)
      throw std::invalid_argument(at + ": not an analysis setting (" + python_setting_names() +
                                  ")");
    auto number_in = [&](const nlohmann::json& v) {
      if (!v.is_number()) throw std::invalid_argument(at + ": expected a number");
      const double x = v.get<double>();
      if (!spec->contains(x))
        throw std::invalid_argument(at + ": " + io::csv_number(x) + " is outside " +
                                    io::csv_number(spec->lo) + " to " + io::csv_number(spec->hi));
      return x;
    };
    switch (spec->type) {
      case SettingType::Number:
        spec->setNumber(s, number_in(value));
        break;
      case SettingType::Whole: {
        if (spec->optional && value.is_null()) {  // unset (the query: the last token)
          spec->setNumber(s, -1);
          break;
        }
        const double x = number_in(value);
        if (!value.is_number_integer() || x != std::floor(x))
          throw std::invalid_argument(at + ": expected a whole number");
        spec->setNumber(s, x);
        break;
      }
      case SettingType::Word: {
        const std::string w = value.is_string() ? value.get<std::string>() : std::string();
        bool known = false;
        for (const std::string& allowed : spec->words) known = known || allowed == w;
        if (!known) throw std::invalid_argument(at + ": expected one of " + spec->wordsText());
        spec->setWord(s, w);
        break;
      }
      case SettingType::NumberList: {
        if (!value.is_array() || value.empty() || value.size() > 32)
          throw std::invalid_argument(at + ": expected 1 to 32 numbers");
        std::vector<double> list;
        for (const auto& v : value) list.push_back(number_in(v));
        spec->setList(s, list);
        break;
      }
      case SettingType::Flag:
        if (!value.is_boolean()) throw std::invalid_argument(at + ": expected true or false");
        spec->setNumber(s, value.get<bool>() ? 1 : 0);
        break;
    }
  }
  return s;
}

}  // namespace sinkscope::document
