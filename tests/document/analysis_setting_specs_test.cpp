// The one declaration of the analysis settings and what is made from it:
// study.json's params round-trip every setting a study records, --json's
// params name every setting it declares, and each range holds at its ends.
#include <gtest/gtest.h>

#include <set>

#include "models/document/analysis_setting_specs.h"
#include "models/document/analysis_settings.h"
#include "models/document/study_files.h"

using namespace sinkscope::document;
using sinkscope::document::study_format::study_params_json;
using sinkscope::document::study_format::study_params_read;

namespace {

// Settings unlike the defaults in every declared field: each at the far end
// of its range, the last word, two thresholds.
AnalysisSettings far_settings() {
  AnalysisSettings s;
  for (const SettingSpec& spec : analysis_setting_specs()) {
    switch (spec.type) {
      case SettingType::Number:
      case SettingType::Whole:
        spec.setNumber(s, spec.number(s) == spec.hi ? spec.lo : spec.hi);
        break;
      case SettingType::Word:
        spec.setWord(s, spec.words.back());
        break;
      case SettingType::NumberList:
        spec.setList(s, {spec.lo, spec.hi});
        break;
      case SettingType::Flag:
        spec.setNumber(s, 1);
        break;
    }
  }
  return s;
}

bool same_setting(const SettingSpec& spec, const AnalysisSettings& a, const AnalysisSettings& b) {
  switch (spec.type) {
    case SettingType::Word:
      return spec.word(a) == spec.word(b);
    case SettingType::NumberList:
      return spec.list(a) == spec.list(b);
    default:
      return spec.number(a) == spec.number(b);
  }
}

}  // namespace

TEST(AnalysisSettingSpecs, NamesAreUniqueAndEveryFieldIsReachable) {
  std::set<std::string> names, flags;
  for (const SettingSpec& spec : analysis_setting_specs()) {
    EXPECT_TRUE(names.insert(spec.name).second) << spec.name;
    EXPECT_TRUE(flags.insert(spec.flag).second) << spec.flag;
    EXPECT_EQ(spec.flag.rfind("--", 0), 0u) << spec.flag;
    EXPECT_FALSE(spec.help.empty()) << spec.name;
    EXPECT_EQ(analysis_setting(spec.name), &spec);
    EXPECT_EQ(analysis_setting(spec.jsonName()), &spec);
    if (spec.type == SettingType::Number || spec.type == SettingType::Whole) {
      EXPECT_LT(spec.lo, spec.hi) << spec.name;
      const AnalysisSettings defaults;
      EXPECT_TRUE(spec.optional || spec.contains(spec.number(defaults))) << spec.name;
    }
    if (spec.type == SettingType::Word) {
      ASSERT_FALSE(spec.words.empty()) << spec.name;
      EXPECT_EQ(spec.defaultText(), spec.words.front()) << "the default first: " << spec.name;
    }
  }
  // Every setting differs from its default in far_settings (else a field
  // would not be written by its setter).
  const AnalysisSettings defaults, far = far_settings();
  for (const SettingSpec& spec : analysis_setting_specs())
    EXPECT_FALSE(same_setting(spec, defaults, far)) << spec.name;
  EXPECT_EQ(analysis_setting("no_such_setting"), nullptr);
}

TEST(AnalysisSettingSpecs, StudyParamsRoundTripEverySettingAStudyRecords) {
  const AnalysisSettings far = far_settings();
  const nlohmann::json params = study_params_json(far);
  const AnalysisSettings back = study_params_read(params, "study.json");
  for (const SettingSpec& spec : analysis_setting_specs()) {
    EXPECT_EQ(params.contains(spec.name), spec.study) << spec.name;
    if (spec.study) {
      EXPECT_TRUE(same_setting(spec, far, back)) << spec.name;
    }
  }
  // A word outside the declared ones is refused by name, never read as the default.
  nlohmann::json bad = params;
  bad["symmetrise"] = "min";
  try {
    (void)study_params_read(bad, "study.json");
    FAIL() << "accepted symmetrise = min";
  } catch (const StudyError& e) {
    EXPECT_STREQ(e.what(), "study.json: symmetrise: 'min' is not one of mean, max");
  }
}

TEST(AnalysisSettingSpecs, JsonParamsNameEveryDeclaredSetting) {
  const nlohmann::json params = settings_json(AnalysisSettings{});
  for (const SettingSpec& spec : analysis_setting_specs())
    EXPECT_EQ(params.contains(spec.jsonName()), spec.params) << spec.name;
  const nlohmann::json pooled = settings_json(AnalysisSettings{}, true);
  for (const SettingSpec& spec : analysis_setting_specs())
    EXPECT_TRUE(pooled.contains(spec.jsonName())) << "pooled tables name " << spec.name;
  EXPECT_TRUE(params.at("query").is_null()) << "unset: the last token";
  EXPECT_EQ(params.at("sink_metric_eps"), 0.3);
  EXPECT_EQ(python_setting_names(),
            "percentile, gamma, sink_mode, sink_denominator, eps, top_n, query, random_subsets, "
            "seed, min_persistence, betti_points, symmetrise, thresholds");
}
