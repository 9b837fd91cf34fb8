// The cofacets of a simplex, walked over one of the CPU engine's graphs (RipsGraphs.h)
// with the combinatorial index updated as the new vertex moves, and the apparent pairs
// lemma of Ripser++ (lemma 7) on top of them: a simplex's apparent cofacet, and the
// apparent pair whose pivot a given cofacet is, found again instead of stored.
#pragma once

#include "RipsCombinatorics.h"
#include "RipsFiltration.h"

#include <algorithm>
#include <array>

namespace topogpu::rips_persistence::detail {

// The column of a pair (the pivot is the key it is stored under).
struct PivotRecord {
  Entry column;
};

template <class Graph> class Cofacets {
public:
  Cofacets(const Graph& graph, const BinomialTable& binomial, float threshold)
      : graph_(graph), binomial_(binomial), threshold_(threshold) {}

  const Graph& graph() const { return graph_; }
  const BinomialTable& binomial() const { return binomial_; }

  // The cofacets of diameter in (lower, bound] (the simplex's diameter is <= bound), in
  // no particular order; f(Entry). Only the candidates within the bound of one vertex
  // are visited: far fewer than all when the bound is well below the threshold.
  template <class F>
  void cofacetsWithin(const SimplexId* v, int count, float diameter, float lower,
                      float bound, F&& f) const {
    // The index of v + w, w between v[p-1] and v[p]: the vertices above w move up one
    // place in the combinatorial number system.
    std::array<SimplexId, kMaxVertices + 1> above{}, below{};
    for (int j = 0; j < count; ++j)
      above[std::size_t(j) + 1] = above[std::size_t(j)] + binomial_(v[j], count + 1 - j);
    below[std::size_t(count)] = 0;
    for (int j = count; j-- > 0;)
      below[std::size_t(j)] = below[std::size_t(j) + 1] + binomial_(v[j], count - j);
    graph_.candidatesWithin(v, count, bound, [&](SimplexId w, int known, float dKnown) {
      float d = std::max(diameter, dKnown);
      int p = 0;
      for (int j = 0; j < count; ++j) {
        if (v[j] == w)
          return;
        if (v[j] > w)
          p = j + 1;
        if (j != known) {
          d = std::max(d, graph_.distance(w, v[j]));
          if (d > bound)
            return;
        }
      }
      if (d > lower)
        f(Entry{d, above[std::size_t(p)] + binomial_(w, count + 1 - p) +
                       below[std::size_t(p)]});
    });
  }

  // Cofacets (diameter <= threshold) whose new vertex exceeds `floor`, in decreasing
  // index order; f(Entry, new vertex) returns false to stop. The index is updated
  // incrementally: the vertices above the new one move up one place in the combinatorial
  // number system.
  template <class F>
  void cofacets(const SimplexId* v, int count, float diameter, SimplexId floor,
                F&& f) const {
    SimplexId above = 0;
    SimplexId below = simplexIndex(binomial_, v, count);
    int p = 0;
    auto rows = graph_.rows(v, count);
    graph_.candidates(v, count, floor, [&](SimplexId w, int known, float dKnown) {
      while (p < count && v[p] > w) {
        below -= binomial_(v[p], count - p);
        above += binomial_(v[p], count - p + 1);
        ++p;
      }
      if (p < count && v[p] == w)
        return true;
      if (known >= 0 && dKnown > threshold_)
        return true;
      float d = diameter;
      for (int j = 0; j < count; ++j) {
        d = std::max(d, j == known ? dKnown : rows(j, w));
        // A missing edge of a sparse graph (infinite) is no simplex, whatever the
        // threshold (an infinite one included).
        if (d > threshold_ || d == kInfinity)
          return true;
      }
      return f(Entry{d, above + binomial_(w, count - p + 1) + below}, w);
    });
  }

  // Lemma 7 of the Ripser++ paper: t, the oldest cofacet of s, has s's diameter, and no
  // facet of t with that diameter is younger than s (a smaller index, in our order).
  // v: s's vertices, decreasing. t = s + w is the first cofacet in decreasing index
  // order whose new edges are all <= s's diameter. t - v_j is older-indexed than s
  // (smaller index) exactly when v_j > w (colexicographic order), so only those facets
  // are tested, and each has t's diameter iff one of its edges does.
  SimplexId apparentPivot(const Entry& s, const SimplexId* v, int count) const {
    SimplexId w = -1;
    float dw[kMaxVertices];
    auto rows = graph_.rows(v, count);
    graph_.candidates(v, count, -1, [&](SimplexId c, int known, float dKnown) {
      if (known >= 0 && !(dKnown <= s.diameter))
        return true;
      int j = 0;
      for (; j < count; ++j) {
        if (v[j] == c)
          return true;
        const float d = j == known ? dKnown : rows(j, c);
        // A missing edge of a sparse graph is infinite: no simplex.
        if (!(d <= s.diameter))
          return true;
        dw[j] = d;
      }
      w = c;
      return false;
    });
    if (w < 0)
      return -1;
    return apparentCofacet(graph_, binomial_, v, count, s.diameter, w, dw);
  }

  // The apparent pair with pivot t (count + 1 vertices tv, decreasing), found without a
  // store: s is t's youngest facet of t's diameter (the smallest index: the largest
  // vertex dropped first), and t must be s's oldest cofacet.
  bool apparentFacet(const Entry& t, const SimplexId* tv, int count, Entry& s) const {
    Vertices sv; // NOLINT: filled before use (no 576-byte clearing per call)
    const SimplexId index =
        youngestFacet(graph_, binomial_, tv, count + 1, t.diameter, sv.data());
    if (index < 0)
      return false;
    s = Entry{t.diameter, index};
    return apparentPivot(s, sv.data(), count) == t.index;
  }

  // The apparent pair whose pivot is t (a cofacet of a column with count vertices),
  // found again from t's vertices (no store of the apparent pairs: Ripser's way).
  bool findApparent(const Entry& t, int count, PivotRecord& record) const {
    Vertices tv; // NOLINT: filled before use (no 576-byte clearing per call)
    simplexVertices(binomial_, t.index, count + 1, tv.data());
    return apparentFacet(t, tv.data(), count, record.column);
  }

protected:
  const Graph& graph_;
  const BinomialTable& binomial_;
  float threshold_;
};

} // namespace topogpu::rips_persistence::detail
