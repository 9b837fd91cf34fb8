// The (1-saddle, 2-saddle) pairs of a simplicial complex by the Discrete Morse
// Sandwich's boundary expansion (Guillou, Vidal and Tierny 2023, TTK's
// eliminateBoundariesSandwich), without the saddle connections: each 2-saddle left after
// the other pairings (clearing), in filtration order, expands its boundary over Z/2
// until the youngest edge is a critical edge no earlier 2-saddle owns:
//  - the youngest edge paired with a triangle by the gradient: that triangle's boundary
//    is added (the V-path step: the edge leaves the chain);
//  - a critical edge owned by an earlier 2-saddle: that saddle's final boundary is added
//    (the reduction's column addition);
//  - otherwise the edge is the 2-saddle's partner.
// This is the column reduction of the Morse boundary (DiscreteMorseSandwich.cpp) read off
// the gradient's own cells: it touches only the part of a wall that the reduction needs,
// where the saddle connections walk every wall whole.
// In parallel rounds over a batch of 2-saddles: every 2-saddle not yet settled expands
// at once, adding only the boundaries of settled 2-saddles, until its youngest critical
// edge is owned by none of them; then a scan in filtration order settles a 2-saddle
// whose edge is younger than every edge an earlier unsettled 2-saddle stopped at. That
// is its final partner: a column's youngest edge only gets older as it reduces, so no
// earlier 2-saddle can come to own it, and later ones that reach it add this boundary as
// in the serial reduction. The first unsettled 2-saddle always settles; the few left when
// the rounds stop paying are reduced serially. The pairs and the stored boundaries are
// the serial expansion's.
#pragma once

#include "base/Timer.h"
#include "core/common/TriangulationTraits.h"
#include "core/discrete_gradient/SimplicialGradient.h"
#include "core/morse_smale_complex/LocalIndex.h"
#include "core/morse_smale_complex/SimplicialMorseSmaleComplex.h"
#include "core/persistence_diagram/DiscreteMorseSandwich.h"
#include "triangulation/EdgeTriangle.h"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

namespace topogpu::persistence_diagram {

namespace detail {

// An edge's filtration key: its vertices' ranks, the larger first (unique per edge).
struct EdgeKey {
  SimplexId high = 0, low = 0;
  bool operator<(const EdgeKey& o) const {
    return high != o.high ? high < o.high : low < o.low;
  }
  bool operator==(const EdgeKey& o) const { return high == o.high && low == o.low; }
};

// An edge with its key: chains, kept chains and stored boundaries carry the key so that
// no step looks an edge's vertices up again.
struct KeyedEdge {
  EdgeKey key;
  SimplexId edge = -1;
  bool operator<(const KeyedEdge& o) const { return key < o.key; }
};

// A chain of edges over Z/2, as a max-heap by filtration key that keeps one entry per
// toggle: an edge's parity is the parity of its copies, which sit together at the top
// when it is the youngest, so toggling costs one push and no lookup.
class EdgeChain {
public:
  void toggle(const KeyedEdge& e) {
    heap_.push_back(e);
    std::push_heap(heap_.begin(), heap_.end());
  }
  // The youngest edge of the chain, -1 when it is empty. Its copies, at the top, cancel
  // in pairs until one is left: a second copy of the root's key would be the heap's
  // second largest entry, one of the root's children.
  SimplexId youngest() {
    while (!heap_.empty()) {
      const EdgeKey& top = heap_.front().key;
      const bool copy = (heap_.size() > 1 && heap_[1].key == top) ||
                        (heap_.size() > 2 && heap_[2].key == top);
      if (!copy)
        return heap_.front().edge;
      for (int k = 0; k < 2; ++k) {
        std::pop_heap(heap_.begin(), heap_.end());
        heap_.pop_back();
      }
    }
    return -1;
  }
  // Toggles the youngest edge out (youngest() must have returned it).
  void popYoungest() {
    std::pop_heap(heap_.begin(), heap_.end());
    heap_.pop_back();
  }
  // Empties the chain, appending its edges (those of odd parity) to kept when given.
  void drain(std::vector<KeyedEdge>* kept) {
    if (kept) {
      std::sort(heap_.begin(), heap_.end());
      for (std::size_t i = 0; i < heap_.size();) {
        std::size_t end = i;
        while (end < heap_.size() && heap_[end].key == heap_[i].key)
          ++end;
        if ((end - i) % 2 == 1)
          kept->push_back(heap_[i]);
        i = end;
      }
    }
    heap_.clear();
  }

private:
  std::vector<KeyedEdge> heap_;
};

} // namespace detail

// How the 2-saddles are scheduled: batches bound the chains kept between rounds; the
// rounds stop when fewer than serialBelow 2-saddles of a batch are left unsettled, or
// when a round settles fewer than a 1/serialBelowShare of them.
struct ExpansionSchedule {
  std::size_t batch = std::size_t(1) << 20;
  std::size_t serialBelow = 32;
  std::size_t serialBelowShare = 4096;
};

// saddles2: the critical triangles by filtration position; saddle1Position: the position
// of each critical edge, in the gradient's ascending list; edgePairStencils: on a grid,
// g's (GridEdgePairStencils.h), else unused. Appends the type-1 pairs to
// result and marks their cells paired.
template <typename Triangulation>
void expandSaddleBoundaries(const Triangulation& tri,
                            const discrete_gradient::simplicial::Output& g,
                            const std::vector<std::uint8_t>& edgePairStencils,
                            const SimplexId* rank, const std::vector<SimplexId>& saddles2,
                            const std::vector<SimplexId>& saddle1Position,
                            const Monitor& monitor, SandwichResult& result,
                            const ExpansionSchedule& schedule = {}) {
  namespace sg = discrete_gradient::simplicial;
  const std::vector<SimplexId>& criticalEdges = g.criticalCells[1];
  // Edge k of a triangle (getTriangleEdge's order) with its key.
  auto triangleEdge = [&](const EdgeTriangle& t, int k) {
    const SimplexId a = rank[t.vertices[k == 2 ? 1 : 0]],
                    b = rank[t.vertices[k == 0 ? 1 : 2]];
    return detail::KeyedEdge{a > b ? detail::EdgeKey{a, b} : detail::EdgeKey{b, a},
                             t.edges[k]};
  };
  // Per 1-saddle position: the settled 2-saddle owning it; per 2-saddle: its boundary.
  std::vector<SimplexId> owner(criticalEdges.size(), -1);
  std::vector<std::vector<detail::KeyedEdge>> stored(saddles2.size());
  // The position of the 1-saddle where 2-saddle j's chain stopped.
  auto pivotOf = [&](std::size_t j, SimplexId tau) {
    const auto it = std::lower_bound(criticalEdges.begin(), criticalEdges.end(), tau);
    if (it == criticalEdges.end() || *it != tau)
      throw Error("internal error: the boundary expansion of 2-saddle " +
                  std::to_string(saddles2[j]) + " stopped at edge " +
                  std::to_string(tau) + ", which is not a 1-saddle");
    const SimplexId p = saddle1Position[std::size_t(it - criticalEdges.begin())];
    if (owner[std::size_t(p)] < 0 && result.paired[1][std::size_t(p)])
      throw Error("internal error: the boundary expansion of 2-saddle " +
                  std::to_string(saddles2[j]) + " reached 1-saddle " +
                  std::to_string(tau) + ", paired with a minimum");
    return p;
  };
  // Triangle f with its vertices and edges read through the relations; face is the
  // index of edge e in it (-1: none).
  auto triangleAt = [&](SimplexId f, SimplexId e) {
    EdgeTriangle t;
    t.triangle = f;
    for (int k = 0; k < 3; ++k) {
      t.vertices[k] = tri.getTriangleVertex(f, k);
      t.edges[k] = tri.getTriangleEdge(f, k);
      if (t.edges[k] == e)
        t.face = k;
    }
    return t;
  };
  // Whether edge tau is paired with a triangle, written to t (the V-path step's
  // triangle). A grid reads tau's stencil byte and builds only that triangle; other
  // backends ask the gradient (getPairedCell).
  constexpr bool grid = isGridTriangulation<Triangulation>;
  if (grid && edgePairStencils.size() != std::size_t(g.simplexCounts[1]))
    throw Error("internal error: the boundary expansion of a grid needs the gradient's "
                "edge pair stencils");
  const std::uint8_t* edgeBytes = grid ? edgePairStencils.data() : g.gradient[1].data();
  auto pairedTriangle = [&](SimplexId tau, EdgeTriangle& t) {
    if constexpr (grid) {
      const std::uint8_t k = edgeBytes[tau];
      if (k >= grid::kMaxEdgeTriangleStencils)
        return false;
      if (!tri.getEdgeStencilTriangle(tau, k, t))
        throw Error("internal error: edge " + std::to_string(tau) +
                    " is paired with a triangle the grid does not have");
      return true;
    } else {
      const SimplexId f = sg::getPairedCell(tri, g, 1, tau, false);
      if (f < 0)
        return false;
      t = triangleAt(f, tau);
      return true;
    }
  };
  // Expands 2-saddle j's chain, adding settled boundaries, until its youngest edge is a
  // 1-saddle no settled 2-saddle owns (its position) or the chain vanishes (-1: an
  // essential 2-cycle). Reads owner and stored only.
  tbb::enumerable_thread_specific<SimplexId> toggles(0); // per thread: no shared line
  auto reduce = [&](detail::EdgeChain& chain, std::size_t j) -> SimplexId {
    SimplexId count = 0, p = -1;
    for (SimplexId tau = chain.youngest(); tau >= 0; tau = chain.youngest()) {
      EdgeTriangle t;
      if (pairedTriangle(tau, t)) { // tau leaves, the triangle's other edges toggle
        chain.popYoungest();
        for (int k = 0; k < 3; ++k)
          if (k != t.face) {
            // the edge's byte is read when it is the youngest: start the load now
            __builtin_prefetch(edgeBytes + t.edges[k]);
            chain.toggle(triangleEdge(t, k));
          }
        count += 2;
        continue;
      }
      const SimplexId at = pivotOf(j, tau);
      const SimplexId o = owner[std::size_t(at)];
      if (o < 0) {
        p = at;
        break;
      }
      for (const detail::KeyedEdge& e : stored[std::size_t(o)])
        chain.toggle(e);
      count += SimplexId(stored[std::size_t(o)].size());
    }
    toggles.local() += count;
    return p;
  };
  auto settle = [&](std::size_t j, SimplexId p,
                    std::vector<detail::KeyedEdge>& boundary) {
    owner[std::size_t(p)] = SimplexId(j);
    stored[j].swap(boundary);
    result.pairs.push_back({1, p, SimplexId(j)});
    result.paired[1][std::size_t(p)] = 1;
    result.paired[2][j] = 1;
  };
  std::vector<SimplexId> left; // the 2-saddles not cleared
  for (std::size_t j = 0; j < saddles2.size(); ++j)
    if (!result.paired[2][j])
      left.push_back(SimplexId(j));
  // Per 2-saddle of the batch: its chain between rounds (first the triangle's edges) and
  // where it stopped.
  std::vector<std::vector<detail::KeyedEdge>> kept;
  // Resumes the i-th 2-saddle of the batch from its kept chain, keeps the chain where it
  // stopped and returns that (reduce's answer).
  auto resume = [&](detail::EdgeChain& chain, std::size_t begin, std::size_t i) {
    for (const detail::KeyedEdge& e : kept[i])
      chain.toggle(e);
    kept[i].clear();
    const SimplexId p = reduce(chain, std::size_t(left[begin + i]));
    chain.drain(&kept[i]);
    return p;
  };
  tbb::enumerable_thread_specific<detail::EdgeChain> chains;
  detail::EdgeChain chain;
  std::vector<SimplexId> stopped;
  // Offsets in the batch, in filtration order.
  std::vector<std::size_t> active, next, work;
  const std::size_t batch = std::max<std::size_t>(1, schedule.batch);
  ExpansionStats& stats = result.expansion;
  stats = ExpansionStats();
  Timer timer;
  for (std::size_t begin = 0; begin < left.size(); begin += batch) {
    const std::size_t end = std::min(left.size(), begin + batch);
    kept.resize(end - begin);
    stopped.assign(end - begin, -1);
    active.resize(end - begin);
    tbb::parallel_for(std::size_t(0), active.size(), [&](std::size_t i) {
      active[i] = i;
      const EdgeTriangle t = triangleAt(saddles2[std::size_t(left[begin + i])], -1);
      kept[i] = {triangleEdge(t, 0), triangleEdge(t, 1), triangleEdge(t, 2)};
    });
    bool first = true;
    while (!active.empty()) {
      monitor.checkAbort();
      if (!first && active.size() < schedule.serialBelow)
        break;
      // Only the 2-saddles whose edge a settled 2-saddle owns now have work to do.
      work.clear();
      for (const std::size_t i : active)
        if (first || owner[std::size_t(stopped[i])] >= 0)
          work.push_back(i);
      tbb::parallel_for(std::size_t(0), work.size(), [&](std::size_t a) {
        stopped[work[a]] = resume(chains.local(), begin, work[a]);
      });
      first = false;
      ++stats.rounds;
      // The scan: youngest is the youngest edge an earlier unsettled 2-saddle stopped at.
      next.clear();
      SimplexId youngest = -1;
      for (const std::size_t i : active) {
        const SimplexId p = stopped[i];
        if (p < 0) // a boundary that vanished: an essential 2-cycle
          continue;
        if (owner[std::size_t(p)] < 0 && p > youngest) {
          settle(std::size_t(left[begin + i]), p, kept[i]);
          ++stats.settledInRounds;
          continue;
        }
        youngest = std::max(youngest, p);
        next.push_back(i);
      }
      const std::size_t settled = active.size() - next.size();
      active.swap(next);
      if (settled * std::max<std::size_t>(1, schedule.serialBelowShare) < active.size())
        break;
    }
    stats.roundsSeconds += timer.seconds();
    timer.reset();
    // The rest in filtration order: every earlier 2-saddle is settled or comes first.
    stats.serialSaddles += SimplexId(active.size());
    for (const std::size_t i : active) {
      if ((i & 1023) == 0)
        monitor.checkAbort();
      const SimplexId p = resume(chain, begin, i);
      if (p >= 0)
        settle(std::size_t(left[begin + i]), p, kept[i]);
    }
    stats.serialSeconds += timer.seconds();
    timer.reset();
  }
  stats.toggles = toggles.combine([](SimplexId a, SimplexId b) { return a + b; });
}

} // namespace topogpu::persistence_diagram
