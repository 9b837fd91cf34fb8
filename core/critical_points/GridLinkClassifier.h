// Link classification of one grid vertex from the Freudenthal stencil alone: the link
// lives in 27 slots indexed by the neighbour's displacement, link edges come from the
// cells of the vertex's star (stencil coordinates: TTK's orientation). Host + device: the
// CUDA kernel and the CPU grid path run this same function, so they agree by
// construction; the generic, triangulation-based classifier (CriticalPointsCpu.h) and
// brute-force oracles check it in the tests.
#pragma once

#include "base/GridStencil.h"
#include "core/critical_points/CriticalType.h"

#include <cstdint>
#include <vector>

namespace topogpu::grid {

// Slots hold their union-find parent, or kNoSlot when the neighbour does not exist.
constexpr std::uint8_t kNoSlot = 255;

TOPOGPU_HD int linkRoot(const std::uint8_t* parent, int x) {
  while (parent[x] != x)
    x = parent[x];
  return x;
}

TOPOGPU_HD CriticalType classifyGridVertex(const Dims& dims, SimplexId v,
                                           const SimplexId* order) {
  SimplexId c[3];
  vertexCoords(dims, v, c);
  const SimplexId ov = order[v];
  std::uint8_t parent[27];
  bool lower[27] = {};
  // TTK's boundary rule reads whether a lower / an upper neighbour is a boundary vertex;
  // only a boundary vertex of a 3D grid needs it (never an interior one: the table).
  const bool onBoundary = dims.dimension == 3 && isBoundaryCoords(dims, c);
  bool lowerOnBoundary = false, upperOnBoundary = false;
  for (int s = 0; s < 27; ++s)
    parent[s] = kNoSlot;
  const int edgeTypes = edgeTypeCount(dims.dimension);
  for (int k = 0; k < 2 * edgeTypes; ++k) {
    const int mask = neighborMask(k), sign = neighborSign(k);
    SimplexId n[3];
    for (int a = 0; a < 3; ++a)
      n[a] = c[a] + SimplexId(sign) * ((mask >> a) & 1);
    if (!anchorValid(dims, n, 0))
      continue;
    const int slot = displacementSlot(c, n);
    parent[slot] = static_cast<std::uint8_t>(slot);
    lower[slot] = order[vertexAt(dims, n)] < ov;
    if (onBoundary && isBoundaryCoords(dims, n))
      (lower[slot] ? lowerOnBoundary : upperOnBoundary) = true;
  }
  const int cellTypes = cellTypeCount(dims.dimension);
  const int span = cellSpanMask(dims.dimension);
  const int cellSize = dims.dimension + 1;
  for (int t = 0; t < cellTypes; ++t) {
    for (int p = 0; p < cellSize; ++p) {
      const int own = cellChainMask(dims.dimension, t, p);
      SimplexId base[3];
      for (int a = 0; a < 3; ++a)
        base[a] = c[a] - ((own >> a) & 1);
      if (!anchorValid(dims, base, span))
        continue;
      int slots[3], n = 0;
      for (int q = 0; q < cellSize; ++q) {
        if (q == p)
          continue;
        const int m = cellChainMask(dims.dimension, t, q);
        SimplexId u[3];
        for (int a = 0; a < 3; ++a)
          u[a] = base[a] + ((m >> a) & 1);
        slots[n++] = displacementSlot(c, u);
      }
      for (int i = 0; i < n; ++i) {
        for (int j = i + 1; j < n; ++j) {
          if (lower[slots[i]] == lower[slots[j]])
            parent[linkRoot(parent, slots[i])] =
                static_cast<std::uint8_t>(linkRoot(parent, slots[j]));
        }
      }
    }
  }
  int lowerCount = 0, upperCount = 0;
  for (int s = 0; s < 27; ++s) {
    if (parent[s] == s)
      (lower[s] ? lowerCount : upperCount)++;
  }
  return criticalTypeFromLink(dims.dimension, lowerCount, upperCount, lowerOnBoundary,
                              upperOnBoundary, onBoundary);
}

// For an interior vertex the whole star is present, so its class depends only on which
// of its 2(2^d - 1) neighbours are lower: a 14-bit (3D) or 6-bit (2D) mask indexes a
// table built once by classifyGridVertex itself on a 3^d neighbourhood. Boundary vertices
// take the full stencil walk.
TOPOGPU_HD int interiorMaskBits(int dimension) {
  return 2 * edgeTypeCount(dimension);
}

inline std::vector<std::int8_t> buildInteriorLinkTable(int dimension) {
  Dims cube;
  cube.dimension = dimension;
  cube.n[0] = cube.n[1] = 3;
  cube.n[2] = dimension == 3 ? 3 : 1;
  const SimplexId center = dimension == 3 ? 13 : 4;
  const int bits = interiorMaskBits(dimension);
  std::vector<std::int8_t> table(std::size_t(1) << bits);
  std::vector<SimplexId> order(vertexCount(cube), 300);
  order[center] = 100;
  for (unsigned mask = 0; mask < table.size(); ++mask) {
    for (int k = 0; k < bits; ++k)
      order[center + neighborOffset(cube, k)] = (mask >> k) & 1u ? k : 200 + k;
    table[mask] = std::int8_t(classifyGridVertex(cube, center, order.data()));
  }
  return table;
}

// The table of a dimension, built on first use (about 16k stencil walks) and kept.
inline const std::vector<std::int8_t>& interiorLinkTable(int dimension) {
  static const std::vector<std::int8_t> table2D = buildInteriorLinkTable(2);
  static const std::vector<std::int8_t> table3D = buildInteriorLinkTable(3);
  return dimension == 3 ? table3D : table2D;
}

// interiorTable: interiorLinkTable(dims.dimension), in memory the caller can read.
TOPOGPU_HD CriticalType classifyGridVertexWithTable(const Dims& dims, SimplexId v,
                                                    const SimplexId* order,
                                                    const std::int8_t* interiorTable) {
  SimplexId c[3];
  vertexCoords(dims, v, c);
  if (!isInteriorCoords(dims, c))
    return classifyGridVertex(dims, v, order);
  const SimplexId ov = order[v];
  unsigned mask = 0;
  const int bits = interiorMaskBits(dims.dimension);
  for (int k = 0; k < bits; ++k)
    mask |= unsigned(order[v + neighborOffset(dims, k)] < ov) << k;
  return CriticalType(interiorTable[mask]);
}

} // namespace topogpu::grid
