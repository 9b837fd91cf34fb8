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
#include <set>
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
  std::vector<std::vector<Entry>> stored(saddles2.size());
  std::set<Entry> chain;
  auto toggle = [&](const Entry& e) {
    const auto it = chain.find(e);
    if (it != chain.end())
      chain.erase(it);
    else
      chain.insert(e);
  };
  auto toggleTriangle = [&](SimplexId t) {
    for (int k = 0; k < 3; ++k) {
      const SimplexId e = tri.getTriangleEdge(t, k);
      toggle({morse_smale_complex::simplicial::detail::keyOf(tri, 1, e, rank), e});
    }
  };
  for (std::size_t j = 0; j < saddles2.size(); ++j) {
    if ((j & 255) == 0)
      monitor.checkAbort();
    if (result.paired[2][j])
      continue; // clearing: paired with a maximum
    chain.clear();
    toggleTriangle(saddles2[j]);
    while (!chain.empty()) {
      const Entry tau = *chain.rbegin();
      const SimplexId t = sg::getPairedCell(tri, g, 1, tau.second, false);
      if (t >= 0) {
        toggleTriangle(t);
        continue;
      }
      const SimplexId p = positionOf(tau.second);
      if (p < 0)
        throw Error("internal error: the boundary expansion of 2-saddle " +
                    std::to_string(saddles2[j]) + " stopped at edge " +
                    std::to_string(tau.second) + ", which is not a free 1-saddle");
      if (owner[std::size_t(p)] >= 0) {
        for (const Entry& e : stored[std::size_t(owner[std::size_t(p)])])
          toggle(e);
        continue;
      }
      if (result.paired[1][std::size_t(p)])
        throw Error("internal error: the boundary expansion of 2-saddle " +
                    std::to_string(saddles2[j]) + " reached 1-saddle " +
                    std::to_string(tau.second) + ", paired with a minimum");
      owner[std::size_t(p)] = SimplexId(j);
      stored[j].assign(chain.begin(), chain.end());
      result.pairs.push_back({1, p, SimplexId(j)});
      result.paired[1][std::size_t(p)] = 1;
      result.paired[2][j] = 1;
      break;
    }
  }
}

} // namespace topogpu::persistence_diagram
