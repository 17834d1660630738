#include "analysis/persistence.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>
#include <utility>

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

std::uint64_t choose2(std::uint64_t n) { return n < 2 ? 0 : n * (n - 1) / 2; }
std::uint64_t choose3(std::uint64_t n) { return n < 3 ? 0 : n * (n - 1) * (n - 2) / 6; }

int bits_for(std::uint64_t count) {  // bits that hold every value below `count`
  int bits = 0;
  while (bits < 64 && (std::uint64_t{1} << bits) < count) ++bits;
  return bits;
}

// Simplex keys in the filtration order as one integer: the rank of the
// simplex's diameter among the distinct distances (equal distances share a
// rank, and a triangle's diameter is its longest edge's, so its rank is the
// largest of its edges' ranks) above its combinatorial index. One compare
// orders two simplices exactly as (diameter, index) would, and the heap of the
// reduction holds 8 bytes per entry.
using Key = std::uint64_t;

// A token pair, i < j; its combinatorial index is choose2(j) + i. Its
// diameter is read through its rank (Rips::diameter): one copy of n^2 / 2
// doubles fewer per analysis thread at long inputs.
struct Edge {
  int i, j;
};

// The first k (ascending, so ascending triangle index) whose triangle with an
// edge of rank `own` has the smallest rank max(own, ri[k], rj[k]); that rank in
// `rank`. -1 when no k gives a triangle (ri or rj is kNoRank for every k).
// Most edges have a triangle of their own rank among the first few k, so the
// scan goes by blocks and stops at the first block that has one; an edge
// without one reads every k, as a vectorised min (AVX2 where the CPU has it;
// integers, so the same answer on every CPU).
__attribute__((target_clones("avx2", "default"))) int first_smallest_cofacet(
    const std::uint32_t* ri, const std::uint32_t* rj, int n, std::uint32_t own,
    std::uint32_t& rank) {
  constexpr int kBlock = 64;
  constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  std::uint32_t least = kNone;
  for (int start = 0; start < n; start += kBlock) {
    const int end = std::min(n, start + kBlock);
    std::uint32_t blockLeast = kNone;
#pragma omp simd reduction(min : blockLeast)
    for (int k = start; k < end; ++k) {
      const std::uint32_t m = ri[k] > rj[k] ? ri[k] : rj[k];
      blockLeast = blockLeast < m ? blockLeast : m;
    }
    if (blockLeast <= own) {
      for (int k = start; k < end; ++k)
        if (std::max(ri[k], rj[k]) <= own) {
          rank = own;
          return k;
        }
    }
    least = std::min(least, blockLeast);
  }
  if (least == kNone) return -1;
  for (int k = 0; k < n; ++k)
    if (std::max(ri[k], rj[k]) == least) {
      rank = least;
      return k;
    }
  return -1;
}

class Rips {
 public:
  // `edges` sorted by (diameter, index), their diameters in `d` (n x n).
  // Simplices with a diameter above `limit` are left out (the enclosing
  // radius, below).
  Rips(const std::vector<Edge>& edges, const std::vector<double>& d, int n, double limit)
      : n_(n),
        rank_(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), kNoRank),
        choose2_(static_cast<std::size_t>(n) + 1),
        choose3_(static_cast<std::size_t>(n) + 1) {
    for (int k = 0; k <= n; ++k) {
      choose2_[static_cast<std::size_t>(k)] = choose2(static_cast<std::uint64_t>(k));
      choose3_[static_cast<std::size_t>(k)] = choose3(static_cast<std::uint64_t>(k));
    }
    std::uint32_t rank = 0;
    const auto at = [&](const Edge& e) { return d[static_cast<std::size_t>(e.i) * n + e.j]; };
    for (std::size_t e = 0; e < edges.size(); ++e) {
      const double diameter = at(edges[e]);
      if (e == 0 || diameter != diameters_.back()) {
        if (e > 0) ++rank;
        diameters_.push_back(diameter);
      }
      if (diameter <= limit) limitRank_ = rank;
      rank_[static_cast<std::size_t>(edges[e].i) * n + edges[e].j] = rank;
      rank_[static_cast<std::size_t>(edges[e].j) * n + edges[e].i] = rank;
    }
    if (edges.empty() || at(edges.front()) > limit) limitRank_ = -1;
    indexBits_ = bits_for(choose3(static_cast<std::uint64_t>(n)));
    if (indexBits_ + bits_for(diameters_.size()) > 64)
      throw PersistenceTooLarge("persistence of a map of " + std::to_string(n) +
                                " tokens: more simplices than its keys can number");
    indexMask_ = indexBits_ == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << indexBits_) - 1;
  }

  std::uint32_t rank(int i, int j) const { return rank_[static_cast<std::size_t>(i) * n_ + j]; }
  double diameter(const Edge& e) const { return diameters_[rank(e.i, e.j)]; }
  double diameter(Key k) const { return diameters_[static_cast<std::size_t>(k >> indexBits_)]; }
  std::uint64_t index(Key k) const { return k & indexMask_; }

  // Appends the keys of edge e's triangles (i, j, k) from `from` up to the
  // limit to `pool`, k ascending, which is ascending index. Written without a
  // branch per triangle (a kept key advances the end; the filtration decides
  // which, so a branch would be mispredicted half the time).
  void appendCofacets(const Edge& e, Key from, std::vector<Key>& pool) const {
    const Key last = (static_cast<Key>(limitRank_ < 0 ? 0 : limitRank_) << indexBits_) | indexMask_;
    if (limitRank_ < 0 || from > last) return;
    const Key span = last - from;
    const std::size_t begin = pool.size();
    pool.resize(begin + static_cast<std::size_t>(n_));
    Key* out = pool.data() + begin;
    std::size_t kept = 0;
    const std::uint32_t own = rank(e.i, e.j);
    const std::uint32_t* ri = &rank_[static_cast<std::size_t>(e.i) * n_];
    const std::uint32_t* rj = &rank_[static_cast<std::size_t>(e.j) * n_];
    const int bits = indexBits_;
    const auto keep = [&](int k, std::uint64_t index) {
      const Key key = (static_cast<Key>(std::max({own, ri[k], rj[k]})) << bits) | index;
      out[kept] = key;
      kept += key - from <= span ? 1 : 0;
    };
    const auto i = static_cast<std::size_t>(e.i), j = static_cast<std::size_t>(e.j);
    const std::uint64_t below = choose3_[j] + choose2_[i];
    for (int k = 0; k < e.i; ++k) keep(k, below + static_cast<std::uint64_t>(k));
    const std::uint64_t between = choose3_[j] + i;
    for (int k = e.i + 1; k < e.j; ++k) keep(k, between + choose2_[static_cast<std::size_t>(k)]);
    const std::uint64_t above = choose2_[j] + i;
    for (int k = e.j + 1; k < n_; ++k) keep(k, above + choose3_[static_cast<std::size_t>(k)]);
    pool.resize(begin + kept);
  }

  // The smallest triangle of edge e in the filtration order: the pivot of its
  // unreduced coboundary column. Triangle indices grow with k, and no triangle
  // is shorter than its edge, so the first triangle of the edge's own diameter
  // is the answer (the usual case, found early). `found` is false when every
  // triangle lies above the limit.
  Key smallestCofacet(const Edge& e, bool& found) const {
    std::uint32_t r = 0;
    const int k =
        first_smallest_cofacet(&rank_[static_cast<std::size_t>(e.i) * n_],
                               &rank_[static_cast<std::size_t>(e.j) * n_], n_, rank(e.i, e.j), r);
    found = k >= 0 && static_cast<std::int64_t>(r) <= limitRank_;
    return found ? (static_cast<Key>(r) << indexBits_) | triangleIndex(e, k) : 0;
  }

  std::uint64_t triangleIndex(const Edge& e, int k) const {
    const auto i = static_cast<std::size_t>(e.i), j = static_cast<std::size_t>(e.j),
               c = static_cast<std::size_t>(k);
    if (k < e.i) return choose3_[j] + choose2_[i] + c;
    if (k < e.j) return choose3_[j] + choose2_[c] + i;
    return choose3_[c] + choose2_[j] + i;
  }

  std::array<int, 3> triangleVertices(std::uint64_t index) const {
    // Invert the combinatorial number system.
    std::uint64_t rest = index;
    int c = 2;
    while (choose3(static_cast<std::uint64_t>(c + 1)) <= rest) ++c;
    rest -= choose3(static_cast<std::uint64_t>(c));
    int b = 1;
    while (choose2(static_cast<std::uint64_t>(b + 1)) <= rest) ++b;
    rest -= choose2(static_cast<std::uint64_t>(b));
    return {static_cast<int>(rest), b, c};
  }

 private:
  int n_;
  static constexpr std::uint32_t kNoRank = std::numeric_limits<std::uint32_t>::max();
  // n x n: the rank of d_ij among the distinct distances; kNoRank on the
  // diagonal, so that a scan over every k never takes k = i or j as a triangle.
  std::vector<std::uint32_t> rank_;
  std::vector<double> diameters_;  // rank -> distance
  std::vector<std::uint64_t> choose2_, choose3_;
  std::int64_t limitRank_ = -1;
  int indexBits_ = 0;
  std::uint64_t indexMask_ = 0;
};

// A double's bits as an unsigned integer of the same order (negative values
// inverted, positive ones with the sign bit set); -0 counts as +0.
std::uint64_t ordered_bits(double x) {
  const auto bits = std::bit_cast<std::uint64_t>(x + 0.0);
  return bits >> 63 ? ~bits : bits | (std::uint64_t{1} << 63);
}

// The token pair of combinatorial index `index` = choose2(j) + i, i < j.
Edge edge_of(std::uint64_t index) {
  auto j =
      static_cast<std::uint64_t>((1.0 + std::sqrt(1.0 + 8.0 * static_cast<double>(index))) / 2.0);
  while (choose2(j) > index) --j;
  while (choose2(j + 1) <= index) ++j;
  return {static_cast<int>(index - choose2(j)), static_cast<int>(j)};
}

// Every token pair in the filtration order (diameter, then index). In index
// order a stable sort by diameter gives it: a least-significant-digit radix
// sort of the diameters' bits, 11 bits a pass, skipping the passes where
// every edge has the same digit (most of a [0, 1] distance's exponent). A
// comparison sort of the n^2/2 edges was a twentieth of a map's analysis.
// The caller has checked that every index fits 32 bits.
std::vector<Edge> edges_by_diameter(const std::vector<double>& d, int n) {
  constexpr int kDigitBits = 11;
  constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;
  const auto count = static_cast<std::size_t>(choose2(static_cast<std::uint64_t>(n)));
  std::vector<std::uint64_t> keys(count), keysOut(count);
  std::vector<std::uint32_t> order(count), orderOut(count);
  std::size_t e = 0;
  for (int j = 1; j < n; ++j)
    for (int i = 0; i < j; ++i, ++e) {
      keys[e] = ordered_bits(d[static_cast<std::size_t>(i) * n + j]);
      order[e] = static_cast<std::uint32_t>(e);
    }
  std::vector<std::size_t> start(kBuckets);
  for (int shift = 0; shift < 64; shift += kDigitBits) {
    std::fill(start.begin(), start.end(), 0);
    for (std::uint64_t k : keys) ++start[(k >> shift) & (kBuckets - 1)];
    if (std::any_of(start.begin(), start.end(), [&](std::size_t c) { return c == count; }))
      continue;  // one digit for every edge: this pass changes nothing
    std::size_t at = 0;
    for (std::size_t& c : start) at += std::exchange(c, at);
    for (std::size_t k = 0; k < count; ++k) {
      const std::size_t to = start[(keys[k] >> shift) & (kBuckets - 1)]++;
      keysOut[to] = keys[k];
      orderOut[to] = order[k];
    }
    keys.swap(keysOut);
    order.swap(orderOut);
  }
  // Released before the edges are made: at 4096 tokens 67 MB each key array, 34 MB the order.
  std::vector<std::uint64_t>().swap(keys);
  std::vector<std::uint64_t>().swap(keysOut);
  std::vector<std::uint32_t>().swap(orderOut);
  std::vector<Edge> edges(count);
  for (std::size_t k = 0; k < count; ++k) edges[k] = edge_of(order[k]);
  return edges;
}

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

// The column under reduction: the sum over Z/2 of the coboundaries of the
// edges added to it. Each edge's coboundary is one run of keys, sorted lazily
// a batch at a time (the pivot search reads only a run's smallest keys, so
// most of a run is never sorted), and the runs are merged through a small heap
// of their heads. Pushing every key into one heap instead cost a heap
// operation per triangle of every added edge: most of the reduction's time.
class WorkingColumn {
 public:
  void clear() {
    pool_.clear();
    runs_.clear();
    heads_.clear();
  }

  // Adds edge e's coboundary without its keys below `from`: when a reduced
  // column with pivot p is added, its edges' keys below p cancel among
  // themselves (p is the smallest key of their sum), so they need no visit.
  void add(const Rips& rips, const Edge& e, Key from) {
    const std::size_t begin = pool_.size();
    rips.appendCofacets(e, from, pool_);
    if (pool_.size() == begin) return;
    // Most runs are read no further than their smallest key: found by one
    // scan, the rest sorted only if the pivot search gets there.
    const auto first = pool_.begin() + static_cast<std::ptrdiff_t>(begin);
    std::iter_swap(first, std::min_element(first, pool_.end()));
    runs_.push_back({begin, begin + 1, pool_.size(), kFirstBatch});
    pushHead(static_cast<std::uint32_t>(runs_.size() - 1));
  }

  std::size_t entries() const { return pool_.size(); }

  // The smallest key that survives Z/2 cancellation; it stays in the column.
  bool pivot(Key& out) {
    while (!heads_.empty()) {
      const Key key = heads_.front().key;
      same_.clear();
      while (!heads_.empty() && heads_.front().key == key) {
        std::pop_heap(heads_.begin(), heads_.end(), later);
        same_.push_back(heads_.back().run);
        heads_.pop_back();
      }
      const bool survives = same_.size() % 2 == 1;
      for (std::uint32_t run : same_)
        if (survives || advance(runs_[run])) pushHead(run);
      if (survives) {
        out = key;
        return true;
      }
    }
    return false;
  }

 private:
  static constexpr std::size_t kFirstBatch = 8;
  struct Run {
    std::size_t next, sortedEnd, end;  // positions in pool_
    std::size_t batch;                 // keys sorted by the next sortMore
  };
  struct Head {
    Key key;
    std::uint32_t run;
  };
  static bool later(const Head& x, const Head& y) { return x.key > y.key; }

  void sortMore(Run& r) {
    const auto first = pool_.begin() + static_cast<std::ptrdiff_t>(r.sortedEnd);
    const auto last = pool_.begin() + static_cast<std::ptrdiff_t>(r.end);
    const auto count = static_cast<std::ptrdiff_t>(std::min(r.batch, r.end - r.sortedEnd));
    if (first + count < last) std::nth_element(first, first + count, last);
    std::sort(first, first + count);
    r.sortedEnd += static_cast<std::size_t>(count);
    r.batch *= 2;  // a run read far is sorted in O(n log n) in all
  }
  bool advance(Run& r) {
    if (++r.next == r.end) return false;
    if (r.next == r.sortedEnd) sortMore(r);
    return true;
  }
  void pushHead(std::uint32_t run) {
    heads_.push_back({pool_[runs_[run].next], run});
    std::push_heap(heads_.begin(), heads_.end(), later);
  }

  std::vector<Key> pool_;
  std::vector<Run> runs_;
  std::vector<Head> heads_;
  std::vector<std::uint32_t> same_;
};

// A map from integers to positions (which column owns each pivot; where a
// reduced column's edges are kept): open addressing in one array, since a
// node-based map spent most of the reduction's allocations on its nodes.
class IndexMap {
 public:
  static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::size_t find(std::uint64_t key) const {
    if (slots_.empty()) return kNone;
    for (std::size_t s = slot(key);; s = (s + 1) & mask_) {
      if (slots_[s].key == key) return slots_[s].value;
      if (slots_[s].key == kEmpty) return kNone;
    }
  }
  void insert(std::uint64_t key, std::size_t value) {  // `key` not yet in the map
    if (2 * (count_ + 1) > slots_.size()) grow();
    std::size_t s = slot(key);
    while (slots_[s].key != kEmpty) s = (s + 1) & mask_;
    slots_[s] = {key, value};
    ++count_;
  }

 private:
  static constexpr std::uint64_t kEmpty = std::numeric_limits<std::uint64_t>::max();
  struct Slot {
    std::uint64_t key = kEmpty;
    std::size_t value = 0;
  };
  std::size_t slot(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_) & mask_;
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    const std::size_t size = old.empty() ? 1024 : 2 * old.size();
    slots_.assign(size, Slot{});
    mask_ = size - 1;
    shift_ = 64 - std::countr_zero(size);
    count_ = 0;
    for (const Slot& s : old)
      if (s.key != kEmpty) insert(s.key, s.value);
  }
  std::vector<Slot> slots_;
  std::size_t mask_ = 0, count_ = 0;
  int shift_ = 64;
};

// V's columns (column -> the edges summed into it), kept for the columns the
// reduction worked on only: the others are the column alone, and most
// columns are never reduced (an empty vector per edge was 24 bytes of each
// of n^2 / 2 edges). Its edges are what the bound on held entries counts.
class ReducedColumns {
 public:
  void keep(std::size_t column, const std::vector<std::size_t>& added) {
    where_.insert(column, entries_.size());
    entries_.push_back(added.size());
    entries_.insert(entries_.end(), added.begin(), added.end());
  }
  // Empty when the column was never reduced.
  std::span<const std::size_t> of(std::size_t column) const {
    const std::size_t at = where_.find(column);
    if (at == IndexMap::kNone) return {};
    return {entries_.data() + at + 1, entries_[at]};
  }

 private:
  IndexMap where_;
  std::vector<std::size_t> entries_;  // per kept column: its count, then its edges
};

// Edges (token pairs) of a cycle through edge (a, b): a shortest path from b
// back to a over edges strictly older than it (position < upto in the sorted
// edge list), closed by the edge itself.
class CycleFinder {
 public:
  // Every pair of tokens is an edge, so each token has n - 1 neighbours: one
  // flat array, token v's from v (n - 1).
  // Positions fit 32 bits (persistence_rips checks): 8 bytes a neighbour.
  CycleFinder(const std::vector<Edge>& edges, int n)
      : degree_(static_cast<std::size_t>(std::max(n - 1, 0))),
        adjacency_(static_cast<std::size_t>(n) * degree_),
        previous_(static_cast<std::size_t>(n)) {
    // Edges arrive in filtration order, so each list is sorted by position and
    // a search over the edges older than `upto` stops at the first younger one.
    std::vector<std::size_t> filled(static_cast<std::size_t>(n), 0);
    const auto add = [&](int from, int to, std::size_t e) {
      const auto v = static_cast<std::size_t>(from);
      adjacency_[v * degree_ + filled[v]++] = {to, static_cast<std::uint32_t>(e)};
    };
    for (std::size_t e = 0; e < edges.size(); ++e) {
      add(edges[e].i, edges[e].j, e);
      add(edges[e].j, edges[e].i, e);
    }
  }
  std::vector<std::array<int, 2>> through(std::size_t upto, int a, int b) {
    std::fill(previous_.begin(), previous_.end(), -1);
    frontier_.clear();  // a queue: read from `head`, kept between calls
    frontier_.push_back(b);
    previous_[static_cast<std::size_t>(b)] = b;
    for (std::size_t head = 0;
         head < frontier_.size() && previous_[static_cast<std::size_t>(a)] < 0;) {
      const int v = frontier_[head++];
      const auto* first = &adjacency_[static_cast<std::size_t>(v) * degree_];
      for (const auto& [w, e] : std::span(first, degree_)) {
        if (static_cast<std::size_t>(e) >= upto) break;
        if (previous_[static_cast<std::size_t>(w)] < 0) {
          previous_[static_cast<std::size_t>(w)] = v;
          frontier_.push_back(w);
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
  std::size_t degree_;
  std::vector<std::pair<int, std::uint32_t>> adjacency_;
  std::vector<int> previous_;
  std::vector<int> frontier_;
};

}  // namespace

PersistenceDiagram persistence_rips(std::vector<double> distances, int n,
                                    const AnalysisProgress& progress,
                                    const PersistenceBounds& bounds) {
  if (n < 0 || distances.size() != static_cast<std::size_t>(n) * static_cast<std::size_t>(n))
    throw std::invalid_argument("persistence_rips: distances must be n x n");
  if (choose2(static_cast<std::uint64_t>(n)) > std::numeric_limits<std::uint32_t>::max())
    throw PersistenceTooLarge("persistence of a map of " + std::to_string(n) +
                              " tokens: more token pairs than its edges can number");
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
  const std::vector<Edge> edges = edges_by_diameter(distances, n);
  const Rips rips(edges, distances, n, radius);
  // From here the ranks stand for the distances (n^2 doubles: 134 MB a thread at 4096 tokens).
  std::vector<double>().swap(distances);

  // H0: union-find; an edge joining two components kills the younger (all are born at 0).
  std::vector<int> parent(static_cast<std::size_t>(n));
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<bool> cleared(edges.size(), false);
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const int ri = find(parent, edges[e].i), rj = find(parent, edges[e].j);
    if (ri == rj) continue;
    parent[static_cast<std::size_t>(std::max(ri, rj))] = std::min(ri, rj);
    cleared[e] = true;  // a death edge in dimension 0: never a cohomology column in dimension 1
    if (rips.diameter(edges[e]) > shortest) {
      PersistenceBar bar;
      bar.dimension = 0;
      bar.birth = 0.0;
      bar.death = rips.diameter(edges[e]);
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
  IndexMap pivotOwner;  // triangle index -> the column whose pivot it is
  ReducedColumns reduction;
  // Made when the first loop needs its cycle: n^2 neighbours, and a sink map may have no loop.
  std::optional<CycleFinder> cycles;
  const auto cycleThrough = [&](std::size_t e) {
    if (!cycles) cycles.emplace(edges, n);
    return cycles->through(e, edges[e].i, edges[e].j);
  };
  std::uint64_t held = 0, work = 0;  // entries kept in V's columns; coboundary entries pushed
  WorkingColumn working;
  const auto push = [&](const Edge& edge, Key from, std::size_t column) {
    working.add(rips, edge, from);
    work += static_cast<std::uint64_t>(n);
    const std::uint64_t now = held + working.entries() + column;
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
    const double birth = rips.diameter(edges[e]);
    if (birth > radius) continue;  // born after the complex became a cone
    // Shortcut (as Ripser's emergent pairs): when no earlier column owns the
    // column's own smallest cofacet, the column is already reduced; most are.
    bool found = false;
    const Key own = rips.smallestCofacet(edges[e], found);
    if (!found) continue;  // no cofacet below the radius: no death
    if (pivotOwner.find(rips.index(own)) == IndexMap::kNone) {
      pivotOwner.insert(rips.index(own), e);
      if (rips.diameter(own) - birth > shortest) {
        PersistenceBar bar;
        bar.dimension = 1;
        bar.birth = birth;
        bar.death = rips.diameter(own);
        bar.edge = {edges[e].i, edges[e].j};
        bar.triangle = rips.triangleVertices(rips.index(own));
        bar.cycle = cycleThrough(e);
        out.h1.push_back(bar);
      }
      continue;
    }
    working.clear();
    std::vector<std::size_t> v{e};
    push(edges[e], 0, v.size());
    Key pivot = 0;
    bool has = working.pivot(pivot);
    while (has) {
      const std::size_t owner = pivotOwner.find(rips.index(pivot));
      if (owner == IndexMap::kNone) break;
      const std::span<const std::size_t> added = reduction.of(owner);
      if (added.empty()) {
        v.push_back(owner);
        push(edges[owner], pivot, v.size());
      }
      for (std::size_t a : added) {
        v.push_back(a);
        push(edges[a], pivot, v.size());
      }
      has = working.pivot(pivot);
    }
    if (!has) continue;  // no death: cannot happen in a full complex over [0, 1], a cone
    pivotOwner.insert(rips.index(pivot), e);
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
    reduction.keep(e, reduced);
    const double death = rips.diameter(pivot);
    if (death - birth > shortest) {
      PersistenceBar bar;
      bar.dimension = 1;
      bar.birth = birth;
      bar.death = death;
      bar.edge = {edges[e].i, edges[e].j};
      bar.triangle = rips.triangleVertices(rips.index(pivot));
      bar.cycle = cycleThrough(e);
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
