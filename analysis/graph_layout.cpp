#include "analysis/graph_layout.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/fruchterman_reingold.hpp>
#include <boost/graph/random_layout.hpp>
#include <boost/graph/topology.hpp>
#include <boost/random/mersenne_twister.hpp>
#include <cmath>

#include "analysis/ties.h"

namespace sinkscope::analysis {

std::vector<std::array<double, 3>> graph_layout_force(const AttentionView& a,
                                                      const ForceLayoutParams& p) {
  attention_require_usable(a, "graph_layout_force");
  const int n = a.size;
  std::vector<std::array<double, 3>> out(static_cast<std::size_t>(n), {0.0, 0.0, 0.0});
  if (n < 2) return out;
  using Topology = boost::square_topology<boost::mt19937>;
  using Point = Topology::point_type;
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS,
                                      boost::property<boost::vertex_index_t, int>>;
  Graph g(static_cast<std::size_t>(n));
  std::vector<bool> linked(static_cast<std::size_t>(n) * n, false);  // (min, max) pairs added
  auto link = [&](int i, int j) {
    const auto key = static_cast<std::size_t>(std::min(i, j)) * n + std::max(i, j);
    if (i == j || linked[key]) return;
    linked[key] = true;
    boost::add_edge(static_cast<std::size_t>(i), static_cast<std::size_t>(j), g);
  };
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (reaches_threshold(a.at(i, j), p.threshold) || reaches_threshold(a.at(j, i), p.threshold))
        link(i, j);
  // Each token is also pulled to the key it attends to most (itself aside):
  // in a diffuse head of a long input most weights miss the threshold, and
  // free tokens, pushed apart with nothing holding them, would end on the
  // square's border. In a causal map these links join every token to the first.
  for (int i = 0; i < n; ++i) {
    int best = -1;
    for (int j = 0; j < n; ++j)
      if (j != i && a.visible(i, j) && (best < 0 || a.at(i, j) > a.at(i, best))) best = j;
    if (best >= 0 && a.at(i, best) > 0) link(i, best);
  }
  boost::mt19937 rng(static_cast<boost::mt19937::result_type>(p.seed));
  const double side = 100.0;
  Topology topology(rng, side);
  std::vector<Point> positions(static_cast<std::size_t>(n));
  auto position =
      boost::make_iterator_property_map(positions.begin(), boost::get(boost::vertex_index, g));
  boost::random_graph_layout(g, position, topology);
  boost::fruchterman_reingold_force_directed_layout(
      g, position, topology,
      boost::cooling(boost::linear_cooling<double>(std::max(1, p.iterations))));
  // Scale into [-1, 1]^2 around the centre.
  double extent = 1e-12;
  std::array<double, 2> centre{0, 0};
  for (const Point& q : positions) centre[0] += q[0] / n, centre[1] += q[1] / n;
  for (const Point& q : positions)
    extent = std::max({extent, std::abs(q[0] - centre[0]), std::abs(q[1] - centre[1])});
  for (int k = 0; k < n; ++k)
    out[static_cast<std::size_t>(k)] = {
        (positions[static_cast<std::size_t>(k)][0] - centre[0]) / extent,
        (positions[static_cast<std::size_t>(k)][1] - centre[1]) / extent, 0.0};
  return out;
}

}  // namespace sinkscope::analysis
