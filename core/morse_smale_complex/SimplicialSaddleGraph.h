// The DAG of the 1-saddle to 2-saddle V-paths of the simplicial gradient on the implicit
// grid's Freudenthal triangulation (host + device): the simplicial twin of
// SaddleConnectionsGraph.h's cubical graph, for the same device pipeline
// (docs/saddle-connections.md). Edges and triangles have overlapping ids, so the nodes
// are numbered in one range: edge e is node e (a 1-saddle, or an edge paired with a
// triangle), critical triangle t (a 2-saddle) is node edges + t. Directed upward from the
// 1-saddles: an edge's successors are its cofacet triangles other than its own partner,
// each replaced by the edge it is paired with (the face its byte names), kept as itself
// when critical, dropped when paired with a tetrahedron. Read downward, every path is a
// step sequence of simplicial::detail::wallConnections (triangle, a face edge other than
// its own, that edge's triangle, ...), so the counts are the CPU's. An edge of the
// Freudenthal triangulation lies in at most 6 triangles.
#pragma once

#include "core/discrete_gradient/GridSimplices.h"
#include "core/discrete_gradient/SimplicialGradientCodes.h"

#include <cstdint>

namespace topogpu::saddle_connections::graph {

struct SimplicialGridGraph {
  static constexpr int kMaxOutDegree = 6;
  discrete_gradient::simplicial::GridSimplices grid;
  const std::uint8_t* edgeBytes;     // the gradient's byte per edge
  const std::uint8_t* triangleBytes; // and per triangle

  TOPOGPU_HD SimplexId edges() const {
    return discrete_gradient::simplicial::simplexCount(grid, 1);
  }
  // Marks (reachability, junctions) are kept for the nodes below this: the edges.
  TOPOGPU_HD SimplexId markedNodes() const { return edges(); }
  TOPOGPU_HD bool isCritical(SimplexId node) const {
    return node >= edges() || edgeBytes[node] == discrete_gradient::simplicial::kCritical;
  }
  // The simplex id of a node (a triangle's for a 2-saddle).
  TOPOGPU_HD SimplexId cellId(SimplexId node) const {
    return node >= edges() ? node - edges() : node;
  }

  // Successors of edge node e into out[0..5]; returns how many.
  TOPOGPU_HD int successors(SimplexId e, SimplexId out[kMaxOutDegree]) const {
    SimplexId base[3];
    int chain[4];
    discrete_gradient::simplicial::gridSimplexChain(grid, 1, e, base, chain);
    const int m = chain[1], span = grid::cellSpanMask(grid.dims.dimension);
    int count = 0;
    for (int x = 1; x <= span; ++x) {
      if ((x & span) != x)
        continue;
      if ((x & m) == 0) {
        // e = (v0, v1) of the triangle (base; m, m | x): its face 0 (the one without v2)
        count += successor(base, m, m | x, 0, out + count);
        // e = (v1, v2) of the triangle (base - x; x, x | m): its face 2 (without v0)
        SimplexId below[3];
        for (int a = 0; a < 3; ++a)
          below[a] = base[a] - ((x >> a) & 1);
        count += successor(below, x, x | m, 2, out + count);
      } else if ((x & m) == x && x != m) {
        // e = (v0, v2) of the triangle (base; x, m): its face 1 (without v1)
        count += successor(base, x, m, 1, out + count);
      }
    }
    return count;
  }

private:
  // The successor through triangle (b; s1, s2), of which e is face `face`: 1 when it
  // exists (written to *out), else 0.
  TOPOGPU_HD int successor(const SimplexId b[3], int s1, int s2, int face,
                           SimplexId* out) const {
    namespace sg = discrete_gradient::simplicial;
    if (!grid::anchorValid(grid.dims, b, s2))
      return 0;
    const int masks[2] = {s1, s2};
    const SimplexId t = sg::gridSimplexId(grid, 2, b, masks);
    if (t < 0)
      return 0;
    const std::uint8_t code = triangleBytes[t];
    if (code == sg::kCritical) {
      *out = edges() + t;
      return 1;
    }
    if (code > 2 || code == face)
      return 0; // paired with a tetrahedron (the V-path ends), or e's own partner
    // The face of index code omits the triangle's vertex of slot 2 - code.
    SimplexId from[3] = {b[0], b[1], b[2]};
    int mask = code == 0 ? s1 : s2;
    if (code == 2) {
      for (int a = 0; a < 3; ++a)
        from[a] += (s1 >> a) & 1;
      mask = s2 ^ s1;
    }
    *out = sg::gridSimplexId(grid, 1, from, &mask);
    return 1;
  }
};

} // namespace topogpu::saddle_connections::graph
