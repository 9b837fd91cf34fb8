// The ends of the saddles' V-paths, what the persistence pairs read of a Morse-Smale
// complex (simplicial::Parameters::diagramOnly), on the CPU; the implicit grid's device
// twin is gpu::computeSimplicialGridSaddleEnds (SimplicialMorseSmaleComplexGpu.h):
//  - per 1-saddle (critical edge, ascending ids), the minima its two vertices' descending
//    paths reach, as indices in the critical vertices (ascending);
//  - per (d-1)-saddle (critical facet, ascending ids), the maxima its cofaces' ascending
//    paths reach, as indices in the critical top cells (ascending), -1 for a path that
//    leaves through the boundary and for a boundary facet's missing coface (the pairs
//    read both as "outside": TTK's rule).
// Only the saddles' paths are walked (PointerJumping.h's walkToRoots): the labels of the
// other cells, the boundary forest and the boundary maxima are not needed.
#pragma once

#include "core/discrete_gradient/PointerJumping.h"
#include "core/discrete_gradient/SimplicialGradient.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <vector>

namespace topogpu::morse_smale_complex::simplicial {

namespace detail {

// The index of id in the ascending ids (it is there).
inline SimplexId indexInSorted(const std::vector<SimplexId>& ids, SimplexId id) {
  return SimplexId(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin());
}

// The ascending forest walked from the (d-1)-saddles' cofaces only: next[c] for those
// cells' paths holds their root (a critical top cell) or -1 - exit facet; every other
// cell keeps kUnwalked.
template <typename Triangulation>
void saddleCofaceRoots(const Triangulation& tri,
                       const discrete_gradient::simplicial::Output& g,
                       std::vector<SimplexId>& next, const Monitor& monitor) {
  namespace sg = discrete_gradient::simplicial;
  const int top = g.dimension;
  const std::vector<SimplexId>& saddles = g.criticalCells[std::size_t(top - 1)];
  std::vector<SimplexId> starts(2 * saddles.size(), -1);
  tbb::parallel_for(std::size_t(0), saddles.size(), [&](std::size_t i) {
    const int n = sg::getFacetStarNumber(tri, top, saddles[i]);
    for (int k = 0; k < n && k < 2; ++k)
      starts[2 * i + std::size_t(k)] = sg::getFacetStar(tri, top, saddles[i], k);
  });
  starts.erase(std::remove(starts.begin(), starts.end(), SimplexId(-1)), starts.end());
  next.resize(std::size_t(g.simplexCounts[std::size_t(top)]));
  tbb::parallel_for(std::size_t(0), next.size(),
                    [&](std::size_t c) { next[c] = discrete_gradient::kUnwalked; });
  discrete_gradient::walkToRoots(
      next, starts, [&](SimplexId c) { return sg::ascendingSuccessor(tri, g, c); },
      monitor);
}

} // namespace detail

// saddle1Ends (2 per 1-saddle) and saddleMaximumEnds (2 per (d-1)-saddle) as above.
template <typename Triangulation>
void saddleEnds(const Triangulation& tri, const discrete_gradient::simplicial::Output& g,
                const Monitor& monitor, std::vector<SimplexId>& saddle1Ends,
                std::vector<SimplexId>& saddleMaximumEnds) {
  namespace sg = discrete_gradient::simplicial;
  const int top = g.dimension;
  const std::vector<SimplexId>& saddles1 = g.criticalCells[1];
  const std::vector<SimplexId>& minima = g.criticalCells[0];
  std::vector<SimplexId> next(std::size_t(g.simplexCounts[0]),
                              discrete_gradient::kUnwalked);
  std::vector<SimplexId> starts(2 * saddles1.size());
  tbb::parallel_for(std::size_t(0), saddles1.size(), [&](std::size_t i) {
    for (int k = 0; k < 2; ++k)
      starts[2 * i + std::size_t(k)] = tri.getEdgeVertex(saddles1[i], k);
  });
  discrete_gradient::walkToRoots(
      next, starts, [&](SimplexId v) { return sg::descendingSuccessor(tri, g, v); },
      monitor);
  saddle1Ends.resize(starts.size());
  tbb::parallel_for(std::size_t(0), starts.size(), [&](std::size_t i) {
    saddle1Ends[i] = detail::indexInSorted(minima, next[std::size_t(starts[i])]);
  });
  monitor.checkAbort();

  detail::saddleCofaceRoots(tri, g, next, monitor);
  const std::vector<SimplexId>& saddles = g.criticalCells[std::size_t(top - 1)];
  const std::vector<SimplexId>& maxima = g.criticalCells[std::size_t(top)];
  saddleMaximumEnds.assign(2 * saddles.size(), -1);
  tbb::parallel_for(std::size_t(0), saddles.size(), [&](std::size_t i) {
    const int n = sg::getFacetStarNumber(tri, top, saddles[i]);
    for (int k = 0; k < n && k < 2; ++k) {
      const SimplexId root = next[std::size_t(sg::getFacetStar(tri, top, saddles[i], k))];
      if (root >= 0)
        saddleMaximumEnds[2 * i + std::size_t(k)] = detail::indexInSorted(maxima, root);
    }
  });
}

} // namespace topogpu::morse_smale_complex::simplicial
