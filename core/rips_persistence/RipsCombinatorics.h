// The combinatorial number system that names Rips simplices by one 64-bit index, the
// apparent pairs lemma's tests, and the union-find of dimension 0. Header-only so that
// the unit tests reach them directly; the TOPOGPU_HD templates are compiled for the CPU
// engine (core/rips_persistence) and for the GPU's kernels (cuda/rips_persistence) alike.
#pragma once

#include "base/Types.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace topogpu::rips_persistence {

// C(i, k) for 0 <= i <= n and 0 <= k <= maxK, built by Pascal's rule. A simplex
// {v_k > ... > v_1} (k vertices) has index sum_j C(v_j, j): the colexicographic rank
// among the k-subsets of {0..n-1}, so every index is below C(n, k). Any entry that would
// pass 2^63 - 1 is an Error: the index space of the requested simplices does not fit.
class BinomialTable {
public:
  BinomialTable() = default;
  BinomialTable(SimplexId n, int maxK) : n_(n), maxK_(maxK) {
    checkIndexRange(n, maxK);
    table_.assign(std::size_t(maxK + 1) * std::size_t(n + 1), 0);
    for (SimplexId i = 0; i <= n; ++i) {
      at(i, 0) = 1;
      for (int k = 1; k <= maxK; ++k) {
        if (k > i)
          break;
        const SimplexId a = at(i - 1, k - 1);
        const SimplexId b = k <= i - 1 ? at(i - 1, k) : 0;
        SimplexId sum = 0;
        if (__builtin_add_overflow(a, b, &sum))
          throw Error("the simplices of dimension " + std::to_string(k - 1) + " on " +
                      std::to_string(n) +
                      " points need indices beyond 2^63 (the 64-bit combinatorial "
                      "index space); lower the dimension or the number of points");
        at(i, k) = sum;
      }
    }
  }
  // Error when the table would hold an entry beyond 2^63 - 1 (checked before anything
  // is allocated): C(n, k) peaks at k = n/2.
  static void checkIndexRange(SimplexId n, int maxK) {
    if (n < 0 || maxK < 0)
      throw Error("binomial table: negative size");
    const SimplexId peakK = std::min<SimplexId>(maxK, n / 2);
    __int128 c = 1;
    for (SimplexId j = 0; j < peakK; ++j) {
      c = c * (n - j) / (j + 1);
      if (c > __int128(std::numeric_limits<SimplexId>::max()))
        throw Error("the simplices with " + std::to_string(maxK) + " vertices on " +
                    std::to_string(n) +
                    " points need indices beyond 2^63 - 1 (the 64-bit combinatorial "
                    "index space); lower the dimension or the number of points");
    }
  }
  // C(i, k); 0 when k > i.
  SimplexId operator()(SimplexId i, int k) const {
    return table_[std::size_t(k) * std::size_t(n_ + 1) + std::size_t(i)];
  }
  SimplexId n() const { return n_; }
  int maxK() const { return maxK_; }
  // C(i, k) at k * (n + 1) + i (the GPU backend uploads it).
  const SimplexId* data() const { return table_.data(); }

private:
  SimplexId& at(SimplexId i, int k) {
    return table_[std::size_t(k) * std::size_t(n_ + 1) + std::size_t(i)];
  }
  SimplexId n_ = 0;
  int maxK_ = 0;
  std::vector<SimplexId> table_;
};

// C(i, k) at k * (n + 1) + i in a table another owns (BinomialTable's layout, uploaded
// to the device): what the kernels read.
struct BinomialView {
  const SimplexId* table = nullptr;
  SimplexId points = 0;
  TOPOGPU_HD SimplexId operator()(SimplexId i, int k) const {
    return table[SimplexId(k) * (points + 1) + i];
  }
  TOPOGPU_HD SimplexId n() const { return points; }
};

// Index of the simplex whose vertices are given in decreasing order (Binomial:
// BinomialTable or BinomialView).
template <class Binomial>
TOPOGPU_HD SimplexId simplexIndex(const Binomial& binomial, const SimplexId* vertices,
                                  int count) {
  SimplexId index = 0;
  for (int j = 0; j < count; ++j)
    index += binomial(vertices[j], count - j);
  return index;
}

// The vertices (decreasing) of the simplex with `count` vertices and this index: each
// vertex is the largest v with C(v, k) <= what is left (binary search below `top`).
template <class Binomial>
TOPOGPU_HD void simplexVertices(const Binomial& binomial, SimplexId index, int count,
                                SimplexId* vertices) {
  SimplexId top = binomial.n(); // exclusive upper bound on the next vertex
  for (int j = 0; j < count; ++j) {
    const int k = count - j;
    SimplexId lo = k - 1, hi = top - 1; // C(k-1, k) = 0 <= index always holds
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

// ---- Lemma 7 of the Ripser++ paper (apparent pairs), over any graph with
// distance(a, b) ----

// s (count vertices v, decreasing) and t = s + w, s's oldest cofacet: w is the first
// candidate (decreasing) whose edges to s are all <= s's diameter (dw[j] = d(w, v_j)).
// The pair (s, t) is apparent when no facet of t younger than s (a smaller index: t -
// v_j for v_j > w, colexicographic order) keeps the diameter, i.e. has an edge of it.
// Returns t's index, or -1.
template <class Graph, class Binomial>
TOPOGPU_HD SimplexId apparentCofacet(const Graph& graph, const Binomial& binomial,
                                     const SimplexId* v, int count, float diameter,
                                     SimplexId w, const float* dw) {
  for (int drop = 0; drop < count && v[drop] > w; ++drop) {
    for (int j = 0; j < count; ++j) {
      if (j != drop && dw[j] == diameter)
        return -1;
    }
    for (int a = 0; a < count; ++a) {
      if (a == drop)
        continue;
      for (int b = a + 1; b < count; ++b) {
        if (b != drop && graph.distance(v[a], v[b]) == diameter)
          return -1;
      }
    }
  }
  SimplexId index = 0;
  int k = count + 1, j = 0;
  for (; j < count && v[j] > w; ++j)
    index += binomial(v[j], k--);
  index += binomial(w, k--);
  for (; j < count; ++j)
    index += binomial(v[j], k--);
  return index;
}

// The column an apparent pair with pivot t (count vertices tv, decreasing) would have:
// t's youngest facet of t's diameter (the smallest index: the largest vertex dropped
// first), its vertices into sv and its index returned; -1 when no facet keeps the
// diameter (t is then no apparent pivot).
template <class Graph, class Binomial>
TOPOGPU_HD SimplexId youngestFacet(const Graph& graph, const Binomial& binomial,
                                   const SimplexId* tv, int count, float diameter,
                                   SimplexId* sv) {
  for (int drop = 0; drop < count; ++drop) {
    bool keeps = false;
    for (int a = 0; a < count && !keeps; ++a) {
      if (a == drop)
        continue;
      for (int b = a + 1; b < count; ++b) {
        if (b != drop && graph.distance(tv[a], tv[b]) == diameter) {
          keeps = true;
          break;
        }
      }
    }
    if (!keeps)
      continue;
    SimplexId index = 0;
    for (int j = 0, k = 0; j < count; ++j) {
      if (j != drop) {
        sv[k] = tv[j];
        index += binomial(tv[j], count - 1 - k);
        ++k;
      }
    }
    return index;
  }
  return -1;
}

// Disjoint sets with union by rank and path halving (dimension 0).
class UnionFind {
public:
  explicit UnionFind(SimplexId n) : parent_(std::size_t(n)), rank_(std::size_t(n), 0) {
    std::iota(parent_.begin(), parent_.end(), SimplexId(0));
  }
  SimplexId find(SimplexId x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  // Joins the sets of a and b; false when they were already one set.
  bool unite(SimplexId a, SimplexId b) {
    a = find(a);
    b = find(b);
    if (a == b)
      return false;
    if (rank_[a] < rank_[b])
      std::swap(a, b);
    parent_[b] = a;
    if (rank_[a] == rank_[b])
      ++rank_[a];
    return true;
  }

private:
  std::vector<SimplexId> parent_;
  std::vector<std::uint8_t> rank_;
};

} // namespace topogpu::rips_persistence
