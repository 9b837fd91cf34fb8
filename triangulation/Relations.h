// The relations an algorithm can ask a triangulation to prepare (TTK's precondition
// calls, as one bit set so a backend sees the whole request at once: GALE batches it).
#pragma once

#include <cstdint>

namespace topogpu {

enum Relation : std::uint32_t {
  VV = 1u << 0, // vertex -> adjacent vertices
  VE = 1u << 1,
  VF = 1u << 2, // vertex -> triangles
  VT = 1u << 3, // vertex -> tetrahedra
  EV = 1u << 4,
  EF = 1u << 5,
  ET = 1u << 6,
  FV = 1u << 7,
  FE = 1u << 8,
  FT = 1u << 9,
  TV = 1u << 10,
  TE = 1u << 11,
  TF = 1u << 12,
  TT = 1u << 13,
  BoundaryVertices = 1u << 14,  // isVertexOnBoundary
  BoundaryEdges = 1u << 15,     // isEdgeOnBoundary
  BoundaryTriangles = 1u << 16, // isTriangleOnBoundary
  Boundary = BoundaryVertices | BoundaryEdges | BoundaryTriangles,
  AllRelations = (1u << 17) - 1,
};
using Relations = std::uint32_t;

} // namespace topogpu
