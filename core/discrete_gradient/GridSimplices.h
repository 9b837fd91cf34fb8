// The simplex ids of the implicit grid's Freudenthal triangulation as
// ImplicitTriangulation numbers them (per dimension: the types in GridStencil.h's order,
// each a box of base vertices, x fastest), as host + device functions, so the CUDA
// kernels and the CPU grid path of the simplicial discrete gradient and Morse-Smale
// complex address the same bytes as the generic path over ImplicitTriangulation.
#pragma once

#include "base/GridStencil.h"

namespace topogpu::discrete_gradient::simplicial {

struct GridSimplices {
  grid::Dims dims;
  // First id of each type, per dimension (edges: type = mask - 1).
  SimplexId edgeOffset[grid::kMaxEdgeTypes + 1];
  SimplexId triangleOffset[grid::kMaxTriangleTypes + 1];
  SimplexId tetOffset[grid::kTetTypes + 1];
};

TOPOGPU_HD GridSimplices gridSimplicesOf(const grid::Dims& d) {
  GridSimplices g{};
  g.dims = d;
  const int edges = grid::edgeTypeCount(d.dimension),
            triangles = grid::triangleTypeCount(d.dimension),
            tets = grid::tetTypeCount(d.dimension);
  for (int t = 0; t < grid::kMaxEdgeTypes; ++t)
    g.edgeOffset[t + 1] =
        g.edgeOffset[t] + (t < edges ? grid::boxCellCount(d, t + 1) : 0);
  for (int t = 0; t < grid::kMaxTriangleTypes; ++t)
    g.triangleOffset[t + 1] =
        g.triangleOffset[t] +
        (t < triangles ? grid::boxCellCount(d, grid::triangleType(d.dimension, t).s2)
                       : 0);
  for (int t = 0; t < grid::kTetTypes; ++t)
    g.tetOffset[t + 1] = g.tetOffset[t] + (t < tets ? grid::boxCellCount(d, 7) : 0);
  return g;
}

TOPOGPU_HD SimplexId simplexCount(const GridSimplices& g, int dimension) {
  return dimension == 0   ? grid::vertexCount(g.dims)
         : dimension == 1 ? g.edgeOffset[grid::kMaxEdgeTypes]
         : dimension == 2 ? g.triangleOffset[grid::kMaxTriangleTypes]
                          : g.tetOffset[grid::kTetTypes];
}

// The id of the simplex with base vertex `base` (stencil coordinates) and chain masks
// m[0] < m[1] < ... (dimension of them, the last the span): -1 when no type has that
// chain.
TOPOGPU_HD SimplexId gridSimplexId(const GridSimplices& g, int dimension,
                                   const SimplexId base[3], const int* m) {
  if (dimension == 0)
    return grid::vertexAt(g.dims, base);
  if (dimension == 1)
    return g.edgeOffset[m[0] - 1] + grid::boxIndex(g.dims, base, m[0]);
  if (dimension == 2) {
    const int t = grid::triangleTypeIndex(g.dims.dimension, m[0], m[1]);
    return t < 0 ? -1 : g.triangleOffset[t] + grid::boxIndex(g.dims, base, m[1]);
  }
  const int t = grid::tetTypeIndex(m[0], m[1]);
  return t < 0 ? -1 : g.tetOffset[t] + grid::boxIndex(g.dims, base, 7);
}

// Simplex (dimension, id) as its base vertex (stencil coordinates) and chain masks
// chain[0] = 0 < chain[1] < ... < chain[dimension] (dimension >= 1).
TOPOGPU_HD void gridSimplexChain(const GridSimplices& g, int dimension, SimplexId id,
                                 SimplexId base[3], int chain[4]) {
  const grid::Dims& d = g.dims;
  const SimplexId* offsets = dimension == 1   ? g.edgeOffset
                             : dimension == 2 ? g.triangleOffset
                                              : g.tetOffset;
  int type = 0;
  while (id >= offsets[type + 1])
    ++type;
  chain[0] = chain[1] = chain[2] = chain[3] = 0;
  if (dimension == 1) {
    chain[1] = type + 1;
  } else if (dimension == 2) {
    const grid::TriangleType t = grid::triangleType(d.dimension, type);
    chain[1] = t.s1;
    chain[2] = t.s2;
  } else {
    for (int step = 1; step <= 3; ++step)
      chain[step] = grid::tetChainMask(type, step);
  }
  const int span = chain[dimension];
  SimplexId local = id - offsets[type];
  for (int a = 0; a < 3; ++a) {
    const SimplexId extent = d.n[a] - ((span >> a) & 1);
    base[a] = local % extent;
    local /= extent;
  }
}

// The vertices of simplex (dimension, id) in the backend's order (getEdgeVertex,
// getTriangleVertex, getTetVertex: the chain's order).
TOPOGPU_HD void gridSimplexVertices(const GridSimplices& g, int dimension, SimplexId id,
                                    SimplexId* vertices) {
  if (dimension == 0) {
    vertices[0] = id;
    return;
  }
  SimplexId base[3];
  int chain[4];
  gridSimplexChain(g, dimension, id, base, chain);
  const SimplexId first = grid::vertexAt(g.dims, base);
  for (int q = 0; q <= dimension; ++q)
    vertices[q] = first + grid::maskOffset(g.dims, chain[q]);
}

} // namespace topogpu::discrete_gradient::simplicial
