// Combinatorics of the Freudenthal (Kuhn) triangulation of a regular grid, shared by the
// implicit triangulation and the CUDA kernels (host + device).
//
// Every simplex is a chain base < base+S1 < base+S2 < ... where the Si are nested
// non-empty subsets of the axes (bit masks of unit steps). A cube splits into 6 tets
// (one per axis permutation), a square into 2 triangles; each vertex owns 2^d-1 edge
// directions. No connectivity is stored: ids are (type, base vertex) packed per type.
//
// Orientation: TTK splits a voxel around its (1,0,0)-(0,1,1) diagonal (tets ABCG, BCDG,
// ABEG, BEFG, BFGH, BDGH with corners x-fastest) and a pixel along (1,0)-(0,1). That is
// the Kuhn split with the first axis mirrored, so every chain above lives in "stencil
// coordinates" where c[0] = n[0] - 1 - x: only vertexCoords, vertexAt and the id offset
// of a unit step (maskOffset: -1 along the first axis) know about the mirror, and every
// simplex, the link classifier, the CUDA kernel and the implicit triangulation follow.
#pragma once

#include "base/Types.h"

namespace topogpu::grid {

constexpr int kMaxEdgeTypes = 7;      // masks 1..7 in 3D, 1..3 in 2D
constexpr int kMaxTriangleTypes = 12; // nested mask pairs S1 < S2 (2 in 2D)
constexpr int kTetTypes = 6;          // axis permutations

struct Dims {
  SimplexId n[3] = {1, 1, 1}; // vertices per (squeezed) axis; n[2] == 1 in 2D
  int dimension = 3;
  // Which faces of the box are the domain's boundary, bit 2a (c[a] == 0) and 2a+1
  // (c[a] == n[a]-1) in stencil coordinates: a piece of a distributed grid has faces
  // that are cuts, not boundary. Only the critical points' boundary rule reads it.
  int boundaryFaces = 0x3f;
};

TOPOGPU_HD SimplexId vertexCount(const Dims& d) {
  return d.n[0] * d.n[1] * d.n[2];
}

// Stencil coordinates of vertex id v (x fastest in ids; c[0] mirrored, see above).
TOPOGPU_HD void vertexCoords(const Dims& d, SimplexId v, SimplexId c[3]) {
  if (v < SimplexId(0xffffffffu) && d.n[0] * d.n[1] < SimplexId(0xffffffffu)) {
    // 32-bit division is several times cheaper than 64-bit on CPUs and GPUs
    const auto u = static_cast<std::uint32_t>(v), n0 = static_cast<std::uint32_t>(d.n[0]),
               n1 = static_cast<std::uint32_t>(d.n[1]);
    const std::uint32_t row = u / n0;
    c[0] = SimplexId(n0 - 1 - (u - row * n0));
    c[1] = row % n1;
    c[2] = row / n1;
    return;
  }
  c[0] = d.n[0] - 1 - v % d.n[0];
  c[1] = (v / d.n[0]) % d.n[1];
  c[2] = v / (d.n[0] * d.n[1]);
}

TOPOGPU_HD SimplexId vertexAt(const Dims& d, const SimplexId c[3]) {
  return (d.n[0] - 1 - c[0]) + d.n[0] * (c[1] + d.n[1] * c[2]);
}

// Id offset of the step by mask in stencil coordinates.
TOPOGPU_HD SimplexId maskOffset(const Dims& d, int mask) {
  return ((mask & 1) ? -1 : 0) + ((mask & 2) ? d.n[0] : 0) +
         ((mask & 4) ? d.n[0] * d.n[1] : 0);
}

// Neighbour k of a vertex (k < 2(2^d - 1)): +mask for even k, -mask for odd k, with
// mask = k/2 + 1. Every vertex-neighbour enumeration uses this one order.
TOPOGPU_HD int neighborSign(int k) {
  return k % 2 ? -1 : 1;
}
TOPOGPU_HD int neighborMask(int k) {
  return k / 2 + 1;
}
TOPOGPU_HD SimplexId neighborOffset(const Dims& d, int k) {
  return neighborSign(k) * maskOffset(d, neighborMask(k));
}

// True when no coordinate lies on the grid's boundary: the whole star exists.
TOPOGPU_HD bool isInteriorCoords(const Dims& d, const SimplexId c[3]) {
  for (int a = 0; a < d.dimension; ++a) {
    if (c[a] == 0 || c[a] == d.n[a] - 1)
      return false;
  }
  return true;
}

// True when the vertex lies on a face of the box that is the domain's boundary.
TOPOGPU_HD bool isBoundaryCoords(const Dims& d, const SimplexId c[3]) {
  for (int a = 0; a < d.dimension; ++a) {
    if ((c[a] == 0 && (d.boundaryFaces >> (2 * a) & 1)) ||
        (c[a] == d.n[a] - 1 && (d.boundaryFaces >> (2 * a + 1) & 1)))
      return true;
  }
  return false;
}

// True when base + mask stays inside the grid, i.e. base is a valid anchor for a simplex
// spanning the axes of mask.
TOPOGPU_HD bool anchorValid(const Dims& d, const SimplexId c[3], int mask) {
  for (int a = 0; a < 3; ++a) {
    if (c[a] < 0 || c[a] >= d.n[a] || ((mask >> a) & 1 && c[a] + 1 >= d.n[a]))
      return false;
  }
  return true;
}

// Simplices of one type are numbered by their base vertex in the box of valid anchors
// (the grid shrunk by one along each axis of the span mask), x fastest: the box's size
// and the base's index in it.
TOPOGPU_HD SimplexId boxCellCount(const Dims& d, int mask) {
  return (d.n[0] - (mask & 1)) * (d.n[1] - ((mask >> 1) & 1)) *
         (d.n[2] - ((mask >> 2) & 1));
}
TOPOGPU_HD SimplexId boxIndex(const Dims& d, const SimplexId base[3], int mask) {
  return base[0] +
         (d.n[0] - (mask & 1)) * (base[1] + (d.n[1] - ((mask >> 1) & 1)) * base[2]);
}

// Triangle types: (S1, S2) with S1 a proper non-empty subset of S2.
struct TriangleType {
  int s1, s2;
};
// Tables are packed 3 bits per entry into integer constants, so host and device code
// read them without memory loads (a local array would be rebuilt on every call).
TOPOGPU_HD int packedEntry(std::uint64_t table, int i) {
  return int((table >> (3 * i)) & 7u);
}

TOPOGPU_HD TriangleType triangleType(int dimension, int t) {
  // 3D: six with |S2| = 2, then six with S2 = 7; 2D uses the first two (S2 = 3).
  // s1: 1 2 1 4 2 4 1 2 4 3 5 6   s2: 3 3 5 5 6 6 7 7 7 7 7 7
  (void)dimension;
  return {packedEntry(0xd5c462851ull, t), packedEntry(0xfffff6b5bull, t)};
}
// The type of the triangle with chain masks s1 < s2 (triangleType's inverse), -1 when
// no type has that chain.
TOPOGPU_HD int triangleTypeIndex(int dimension, int s1, int s2) {
  if (s1 <= 0 || (s1 & ~s2) != 0 || s1 == s2 || s2 > (dimension == 3 ? 7 : 3))
    return -1;
  if (s2 == 7) // s1: 1 2 4 3 5 6 -> 6..11
    return 6 + packedEntry(0x162640ull, s1);
  if (s2 != 3 && s2 != 5 && s2 != 6)
    return -1;
  return 2 * (s2 == 3 ? 0 : s2 == 5 ? 1 : 2) + (s1 == (s2 & -s2) ? 0 : 1);
}
TOPOGPU_HD int triangleTypeCount(int dimension) {
  return dimension == 3 ? 12 : 2;
}
TOPOGPU_HD int edgeTypeCount(int dimension) {
  return dimension == 3 ? 7 : 3;
}
TOPOGPU_HD int tetTypeCount(int dimension) {
  return dimension == 3 ? kTetTypes : 0;
}

// Face i of a triangle (getTriangleEdge's order: v0v1, v0v2, v1v2) is the edge of mask
// S1, S2 and S2 - S1, based at the triangle's base, its base, and base + S1.
TOPOGPU_HD int triangleFaceMask(TriangleType type, int face) {
  return face == 0 ? type.s1 : face == 1 ? type.s2 : type.s1 ^ type.s2;
}

// The triangles of an edge of mask m as stencils: type, the edge's face index in it,
// and the mask its base lies below the edge's (the triangle (S1, S1 | m) holds the edge
// as face 2, based at p - S1). The k-th counts the triangle types in order;
// edgeTriangleStencilIndex is the inverse.
constexpr int kMaxEdgeTriangleStencils = 6;
struct EdgeTriangleStencil {
  int type = 0, face = 0, shift = 0;
};
TOPOGPU_HD int edgeFaceIn(TriangleType type, int m) {
  for (int face = 0; face < 3; ++face)
    if (triangleFaceMask(type, face) == m)
      return face;
  return -1;
}
TOPOGPU_HD bool edgeTriangleStencil(int dimension, int m, int k, EdgeTriangleStencil& s) {
  for (int t = 0; t < triangleTypeCount(dimension); ++t) {
    const TriangleType type = triangleType(dimension, t);
    const int face = edgeFaceIn(type, m);
    if (face < 0 || k-- > 0)
      continue;
    s.type = t;
    s.face = face;
    s.shift = face == 2 ? type.s1 : 0;
    return true;
  }
  return false;
}
TOPOGPU_HD int edgeTriangleStencilIndex(int dimension, int type, int face) {
  const int m = triangleFaceMask(triangleType(dimension, type), face);
  int k = 0;
  for (int t = 0; t < type; ++t)
    k += edgeFaceIn(triangleType(dimension, t), m) >= 0 ? 1 : 0;
  return k;
}

// Tet type t: the chain 0 < S1 < S2 < 7 of an axis permutation (a, b, c).
TOPOGPU_HD int tetChainMask(int t, int step) {
  // after 1 and 2 steps, for permutations xyz xzy yxz yzx zxy zyx: 1 1 2 2 4 4 / 3 5 3 6
  // 5 6
  return step == 0   ? 0
         : step == 1 ? packedEntry(0x24489u, t)
         : step == 2 ? packedEntry(0x35cebu, t)
                     : 7;
}

// The tet type with chain masks m1 < m2 (tetChainMask's inverse), -1 when none.
TOPOGPU_HD int tetTypeIndex(int m1, int m2) {
  if ((m1 != 1 && m1 != 2 && m1 != 4) || (m1 & ~m2) != 0 || m2 == m1 || m2 >= 7)
    return -1;
  const int rest = 7 ^ m1;
  return 2 * (m1 == 1 ? 0 : m1 == 2 ? 1 : 2) + ((m2 ^ m1) == (rest & -rest) ? 0 : 1);
}

// Offset code of a neighbour displacement in {-1,0,1}^3, for 27-slot local tables.
TOPOGPU_HD int displacementSlot(const SimplexId a[3], const SimplexId b[3]) {
  return int(b[0] - a[0] + 1) + 3 * int(b[1] - a[1] + 1) + 9 * int(b[2] - a[2] + 1);
}

// Calls f(u) for every Freudenthal neighbour u of vertex v (the implicit
// triangulation's VV relation), in the neighbour order k = 0, 1, ... above.
template <typename F> TOPOGPU_HD void forEachNeighbor(const Dims& d, SimplexId v, F&& f) {
  SimplexId c[3];
  vertexCoords(d, v, c);
  const bool interior = isInteriorCoords(d, c);
  for (int k = 0; k < 2 * edgeTypeCount(d.dimension); ++k) {
    if (!interior) {
      const int m = neighborMask(k), sign = neighborSign(k);
      SimplexId n[3];
      for (int a = 0; a < 3; ++a)
        n[a] = c[a] + SimplexId(sign) * ((m >> a) & 1);
      if (!anchorValid(d, n, 0))
        continue;
    }
    f(v + neighborOffset(d, k));
  }
}

} // namespace topogpu::grid

namespace topogpu::grid {

// Cells of the grid triangulation (tets in 3D, triangles in 2D) as chains of masks, so
// one loop serves both dimensions.
TOPOGPU_HD int cellTypeCount(int dimension) {
  return dimension == 3 ? kTetTypes : 2;
}
TOPOGPU_HD int cellSpanMask(int dimension) {
  return dimension == 3 ? 7 : 3;
}
TOPOGPU_HD int cellChainMask(int dimension, int type, int step) {
  if (dimension == 3)
    return tetChainMask(type, step);
  const TriangleType t = triangleType(2, type);
  return step == 0 ? 0 : step == 1 ? t.s1 : t.s2;
}

} // namespace topogpu::grid
