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
#pragma once

#include "core/discrete_gradient/SimplicialGradient.h"
#include "core/morse_smale_complex/SimplicialMorseSmaleComplex.h"
#include "core/persistence_diagram/DiscreteMorseSandwich.h"

#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

namespace topogpu::persistence_diagram {

// saddles1, saddles2: the critical edges and triangles by filtration position;
// saddle1Position: the position of each critical edge, in the gradient's ascending list.
// Appends the type-1 pairs to result and marks their cells paired.
template <typename Triangulation>
void expandSaddleBoundaries(const Triangulation& tri,
                            const discrete_gradient::simplicial::Output& g,
                            const SimplexId* rank, const std::vector<SimplexId>& saddles2,
                            const std::vector<SimplexId>& saddle1Position,
                            const Monitor& monitor, SandwichResult& result) {
  namespace sg = discrete_gradient::simplicial;
  using Key = std::array<SimplexId, 4>;
  using Entry = std::pair<Key, SimplexId>; // (filtration key, edge id)
  const std::vector<SimplexId>& criticalEdges = g.criticalCells[1];
  auto positionOf = [&](SimplexId e) {
    const auto it = std::lower_bound(criticalEdges.begin(), criticalEdges.end(), e);
    return it != criticalEdges.end() && *it == e
               ? saddle1Position[std::size_t(it - criticalEdges.begin())]
               : SimplexId(-1);
  };
  // Per 1-saddle position: the 2-saddle position owning it; per 2-saddle: its boundary.
  std::vector<SimplexId> owner(criticalEdges.size(), -1);
  std::vector<std::vector<SimplexId>> stored(saddles2.size());
  // The chain: a flag per edge (membership, toggled in O(1)) and a max-heap of its edges
  // by filtration key whose entries for edges toggled out are dropped when they surface.
  std::vector<char> inChain(std::size_t(g.simplexCounts[1]), 0);
  std::vector<Entry> heap;
  SimplexId size = 0;
  auto toggle = [&](SimplexId e) {
    if (inChain[std::size_t(e)]) {
      inChain[std::size_t(e)] = 0;
      --size;
      return;
    }
    inChain[std::size_t(e)] = 1;
    ++size;
    heap.emplace_back(morse_smale_complex::simplicial::detail::keyOf(tri, 1, e, rank), e);
    std::push_heap(heap.begin(), heap.end());
  };
  auto youngest = [&]() {
    while (!inChain[std::size_t(heap.front().second)]) {
      std::pop_heap(heap.begin(), heap.end());
      heap.pop_back();
    }
    return heap.front().second;
  };
  auto toggleTriangle = [&](SimplexId t) {
    for (int k = 0; k < 3; ++k)
      toggle(tri.getTriangleEdge(t, k));
  };
  // Empties the chain, keeping its edges in `kept` when given.
  auto drain = [&](std::vector<SimplexId>* kept) {
    for (const Entry& e : heap)
      if (inChain[std::size_t(e.second)]) {
        inChain[std::size_t(e.second)] = 0;
        if (kept)
          kept->push_back(e.second);
      }
    heap.clear();
    size = 0;
  };
  for (std::size_t j = 0; j < saddles2.size(); ++j) {
    if ((j & 255) == 0)
      monitor.checkAbort();
    if (result.paired[2][j])
      continue; // clearing: paired with a maximum
    toggleTriangle(saddles2[j]);
    while (size > 0) {
      const SimplexId tau = youngest();
      const SimplexId t = sg::getPairedCell(tri, g, 1, tau, false);
      if (t >= 0) {
        toggleTriangle(t);
        continue;
      }
      const SimplexId p = positionOf(tau);
      if (p < 0)
        throw Error("internal error: the boundary expansion of 2-saddle " +
                    std::to_string(saddles2[j]) + " stopped at edge " +
                    std::to_string(tau) + ", which is not a 1-saddle");
      if (owner[std::size_t(p)] >= 0) {
        for (const SimplexId e : stored[std::size_t(owner[std::size_t(p)])])
          toggle(e);
        continue;
      }
      if (result.paired[1][std::size_t(p)])
        throw Error("internal error: the boundary expansion of 2-saddle " +
                    std::to_string(saddles2[j]) + " reached 1-saddle " +
                    std::to_string(tau) + ", paired with a minimum");
      owner[std::size_t(p)] = SimplexId(j);
      drain(&stored[j]);
      result.pairs.push_back({1, p, SimplexId(j)});
      result.paired[1][std::size_t(p)] = 1;
      result.paired[2][j] = 1;
      break;
    }
    drain(nullptr); // a 2-saddle whose boundary vanished (an essential 2-cycle)
  }
}

} // namespace topogpu::persistence_diagram
