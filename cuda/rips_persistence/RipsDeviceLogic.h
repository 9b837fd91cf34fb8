// The per-simplex logic of the GPU backend of Rips persistence, compiled for the device
// (RipsPersistenceGpu.cu's kernels) and for the host (RipsHostTwin.h, which the unit
// tests run in CI): the combinatorial number system on the uploaded binomial table, the
// cofacets of a simplex in decreasing index order, the apparent-pair test (Ripser++,
// lemma 7), the clearing test, and the batching of a dimension under a memory budget.
// Each function is the CPU engine's (core/rips_persistence/RipsPersistence.cpp) step for
// step, with the same float comparisons, so that the pairs and the bars are identical.
#pragma once

#include "core/common/Types.h"
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

// C(i, k) at k * (n + 1) + i: BinomialTable's layout.
struct Binomials {
  const SimplexId* table = nullptr;
  SimplexId n = 0;
  TOPOGPU_HD SimplexId operator()(SimplexId i, int k) const {
    return table[SimplexId(k) * (n + 1) + i];
  }
};

TOPOGPU_HD SimplexId simplexIndex(const Binomials& binomial, const SimplexId* vertices,
                                  int count) {
  SimplexId index = 0;
  for (int j = 0; j < count; ++j)
    index += binomial(vertices[j], count - j);
  return index;
}

// The vertices (decreasing) of the simplex with `count` vertices and this index.
TOPOGPU_HD void simplexVertices(const Binomials& binomial, SimplexId index, int count,
                                SimplexId* vertices) {
  SimplexId top = binomial.n;
  for (int j = 0; j < count; ++j) {
    const int k = count - j;
    SimplexId lo = k - 1, hi = top - 1;
    while (lo < hi) {
      const SimplexId mid = lo + (hi - lo + 1) / 2;
      if (binomial(mid, k) <= index)
        lo = mid;
      else
        hi = mid - 1;
    }
    vertices[j] = lo;
    index -= binomial(lo, k);
    top = lo;
  }
}

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
      float d = diameter_;
      bool over = false;
      for (int j = 0; j < count_; ++j) {
        d = maxOf(d, graph_.distance(w, v_[j]));
        // A missing edge (sparse graph, infinite) is no simplex, even under an infinite
        // threshold: the CPU's test.
        if (d > threshold_ || d == std::numeric_limits<float>::infinity()) {
          over = true;
          break;
        }
      }
      if (over)
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

template <class Graph>
TOPOGPU_HD float diameterOf(const Graph& graph, const SimplexId* v, int count) {
  float d = 0;
  for (int a = 0; a < count; ++a) {
    for (int b = a + 1; b < count; ++b)
      d = maxOf(d, graph.distance(v[a], v[b]));
  }
  return d;
}

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

// Lemma 7 of the Ripser++ paper: t, the oldest cofacet of s (the first in decreasing
// index order with s's diameter), and no facet of t with that diameter younger than s (a
// smaller index). Returns t's index, or -1.
template <class Graph>
TOPOGPU_HD SimplexId apparentPivot(const Graph& graph, const Binomials& binomial,
                                   float threshold, const Simplex& s, int count) {
  SimplexId v[kMaxVertices] = {};
  simplexVertices(binomial, s.index, count, v);
  CofacetCursor<Graph> cursor(graph, binomial, threshold, v, count, s.diameter, -1);
  Simplex t;
  bool found = false;
  while (cursor.next(t)) {
    if (t.diameter == s.diameter) {
      found = true;
      break;
    }
  }
  if (!found)
    return -1;
  SimplexId tv[kMaxVertices] = {}, facet[kMaxVertices] = {};
  simplexVertices(binomial, t.index, count + 1, tv);
  for (int drop = 0; drop <= count; ++drop) {
    int k = 0;
    for (int j = 0; j <= count; ++j) {
      if (j != drop)
        facet[k++] = tv[j];
    }
    const SimplexId index = simplexIndex(binomial, facet, count);
    if (index < s.index && diameterOf(graph, facet, count) == t.diameter)
      return -1;
  }
  return t.index;
}

// Clearing: whether `index` is a pivot of the previous dimension, in the apparent pairs
// (sorted by pivot) or the reduction's pivots (sorted).
TOPOGPU_HD bool isCleared(SimplexId index, const ApparentPair* apparent,
                          SimplexId apparentCount, const SimplexId* reduced,
                          SimplexId reducedCount) {
  SimplexId lo = 0, hi = apparentCount;
  while (lo < hi) {
    const SimplexId mid = lo + (hi - lo) / 2;
    if (apparent[mid].pivot < index)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < apparentCount && apparent[lo].pivot == index)
    return true;
  lo = 0;
  hi = reducedCount;
  while (lo < hi) {
    const SimplexId mid = lo + (hi - lo) / 2;
    if (reduced[mid] < index)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < reducedCount && reduced[lo] == index;
}

// What a simplex of a batch is: cleared, apparent (its pivot >= 0) or a column to reduce.
constexpr SimplexId kCleared = -2;
constexpr SimplexId kToReduce = -1;

template <class Graph>
TOPOGPU_HD SimplexId classify(const Graph& graph, const Binomials& binomial,
                              float threshold, const Simplex& s, int count,
                              const ApparentPair* apparent, SimplexId apparentCount,
                              const SimplexId* reduced, SimplexId reducedCount) {
  if (isCleared(s.index, apparent, apparentCount, reduced, reducedCount))
    return kCleared;
  const SimplexId t = apparentPivot(graph, binomial, threshold, s, count);
  return t >= 0 ? t : kToReduce;
}

// The reduction's column order: reverse filtration order (diameter descending, then the
// smaller index first; the CPU's before(b, a)).
struct ReverseFiltration {
  TOPOGPU_HD bool operator()(const Simplex& a, const Simplex& b) const {
    return b.diameter < a.diameter || (b.diameter == a.diameter && b.index > a.index);
  }
};

// ---- memory plan (host) ----

// Device bytes per simplex made in a batch: the simplex (16), its class (8), the
// compacted columns and apparent pairs (24 at most in all), the sort's copies (24) and
// the downloaded records (24), with headroom for the sort's scratch.
constexpr std::size_t kBytesPerSimplex = 128;
// Device bytes per facet in a batch: the facet (16), its count and offset (16), and
// headroom for the scan's scratch.
constexpr std::size_t kBytesPerFacet = 40;

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
