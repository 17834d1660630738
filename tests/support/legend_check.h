#pragma once
// What a plot's legend leaves unexplained, read from the plot's description
// as data (views::view_json): every drawn series has exactly one legend
// entry, its own or, for a dashed twin drawn in its listed quantity's colour,
// the quantity's entry together with an entry that says what the dashes are.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sinkscope::testing {

// One line per gap ("'x' is drawn and not in the legend"); empty: none.
std::vector<std::string> legend_gaps(const nlohmann::json& plot);

}  // namespace sinkscope::testing
