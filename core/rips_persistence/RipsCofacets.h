// The cofacets of a simplex over one of the CPU engine's graphs (RipsGraphs.h) and the
// apparent pairs lemma of Ripser++ (lemma 7) on top of them: a simplex's apparent
// cofacet, and the apparent pair whose pivot a given cofacet is, found again instead of
// stored. The walk and the lemma are the device's (RipsDeviceLogic.h), one
// implementation for both backends; the cofacets within a bound (bounded columns, over
// the dense graph's lists by distance) are the CPU's own.
#pragma once

#include "RipsCombinatorics.h"
#include "RipsDeviceLogic.h"
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
  // index order (the device's walk, device::forEachCofacet); f(Entry, new vertex)
  // returns false to stop.
  template <class F>
  void cofacets(const SimplexId* v, int count, float diameter, SimplexId floor,
                F&& f) const {
    device::forEachCofacet(graph_, binomial_, threshold_, v, count, diameter, floor, f);
  }

  // Lemma 7 of the Ripser++ paper (device::apparentPivot): the index of s's apparent
  // cofacet, or -1. v: s's vertices, decreasing.
  SimplexId apparentPivot(const Entry& s, const SimplexId* v, int count) const {
    return device::apparentPivot<Graph, BinomialTable, kMaxVertices>(graph_, binomial_, v,
                                                                     count, s.diameter);
  }

  // The apparent pair with pivot t (count + 1 vertices tv, decreasing), found without a
  // store (device::apparentColumn): its column s.
  bool apparentFacet(const Entry& t, const SimplexId* tv, int count, Entry& s) const {
    const SimplexId index = device::apparentColumn<Graph, BinomialTable, kMaxVertices>(
        graph_, binomial_, tv, count + 1, t);
    if (index < 0)
      return false;
    s = Entry{t.diameter, index};
    return true;
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
