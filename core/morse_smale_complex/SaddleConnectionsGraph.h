// The DAG of the 1-saddle to 2-saddle V-paths on the cubical complex, read straight from
// the gradient bytes (host + device; nothing is materialised). Its nodes are edges (a
// 1-saddle, or an edge paired with a quad) and critical quads (2-saddles); it is directed
// upward, from the 1-saddles: an edge's successors are its cofacet quads other than its
// own partner, each replaced by the edge it is paired with (an (edge, quad) gradient
// pair), kept as itself when critical, dropped when paired with a voxel. Read downward,
// every path is a V-path from a 2-saddle to a 1-saddle. Out-degree <= 4 (3 for a paired
// edge), as in section 3.2 of the paper.
#pragma once

#include "core/discrete_gradient/CubicalGrid.h"

#include <cstdint>

namespace topogpu::saddle_connections::graph {

constexpr int kMaxOutDegree = 4;

// Successors of edge node `edge` (refined id) into out[0..3]; returns how many. A
// successor s is a 2-saddle when gradient[s] == cubical::kCritical, else an edge.
TOPOGPU_HD int successors(const cubical::Grid& g, const std::uint8_t* gradient,
                          SimplexId edge, SimplexId out[kMaxOutDegree]) {
  SimplexId c[3];
  cubical::cellCoords(g, edge, c);
  const int spanned = cubical::cellAxes(c);
  const std::uint8_t own = gradient[edge];
  int count = 0;
  for (int b = 0; b < 3; ++b) {
    if (spanned >> b & 1)
      continue;
    for (int sign = -1; sign <= 1; sign += 2) {
      const SimplexId at = c[b] + sign;
      if (at < 0 || at >= cubical::refinedSize(g, b))
        continue;
      if (own == cubical::pairCode(b, sign))
        continue; // the edge's own partner: the path would turn back
      SimplexId q[3] = {c[0], c[1], c[2]};
      q[b] = at;
      const SimplexId quad = cubical::cellAt(g, q);
      const std::uint8_t code = gradient[quad];
      if (code == cubical::kCritical) {
        out[count++] = quad;
        continue;
      }
      if (code >= cubical::kCritical)
        continue; // unassigned: never in a complete gradient
      const int axis = cubical::codeAxis(code);
      if (!(q[axis] & 1))
        continue; // paired with a voxel: the V-path ends
      q[axis] += cubical::codeSign(code);
      out[count++] = cubical::cellAt(g, q);
    }
  }
  return count;
}

// The cubical graph as the device pipeline reads it (SaddleConnectionsDevice.cuh; the
// simplicial one is SimplicialSaddleGraph.h): refined ids are unique across dimensions,
// so a node is its cell's id, and a 2-saddle is a node whose byte is critical.
struct CubicalGridGraph {
  static constexpr int kMaxOutDegree = graph::kMaxOutDegree;
  cubical::Grid grid;
  const std::uint8_t* gradient;

  TOPOGPU_HD SimplexId markedNodes() const { return cubical::cellCount(grid); }
  TOPOGPU_HD bool isCritical(SimplexId node) const {
    return gradient[node] == cubical::kCritical;
  }
  TOPOGPU_HD SimplexId cellId(SimplexId node) const { return node; }
  TOPOGPU_HD int successors(SimplexId edge, SimplexId out[kMaxOutDegree]) const {
    return graph::successors(grid, gradient, edge, out);
  }
};

} // namespace topogpu::saddle_connections::graph
