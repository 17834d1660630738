#pragma once
// The heat maps of the panels, built once from a run's maps and analysis:
// cells, labels, marks, colour scale and the table of the numbers drawn
// (analyze's or `sinkscope-cli attention`'s rows). The window's panels hand
// them to the screen; figures, CSVs and Python read the same description.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/attention_matrix.h"
#include "models/document/panel_views.h"
#include "models/document/plot_views.h"
#include "models/views/heat_map.h"

namespace sinkscope::document {

struct TraceAnalysis;

// A map with nothing drawn but its title, which says why.
views::HeatMap note_map(const std::string& title);

// Two maps side by side (views::heat_map_side_by_side) under one title, both
// runs' tables in one with a "run" column (none when either has none).
views::HeatMap maps_side_by_side(const views::HeatMap& left, const views::HeatMap& right,
                                 const RunNames& names, const std::string& title);

// Maps longer than this draw their linear scale clipped at the 99th
// percentile of the visible weights (a long input's weights are mostly near 0).
inline constexpr int kClippedScaleFrom = 128;

// One head's attention map: query rows, key columns, the future masked; the
// sinks' columns marked, highlighted tokens and edges, the selected cell
// framed. With `subtract` the difference to that map on a diverging scale.
struct AttentionMapInputs {
  std::string source;  // the model's name
  const std::vector<std::string>* tokens = nullptr;
  const analysis::AttentionMatrix* map = nullptr;
  int layer = 0, head = 0;  // head -1: the layer's average
  bool uniform = false;     // no trace: the uniform causal baseline
  bool beyondTrainedContext = false;
  const TraceAnalysis* analysis = nullptr;  // its sinks mark their columns; null: none
  // The difference map: this map subtracted, with the runs' names.
  const analysis::AttentionMatrix* subtract = nullptr;
  RunNames names;
  int query = -1, key = -1;  // the selected cell; -1: none
  bool logScale = false;
  std::vector<int> highlighted;                       // tokens whose labels light up
  std::vector<std::pair<int, int>> highlightedEdges;  // each frames its two cells
};
views::HeatMap attention_map(const AttentionMapInputs& in);
// Two tokenizers side by side: marks each token without a one-to-one
// counterpart with " ≠" and says how many align (a line for the title).
std::string mark_unaligned_tokens(views::HeatMap& left, views::HeatMap& right,
                                  const std::vector<int>& aToB, const std::vector<int>& bToA);

// A score per head as a layers x heads grid (the overview), its table
// head_score_view's; `outline` frames a head (-1: none).
struct HeadScoreMapInputs {
  HeadScore score = HeadScore::SinkAttention;
  HeadScoreSources sources;
  bool hasValues = true;                  // a capture without values leaves F_N and classes blank
  bool allFiedlers = true;                // false: long inputs, only the heads visited so far
  int framedLayer = -1, framedHead = -1;  // what the title names as framed
  int outlineLayer = -1, outlineHead = -1;
};
views::HeatMap head_score_map(const TraceAnalysis& a, const HeadScoreMapInputs& in);

// Every head's map shrunk to at most 24 x 24 block means, one hidden cell
// between maps; `mapOf(layer, head)` gives each head's map.
views::HeatMap miniature_maps(int layers, int heads, int tokens,
                              const std::function<analysis::AttentionMatrix(int, int)>& mapOf,
                              int framedLayer, int framedHead);
// The side of each miniature map for `tokens` tokens.
int miniature_side(int tokens);

// The head classes as a categorical layers x heads grid (taxonomy.csv's rows).
views::HeatMap taxonomy_grid(const TaxonomyView& view, int outlineLayer, int outlineHead,
                             const std::string& title);

}  // namespace sinkscope::document
