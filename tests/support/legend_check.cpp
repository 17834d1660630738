#include "support/legend_check.h"

#include <set>

namespace sinkscope::testing {

std::vector<std::string> legend_gaps(const nlohmann::json& plot) {
  std::vector<std::string> gaps;
  const nlohmann::json& series = plot.at("series");
  auto drawn = [](const nlohmann::json& s) { return !s.at("x").empty(); };
  auto listed = [](const nlohmann::json& s) { return s.at("in_legend").get<bool>(); };
  // A key: an entry with nothing drawn, saying what a line style means.
  auto keyFor = [&](bool dashed) {
    for (const nlohmann::json& s : series)
      if (listed(s) && !drawn(s) && s.at("dashed").get<bool>() == dashed) return true;
    return false;
  };
  std::set<std::string> names;
  bool unlisted = false;
  for (const nlohmann::json& s : series) {
    const std::string name = s.at("name").get<std::string>();
    if (listed(s) && !names.insert(name).second)
      gaps.push_back("two legend entries say '" + name + "'");
    if (!drawn(s) || listed(s)) continue;
    unlisted = true;
    const int of = s.at("colour_of").get<int>();
    const bool twin = of >= 0 && of < static_cast<int>(series.size()) &&
                      listed(series[static_cast<std::size_t>(of)]) &&
                      drawn(series[static_cast<std::size_t>(of)]);
    if (!twin || !s.at("dashed").get<bool>() || !keyFor(true))
      gaps.push_back("'" + name + "' is drawn and not in the legend");
  }
  for (const nlohmann::json& s : series)
    if (listed(s) && !drawn(s) && !unlisted)
      gaps.push_back("the legend's '" + s.at("name").get<std::string>() +
                     "' stands for nothing drawn");
  return gaps;
}

}  // namespace sinkscope::testing
