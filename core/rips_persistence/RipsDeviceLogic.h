// The per-simplex logic of the GPU backend of Rips persistence, compiled for the device
// (RipsPersistenceGpu.cu's kernels) and for the host (RipsHostTwin.h, which the unit
// tests run in CI): the combinatorial number system on the uploaded binomial table, the
// cofacets of a simplex in decreasing index order, the apparent-pair test (Ripser++,
// lemma 7), the clearing test (the previous dimension's apparent pairs found again, as
// the CPU engine does, and its reduced pivots), and the batching of a dimension under a
// memory budget.
// Each function is the CPU engine's (RipsCofacets.h, RipsColumnAssembly.h) step for
// step, with the same float comparisons, so that the pairs and the bars are identical.
#pragma once

#include "core/common/Types.h"
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

// The complete graph of a dense lower-triangular matrix.
struct DenseDistances {
  SimplexId n = 0;
  const float* lower = nullptr;
  struct Cursor {
    SimplexId next, floor;
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
  // The candidate new vertices w > floor, decreasing.
  TOPOGPU_HD Cursor candidates(const SimplexId*, int, SimplexId floor) const {
    return Cursor{n - 1, floor};
  }
  TOPOGPU_HD bool nextCandidate(Cursor& c, SimplexId& w) const {
    if (c.next <= c.floor)
      return false;
    w = c.next--;
    return true;
  }
};

// The edges under the threshold as CSR adjacency lists sorted by neighbour: the
// candidates are the neighbours of the simplex's vertex of smallest degree.
struct SparseDistances {
  SimplexId n = 0;
  const SimplexId* offsets = nullptr;
  const SimplexId* neighbors = nullptr;
  const float* distances = nullptr;
  struct Cursor {
    SimplexId position, begin, floor;
  };
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
  TOPOGPU_HD Cursor candidates(const SimplexId* vertices, int count,
                               SimplexId floor) const {
    SimplexId smallest = vertices[0];
    for (int j = 1; j < count; ++j) {
      if (degree(vertices[j]) < degree(smallest))
        smallest = vertices[j];
    }
    return Cursor{offsets[smallest + 1] - 1, offsets[smallest], floor};
  }
  TOPOGPU_HD bool nextCandidate(Cursor& c, SimplexId& w) const {
    if (c.position < c.begin || neighbors[c.position] <= c.floor)
      return false;
    w = neighbors[c.position--];
    return true;
  }
};

// The diameter d of the simplex (vertices v, its diameter) plus the vertex w, the edges
// to w taken in vertex order; false when it exceeds the threshold. A missing edge
// (sparse graph, infinite) is no simplex, even under an infinite threshold: the CPU's
// test. Shared by the cursor and the sparse graph's warp kernels (one lane per w), so
// that both compute the same floats.
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

// The cofacets (diameter <= threshold) of a simplex whose new vertex exceeds `floor`, in
// decreasing index order; the index is updated incrementally as on the CPU.
template <class Graph> class CofacetCursor {
public:
  TOPOGPU_HD CofacetCursor(const Graph& graph, const Binomials& binomial, float threshold,
                           const SimplexId* vertices, int count, float diameter,
                           SimplexId floor)
      : graph_(graph), binomial_(binomial), threshold_(threshold), v_(vertices),
        count_(count), diameter_(diameter), above_(0),
        below_(simplexIndex(binomial, vertices, count)), p_(0),
        cursor_(graph.candidates(vertices, count, floor)) {}

  TOPOGPU_HD bool next(Simplex& cofacet) {
    SimplexId w = 0;
    while (graph_.nextCandidate(cursor_, w)) {
      while (p_ < count_ && v_[p_] > w) {
        below_ -= binomial_(v_[p_], count_ - p_);
        above_ += binomial_(v_[p_], count_ - p_ + 1);
        ++p_;
      }
      if (p_ < count_ && v_[p_] == w)
        continue;
      float d = 0;
      if (!cofacetDiameter(graph_, threshold_, v_, count_, diameter_, w, d))
        continue;
      cofacet.diameter = d;
      cofacet.index = above_ + binomial_(w, count_ - p_ + 1) + below_;
      return true;
    }
    return false;
  }

private:
  Graph graph_;
  Binomials binomial_;
  float threshold_;
  const SimplexId* v_;
  int count_;
  float diameter_;
  SimplexId above_, below_;
  int p_;
  typename Graph::Cursor cursor_;
};

// The cofacets of a simplex (count vertices) made from it: those whose new vertex is
// above its largest, so that each simplex of the next dimension is made once.
template <class Graph>
TOPOGPU_HD SimplexId countCofacetsAbove(const Graph& graph, const Binomials& binomial,
                                        float threshold, const Simplex& s, int count) {
  SimplexId v[kMaxVertices] = {};
  simplexVertices(binomial, s.index, count, v);
  CofacetCursor<Graph> cursor(graph, binomial, threshold, v, count, s.diameter, v[0]);
  Simplex c;
  SimplexId made = 0;
  while (cursor.next(c))
    ++made;
  return made;
}

template <class Graph>
TOPOGPU_HD void writeCofacetsAbove(const Graph& graph, const Binomials& binomial,
                                   float threshold, const Simplex& s, int count,
                                   Simplex* out) {
  SimplexId v[kMaxVertices] = {};
  simplexVertices(binomial, s.index, count, v);
  CofacetCursor<Graph> cursor(graph, binomial, threshold, v, count, s.diameter, v[0]);
  Simplex c;
  SimplexId made = 0;
  while (cursor.next(c))
    out[made++] = c;
}

// Lemma 7 of the Ripser++ paper, the CPU engine's test step for step: t = s + w, the
// oldest cofacet of s (the first candidate w, decreasing, whose edges to s are all <= its
// diameter), and no facet t - v_j younger than s (those with v_j > w) keeps that
// diameter (one of its edges has it). v: s's vertices, decreasing. Returns t's index, or
// -1.
template <class Graph>
TOPOGPU_HD SimplexId apparentPivot(const Graph& graph, const Binomials& binomial,
                                   const SimplexId* v, int count, float diameter) {
  float dw[kMaxVertices];
  SimplexId w = -1, c = 0;
  typename Graph::Cursor cursor = graph.candidates(v, count, -1);
  while (w < 0 && graph.nextCandidate(cursor, c)) {
    int j = 0;
    for (; j < count; ++j) {
      if (v[j] == c)
        break;
      const float d = graph.distance(c, v[j]);
      if (!(d <= diameter)) // a missing edge of a sparse graph is infinite: no simplex
        break;
      dw[j] = d;
    }
    if (j == count)
      w = c;
  }
  return w < 0 ? -1 : apparentCofacet(graph, binomial, v, count, diameter, w, dw);
}

// Clearing without a store of the previous dimension's apparent pairs (the CPU engine's
// apparentFacet): whether t (count vertices tv, decreasing) is the pivot of one. Its
// column would be t's youngest facet of t's diameter (the smallest index: the largest
// vertex dropped first), and t that facet's apparent cofacet.
template <class Graph>
TOPOGPU_HD bool isApparentPivot(const Graph& graph, const Binomials& binomial,
                                const SimplexId* tv, int count, const Simplex& t) {
  SimplexId sv[kMaxVertices];
  return youngestFacet(graph, binomial, tv, count, t.diameter, sv) >= 0 &&
         apparentPivot(graph, binomial, sv, count - 1, t.diameter) == t.index;
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
