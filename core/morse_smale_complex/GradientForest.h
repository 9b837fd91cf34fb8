// The gradient forests of the grid's cubical complex (stage 2), host +
// device: descending V-paths of vertices (vertex -> paired edge -> its other vertex)
// end at minima, ascending paths of top cells (voxel -> paired facet -> the facet's
// other coface) end at maxima or leave the box through a boundary facet. Paths of
// extrema never split and merge only, so each is a tree and its roots are found by
// pointer jumping (Shivashankar and Natarajan). The boundary facets carry a third forest,
// steepest ascent of f restricted to the boundary surface (see
// docs/filters/morse-smale-complex.md): where a top-cell path leaves, it goes on there.
#pragma once

#include "core/discrete_gradient/CubicalGrid.h"

#include <cstdint>

namespace topogpu::cubical {

TOPOGPU_HD SimplexId refinedStride(const Grid& g, int axis) {
  return axis == 0
             ? 1
             : (axis == 1 ? refinedSize(g, 0) : refinedSize(g, 0) * refinedSize(g, 1));
}

TOPOGPU_HD SimplexId codeStep(const Grid& g, std::uint8_t code) {
  return codeSign(code) * refinedStride(g, codeAxis(code));
}

TOPOGPU_HD SimplexId vertexOfCell(const Grid& g, SimplexId cell) {
  SimplexId c[3];
  cellCoords(g, cell, c);
  return c[0] / 2 + g.n[0] * (c[1] / 2 + g.n[1] * (c[2] / 2));
}

// The next vertex of v's descending V-path, v itself at a minimum.
TOPOGPU_HD SimplexId vertexSuccessor(const Grid& g, const std::uint8_t* gradient,
                                     SimplexId v) {
  const SimplexId cell = vertexCell(g, v);
  const std::uint8_t code = gradient[cell];
  if (code == kCritical)
    return v;
  return vertexOfCell(g, cell + 2 * codeStep(g, code));
}

// Top cells (voxels in 3D, squares in 2D), indexed as VTK's cells: x-fastest anchors.
TOPOGPU_HD SimplexId topCellCount(const Grid& g) {
  SimplexId count = 1;
  for (int a = 0; a < g.dimension; ++a)
    count *= g.n[a] - 1;
  return count;
}

TOPOGPU_HD SimplexId topCellOf(const Grid& g, SimplexId t) {
  SimplexId c[3] = {0, 0, 0};
  for (int a = 0; a < g.dimension; ++a) {
    c[a] = 2 * (t % (g.n[a] - 1)) + 1;
    t /= g.n[a] - 1;
  }
  return cellAt(g, c);
}

TOPOGPU_HD SimplexId topIndexAt(const Grid& g, const SimplexId c[3]) {
  SimplexId t = 0;
  for (int a = g.dimension - 1; a >= 0; --a)
    t = t * (g.n[a] - 1) + c[a] / 2;
  return t;
}

// The next top cell of t's ascending path, t itself at a maximum, or -1 - f when the
// path leaves the box through boundary facet f (a refined id).
TOPOGPU_HD SimplexId topCellSuccessor(const Grid& g, const std::uint8_t* gradient,
                                      SimplexId t) {
  const SimplexId cell = topCellOf(g, t);
  const std::uint8_t code = gradient[cell];
  if (code == kCritical)
    return t;
  const int a = codeAxis(code);
  const int s = codeSign(code);
  SimplexId c[3];
  cellCoords(g, cell, c);
  c[a] += SimplexId(2) * s;
  if (c[a] < 0 || c[a] >= refinedSize(g, a))
    return -1 - (cell + s * refinedStride(g, a));
  return topIndexAt(g, c);
}

// Boundary facets ((d-1)-cells of the box's surface), grouped by face (axis a, side),
// each face x-fastest over its other axes.
TOPOGPU_HD SimplexId faceSize(const Grid& g, int axis) {
  SimplexId size = 1;
  for (int b = 0; b < g.dimension; ++b)
    if (b != axis)
      size *= g.n[b] - 1;
  return size;
}

TOPOGPU_HD SimplexId boundaryFacetCount(const Grid& g) {
  SimplexId count = 0;
  for (int a = 0; a < g.dimension; ++a)
    count += 2 * faceSize(g, a);
  return count;
}

TOPOGPU_HD SimplexId boundaryFacetOf(const Grid& g, SimplexId i) {
  int a = 0;
  while (i >= 2 * faceSize(g, a)) {
    i -= 2 * faceSize(g, a);
    ++a;
  }
  const SimplexId size = faceSize(g, a);
  SimplexId c[3] = {0, 0, 0};
  c[a] = i >= size ? refinedSize(g, a) - 1 : 0;
  i %= size;
  for (int b = 0; b < g.dimension; ++b) {
    if (b == a)
      continue;
    c[b] = 2 * (i % (g.n[b] - 1)) + 1;
    i /= g.n[b] - 1;
  }
  return cellAt(g, c);
}

// The axis a (d-1)-cell does not span, -1 if it spans them all or several are missing.
TOPOGPU_HD int unspannedAxis(const Grid& g, const SimplexId c[3]) {
  int axis = -1, missing = 0;
  for (int a = 0; a < g.dimension; ++a)
    if (!(c[a] & 1)) {
      axis = a;
      ++missing;
    }
  return missing == 1 ? axis : -1;
}

TOPOGPU_HD bool isBoundaryFacet(const Grid& g, const SimplexId c[3]) {
  const int a = unspannedAxis(g, c);
  return a >= 0 && (c[a] == 0 || c[a] == refinedSize(g, a) - 1);
}

TOPOGPU_HD SimplexId boundaryIndexOf(const Grid& g, SimplexId facet) {
  SimplexId c[3];
  cellCoords(g, facet, c);
  const int a = unspannedAxis(g, c);
  SimplexId i = 0;
  for (int b = 0; b < a; ++b)
    i += 2 * faceSize(g, b);
  if (c[a] != 0)
    i += faceSize(g, a);
  SimplexId local = 0;
  for (int b = g.dimension - 1; b >= 0; --b)
    if (b != a)
      local = local * (g.n[b] - 1) + c[b] / 2;
  return i + local;
}

// A cell's vertex ranks in decreasing order (the lower-star filtration's comparison:
// lexicographic on these); returns how many (2^dim).
TOPOGPU_HD int cellKey(const Grid& g, const SimplexId* rank, const SimplexId c[3],
                       SimplexId key[8]) {
  int axes = 0;
  for (int a = 0; a < 3; ++a)
    axes |= int(c[a] & 1) << a;
  int count = 0;
  for (int corner = 0; corner < 8; ++corner) {
    if ((corner & axes) != corner)
      continue;
    SimplexId v = 0, stride = 1;
    for (int a = 0; a < 3; ++a) {
      const SimplexId x =
          (c[a] + ((axes >> a) & 1 ? ((corner >> a) & 1 ? 1 : -1) : 0)) / 2;
      v += x * stride;
      stride *= g.n[a];
    }
    const SimplexId r = rank[v];
    int at = count++;
    while (at > 0 && key[at - 1] < r) {
      key[at] = key[at - 1];
      --at;
    }
    key[at] = r;
  }
  return count;
}

TOPOGPU_HD bool keyLess(const SimplexId* a, const SimplexId* b, int count) {
  for (int i = 0; i < count; ++i)
    if (a[i] != b[i])
      return a[i] < b[i];
  return false;
}

// Steepest ascent on the boundary surface: the highest boundary facet sharing a
// (d-2)-face with boundary facet i if it is above i, else i (a boundary maximum).
TOPOGPU_HD SimplexId boundarySuccessor(const Grid& g, const SimplexId* rank,
                                       SimplexId i) {
  const SimplexId q = boundaryFacetOf(g, i);
  SimplexId cq[3];
  cellCoords(g, q, cq);
  SimplexId best = q, bestKey[8], key[8];
  const int count = cellKey(g, rank, cq, bestKey);
  for (int b = 0; b < g.dimension; ++b) {
    if (!(cq[b] & 1))
      continue;
    for (int s = -1; s <= 1; s += 2) {
      SimplexId r[3] = {cq[0], cq[1], cq[2]};
      r[b] += s; // a (d-2)-face of q
      for (int e = 0; e < g.dimension; ++e) {
        if (r[e] & 1)
          continue;
        for (int t = -1; t <= 1; t += 2) {
          SimplexId p[3] = {r[0], r[1], r[2]};
          p[e] += t;
          if (p[e] < 0 || p[e] >= refinedSize(g, e) || !isBoundaryFacet(g, p))
            continue;
          const SimplexId cell = cellAt(g, p);
          if (cell == q)
            continue;
          cellKey(g, rank, p, key);
          if (keyLess(bestKey, key, count)) {
            best = cell;
            for (int k = 0; k < count; ++k)
              bestKey[k] = key[k];
          }
        }
      }
    }
  }
  return best == q ? i : boundaryIndexOf(g, best);
}

// The top cell of a boundary facet (its only coface).
TOPOGPU_HD SimplexId boundaryCoface(const Grid& g, SimplexId facet) {
  SimplexId c[3];
  cellCoords(g, facet, c);
  const int a = unspannedAxis(g, c);
  c[a] += c[a] == 0 ? 1 : -1;
  return topIndexAt(g, c);
}

} // namespace topogpu::cubical
