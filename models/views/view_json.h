#pragma once
// Every view description as JSON: what a notebook, a web page or a script
// reads of a panel (its series, axes, cells, points, legend, and its table
// of numbers with typed columns as the CSV writes them). Numbers that are
// not finite become null.
#include <nlohmann/json.hpp>

#include "models/views/head_view.h"
#include "models/views/heat_map.h"
#include "models/views/line_plot.h"
#include "models/views/scene.h"

namespace sinkscope::views {

nlohmann::json view_json(const LinePlot& plot);
nlohmann::json view_json(const HeatMap& map);
nlohmann::json view_json(const Scene& scene);
nlohmann::json view_json(const HeadViewData& view);
// A table as {"columns": [...], "rows": [[...], ...], "comments": {...}}: its cells as text,
// exactly as the CSV writes them.
nlohmann::json table_json(const io::CsvTable& table);

}  // namespace sinkscope::views
