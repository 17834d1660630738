#include "models/views/view_json.h"

#include <cmath>
#include <stdexcept>

namespace sinkscope::views {

namespace {

using nlohmann::json;

// A number, or null where it is undefined (JSON has no NaN or infinity).
json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json numbers(const std::vector<double>& v) {
  json out = json::array();
  for (double x : v) out.push_back(number(x));
  return out;
}

json numbers(const std::vector<float>& v) {
  json out = json::array();
  for (float x : v) out.push_back(number(x));
  return out;
}

json colour(const Rgb& c) { return json::array({c.r, c.g, c.b}); }

json point3(const std::array<double, 3>& p) {
  return json::array({number(p[0]), number(p[1]), number(p[2])});
}

void add_numbers(json& out, const std::shared_ptr<const io::CsvTable>& table) {
  out["numbers"] = table ? table_json(*table) : json(nullptr);
}

}  // namespace

json table_json(const io::CsvTable& table) {
  json comments = json::object();
  for (const auto& [key, value] : table.comments) comments[key] = value;
  // A long input's map keeps its rows as CSV text: read back for the JSON.
  if (io::csv_has_text_rows(table))
    return {{"columns", table.columns},
            {"rows", io::csv_with_rows_parsed(table).rows},
            {"comments", comments}};
  return {{"columns", table.columns}, {"rows", table.rows}, {"comments", comments}};
}

json view_json(const LinePlot& plot) {
  json series = json::array();
  for (const PlotSeries& s : plot.series) {
    const char* style = s.reference   ? "reference"
                        : s.threshold ? "threshold"
                        : s.segments  ? "segments"
                        : s.stacked   ? "stacked_bars"
                        : s.scatter   ? "points"
                                      : "line";
    json one{{"name", s.name},          {"x", numbers(s.x)},       {"y", numbers(s.y)},
             {"style", style},          {"dashed", s.dashed},      {"markers", s.markers},
             {"in_legend", s.inLegend}, {"colour_of", s.colourOf}, {"run", s.run},
             {"labels", s.labels},      {"tips", s.tips}};
    one["colour"] = s.colour ? colour(*s.colour) : json(nullptr);
    if (!s.lo.empty()) one["lo"] = numbers(s.lo), one["hi"] = numbers(s.hi);
    series.push_back(std::move(one));
  }
  json out{{"kind", "plot"},
           {"title", plot.title},
           {"x_label", plot.xLabel},
           {"y_label", plot.yLabel},
           {"integer_x", plot.integerX},
           {"integer_y", plot.integerY},
           {"x_tick_labels", plot.xTickLabels},
           {"log2_x", plot.log2X},
           {"equal_scale", plot.equalScale},
           {"include_zero", plot.includeZero},
           {"marked_x", number(plot.markedX)},
           {"series", series}};
  add_numbers(out, plot.numbers);
  return out;
}

json view_json(const HeatMap& map) {
  const auto [lo, hi] = heat_map_range(map);
  json categories = json::array();
  for (std::size_t c = 0; c < map.categories.size(); ++c)
    categories.push_back({{"name", map.categories[c]},
                          {"colour", c < map.categoryColours.size() ? colour(map.categoryColours[c])
                                                                    : json(nullptr)}});
  json hidden = json::array();
  for (bool h : map.hidden) hidden.push_back(h);
  json out{{"kind", "heat_map"},
           {"title", map.title},
           {"rows", map.rows},
           {"cols", map.cols},
           {"values", numbers(map.values)},
           {"hidden", hidden},
           {"row_labels", map.rowLabels},
           {"right_row_labels", map.rightRowLabels},
           {"col_labels", map.colLabels},
           {"quantity", map.quantity},
           {"row_title", map.rowTitle},
           {"col_title", map.colTitle},
           {"range", json::array({lo, hi})},
           {"scale", map.logScale    ? "log"
                     : map.diverging ? "diverging"
                                     : "linear"},
           {"categories", categories},
           {"marked_cols", map.markedCols},
           {"highlighted", map.highlighted},
           {"outline", json::array({map.outlineRow, map.outlineCol})},
           {"side_by_side_split", map.sideBySideSplit},
           {"runs", json::array({map.leftRun, map.rightRun})}};
  add_numbers(out, map.numbers);
  return out;
}

json view_json(const Scene& scene) {
  json points = json::array(), edges = json::array(), balls = json::array();
  for (const ScenePoint& p : scene.points)
    points.push_back({{"position", point3(p.position)},
                      {"colour", colour(p.color)},
                      {"size", p.size},
                      {"label", p.label},
                      {"token", p.token},
                      {"sink_ring", p.sinkRing}});
  for (const SceneEdge& e : scene.edges)
    edges.push_back({{"from", e.from}, {"to", e.to}, {"weight", e.weight}, {"lit", e.lit}});
  for (const SceneBall& b : scene.balls)
    balls.push_back(
        {{"centre", point3(b.center)}, {"radius", number(b.radius)}, {"colour", colour(b.color)}});
  json bar = nullptr;
  if (scene.colourBar)
    bar = {{"name", scene.colourBar->name},
           {"lo", number(scene.colourBar->lo)},
           {"hi", number(scene.colourBar->hi)},
           {"colour_map", "diverging"}};
  return {{"kind", "scene"}, {"title", scene.title}, {"legend", scene.legend}, {"points", points},
          {"edges", edges},  {"balls", balls},       {"colour_bar", bar}};
}

json view_json(const HeadViewData& view) {
  json heads = json::array();
  for (const HeadViewHead& h : view.heads)
    heads.push_back(
        {{"name", h.name}, {"colour", colour(h.colour)}, {"weights", numbers(h.weights)}});
  json out{
      {"kind", "head_view"}, {"title", view.title},
      {"note", view.note},   {"tokens", view.tokens},
      {"heads", heads},      {"selected", json::array({view.selectedQuery, view.selectedKey})}};
  add_numbers(out, view.numbers);
  return out;
}

}  // namespace sinkscope::views
