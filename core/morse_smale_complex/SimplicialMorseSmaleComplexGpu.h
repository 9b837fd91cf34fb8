// The simplicial Morse-Smale complex of an implicit grid on the device: its gradient and
// the per-element stages that follow it, with host types only.
#pragma once

#include "base/ScalarArray.h"
#include "core/discrete_gradient/DiscreteGradientGpu.h"
#include "core/morse_smale_complex/ElderRounds.h"
#include "core/morse_smale_complex/SaddleConnections.h"

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

namespace topogpu::gpu {

// The two V-path forests of the simplicial gradient, rooted by pointer jumping:
// minimumOf[v] is the index (in the critical vertices, ascending) of the minimum v's
// descending path reaches; topRoot[c], for top cell c, the critical top cell (a maximum)
// its ascending path reaches, or -1 - f when it leaves through boundary facet f (the
// CPU's jumpToRoots over ascendingSuccessor).
struct SimplicialGridForests {
  std::vector<SimplexId> minimumOf, topRoot;
};

// The gradient as computeSimplicialGradient (order receives the vertex order), then the
// forests of its V-paths (simplicial::gridDescendingSuccessor and
// gridAscendingSuccessor, the CPU grid path's functions), on the device. Progress 0..1.
// Throws GpuError on a CUDA failure, Error on a corrupt gradient, Aborted on abort.
void computeSimplicialGridForests(
    const discrete_gradient::simplicial::GridSimplices& grid,
    const ScalarArrayView& values, const Monitor& monitor,
    SimplicialGradientArrays& gradient, std::vector<SimplexId>& order,
    SimplicialGridForests& forests, RunReport& report);

// The labels and arcs of the complex, computed on the device (simplicial::execute's
// definitions, its CPU stages' twins):
//  - minimumOf as above (DescendingManifold);
//  - cellLabel per top cell: the index in the maxima of its ascending path's end; with
//    TTK's rule (ttkRule), -1 for a path that leaves through the boundary;
//  - vertexLabel per vertex: the cellLabel of the highest top cell of its star; with
//    TTK's rule, of its first star cell in TTK's order (ttkFirstStarCell);
//  - saddle1Ends, 2 per 1-saddle (critical edges, ascending): its vertices' minima;
//  - facetSaddleEnds, 2 per (d-1)-saddle (critical facets, ascending): its top cells'
//    labels through the boundary (whatever the rule) in no particular order, -1 for the
//    missing one of a boundary facet.
struct SimplicialGridLabels {
  std::vector<SimplexId> minimumOf, saddle1Ends, facetSaddleEnds;
  std::vector<std::int32_t> cellLabel, vertexLabel;
};

// The host's part of the ascending labels (paths that leave through the boundary go on
// over the boundary facets: simplicial::detail::boundaryForest):
//  - forest(order, facets, roots): from the vertex order, the boundary facets (ascending
//    ids) and the index of each one's root in them;
//  - label(reached, rootLabel): from the roots some path reaches (reached[i] for facet
//    i), each reached root's index in the maxima (others: anything).
struct SimplicialGridBoundaryHooks {
  std::function<void(const std::vector<SimplexId>& order, std::vector<SimplexId>& facets,
                     std::vector<SimplexId>& roots)>
      forest;
  std::function<void(const std::vector<char>& reached,
                     std::vector<std::int32_t>& rootLabel)>
      label;
};

// The 1-saddle to 2-saddle connections of a 3D grid's gradient, counted on the device
// by the cubical complex's pipeline (docs/saddle-connections.md) on the simplicial DAG
// (SimplicialSaddleGraph.h): arcs as (edge id, triangle id, number of V-paths), by
// 2-saddle then 1-saddle id (simplicial::execute's order). overflow: some pair has more
// than 2^64 - 1 V-paths (arcs then empty).
struct SimplicialGridConnections {
  std::vector<saddle_connections::Arc> arcs;
  bool overflow = false;
};

// The gradient (into gradient, order) as computeSimplicialGridForests, then the forests,
// labels and arc ends on the device, downloading only the results; with connections
// (3D grids), the saddle connections too, on the gradient still on the device. Progress
// 0..1. Throws GpuError on a CUDA failure, Error on a corrupt gradient, Aborted on abort.
void computeSimplicialGridLabels(const discrete_gradient::simplicial::GridSimplices& grid,
                                 const ScalarArrayView& values, const Monitor& monitor,
                                 const SimplicialGridBoundaryHooks& hooks, bool ttkRule,
                                 SimplicialGradientArrays& gradient,
                                 std::vector<SimplexId>& order,
                                 SimplicialGridLabels& labels, RunReport& report,
                                 SimplicialGridConnections* connections = nullptr);

// What the persistence pairs read of a grid's complex (simplicial::Parameters::
// diagramOnly), computed on the device: per dimension, the critical cells in filtration
// order (indices into the ascending criticalCells, sorted by their vertices' ranks in
// decreasing order, lexicographically: persistence_diagram's order), and the extremum
// pairs, by the elder rule's rounds (ElderRounds.h) over the saddles' path ends
// (SimplicialSaddleEnds.h's definitions), which stay on the device:
//  - minimumKills, per 1-saddle by filtration position: the position of the minimum it
//    kills, or -1;
//  - maximumKills, per (d-1)-saddle from the last position down (entry k: position
//    n - 1 - k): the node of the maxima's sweep it kills (node 0 "outside", which never
//    dies; the maximum at position q is node maxima - q), or -1.
struct SimplicialGridSaddleEnds {
  std::array<std::vector<SimplexId>, 4> filtrationOrder;
  std::vector<SimplexId> minimumKills, maximumKills;
  std::array<morse_smale_complex::ElderStats, 2> elder{}; // minima, maxima
};

// The gradient as computeSimplicialGridForests (criticalCells and criticalVertices; no
// bytes, but in 3D the edges' pair stencils, what the saddle boundary expansion reads:
// GridEdgePairStencils.h) and the vertex order, then the forests, the saddles' path ends
// and the filtration order; with connections (3D), the saddle connections too. With
// gradientBytes, the gradient's bytes come down instead of the stencils (for the host's
// saddle connections). No boundary forest: an ascending path that leaves is "outside"
// whichever boundary maximum it would reach. Progress 0..1. Throws GpuError on a CUDA
// failure, Error on a corrupt gradient, Aborted on abort.
void computeSimplicialGridSaddleEnds(
    const discrete_gradient::simplicial::GridSimplices& grid,
    const ScalarArrayView& values, const Monitor& monitor,
    SimplicialGradientArrays& gradient, std::vector<SimplexId>& order,
    SimplicialGridSaddleEnds& ends, RunReport& report,
    SimplicialGridConnections* connections = nullptr, bool gradientBytes = false);

} // namespace topogpu::gpu
