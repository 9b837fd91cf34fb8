// TTK 1.2's first star cell of a grid vertex (ImplicitTriangulation::getVertexStar(v,
// 0)), host + device: its ascending segmentation gives each vertex the label of that
// cell, so the CPU path and the kernel read the same cell.
//
// TTK picks the cell by where the vertex lies (getVertexStarABCDEFGH, getVertexStarABDC,
// ..., getVertexStarA): the first tet of the first voxel in which the vertex plays the
// role b, else g, else h, d, f, c, e, a (corners of voxel (i, j, k): a = (i, j, k),
// b = (i+1, j, k), c = (i, j+1, k), d = (i+1, j+1, k), e..h the same at k+1), the voxel's
// tets being ABCG, BCDG, ABEG, BEFG, BFGH, BDGH in that order; in 2D the first triangle
// of the square in which it is b, else c, a, d (triangles ABC, BCD). In stencil
// coordinates (GridStencil.h) a voxel's base is its b and the role is the corner's mask;
// TTK's tets are the chains of types 0 (ABCG), 2 (BCDG), 1 (ABEG), 4 (BEFG), 5 (BFGH),
// 3 (BDGH), its triangles types 0 (ABC) and 1 (BCD).
#pragma once

#include "core/discrete_gradient/GridSimplices.h"

namespace topogpu::morse_smale_complex::simplicial {

TOPOGPU_HD SimplexId
ttkFirstStarCell(const discrete_gradient::simplicial::GridSimplices& g, SimplexId v) {
  const grid::Dims& d = g.dims;
  const bool is3D = d.dimension == 3;
  // Per role in TTK's order: the corner's mask, then the type of its voxel's first cell
  // holding it (3 bits each). 3D: b g h d f c e a; 2D: b c a d.
  const std::uint64_t roles = is3D ? 0x35c5b8ull : 0x458ull;
  const std::uint64_t types = is3D ? 0x44540ull : 0x200ull;
  const int count = is3D ? 8 : 4, span = grid::cellSpanMask(d.dimension);
  SimplexId c[3];
  grid::vertexCoords(d, v, c);
  for (int k = 0; k < count; ++k) {
    const int mask = grid::packedEntry(roles, k);
    SimplexId base[3];
    for (int a = 0; a < 3; ++a)
      base[a] = c[a] - ((mask >> a) & 1);
    if (!grid::anchorValid(d, base, span))
      continue;
    const int type = grid::packedEntry(types, k);
    return (is3D ? g.tetOffset[type] : g.triangleOffset[type]) +
           grid::boxIndex(d, base, span);
  }
  return -1;
}

} // namespace topogpu::morse_smale_complex::simplicial
