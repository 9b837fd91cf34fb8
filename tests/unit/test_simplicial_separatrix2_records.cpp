// Port 2's records of the simplicial complex
// (core/morse_smale_complex/SimplicialSeparatrix2Records.h) on a wheel of tets around one
// edge, with walls given by hand, against geometry computed here: triangles drawn on the
// input's points (one point per vertex), the hub edge's dual polygon through the 12 tet
// barycentres in cyclic order (consecutive tets share a ring vertex), an edge with two
// tets drawn by no polygon but keeping its SeparatrixId, TTK's cell data, and the corner
// limit: an Error naming the corners and the limit before anything is drawn.
#include "BruteForce.h"
#include "UnitHelpers.h"

#include "core/morse_smale_complex/SimplicialSeparatrix2Records.h"
#include "triangulation/explicit/ExplicitTriangulation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace topogpu::test {
namespace {

namespace s2 = separatrices2::simplicial;
namespace msc = morse_smale_complex;

constexpr int kRing = 12;

// Poles 0 (z = -1) and 1 (z = 1), ring vertices 2..13 on the unit circle.
struct Wheel {
  std::vector<double> xyz;
  std::vector<Tuple> tets;
  Wheel() {
    xyz = {0, 0, -1, 0, 0, 1};
    for (int i = 0; i < kRing; ++i) {
      const double a = 2 * M_PI * i / kRing;
      xyz.insert(xyz.end(), {std::cos(a), std::sin(a), 0});
      tets.push_back({0, 1, 2 + i, 2 + (i + 1) % kRing});
    }
  }
};

template <typename Tri> SimplexId edgeOf(const Tri& tri, SimplexId a, SimplexId b) {
  for (SimplexId e = 0; e < tri.getNumberOfEdges(); ++e)
    if (std::set<SimplexId>{tri.getEdgeVertex(e, 0), tri.getEdgeVertex(e, 1)} ==
        std::set<SimplexId>{a, b})
      return e;
  return -1;
}

template <typename Tri>
SimplexId triangleOf(const Tri& tri, SimplexId a, SimplexId b, SimplexId c) {
  for (SimplexId t = 0; t < tri.getNumberOfTriangles(); ++t)
    if (std::set<SimplexId>{tri.getTriangleVertex(t, 0), tri.getTriangleVertex(t, 1),
                            tri.getTriangleVertex(t, 2)} == std::set<SimplexId>{a, b, c})
      return t;
  return -1;
}

// One wall per saddle, its cells as given.
void addWall(separatrices2::Walls& w, s2::WallAttributes& a, SimplexId saddle,
             std::vector<SimplexId> cells, SimplexId high, SimplexId low) {
  w.saddles.push_back(saddle);
  w.cells.insert(w.cells.end(), cells.begin(), cells.end());
  w.offsets.push_back(w.cells.size());
  w.cellCounts.push_back(cells.size());
  w.reachedOffsets.push_back(0);
  a.functionMaximum.push_back(high);
  a.functionMinimum.push_back(low);
  a.onBoundary.push_back(1);
}

class WheelRecords : public ::testing::Test {
protected:
  Wheel wheel;
  ExplicitTriangulation tri{2 + kRing, 3, flatten(wheel.tets)};
  std::vector<double> values;
  s2::Output walls;
  msc::ArrayPoints points{wheel.xyz.data()};
  void SetUp() override {
    tri.precondition(s2::kRequiredRelations);
    for (int v = 0; v < 2 + kRing; ++v)
      values.push_back(0.5 * v);
    // descending: two triangles of the hub; ascending: the hub edge, then a ring edge
    const SimplexId hub = edgeOf(tri, 0, 1);
    addWall(walls.descending, walls.descendingAttributes, triangleOf(tri, 0, 1, 3),
            {triangleOf(tri, 0, 1, 2), triangleOf(tri, 0, 1, 3)}, 3, 0);
    addWall(walls.ascending, walls.ascendingAttributes, hub, {hub}, 5, 0);
    addWall(walls.ascending, walls.ascendingAttributes, edgeOf(tri, 2, 3),
            {edgeOf(tri, 2, 3)}, 3, 2);
  }
};

TEST_F(WheelRecords, TrianglesOnVerticesAndTheHubsDualPolygon) {
  msc::Separatrix2Records out;
  msc::simplicial::buildSeparatrices2(tri, walls, viewOf(values), points, {}, out);
  ASSERT_EQ(out.offsets, (std::vector<SimplexId>{0, 3, 6, 6 + kRing}));
  // points: vertices 0, 1, 2, 3 (id order), then the 12 barycentres
  ASSERT_EQ(out.points.size(), std::size_t(3 * (4 + kRing)));
  for (int v = 0; v < 4; ++v)
    for (int a = 0; a < 3; ++a)
      EXPECT_EQ(out.points[std::size_t(3 * v + a)], wheel.xyz[std::size_t(3 * v + a)]);
  std::set<std::set<SimplexId>> triangles;
  for (std::ptrdiff_t k = 0; k < 2; ++k)
    triangles.insert(
        {out.connectivity.begin() + 3 * k, out.connectivity.begin() + 3 * k + 3});
  EXPECT_EQ(triangles, (std::set<std::set<SimplexId>>{{0, 1, 2}, {0, 1, 3}}));
  // the polygon: each corner a tet's barycentre (at angle (i + 1/2) 2pi/12, z = 0, radius
  // cos(pi/12) / 2), consecutive corners neighbouring tets, all 12 once
  std::vector<int> slots;
  for (int j = 6; j < 6 + kRing; ++j) {
    const double* p = &out.points[std::size_t(3 * out.connectivity[std::size_t(j)])];
    EXPECT_NEAR(p[2], 0.0, 1e-12);
    EXPECT_NEAR(std::hypot(p[0], p[1]), std::cos(M_PI / kRing) / 2, 1e-12);
    const double slot = std::atan2(p[1], p[0]) / (2 * M_PI / kRing) - 0.5;
    slots.push_back((int(std::lround(slot)) + kRing) % kRing);
  }
  EXPECT_EQ(std::set<int>(slots.begin(), slots.end()).size(), std::size_t(kRing));
  for (int j = 0; j < kRing; ++j) {
    const int step =
        (slots[std::size_t((j + 1) % kRing)] - slots[std::size_t(j)] + kRing) % kRing;
    EXPECT_TRUE(step == 1 || step == kRing - 1) << "corners " << j << " not neighbours";
  }
  // cell data: the ring edge's wall (2 tets around it) draws nothing but keeps id 2
  EXPECT_EQ(out.separatrixId, (std::vector<SimplexId>{0, 0, 1}));
  EXPECT_EQ(out.separatrixType, (std::vector<signed char>{2, 2, 1}));
  EXPECT_EQ(out.sourceId[2], edgeOf(tri, 0, 1));
  EXPECT_EQ(out.functionMaximum, (std::vector<double>{1.5, 1.5, 2.5}));
  EXPECT_EQ(out.functionMinimum, (std::vector<double>{0.0, 0.0, 0.0}));
  EXPECT_EQ(out.onBoundary, (std::vector<signed char>{1, 1, 1}));
}

TEST_F(WheelRecords, CornerLimitIsAnErrorNamingTheCorners) {
  msc::Separatrix2Records out;
  separatrices2::Parameters p;
  p.maxCells = 3; // 18 corners allowed: exactly the 6 + 12 drawn
  msc::simplicial::buildSeparatrices2(tri, walls, viewOf(values), points, p, out);
  EXPECT_EQ(out.connectivity.size(), std::size_t(6 + kRing));
  p.maxCells = 2;
  expectError(
      [&] {
        msc::simplicial::buildSeparatrices2(tri, walls, viewOf(values), points, p, out);
      },
      "takes 18 polygon corners, more than the limit of 12");
}

} // namespace
} // namespace topogpu::test
