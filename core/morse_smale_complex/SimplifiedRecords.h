// The output records (OutputRecords.h) of a complex answered at a persistence threshold
// (CancellationHierarchy.h): the kept critical cells (then the boundary maxima), and the
// 1-separatrices of the kept saddles, a path that ended at a removed extremum going on
// along the cancelled saddle's arcs (back up to that saddle, down its other arc) until a
// kept extremum: one polyline, TTK's line cells, whose DestinationId is the kept
// extremum. A path whose representative is the outside (a boundary facet's missing
// side) is dropped, as TTK drops the paths that leave. Saddle connectors: those between
// kept saddles. Port 2 keeps the walls of the kept saddles (keptWallSources).
#pragma once

#include "core/morse_smale_complex/CancellationHierarchy.h"
#include "core/morse_smale_complex/SimplicialRecords.h"

#include <algorithm>
#include <vector>

namespace topogpu::morse_smale_complex::simplicial {

namespace detail {

// Extends paths that end at a removed extremum through the cancelled pairs, in
// Gyulassy et al.'s order: when the pair (e, s) is cancelled, the pairs before it in the
// hierarchy's order already are, so one of s's two arcs, rerouted through them, ends at
// e; the path goes back up that arc to s and down s's other arc. The way up per pair is
// kept, so each is walked once. A concatenated path contains every cancelled arc it
// passes, which grows without bound on large fields (engine: billions of cells): past
// `budget` cells in all, the remaining paths go from the removed extremum straight to
// its representative (one step; `straight` says whether that happened).
template <typename Triangulation> class Rerouter {
public:
  Rerouter(const Triangulation& tri, const Output& complex,
           const CancellationHierarchy& hierarchy, const SimplifiedComplex& answer, int s,
           std::size_t budget)
      : tri_(tri), complex_(complex), side_(hierarchy.sides[std::size_t(s)]),
        rep_(answer.representative[std::size_t(s)]), s_(s), budget_(budget),
        up_(side_.extremum.size()), other_(side_.extremum.size()),
        done_(side_.extremum.size(), 0) {}

  // path (ending at an extremum of this side) continued to its representative; false
  // when that is the outside.
  bool reroute(std::vector<sg::Cell>& path) {
    const SimplexId e = extremumOf(path.back());
    if (e >= 0 && rep_[std::size_t(e)] == kOutsidePartner)
      return false;
    if (!straight) {
      std::vector<sg::Cell> whole = path;
      bool over = false;
      try {
        // false: no way up found (an inconsistent hierarchy): this path goes straight
        if (extend(whole, SimplexId(side_.extremum.size()))) {
          used_ += whole.size();
          over = used_ > budget_;
          if (!over) {
            path = std::move(whole);
            return true;
          }
        }
      } catch (const OverBudget&) {
        over = true;
      }
      if (over) {
        straight = true;
        up_.assign(up_.size(), {});
        other_.assign(other_.size(), {});
      }
    }
    if (e >= 0 && rep_[std::size_t(e)] != e) {
      const SimplexId r = rep_[std::size_t(e)];
      const auto& g = complex_.gradient;
      path.push_back(s_ == 0 ? sg::Cell{0, g.criticalCells[0][std::size_t(r)]}
                             : sg::Cell{complex_.maxima[std::size_t(r)].dimension,
                                        complex_.maxima[std::size_t(r)].id});
    }
    return true;
  }

  bool straight = false;

private:
  struct OverBudget {};

  SimplexId extremumOf(const sg::Cell& c) const {
    const auto& g = complex_.gradient;
    if (s_ == 1 && c.dimension != g.dimension)
      return -1; // a boundary maximum: never cancelled
    const auto& list = g.criticalCells[std::size_t(c.dimension)];
    const auto it = std::lower_bound(list.begin(), list.end(), c.id);
    return it != list.end() && *it == c.id ? SimplexId(it - list.begin()) : -1;
  }

  // Continues path through the pairs cancelled before `limit` (their hierarchy order)
  // that are cancelled in the answer.
  bool extend(std::vector<sg::Cell>& path, SimplexId limit) {
    while (true) {
      const SimplexId e = extremumOf(path.back());
      if (e < 0 || rep_[std::size_t(e)] == e)
        return true;
      const SimplexId p = side_.pairOf[std::size_t(e)];
      if (p < 0 || p >= limit)
        return true;
      if (!prepare(p))
        return false;
      const auto& up = up_[std::size_t(p)];
      if (path.size() + up.size() + other_[std::size_t(p)].size() > budget_)
        throw OverBudget{};
      path.insert(path.end(), up.begin() + 1, up.end());
      path.insert(path.end(), other_[std::size_t(p)].begin(),
                  other_[std::size_t(p)].end());
    }
  }

  // The way from pair p's extremum up to its saddle (extremum first, saddle last) and
  // the saddle's other arc.
  bool prepare(SimplexId p) {
    if (done_[std::size_t(p)])
      return done_[std::size_t(p)] == 1;
    done_[std::size_t(p)] = 2;
    const SimplexId e = side_.extremum[std::size_t(p)];
    const SimplexId saddle = side_.saddle[std::size_t(p)];
    const int d = complex_.gradient.dimension;
    const int n = s_ == 0 ? 2 : sg::getFacetStarNumber(tri_, d, saddle);
    if (n < 2)
      return false;
    std::vector<sg::Cell> arcs[2];
    for (int k = 0; k < 2; ++k) {
      if (s_ == 0)
        descendingPath(tri_, complex_, tri_.getEdgeVertex(saddle, k), arcs[k]);
      else
        ascendingPath(tri_, complex_, sg::getFacetStar(tri_, d, saddle, k), arcs[k]);
    }
    for (int k = 0; k < 2; ++k) {
      std::vector<sg::Cell> mine = arcs[k];
      if (!extend(mine, p) || extremumOf(mine.back()) != e)
        continue;
      std::vector<sg::Cell>& up = up_[std::size_t(p)];
      kept_ += mine.size() + arcs[1 - k].size();
      if (kept_ > budget_)
        throw OverBudget{};
      up.assign(mine.rbegin(), mine.rend());
      up.push_back({s_ == 0 ? 1 : d - 1, saddle});
      other_[std::size_t(p)] = std::move(arcs[1 - k]);
      done_[std::size_t(p)] = 1;
      return true;
    }
    return false;
  }

  const Triangulation& tri_;
  const Output& complex_;
  const CancellationHierarchy::Side& side_;
  const std::vector<SimplexId>& rep_;
  int s_;
  std::size_t budget_, used_ = 0, kept_ = 0;
  std::vector<std::vector<sg::Cell>> up_, other_;
  std::vector<char> done_; // 0 not yet, 1 ready, 2 no way (or being prepared)
};

} // namespace detail

// The cells the rerouted paths of one side may hold in all before the rest go straight
// from a removed extremum to its representative.
constexpr std::size_t kReroutedCells = std::size_t(1) << 23;

// Ports 0 and 1 of the answer, as `on` asks (saddle connectors need the complex's
// connection paths).
template <typename Triangulation>
void buildSimplifiedRecords(Triangulation& tri, const Output& complex,
                            const CancellationHierarchy& hierarchy,
                            const SimplifiedComplex& answer,
                            const ScalarArrayView& values, const PointGeometry& points,
                            const RecordSwitches& on, Records& out,
                            std::size_t reroutedCells = kReroutedCells) {
  out = Records();
  tri.precondition(kRequiredRelations | Boundary);
  const sg::Output& g = complex.gradient;
  const int d = g.dimension;
  const SimplexCells<Triangulation> cells{tri, complex.rank.data(), points, d};
  using Cell = sg::Cell;
  auto saddleGone = [&](int dim, std::size_t p) {
    return (dim == 1 && answer.saddleCancelled[0][p]) ||
           (dim == d - 1 && answer.saddleCancelled[1][p]);
  };
  if (on.criticalPoints) {
    const auto minimumSize = labelSizes(answer.descendingManifold, answer.kept[0].size());
    const auto maximumSize = labelSizes(answer.ascendingManifold, answer.kept[1].size());
    auto size = [&](const std::vector<SimplexId>& sizes, SimplexId i) {
      return on.manifoldSizes ? sizes[std::size_t(i)] : SimplexId(-1);
    };
    for (const SimplexId m : answer.kept[0])
      addCriticalPoint(cells, values, Cell{0, g.criticalCells[0][std::size_t(m)]},
                       size(minimumSize, answer.newIndex[0][std::size_t(m)]), false,
                       out.criticalPoints);
    for (int k = 1; k < d; ++k)
      for (std::size_t j = 0; j < g.criticalCells[std::size_t(k)].size(); ++j)
        if (!saddleGone(k, j))
          addCriticalPoint(cells, values, Cell{k, g.criticalCells[std::size_t(k)][j]},
                           on.manifoldSizes ? 0 : -1, false, out.criticalPoints);
    // Under TTK's rule no vertex is labelled by a boundary maximum: those that no kept
    // arc reaches any more are left out (they follow the critical maxima, so no label
    // changes meaning).
    std::vector<char> reached(answer.kept[1].size(),
                              answer.rule != AscendingSegmentation::Ttk);
    for (const Arc& a : answer.saddleMaximum)
      reached[std::size_t(a.extremum)] = 1;
    for (const SimplexId m : answer.kept[1]) {
      const Extremum& x = complex.maxima[std::size_t(m)];
      if (x.dimension != d && !reached[std::size_t(answer.newIndex[1][std::size_t(m)])])
        continue;
      addCriticalPoint(cells, values, Cell{x.dimension, x.id},
                       size(maximumSize, answer.newIndex[1][std::size_t(m)]),
                       x.dimension != d, out.criticalPoints);
    }
  }
  Separatrix1Builder<SimplexCells<Triangulation>> separatrices(cells, values,
                                                               out.separatrices1);
  std::vector<std::vector<Cell>> paths;
  detail::Rerouter<Triangulation> down(tri, complex, hierarchy, answer, 0, reroutedCells),
      up(tri, complex, hierarchy, answer, 1, reroutedCells);
  if (on.descending1) {
    for (std::size_t j = 0; j < g.criticalCells[1].size(); ++j) {
      if (saddleGone(1, j))
        continue;
      const SimplexId e = g.criticalCells[1][j];
      paths.assign(2, {});
      for (int k = 0; k < 2; ++k) {
        descendingPath(tri, complex, tri.getEdgeVertex(e, k), paths[std::size_t(k)]);
        down.reroute(paths[std::size_t(k)]);
      }
      separatrices.addSaddle({1, e}, paths, 0);
    }
  }
  if (on.ascending1) {
    for (std::size_t j = 0; j < g.criticalCells[std::size_t(d - 1)].size(); ++j) {
      if (saddleGone(d - 1, j))
        continue;
      const SimplexId s = g.criticalCells[std::size_t(d - 1)][j];
      const int n = sg::getFacetStarNumber(tri, d, s);
      paths.clear();
      for (int k = 0; k < n; ++k) {
        std::vector<Cell> path;
        ascendingPath(tri, complex, sg::getFacetStar(tri, d, s, k), path);
        if (up.reroute(path))
          paths.push_back(std::move(path));
      }
      separatrices.addSaddle({d - 1, s}, paths, d - 1);
    }
  }
  if (on.saddleConnectors && d == 3 && !complex.connectionPaths.empty()) {
    for (const SimplexId i : answer.keptConnections) {
      const std::vector<Cell>& path = complex.connectionPaths[std::size_t(i)];
      separatrices.addOwn(
          path.front(), {path.begin() + 1, path.end()}, 1,
          clampedMultiplicity(complex.connections[std::size_t(i)].multiplicity));
    }
  }
}

// Port 2 of the answer: the walls (polygons) whose source saddle is kept, their
// SeparatrixIds numbered again in order (the points stay).
inline void keepWallsOfKeptSaddles(const Output& complex, const SimplifiedComplex& answer,
                                   Separatrix2Records& walls) {
  const auto& g = complex.gradient;
  const int d = g.dimension;
  auto kept = [&](int type, SimplexId source) {
    // type 2: a 2-saddle's descending wall; 1: a 1-saddle's ascending wall
    const int dim = type == 2 ? 2 : 1;
    const auto& list = g.criticalCells[std::size_t(dim)];
    const std::size_t p =
        std::size_t(std::lower_bound(list.begin(), list.end(), source) - list.begin());
    if (p >= list.size() || list[p] != source)
      return true;
    return !((dim == 1 && answer.saddleCancelled[0][p]) ||
             (dim == d - 1 && answer.saddleCancelled[1][p]));
  };
  Separatrix2Records out;
  out.points = std::move(walls.points);
  SimplexId lastOld = -1, next = -1;
  for (std::size_t i = 0; i < walls.size(); ++i) {
    if (!kept(walls.separatrixType[i], walls.sourceId[i]))
      continue;
    out.connectivity.insert(out.connectivity.end(),
                            walls.connectivity.begin() + std::ptrdiff_t(walls.offsets[i]),
                            walls.connectivity.begin() +
                                std::ptrdiff_t(walls.offsets[i + 1]));
    out.offsets.push_back(SimplexId(out.connectivity.size()));
    if (walls.separatrixId[i] != lastOld) {
      lastOld = walls.separatrixId[i];
      ++next;
    }
    out.sourceId.push_back(walls.sourceId[i]);
    out.separatrixId.push_back(next);
    out.separatrixType.push_back(walls.separatrixType[i]);
    out.functionMaximum.push_back(walls.functionMaximum[i]);
    out.functionMinimum.push_back(walls.functionMinimum[i]);
    out.onBoundary.push_back(walls.onBoundary[i]);
  }
  walls = std::move(out);
}

} // namespace topogpu::morse_smale_complex::simplicial
