// A triangle seen from one of its edges: what a walk that crosses the triangle (a
// V-path step from an edge to its paired triangle's other edges) reads in one go.
#pragma once

#include "base/Types.h"

namespace topogpu {

struct EdgeTriangle {
  SimplexId triangle = -1;
  // The edge is the triangle's face of this index (getTriangleEdge's i), the face that
  // omits vertex 2 - face.
  int face = -1;
  SimplexId vertices[3] = {-1, -1, -1}; // getTriangleVertex's order
  SimplexId edges[3] = {-1, -1, -1};    // getTriangleEdge's order: v0v1, v0v2, v1v2
};

} // namespace topogpu
