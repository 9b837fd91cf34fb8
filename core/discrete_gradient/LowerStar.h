// ProcessLowerStars of Robins, Wood and Sheppard (2011) for one vertex: the discrete
// gradient restricted to the lower star of v (the cubical cells whose highest vertex in
// the shared vertex order is v), shared by the CPU path and the CUDA kernel (host +
// device), so both write the same bytes.
//
// The lower star lives in v's 3x3x3 neighbourhood: cell t (a "trit" index, offset
// e_a = digit_a(t) - 1 along each axis, 13 = v itself) is the cell at refined
// coordinates 2c + e. Cells are compared by their vertices' ranks in decreasing order,
// lexicographically (the paper's ordering, values made distinct by the vertex order).
// Every cell of a lower star contains v, so that comparison is the integer comparison of
// bit masks in which each vertex's bit is its position in the rank order of the
// neighbourhood: the highest differing vertex decides, and a face (a subset) is below
// its cofaces. The two priority queues are bit sets of at most 27 cells.
#pragma once

#include "core/discrete_gradient/CubicalGrid.h"

#include <cstdint>

namespace topogpu::cubical {

namespace detail {

constexpr int kCenter = 13;

TOPOGPU_HD int pow3(int a) {
  return a == 0 ? 1 : (a == 1 ? 3 : 9);
}
TOPOGPU_HD int offsetOf(int t, int a) {
  return (t / pow3(a)) % 3 - 1;
}

// Index of the lowest set bit (s != 0).
TOPOGPU_HD int lowestBit(std::uint32_t s) {
#if defined(__CUDA_ARCH__)
  return __ffs(int(s)) - 1;
#else
  return __builtin_ctz(s);
#endif
}

// The element of `set` with the smallest key (set non-empty).
TOPOGPU_HD int popMin(std::uint32_t& set, const std::uint32_t* key) {
  int best = -1;
  for (std::uint32_t s = set; s != 0; s &= s - 1) {
    const int t = lowestBit(s);
    if (best < 0 || key[t] < key[best])
      best = t;
  }
  set &= ~(1u << best);
  return best;
}

// The lower star of the vertex at c (rank rv): star gets a bit per cell t of the 3x3x3
// neighbourhood in it, key[t] its key (the bit mask of its vertices' positions).
TOPOGPU_HD void lowerStarKeys(const Grid& g, const SimplexId c[3], SimplexId rv,
                              const SimplexId* rank, std::uint32_t& star,
                              std::uint32_t key[27]) {
  const int tBegin = g.dimension == 3 ? 0 : 9, tEnd = g.dimension == 3 ? 27 : 18;

  // The neighbourhood's vertices: in the grid, lower than v, their ranks.
  std::uint32_t inside = 0, lower = 0;
  SimplexId r[27];
  for (int t = tBegin; t < tEnd; ++t) {
    bool ok = true;
    SimplexId u = 0, stride = 1;
    for (int a = 0; a < 3; ++a) {
      const SimplexId x = c[a] + offsetOf(t, a);
      ok = ok && x >= 0 && x < g.n[a];
      u += x * stride;
      stride *= g.n[a];
    }
    if (!ok)
      continue;
    inside |= 1u << t;
    r[t] = rank[u];
    if (t != kCenter && r[t] < rv)
      lower |= 1u << t;
  }
  // Each vertex's bit: its position among the lower vertices, v on top.
  int bit[27];
  for (std::uint32_t s = lower; s != 0; s &= s - 1) {
    const int t = lowestBit(s);
    int below = 0;
    for (std::uint32_t w = lower; w != 0; w &= w - 1)
      below += r[lowestBit(w)] < r[t];
    bit[t] = below;
  }
  bit[kCenter] = 26;

  // The lower star: cells whose vertices other than v are all lower; their keys.
  for (int t = tBegin; t < tEnd; ++t) {
    if (!((inside >> t) & 1u))
      continue;
    int axes = 0;
    for (int a = 0; a < 3; ++a)
      axes |= (offsetOf(t, a) != 0) << a;
    bool inStar = true;
    std::uint32_t k = 0;
    // Vertices of cell t: v + the offsets of t restricted to each subset of its axes.
    for (int sub = axes;; sub = (sub - 1) & axes) {
      int u = kCenter;
      for (int a = 0; a < 3; ++a)
        if ((sub >> a) & 1)
          u += offsetOf(t, a) * pow3(a);
      if (u != kCenter && !((lower >> u) & 1u)) {
        inStar = false;
        break;
      }
      k |= 1u << bit[u];
      if (sub == 0)
        break;
    }
    if (inStar) {
      star |= 1u << t;
      key[t] = k;
    }
  }
}

} // namespace detail

// Writes the gradient byte of every cell in the lower star of v (and of no other cell).
// rank: the vertex order (rank of each vertex).
TOPOGPU_HD void processLowerStar(const Grid& g, SimplexId v, const SimplexId* rank,
                                 std::uint8_t* gradient) {
  using namespace detail;
  SimplexId c[3];
  vertexCoords(g, v, c);
  // The lower star: cells whose vertices other than v are all lower; their keys.
  std::uint32_t star = 0;
  std::uint32_t key[27];
  lowerStarKeys(g, c, rank[v], rank, star, key);

  auto cellId = [&](int t) {
    SimplexId x[3];
    for (int a = 0; a < 3; ++a)
      x[a] = 2 * c[a] + offsetOf(t, a);
    return cellAt(g, x);
  };
  std::uint32_t classified = 0;
  auto makeCritical = [&](int t) {
    gradient[cellId(t)] = kCritical;
    classified |= 1u << t;
  };
  // face + s along axis a = coface
  auto makePair = [&](int face, int coface) {
    for (int a = 0; a < 3; ++a) {
      const int s = offsetOf(coface, a) - offsetOf(face, a);
      if (s != 0) {
        gradient[cellId(face)] = pairCode(a, s);
        gradient[cellId(coface)] = pairCode(a, -s);
      }
    }
    classified |= 1u << face | 1u << coface;
  };
  // Faces of t in the lower star (those containing v): drop one spanned axis.
  auto unclassifiedFaces = [&](int t, int* last) {
    int count = 0;
    for (int a = 0; a < 3; ++a) {
      const int e = offsetOf(t, a);
      if (e == 0)
        continue;
      const int f = t - e * pow3(a);
      if (!((classified >> f) & 1u)) {
        ++count;
        *last = f;
      }
    }
    return count;
  };
  // Cofaces of t in the lower star with exactly one unclassified face join PQzero.
  auto pushCofaces = [&](int t, std::uint32_t& pqZero) {
    for (int a = 0; a < 3; ++a) {
      if (offsetOf(t, a) != 0)
        continue;
      for (int s = -1; s <= 1; s += 2) {
        const int q = t + s * pow3(a);
        if (q < 0 || q >= 27 || !((star >> q) & 1u) || ((classified >> q) & 1u))
          continue;
        int unused = -1;
        if (unclassifiedFaces(q, &unused) == 1)
          pqZero |= 1u << q;
      }
    }
  };

  std::uint32_t edges = 0;
  for (int a = 0; a < 3; ++a)
    for (int s = -1; s <= 1; s += 2) {
      const int t = kCenter + s * pow3(a);
      if ((star >> t) & 1u)
        edges |= 1u << t;
    }
  if (edges == 0) {
    makeCritical(kCenter); // a minimum
    return;
  }
  std::uint32_t pqOne = edges;
  const int delta = popMin(pqOne, key);
  makePair(kCenter, delta);
  std::uint32_t pqZero = 0;
  pushCofaces(delta, pqZero);
  for (;;) {
    while (pqZero != 0) {
      const int alpha = popMin(pqZero, key);
      if ((classified >> alpha) & 1u)
        continue;
      int face = -1;
      if (unclassifiedFaces(alpha, &face) == 0) {
        pqOne |= 1u << alpha;
        continue;
      }
      makePair(face, alpha);
      pqOne &= ~(1u << face);
      pushCofaces(alpha, pqZero);
      pushCofaces(face, pqZero);
    }
    pqOne &= ~classified;
    if (pqOne == 0)
      break;
    const int gamma = popMin(pqOne, key);
    makeCritical(gamma);
    pushCofaces(gamma, pqZero);
  }
}

} // namespace topogpu::cubical
