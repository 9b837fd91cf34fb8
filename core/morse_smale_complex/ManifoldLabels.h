// Per-element rules of the Morse-Smale complex's labels and saddle-extremum arcs (stage
// 2), host + device: the CPU assembly (MorseSmaleComplex.cpp) and the GPU
// kernels (cuda/morse_smale_complex) call these same functions, so both paths give
// identical labels and arcs.
#pragma once

#include "core/morse_smale_complex/GradientForest.h"

namespace topogpu::cubical {

// Position of value in the ascending list, -1 if absent.
TOPOGPU_HD SimplexId indexIn(const SimplexId* sorted, SimplexId n, SimplexId value) {
  SimplexId lo = 0, hi = n;
  while (lo < hi) {
    const SimplexId mid = lo + (hi - lo) / 2;
    if (sorted[mid] < value)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && sorted[lo] == value ? lo : -1;
}

// The two cofaces of a (d-1)-saddle s across its unspanned axis: side[k] is the top cell
// index, or s itself with exits[k] set where the side is outside the box.
TOPOGPU_HD void saddleSides(const Grid& g, SimplexId s, SimplexId side[2],
                            bool exits[2]) {
  SimplexId c[3];
  cellCoords(g, s, c);
  const int a = unspannedAxis(g, c);
  for (int k = 0; k < 2; ++k) {
    SimplexId p[3] = {c[0], c[1], c[2]};
    p[a] += k ? 1 : -1;
    exits[k] = p[a] < 0 || p[a] >= refinedSize(g, a);
    side[k] = exits[k] ? s : topIndexAt(g, p);
  }
}

// The two vertices of 1-saddle e (a critical edge), as vertex ids.
TOPOGPU_HD void edgeVertices(const Grid& g, SimplexId e, SimplexId v[2]) {
  SimplexId c[3];
  cellCoords(g, e, c);
  const SimplexId step = refinedStride(g, c[0] & 1 ? 0 : (c[1] & 1 ? 1 : 2));
  v[0] = vertexOfCell(g, e - step);
  v[1] = vertexOfCell(g, e + step);
}

// The vertex maximum rule: vertex v takes the descending label of the highest top cell
// of its star in the lower-star order (keys compared on their vertex ranks, highest
// first). Returns that top cell's index, -1 for a grid without top cells. The
// neighbourhood's ranks are read once (27 loads, not 8 cells x 8 vertices), and only
// cells containing the neighbourhood's highest vertex can win.
TOPOGPU_HD SimplexId highestStarCell(const Grid& g, const SimplexId* rank, SimplexId v) {
  const int d = g.dimension;
  SimplexId c[3];
  vertexCoords(g, v, c);
  SimplexId r[27];
  const int neighbours = d == 3 ? 27 : 9;
  for (int t = 0; t < neighbours; ++t) {
    const SimplexId x = c[0] + t % 3 - 1, y = c[1] + t / 3 % 3 - 1, z = c[2] + t / 9 - 1;
    const bool in = x >= 0 && x < g.n[0] && y >= 0 && y < g.n[1] &&
                    (d == 2 || (z >= 0 && z < g.n[2]));
    r[t] = in ? rank[x + g.n[0] * (y + g.n[1] * (d == 2 ? 0 : z))] : -1;
  }
  int top = 0;
  for (int t = 1; t < neighbours; ++t)
    top = r[t] > r[top] ? t : top;
  const int topOffset[3] = {top % 3 - 1, top / 3 % 3 - 1, top / 9 - 1};
  SimplexId best = -1, bestKey[8], key[8];
  const int count = 1 << d;
  for (int corner = 0; corner < count; ++corner) {
    int side[3] = {0, 0, 0};
    const int t0 = d == 2 ? 4 : 13;
    bool ok = true;
    for (int a = 0; a < d; ++a) {
      side[a] = (corner >> a) & 1 ? 1 : -1;
      const SimplexId x = c[a] + side[a];
      ok = ok && x >= 0 && x < g.n[a] && (topOffset[a] == 0 || topOffset[a] == side[a]);
    }
    if (!ok)
      continue;
    for (int sub = 0; sub < count; ++sub) {
      int t = t0;
      for (int a = 0; a < d; ++a)
        t += (sub >> a) & 1 ? side[a] * (a == 0 ? 1 : (a == 1 ? 3 : 9)) : 0;
      int at = sub;
      while (at > 0 && key[at - 1] < r[t]) {
        key[at] = key[at - 1];
        --at;
      }
      key[at] = r[t];
    }
    if (best < 0 || keyLess(bestKey, key, count)) {
      SimplexId p[3] = {0, 0, 0};
      for (int a = 0; a < d; ++a)
        p[a] = 2 * c[a] + side[a];
      best = topIndexAt(g, p);
      for (int k = 0; k < count; ++k)
        bestKey[k] = key[k];
    }
  }
  return best;
}

} // namespace topogpu::cubical

namespace topogpu::cubical {

// The maximum a boundary root facet stands for when its top cell is a critical maximum
// (its index in the ascending list topMaxima), else -1 (a boundary maximum, numbered
// later if a path reaches it).
TOPOGPU_HD SimplexId boundaryRootLabel(const Grid& g, const std::uint8_t* gradient,
                                       const SimplexId* topMaxima, SimplexId nTopMaxima,
                                       SimplexId root) {
  const SimplexId top = topCellOf(g, boundaryCoface(g, boundaryFacetOf(g, root)));
  return gradient[top] == kCritical ? indexIn(topMaxima, nTopMaxima, top) : -1;
}

// A top cell's descending label from its root r (a top cell, or -1 - exit facet):
// boundaryLabel holds, per boundary root, the maximum's index (critical or boundary).
TOPOGPU_HD SimplexId topCellLabel(const Grid& g, SimplexId r, const SimplexId* topMaxima,
                                  SimplexId nTopMaxima, const SimplexId* boundaryRoots,
                                  const SimplexId* boundaryLabel) {
  return r >= 0 ? indexIn(topMaxima, nTopMaxima, topCellOf(g, r))
                : boundaryLabel[boundaryRoots[boundaryIndexOf(g, -1 - r)]];
}

} // namespace topogpu::cubical
