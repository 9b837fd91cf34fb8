// The per-simplex logic of Rips persistence shared by both backends, compiled for the
// device (RipsPersistenceGpu.cu's kernels) and for the host (the CPU engine's
// RipsGraphs.h and RipsCofacets.h, and RipsHostTwin.h, which the unit tests run in CI):
// the graphs' views (dense matrix, CSR lists), the cofacets of a simplex in decreasing
// index order, the apparent-pair test (Ripser++, lemma 7), the clearing test (the
// previous dimension's apparent pairs found again, and its reduced pivots), and the
// batching of a dimension under a memory budget. One implementation, so that the pairs
// and the bars of the two backends are identical.
#pragma once

#include "base/Types.h"
#include "core/rips_persistence/RipsCombinatorics.h"
#include "core/rips_persistence/RipsPersistence.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

namespace topogpu::rips_persistence::device {

// The device handles cofacets of up to this many vertices (dimension <= 14); a larger
// dimension is declined and built on the CPU.
constexpr int kMaxVertices = 16;

// C(i, k) on the uploaded table (RipsCombinatorics.h, as simplexIndex and
// simplexVertices).
using Binomials = BinomialView;

// std::max(a, b) of the CPU engine, sign of zero included.
TOPOGPU_HD float maxOf(float a, float b) {
  return a < b ? b : a;
}

// ---- The graphs, read by the walks below ----
//
// A graph gives distance(a, b) (0 on the diagonal; a missing edge of a sparse graph is
// infinite), forEachCandidate(v, count, floor, f): f(w, known, dKnown) for the candidate
// new vertices w > floor of the cofacets of a simplex (vertices v, decreasing), in
// decreasing order, until f returns false, dKnown being w's distance to v_known when the
// graph read it already (known = -1: none), and rows(v, count): the distances of the
// candidates (asked for in decreasing order) to the simplex's vertices. The views here
// are the device's; the CPU engine's graphs (RipsGraphs.h) are adapters over them that
// keep its speed-ups (a square matrix, a cursor per adjacency list).

// The complete graph of a dense lower-triangular matrix: every vertex is a candidate.
struct DenseDistances {
  SimplexId n = 0;
  const float* lower = nullptr;
  // The distances of candidates to a simplex's vertices, one lookup each.
  struct Rows {
    const float* lower;
    const SimplexId* v;
    TOPOGPU_HD float operator()(int j, SimplexId c) const {
      return DenseDistances{0, lower}.distance(c, v[j]);
    }
  };
  TOPOGPU_HD float distance(SimplexId a, SimplexId b) const {
    if (a == b)
      return 0;
    if (a < b) {
      const SimplexId t = a;
      a = b;
      b = t;
    }
    return lower[a * (a - 1) / 2 + b];
  }
  template <class F>
  TOPOGPU_HD void forEachCandidate(const SimplexId*, int, SimplexId floor, F&& f) const {
    for (SimplexId w = n - 1; w > floor; --w) {
      if (!f(w, -1, 0.0f))
        return;
    }
  }
  TOPOGPU_HD Rows rows(const SimplexId* v, int) const { return Rows{lower, v}; }
};

// The edges under the threshold as CSR adjacency lists sorted by neighbour: the
// candidates are the neighbours of the simplex's vertex of smallest degree (whose
// distances to them the lists hold: known).
struct SparseDistances {
  SimplexId n = 0;
  const SimplexId* offsets = nullptr;
  const SimplexId* neighbors = nullptr;
  const float* distances = nullptr;
  // The candidates: the list of v_known from `position` down to `begin`, while above
  // `floor`.
  struct Cursor {
    SimplexId position, begin, floor;
    int known;
  };
  struct Rows;
  TOPOGPU_HD SimplexId degree(SimplexId v) const { return offsets[v + 1] - offsets[v]; }
  TOPOGPU_HD float distance(SimplexId a, SimplexId b) const {
    if (a == b)
      return 0;
    if (degree(b) < degree(a)) {
      const SimplexId t = a;
      a = b;
      b = t;
    }
    SimplexId lo = offsets[a], hi = offsets[a + 1]; // first neighbour >= b
    while (lo < hi) {
      const SimplexId mid = lo + (hi - lo) / 2;
      if (neighbors[mid] < b)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo < offsets[a + 1] && neighbors[lo] == b
               ? distances[lo]
               : std::numeric_limits<float>::infinity();
  }
// GCC, inlining this into the CPU engine, cannot see that the caller's vertex buffer
// (left uninitialised there on purpose) holds count >= 1 vertices.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
  // The place j of the vertex of smallest degree among v_0..v_count-1 (the first one);
  // inlined into the walks, whose every step starts with it.
  __attribute__((always_inline)) TOPOGPU_HD int smallestDegree(const SimplexId* vertices,
                                                               int count) const {
    int smallest = 0;
    for (int j = 1; j < count; ++j) {
      if (degree(vertices[j]) < degree(vertices[smallest]))
        smallest = j;
    }
    return smallest;
  }
  TOPOGPU_HD Cursor candidates(const SimplexId* vertices, int count,
                               SimplexId floor) const {
    const int smallest = smallestDegree(vertices, count);
    const SimplexId v = vertices[smallest];
    return Cursor{offsets[v + 1] - 1, offsets[v], floor, smallest};
  }
  template <class F>
  TOPOGPU_HD void forEachCandidate(const SimplexId* vertices, int count, SimplexId floor,
                                   F&& f) const {
    const int smallest = smallestDegree(vertices, count);
    const SimplexId v = vertices[smallest];
    for (SimplexId at = offsets[v + 1] - 1; at >= offsets[v] && neighbors[at] > floor;
         --at) {
      if (!f(neighbors[at], smallest, distances[at]))
        return;
    }
  }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  TOPOGPU_HD Rows rows(const SimplexId* v, int) const;
};

// The distances of candidates to a simplex's vertices, a binary search each.
struct SparseDistances::Rows {
  SparseDistances graph;
  const SimplexId* v;
  TOPOGPU_HD float operator()(int j, SimplexId c) const {
    return graph.distance(c, v[j]);
  }
};

TOPOGPU_HD SparseDistances::Rows SparseDistances::rows(const SimplexId* v, int) const {
  return Rows{*this, v};
}

// The diameter d of the simplex (vertices v, its diameter) plus the vertex w, the edges
// to w taken in vertex order; false when it exceeds the threshold. A missing edge
// (sparse graph, infinite) is no simplex, even under an infinite threshold: the CPU's
// test. The sparse graph's warp kernels (one lane per w) test their candidates with it;
// forEachCofacet below applies the same rule in its loop, written inline (the CPU's
// hot loop: through a call it runs measurably slower), so that both compute the same
// floats.
template <class Graph>
TOPOGPU_HD bool cofacetDiameter(const Graph& graph, float threshold, const SimplexId* v,
                                int count, float diameter, SimplexId w, float& d) {
  d = diameter;
  for (int j = 0; j < count; ++j) {
    d = maxOf(d, graph.distance(w, v[j]));
    if (d > threshold || d == std::numeric_limits<float>::infinity())
      return false;
  }
  return true;
}

// The cofacets (diameter <= threshold) of a simplex (count vertices v, decreasing) whose
// new vertex exceeds `floor`, in decreasing index order: f(cofacet, new vertex), which
// returns false to stop. The index is updated incrementally, the vertices above the new
// one moving up one place in the combinatorial number system.
template <class Graph, class Binomial, class F>
TOPOGPU_HD void forEachCofacet(const Graph& graph, const Binomial& binomial,
                               float threshold, const SimplexId* v, int count,
                               float diameter, SimplexId floor, F&& f) {
  SimplexId above = 0;
  SimplexId below = simplexIndex(binomial, v, count);
  int p = 0;
  typename Graph::Rows rows = graph.rows(v, count);
  graph.forEachCandidate(v, count, floor, [&](SimplexId w, int known, float dKnown) {
    while (p < count && v[p] > w) {
      below -= binomial(v[p], count - p);
      above += binomial(v[p], count - p + 1);
      ++p;
    }
    if (p < count && v[p] == w)
      return true;
    if (known >= 0 && dKnown > threshold)
      return true;
    float d = diameter;
    for (int j = 0; j < count; ++j) {
      d = maxOf(d, j == known ? dKnown : rows(j, w));
      if (d > threshold || d == std::numeric_limits<float>::infinity())
        return true;
    }
    return f(Simplex{d, above + binomial(w, count - p + 1) + below}, w);
  });
}

// The cofacets of a simplex (count vertices) made from it: those whose new vertex is
// above its largest, so that each simplex of the next dimension is made once.
template <class Graph>
TOPOGPU_HD SimplexId countCofacetsAbove(const Graph& graph, const Binomials& binomial,
                                        float threshold, const Simplex& s, int count) {
  SimplexId v[kMaxVertices] = {};
  simplexVertices(binomial, s.index, count, v);
  SimplexId made = 0;
  forEachCofacet(graph, binomial, threshold, v, count, s.diameter, v[0],
                 [&](const Simplex&, SimplexId) {
                   ++made;
                   return true;
                 });
  return made;
}

template <class Graph>
TOPOGPU_HD void writeCofacetsAbove(const Graph& graph, const Binomials& binomial,
                                   float threshold, const Simplex& s, int count,
                                   Simplex* out) {
  SimplexId v[kMaxVertices] = {};
  simplexVertices(binomial, s.index, count, v);
  SimplexId made = 0;
  forEachCofacet(graph, binomial, threshold, v, count, s.diameter, v[0],
                 [&](const Simplex& c, SimplexId) {
                   out[made++] = c;
                   return true;
                 });
}

// Lemma 7 of the Ripser++ paper: t = s + w, the oldest cofacet of s (the first
// candidate w, decreasing, whose edges to s are all <= its diameter), and no facet t -
// v_j younger than s (those with v_j > w) keeps that diameter (one of its edges has it).
// v: s's vertices, decreasing (at most Capacity). Returns t's index, or -1.
template <class Graph, class Binomial, int Capacity = kMaxVertices>
TOPOGPU_HD SimplexId apparentPivot(const Graph& graph, const Binomial& binomial,
                                   const SimplexId* v, int count, float diameter) {
  SimplexId w = -1;
  float dw[Capacity];
  typename Graph::Rows rows = graph.rows(v, count);
  graph.forEachCandidate(v, count, -1, [&](SimplexId c, int known, float dKnown) {
    if (known >= 0 && !(dKnown <= diameter))
      return true;
    for (int j = 0; j < count; ++j) {
      if (v[j] == c)
        return true;
      const float d = j == known ? dKnown : rows(j, c);
      if (!(d <= diameter)) // a missing edge of a sparse graph is infinite: no simplex
        return true;
      dw[j] = d;
    }
    w = c;
    return false;
  });
  return w < 0 ? -1 : apparentCofacet(graph, binomial, v, count, diameter, w, dw);
}

// Clearing without a store of the previous dimension's apparent pairs: the column of
// the apparent pair whose pivot is t (count vertices tv, decreasing; at most Capacity),
// or -1 when t is no apparent pivot. The column would be t's youngest facet of t's
// diameter (the smallest index: the largest vertex dropped first), and t that facet's
// apparent cofacet.
template <class Graph, class Binomial, int Capacity = kMaxVertices>
TOPOGPU_HD SimplexId apparentColumn(const Graph& graph, const Binomial& binomial,
                                    const SimplexId* tv, int count, const Simplex& t) {
  SimplexId sv[Capacity];
  const SimplexId index = youngestFacet(graph, binomial, tv, count, t.diameter, sv);
  if (index < 0)
    return -1;
  return apparentPivot<Graph, Binomial, Capacity>(graph, binomial, sv, count - 1,
                                                  t.diameter) == t.index
             ? index
             : -1;
}

// Whether t (count vertices tv, decreasing) is the pivot of an apparent pair.
template <class Graph>
TOPOGPU_HD bool isApparentPivot(const Graph& graph, const Binomials& binomial,
                                const SimplexId* tv, int count, const Simplex& t) {
  return apparentColumn(graph, binomial, tv, count, t) >= 0;
}

// Whether `index` is in the sorted array (the reduction's pivots of the previous
// dimension: few, uploaded for the clearing).
TOPOGPU_HD bool isSortedMember(SimplexId index, const SimplexId* sorted, SimplexId size) {
  SimplexId lo = 0, hi = size;
  while (lo < hi) {
    const SimplexId mid = lo + (hi - lo) / 2;
    if (sorted[mid] < index)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < size && sorted[lo] == index;
}

// What a simplex of a batch is: apparent (paired with a cofacet by lemma 7), cleared (the
// pivot of a pair of the previous dimension: an apparent one, found again, or one of
// the reduction's) or a column to reduce. A simplex is in one pair at most: the
// apparent test, far more often true, comes first (the CPU engine's order).
using SimplexKind = unsigned char;
constexpr SimplexKind kToReduce = 0;
constexpr SimplexKind kApparent = 1;
constexpr SimplexKind kCleared = 2;

template <class Graph>
TOPOGPU_HD SimplexKind classify(const Graph& graph, const Binomials& binomial,
                                const Simplex& s, int count, bool clearing,
                                const SimplexId* reduced, SimplexId reducedCount) {
  SimplexId v[kMaxVertices];
  simplexVertices(binomial, s.index, count, v);
  if (apparentPivot(graph, binomial, v, count, s.diameter) >= 0)
    return kApparent;
  if (clearing && (isSortedMember(s.index, reduced, reducedCount) ||
                   isApparentPivot(graph, binomial, v, count, s)))
    return kCleared;
  return kToReduce;
}

// The reduction's column order: reverse filtration order (diameter descending, then the
// smaller index first; the CPU's before(b, a)).
struct ReverseFiltration {
  TOPOGPU_HD bool operator()(const Simplex& a, const Simplex& b) const {
    return b.diameter < a.diameter || (b.diameter == a.diameter && b.index > a.index);
  }
};

// ---- memory plan (host) ----

// Device bytes per simplex made in a batch: the simplex (16), its kind (1), the
// compacted column (16 at most), the column sort's copy (16), with headroom for the
// scratch of the selection and the sort. Nothing per apparent pair: they stay on the
// device (only their number comes back).
constexpr std::size_t kBytesPerSimplex = 64;
// Device bytes per facet in a batch: the facet (16), its count and offset (16), and
// headroom for the scan's scratch.
constexpr std::size_t kBytesPerFacet = 40;
// The plan of one batch stays under this, whatever the budget: a dimension is not made
// all at once when batches would do (celegans' 3-simplices, some 300 million, in about
// ten batches of ~1 GB), so that the peak stays far below the card.
constexpr std::size_t kBatchBytes = std::size_t(3) << 30;
// A dimension's simplices stay on the device for the next one (its facets) when they
// take at most this and half the budget; else they go to the host and come back.
constexpr std::size_t kKeptBytes = std::size_t(1) << 30;

// Consecutive ranges [first, last) of facets whose cost (kBytesPerSimplex per simplex
// they make, kBytesPerFacet each) stays within `budget`; empty when one facet alone does
// not fit (the caller then declines the dimension).
inline std::vector<std::pair<std::size_t, std::size_t>>
cutBatches(const std::vector<SimplexId>& made, std::size_t budget) {
  std::vector<std::pair<std::size_t, std::size_t>> batches;
  std::size_t first = 0, cost = 0;
  for (std::size_t f = 0; f < made.size(); ++f) {
    const std::size_t one = std::size_t(made[f]) * kBytesPerSimplex + kBytesPerFacet;
    if (one > budget)
      return {};
    if (cost + one > budget) {
      batches.emplace_back(first, f);
      first = f;
      cost = 0;
    }
    cost += one;
  }
  if (first < made.size())
    batches.emplace_back(first, made.size());
  return batches;
}

// Ranges of at most `budget / kBytesPerSimplex` given columns (dimension 1).
inline std::vector<std::pair<std::size_t, std::size_t>>
cutColumnBatches(std::size_t size, std::size_t budget) {
  std::vector<std::pair<std::size_t, std::size_t>> batches;
  const std::size_t per = budget / kBytesPerSimplex;
  if (per == 0)
    return batches;
  for (std::size_t first = 0; first < size; first += per)
    batches.emplace_back(first, std::min(size, first + per));
  return batches;
}

} // namespace topogpu::rips_persistence::device
