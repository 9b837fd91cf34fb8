#include "CubicalPersistence.h"

#include "base/Timer.h"
#include "core/common/VertexOrder.h"
#include "core/morse_smale_complex/CellValues.h"
#include "core/morse_smale_complex/GradientForest.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

namespace topogpu::persistence_diagram {

using morse_smale_complex::highestVertex;
using morse_smale_complex::valueAt;

namespace {

SimplexId indexIn(const std::vector<SimplexId>& sorted, SimplexId value) {
  const auto it = std::lower_bound(sorted.begin(), sorted.end(), value);
  return it != sorted.end() && *it == value ? SimplexId(it - sorted.begin()) : -1;
}

// Each cell's position in the order (rank of its highest vertex, refined id).
std::vector<SimplexId> filtrationPositions(const cubical::Grid& g,
                                           const std::vector<SimplexId>& cells,
                                           const SimplexId* rank) {
  std::vector<std::pair<SimplexId, SimplexId>> keyed(cells.size());
  for (std::size_t i = 0; i < cells.size(); ++i)
    keyed[i] = {rank[highestVertex(g, cells[i], rank)], cells[i]};
  std::vector<SimplexId> order(cells.size());
  std::iota(order.begin(), order.end(), SimplexId(0));
  std::sort(order.begin(), order.end(), [&](SimplexId a, SimplexId b) {
    return keyed[std::size_t(a)] < keyed[std::size_t(b)];
  });
  std::vector<SimplexId> position(cells.size());
  for (std::size_t p = 0; p < order.size(); ++p)
    position[std::size_t(order[p])] = SimplexId(p);
  return position;
}

// Dimension 0: per 1-saddle (by position) the positions of the minima its two arcs
// reach (the arcs as they are: descending paths never leave the box).
std::vector<SimplexId> saddleMinimumEnds(const Output& complex,
                                         const std::vector<SimplexId>& minimumPosition,
                                         const std::vector<SimplexId>& saddlePosition) {
  const std::vector<SimplexId>& minima = complex.gradient.criticalCells[0];
  const std::vector<SimplexId>& saddles1 = complex.gradient.criticalCells[1];
  std::vector<SimplexId> ends(2 * saddles1.size(), -1);
  std::vector<int> filled(saddles1.size(), 0);
  for (const morse_smale_complex::Arc& arc : complex.saddle1Minimum) {
    const SimplexId s = indexIn(saddles1, arc.saddle), m = indexIn(minima, arc.extremum);
    if (s < 0 || m < 0)
      throw Error("persistence pairs: an arc ends at a cell that is not critical");
    const SimplexId p = saddlePosition[std::size_t(s)];
    for (int k = 0; k < arc.multiplicity && filled[std::size_t(s)] < 2; ++k)
      ends[std::size_t(2 * p + filled[std::size_t(s)]++)] =
          minimumPosition[std::size_t(m)];
  }
  for (const int f : filled)
    if (f != 2)
      throw Error("persistence pairs: a 1-saddle without its two arcs to minima");
  return ends;
}

// Dimension d-1: per (d-1)-saddle (by position) the positions of the maxima its two
// ascending paths reach, kOutside for an exit.
std::vector<SimplexId> saddleMaximumEnds(const discrete_gradient::Output& dg,
                                         const std::vector<SimplexId>& maximumPosition,
                                         const std::vector<SimplexId>& saddlePosition) {
  const cubical::Grid& g = dg.grid;
  const int d = g.dimension;
  const std::vector<SimplexId>& saddlesTop = dg.criticalCells[d - 1];
  const std::vector<SimplexId>& maxima = dg.criticalCells[d];
  const SimplexId nTop = cubical::topCellCount(g);
  const std::uint8_t* gradient = dg.gradient.data();
  // Memoized roots: a maximum's index, or -2 for outside (-1: not known yet).
  constexpr SimplexId kExit = -2;
  std::vector<SimplexId> root(std::size_t(nTop), -1), path;
  auto rootOf = [&](SimplexId t) {
    path.clear();
    SimplexId r = -1;
    while (root[t] == -1) {
      path.push_back(t);
      const SimplexId next = cubical::topCellSuccessor(g, gradient, t);
      if (next == t) {
        r = indexIn(maxima, cubical::topCellOf(g, t));
        break;
      }
      if (next < 0) {
        r = kExit;
        break;
      }
      t = next;
    }
    if (r == -1)
      r = root[t];
    for (const SimplexId p : path)
      root[p] = r;
    return r;
  };
  std::vector<SimplexId> ends(2 * saddlesTop.size(), kOutside);
  for (std::size_t i = 0; i < saddlesTop.size(); ++i) {
    SimplexId c[3];
    cubical::cellCoords(g, saddlesTop[i], c);
    const int a = cubical::unspannedAxis(g, c);
    const SimplexId p = saddlePosition[i];
    for (int k = 0; k < 2; ++k) {
      SimplexId q[3] = {c[0], c[1], c[2]};
      q[a] += k ? 1 : -1;
      if (q[a] < 0 || q[a] >= cubical::refinedSize(g, a))
        continue; // the missing side of a boundary saddle
      const SimplexId r = rootOf(cubical::topIndexAt(g, q));
      if (r >= 0)
        ends[std::size_t(2 * p + k)] = maximumPosition[std::size_t(r)];
      else if (r != kExit)
        throw Error("persistence pairs: an ascending path ends at a cell that is not "
                    "critical");
    }
  }
  return ends;
}

// The sandwich's input and pairs, and each position's refined id.
struct CubicalPairs {
  SandwichResult result;
  std::array<std::vector<SimplexId>, 4> cellAt;
};

CubicalPairs pairCubicalComplex(const Output& complex, const ScalarArrayView& values,
                                const SimplexId* rank, const Monitor& monitor) {
  const discrete_gradient::Output& dg = complex.gradient;
  const cubical::Grid& g = dg.grid;
  const SimplexId nVertices = g.n[0] * g.n[1] * g.n[2];
  if (values.size != nVertices || SimplexId(dg.gradient.size()) != cubical::cellCount(g))
    throw Error("persistence pairs: the complex (" + std::to_string(nVertices) +
                " vertices) and the field (" + std::to_string(values.size) +
                " values) do not match");
  if (g.dimension < 2)
    throw Error("persistence pairs need a 2D or 3D grid");
  const int d = g.dimension;
  CubicalPairs out;
  std::array<std::vector<SimplexId>, 4> position;
  SandwichInput input;
  input.dimension = d;
  for (int k = 0; k <= d; ++k) {
    const std::vector<SimplexId>& cells = dg.criticalCells[std::size_t(k)];
    position[std::size_t(k)] = filtrationPositions(g, cells, rank);
    input.counts[std::size_t(k)] = SimplexId(cells.size());
    out.cellAt[std::size_t(k)].resize(cells.size());
    for (std::size_t i = 0; i < cells.size(); ++i)
      out.cellAt[std::size_t(k)][std::size_t(position[std::size_t(k)][i])] = cells[i];
  }
  input.saddle1Minima = saddleMinimumEnds(complex, position[0], position[1]);
  input.saddleMaxima =
      saddleMaximumEnds(dg, position[std::size_t(d)], position[std::size_t(d - 1)]);
  if (d == 3 && complex.saddleConnectionsComputed) {
    input.hasBoundary = true;
    for (const saddle_connections::Arc& arc : complex.saddleConnections.arcs) {
      if (arc.multiplicity % 2 == 0)
        continue; // an even number of V-paths cancels over Z/2
      const SimplexId r = indexIn(dg.criticalCells[1], arc.saddle1),
                      c = indexIn(dg.criticalCells[2], arc.saddle2);
      if (r < 0 || c < 0)
        throw Error("persistence pairs: a saddle connection ends at a cell that is not "
                    "critical");
      input.boundary.emplace_back(position[2][std::size_t(c)],
                                  position[1][std::size_t(r)]);
    }
  }
  pairCriticalCells(input, monitor, out.result);
  return out;
}

} // namespace

void computePersistence(const Output& complex, const ScalarArrayView& values,
                        const SimplexId* rank, Persistence& persistence) {
  persistence = Persistence();
  const CubicalPairs pairs = pairCubicalComplex(complex, values, rank, Monitor{});
  const cubical::Grid& g = complex.gradient.grid;
  const int d = g.dimension;
  for (const SandwichPair& s : pairs.result.pairs) {
    PersistencePair p;
    // PairType is the homology dimension, but the old records name 2D's (1-saddle,
    // maximum) pairs by d-1 too: the same number.
    p.dimension = s.type;
    p.birth = pairs.cellAt[std::size_t(s.type)][std::size_t(s.birth)];
    p.death = pairs.cellAt[std::size_t(s.type) + 1][std::size_t(s.death)];
    const SimplexId vb = highestVertex(g, p.birth, rank),
                    vd = highestVertex(g, p.death, rank);
    p.birthRank = rank[vb];
    p.deathRank = rank[vd];
    p.birthValue = valueAt(values, vb);
    p.deathValue = valueAt(values, vd);
    if (s.type == 1 && d == 3 && p.deathRank <= p.birthRank)
      continue; // zero persistence, inside one lower star
    persistence.pairs.push_back(p);
  }
  persistence.saddlePairs = d == 3 && complex.saddleConnectionsComputed;
  const auto left = [&](int k, std::vector<SimplexId>& cells) {
    const auto& paired = pairs.result.paired[std::size_t(k)];
    for (std::size_t i = 0; i < paired.size(); ++i)
      if (!paired[i])
        cells.push_back(pairs.cellAt[std::size_t(k)][i]);
    std::sort(cells.begin(), cells.end());
  };
  left(0, persistence.minima);
  left(1, persistence.saddles1);
  if (d == 3)
    left(2, persistence.saddlesTop);
  left(d, persistence.maxima);
}

void computePersistence(const Output& complex, const ScalarArrayView& values,
                        Persistence& persistence) {
  std::vector<SimplexId> rank(std::size_t(values.size));
  computeVertexOrderCpu(values, rank.data());
  computePersistence(complex, values, rank.data(), persistence);
}

void diagramOfCubicalComplex(const Output& complex, const ScalarArrayView& values,
                             const SimplexId* rank, const Monitor& monitor,
                             Diagram& diagram) {
  Timer timer;
  const CubicalPairs pairs = pairCubicalComplex(complex, values, rank, monitor);
  diagram.report.timings.emplace_back("pairing (cpu)", timer.seconds());
  timer.reset();
  const cubical::Grid& g = complex.gradient.grid;
  std::array<std::vector<CriticalCell>, 4> cells;
  for (int k = 0; k <= g.dimension; ++k)
    for (const SimplexId c : pairs.cellAt[std::size_t(k)])
      cells[std::size_t(k)].push_back({c, highestVertex(g, c, rank)});
  buildDiagram(g.dimension, cells, pairs.result, values, rank, diagram);
  diagram.report.timings.emplace_back("diagram records (cpu)", timer.seconds());
}

} // namespace topogpu::persistence_diagram
