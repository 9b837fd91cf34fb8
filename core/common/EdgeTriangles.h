// The triangle of an edge that a test accepts, with the edge's place in it and the
// triangle's vertices and edges (EdgeTriangle), read through any backend's EF, FE and FV
// relations; only the accepted triangle's vertices and edges are looked up. (The
// implicit grid names an edge's triangles by stencil index instead:
// ImplicitTriangulation::getEdgeStencilTriangle.)
#pragma once

#include "core/common/TriangulationTraits.h"
#include "triangulation/EdgeTriangle.h"

namespace topogpu {

// accept(triangle, face) is called for each triangle of edge e, e being its face of
// that index, until it returns true; that triangle is written to found. False when none
// is accepted.
template <typename Triangulation, typename Accept>
bool findEdgeTriangle(const Triangulation& tri, SimplexId e, Accept&& accept,
                      EdgeTriangle& found) {
  const int n = tri.getEdgeTriangleNumber(e);
  for (int i = 0; i < n; ++i) {
    const SimplexId t = tri.getEdgeTriangle(e, i);
    int face = 0;
    while (face < 3 && tri.getTriangleEdge(t, face) != e)
      ++face;
    if (face == 3 || !accept(t, face))
      continue;
    found.triangle = t;
    found.face = face;
    for (int k = 0; k < 3; ++k) {
      found.vertices[k] = tri.getTriangleVertex(t, k);
      found.edges[k] = tri.getTriangleEdge(t, k);
    }
    return true;
  }
  return false;
}

} // namespace topogpu
