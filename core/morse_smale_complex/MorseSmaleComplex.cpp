#include "MorseSmaleComplex.h"

#include "core/morse_smale_complex/GradientForest.h"
#include "cuda/morse_smale_complex/MorseSmaleComplexGpu.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <memory>

namespace topogpu::morse_smale_complex {

std::vector<SimplexId> descendingPath(const discrete_gradient::Output& dg, SimplexId v) {
  const cubical::Grid& g = dg.grid;
  std::vector<SimplexId> cells{cubical::vertexCell(g, v)};
  for (SimplexId next = cubical::vertexSuccessor(g, dg.gradient.data(), v); next != v;
       next = cubical::vertexSuccessor(g, dg.gradient.data(), v)) {
    cells.push_back((cells.back() + cubical::vertexCell(g, next)) / 2); // the edge
    cells.push_back(cubical::vertexCell(g, next));
    v = next;
  }
  return cells;
}

std::vector<SimplexId> ascendingPath(const discrete_gradient::Output& dg,
                                     const SimplexId* rank, SimplexId t) {
  const cubical::Grid& g = dg.grid;
  std::vector<SimplexId> cells{cubical::topCellOf(g, t)};
  for (;;) {
    const SimplexId next = cubical::topCellSuccessor(g, dg.gradient.data(), t);
    if (next == t)
      return cells;
    if (next < 0) {
      SimplexId i = cubical::boundaryIndexOf(g, -1 - next);
      cells.push_back(-1 - next);
      for (SimplexId up = cubical::boundarySuccessor(g, rank, i); up != i;
           up = cubical::boundarySuccessor(g, rank, i)) {
        cells.push_back(cubical::boundaryFacetOf(g, up));
        i = up;
      }
      return cells;
    }
    cells.push_back((cells.back() + cubical::topCellOf(g, next)) / 2); // the facet
    cells.push_back(cubical::topCellOf(g, next));
    t = next;
  }
}

} // namespace topogpu::morse_smale_complex

namespace topogpu::morse_smale_complex::detail {

namespace {

// Root finding by pointer jumping: root[i] starts as i's successor (a node index, or a
// negative terminal); each round replaces it by its successor's, so paths halve.
void pointerJump(std::vector<SimplexId>& root, const Monitor& monitor) {
  std::vector<SimplexId> next(root.size());
  const SimplexId n = SimplexId(root.size());
  for (;;) {
    std::atomic<bool> changed{false};
    tbb::parallel_for(tbb::blocked_range<SimplexId>(0, n),
                      [&](const tbb::blocked_range<SimplexId>& r) {
                        bool local = false;
                        for (SimplexId i = r.begin(); i < r.end(); ++i) {
                          const SimplexId p = root[i];
                          const SimplexId q = p >= 0 ? root[p] : p;
                          next[i] = q;
                          local = local || q != p;
                        }
                        if (local)
                          changed.store(true, std::memory_order_relaxed);
                      });
    root.swap(next);
    monitor.checkAbort();
    if (!changed)
      return;
  }
}

template <typename F> void fill(std::vector<SimplexId>& out, SimplexId n, F successor) {
  out.resize(std::size_t(n));
  tbb::parallel_for(SimplexId(0), n, [&](SimplexId i) { out[i] = successor(i); });
}

SimplexId indexIn(const std::vector<SimplexId>& sorted, SimplexId value) {
  const auto it = std::lower_bound(sorted.begin(), sorted.end(), value);
  return it != sorted.end() && *it == value ? SimplexId(it - sorted.begin()) : -1;
}

} // namespace

std::size_t deviceBytes(const cubical::Grid& grid) {
  // The vertex order first (values, order and the sort's scratch, 8-byte values at
  // worst, as the discrete gradient's estimate), then the gradient bytes with a double
  // buffered root array of vertices and one of top cells.
  const std::size_t n = std::size_t(grid.n[0] * grid.n[1] * grid.n[2]);
  return std::max(n * (std::size_t(3 * 8) + 5 * sizeof(SimplexId)),
                  std::size_t(cubical::cellCount(grid)) + 4 * sizeof(SimplexId) * n);
}

void boundaryRoots(const cubical::Grid& g, Roots& roots, const Monitor& monitor) {
  const SimplexId* rank = roots.rank.data();
  fill(roots.boundary, cubical::boundaryFacetCount(g),
       [&](SimplexId i) { return cubical::boundarySuccessor(g, rank, i); });
  pointerJump(roots.boundary, monitor);
}

void computeRootsCpu(const ScalarArrayView& values, const discrete_gradient::Output& dg,
                     const Monitor& monitor, Roots& roots, RunReport& report) {
  const cubical::Grid g = dg.grid;
  const std::uint8_t* gradient = dg.gradient.data();
  Timer timer;
  roots.rank.resize(std::size_t(values.size));
  computeVertexOrderCpu(values, roots.rank.data(), monitor.stage(0, 0.3));
  report.timings.emplace_back("msc vertex order (cpu)", timer.seconds());
  timer.reset();
  fill(roots.vertex, values.size,
       [&](SimplexId v) { return cubical::vertexSuccessor(g, gradient, v); });
  pointerJump(roots.vertex, monitor);
  report.timings.emplace_back("minima roots (cpu)", timer.seconds());
  monitor.report(0.6);
  timer.reset();
  fill(roots.topCell, cubical::topCellCount(g),
       [&](SimplexId t) { return cubical::topCellSuccessor(g, gradient, t); });
  pointerJump(roots.topCell, monitor);
  boundaryRoots(g, roots, monitor);
  report.timings.emplace_back("maxima roots (cpu)", timer.seconds());
  monitor.report(1.0);
}

void computeRootsGpu(const ScalarArrayView& values, const discrete_gradient::Output& dg,
                     const Monitor& monitor, Roots& roots, RunReport& report) {
  gpu::computeGradientRoots(dg.grid, values, dg.gradient, monitor, roots.rank,
                            roots.vertex, roots.topCell, report);
  // The boundary surface is a fraction of the cells: its forest runs on the host.
  Timer timer;
  boundaryRoots(dg.grid, roots, monitor);
  report.timings.emplace_back("boundary roots (cpu)", timer.seconds());
}

void assemble(const Roots& roots, Output& output) {
  Timer timer;
  const discrete_gradient::Output& dg = output.gradient;
  const cubical::Grid g = dg.grid;
  const int d = g.dimension;
  const std::uint8_t* gradient = dg.gradient.data();
  const std::vector<SimplexId>& minima = dg.criticalCells[0];
  const std::vector<SimplexId>& topMaxima = dg.criticalCells[d];
  const SimplexId nVertices = SimplexId(roots.vertex.size());
  const SimplexId nTop = SimplexId(roots.topCell.size());
  const SimplexId nBoundary = SimplexId(roots.boundary.size());

  // A boundary root whose top cell is a critical maximum is that maximum; otherwise it
  // is a boundary maximum, numbered after the interior ones if a path reaches it.
  std::vector<SimplexId> boundaryLabel(std::size_t(nBoundary), -1);
  std::unique_ptr<std::atomic<bool>[]> reached(
      new std::atomic<bool>[std::size_t(nBoundary)]);
  tbb::parallel_for(SimplexId(0), nBoundary, [&](SimplexId i) {
    reached[i].store(false, std::memory_order_relaxed);
    const SimplexId root = roots.boundary[i];
    const SimplexId coface =
        cubical::boundaryCoface(g, cubical::boundaryFacetOf(g, root));
    if (gradient[cubical::topCellOf(g, coface)] == cubical::kCritical)
      boundaryLabel[i] = indexIn(topMaxima, cubical::topCellOf(g, coface));
  });
  auto markExit = [&](SimplexId facet) {
    const SimplexId root = roots.boundary[cubical::boundaryIndexOf(g, facet)];
    if (boundaryLabel[root] < 0)
      reached[root].store(true, std::memory_order_relaxed);
  };
  tbb::parallel_for(SimplexId(0), nTop, [&](SimplexId t) {
    if (roots.topCell[t] < 0)
      markExit(-1 - roots.topCell[t]);
  });
  const std::vector<SimplexId>& saddles = dg.criticalCells[d - 1];
  auto saddleSides = [&](SimplexId s, SimplexId side[2], bool exits[2]) {
    SimplexId c[3];
    cubical::cellCoords(g, s, c);
    const int a = cubical::unspannedAxis(g, c);
    for (int k = 0; k < 2; ++k) {
      SimplexId p[3] = {c[0], c[1], c[2]};
      p[a] += k ? 1 : -1;
      exits[k] = p[a] < 0 || p[a] >= cubical::refinedSize(g, a);
      side[k] = exits[k] ? s : cubical::topIndexAt(g, p);
    }
  };
  output.maxima = topMaxima;
  std::vector<SimplexId> boundaryMaximumLabel(std::size_t(nBoundary), -1);
  for (SimplexId i = 0; i < nBoundary; ++i)
    if (reached[i].load(std::memory_order_relaxed))
      output.maxima.push_back(cubical::boundaryFacetOf(g, i));
  std::sort(output.maxima.begin() + std::ptrdiff_t(topMaxima.size()),
            output.maxima.end());
  output.boundaryMaxima = SimplexId(output.maxima.size() - topMaxima.size());
  for (SimplexId k = SimplexId(topMaxima.size()); k < SimplexId(output.maxima.size());
       ++k)
    boundaryMaximumLabel[cubical::boundaryIndexOf(g, output.maxima[k])] = k;
  auto exitLabel = [&](SimplexId facet) {
    const SimplexId root = roots.boundary[cubical::boundaryIndexOf(g, facet)];
    return boundaryLabel[root] >= 0 ? boundaryLabel[root] : boundaryMaximumLabel[root];
  };

  output.report.timings.emplace_back("boundary maxima (cpu)", timer.seconds());
  timer.reset();
  // Labels.
  output.ascendingManifold.resize(std::size_t(nVertices));
  tbb::parallel_for(SimplexId(0), nVertices, [&](SimplexId v) {
    output.ascendingManifold[v] =
        indexIn(minima, cubical::vertexCell(g, roots.vertex[v]));
  });
  output.cellDescendingManifold.resize(std::size_t(nTop));
  tbb::parallel_for(SimplexId(0), nTop, [&](SimplexId t) {
    const SimplexId r = roots.topCell[t];
    output.cellDescendingManifold[t] =
        r >= 0 ? indexIn(topMaxima, cubical::topCellOf(g, r)) : exitLabel(-1 - r);
  });
  output.report.timings.emplace_back("labels (cpu)", timer.seconds());
  timer.reset();
  // A vertex takes the label of the highest top cell of its star (the lower-star order).
  output.descendingManifold.resize(std::size_t(nVertices));
  // The neighbourhood's ranks are read once (27 loads, not 8 cells x 8 vertices).
  tbb::parallel_for(SimplexId(0), nVertices, [&](SimplexId v) {
    SimplexId c[3];
    cubical::vertexCoords(g, v, c);
    SimplexId r[27];
    for (int t = 0; t < (d == 3 ? 27 : 9); ++t) {
      const SimplexId x = c[0] + t % 3 - 1, y = c[1] + t / 3 % 3 - 1,
                      z = c[2] + t / 9 - 1;
      const bool in = x >= 0 && x < g.n[0] && y >= 0 && y < g.n[1] &&
                      (d == 2 || (z >= 0 && z < g.n[2]));
      r[t] = in ? roots.rank[x + g.n[0] * (y + g.n[1] * (d == 2 ? 0 : z))] : -1;
    }
    // Keys start with their highest rank: only the cells containing the neighbourhood's
    // highest vertex can win.
    int top = 0;
    for (int t = 1; t < (d == 3 ? 27 : 9); ++t)
      top = r[t] > r[top] ? t : top;
    const int topOffset[3] = {top % 3 - 1, top / 3 % 3 - 1, top / 9 - 1};
    SimplexId best = -1, bestKey[8], key[8];
    const int count = 1 << d;
    for (int corner = 0; corner < count; ++corner) {
      int side[3] = {0, 0, 0}, t0 = 13 - (d == 2 ? 9 : 0);
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
      if (best < 0 || cubical::keyLess(bestKey, key, count)) {
        SimplexId p[3] = {0, 0, 0};
        for (int a = 0; a < d; ++a)
          p[a] = 2 * c[a] + side[a];
        best = cubical::topIndexAt(g, p);
        std::copy(key, key + count, bestKey);
      }
    }
    output.descendingManifold[v] = best >= 0 ? output.cellDescendingManifold[best] : -1;
  });
  auto countNegative = [](const std::vector<SimplexId>& labels) {
    return SimplexId(
        std::count_if(labels.begin(), labels.end(), [](SimplexId l) { return l < 0; }));
  };
  output.unlabelledAscending = countNegative(output.ascendingManifold);
  output.unlabelledDescending = countNegative(output.descendingManifold);
  output.unlabelledCells = countNegative(output.cellDescendingManifold);

  output.report.timings.emplace_back("vertex maximum rule (cpu)", timer.seconds());
  timer.reset();
  // Arcs: a saddle's two V-paths; the same extremum twice is one arc of multiplicity 2.
  auto addArcs = [](std::vector<Arc>& arcs, SimplexId saddle, SimplexId e0,
                    SimplexId e1) {
    if (e0 == e1) {
      arcs.push_back({saddle, e0, 2});
    } else {
      arcs.push_back({saddle, std::min(e0, e1), 1});
      arcs.push_back({saddle, std::max(e0, e1), 1});
    }
  };
  for (const SimplexId e : dg.criticalCells[1]) {
    SimplexId c[3];
    cubical::cellCoords(g, e, c);
    const SimplexId step = cubical::refinedStride(g, c[0] & 1 ? 0 : (c[1] & 1 ? 1 : 2));
    const SimplexId m0 =
        minima[output.ascendingManifold[cubical::vertexOfCell(g, e - step)]];
    const SimplexId m1 =
        minima[output.ascendingManifold[cubical::vertexOfCell(g, e + step)]];
    addArcs(output.saddle1Minimum, e, m0, m1);
  }
  // A saddle on the boundary has one coface, so one V-path: one arc of multiplicity 1.
  for (const SimplexId s : saddles) {
    SimplexId side[2];
    bool exits[2];
    saddleSides(s, side, exits);
    if (exits[0] || exits[1]) {
      const SimplexId inside = output.cellDescendingManifold[side[exits[0] ? 1 : 0]];
      output.saddleMaximum.push_back({s, output.maxima[inside], 1});
      continue;
    }
    addArcs(output.saddleMaximum, s,
            output.maxima[output.cellDescendingManifold[side[0]]],
            output.maxima[output.cellDescendingManifold[side[1]]]);
  }
  output.report.timings.emplace_back("arcs (cpu)", timer.seconds());
}

} // namespace topogpu::morse_smale_complex::detail
