#include "models/document/run_views.h"

#include <algorithm>
#include <stdexcept>

#include "analysis/graph_spectrum.h"
#include "analysis/value_space.h"
#include "models/document/map_views.h"
#include "models/document/panel_views.h"
#include "models/document/plot_views.h"
#include "models/document/scene_views.h"
#include "models/model.h"
#include "models/views/view_json.h"

namespace sinkscope::document {

namespace {

void check_selection(const TraceAnalysis& a, const ViewSelection& s) {
  auto outside = [](const std::string& what, int v, int n) {
    throw std::invalid_argument(what + ": " + std::to_string(v) + " is outside 0.." +
                                std::to_string(n - 1));
  };
  if (s.layer < 0 || s.layer >= a.layers) outside("layer", s.layer, a.layers);
  if (s.head < -1 || s.head >= a.heads) outside("head", s.head, a.heads);
  if (s.query < -1 || s.query >= a.tokens) outside("query", s.query, a.tokens);
  if (!(s.threshold >= 0 && s.threshold <= 1))
    throw std::invalid_argument("threshold: give a number in [0, 1]");
}

}  // namespace

nlohmann::json run_views_json(const models::Trace& trace, const TraceAnalysis& a,
                              const std::vector<std::string>& tokens, const std::string& source,
                              const ViewSelection& s) {
  check_selection(a, s);
  using nlohmann::json;
  const models::LayerCapture capture = trace.layer(s.layer);
  auto mapOf = [&](int head) {
    if (head >= 0) {
      const analysis::AttentionView v = capture.attentionOf(head);
      return analysis::AttentionMatrix{std::vector<float>(v.weights.begin(), v.weights.end()),
                                       v.size, v.causal};
    }
    return capture.headAverage();
  };
  const analysis::AttentionMatrix map = mapOf(s.head);
  const int query = s.query >= 0 ? s.query : a.tokens - 1;
  const PlotPlace place{s.layer, s.head, {}};
  const analysis::HeadAnalysis& r = a.at(s.layer, s.head);
  json panels = json::object();
  const auto wanted = [&s](const char* panel) {
    return s.panels.empty() || std::find(s.panels.begin(), s.panels.end(), panel) != s.panels.end();
  };

  if (wanted("attention-map")) {
    AttentionMapInputs am;
    am.source = source;
    am.tokens = &tokens;
    am.map = &map;
    am.layer = s.layer;
    am.head = s.head;
    am.analysis = &a;
    panels["attention-map"] = json::array({views::view_json(attention_map(am))});
  }

  if (wanted("key-importance")) {
    KeyImportanceInputs ki;
    ki.source = source;
    ki.place = place;
    ki.map = &map;
    ki.tokens = &tokens;
    ki.analysis = &a;
    panels["key-importance"] = json::array({views::view_json(key_importance_plot(ki))});
  }

  if (wanted("overview")) {
    HeadScoreMapInputs overview;
    overview.sources.threshold = s.threshold;
    overview.framedLayer = overview.outlineLayer = s.layer;
    overview.framedHead = overview.outlineHead = s.head;
    overview.hasValues = !capture.values.empty();
    panels["overview"] = json::array({views::view_json(head_score_map(a, overview))});
  }

  const double minPersistence = a.settings.minPersistence;
  panels["persistence"] =
      json::array({views::view_json(persistence_diagram_plot(r, place, minPersistence, tokens)),
                   views::view_json(barcode_plot(r, place)),
                   views::view_json(betti_plot(r, place, minPersistence))});

  // The spectrum at the selected threshold (with its vectors: the graph and
  // the embedding place the tokens by them).
  const analysis::GraphSpectrum chosen = analysis::graph_spectrum(map.view(), {s.threshold});
  std::vector<analysis::GraphSpectrum> shown = r.spectra;
  if (shown.empty() || a.thresholdIndex(s.threshold) < 0) shown.push_back(chosen);
  panels["spectrum"] =
      json::array({views::view_json(spectrum_plot(shown, chosen, place, false, std::nullopt)),
                   views::view_json(spectral_embedding_scene(
                       chosen, tokens, [](int) { return false; }, r.sinks.keys()))});

  if (wanted("graph")) {
    GraphSceneInputs graph;
    graph.map = &map;
    graph.analysis = &r;
    graph.positions = &chosen.embedding;
    graph.tokens = &tokens;
    graph.layer = s.layer;
    graph.head = s.head;
    graph.theta = s.threshold;
    panels["graph"] = json::array({views::view_json(graph_scene(graph))});
  }

  const LayerAxis byLayer;
  const RunNames names;
  if (wanted("layer-profiles")) {
    panels["layer-profiles"] =
        json::array({views::view_json(layer_sinks_plot(layer_sink_view(a, a.settings, s.threshold),
                                                       nullptr, a.layers, 0, source, a.settings.eps,
                                                       s.threshold, byLayer, names, s.layer)),
                     views::view_json(layer_topology_plot(
                         layer_topology_view(a, a.settings, s.threshold), nullptr, a.layers, 0,
                         minPersistence, s.threshold, a.topologyForAllHeads,
                         kTopologyForAllHeadsMaxTokens, byLayer, names, s.layer))});
  }

  if (wanted("head-view")) {
    HeadViewInputs hv;
    hv.source = source;
    hv.tokens = &tokens;
    hv.layer = s.layer;
    hv.head = s.head;
    hv.heads = a.heads;
    hv.mapOf = mapOf;
    panels["head-view"] = json::array({views::view_json(head_view(hv))});
  }

  // Value space and the taxonomy need the heads' values (a capture may have none).
  if (!capture.values.empty()) {
    if (wanted("taxonomy")) {
      const TaxonomyView classes = taxonomy_view(a);
      panels["taxonomy"] = json::array(
          {views::view_json(taxonomy_grid(classes, s.layer, s.head, "Head classes")),
           views::view_json(taxonomy_counts_plot(classes, nullptr, false, byLayer, names))});
    }
    if (s.head >= 0 && wanted("value-space")) {
      analysis::ValueSpaceParams p;
      p.topN = a.settings.topN;
      p.query = query;
      p.randomSubsets = a.settings.randomSubsets;
      p.seed = a.settings.seed;
      const std::span<const float> values = capture.valuesOf(s.head);
      const analysis::ValueSpace vs =
          analysis::value_space(map.view(), values, capture.head_dim, p);
      const analysis::ValueSpaceCurve curve =
          analysis::value_space_curve(map.view(), values, capture.head_dim, p);
      panels["value-space"] =
          json::array({views::view_json(value_space_scene(vs, tokens, s.layer, s.head, query, {})),
                       views::view_json(value_curve_plot(curve, s.layer, s.head, query, vs.topN))});
    }
  }
  return {{"selection",
           {{"layer", s.layer}, {"head", s.head}, {"query", query}, {"threshold", s.threshold}}},
          {"panels", panels}};
}

}  // namespace sinkscope::document
