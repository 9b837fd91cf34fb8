// ProcessLowerStars for one vertex of the implicit grid's Freudenthal triangulation, as
// host + device code: the CPU grid path and the CUDA kernel run this one function, and
// it writes the bytes the generic lower star (SimplicialLowerStar.h) writes over
// ImplicitTriangulation, with TTK's rules (SimplicialGradient.h says which).
//
// On the grid the lower star is small and fixed: at most 14 lower neighbours, 36
// triangles and 24 tets, so it lives in local arrays. Neighbour q of v is the step
// sign(q) * mask(q) in stencil coordinates (GridStencil.h). The triangulation is a flag
// complex (a simplex is a chain whose top minus bottom is a 0/1 vector), so two
// neighbours span a triangle with v exactly when they are adjacent: steps of one sign
// with nested masks, or of opposite signs with disjoint masks; and three pairwise
// adjacent ones span a tet. The lower neighbours, sorted by rank, get local indices, and
// the cells are generated directly in TTK's key order (edge a, its triangles (a, b) by
// b, each followed by its tets (a, b, c) by c), so a cell's position is its key and the
// two priority queues are 128-bit sets of positions.
#pragma once

#include "core/discrete_gradient/GridSimplices.h"
#include "core/discrete_gradient/SimplicialGradientCodes.h"

#include <cstdint>

namespace topogpu::discrete_gradient::simplicial {

// The gradient's bytes per dimension (the simplex counts of GridSimplices).
struct GradientBytes {
  std::uint8_t* bytes[4];
};

namespace grid_star {

constexpr int kMaxNeighbors = 2 * grid::kMaxEdgeTypes;
constexpr int kMaxCells =
    kMaxNeighbors + 3 * grid::kMaxTriangleTypes + 4 * grid::kTetTypes;
constexpr std::uint8_t kNone = 0xff; // no such cell (positions are below kMaxCells)

TOPOGPU_HD int lowestBit(std::uint64_t s) {
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(s)) - 1;
#else
  return __builtin_ctzll(s);
#endif
}

// A set of cell positions; its minimum is the queue's top.
struct PositionSet {
  std::uint64_t w[2];
  TOPOGPU_HD void add(int p) { w[p >> 6] |= std::uint64_t(1) << (p & 63); }
  TOPOGPU_HD void remove(int p) { w[p >> 6] &= ~(std::uint64_t(1) << (p & 63)); }
  TOPOGPU_HD bool has(int p) const { return (w[p >> 6] >> (p & 63)) & 1; }
  TOPOGPU_HD bool empty() const { return (w[0] | w[1]) == 0; }
  TOPOGPU_HD int top() const {
    return w[0] != 0 ? lowestBit(w[0]) : 64 + lowestBit(w[1]);
  }
  TOPOGPU_HD int pop() {
    const int p = top();
    remove(p);
    return p;
  }
};

// Step component of neighbour q along axis a (-1, 0, 1), and the sum of its components,
// which orders a chain's vertices as the backend does (coordinate sums).
TOPOGPU_HD int stepAlong(int q, int a) {
  return grid::neighborSign(q) * ((grid::neighborMask(q) >> a) & 1);
}
TOPOGPU_HD int stepSum(int q) {
  const int m = grid::neighborMask(q);
  return grid::neighborSign(q) * ((m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1));
}

// The lower star of v: cells at positions 0..cells-1 in key order, each packed as
// dimension << 12 | a << 8 | b << 4 | c (its lower neighbours' local indices, a > b > c).
struct LowerStar {
  SimplexId c[3];
  int k = 0; // lower neighbours, by ascending rank (local indices)
  // Per lower neighbour: its step's mask, sign and stepSum, read by every cell's id.
  int mask[kMaxNeighbors], sign[kMaxNeighbors], sum[kMaxNeighbors];
  int cells = 0; // lower edges, triangles and tets
  std::uint16_t cell[kMaxCells];
  std::uint8_t edgeAt[kMaxNeighbors];                    // position of edge a
  std::uint8_t triangleAt[kMaxNeighbors][kMaxNeighbors]; // of triangle (a, b), a > b
  std::uint8_t tetsOf[kMaxCells][2]; // a triangle's tets in the lower star
  // adjacent[a]: the lower neighbours adjacent to a (they span a triangle with v), a bit
  // each.
  unsigned adjacent[kMaxNeighbors];
  PositionSet paired;
};

TOPOGPU_HD int dimensionOf(std::uint16_t cell) {
  return cell >> 12;
}
TOPOGPU_HD int localOf(std::uint16_t cell, int i) {
  return (cell >> (8 - 4 * i)) & 15;
}

// The lower neighbours of v sorted by rank, and the cells they span with v. Returns
// false for a minimum (no lower neighbour).
TOPOGPU_HD bool buildLowerStar(const grid::Dims& d, SimplexId v, const SimplexId* rank,
                               LowerStar& ls) {
  grid::vertexCoords(d, v, ls.c);
  const SimplexId rv = rank[v];
  SimplexId ranks[kMaxNeighbors];
  int step[kMaxNeighbors]; // the lower neighbours' neighbour index q, by ascending rank
  ls.k = 0;
  const bool interior = grid::isInteriorCoords(d, ls.c);
  for (int q = 0; q < 2 * grid::edgeTypeCount(d.dimension); ++q) {
    bool inside = true;
    for (int a = 0; a < 3 && !interior; ++a) {
      const SimplexId x = ls.c[a] + stepAlong(q, a);
      inside = inside && x >= 0 && x < d.n[a];
    }
    if (!inside)
      continue;
    const SimplexId r = rank[v + grid::neighborOffset(d, q)];
    if (r >= rv)
      continue;
    int at = ls.k++;
    for (; at > 0 && ranks[at - 1] > r; --at) {
      ranks[at] = ranks[at - 1];
      step[at] = step[at - 1];
    }
    ranks[at] = r;
    step[at] = q;
  }
  if (ls.k == 0)
    return false;
  for (int a = 0; a < ls.k; ++a) {
    ls.mask[a] = grid::neighborMask(step[a]);
    ls.sign[a] = grid::neighborSign(step[a]);
    ls.sum[a] = stepSum(step[a]);
  }
  ls.cells = 0;
  ls.paired.w[0] = ls.paired.w[1] = 0;
  for (int a = 0; a < ls.k; ++a)
    ls.adjacent[a] = 0;
  // Steps of one sign are adjacent when their masks nest, of opposite signs when the
  // masks are disjoint.
  for (int a = 0; a < ls.k; ++a)
    for (int b = 0; b < a; ++b) {
      const int common = ls.mask[a] & ls.mask[b];
      if (ls.sign[a] == ls.sign[b] ? common == ls.mask[a] || common == ls.mask[b]
                                   : common == 0) {
        ls.adjacent[a] |= 1u << b;
        ls.adjacent[b] |= 1u << a;
      }
    }
  for (int a = 0; a < ls.k; ++a) {
    ls.edgeAt[a] = std::uint8_t(ls.cells);
    ls.cell[ls.cells++] = std::uint16_t(1 << 12 | a << 8);
    for (int b = 0; b < a; ++b) {
      ls.triangleAt[a][b] = kNone;
      if (((ls.adjacent[a] >> b) & 1u) == 0)
        continue;
      const int t = ls.cells;
      ls.triangleAt[a][b] = std::uint8_t(t);
      ls.tetsOf[t][0] = ls.tetsOf[t][1] = kNone;
      ls.cell[ls.cells++] = std::uint16_t(2 << 12 | a << 8 | b << 4);
      if (d.dimension != 3)
        continue;
      const unsigned common = ls.adjacent[a] & ls.adjacent[b]; // read below b only
      for (int c = 0; c < b; ++c) {
        if (((common >> c) & 1u) == 0)
          continue;
        const int tet = ls.cells;
        ls.cell[ls.cells++] = std::uint16_t(3 << 12 | a << 8 | b << 4 | c);
        const int faces[3] = {ls.triangleAt[b][c], ls.triangleAt[a][c], t};
        for (const int f : faces)
          ls.tetsOf[f][ls.tetsOf[f][0] == kNone ? 0 : 1] = std::uint8_t(tet);
      }
    }
  }
  return true;
}

// a <= b afterwards (a compare-exchange, for sorting networks).
TOPOGPU_HD void orderPair(int& a, int& b) {
  const int low = a < b ? a : b;
  b = a < b ? b : a;
  a = low;
}

// The id of the cell at position p (ImplicitTriangulation's numbering). The chain's
// base is its vertex of smallest coordinate sum: v when every step is positive, else the
// step `low` of most negative sum, whose mask then holds those of the other negative
// steps and is disjoint from the positive ones (the cell's vertices are pairwise
// adjacent). From that base, v lies at low's mask, a positive step q at mask(q) | mask
// (low), a negative one at mask(low) minus mask(q).
// (For a cell of dimension Dim: fixed-size arrays the compiler keeps in registers.)
template <int Dim>
TOPOGPU_HD SimplexId cellIdOf(const GridSimplices& g, const LowerStar& ls,
                              std::uint16_t cell) {
  int l[Dim], low = -1, lowSum = 0; // the cell's lower neighbours (local indices)
  for (int i = 0; i < Dim; ++i) {
    l[i] = localOf(cell, i);
    if (ls.sum[l[i]] < lowSum) {
      lowSum = ls.sum[l[i]];
      low = i;
    }
  }
  const int lowMask = low < 0 ? 0 : ls.mask[l[low]];
  const SimplexId base[3] = {ls.c[0] - (lowMask & 1), ls.c[1] - ((lowMask >> 1) & 1),
                             ls.c[2] - ((lowMask >> 2) & 1)};
  // The chain's masks without the base's 0: low's is v's own.
  int masks[Dim];
  for (int i = 0; i < Dim; ++i)
    masks[i] = i == low            ? lowMask
               : ls.sign[l[i]] > 0 ? ls.mask[l[i]] | lowMask
                                   : lowMask & ~ls.mask[l[i]];
  // Nested masks sort by size as by value.
  if constexpr (Dim >= 2)
    orderPair(masks[0], masks[1]);
  if constexpr (Dim == 3) {
    orderPair(masks[1], masks[2]);
    orderPair(masks[0], masks[1]);
  }
  return gridSimplexId(g, Dim, base, masks);
}

TOPOGPU_HD SimplexId cellId(const GridSimplices& g, const LowerStar& ls, int p) {
  const std::uint16_t cell = ls.cell[p];
  switch (dimensionOf(cell)) {
  case 1:
    return cellIdOf<1>(g, ls, cell);
  case 2:
    return cellIdOf<2>(g, ls, cell);
  default:
    return cellIdOf<3>(g, ls, cell);
  }
}

// Faces of the cell at position p in the lower star: how many are unpaired, the last.
TOPOGPU_HD int unpairedFaces(const LowerStar& ls, int p, int& face) {
  const std::uint16_t cell = ls.cell[p];
  const int a = localOf(cell, 0), b = localOf(cell, 1), c = localOf(cell, 2);
  int faces[3], count = 0;
  if (dimensionOf(cell) == 2) {
    faces[count++] = ls.edgeAt[b];
    faces[count++] = ls.edgeAt[a];
  } else {
    faces[count++] = ls.triangleAt[b][c];
    faces[count++] = ls.triangleAt[a][c];
    faces[count++] = ls.triangleAt[a][b];
  }
  int n = 0;
  for (int i = 0; i < count; ++i)
    if (!ls.paired.has(faces[i])) {
      ++n;
      face = faces[i];
    }
  return n;
}

// Cofaces of the cell at position p left with exactly one unpaired face become pairable.
TOPOGPU_HD void pushCofaces(const LowerStar& ls, int p, PositionSet& pairable) {
  const std::uint16_t cell = ls.cell[p];
  int face = -1;
  if (dimensionOf(cell) == 1) {
    const int a = localOf(cell, 0);
    for (unsigned rest = ls.adjacent[a]; rest != 0; rest &= rest - 1) {
      const int x = lowestBit(rest);
      const int t = x > a ? ls.triangleAt[x][a] : ls.triangleAt[a][x];
      if (unpairedFaces(ls, t, face) == 1)
        pairable.add(t);
    }
  } else if (dimensionOf(cell) == 2) {
    for (int i = 0; i < 2; ++i) {
      const int tet = ls.tetsOf[p][i];
      if (tet != kNone && unpairedFaces(ls, tet, face) == 1)
        pairable.add(tet);
    }
  }
}

// The face at position f paired with its coface at position p: the face's byte is
// kPairedUp, the coface's the backend index of that face, which omits the coface's
// vertex of slot dim - index (slots in the chain's order, by coordinate sums).
TOPOGPU_HD void pairCells(const GridSimplices& g, LowerStar& ls, int f, int p,
                          GradientBytes out) {
  const int dim = dimensionOf(ls.cell[p]);
  out.bytes[dim - 1][cellId(g, ls, f)] = kPairedUp;
  // The coface's vertex missing from the face: the local index in p and not in f.
  int omitted = 0;
  for (int i = 0; i < dim; ++i) {
    bool inFace = false;
    for (int j = 0; j < dim - 1; ++j)
      inFace = inFace || localOf(ls.cell[f], j) == localOf(ls.cell[p], i);
    if (!inFace)
      omitted = i;
  }
  const int sum = ls.sum[localOf(ls.cell[p], omitted)];
  int slot = sum > 0 ? 1 : 0; // v's sum is 0
  for (int i = 0; i < dim; ++i)
    slot += i != omitted && ls.sum[localOf(ls.cell[p], i)] < sum;
  out.bytes[dim][cellId(g, ls, p)] = std::uint8_t(dim - slot);
  ls.paired.add(f);
  ls.paired.add(p);
}

} // namespace grid_star

// ProcessLowerStars for vertex v of the grid: writes the byte of every simplex whose
// highest vertex in the order (rank: each vertex's position) is v.
TOPOGPU_HD void processGridLowerStar(const GridSimplices& g, SimplexId v,
                                     const SimplexId* rank, GradientBytes out) {
  using namespace grid_star;
  LowerStar ls;
  if (!buildLowerStar(g.dims, v, rank, ls)) {
    out.bytes[0][v] = kCritical; // a minimum
    return;
  }
  // v is paired with its lowest lower edge; v is that edge's vertex 0 (its base) when
  // the step is positive.
  out.bytes[0][v] = kPairedUp;
  out.bytes[1][cellId(g, ls, 0)] = ls.sign[0] > 0 ? 0 : 1;
  ls.paired.add(0);
  PositionSet pairable{{0, 0}}, candidates{{0, 0}};
  for (int a = 1; a < ls.k; ++a)
    candidates.add(ls.edgeAt[a]);
  pushCofaces(ls, 0, pairable);
  while (!pairable.empty() || !candidates.empty()) {
    while (!pairable.empty()) {
      const int p = pairable.pop();
      int face = -1;
      if (unpairedFaces(ls, p, face) == 0) {
        candidates.add(p);
      } else {
        pairCells(g, ls, face, p, out);
        pushCofaces(ls, p, pairable);
        pushCofaces(ls, face, pairable);
      }
    }
    while (!candidates.empty() && ls.paired.has(candidates.top()))
      candidates.pop();
    if (!candidates.empty()) {
      const int p = candidates.pop();
      ls.paired.add(p);
      out.bytes[dimensionOf(ls.cell[p])][cellId(g, ls, p)] = kCritical;
      pushCofaces(ls, p, pairable);
    }
  }
}

} // namespace topogpu::discrete_gradient::simplicial
