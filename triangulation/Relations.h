// The relations an algorithm can ask a triangulation to prepare (TTK's precondition
// calls, as one bit set so a backend sees the whole request at once: GALE batches it),
// and the debug-build check that an accessor's relation was asked for (TTK's
// non-KAMIKAZE checks).
#pragma once

#include "base/Types.h"

#include <cstdint>
#include <string>

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
  // The cells around a vertex, whatever the dimension (TTK's preconditionVertexStars):
  // VT in 3D, VF in 2D. Link-based algorithms ask for this rather than for both.
  VertexStar = 1u << 17,
  AllRelations = (1u << 18) - 1,
};
using Relations = std::uint32_t;

// A request with the vertex star spelled out: VertexStar and VT (3D) or VF (2D) name the
// same relation, so either grants the other.
constexpr Relations expandRelations(Relations r, int dimension) {
  const Relations star = dimension == 3 ? Relations(VT) : Relations(VF);
  if (r & (VertexStar | star))
    r |= VertexStar | star;
  return r;
}

// Called by the debug-build checks below; throws so the message reaches the user (and
// tests can see it) instead of an out-of-bounds read.
[[noreturn]] inline void failPrecondition(const char* accessor, const std::string& what) {
  throw Error(std::string("triangulation misuse in ") + accessor + ": " + what);
}

} // namespace topogpu

// Debug builds (no NDEBUG, the sanitizer build included) check, in every relation
// accessor of both backends, that the relation was preconditioned and that the ids are
// in range; Release builds compile the checks away.
#ifdef NDEBUG
#define TOPOGPU_REQUIRE_RELATION(prepared, relation) ((void)0)
#define TOPOGPU_REQUIRE_INDEX(id, count, what) ((void)0)
#else
#define TOPOGPU_REQUIRE_RELATION(prepared, relation)                                     \
  (((prepared) & (relation))                                                             \
       ? (void)0                                                                         \
       : ::topogpu::failPrecondition(__func__, "relation " #relation                     \
                                               " was not preconditioned (call "          \
                                               "precondition(" #relation ") first)"))
#define TOPOGPU_REQUIRE_INDEX(id, count, what)                                           \
  ((id) >= 0 && (id) < (count)                                                           \
       ? (void)0                                                                         \
       : ::topogpu::failPrecondition(                                                    \
             __func__, std::string(what) + " " + std::to_string(id) +                    \
                           " out of range [0, " + std::to_string(count) + ")"))
#endif
