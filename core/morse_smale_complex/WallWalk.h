// The walls of the saddles (2-separatrices) as one breadth-first search per saddle,
// shared by the grid's cubical complex (Separatrices2.cpp) and the simplicial complex
// (SimplicialSeparatrices2.h): each complex names a cell's successors on a wall and the
// saddles of the other kind it touches; this walks them, saddles in parallel (TBB), each
// wall with its own visited set (LocalIndex, per thread: memory follows the wall, not the
// complex), and gathers the walls in CSR form (separatrices2::Walls).
#pragma once

#include "base/Types.h"
#include "core/morse_smale_complex/LocalIndex.h"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

namespace topogpu::separatrices2 {

// The walls of one kind, saddle by saddle in the order of the gradient's criticalCells,
// in CSR form.
struct Walls {
  std::vector<SimplexId> saddles;
  // Per saddle, its wall's cells in ascending order, the saddle itself included: quads
  // (grid) or triangles (simplicial) for a descending wall, edges for an ascending one.
  // Empty offsets past the first when the walls were only counted (cellCounts holds the
  // sizes then).
  std::vector<std::size_t> offsets{0};
  std::vector<SimplexId> cells;
  // Per saddle, the number of cells of its wall (kept or not).
  std::vector<std::size_t> cellCounts;
  // Per saddle, the critical cells of the other saddle kind on its wall's border, in
  // ascending order: the critical edges that are faces of a descending wall's quads or
  // triangles, the critical quads or triangles that are cofaces of an ascending wall's
  // edges (TTK's separatricesSaddles, for the function range and IsOnBoundary).
  std::vector<std::size_t> reachedOffsets{0};
  std::vector<SimplexId> reached;

  std::size_t size() const { return saddles.size(); }
  std::size_t totalCells() const {
    std::size_t n = 0;
    for (const std::size_t c : cellCounts)
      n += c;
    return n;
  }
};

namespace detail {

// The Error of walls beyond Parameters::maxCells (kind: which walls were asked for).
inline Error wallsTooLarge(const std::string& kind, std::size_t limit) {
  return Error("2-separatrices: the " + kind + " walls hold more than the limit of " +
               std::to_string(limit) +
               " cells in all (each saddle's wall can span the domain, and the output "
               "grows with saddles x wall size); compute them on a smaller or smoothed "
               "field, or switch them off");
}

// One wall per saddle; `step(cell, visit, reach)` names a cell's successors on the wall
// (visit) and the saddles of the other kind it touches (reach). With keepCells, counts
// cells against `budget` as they are found, so a runaway wall stops early; `over` tells
// whether the budget ran out (the walls are then incomplete). Without keepCells only the
// sizes and the reached saddles are kept (no budget: the memory is one wall per thread).
template <typename Step>
void walkWalls(const std::vector<SimplexId>& saddles, Step&& step, bool keepCells,
               std::size_t budget, const Monitor& monitor, Walls& walls, bool& over) {
  const std::size_t n = saddles.size();
  std::vector<std::vector<SimplexId>> cells(n), reached(n);
  std::vector<std::size_t> counts(n, 0);
  std::atomic<std::size_t> counted{0};
  std::atomic<bool> exceeded{false};
  constexpr std::size_t kCountEvery = 4096;
  struct Scratch {
    morse_smale_complex::LocalIndex visited;
    std::vector<SimplexId> queue;
  };
  tbb::enumerable_thread_specific<Scratch> scratch;
  auto one = [&](std::size_t i) {
    Scratch& s = scratch.local();
    s.visited.clear();
    s.queue.clear();
    std::vector<SimplexId>& border = reached[i];
    std::size_t uncounted = 0;
    auto visit = [&](SimplexId cell) {
      bool inserted = false;
      s.visited.insert(cell, inserted);
      if (!inserted)
        return;
      s.queue.push_back(cell); // cells are walked in the order found
      if (keepCells && ++uncounted == kCountEvery) {
        uncounted = 0;
        if (counted.fetch_add(kCountEvery) + kCountEvery > budget)
          exceeded = true;
      }
    };
    auto reach = [&](SimplexId cell) { border.push_back(cell); };
    visit(saddles[i]);
    for (std::size_t k = 0; k < s.queue.size() && !exceeded; ++k)
      step(s.queue[k], visit, reach);
    if (keepCells && counted.fetch_add(uncounted) + uncounted > budget)
      exceeded = true;
    counts[i] = s.queue.size();
    if (keepCells) {
      cells[i] = s.queue;
      std::sort(cells[i].begin(), cells[i].end());
    }
    std::sort(border.begin(), border.end());
    border.erase(std::unique(border.begin(), border.end()), border.end());
  };
  // Blocks of saddles between progress reports and abort checks (calling thread only).
  const std::size_t blocks = std::min<std::size_t>(n, 64);
  for (std::size_t b = 0; b < blocks && !exceeded; ++b) {
    tbb::parallel_for(
        tbb::blocked_range<std::size_t>(n * b / blocks, n * (b + 1) / blocks, 1),
        [&](const tbb::blocked_range<std::size_t>& r) {
          for (std::size_t i = r.begin(); i != r.end() && !exceeded; ++i)
            one(i);
        });
    monitor.report(double(b + 1) / double(blocks));
    monitor.checkAbort();
  }
  over = exceeded;
  if (over)
    return;
  walls.saddles = saddles;
  walls.cellCounts = std::move(counts);
  walls.offsets.assign(keepCells ? n + 1 : 1, 0);
  walls.reachedOffsets.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (keepCells)
      walls.offsets[i + 1] = walls.offsets[i] + cells[i].size();
    walls.reachedOffsets[i + 1] = walls.reachedOffsets[i] + reached[i].size();
  }
  walls.cells.resize(walls.offsets.back());
  walls.reached.resize(walls.reachedOffsets[n]);
  tbb::parallel_for(std::size_t(0), n, [&](std::size_t i) {
    if (keepCells)
      std::copy(cells[i].begin(), cells[i].end(),
                walls.cells.begin() + std::ptrdiff_t(walls.offsets[i]));
    std::copy(reached[i].begin(), reached[i].end(),
              walls.reached.begin() + std::ptrdiff_t(walls.reachedOffsets[i]));
  });
}

} // namespace detail

} // namespace topogpu::separatrices2
