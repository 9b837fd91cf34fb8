// The cubical cell complex of a regular grid (vertices, edges, squares, voxels), indexed
// implicitly on the refined grid of (2nx-1) x (2ny-1) x (2nz-1) points: the cell at
// refined coordinates (X, Y, Z) spans the axes whose coordinate is odd, so its
// dimension is the number of odd coordinates and its vertices are the grid vertices
// (floor(X/2) or ceil(X/2), ...). Ids are x-fastest, as VTK's. Unlike GridStencil.h
// (whose Freudenthal orientation mirrors x), the cubical complex has no orientation:
// coordinates here are plain. Host + device; nothing is ever materialised.
#pragma once

#include "base/GridStencil.h"
#include "base/Types.h"

namespace topogpu::cubical {

// The gradient byte of a cell: its partner is the neighbouring cell at refined offset
// +1 (even codes) or -1 (odd codes) along axis code / 2; kCritical for a critical cell.
constexpr std::uint8_t kCritical = 6;
constexpr std::uint8_t kUnassigned = 7; // never left by a complete run

TOPOGPU_HD std::uint8_t pairCode(int axis, int sign) {
  return std::uint8_t(2 * axis + (sign < 0 ? 1 : 0));
}
TOPOGPU_HD int codeAxis(std::uint8_t code) {
  return code / 2;
}
TOPOGPU_HD int codeSign(std::uint8_t code) {
  return code % 2 ? -1 : 1;
}

// Vertices per axis (n[2] == 1 in 2D; squeezed axes as the implicit triangulation's).
struct Grid {
  SimplexId n[3] = {1, 1, 1};
  int dimension = 3;
};

TOPOGPU_HD Grid gridOf(const grid::Dims& d) {
  Grid g;
  for (int a = 0; a < 3; ++a)
    g.n[a] = d.n[a];
  g.dimension = d.dimension;
  return g;
}

TOPOGPU_HD SimplexId refinedSize(const Grid& g, int axis) {
  return 2 * g.n[axis] - 1;
}
TOPOGPU_HD SimplexId cellCount(const Grid& g) {
  return refinedSize(g, 0) * refinedSize(g, 1) * refinedSize(g, 2);
}

// Plain (unmirrored) coordinates of grid vertex v.
TOPOGPU_HD void vertexCoords(const Grid& g, SimplexId v, SimplexId c[3]) {
  c[0] = v % g.n[0];
  c[1] = (v / g.n[0]) % g.n[1];
  c[2] = v / (g.n[0] * g.n[1]);
}

TOPOGPU_HD void cellCoords(const Grid& g, SimplexId cell, SimplexId c[3]) {
  const SimplexId nx = refinedSize(g, 0), ny = refinedSize(g, 1);
  c[0] = cell % nx;
  c[1] = (cell / nx) % ny;
  c[2] = cell / (nx * ny);
}

TOPOGPU_HD SimplexId cellAt(const Grid& g, const SimplexId c[3]) {
  return c[0] + refinedSize(g, 0) * (c[1] + refinedSize(g, 1) * c[2]);
}

// Bit a set when the cell spans axis a (its refined coordinate is odd).
TOPOGPU_HD int cellAxes(const SimplexId c[3]) {
  return int(c[0] & 1) | int(c[1] & 1) << 1 | int(c[2] & 1) << 2;
}

TOPOGPU_HD int cellDimension(const Grid& g, SimplexId cell) {
  SimplexId c[3];
  cellCoords(g, cell, c);
  const int m = cellAxes(c);
  return (m & 1) + (m >> 1 & 1) + (m >> 2 & 1);
}

// The refined id of grid vertex v.
TOPOGPU_HD SimplexId vertexCell(const Grid& g, SimplexId v) {
  SimplexId c[3];
  vertexCoords(g, v, c);
  for (int a = 0; a < 3; ++a)
    c[a] *= 2;
  return cellAt(g, c);
}

// The id of a cell among the cells of its dimension (TTK-style CellDimension + CellId):
// cells grouped by the axes they span (axis masks of that dimension in ascending order),
// each group x-fastest over its anchors (lowest vertex).
TOPOGPU_HD SimplexId cellIdInDimension(const Grid& g, SimplexId cell) {
  SimplexId c[3];
  cellCoords(g, cell, c);
  const int axes = cellAxes(c);
  const int dim = (axes & 1) + (axes >> 1 & 1) + (axes >> 2 & 1);
  SimplexId offset = 0;
  for (int m = 0; m < axes; ++m) {
    if ((m & 1) + (m >> 1 & 1) + (m >> 2 & 1) != dim)
      continue;
    bool exists = true;
    SimplexId size = 1;
    for (int a = 0; a < 3; ++a) {
      const SimplexId s = g.n[a] - (m >> a & 1);
      exists = exists && s > 0;
      size *= s;
    }
    if (exists)
      offset += size;
  }
  const SimplexId bx = g.n[0] - (axes & 1), by = g.n[1] - (axes >> 1 & 1);
  return offset + c[0] / 2 + bx * (c[1] / 2 + by * (c[2] / 2));
}

} // namespace topogpu::cubical
