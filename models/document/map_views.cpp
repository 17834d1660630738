#include "models/document/map_views.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "models/document/trace_analysis.h"
#include "models/views/colours.h"

namespace sinkscope::document {

namespace {

std::vector<std::string> numbered(const char* prefix, int n) {
  std::vector<std::string> labels;
  for (int k = 0; k < n; ++k) labels.push_back(prefix + std::to_string(k));
  return labels;
}

}  // namespace

views::HeatMap note_map(const std::string& title) {
  views::HeatMap map;
  map.title = title;
  return map;
}

views::HeatMap maps_side_by_side(const views::HeatMap& left, const views::HeatMap& right,
                                 const RunNames& names, const std::string& title) {
  views::HeatMap both = views::heat_map_side_by_side(left, right, names.before, names.after);
  both.title = title;
  if (left.numbers && right.numbers)
    both.numbers = std::make_shared<const io::CsvTable>(
        tables_by_run({{names.before, left.numbers.get()}, {names.after, right.numbers.get()}}));
  return both;
}

views::HeatMap attention_map(const AttentionMapInputs& in) {
  const analysis::AttentionMatrix& map = *in.map;
  const std::vector<std::string>& tokens = *in.tokens;
  const int T = map.size;
  const bool difference = in.subtract != nullptr;
  views::HeatMap data;
  data.rows = data.cols = T;
  data.values = map.weights;
  if (difference)
    for (std::size_t k = 0; k < data.values.size() && k < in.subtract->weights.size(); ++k)
      data.values[k] -= in.subtract->weights[k];
  data.hidden.resize(data.values.size());
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j)
      data.hidden[static_cast<std::size_t>(i) * T + j] = map.causal && j > i;
  const std::string what = in.uniform
                               ? "uniform causal baseline over " + std::to_string(T) + " words"
                               : std::to_string(T) + " tokens";
  data.title =
      in.source + " | layer " + std::to_string(in.layer) + ", " + head_name(in.head) + " | " + what;
  if (in.beyondTrainedContext) data.title += " (beyond the trained context)";
  if (difference) data.title += " | difference to the plain run";
  for (int t = 0; t < T; ++t) {
    // Index and display string, so repeated tokens stay distinguishable.
    const std::string label =
        std::to_string(t) + " " + (t < static_cast<int>(tokens.size()) ? tokens[t] : "");
    data.rowLabels.push_back(label);
    data.colLabels.push_back(label);
  }
  data.quantity =
      difference ? "attention " + in.names.after + " - " + in.names.before : "attention weight";
  data.rowTitle = "query";
  data.colTitle = "key";
  // The selected cell (query, key) is framed where the user clicked it; a
  // key the query cannot see (a causal map's future) is no cell to select.
  if (in.query >= 0 && in.key >= 0 && !(map.causal && in.key > in.query))
    data.outlineRow = in.query, data.outlineCol = in.key;
  data.fixedRange = !difference;
  data.diverging = difference;
  data.logScale = !difference && in.logScale;
  // Sinks of the shown head (metrics.md s. 1) have red column labels.
  if (in.analysis && !difference && in.layer < in.analysis->layers)
    data.markedCols = in.analysis->at(in.layer, in.head).sinks.keys();
  data.highlighted = in.highlighted;
  // A highlighted edge {a, b} frames its map cells (a, b) and (b, a).
  for (const auto& [a, b] : in.highlightedEdges)
    data.framedCells.insert(data.framedCells.end(), {{a, b}, {b, a}});
  // The numbers: `sinkscope-cli attention`'s rows for this head (a
  // difference map keeps the drawing's own table of cells).
  if (!difference)
    data.numbers = std::make_shared<const io::CsvTable>(
        attention_table(map.view(), in.layer, in.head, tokens));
  data.rangeMin = 0.0;
  data.rangeMax = 1.0;
  // Long inputs: on a 0..1 scale almost every weight is near 0 and the map is
  // uniformly dark. Clip the linear scale at the 99th percentile of the
  // visible weights (the sink's larger weights share the top colour) and say
  // so. The log scale shows the whole range instead.
  if (!difference && !data.logScale && T > kClippedScaleFrom) {
    std::vector<float> visible;
    for (std::size_t k = 0; k < data.values.size(); ++k)
      if (!data.hidden[k]) visible.push_back(data.values[k]);
    if (!visible.empty()) {
      const auto at = visible.begin() + static_cast<std::ptrdiff_t>(0.99 * (visible.size() - 1));
      std::nth_element(visible.begin(), at, visible.end());
      const double top = std::clamp(static_cast<double>(*at), 1e-4, 1.0);
      if (top < 1.0) {
        data.rangeMax = top;
        data.quantity = "attention weight (clipped at " + short_number(top, 2) + ")";
        data.title += " | linear scale clipped at the 99th percentile, " + short_number(top, 2);
      }
    }
  }
  return data;
}

std::string mark_unaligned_tokens(views::HeatMap& left, views::HeatMap& right,
                                  const std::vector<int>& aToB, const std::vector<int>& bToA) {
  auto mark = [](views::HeatMap& d, const std::vector<int>& aligned) {
    for (std::size_t k = 0; k < aligned.size(); ++k) {
      if (aligned[k] >= 0) continue;
      if (k < d.rowLabels.size()) d.rowLabels[k] += " \u2260";
      if (k < d.colLabels.size()) d.colLabels[k] += " \u2260";
    }
  };
  mark(left, aToB);
  mark(right, bToA);
  const auto aligned = std::count_if(aToB.begin(), aToB.end(), [](int j) { return j >= 0; });
  return std::to_string(aligned) + " of " + std::to_string(aToB.size()) +
         " tokens align by their characters (\u2260: not one to one)";
}

views::HeatMap head_score_map(const TraceAnalysis& a, const HeadScoreMapInputs& in) {
  const HeadGridView view = head_score_view(a, in.score, in.sources);
  views::HeatMap d;
  d.rows = a.layers;
  d.cols = a.heads;
  d.rowTitle = "layer";
  d.colTitle = "head";
  for (double v : view.values) {
    d.values.push_back(static_cast<float>(v));
    d.hidden.push_back(!std::isfinite(v));
  }
  d.numbers = std::make_shared<const io::CsvTable>(view.table);
  std::string name;
  switch (in.score) {
    case HeadScore::SinkBoost:
      name = "sink boost";
      break;
    case HeadScore::Entropy:
      name = "entropy (nats)";
      break;
    case HeadScore::Fiedler:
      name = "Fiedler value, θ " + short_number(in.sources.threshold) +
             (in.allFiedlers ? "" : " (heads visited so far)");
      break;
    // Both need the heads' values; a capture without them leaves the cells
    // blank and says why, never a scale of zeros.
    case HeadScore::FScore:
      name = in.hasValues ? "Fₙ, N = " + std::to_string(a.params.valueSpace.topN)
                          : "Fₙ needs the heads' values (this capture has none)";
      break;
    case HeadScore::Taxonomy:
      name = in.hasValues ? "0 Retriever, 1 Mixer, 2 Reset"
                          : "the taxonomy needs the heads' values (this capture has none)";
      break;
    case HeadScore::MiniatureMaps:  // drawn by miniature_maps; without a run: sink attention
    case HeadScore::SinkAttention:
      name = "sink attention";
      break;
    case HeadScore::Dnll:
      // Not computed: blank cells and words, never a colour scale of zeros.
      name = in.sources.headDnll.empty() ? "dNLL not computed yet (Experiments > Head ablation)"
                                         : "dNLL of ablating the head (nats)";
      break;
  }
  if (in.score == HeadScore::SinkAttention) d.fixedRange = true, d.rangeMin = 0, d.rangeMax = 1;
  // dNLL is signed (an ablation can help): a diverging scale centred at 0.
  if (in.score == HeadScore::Dnll) d.diverging = true;
  if (in.score == HeadScore::Taxonomy) d.fixedRange = true, d.rangeMin = 0, d.rangeMax = 2;
  d.rowLabels = numbered("L", a.layers);
  d.colLabels = numbered("H", a.heads);
  d.quantity = name;
  // In a paper's words: the score; the frame marks the selected head.
  d.title = name + " per head | layer " + std::to_string(in.framedLayer) + ", " +
            head_name(in.framedHead) + " framed";
  d.outlineRow = in.outlineLayer;
  d.outlineCol = in.outlineHead;
  return d;
}

int miniature_side(int tokens) { return std::min(tokens, 24); }

views::HeatMap miniature_maps(int layers, int heads, int T,
                              const std::function<analysis::AttentionMatrix(int, int)>& mapOf,
                              int framedLayer, int framedHead) {
  const int side = miniature_side(T), block = side + 1;
  views::HeatMap d;
  d.rows = layers * block - 1;
  d.cols = heads * block - 1;
  d.values.assign(static_cast<std::size_t>(std::max(d.rows, 0)) * std::max(d.cols, 0), 0.0f);
  d.hidden.assign(d.values.size(), true);
  for (int l = 0; l < layers; ++l)
    for (int h = 0; h < heads; ++h) {
      const analysis::AttentionMatrix m = mapOf(l, h);
      for (int r = 0; r < side; ++r)
        for (int c = 0; c < side; ++c) {
          // The block of original cells this miniature cell stands for.
          const int r0 = r * T / side, r1 = (r + 1) * T / side, c0 = c * T / side,
                    c1 = (c + 1) * T / side;
          double sum = 0;
          int visible = 0;
          for (int i = r0; i < r1; ++i)
            for (int j = c0; j < c1; ++j)
              if (m.view().visible(i, j)) sum += m.view().at(i, j), ++visible;
          const std::size_t k = static_cast<std::size_t>(l * block + r) * d.cols +
                                static_cast<std::size_t>(h * block + c);
          if (visible > 0) {
            d.values[k] = static_cast<float>(sum / visible);
            d.hidden[k] = false;
          }
        }
    }
  d.fixedRange = true;
  d.rangeMin = 0;
  d.rangeMax = 1;
  d.quantity = "attention weight (block mean)";
  d.rowTitle = "layer block";
  d.colTitle = "head block";
  d.title = "Every head's attention map | layer " + std::to_string(framedLayer) + ", " +
            head_name(framedHead) + " framed";
  return d;
}

views::HeatMap taxonomy_grid(const TaxonomyView& view, int outlineLayer, int outlineHead,
                             const std::string& title) {
  views::HeatMap grid;
  grid.title = title;
  grid.rows = view.layers;
  grid.cols = view.heads;
  grid.rowTitle = "layer";
  grid.colTitle = "head";
  grid.quantity = "head class";
  grid.categories = {"Retriever", "Mixer", "Reset"};
  grid.categoryColours = {views::kHeadClassColours[0], views::kHeadClassColours[1],
                          views::kHeadClassColours[2]};
  grid.outlineRow = outlineLayer;
  grid.outlineCol = outlineHead;
  grid.numbers = std::make_shared<const io::CsvTable>(view.heads_table);
  for (int c : view.classes) {
    grid.values.push_back(static_cast<float>(std::max(c, 0)));
    grid.hidden.push_back(c < 0);
  }
  grid.rowLabels = numbered("L", view.layers);
  grid.colLabels = numbered("H", view.heads);
  return grid;
}

}  // namespace sinkscope::document
