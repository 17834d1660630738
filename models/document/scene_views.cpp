#include "models/document/scene_views.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>

#include "analysis/ties.h"
#include "models/document/panel_views.h"
#include "models/document/plot_views.h"
#include "models/views/colours.h"

namespace sinkscope::document {

namespace {

// "3 cat": index and display string, so repeated tokens stay distinguishable.
std::string token_label(const std::vector<std::string>& tokens, int t) {
  return std::to_string(t) + " " +
         (t >= 0 && t < static_cast<int>(tokens.size()) ? tokens[static_cast<std::size_t>(t)]
                                                        : std::string());
}

std::string two_decimals(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", v);
  return text;
}

}  // namespace

views::Scene note_scene(const std::string& title) {
  views::Scene scene;
  scene.title = title;
  return scene;
}

views::Scene graph_scene(const GraphSceneInputs& in) {
  const analysis::AttentionMatrix& map = *in.map;
  const analysis::HeadAnalysis& r = *in.analysis;
  views::Scene d;
  d.title = "Attention graph | layer " + std::to_string(in.layer) + ", " + head_name(in.head) +
            " | θ " + short_number(in.theta) + in.note;
  d.legend = std::string(in.force ? "force-directed" : "spectral") +
             " layout; size: attention received; red: sinks (" +
             std::to_string(r.sinks.sinks.size()) + ")";
  std::vector<bool> sink(static_cast<std::size_t>(map.size), false);
  for (int k : r.sinks.keys()) sink[static_cast<std::size_t>(k)] = true;
  double maxAlpha = 1e-12;
  for (double a : r.keyImportance) maxAlpha = std::max(maxAlpha, a);
  for (int t = 0; t < map.size; ++t) {
    views::ScenePoint p;
    p.position = (*in.positions)[static_cast<std::size_t>(t)];
    const double alpha = r.keyImportance[static_cast<std::size_t>(t)];
    p.size = 0.6 + 1.6 * std::sqrt(alpha / maxAlpha);
    const bool lit = in.lit(t);
    p.color = lit                                 ? views::kSelectedHighlight
              : sink[static_cast<std::size_t>(t)] ? views::kSinkHighlight
                                                  : views::Rgb{0.23, 0.32, 0.55};
    if (lit) p.size *= 1.4;
    p.label = token_label(*in.tokens, t);
    p.token = t;
    d.points.push_back(p);
  }
  // Long inputs: every edge above theta is a hairball; each token keeps its
  // strongest few, and the legend says so.
  const bool thinned = map.size > kThinGraphFrom;
  for (int i = 0; i < map.size; ++i) {
    std::vector<std::pair<double, int>> row;
    for (int j = 0; j < map.size; ++j)
      if (i != j && analysis::reaches_threshold(map.view().at(i, j), in.theta))
        row.emplace_back(map.view().at(i, j), j);
    if (thinned && row.size() > kEdgesPerToken) {
      std::partial_sort(row.begin(), row.begin() + kEdgesPerToken, row.end(),
                        [](const auto& a, const auto& b) { return a.first > b.first; });
      row.resize(kEdgesPerToken);
    }
    for (const auto& [w, j] : row) d.edges.push_back({i, j, w});
  }
  if (thinned)
    d.legend += "; each token's " + std::to_string(kEdgesPerToken) + " strongest edges above θ";
  // The hovered persistence bar's edges, drawn lit whatever their weight.
  for (const auto& [a, b] : in.highlightedEdges)
    if (a < map.size && b < map.size) d.edges.push_back({a, b, 1.0, true});
  return d;
}

views::Scene spectral_embedding_scene(const analysis::GraphSpectrum& full,
                                      const std::vector<std::string>& tokens,
                                      const std::function<bool(int token)>& lit,
                                      const std::vector<int>& sinkKeys) {
  views::Scene scene;
  scene.title = "Spectral embedding | θ " + short_number(full.threshold);
  scene.legend = "eigenvectors 2-4 of the Laplacian; colour: Fiedler vector";
  if (!sinkKeys.empty())
    scene.legend += "; red ring: sinks (" + std::to_string(sinkKeys.size()) + ")";
  double extent = 1e-12;
  for (double v : full.fiedlerVector) extent = std::max(extent, std::abs(v));
  scene.colourBar = views::SceneColourBar{"Fiedler vector", -extent, extent};
  for (int t = 0; t < static_cast<int>(full.embedding.size()); ++t) {
    views::ScenePoint p;
    p.position = full.embedding[static_cast<std::size_t>(t)];
    p.color = views::colormap_diverging(
        full.fiedlerVector.empty() ? 0.0
                                   : full.fiedlerVector[static_cast<std::size_t>(t)] / extent);
    p.size = 1.6;  // near-zero Fiedler entries are near white: large enough to see shaded
    if (lit(t)) p.color = views::kSelectedHighlight, p.size = 2.2;
    p.label = token_label(tokens, t);
    p.token = t;
    p.sinkRing = std::find(sinkKeys.begin(), sinkKeys.end(), t) != sinkKeys.end();
    scene.points.push_back(p);
  }
  return scene;
}

views::Scene value_space_scene(const analysis::ValueSpace& vs,
                               const std::vector<std::string>& tokens, int layer, int head,
                               int query, const std::string& note) {
  views::Scene d;
  d.title = "Value space | layer " + std::to_string(layer) + ", head " + std::to_string(head) +
            ", query " + std::to_string(query) + " | N = " + std::to_string(vs.topN) + ": P " +
            two_decimals(vs.scores.precision) + ", R " + two_decimals(vs.scores.recall) + ", F " +
            two_decimals(vs.scores.f) + " (random " + two_decimals(vs.randomMean.f) + ")" + note;
  d.legend =
      "orange: top-N keys; red: first token; black: sₙ; orange ball: rₘₐₓ, grey ball: "
      "rₘᵢₙ (full-space radii around the projected sₙ)";
  std::vector<bool> selected(vs.keys.size(), false);
  for (int j : vs.selected) selected[static_cast<std::size_t>(j)] = true;  // keys 0..i
  for (std::size_t k = 0; k < vs.keys.size(); ++k) {
    views::ScenePoint pt;
    pt.position = vs.pca3[k];
    pt.color = vs.keys[k] == 0 ? views::kSinkHighlight
               : selected[k]   ? views::kSelectedHighlight
                               : views::Rgb{0.6, 0.6, 0.6};
    pt.label = token_label(tokens, vs.keys[k]);
    pt.token = vs.keys[k];
    d.points.push_back(pt);
  }
  views::ScenePoint s;
  s.position = vs.pca3.back();
  s.color = {0.05, 0.05, 0.05};
  s.size = 1.6;
  s.label = "sₙ";
  d.points.push_back(s);
  d.balls.push_back({s.position, vs.rMax, views::kSelectedHighlight});
  if (std::isfinite(vs.rMin)) d.balls.push_back({s.position, vs.rMin, {0.3, 0.3, 0.3}});
  return d;
}

views::Rgb head_colour(int head, int heads) {
  static const views::Rgb kPalette[] = {
      {0.0, 0.447, 0.698},   {0.835, 0.369, 0.0}, {0.0, 0.620, 0.451},   {0.800, 0.475, 0.655},
      {0.337, 0.706, 0.914}, {0.902, 0.624, 0.0}, {0.941, 0.894, 0.259}, {0.0, 0.0, 0.0}};
  if (heads <= 8) return kPalette[std::clamp(head, 0, 7)];
  return views::colormap_viridis(static_cast<double>(head) / std::max(1, heads - 1));
}

views::HeadViewData head_view(const HeadViewInputs& in) {
  const bool all = in.allHeads || in.head < 0;
  const int T = static_cast<int>(in.tokens->size());
  const int shown = std::min(T, kHeadViewMaxTokens);
  views::HeadViewData d;
  d.title = "Head view | " + in.source + ", layer " + std::to_string(in.layer) +
            (all ? ", every head" : ", head " + std::to_string(in.head)) + in.note;
  if (shown < T)
    d.note = "the first " + std::to_string(shown) + " of " + std::to_string(T) +
             " tokens (a longer view would be a wall of lines)";
  d.tokens.assign(in.tokens->begin(), in.tokens->begin() + shown);
  auto numbers = std::make_shared<io::CsvTable>();
  numbers->columns = attention_columns();
  for (int h = all ? 0 : in.head; h < (all ? in.heads : in.head + 1); ++h) {
    const analysis::AttentionMatrix map = in.mapOf(h);
    // The drawn tokens' block of the map: `sinkscope-cli attention`'s rows for them.
    analysis::AttentionMatrix block{std::vector<float>(static_cast<std::size_t>(shown) * shown),
                                    shown, map.causal};
    for (int q = 0; q < shown; ++q)
      for (int k = 0; k < shown; ++k)
        block.weights[static_cast<std::size_t>(q) * shown + k] = map.view().at(q, k);
    append_attention_rows(*numbers, block.view(), in.layer, h, d.tokens);
    views::HeadViewHead head{"head " + std::to_string(h), head_colour(h, in.heads), {}};
    head.weights.resize(static_cast<std::size_t>(shown) * static_cast<std::size_t>(shown));
    for (int q = 0; q < shown; ++q)
      for (int k = 0; k < shown; ++k)
        head.weights[static_cast<std::size_t>(q) * shown + k] =
            map.view().visible(q, k) ? static_cast<float>(map.view().at(q, k))
                                     : std::numeric_limits<float>::quiet_NaN();
    d.heads.push_back(std::move(head));
  }
  d.numbers = std::move(numbers);
  d.selectedQuery = in.query;
  d.selectedKey = in.key;
  return d;
}

}  // namespace sinkscope::document
