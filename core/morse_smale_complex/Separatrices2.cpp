#include "Separatrices2.h"

#include "base/Timer.h"
#include "core/morse_smale_complex/SaddleConnectionsGraph.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <unordered_set>

namespace topogpu::separatrices2 {

namespace {

// The descending step from quad q: its edges; a critical edge is a 1-saddle on the
// wall's border, an edge paired with another quad leads on to that quad, an edge paired
// with a vertex (or with q itself, the way in) ends the path there.
template <typename Visit, typename Reach>
void descendingStep(const cubical::Grid& g, const std::uint8_t* gradient, SimplexId q,
                    Visit&& visit, Reach&& reach) {
  SimplexId c[3];
  cubical::cellCoords(g, q, c);
  for (int a = 0; a < 3; ++a) {
    if (!(c[a] & 1))
      continue;
    for (int s = -1; s <= 1; s += 2) {
      SimplexId e[3] = {c[0], c[1], c[2]};
      e[a] += s;
      const SimplexId edge = cubical::cellAt(g, e);
      const std::uint8_t code = gradient[edge];
      if (code == cubical::kCritical) {
        reach(edge);
        continue;
      }
      if (code > cubical::kCritical)
        continue; // unassigned: never in a complete gradient
      const int axis = cubical::codeAxis(code);
      if (e[axis] & 1)
        continue; // the partner is a face: a vertex
      e[axis] += cubical::codeSign(code);
      const SimplexId next = cubical::cellAt(g, e);
      if (next != q)
        visit(next);
    }
  }
}

// One wall per saddle, saddles in parallel, each with its own visited set; `step(cell,
// visit, reach)` names a cell's successors on the wall and the saddles of the other kind
// it touches. Counts cells against `budget` as they are found, so a runaway wall stops
// early; `over` tells whether the budget ran out (the walls are then incomplete).
template <typename Step>
void walk(const std::vector<SimplexId>& saddles, Step&& step, std::size_t budget,
          const Monitor& monitor, Walls& walls, bool& over) {
  const std::size_t n = saddles.size();
  std::vector<std::vector<SimplexId>> cells(n), reached(n);
  std::atomic<std::size_t> counted{0};
  std::atomic<bool> exceeded{false};
  constexpr std::size_t kCountEvery = 4096;
  auto one = [&](std::size_t i) {
    std::vector<SimplexId>& wall = cells[i];
    std::vector<SimplexId>& border = reached[i];
    std::unordered_set<SimplexId> visited;
    std::size_t uncounted = 0;
    auto visit = [&](SimplexId cell) {
      if (!visited.insert(cell).second)
        return;
      wall.push_back(cell); // the queue too: cells are walked in the order found
      if (++uncounted == kCountEvery) {
        uncounted = 0;
        if (counted.fetch_add(kCountEvery) + kCountEvery > budget)
          exceeded = true;
      }
    };
    auto reach = [&](SimplexId cell) { border.push_back(cell); };
    visit(saddles[i]);
    for (std::size_t k = 0; k < wall.size() && !exceeded; ++k)
      step(wall[k], visit, reach);
    if (counted.fetch_add(uncounted) + uncounted > budget)
      exceeded = true;
    std::sort(wall.begin(), wall.end());
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
  walls.offsets.assign(n + 1, 0);
  walls.reachedOffsets.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    walls.offsets[i + 1] = walls.offsets[i] + cells[i].size();
    walls.reachedOffsets[i + 1] = walls.reachedOffsets[i] + reached[i].size();
  }
  walls.cells.resize(walls.offsets[n]);
  walls.reached.resize(walls.reachedOffsets[n]);
  tbb::parallel_for(std::size_t(0), n, [&](std::size_t i) {
    std::copy(cells[i].begin(), cells[i].end(),
              walls.cells.begin() + std::ptrdiff_t(walls.offsets[i]));
    std::copy(reached[i].begin(), reached[i].end(),
              walls.reached.begin() + std::ptrdiff_t(walls.reachedOffsets[i]));
  });
}

} // namespace

void compute(const discrete_gradient::Output& gradient, const Parameters& parameters,
             const Monitor& monitor, Output& output, RunReport& report) {
  output.clear();
  const cubical::Grid& g = gradient.grid;
  if (g.dimension != 3 || !(parameters.ascending || parameters.descending)) {
    monitor.report(1.0);
    return; // no walls in 2D; nothing asked for
  }
  if (gradient.gradient.size() != std::size_t(cubical::cellCount(g)))
    throw Error("2-separatrices: the gradient has " +
                std::to_string(gradient.gradient.size()) + " cells, the grid " +
                std::to_string(cubical::cellCount(g)));
  const Timer timer;
  const std::uint8_t* bytes = gradient.gradient.data();
  const std::size_t limit = parameters.maxCells;
  auto tooLarge = [&](const char* kind) {
    return Error("2-separatrices: the " + std::string(kind) +
                 " walls hold more than the limit of " + std::to_string(limit) +
                 " cells in all (each saddle's wall can span the volume, and the output "
                 "grows with saddles x wall size); compute them on a smaller or smoothed "
                 "field, or switch them off");
  };
  const bool both = parameters.ascending && parameters.descending;
  bool over = false;
  if (parameters.descending) {
    walk(
        gradient.criticalCells[2],
        [&](SimplexId q, auto& visit, auto& reach) {
          descendingStep(g, bytes, q, visit, reach);
        },
        limit, both ? monitor.stage(0, 0.5) : monitor, output.descending, over);
    if (over) {
      output.clear();
      throw tooLarge("descending");
    }
  }
  if (parameters.ascending) {
    walk(
        gradient.criticalCells[1],
        [&](SimplexId e, auto& visit, auto& reach) {
          SimplexId next[saddle_connections::graph::kMaxOutDegree];
          const int count = saddle_connections::graph::successors(g, bytes, e, next);
          for (int k = 0; k < count; ++k) {
            if (bytes[next[k]] == cubical::kCritical)
              reach(next[k]);
            else
              visit(next[k]);
          }
        },
        limit - output.descending.cells.size(), both ? monitor.stage(0.5, 1) : monitor,
        output.ascending, over);
    if (over) {
      output.clear();
      throw tooLarge(both ? "ascending and descending" : "ascending");
    }
  }
  report.timings.emplace_back("2-separatrices (cpu)", timer.seconds());
  monitor.report(1.0);
}

} // namespace topogpu::separatrices2
