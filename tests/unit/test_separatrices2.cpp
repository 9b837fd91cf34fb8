// The 2-separatrices (walls) against an independent oracle: every V-path enumerated by
// plain recursion from each saddle over the gradient bytes (its own refined-coordinate
// decoding and its own reading of the one-byte codes; nothing from core/
// morse_smale_complex), the wall being the cells on those paths and the saddles of the
// other kind where they end. On random 3D grids with ties: the same cells per saddle.
// Also invariants that fail on a wrong wall (closure, pairing, monotone values), a
// hand-built gradient whose walls are derived by hand, the polygons drawn for the
// cells, the memory limit and the cases without walls.
#include "core/discrete_gradient/DiscreteGradient.h"
#include "core/morse_smale_complex/Separatrices2.h"
#include "tests/unit/SaddleConnectionsChain.h"
#include "tests/unit/UnitHelpers.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace topogpu::test {
namespace {

namespace dg = discrete_gradient;
namespace s2 = separatrices2;

// ---- the oracle
// ------------------------------------------------------------------------

using Point = std::array<long long, 3>;

// The refined grid as the byte format defines it: (2nx-1) x (2ny-1) x (2nz-1) cells,
// x fastest; a cell spans the axes where its coordinate is odd; a byte b < 6 pairs the
// cell with its neighbour at offset (b % 2 ? -1 : +1) along axis b / 2; 6 is critical.
struct Oracle {
  Point size{};
  const std::vector<std::uint8_t>* bytes = nullptr;
  long long paths = 0; // V-paths enumerated, to bound the recursion

  long long id(const Point& p) const { return p[0] + size[0] * (p[1] + size[1] * p[2]); }
  Point at(long long cell) const {
    return {cell % size[0], cell / size[0] % size[1], cell / (size[0] * size[1])};
  }
  static int dim(const Point& p) { return int(p[0] % 2 + p[1] % 2 + p[2] % 2); }
  bool critical(const Point& p) const { return (*bytes)[std::size_t(id(p))] == 6; }
  Point partner(const Point& p) const {
    const std::uint8_t b = (*bytes)[std::size_t(id(p))];
    Point q = p;
    q[b / 2] += (b % 2) ? -1 : 1;
    return q;
  }
  bool inside(const Point& p) const {
    for (int a = 0; a < 3; ++a)
      if (p[std::size_t(a)] < 0 || p[std::size_t(a)] >= size[std::size_t(a)])
        return false;
    return true;
  }
  // Neighbours at refined distance 1 of dimension d (faces or cofaces of p).
  std::vector<Point> neighbours(const Point& p, int d) const {
    std::vector<Point> out;
    for (std::size_t a = 0; a < 3; ++a)
      for (int s = -1; s <= 1; s += 2) {
        Point q = p;
        q[a] += s;
        if (inside(q) && dim(q) == d)
          out.push_back(q);
      }
    return out;
  }

  // Every descending V-path from `path.back()` (a quad): quad, facet edge, the quad it
  // is paired with, ... Cells on a path go to wall, ending critical edges to border.
  void descend(std::vector<Point>& path, std::set<long long>& wall,
               std::set<long long>& border) {
    ++paths;
    const Point q = path.back();
    wall.insert(id(q));
    for (const Point& e : neighbours(q, 1)) {
      if (critical(e)) {
        border.insert(id(e));
        continue;
      }
      const Point next = partner(e);
      if (dim(next) != 2 || next == q)
        continue; // e is paired with a vertex, or with q: the path ends / came from there
      EXPECT_EQ(partner(next), e) << "pairs are not mutual";
      EXPECT_TRUE(std::find(path.begin(), path.end(), next) == path.end())
          << "a V-path closes a cycle";
      path.push_back(e);
      path.push_back(next);
      descend(path, wall, border);
      path.resize(path.size() - 2);
    }
  }

  // Every ascending V-path from an edge: edge, cofacet quad, the edge paired with it, ...
  void ascend(std::vector<Point>& path, std::set<long long>& wall,
              std::set<long long>& border) {
    ++paths;
    const Point e = path.back();
    wall.insert(id(e));
    for (const Point& q : neighbours(e, 2)) {
      if (critical(q)) {
        border.insert(id(q));
        continue;
      }
      const Point next = partner(q);
      if (dim(next) != 1 || next == e)
        continue;
      EXPECT_TRUE(std::find(path.begin(), path.end(), next) == path.end())
          << "a V-path closes a cycle";
      path.push_back(q);
      path.push_back(next);
      ascend(path, wall, border);
      path.resize(path.size() - 2);
    }
  }
};

struct Wall {
  std::set<long long> cells, border;
};

// Per critical quad (descending) or critical edge (ascending), in id order.
std::vector<Wall> oracleWalls(const dg::Output& gradient, bool descending,
                              long long& paths) {
  Oracle o;
  for (int a = 0; a < 3; ++a)
    o.size[std::size_t(a)] = 2 * gradient.grid.n[a] - 1;
  o.bytes = &gradient.gradient;
  std::vector<Wall> walls;
  for (long long cell = 0; cell < o.size[0] * o.size[1] * o.size[2]; ++cell) {
    const Point p = o.at(cell);
    if (!o.critical(p) || Oracle::dim(p) != (descending ? 2 : 1))
      continue;
    Wall w;
    std::vector<Point> path{p};
    if (descending)
      o.descend(path, w.cells, w.border);
    else
      o.ascend(path, w.cells, w.border);
    walls.push_back(std::move(w));
  }
  paths += o.paths;
  return walls;
}

Wall wallOf(const s2::Walls& walls, std::size_t i) {
  Wall w;
  w.cells.insert(walls.cells.begin() + std::ptrdiff_t(walls.offsets[i]),
                 walls.cells.begin() + std::ptrdiff_t(walls.offsets[i + 1]));
  w.border.insert(walls.reached.begin() + std::ptrdiff_t(walls.reachedOffsets[i]),
                  walls.reached.begin() + std::ptrdiff_t(walls.reachedOffsets[i + 1]));
  return w;
}

s2::Output wallsOf(const dg::Output& gradient, std::size_t maxCells = std::size_t(1)
                                                                      << 25) {
  s2::Parameters p;
  p.ascending = p.descending = true;
  p.maxCells = maxCells;
  s2::Output out;
  RunReport report;
  s2::compute(gradient, p, Monitor{}, out, report);
  return out;
}

// ---- tests
// -------------------------------------------------------------------------------

TEST(Separatrices2, MatchesBruteForceOnRandomGridsWithTies) {
  std::mt19937 rng(20261122);
  std::size_t nonTrivial[2] = {0, 0}, borders[2] = {0, 0};
  long long paths = 0;
  for (int trial = 0; trial < 60; ++trial) {
    std::uniform_int_distribution<int> side(4, 7);
    const SimplexId nx = side(rng), ny = side(rng), nz = side(rng);
    const int levels = trial % 3 == 0 ? 3 : (trial % 3 == 1 ? 12 : 1000);
    const dg::Output gradient =
        gradientOf(nx, ny, nz, randomLevels(rng, std::size_t(nx * ny * nz), levels));
    const s2::Output out = wallsOf(gradient);
    const std::string tag = gridName(nx, ny, nz) + " levels " + std::to_string(levels);
    for (int k = 0; k < 2; ++k) {
      const bool descending = k == 0;
      const s2::Walls& walls = descending ? out.descending : out.ascending;
      const std::vector<Wall> expected = oracleWalls(gradient, descending, paths);
      ASSERT_EQ(walls.size(), expected.size()) << tag;
      EXPECT_EQ(walls.saddles, gradient.criticalCells[descending ? 2 : 1]) << tag;
      ASSERT_EQ(walls.offsets.size(), walls.size() + 1) << tag;
      for (std::size_t i = 0; i < walls.size(); ++i) {
        const Wall got = wallOf(walls, i);
        EXPECT_EQ(got.cells, expected[i].cells) << tag << " wall " << i << " " << k;
        EXPECT_EQ(got.border, expected[i].border) << tag << " wall " << i << " " << k;
        // sorted, no duplicates
        EXPECT_EQ(got.cells.size(), walls.offsets[i + 1] - walls.offsets[i]) << tag;
        EXPECT_TRUE(
            std::is_sorted(walls.cells.begin() + std::ptrdiff_t(walls.offsets[i]),
                           walls.cells.begin() + std::ptrdiff_t(walls.offsets[i + 1])));
        nonTrivial[k] += expected[i].cells.size() > 1;
        borders[k] += expected[i].border.size();
      }
    }
  }
  // the sample must exercise the walk: walls beyond their saddle, saddles reached
  EXPECT_GT(nonTrivial[0], 100u);
  EXPECT_GT(nonTrivial[1], 100u);
  EXPECT_GT(borders[0], 100u);
  EXPECT_GT(borders[1], 100u);
  EXPECT_GT(paths, 1000);
}

// Properties a wrong wall breaks, checked from the definitions on larger grids (no
// oracle run): closure under the step, every cell but the saddle entered through its
// gradient pair from another cell of the wall, values never above (descending) or below
// (ascending) the saddle's, the border saddles exactly the critical faces / cofaces.
TEST(Separatrices2, WallInvariants) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 6; ++trial) {
    const SimplexId nx = 12 + trial, ny = 10, nz = 9 + trial % 2;
    const std::vector<float> v =
        randomLevels(rng, std::size_t(nx * ny * nz), trial % 2 ? 5 : 100000);
    const dg::Output gradient = gradientOf(nx, ny, nz, v);
    const cubical::Grid& g = gradient.grid;
    const s2::Output out = wallsOf(gradient);
    const Point size = {2 * nx - 1, 2 * ny - 1, 2 * nz - 1};
    Oracle o;
    o.size = size;
    o.bytes = &gradient.gradient;
    auto value = [&](const Point& p) { // lower-star value: the largest vertex value
      float best = -1e30f;
      for (int corner = 0; corner < 8; ++corner) {
        long long x[3];
        for (std::size_t a = 0; a < 3; ++a)
          x[a] = (p[a] + ((corner >> a) & 1)) / 2;
        best = std::max(best, v[std::size_t(x[0] + nx * (x[1] + ny * x[2]))]);
      }
      return best;
    };
    for (int k = 0; k < 2; ++k) {
      const bool descending = k == 0;
      const s2::Walls& walls = descending ? out.descending : out.ascending;
      const int d = descending ? 2 : 1, other = descending ? 1 : 2;
      for (std::size_t i = 0; i < walls.size(); ++i) {
        const Wall w = wallOf(walls, i);
        const Point saddle = o.at(walls.saddles[i]);
        ASSERT_TRUE(w.cells.count(walls.saddles[i]));
        std::set<long long> border;
        for (const long long cell : w.cells) {
          const Point p = o.at(cell);
          ASSERT_EQ(Oracle::dim(p), d);
          if (descending)
            EXPECT_LE(value(p), value(saddle));
          else
            EXPECT_GE(value(p), value(saddle));
          for (const Point& n : o.neighbours(p, other)) {
            if (o.critical(n)) {
              border.insert(o.id(n));
              continue;
            }
            const Point next = o.partner(n);
            if (Oracle::dim(next) == d && next != p) {
              EXPECT_TRUE(w.cells.count(o.id(next))) << "not closed";
            }
          }
          if (cell == walls.saddles[i])
            continue;
          // entered through its pair: partner of dimension `other`, adjacent to another
          // cell of the wall
          ASSERT_FALSE(o.critical(p));
          const Point via = o.partner(p);
          ASSERT_EQ(Oracle::dim(via), other) << "a wall cell paired outside the walk";
          bool entered = false;
          for (const Point& n : o.neighbours(via, d))
            entered = entered || (n != p && w.cells.count(o.id(n)));
          EXPECT_TRUE(entered) << "a wall cell nothing leads to";
        }
        EXPECT_EQ(border, w.border);
      }
    }
    EXPECT_EQ(cubical::cellCount(g), size[0] * size[1] * size[2]);
  }
}

// The diamond chain of tests/unit/SaddleConnectionsChain.h, walls derived by hand: unit
// i (b = 4i) puts the quads (b+1,1,0), (b+1,0,1), (b+2,1,1), (b+3,1,0) on the 2-saddle's
// wall (its two V-paths), and the edges (b+2,1,0), (b+2,0,1), (b+1,0,0) plus (b,1,0)
// for i > 0 on the 1-saddle's; each wall reaches the other saddle.
TEST(Separatrices2, HandBuiltDiamondChain) {
  for (int k = 1; k <= 4; ++k) {
    const dg::Output g = diamondChain(k);
    const SimplexId nx = 4 * SimplexId(k) + 1;
    const auto cell = [nx](SimplexId x, SimplexId y, SimplexId z) {
      return x + nx * (y + 3 * z);
    };
    std::vector<SimplexId> quads, edges{cell(4 * SimplexId(k), 1, 0)};
    for (SimplexId i = 0; i < k; ++i) {
      const SimplexId b = 4 * i;
      for (SimplexId q :
           {cell(b + 1, 1, 0), cell(b + 1, 0, 1), cell(b + 2, 1, 1), cell(b + 3, 1, 0)})
        quads.push_back(q);
      for (SimplexId e : {cell(b + 2, 1, 0), cell(b + 2, 0, 1), cell(b + 1, 0, 0)})
        edges.push_back(e);
      if (i > 0)
        edges.push_back(cell(b, 1, 0));
    }
    std::sort(quads.begin(), quads.end());
    std::sort(edges.begin(), edges.end());
    const s2::Output out = wallsOf(g);
    ASSERT_EQ(out.descending.size(), 1u);
    ASSERT_EQ(out.ascending.size(), 1u);
    EXPECT_EQ(out.descending.cells, quads) << k;
    EXPECT_EQ(out.ascending.cells, edges) << k;
    EXPECT_EQ(out.descending.reached,
              std::vector<SimplexId>{cell(4 * SimplexId(k), 1, 0)});
    EXPECT_EQ(out.ascending.reached, std::vector<SimplexId>{cell(1, 1, 0)});
  }
}

// Every wall cell's polygon: 4 distinct corners in cyclic order (consecutive ones
// differ along one axis), coplanar; a quad's are its vertices; an edge's lie in the
// plane through its midpoint, around it, and are cells having the edge as a face (or the
// edge itself on the box's edges), the 4 voxels around it inside the box.
TEST(Separatrices2, PolygonCorners) {
  for (const auto& n : std::vector<std::array<SimplexId, 3>>{{2, 2, 2}, {4, 3, 5}}) {
    cubical::Grid g;
    g.n[0] = n[0];
    g.n[1] = n[1];
    g.n[2] = n[2];
    g.dimension = 3;
    for (SimplexId cell = 0; cell < cubical::cellCount(g); ++cell) {
      const int d = cubical::cellDimension(g, cell);
      if (d != 1 && d != 2)
        continue;
      SimplexId corners[4], c[3];
      s2::polygonCorners(g, cell, corners);
      cubical::cellCoords(g, cell, c);
      std::set<SimplexId> distinct(corners, corners + 4);
      EXPECT_EQ(distinct.size(), 4u) << cell;
      bool interior = true;
      for (int a = 0; a < 3; ++a)
        interior = interior && c[a] > 0 && c[a] < cubical::refinedSize(g, a) - 1;
      for (int i = 0; i < 4; ++i) {
        SimplexId p[3], q[3];
        cubical::cellCoords(g, corners[i], p);
        cubical::cellCoords(g, corners[(i + 1) % 4], q);
        int differ = 0;
        for (int a = 0; a < 3; ++a)
          differ += p[a] != q[a];
        EXPECT_EQ(differ, 1) << "corners " << i << " of " << cell << " not cyclic";
        for (int a = 0; a < 3; ++a) {
          EXPECT_LE(std::abs(p[a] - c[a]), 1);
          if (d == 1 && (c[a] & 1)) {
            EXPECT_EQ(p[a], c[a]) << "not in the edge's mid-plane";
          }
        }
        const int pd = cubical::cellDimension(g, corners[i]);
        if (d == 2)
          EXPECT_EQ(pd, 0);
        else if (interior)
          EXPECT_EQ(pd, 3);
        else
          EXPECT_GE(pd, 1);
      }
    }
  }
}

TEST(Separatrices2, MemoryLimitIsAnErrorNotAPartialWall) {
  std::mt19937 rng(3);
  const dg::Output gradient =
      gradientOf(9, 8, 7, randomLevels(rng, std::size_t(9 * 8 * 7), 1000));
  const s2::Output full = wallsOf(gradient);
  const std::size_t total = full.descending.cells.size() + full.ascending.cells.size();
  ASSERT_GT(total, 100u);
  EXPECT_NO_THROW(wallsOf(gradient, total));
  expectError([&] { wallsOf(gradient, total - 1); },
              "limit of " + std::to_string(total - 1));
  expectError([&] { wallsOf(gradient, full.descending.cells.size() - 1); }, "descending");
  // one kind only counts its own cells
  s2::Parameters p;
  p.descending = true;
  p.maxCells = full.descending.cells.size();
  s2::Output out;
  RunReport report;
  EXPECT_NO_THROW(s2::compute(gradient, p, Monitor{}, out, report));
  EXPECT_EQ(out.descending.cells, full.descending.cells);
  EXPECT_TRUE(out.ascending.cells.empty());
}

TEST(Separatrices2, NoWallsIn2DOrWhenOff) {
  std::mt19937 rng(5);
  const dg::Output flat = gradientOf(9, 1, 8, randomLevels(rng, 72, 1000));
  ASSERT_EQ(flat.grid.dimension, 2);
  ASSERT_GT(flat.counts[1], 0);
  const s2::Output out2d = wallsOf(flat);
  EXPECT_EQ(out2d.descending.size() + out2d.ascending.size(), 0u);
  const dg::Output gradient = gradientOf(6, 6, 6, randomLevels(rng, 216, 1000));
  s2::Output out;
  RunReport report;
  s2::compute(gradient, s2::Parameters{}, Monitor{}, out, report);
  EXPECT_EQ(out.descending.size() + out.ascending.size(), 0u);
  dg::Output broken = gradient;
  broken.gradient.pop_back();
  expectError([&] { wallsOf(broken); }, "gradient has");
}

TEST(Separatrices2, ProgressAndAbort) {
  std::mt19937 rng(9);
  const dg::Output gradient = gradientOf(8, 8, 8, randomLevels(rng, 512, 1000));
  expectProgressAndAbort([&](const Monitor& monitor) {
    s2::Parameters p;
    p.ascending = p.descending = true;
    s2::Output out;
    RunReport report;
    s2::compute(gradient, p, monitor, out, report);
  });
}

} // namespace
} // namespace topogpu::test
