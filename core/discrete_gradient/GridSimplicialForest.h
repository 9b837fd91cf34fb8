// One step of the simplicial gradient's V-paths on the implicit grid, as host + device
// code: the twins of descendingSuccessor and ascendingSuccessor (SimplicialGradient.h)
// from the grid's stencil, for the CPU grid path and the CUDA kernels of the Morse-Smale
// complex (pointer jumping over them finds every element's extremum).
//
// A top cell is a chain base = v0 < v1 < ... < vd adding one axis e_i per step. The
// other cell through the facet without v_s: for 0 < s < d the chain with steps s and
// s + 1 swapped (same cube); for s = 0 the chain from v1 with e_1 added last (the cube
// at v1); for s = d the chain from v0 - e_d with e_d added first. The last two leave the
// grid when that cube does: the facet is then on the boundary.
#pragma once

#include "core/discrete_gradient/GridSimplices.h"
#include "core/discrete_gradient/SimplicialGradientCodes.h"

#include <cstdint>

namespace topogpu::discrete_gradient::simplicial {

struct ConstGradientBytes {
  const std::uint8_t* bytes[4];
};

// The other vertex of v's paired edge; v at a minimum.
TOPOGPU_HD SimplexId gridDescendingSuccessor(const GridSimplices& g,
                                             ConstGradientBytes gradient, SimplexId v) {
  if (gradient.bytes[0][v] != kPairedUp)
    return v;
  const grid::Dims& d = g.dims;
  SimplexId c[3];
  grid::vertexCoords(d, v, c);
  for (int q = 0; q < 2 * grid::edgeTypeCount(d.dimension); ++q) {
    const int sign = grid::neighborSign(q), mask = grid::neighborMask(q);
    SimplexId base[3];
    bool inside = true;
    for (int a = 0; a < 3; ++a) {
      const SimplexId x = c[a] + SimplexId(sign) * ((mask >> a) & 1);
      inside = inside && x >= 0 && x < d.n[a];
      base[a] = sign > 0 ? c[a] : x;
    }
    if (!inside)
      continue;
    // v is the edge's vertex 0 (its base) when the step is positive
    const SimplexId e = g.edgeOffset[mask - 1] + grid::boxIndex(d, base, mask);
    if (gradient.bytes[1][e] == (sign > 0 ? 0 : 1))
      return v + grid::neighborOffset(d, q);
  }
  return v; // not reached on a consistent gradient
}

// The other top cell of c's paired facet; c at a maximum; -1 - facet when that facet
// is on the boundary.
TOPOGPU_HD SimplexId gridAscendingSuccessor(const GridSimplices& g,
                                            ConstGradientBytes gradient, SimplexId c) {
  const int top = g.dims.dimension, span = grid::cellSpanMask(top);
  const std::uint8_t code = gradient.bytes[top][c];
  if (code > 3)
    return c;
  SimplexId base[3];
  int chain[4];
  gridSimplexChain(g, top, c, base, chain);
  const int s = top - int(code); // the facet omits vertex s
  int next[4] = {0, 0, 0, 0};
  if (s > 0 && s < top) {
    for (int i = 0; i <= top; ++i)
      next[i] = chain[i];
    next[s] = chain[s - 1] | (chain[s + 1] ^ chain[s]);
    return gridSimplexId(g, top, base, next + 1);
  }
  SimplexId other[3];
  int facet[3];
  if (s == 0) { // from v1, e_1 last
    const int e1 = chain[1];
    for (int a = 0; a < 3; ++a)
      other[a] = base[a] + ((e1 >> a) & 1);
    for (int i = 1; i < top; ++i)
      next[i] = chain[i + 1] ^ e1;
    next[top] = span;
    for (int i = 1; i < top; ++i)
      facet[i - 1] = next[i];
    if (!grid::anchorValid(g.dims, other, span))
      return -1 - gridSimplexId(g, top - 1, other, facet);
  } else { // from v0 - e_d, e_d first
    const int ed = chain[top] ^ chain[top - 1];
    for (int a = 0; a < 3; ++a)
      other[a] = base[a] - ((ed >> a) & 1);
    for (int i = 1; i <= top; ++i)
      next[i] = chain[i - 1] | ed;
    for (int i = 1; i < top; ++i)
      facet[i - 1] = chain[i];
    if (!grid::anchorValid(g.dims, other, span))
      return -1 - gridSimplexId(g, top - 1, base, facet);
  }
  return gridSimplexId(g, top, other, next + 1);
}

} // namespace topogpu::discrete_gradient::simplicial
