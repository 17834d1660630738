#include "analysis/persistence.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <queue>
#include <stdexcept>
#include <unordered_map>

namespace sinkscope::analysis {

std::vector<double> attention_distances(const AttentionView& a, const DistanceParams& params) {
  attention_require_usable(a, "attention_distances");
  const int n = a.size;
  std::vector<double> d(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      const double x = a.at(i, j), y = a.at(j, i);
      d[static_cast<std::size_t>(i) * n + j] =
          1.0 - (params.symmetriseByMax ? std::max(x, y) : 0.5 * (x + y));
    }
  return d;
}

namespace {

// Simplex keys: (diameter, combinatorial index); the filtration order.
struct Key {
  double diameter;
  std::uint64_t index;
  bool operator<(const Key& o) const {
    return diameter < o.diameter || (diameter == o.diameter && index < o.index);
  }
  bool operator==(const Key& o) const { return index == o.index; }
  bool operator>(const Key& o) const { return o < *this; }
};

std::uint64_t choose2(std::uint64_t n) { return n < 2 ? 0 : n * (n - 1) / 2; }
std::uint64_t choose3(std::uint64_t n) { return n < 3 ? 0 : n * (n - 1) * (n - 2) / 6; }

struct Edge {
  int i, j;  // i < j
  Key key;
};

class Rips {
 public:
  // Simplices with a diameter above `limit` are left out (the enclosing radius, below).
  Rips(const std::vector<double>& d, int n, double limit) : d_(d), n_(n), limit_(limit) {}
  double dist(int i, int j) const { return d_[static_cast<std::size_t>(i) * n_ + j]; }

  Key triangleKey(int a, int b, int c) const {
    if (a > b) std::swap(a, b);
    if (b > c) std::swap(b, c);
    if (a > b) std::swap(a, b);
    const double diam = std::max({dist(a, b), dist(a, c), dist(b, c)});
    return {diam, choose3(static_cast<std::uint64_t>(c)) + choose2(static_cast<std::uint64_t>(b)) +
                      static_cast<std::uint64_t>(a)};
  }
  // The smallest triangle (i, j, k) in the filtration order: the pivot of the
  // unreduced coboundary column of edge (i, j). Triangle indices grow with k, and
  // no triangle is shorter than its edge, so the first k whose triangle has the
  // edge's own diameter is the answer (the usual case, found early).
  Key smallestCofacet(const Edge& e) const {
    Key best{std::numeric_limits<double>::infinity(), 0};
    const double* di = &d_[static_cast<std::size_t>(e.i) * n_];
    const double* dj = &d_[static_cast<std::size_t>(e.j) * n_];
    for (int k = 0; k < n_; ++k) {
      if (k == e.i || k == e.j) continue;
      const double diam = std::max({e.key.diameter, di[k], dj[k]});
      if (diam <= limit_ && diam < best.diameter) {
        best = triangleKey(e.i, e.j, k);
        if (diam == e.key.diameter) break;
      }
    }
    return best;
  }
  // Pushes the coboundary of edge (i, j): every triangle (i, j, k).
  template <class Heap>
  void pushCoboundary(const Edge& e, Heap& heap) const {
    const double* di = &d_[static_cast<std::size_t>(e.i) * n_];
    const double* dj = &d_[static_cast<std::size_t>(e.j) * n_];
    for (int k = 0; k < n_; ++k)
      if (k != e.i && k != e.j && std::max(di[k], dj[k]) <= limit_)
        heap.push(triangleKey(e.i, e.j, k));
  }
  std::array<int, 3> triangleVertices(std::uint64_t index) const {
    // Invert the combinatorial number system.
    std::array<int, 3> v{};
    std::uint64_t rest = index;
    int c = 2;
    while (choose3(static_cast<std::uint64_t>(c + 1)) <= rest) ++c;
    rest -= choose3(static_cast<std::uint64_t>(c));
    int b = 1;
    while (choose2(static_cast<std::uint64_t>(b + 1)) <= rest) ++b;
    rest -= choose2(static_cast<std::uint64_t>(b));
    v = {static_cast<int>(rest), b, c};
    return v;
  }

 private:
  const std::vector<double>& d_;
  int n_;
  double limit_;
};

double largest_distance(const std::vector<double>& d, int n) {
  double largest = 0.0;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      largest = std::max(largest, d[static_cast<std::size_t>(i) * n + j]);
  return largest;
}

// Ripser's enclosing radius: min over tokens v of max_j d(v, j). From there
// on the complex contains the cone over v (every edge v-j, and with every
// other edge a-b its triangle v-a-b), so it is contractible: every H1 class
// has died by then and later edges only create classes that die at once.
// Simplices above it are left out of the H1 reduction; on a map with a sink
// (d(0, j) = 1 - A[j][0] / 2) most token pairs lie above it.
double enclosing_radius(const std::vector<double>& d, int n) {
  double radius = std::numeric_limits<double>::infinity();
  for (int v = 0; v < n; ++v) {
    const double* row = &d[static_cast<std::size_t>(v) * n];
    radius = std::min(radius, *std::max_element(row, row + n));
  }
  return radius;
}

int find(std::vector<int>& parent, int x) {
  while (parent[static_cast<std::size_t>(x)] != x) {
    parent[static_cast<std::size_t>(x)] =
        parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
    x = parent[static_cast<std::size_t>(x)];
  }
  return x;
}

using MinHeap = std::priority_queue<Key, std::vector<Key>, std::greater<Key>>;

// The smallest entry that survives Z/2 cancellation; it stays in the heap.
bool pop_pivot(MinHeap& heap, Key& pivot) {
  while (!heap.empty()) {
    const Key top = heap.top();
    heap.pop();
    int count = 1;
    while (!heap.empty() && heap.top() == top) {
      heap.pop();
      ++count;
    }
    if (count % 2 == 1) {
      heap.push(top);
      pivot = top;
      return true;
    }
  }
  return false;
}

// Edges (token pairs) of a cycle through edge (a, b): a shortest path from b
// back to a over edges strictly older than it (position < upto in the sorted
// edge list), closed by the edge itself.
class CycleFinder {
 public:
  CycleFinder(const std::vector<Edge>& edges, int n)
      : adjacency_(static_cast<std::size_t>(n)), previous_(static_cast<std::size_t>(n)) {
    // Edges arrive in filtration order, so each list is sorted by position and
    // a search over the edges older than `upto` stops at the first younger one.
    for (std::size_t e = 0; e < edges.size(); ++e) {
      adjacency_[static_cast<std::size_t>(edges[e].i)].push_back({edges[e].j, e});
      adjacency_[static_cast<std::size_t>(edges[e].j)].push_back({edges[e].i, e});
    }
  }
  std::vector<std::array<int, 2>> through(std::size_t upto, int a, int b) {
    std::fill(previous_.begin(), previous_.end(), -1);
    std::queue<int> frontier;
    frontier.push(b);
    previous_[static_cast<std::size_t>(b)] = b;
    while (!frontier.empty() && previous_[static_cast<std::size_t>(a)] < 0) {
      const int v = frontier.front();
      frontier.pop();
      for (const auto& [w, e] : adjacency_[static_cast<std::size_t>(v)]) {
        if (e >= upto) break;
        if (previous_[static_cast<std::size_t>(w)] < 0) {
          previous_[static_cast<std::size_t>(w)] = v;
          frontier.push(w);
        }
      }
    }
    std::vector<std::array<int, 2>> cycle{{std::min(a, b), std::max(a, b)}};
    if (previous_[static_cast<std::size_t>(a)] < 0) return cycle;
    for (int v = a; v != b; v = previous_[static_cast<std::size_t>(v)]) {
      const int u = previous_[static_cast<std::size_t>(v)];
      cycle.push_back({std::min(u, v), std::max(u, v)});
    }
    return cycle;
  }

 private:
  std::vector<std::vector<std::pair<int, std::size_t>>> adjacency_;
  std::vector<int> previous_;
};

}  // namespace

PersistenceDiagram persistence_rips(const std::vector<double>& distances, int n,
                                    const AnalysisProgress& progress,
                                    const PersistenceBounds& bounds) {
  if (n < 0 || distances.size() != static_cast<std::size_t>(n) * static_cast<std::size_t>(n))
    throw std::invalid_argument("persistence_rips: distances must be n x n");
  for (std::size_t k = 0; k < distances.size(); ++k)
    if (!std::isfinite(distances[k]))
      throw std::invalid_argument("persistence_rips: distance entry " + std::to_string(k) +
                                  " is not finite");
  PersistenceDiagram out;
  if (n == 0) return out;
  // Shorter than this is no bar: two filtration values this close are equal
  // as real numbers, apart only by rounding, and a count must not depend on
  // which way a kernel rounded them.
  const double shortest = kBarTolerance * largest_distance(distances, n);
  const double radius = enclosing_radius(distances, n);
  const Rips rips(distances, n, radius);
  std::vector<Edge> edges;
  edges.reserve(choose2(static_cast<std::uint64_t>(n)));
  for (int j = 1; j < n; ++j)
    for (int i = 0; i < j; ++i)
      edges.push_back({i,
                       j,
                       {rips.dist(i, j),
                        choose2(static_cast<std::uint64_t>(j)) + static_cast<std::uint64_t>(i)}});
  std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) { return x.key < y.key; });

  // H0: union-find; an edge joining two components kills the younger (all are born at 0).
  std::vector<int> parent(static_cast<std::size_t>(n));
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<bool> cleared(edges.size(), false);
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const int ri = find(parent, edges[e].i), rj = find(parent, edges[e].j);
    if (ri == rj) continue;
    parent[static_cast<std::size_t>(std::max(ri, rj))] = std::min(ri, rj);
    cleared[e] = true;  // a death edge in dimension 0: never a cohomology column in dimension 1
    if (edges[e].key.diameter > shortest) {
      PersistenceBar bar;
      bar.dimension = 0;
      bar.birth = 0.0;
      bar.death = edges[e].key.diameter;
      bar.edge = {edges[e].i, edges[e].j};
      out.h0.push_back(bar);
    }
  }
  PersistenceBar infinite;
  infinite.dimension = 0;
  infinite.birth = 0.0;
  infinite.death = 1.0;
  out.h0.push_back(infinite);

  // H1: reduce the coboundary columns of the remaining edges, youngest first.
  std::unordered_map<std::uint64_t, std::size_t>
      pivotOwner;  // triangle index -> column (edge position)
  // Column -> edges added to it (V); empty means the column alone (the shortcut).
  std::vector<std::vector<std::size_t>> reduction(edges.size());
  CycleFinder cycles(edges, n);
  pivotOwner.reserve(edges.size());
  std::uint64_t held = 0, work = 0;  // entries kept in V's columns; coboundary entries pushed
  const auto push = [&](const Edge& edge, MinHeap& heap, std::size_t column) {
    rips.pushCoboundary(edge, heap);
    work += static_cast<std::uint64_t>(n);
    const std::uint64_t now = held + heap.size() + column;
    if (now > bounds.heldEntries || work > bounds.work)
      throw PersistenceTooLarge(
          "persistence of a map of " + std::to_string(n) + " tokens: its reduction would " +
          (now > bounds.heldEntries
               ? "hold more than " + std::to_string(bounds.heldEntries) + " entries at once"
               : "visit more than " + std::to_string(bounds.work) + " coboundary entries") +
          "; its geometry is too tangled for exact persistence at this length (sink maps are "
          "not; a dense random map is)");
  };
  for (std::size_t e = edges.size(); e-- > 0;) {
    if (e % 512 == 0)
      progress_check(progress, 1.0 - static_cast<double>(e) / static_cast<double>(edges.size()));
    if (cleared[e]) continue;
    if (n < 3) continue;  // no triangles, so no column can die (or be born: n = 2 is a tree)
    if (edges[e].key.diameter > radius) continue;  // born after the complex became a cone
    // Shortcut (as Ripser's emergent pairs): when no earlier column owns the
    // column's own smallest cofacet, the column is already reduced; most are.
    const Key own = rips.smallestCofacet(edges[e]);
    if (!std::isfinite(own.diameter)) continue;  // no cofacet below the radius: no death
    if (!pivotOwner.contains(own.index)) {
      pivotOwner[own.index] = e;
      if (own.diameter - edges[e].key.diameter > shortest) {
        PersistenceBar bar;
        bar.dimension = 1;
        bar.birth = edges[e].key.diameter;
        bar.death = own.diameter;
        bar.edge = {edges[e].i, edges[e].j};
        bar.triangle = rips.triangleVertices(own.index);
        bar.cycle = cycles.through(e, edges[e].i, edges[e].j);
        out.h1.push_back(bar);
      }
      continue;
    }
    MinHeap heap;
    std::vector<std::size_t> v{e};
    push(edges[e], heap, v.size());
    Key pivot{};
    bool has = pop_pivot(heap, pivot);
    while (has) {
      auto owner = pivotOwner.find(pivot.index);
      if (owner == pivotOwner.end()) break;
      const auto& added = reduction[owner->second];
      if (added.empty()) {
        v.push_back(owner->second);
        push(edges[owner->second], heap, v.size());
      }
      for (std::size_t a : added) {
        v.push_back(a);
        push(edges[a], heap, v.size());
      }
      has = pop_pivot(heap, pivot);
    }
    if (!has) continue;  // no death: cannot happen in a full complex over [0, 1], a cone
    pivotOwner[pivot.index] = e;
    // Keep V's column with Z/2 cancellation (pairs of the same edge vanish).
    std::sort(v.begin(), v.end());
    std::vector<std::size_t> reduced;
    for (std::size_t k = 0; k < v.size();) {
      std::size_t m = k;
      while (m < v.size() && v[m] == v[k]) ++m;
      if ((m - k) % 2 == 1) reduced.push_back(v[k]);
      k = m;
    }
    held += reduced.size();
    reduction[e] = std::move(reduced);
    const double birth = edges[e].key.diameter, death = pivot.diameter;
    if (death - birth > shortest) {
      PersistenceBar bar;
      bar.dimension = 1;
      bar.birth = birth;
      bar.death = death;
      bar.edge = {edges[e].i, edges[e].j};
      bar.triangle = rips.triangleVertices(pivot.index);
      bar.cycle = cycles.through(e, edges[e].i, edges[e].j);
      out.h1.push_back(bar);
    }
  }
  std::sort(out.h0.begin(), out.h0.end(), [](const auto& x, const auto& y) {
    return x.death < y.death || (x.death == y.death && x.birth < y.birth);
  });
  std::sort(out.h1.begin(), out.h1.end(), [](const auto& x, const auto& y) {
    return x.birth < y.birth || (x.birth == y.birth && x.death < y.death);
  });
  return out;
}

BettiCurves betti_curves(const PersistenceDiagram& diagram, int points) {
  BettiCurves c;
  points = std::max(points, 2);
  for (int k = 0; k < points; ++k) {
    const double e = static_cast<double>(k) / (points - 1);
    c.grid.push_back(e);
    int b0 = 0, b1 = 0;
    // A bar alive at e: birth <= e < death, read at e + the tolerance, so
    // that an end equal to e as a real number counts the same whichever way
    // it was rounded. The infinite H0 class lives up to and including 1.
    const double at = e + kBarTolerance;
    for (const auto& bar : diagram.h0)
      if (bar.edge[0] < 0 ? bar.birth <= e : bar.birth <= at && at < bar.death) ++b0;
    for (const auto& bar : diagram.h1)
      if (bar.birth <= at && at < bar.death) ++b1;
    c.beta0.push_back(b0);
    c.beta1.push_back(b1);
  }
  return c;
}

int bars_above(const std::vector<PersistenceBar>& bars, double minPersistence) {
  return static_cast<int>(std::count_if(bars.begin(), bars.end(), [&](const PersistenceBar& b) {
    return b.persistence() > minPersistence + kBarTolerance;
  }));
}

}  // namespace sinkscope::analysis
