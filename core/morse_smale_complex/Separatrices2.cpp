#include "Separatrices2.h"

#include "base/Timer.h"
#include "core/morse_smale_complex/SaddleConnectionsGraph.h"

#include <string>

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
  detail::walkAskedWalls(
      parameters, gradient.criticalCells[2],
      [&](SimplexId q, auto& visit, auto& reach) {
        descendingStep(g, bytes, q, visit, reach);
      },
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
      monitor, output.descending, output.ascending);
  report.timings.emplace_back("2-separatrices (cpu)", timer.seconds());
  monitor.report(1.0);
}

} // namespace topogpu::separatrices2
