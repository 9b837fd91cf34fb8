// The persistence diagram of a scalar field on a simplicial complex (triangle and tet
// meshes, the implicit grid's Freudenthal triangulation, GALE): the simplicial
// Morse-Smale complex's critical cells, arcs and saddle connections (counted mod 2)
// handed to the Discrete Morse Sandwich (DiscreteMorseSandwich.h). The filtration order
// of the critical cells is TTK's: the lexicographic order of their vertices' ranks
// sorted decreasingly.
#pragma once

#include "base/Timer.h"
#include "core/discrete_gradient/GridEdgePairStencils.h"
#include "core/morse_smale_complex/SimplicialMorseSmaleComplex.h"
#include "core/persistence_diagram/DiscreteMorseSandwich.h"
#include "core/persistence_diagram/PersistenceDiagram.h"
#include "core/persistence_diagram/SaddleBoundaryExpansion.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <vector>

namespace topogpu::persistence_diagram {

namespace smsc = morse_smale_complex::simplicial;

struct Parameters {
  Backend backend = Backend::Auto; // the complex's (the pairing runs on the CPU)
  VertexOrderSource vertexOrder{};
  // 3D: the (1-saddle, 2-saddle) pairs from the saddle connections (every 2-saddle's
  // whole wall, V-paths counted mod 2) reduced as the Morse boundary, instead of the
  // boundary expansion (SaddleBoundaryExpansion.h): the same pairs, slower; a
  // cross-check.
  bool saddleConnections = false;
  // Host memory the complex may use, in bytes (the Morse-Smale complex's estimate and
  // refusal, SimplicialHostMemory.h).
  double memoryBudget = std::numeric_limits<double>::infinity();
  // How the boundary expansion schedules its parallel rounds (the pairs do not depend
  // on it).
  ExpansionSchedule expansion{};
};

// The diagram of values on tri. Throws Error for bad input (NaN/Inf, size mismatch, a
// complex of dimension < 2), Aborted on abort. complexOut, when given, receives the
// Morse-Smale complex the pairs were read from (its diagramOnly part: no arcs).
template <typename Triangulation>
void execute(Triangulation& tri, const ScalarArrayView& values,
             const Parameters& parameters, const Monitor& monitor, Diagram& diagram,
             smsc::Output* complexOut = nullptr);

// The pairs of a complex already computed. In 3D the (1-saddle, 2-saddle) pairs come from
// its saddle connections when it has them (any multiplicity mode: only the parity is
// read), else from the boundary expansion.
template <typename Triangulation>
void diagramOfComplex(const Triangulation& tri, const smsc::Output& complex,
                      const ScalarArrayView& values, const Monitor& monitor,
                      Diagram& diagram, const ExpansionSchedule& schedule = {});

// ---- implementation ------------------------------------------------------------------

namespace detail {

inline SimplexId indexIn(const std::vector<SimplexId>& sorted, SimplexId id) {
  const auto it = std::lower_bound(sorted.begin(), sorted.end(), id);
  if (it == sorted.end() || *it != id)
    throw Error("persistence pairs: a Morse-Smale arc ends at a cell that is not "
                "critical");
  return SimplexId(it - sorted.begin());
}

// Dimension k's critical cells in the filtration order the complex gives
// (Output::filtrationOrder, a permutation of their indices) and each one's position.
inline void placeInFiltrationOrder(const smsc::Output& complex, int k,
                                   std::vector<CriticalCell>& cells,
                                   std::vector<SimplexId>& position) {
  const auto& order = complex.filtrationOrder[std::size_t(k)];
  const auto& ids = complex.gradient.criticalCells[std::size_t(k)];
  const auto& vertices = complex.gradient.criticalVertices[std::size_t(k)];
  const auto n = SimplexId(ids.size());
  cells.resize(ids.size());
  position.assign(ids.size(), -1);
  tbb::parallel_for(std::size_t(0), ids.size(), [&](std::size_t p) {
    const SimplexId i = order[p];
    if (i >= 0 && i < n) {
      cells[p] = {ids[std::size_t(i)], vertices[std::size_t(i)]};
      position[std::size_t(i)] = SimplexId(p);
    }
  });
  if (std::find(position.begin(), position.end(), SimplexId(-1)) != position.end())
    throw Error("internal error: the complex's filtration order of the critical cells "
                "of dimension " +
                std::to_string(k) + " is not a permutation");
}

// Each dimension's critical cells in filtration order (cells), and the position of the
// i-th critical cell of the complex's ascending list (position).
template <typename Triangulation>
void sortCriticalCells(const Triangulation& tri, const smsc::Output& complex,
                       std::array<std::vector<CriticalCell>, 4>& cells,
                       std::array<std::vector<SimplexId>, 4>& position) {
  namespace sg = discrete_gradient::simplicial;
  const SimplexId* rank = complex.rank.data();
  for (int k = 0; k <= complex.gradient.dimension; ++k) {
    const std::vector<SimplexId>& ids = complex.gradient.criticalCells[std::size_t(k)];
    if (complex.filtrationOrder[std::size_t(k)].size() == ids.size() &&
        complex.gradient.criticalVertices[std::size_t(k)].size() == ids.size()) {
      placeInFiltrationOrder(complex, k, cells[std::size_t(k)], position[std::size_t(k)]);
      continue; // sorted on the device
    }
    std::vector<std::pair<std::array<SimplexId, 4>, SimplexId>> keyed(ids.size());
    tbb::parallel_for(std::size_t(0), ids.size(), [&](std::size_t i) {
      keyed[i] = {smsc::detail::keyOf(tri, k, ids[i], rank), SimplexId(i)};
    });
    tbb::parallel_sort(keyed.begin(), keyed.end());
    auto& out = cells[std::size_t(k)];
    auto& pos = position[std::size_t(k)];
    out.resize(ids.size());
    pos.resize(ids.size());
    tbb::parallel_for(std::size_t(0), ids.size(), [&](std::size_t p) {
      const SimplexId i = keyed[p].second;
      out[p] = {ids[std::size_t(i)],
                sg::detail::highestVertex(tri, k, ids[std::size_t(i)], rank)};
      pos[std::size_t(i)] = SimplexId(p);
    });
  }
}

// The maxima a (d-1)-saddle's ascending paths reach, with every exit "outside". The
// complex labels an exit by its boundary root, which may be a critical maximum's facet:
// a coface labelled with such a maximum is walked again to tell the two apart.
template <typename Triangulation>
void saddleMaximumEnds(const Triangulation& tri, const smsc::Output& complex,
                       const std::vector<SimplexId>& maximumPosition,
                       const std::vector<SimplexId>& saddlePosition,
                       std::vector<SimplexId>& ends) {
  namespace sg = discrete_gradient::simplicial;
  const sg::Output& g = complex.gradient;
  const int top = g.dimension;
  const std::vector<SimplexId>& maxima = g.criticalCells[std::size_t(top)];
  std::vector<char> ambiguous(maxima.size(), 0);
  for (std::size_t i = 0; i < complex.boundaryFacets.size(); ++i) {
    if (complex.boundaryNext[i] != SimplexId(i))
      continue; // not a root
    const SimplexId cell = sg::getFacetStar(tri, top, complex.boundaryFacets[i], 0);
    const auto at = std::lower_bound(maxima.begin(), maxima.end(), cell);
    if (at != maxima.end() && *at == cell)
      ambiguous[std::size_t(at - maxima.begin())] = 1;
  }
  auto endOf = [&](SimplexId c) -> SimplexId {
    const auto label = complex.cellAscendingManifold[std::size_t(c)];
    if (label < 0 || complex.maxima[std::size_t(label)].dimension != top)
      return kOutside; // a boundary maximum: the path left
    if (ambiguous[std::size_t(label)])
      for (SimplexId next = sg::ascendingSuccessor(tri, g, c);;
           c = next, next = sg::ascendingSuccessor(tri, g, c)) {
        if (next < 0)
          return kOutside;
        if (next == c)
          break;
      }
    return maximumPosition[std::size_t(label)];
  };
  const std::vector<SimplexId>& saddles = g.criticalCells[std::size_t(top - 1)];
  ends.assign(2 * saddles.size(), kOutside);
  tbb::parallel_for(std::size_t(0), saddles.size(), [&](std::size_t i) {
    const SimplexId p = saddlePosition[i];
    const int n = sg::getFacetStarNumber(tri, top, saddles[i]);
    for (int k = 0; k < n && k < 2; ++k)
      ends[std::size_t(2 * p + k)] = endOf(sg::getFacetStar(tri, top, saddles[i], k));
  });
}

// Saddle path ends (2 per saddle by ascending id, indices in the ascending extrema, -1
// outside: SimplicialSaddleEnds.h) as the pairs read them: per saddle by filtration
// position, the extrema's positions (an index out of range stays out of range, for
// pairCriticalCells to refuse).
inline void placeEnds(const std::vector<SimplexId>& ends,
                      const std::vector<SimplexId>& saddlePosition,
                      const std::vector<SimplexId>& extremumPosition,
                      std::vector<SimplexId>& out) {
  if (ends.size() != 2 * saddlePosition.size())
    throw Error("persistence pairs: the complex has " + std::to_string(ends.size()) +
                " saddle path ends for " + std::to_string(saddlePosition.size()) +
                " saddles");
  const auto extrema = SimplexId(extremumPosition.size());
  out.assign(ends.size(), kOutside);
  tbb::parallel_for(std::size_t(0), saddlePosition.size(), [&](std::size_t i) {
    const auto p = std::size_t(saddlePosition[i]);
    for (std::size_t k = 0; k < 2; ++k) {
      const SimplexId e = ends[2 * i + k];
      out[2 * p + k] = e == -1                 ? kOutside
                       : e >= 0 && e < extrema ? extremumPosition[std::size_t(e)]
                                               : extrema;
    }
  });
}

// The same from a whole complex's labels: per 1-saddle the DescendingManifold of its
// vertices (the arcs' ends), per (d-1)-saddle saddleMaximumEnds above.
template <typename Triangulation>
void endsFromLabels(const Triangulation& tri, const smsc::Output& complex,
                    const std::array<std::vector<CriticalCell>, 4>& cells,
                    const std::array<std::vector<SimplexId>, 4>& position,
                    SandwichInput& input) {
  const int d = input.dimension;
  input.saddle1Minima.assign(2 * cells[1].size(), -1);
  if (complex.descendingManifold.size() != complex.rank.size())
    throw Error("persistence pairs: the complex has no DescendingManifold");
  tbb::parallel_for(std::size_t(0), cells[1].size(), [&](std::size_t p) {
    for (int k = 0; k < 2; ++k) {
      const auto m =
          complex.descendingManifold[std::size_t(tri.getEdgeVertex(cells[1][p].id, k))];
      input.saddle1Minima[2 * p + std::size_t(k)] =
          m < 0 ? SimplexId(-1) : position[0][std::size_t(m)];
    }
  });
  saddleMaximumEnds(tri, complex, position[std::size_t(d)], position[std::size_t(d - 1)],
                    input.saddleMaxima);
}

// The dual union-find pairs a (d-1)-saddle with the maxima on its two sides: a facet of
// three or more cells (a non-manifold mesh) has no such two sides.
template <typename Triangulation>
void checkManifoldFacets(const Triangulation& tri, int top, SimplexId nFacets) {
  namespace sg = discrete_gradient::simplicial;
  if constexpr (isGridTriangulation<Triangulation>)
    return; // a grid's facets have one or two cells
  const SimplexId bad = tbb::parallel_reduce(
      tbb::blocked_range<SimplexId>(0, nFacets), SimplexId(-1),
      [&](const tbb::blocked_range<SimplexId>& r, SimplexId found) {
        for (SimplexId f = r.begin(); f < r.end() && found < 0; ++f)
          if (sg::getFacetStarNumber(tri, top, f) > 2)
            found = f;
        return found;
      },
      [](SimplexId a, SimplexId b) { return a >= 0 ? a : b; });
  if (bad >= 0)
    throw Error("the persistence diagram needs a manifold mesh: " +
                std::string(top == 3 ? "triangle " : "edge ") + std::to_string(bad) +
                " is a face of " + std::to_string(sg::getFacetStarNumber(tri, top, bad)) +
                (top == 3 ? " tetrahedra" : " triangles") + " (at most 2)");
}

} // namespace detail

template <typename Triangulation>
void diagramOfComplex(const Triangulation& tri, const smsc::Output& complex,
                      const ScalarArrayView& values, const Monitor& monitor,
                      Diagram& diagram, const ExpansionSchedule& schedule) {
  Timer timer;
  const auto& g = complex.gradient;
  const int d = g.dimension;
  if (d != 2 && d != 3)
    throw Error("the persistence diagram needs triangles or tetrahedra");
  if (SimplexId(complex.rank.size()) != values.size)
    throw Error("persistence pairs: the complex (" + std::to_string(complex.rank.size()) +
                " vertices) and the field (" + std::to_string(values.size) +
                " values) do not match");
  detail::checkManifoldFacets(tri, d, g.simplexCounts[std::size_t(d - 1)]);
  std::array<std::vector<CriticalCell>, 4> cells;
  std::array<std::vector<SimplexId>, 4> position;
  detail::sortCriticalCells(tri, complex, cells, position);
  SandwichInput input;
  input.dimension = d;
  for (int k = 0; k <= d; ++k)
    input.counts[std::size_t(k)] = SimplexId(cells[std::size_t(k)].size());
  if (complex.extremumKillsComputed) { // diagramOnly on the device
    input.minimumKills = &complex.minimumKills;
    input.maximumKills = &complex.maximumKills;
  } else if (complex.saddleEndsComputed) { // diagramOnly
    detail::placeEnds(complex.saddle1Ends, position[1], position[0], input.saddle1Minima);
    detail::placeEnds(complex.saddleMaximumEnds, position[std::size_t(d - 1)],
                      position[std::size_t(d)], input.saddleMaxima);
  } else {
    detail::endsFromLabels(tri, complex, cells, position, input);
  }
  if (d == 3 && complex.connectionsComputed) {
    input.hasBoundary = true;
    input.boundary.reserve(complex.connections.size());
    for (const smsc::Connection& c : complex.connections)
      if (c.multiplicity % 2 == 1)
        input.boundary.emplace_back(
            position[2][std::size_t(detail::indexIn(g.criticalCells[2], c.saddle2))],
            position[1][std::size_t(detail::indexIn(g.criticalCells[1], c.saddle1))]);
  }
  diagram.report.timings.emplace_back("pairing input (cpu)", timer.seconds());
  timer.reset();
  monitor.report(0.3);
  // The extremum pairs' rounds run where the complex did (its arrays came from there).
  PairingOptions pairing;
  pairing.backend = complex.report.backend == "gpu" ? Backend::Gpu : Backend::Cpu;
  SandwichResult pairs;
  pairCriticalCells(input, monitor, pairs, pairing);
  for (const Warning& w : pairs.report.warnings)
    diagram.report.warnings.push_back(w);
  diagram.elder = input.killsGiven() ? complex.elder : pairs.elder;
  diagram.report.timings.emplace_back("pairing (" + pairs.report.backend + ")",
                                      timer.seconds());
  timer.reset();
  if (d == 3 && !input.hasBoundary) {
    namespace sg = discrete_gradient::simplicial;
    std::vector<std::uint8_t> ownStencils;
    const std::vector<std::uint8_t>* stencils = &g.edgePairStencils;
    if constexpr (isGridTriangulation<Triangulation>)
      if (stencils->empty()) {
        sg::gridEdgePairStencils(sg::gridSimplicesOf(tri.dims()), g.gradient[1].data(),
                                 g.gradient[2].data(), ownStencils);
        stencils = &ownStencils;
        diagram.report.timings.emplace_back("edge pair stencils (cpu)", timer.seconds());
        timer.reset();
      }
    std::vector<SimplexId> saddles2(cells[2].size());
    for (std::size_t p = 0; p < saddles2.size(); ++p)
      saddles2[p] = cells[2][p].id;
    expandSaddleBoundaries(tri, g, *stencils, complex.rank.data(), saddles2, position[1],
                           monitor, pairs, schedule);
    diagram.expansion = pairs.expansion;
    diagram.report.timings.emplace_back("pairing saddle-saddle (cpu)", timer.seconds());
    timer.reset();
  }
  monitor.report(0.8);
  buildDiagram(d, cells, pairs, values, complex.rank.data(), diagram);
  diagram.report.timings.emplace_back("diagram records (cpu)", timer.seconds());
}

template <typename Triangulation>
void execute(Triangulation& tri, const ScalarArrayView& values,
             const Parameters& parameters, const Monitor& monitor, Diagram& diagram,
             smsc::Output* complexOut) {
  diagram = Diagram();
  smsc::Output own;
  smsc::Output& complex = complexOut ? *complexOut : own;
  smsc::Parameters msc;
  msc.backend = parameters.backend;
  msc.vertexOrder = parameters.vertexOrder;
  msc.computeSaddleConnections = parameters.saddleConnections;
  msc.connectionParity = true;
  msc.diagramOnly = true;
  msc.memoryBudget = parameters.memoryBudget;
  smsc::execute(tri, values, msc, monitor.stage(0, 0.9), complex);
  RunReport report = complex.report;
  diagramOfComplex(tri, complex, values, monitor.stage(0.9, 1), diagram,
                   parameters.expansion);
  diagram.hostMemoryEstimate = complex.hostMemoryEstimate;
  if (complexOut == nullptr) { // freeing the complex's arrays is part of the wait
    const Timer timer;
    own = smsc::Output();
    diagram.report.timings.emplace_back("release (cpu)", timer.seconds());
  }
  for (auto& t : diagram.report.timings)
    report.timings.push_back(t);
  for (auto& w : diagram.report.warnings)
    report.warnings.push_back(w);
  diagram.report = report;
  monitor.report(1.0);
}

} // namespace topogpu::persistence_diagram
