// The triangle of an edge that a test accepts, with the edge's place in it and the
// triangle's vertices and edges (EdgeTriangle): the implicit grid answers from its
// stencils after one decode; other backends are read through their EF, FE and FV
// relations, and only the accepted triangle's vertices and edges are looked up.
#pragma once

#include "core/common/TriangulationTraits.h"
#include "triangulation/EdgeTriangle.h"

namespace topogpu {

template <typename T, typename = void> struct HasEdgeTriangleFaces : std::false_type {};
template <typename T>
struct HasEdgeTriangleFaces<
    T, std::void_t<decltype(std::declval<const T&>().getEdgeTriangleFaces(
           0, static_cast<EdgeTriangle*>(nullptr)))>> : std::true_type {};

// accept(triangle, face) is called for each triangle of edge e, e being its face of
// that index, until it returns true; that triangle is written to found. False when none
// is accepted.
template <typename Triangulation, typename Accept>
bool findEdgeTriangle(const Triangulation& tri, SimplexId e, Accept&& accept,
                      EdgeTriangle& found) {
  if constexpr (HasEdgeTriangleFaces<Triangulation>::value) {
    EdgeTriangle list[Triangulation::kMaxStencilEdgeTriangles];
    const int n = tri.getEdgeTriangleFaces(e, list);
    for (int i = 0; i < n; ++i)
      if (accept(list[i].triangle, list[i].face)) {
        found = list[i];
        return true;
      }
    return false;
  } else {
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
}

} // namespace topogpu
