// The 2-separatrices of the simplicial complex
// (core/morse_smale_complex/SimplicialSeparatrices2.h) against an oracle written here on
// vertex tuples: the gradient's pairs read as (face tuple -> coface tuple), the faces and
// cofaces of every simplex from BruteComplex (scans of simplex lists, nothing from the
// triangulation), and one breadth-first search per saddle over std::set. Per saddle the
// wall's cells and the saddles it reaches must equal the oracle's, on small grids and
// random tet meshes (holes, pinches, non-manifold), through the implicit, explicit and
// GALE backends. Properties checked besides: every wall cell but the saddle is entered
// through its pair (the wall is closed under "paired with a face of a wall cell"), the
// function range brackets the saddle, a dual polygon is the edge's star in fan order, the
// counting mode gives the kept walls' sizes, the cell limit is an Error naming it, and
// triangle meshes have no walls.
#include "BruteForce.h"
#include "TriangulationChecks.h"
#include "UnitHelpers.h"

#include "core/morse_smale_complex/SimplicialSeparatrices2.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/gale/GaleTriangulation.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace topogpu::test {
namespace {

namespace sg = discrete_gradient::simplicial;
namespace s2 = separatrices2::simplicial;

// Per saddle (as a tuple): its wall's cells and the saddles of the other kind it reaches.
struct WallTuples {
  std::map<Tuple, std::set<Tuple>> cells, reached;
  bool operator==(const WallTuples& o) const {
    return cells == o.cells && reached == o.reached;
  }
};

// The gradient as tuples: up[face] = coface for every pair, and the critical simplices.
struct PairTuples {
  std::map<Tuple, Tuple> up, down;
  std::set<Tuple> critical;
};

template <typename Triangulation>
PairTuples pairsOf(Triangulation& tri, const sg::Output& g) {
  tri.precondition(sg::kPairRelations);
  PairTuples p;
  for (int d = 0; d <= g.dimension; ++d)
    for (SimplexId id = 0; id < g.simplexCounts[d]; ++id) {
      if (sg::isCritical(g, d, id)) {
        p.critical.insert(verticesOf(tri, d, id));
        continue;
      }
      const SimplexId up = sg::getPairedCell(tri, g, d, id, false);
      if (up >= 0) {
        p.up[verticesOf(tri, d, id)] = verticesOf(tri, d + 1, up);
        p.down[verticesOf(tri, d + 1, up)] = verticesOf(tri, d, id);
      }
    }
  return p;
}

// The oracle: breadth-first searches over tuples.
WallTuples bruteWalls(const BruteComplex& cx, const PairTuples& p, bool descending) {
  WallTuples w;
  if (cx.dimension != 3)
    return w;
  const int dim = descending ? 2 : 1;
  for (const Tuple& saddle : cx.simplices[dim]) {
    if (!p.critical.count(saddle))
      continue;
    std::set<Tuple>& wall = w.cells[saddle];
    std::set<Tuple>& reached = w.reached[saddle];
    std::vector<Tuple> queue{saddle};
    wall.insert(saddle);
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const Tuple cell = queue[head];
      // descending: the edges of a triangle; ascending: the triangles of an edge
      std::vector<Tuple> next;
      for (const Tuple& s : cx.simplices[descending ? 1 : 2])
        if (descending ? BruteComplex::contains(cell, s)
                       : BruteComplex::contains(s, cell))
          next.push_back(s);
      for (const Tuple& s : next) {
        if (p.critical.count(s)) {
          reached.insert(s);
          continue;
        }
        const auto& pairs = descending ? p.up : p.down;
        const auto it = pairs.find(s);
        if (it == pairs.end() || it->second == cell)
          continue;
        if (wall.insert(it->second).second)
          queue.push_back(it->second);
      }
    }
  }
  return w;
}

template <typename Triangulation>
WallTuples asTuples(const Triangulation& tri, const separatrices2::Walls& walls,
                    int dim) {
  WallTuples w;
  for (std::size_t i = 0; i < walls.size(); ++i) {
    const Tuple saddle = verticesOf(tri, dim, walls.saddles[i]);
    auto& cells = w.cells[saddle];
    for (std::size_t k = walls.offsets[i]; k < walls.offsets[i + 1]; ++k)
      cells.insert(verticesOf(tri, dim, walls.cells[k]));
    EXPECT_EQ(cells.size(), walls.offsets[i + 1] - walls.offsets[i]) << "duplicate cell";
    EXPECT_EQ(walls.cellCounts[i], cells.size());
    auto& reached = w.reached[saddle];
    for (std::size_t k = walls.reachedOffsets[i]; k < walls.reachedOffsets[i + 1]; ++k)
      reached.insert(verticesOf(tri, dim == 2 ? 1 : 2, walls.reached[k]));
  }
  return w;
}

struct WallRun {
  sg::Output gradient;
  std::vector<SimplexId> rank;
  s2::Output walls;
};

template <typename Triangulation>
WallRun run(Triangulation& tri, const std::vector<float>& values, bool keepCells = true) {
  WallRun r;
  sg::execute(tri, viewOf(values), sg::Parameters{}, Monitor{}, r.gradient, &r.rank);
  separatrices2::Parameters p;
  p.ascending = p.descending = true;
  p.keepCells = keepCells;
  RunReport report;
  s2::compute(tri, r.gradient, r.rank.data(), p, Monitor{}, r.walls, report);
  return r;
}

// Properties independent of the oracle.
template <typename Triangulation>
void checkProperties(Triangulation& tri, const WallRun& r, bool manifold) {
  const auto& g = r.gradient;
  if (g.dimension != 3) { // no walls on triangles (TTK's 2-separatrices are 3D only)
    EXPECT_EQ(r.walls.descending.size() + r.walls.ascending.size(), 0u);
    return;
  }
  const std::size_t n2 = g.criticalCells[2].size(), n1 = g.criticalCells[1].size();
  ASSERT_EQ(r.walls.descending.size(), n2);
  ASSERT_EQ(r.walls.ascending.size(), n1);
  // Every descending wall triangle but the saddle is paired down with an edge of another
  // wall triangle; its range runs from a vertex at or below to the saddle's top vertex.
  const auto& d = r.walls.descending;
  for (std::size_t i = 0; i < d.size(); ++i) {
    std::set<SimplexId> wall(d.cells.begin() + std::ptrdiff_t(d.offsets[i]),
                             d.cells.begin() + std::ptrdiff_t(d.offsets[i + 1]));
    ASSERT_TRUE(wall.count(d.saddles[i]));
    for (const SimplexId t : wall) {
      if (t == d.saddles[i])
        continue;
      const SimplexId e = sg::getPairedCell(tri, g, 2, t, true);
      ASSERT_GE(e, 0);
      bool entered = false;
      for (const SimplexId u : wall)
        for (int j = 0; j < 3 && !entered; ++j)
          entered = u != t && tri.getTriangleEdge(u, j) == e;
      EXPECT_TRUE(entered) << "wall triangle not entered through its pair";
    }
    const SimplexId top = r.walls.descendingAttributes.functionMaximum[i];
    const SimplexId low = r.walls.descendingAttributes.functionMinimum[i];
    EXPECT_EQ(top, g.criticalVertices[2][i]);
    EXPECT_LE(r.rank[low], r.rank[top]);
  }
  const auto& a = r.walls.ascending;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const SimplexId low = r.walls.ascendingAttributes.functionMinimum[i];
    const SimplexId top = r.walls.ascendingAttributes.functionMaximum[i];
    EXPECT_LE(r.rank[low], r.rank[top]);
    const SimplexId e = a.saddles[i];
    EXPECT_TRUE(low == tri.getEdgeVertex(e, 0) || low == tri.getEdgeVertex(e, 1));
    // The dual polygon of each wall edge: its star, consecutive tets sharing a triangle.
    for (std::size_t k = a.offsets[i]; k < a.offsets[i + 1]; ++k) {
      std::vector<SimplexId> fan;
      s2::dualPolygon(tri, a.cells[k], fan);
      const Tuple edge = verticesOf(tri, 1, a.cells[k]);
      std::set<Tuple> star, got;
      for (SimplexId t = 0; t < g.simplexCounts[3]; ++t)
        if (BruteComplex::contains(verticesOf(tri, 3, t), edge))
          star.insert(verticesOf(tri, 3, t));
      for (const SimplexId t : fan)
        got.insert(verticesOf(tri, 3, t));
      EXPECT_EQ(got, star);
      int breaks = 0;
      for (std::size_t j = 1; j < fan.size(); ++j) {
        Tuple x = verticesOf(tri, 3, fan[j - 1]), y = verticesOf(tri, 3, fan[j]), common;
        std::set_intersection(x.begin(), x.end(), y.begin(), y.end(),
                              std::back_inserter(common));
        breaks += common.size() == 3 ? 0 : 1;
      }
      // a manifold edge's fan is one strip (closed, or open from one end); pinched
      // meshes may split it
      if (manifold) {
        EXPECT_EQ(breaks, 0);
      }
    }
  }
}

TEST(SimplicialSeparatrices2, MatchBruteForceOnEveryBackend) {
  std::mt19937 rng(41);
  struct Case {
    SimplexId nv;
    int dimension;
    std::vector<Tuple> cells;
    std::array<SimplexId, 3> grid;
  };
  std::vector<Case> cases;
  const SimplexId dims[][3] = {{5, 4, 4}, {4, 6, 5}, {3, 3, 3}, {6, 5, 1}};
  for (const auto& n : dims) {
    const std::vector<Tuple> cells = ttkGridCells(n[0], n[1], n[2]);
    cases.push_back(
        {n[0] * n[1] * n[2], int(cells.front().size()) - 1, cells, {n[0], n[1], n[2]}});
  }
  for (int index = 0; cases.size() < 14; ++index) {
    const RandomMesh m = randomMesh(index, rng);
    if (!m.cells.empty())
      cases.push_back({m.numberOfVertices, m.dimension, m.cells, {0, 0, 0}});
  }
  int wallsSeen = 0;
  for (const Case& c : cases) {
    for (int levels : {3, 1000}) {
      SCOPED_TRACE(std::to_string(c.nv) + " vertices, dimension " +
                   std::to_string(c.dimension) + ", levels " + std::to_string(levels));
      const std::vector<float> values = randomLevels(rng, std::size_t(c.nv), levels);
      const BruteComplex cx(c.nv, c.dimension, c.cells);
      ExplicitTriangulation mesh(c.nv, c.dimension, flatten(c.cells));
      const WallRun got = run(mesh, values);
      const PairTuples pairs = pairsOf(mesh, got.gradient);
      const WallTuples down = bruteWalls(cx, pairs, true),
                       up = bruteWalls(cx, pairs, false);
      EXPECT_TRUE(asTuples(mesh, got.walls.descending, 2) == down) << "descending";
      EXPECT_TRUE(asTuples(mesh, got.walls.ascending, 1) == up) << "ascending";
      checkProperties(mesh, got, c.grid[0] > 0);
      for (const auto& [saddle, cells] : down.cells)
        wallsSeen += cells.size() > 1 ? 1 : 0;

      const WallRun counted = run(mesh, values, false);
      EXPECT_EQ(counted.walls.descending.cellCounts, got.walls.descending.cellCounts);
      EXPECT_EQ(counted.walls.ascending.cellCounts, got.walls.ascending.cellCounts);
      EXPECT_EQ(counted.walls.ascending.reached, got.walls.ascending.reached);
      EXPECT_TRUE(counted.walls.descending.cells.empty());

      const std::vector<double> points =
          randomUniform(rng, std::size_t(3 * c.nv), 0.0, 1.0);
      gale::Parameters galeParameters;
      galeParameters.segmentCapacity = 4;
      auto gale = GaleTriangulation::fromExplicit(mesh, points, galeParameters);
      const WallRun galeRun = run(*gale, values);
      EXPECT_TRUE(asTuples(*gale, galeRun.walls.descending, 2) == down) << "GALE";
      EXPECT_TRUE(asTuples(*gale, galeRun.walls.ascending, 1) == up) << "GALE";
      if (c.grid[0] > 0) {
        ImplicitTriangulation grid(c.grid[0], c.grid[1], c.grid[2]);
        const WallRun gridRun = run(grid, values);
        EXPECT_TRUE(asTuples(grid, gridRun.walls.descending, 2) == down) << "implicit";
        EXPECT_TRUE(asTuples(grid, gridRun.walls.ascending, 1) == up) << "implicit";
        checkProperties(grid, gridRun, true);
      }
    }
  }
  EXPECT_GT(wallsSeen, 10) << "the cases should have walls of more than one triangle";
}

TEST(SimplicialSeparatrices2, TrianglesHaveNoWallsAndLimitIsAnError) {
  std::mt19937 rng(5);
  ImplicitTriangulation image(9, 7, 1);
  const WallRun flat = run(image, randomLevels(rng, 63, 1000));
  EXPECT_EQ(flat.walls.descending.size(), 0u);
  EXPECT_EQ(flat.walls.ascending.size(), 0u);

  ImplicitTriangulation grid(7, 6, 5);
  const std::vector<float> values = randomLevels(rng, 210, 1000);
  WallRun r = run(grid, values);
  const std::size_t total =
      r.walls.descending.cells.size() + r.walls.ascending.cells.size();
  ASSERT_GT(total, 8u);
  separatrices2::Parameters p;
  p.ascending = p.descending = true;
  p.maxCells = 4;
  RunReport report;
  expectError(
      [&] {
        s2::compute(grid, r.gradient, r.rank.data(), p, Monitor{}, r.walls, report);
      },
      "more than the limit of 4 cells");
  EXPECT_EQ(r.walls.descending.size(), 0u) << "no partial output";
}

} // namespace
} // namespace topogpu::test
