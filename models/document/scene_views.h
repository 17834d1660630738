#pragma once
// The 3-D views of the panels, built once from analysis results: the
// attention graph, the spectral embedding and the value space, as points,
// edges and balls with their labels and colours. The screen (VTK) and the
// figure writer draw the same scene.
#include <array>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/attention_matrix.h"
#include "analysis/graph_spectrum.h"
#include "analysis/head_analysis.h"
#include "analysis/value_space.h"
#include "models/views/head_view.h"
#include "models/views/scene.h"

namespace sinkscope::document {

// A scene with nothing drawn but its title, which says why.
views::Scene note_scene(const std::string& title);

// From this many tokens the graph keeps each token's kEdgesPerToken
// strongest edges above theta (every edge would be a hairball).
inline constexpr int kThinGraphFrom = 64;
inline constexpr std::size_t kEdgesPerToken = 3;

// The attention graph at theta: a point per token at `positions`, sized by
// the attention it receives, sinks red, lit tokens orange; an edge where a
// query gives a key at least theta; `highlightedEdges` drawn lit.
struct GraphSceneInputs {
  const analysis::AttentionMatrix* map = nullptr;
  const analysis::HeadAnalysis* analysis = nullptr;  // sinks and alpha_k
  const std::vector<std::array<double, 3>>* positions = nullptr;
  const std::vector<std::string>* tokens = nullptr;
  int layer = 0, head = 0;
  std::string note;  // added to the title (where the selection lands in this run)
  double theta = 0.05;
  bool force = false;  // force-directed layout, else spectral
  std::function<bool(int token)> lit = [](int) { return false; };
  std::vector<std::pair<int, int>> highlightedEdges;
};
views::Scene graph_scene(const GraphSceneInputs& in);

// The tokens placed by Laplacian eigenvectors 2-4, coloured by the Fiedler
// vector on the diverging map (lit tokens orange), the head's sink keys
// ringed in the sink colour.
views::Scene spectral_embedding_scene(const analysis::GraphSpectrum& spectrum,
                                      const std::vector<std::string>& tokens,
                                      const std::function<bool(int token)>& lit,
                                      const std::vector<int>& sinkKeys = {});

// One query's weighted values y_j = A[i][j] v_j on their first three
// principal axes: the top-N keys orange, the first token red, s_N black with
// its r_max and r_min balls.
views::Scene value_space_scene(const analysis::ValueSpace& vs,
                               const std::vector<std::string>& tokens, int layer, int head,
                               int query, const std::string& note);

// Inputs longer than this show their first kHeadViewMaxTokens tokens (the view says so).
inline constexpr int kHeadViewMaxTokens = 96;
// The colour of head `head` of `heads` in the head view: Okabe and Ito's
// palette up to 8 heads, viridis beyond.
views::Rgb head_colour(int head, int heads);

// The head view of one head of a layer (or every head, `head` -1 or
// `allHeads`), BertViz-style: queries left, keys right, a line per weight;
// the numbers are `sinkscope-cli attention`'s rows of the drawn tokens.
struct HeadViewInputs {
  std::string source;
  const std::vector<std::string>* tokens = nullptr;
  int layer = 0, head = 0, heads = 1;
  bool allHeads = false;
  std::function<analysis::AttentionMatrix(int head)> mapOf;
  std::string note;          // added to the title (where the selection lands in this run)
  int query = -1, key = -1;  // the selection, drawn in its colour
};
views::HeadViewData head_view(const HeadViewInputs& in);

}  // namespace sinkscope::document
