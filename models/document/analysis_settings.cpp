#include "models/document/analysis_settings.h"

#include "models/document/analysis_setting_specs.h"

#include "analysis/persistence.h"
#include "analysis/ties.h"
#include "models/io/table_io.h"

namespace sinkscope::document {

using io::csv_number;
using nlohmann::json;

analysis::SinkSetParams sink_set_params(const AnalysisSettings& s) {
  analysis::SinkSetParams params;
  params.percentile = s.percentile;
  params.gamma = s.gamma;
  params.denominator = s.sinkDenominator;
  if (s.columnSumSinks) params.mode = analysis::SinkSetParams::Mode::ColumnSum;
  return params;
}

analysis::HeadAnalysisParams head_analysis_params(const AnalysisSettings& s, int tokens) {
  analysis::HeadAnalysisParams params;
  params.sinks = sink_set_params(s);
  params.topN = s.topN;
  params.distance = {s.symmetriseByMax};
  params.bettiPoints = s.bettiPoints;
  params.thresholds = s.thresholds;
  params.valueSpace = {s.topN, s.query < tokens ? s.query : -1, s.randomSubsets, s.seed, false};
  return params;
}

std::string sink_set_description(const AnalysisSettings& s) {
  if (s.columnSumSinks)
    return "column-sum mode (the released code), p = " + csv_number(s.percentile);
  const bool all = s.sinkDenominator == analysis::SinkSetParams::Denominator::AllQueries;
  return "percentile mode, p = " + csv_number(s.percentile) + ", gamma = " + csv_number(s.gamma) +
         " (reading: A >= tau and A > 0); frequency over " +
         (all ? std::string("all T queries (metrics.md s. 1)")
              : std::string("the queries that see the key (--sink-denominator visible)"));
}

std::string persistence_tolerance_description() {
  const std::string tol = csv_number(analysis::kBarTolerance);
  return "Vietoris-Rips, H0 and H1 over Z/2; filtration values within " + tol +
         " are equal: a bar no longer than " + tol +
         " of the largest distance is not a bar, a bar is alive at e when birth <= e + " + tol +
         " < death (Betti curves), above min_persistence when longer by more than " + tol;
}

std::string graph_threshold_description() {
  return "an edge i-j where A_ij >= theta, i != j; a weight within a relative " +
         csv_number(analysis::kTieTolerance) +
         " of theta reaches it (equal as a real number, whichever way float32 rounded it)";
}

json settings_json(const AnalysisSettings& s, bool pooled) {
  json out = json::object();
  for (const SettingSpec& spec : analysis_setting_specs()) {
    if (!spec.params && !pooled) continue;
    out[spec.jsonName()] = spec.json(s);
  }
  json intervention = json::array();
  for (const auto& line : s.intervention.describe()) intervention.push_back(line);
  out["weight_spectra"] = s.weightSpectra;
  out["interventions"] = intervention;
  return out;
}

}  // namespace sinkscope::document
