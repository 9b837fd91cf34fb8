#include "MorseSmaleComplex.h"

#include "core/discrete_gradient/PointerJumping.h"
#include "core/morse_smale_complex/ManifoldLabels.h"
#include "core/morse_smale_complex/MorseSmaleComplexGpu.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <limits>
#include <string>

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

template <typename F> void fill(std::vector<SimplexId>& out, SimplexId n, F successor) {
  out.resize(std::size_t(n));
  tbb::parallel_for(SimplexId(0), n, [&](SimplexId i) { out[i] = successor(i); });
}

} // namespace

std::size_t deviceBytes(const cubical::Grid& grid, const ScalarArrayView& values,
                        const Parameters& parameters) {
  // Stage 1 as the discrete gradient's estimate; stage 2 holds the gradient bytes, the
  // vertex order, double-buffered roots of vertices and top cells and the three label
  // arrays (at most 7 words per vertex at once); stage 3 the gradient, a mark byte per
  // cell and frontier slots (a rough share: 2 words per vertex).
  const std::size_t n = std::size_t(grid.n[0] * grid.n[1] * grid.n[2]);
  const std::size_t cells = std::size_t(cubical::cellCount(grid));
  const std::size_t word = sizeof(SimplexId);
  std::size_t bytes = std::max(discrete_gradient::detail::deviceBytes(grid, values),
                               cells + 7 * word * n);
  if (parameters.computeSaddleConnections && grid.dimension == 3)
    bytes = std::max(bytes, 2 * cells + 2 * word * n);
  return bytes;
}

void runGpu(const cubical::Grid& grid, const ScalarArrayView& values,
            const Parameters& parameters, const Monitor& monitor, Output& output) {
  gpu::computeMorseSmaleComplex(grid, values, parameters.computeSaddleConnections,
                                parameters.keepVertexOrder, monitor, output);
}

void boundaryRoots(const cubical::Grid& g, Roots& roots, const Monitor& monitor) {
  const SimplexId* rank = roots.rank.data();
  fill(roots.boundary, cubical::boundaryFacetCount(g),
       [&](SimplexId i) { return cubical::boundarySuccessor(g, rank, i); });
  discrete_gradient::jumpToRoots(roots.boundary, monitor);
}

void computeRootsCpu(const discrete_gradient::Output& dg, const Monitor& monitor,
                     Roots& roots, RunReport& report) {
  const cubical::Grid g = dg.grid;
  const std::uint8_t* gradient = dg.gradient.data();
  Timer timer;
  fill(roots.vertex, SimplexId(roots.rank.size()),
       [&](SimplexId v) { return cubical::vertexSuccessor(g, gradient, v); });
  discrete_gradient::jumpToRoots(roots.vertex, monitor);
  report.timings.emplace_back("minima roots (cpu)", timer.seconds());
  monitor.report(0.6);
  timer.reset();
  fill(roots.topCell, cubical::topCellCount(g),
       [&](SimplexId t) { return cubical::topCellSuccessor(g, gradient, t); });
  discrete_gradient::jumpToRoots(roots.topCell, monitor);
  boundaryRoots(g, roots, monitor);
  report.timings.emplace_back("maxima roots (cpu)", timer.seconds());
  monitor.report(1.0);
}

void assemble(const Roots& roots, Output& output) {
  Timer timer;
  const discrete_gradient::Output& dg = output.gradient;
  const cubical::Grid g = dg.grid;
  const int d = g.dimension;
  const std::uint8_t* gradient = dg.gradient.data();
  const std::vector<SimplexId>& minima = dg.criticalCells[0];
  const std::vector<SimplexId>& topMaxima = dg.criticalCells[d];
  const SimplexId nMinima = SimplexId(minima.size());
  const SimplexId nTopMaxima = SimplexId(topMaxima.size());
  const SimplexId nVertices = SimplexId(roots.vertex.size());
  const SimplexId nTop = SimplexId(roots.topCell.size());
  const SimplexId nBoundary = SimplexId(roots.boundary.size());

  // Boundary roots: a critical maximum's facet stands for it; the others reached by a
  // path that leaves the box are the boundary maxima, numbered after the critical ones
  // in ascending refined id.
  std::vector<SimplexId> boundaryLabel(std::size_t(nBoundary), -1);
  std::vector<std::uint8_t> reached(std::size_t(nBoundary), 0);
  tbb::parallel_for(SimplexId(0), nBoundary, [&](SimplexId i) {
    boundaryLabel[i] =
        cubical::boundaryRootLabel(g, gradient, topMaxima.data(), nTopMaxima, i);
  });
  tbb::parallel_for(SimplexId(0), nTop, [&](SimplexId t) {
    if (roots.topCell[t] < 0) {
      const SimplexId root =
          roots.boundary[cubical::boundaryIndexOf(g, -1 - roots.topCell[t])];
      if (boundaryLabel[root] < 0)
        reached[root] = 1; // every writer stores the same byte
    }
  });
  output.maxima = topMaxima;
  for (SimplexId i = 0; i < nBoundary; ++i)
    if (reached[i])
      output.maxima.push_back(cubical::boundaryFacetOf(g, i));
  std::sort(output.maxima.begin() + std::ptrdiff_t(nTopMaxima), output.maxima.end());
  output.boundaryMaxima = SimplexId(output.maxima.size()) - nTopMaxima;
  checkLabelRange(nMinima, "minima");
  checkLabelRange(SimplexId(output.maxima.size()), "maxima");
  for (SimplexId k = nTopMaxima; k < SimplexId(output.maxima.size()); ++k)
    boundaryLabel[cubical::boundaryIndexOf(g, output.maxima[k])] = k;
  output.report.timings.emplace_back("boundary maxima (cpu)", timer.seconds());

  timer.reset();
  output.descendingManifold.resize(std::size_t(nVertices));
  tbb::parallel_for(SimplexId(0), nVertices, [&](SimplexId v) {
    output.descendingManifold[v] = ManifoldLabel(cubical::indexIn(
        minima.data(), nMinima, cubical::vertexCell(g, roots.vertex[v])));
  });
  output.cellAscendingManifold.resize(std::size_t(nTop));
  tbb::parallel_for(SimplexId(0), nTop, [&](SimplexId t) {
    output.cellAscendingManifold[t] = ManifoldLabel(
        cubical::topCellLabel(g, roots.topCell[t], topMaxima.data(), nTopMaxima,
                              roots.boundary.data(), boundaryLabel.data()));
  });
  output.report.timings.emplace_back("labels (cpu)", timer.seconds());

  timer.reset();
  output.ascendingManifold.resize(std::size_t(nVertices));
  tbb::parallel_for(SimplexId(0), nVertices, [&](SimplexId v) {
    const SimplexId best = cubical::highestStarCell(g, roots.rank.data(), v);
    output.ascendingManifold[v] = best >= 0 ? output.cellAscendingManifold[best] : -1;
  });
  countUnlabelled(output);
  output.report.timings.emplace_back("vertex maximum rule (cpu)", timer.seconds());

  timer.reset();
  const std::vector<SimplexId>& saddles = dg.criticalCells[d - 1];
  std::vector<SimplexId> ends1(2 * dg.criticalCells[1].size()),
      endsMax(2 * saddles.size());
  tbb::parallel_for(std::size_t(0), dg.criticalCells[1].size(), [&](std::size_t i) {
    SimplexId v[2];
    cubical::edgeVertices(g, dg.criticalCells[1][i], v);
    for (int k = 0; k < 2; ++k)
      ends1[2 * i + k] = minima[std::size_t(output.descendingManifold[v[k]])];
  });
  tbb::parallel_for(std::size_t(0), saddles.size(), [&](std::size_t i) {
    SimplexId side[2];
    bool exits[2];
    cubical::saddleSides(g, saddles[i], side, exits);
    for (int k = 0; k < 2; ++k)
      endsMax[2 * i + k] =
          exits[k] ? -1
                   : output.maxima[std::size_t(output.cellAscendingManifold[side[k]])];
  });
  addArcs(dg.criticalCells[1], ends1, output.saddle1Minimum);
  addArcs(saddles, endsMax, output.saddleMaximum);
  output.report.timings.emplace_back("arcs (cpu)", timer.seconds());
}

void checkLabelRange(SimplexId count, const char* kind) {
  if (count > SimplexId(std::numeric_limits<ManifoldLabel>::max()))
    throw Error("morse-smale complex: " + std::to_string(count) + " " + kind +
                " exceed the 32-bit manifold labels (at most 2^31 - 1)");
}

void countUnlabelled(Output& output) {
  auto countNegative = [](const std::vector<ManifoldLabel>& labels) {
    return SimplexId(std::count_if(labels.begin(), labels.end(),
                                   [](ManifoldLabel l) { return l < 0; }));
  };
  output.unlabelledDescending = countNegative(output.descendingManifold);
  output.unlabelledAscending = countNegative(output.ascendingManifold);
  output.unlabelledCells = countNegative(output.cellAscendingManifold);
}

void addArcs(const std::vector<SimplexId>& saddles, const std::vector<SimplexId>& ends,
             std::vector<Arc>& arcs) {
  // A saddle's two V-paths; the same extremum twice is one arc of multiplicity 2, and a
  // saddle on the boundary (one side outside the box, -1) has one path. Blocks of
  // saddles count their arcs, then write them at their prefix offsets (in saddle order).
  const auto arcCount = [&](std::size_t i) {
    const SimplexId e0 = ends[2 * i], e1 = ends[2 * i + 1];
    return e0 < 0 || e1 < 0 || e0 == e1 ? 1 : 2;
  };
  constexpr std::size_t kBlock = 1 << 14;
  const std::size_t blocks = (saddles.size() + kBlock - 1) / kBlock;
  std::vector<std::size_t> offset(blocks + 1, 0);
  tbb::parallel_for(std::size_t(0), blocks, [&](std::size_t b) {
    for (std::size_t i = b * kBlock; i < std::min(saddles.size(), (b + 1) * kBlock); ++i)
      offset[b + 1] += std::size_t(arcCount(i));
  });
  for (std::size_t b = 0; b < blocks; ++b)
    offset[b + 1] += offset[b];
  arcs.assign(offset[blocks], Arc());
  tbb::parallel_for(std::size_t(0), blocks, [&](std::size_t b) {
    std::size_t at = offset[b];
    for (std::size_t i = b * kBlock; i < std::min(saddles.size(), (b + 1) * kBlock);
         ++i) {
      const SimplexId s = saddles[i], e0 = ends[2 * i], e1 = ends[2 * i + 1];
      if (e0 < 0 || e1 < 0) {
        arcs[at++] = {s, e0 < 0 ? e1 : e0, 1};
      } else if (e0 == e1) {
        arcs[at++] = {s, e0, 2};
      } else {
        arcs[at++] = {s, std::min(e0, e1), 1};
        arcs[at++] = {s, std::max(e0, e1), 1};
      }
    }
  });
}

} // namespace topogpu::morse_smale_complex::detail
