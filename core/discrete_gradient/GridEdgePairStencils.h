// What the saddle boundary expansion reads of a 3D grid's simplicial gradient, one byte
// per edge: the stencil index (grid::edgeTriangleStencil,
// ImplicitTriangulation::getEdgeStencilTriangle) of the triangle the edge is paired
// with, kStencilCriticalEdge for a critical edge, kStencilNone otherwise. One read
// per V-path step instead of the edge's byte and its triangles' bytes, and the only
// gradient array a device run sends back for the pairs. The rule per triangle is host +
// device code: the CPU pass and the CUDA kernel run it.
#pragma once

#include "core/discrete_gradient/GridSimplices.h"
#include "core/discrete_gradient/SimplicialGradientCodes.h"

#include <cstdint>
#include <vector>

namespace topogpu::discrete_gradient::simplicial {

constexpr std::uint8_t kStencilCriticalEdge = 0xfe;
constexpr std::uint8_t kStencilNone = 0xff;

// An edge's entry before the triangles are read: critical or not.
TOPOGPU_HD std::uint8_t edgeStencilOf(std::uint8_t edgeByte) {
  return edgeByte == kCritical ? kStencilCriticalEdge : kStencilNone;
}

// What a triangle type's faces are as edges: each face's edge mask, the triangle's
// stencil index among that edge's triangles, and whether the edge is based at the
// triangle's base + S1 (face 2) rather than at its base.
struct TriangleFaceStencils {
  int mask[3];
  std::uint8_t index[3];
  int s1;
};
TOPOGPU_HD TriangleFaceStencils triangleFaceStencils(int dimension, int type) {
  const grid::TriangleType t = grid::triangleType(dimension, type);
  TriangleFaceStencils f{};
  for (int face = 0; face < 3; ++face) {
    f.mask[face] = grid::triangleFaceMask(t, face);
    f.index[face] = std::uint8_t(grid::edgeTriangleStencilIndex(dimension, type, face));
  }
  f.s1 = t.s1;
  return f;
}

// A triangle based at q (stencil coordinates) whose type's faces are f and whose
// gradient byte is `byte`: when it is paired with its face of that index, that edge's
// id, and in k the triangle's stencil index among the edge's triangles; -1 otherwise.
TOPOGPU_HD SimplexId pairedFaceStencil(const GridSimplices& g,
                                       const TriangleFaceStencils& f,
                                       const SimplexId q[3], std::uint8_t byte,
                                       std::uint8_t& k) {
  if (byte > 2)
    return -1;
  const int m = f.mask[byte];
  SimplexId p[3] = {q[0], q[1], q[2]};
  if (byte == 2)
    for (int a = 0; a < 3; ++a)
      p[a] += (f.s1 >> a) & 1;
  k = f.index[byte];
  return g.edgeOffset[m - 1] + grid::boxIndex(g.dims, p, m);
}

// The whole array from the gradient's edge and triangle bytes, on all cores.
void gridEdgePairStencils(const GridSimplices& g, const std::uint8_t* edgeBytes,
                          const std::uint8_t* triangleBytes,
                          std::vector<std::uint8_t>& out);

} // namespace topogpu::discrete_gradient::simplicial
