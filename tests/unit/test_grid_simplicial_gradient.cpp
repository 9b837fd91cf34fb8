// The grid's simplicial lower star (core/discrete_gradient/GridSimplicialLowerStar.h, the
// function the CUDA kernel runs) against the generic lower star over
// ImplicitTriangulation (SimplicialLowerStar.h, which reads the triangulation's own
// relations: neighbours, vertex stars, findTriangle, getTriangleVertex), byte for byte,
// and the grid's simplex numbering (GridSimplices.h) against ImplicitTriangulation's
// accessors, simplex by simplex. Fields: random, tie-heavy ({0, 1, 2}), constant and
// ramps, on 2D, 3D and one-voxel-thick grids of odd and even sizes.
#include "BruteForce.h"
#include "UnitHelpers.h"

#include "core/common/BackendSelection.h"
#include "core/discrete_gradient/GridEdgePairStencils.h"
#include "core/discrete_gradient/GridSimplicialLowerStar.h"
#include "core/discrete_gradient/SimplicialGradient.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <gtest/gtest.h>

#include <array>
#include <random>
#include <vector>

namespace topogpu::test {
namespace {

namespace sg = discrete_gradient::simplicial;

using Bytes = std::array<std::vector<std::uint8_t>, 4>;

Bytes emptyBytes(const ImplicitTriangulation& tri) {
  Bytes bytes;
  bytes[0].assign(std::size_t(tri.getNumberOfVertices()), sg::kUnassigned);
  bytes[1].assign(std::size_t(tri.getNumberOfEdges()), sg::kUnassigned);
  bytes[2].assign(std::size_t(tri.getNumberOfTriangles()), sg::kUnassigned);
  if (tri.getDimension() == 3)
    bytes[3].assign(std::size_t(tri.getNumberOfTets()), sg::kUnassigned);
  return bytes;
}

// The generic path: ProcessLowerStars through the triangulation's accessors.
Bytes genericGradient(ImplicitTriangulation& tri, const std::vector<SimplexId>& rank) {
  tri.precondition(sg::kRequiredRelations);
  Bytes bytes = emptyBytes(tri);
  std::array<std::uint8_t*, 4> out{};
  for (int d = 0; d < 4; ++d)
    out[d] = bytes[d].empty() ? nullptr : bytes[d].data();
  sg::detail::LowerStar scratch;
  for (SimplexId v = 0; v < tri.getNumberOfVertices(); ++v)
    sg::detail::processLowerStar(tri, v, rank.data(), scratch, out);
  return bytes;
}

// The grid's host + device function, one vertex after the other.
Bytes gridGradient(const ImplicitTriangulation& tri, const std::vector<SimplexId>& rank) {
  Bytes bytes = emptyBytes(tri);
  sg::GradientBytes out{};
  for (int d = 0; d < 4; ++d)
    out.bytes[d] = bytes[d].empty() ? nullptr : bytes[d].data();
  const sg::GridSimplices g = sg::gridSimplicesOf(tri.dims());
  for (SimplexId v = 0; v < tri.getNumberOfVertices(); ++v)
    sg::processGridLowerStar(g, v, rank.data(), out);
  return bytes;
}

void expectSameBytes(const Bytes& expected, const Bytes& got) {
  for (int d = 0; d < 4; ++d) {
    ASSERT_EQ(got[d].size(), expected[d].size()) << "dimension " << d;
    SimplexId differ = 0, first = -1;
    for (std::size_t i = 0; i < got[d].size(); ++i)
      if (got[d][i] != expected[d][i] && differ++ == 0)
        first = SimplexId(i);
    EXPECT_EQ(differ, 0) << "dimension " << d << ": first at simplex " << first
                         << " expected " << int(expected[d][std::size_t(first)])
                         << " got " << int(got[d][std::size_t(first)]);
    for (const std::uint8_t b : got[d])
      ASSERT_NE(b, sg::kUnassigned) << "dimension " << d;
  }
}

const SimplexId kShapes[][3] = {{2, 2, 2}, {3, 3, 3}, {5, 4, 3},   {7, 5, 9},  {6, 6, 6},
                                {4, 7, 2}, {2, 5, 7}, {9, 7, 1},   {1, 6, 5},  {8, 1, 7},
                                {2, 2, 1}, {2, 9, 1}, {13, 11, 1}, {12, 10, 9}};

TEST(GridSimplicialGradient, SimplexIdsMatchImplicitTriangulation) {
  for (const auto& n : kShapes) {
    SCOPED_TRACE(gridName(n[0], n[1], n[2]));
    ImplicitTriangulation tri(n[0], n[1], n[2]);
    tri.precondition(sg::kRequiredRelations | sg::kPairRelations);
    const sg::GridSimplices g = sg::gridSimplicesOf(tri.dims());
    const int dim = tri.getDimension();
    EXPECT_EQ(sg::simplexCount(g, 0), tri.getNumberOfVertices());
    EXPECT_EQ(sg::simplexCount(g, 1), tri.getNumberOfEdges());
    EXPECT_EQ(sg::simplexCount(g, 2), tri.getNumberOfTriangles());
    EXPECT_EQ(sg::simplexCount(g, 3), dim == 3 ? tri.getNumberOfTets() : 0);
    for (int d = 1; d <= dim; ++d)
      for (SimplexId id = 0; id < sg::simplexCount(g, d); ++id) {
        SimplexId got[4];
        sg::gridSimplexVertices(g, d, id, got);
        for (int q = 0; q <= d; ++q) {
          const SimplexId want = d == 1   ? tri.getEdgeVertex(id, q)
                                 : d == 2 ? tri.getTriangleVertex(id, q)
                                          : tri.getTetVertex(id, q);
          ASSERT_EQ(got[q], want) << "dimension " << d << " simplex " << id;
        }
      }
  }
}

TEST(GridSimplicialGradient, BytesMatchGenericLowerStar) {
  std::mt19937 rng(21);
  for (const auto& n : kShapes) {
    const SimplexId nv = n[0] * n[1] * n[2];
    ImplicitTriangulation tri(n[0], n[1], n[2]);
    std::vector<std::vector<float>> fields;
    for (int levels : {3, 2, 1 << 20})
      for (int repeat = 0; repeat < 3; ++repeat)
        fields.push_back(randomLevels(rng, std::size_t(nv), levels));
    fields.emplace_back(std::size_t(nv), 1.0f); // constant: the index order alone
    std::vector<float> ramp(static_cast<std::size_t>(nv)), reverse(ramp.size());
    for (SimplexId v = 0; v < nv; ++v) {
      ramp[std::size_t(v)] = float(v % n[0]) - float(v / n[0]);
      reverse[std::size_t(v)] = float(nv - v);
    }
    fields.push_back(ramp);
    fields.push_back(reverse);
    for (std::size_t f = 0; f < fields.size(); ++f) {
      SCOPED_TRACE(gridName(n[0], n[1], n[2]) + " field " + std::to_string(f));
      const std::vector<SimplexId> rank = ranksOf(fields[f]);
      expectSameBytes(genericGradient(tri, rank), gridGradient(tri, rank));
    }
  }
}

// A larger grid, where every interior lower-star size occurs (up to 74 cells, past the
// generic path's 64-cell bit set).
TEST(GridSimplicialGradient, BytesMatchGenericLowerStarOnLargerGrids) {
  std::mt19937 rng(5);
  const SimplexId shapes[][3] = {{31, 24, 17}, {64, 1, 57}};
  for (const auto& n : shapes) {
    ImplicitTriangulation tri(n[0], n[1], n[2]);
    const SimplexId nv = n[0] * n[1] * n[2];
    for (int levels : {3, 1 << 20}) {
      SCOPED_TRACE(gridName(n[0], n[1], n[2]) + " levels " + std::to_string(levels));
      const std::vector<SimplexId> rank =
          ranksOf(randomLevels(rng, std::size_t(nv), levels));
      expectSameBytes(genericGradient(tri, rank), gridGradient(tri, rank));
    }
  }
}

// One V-path step through the triangulation's relations: the paired edge's other
// vertex, and the other cell of the paired facet (getPairedCell, the facet's star).
SimplexId oracleDescending(const ImplicitTriangulation& tri, const sg::Output& g,
                           SimplexId v) {
  const SimplexId e = sg::getPairedCell(tri, g, 0, v, false);
  if (e < 0)
    return v;
  const SimplexId a = tri.getEdgeVertex(e, 0);
  return a == v ? tri.getEdgeVertex(e, 1) : a;
}

SimplexId oracleAscending(const ImplicitTriangulation& tri, const sg::Output& g,
                          SimplexId c) {
  const int top = g.dimension;
  const SimplexId facet = sg::getPairedCell(tri, g, top, c, true);
  if (facet < 0)
    return c;
  for (int i = 0; i < sg::getFacetStarNumber(tri, top, facet); ++i)
    if (sg::getFacetStar(tri, top, facet, i) != c)
      return sg::getFacetStar(tri, top, facet, i);
  return -1 - facet;
}

// The grid's V-path steps (GridSimplicialForest.h, which the CPU grid path and the
// kernels use) against the triangulation's relations, for every vertex and top cell.
// body(tri, g, levels) for the CPU gradient of random fields of 2, 3 and many levels on
// every shape (3D ones only with only3d), the pair relations prepared.
template <typename Body>
void forEachRandomGradient(unsigned seed, bool only3d, Body&& body) {
  std::mt19937 rng(seed);
  for (const auto& n : kShapes) {
    if (only3d && n[2] == 1)
      continue;
    const SimplexId nv = n[0] * n[1] * n[2];
    ImplicitTriangulation tri(n[0], n[1], n[2]);
    for (int levels : {2, 3, 1 << 20}) {
      SCOPED_TRACE(gridName(n[0], n[1], n[2]) + " levels " + std::to_string(levels));
      const std::vector<float> values = randomLevels(rng, std::size_t(nv), levels);
      sg::Output g;
      sg::execute(tri, viewOf(values), {Backend::Cpu}, Monitor{}, g);
      tri.precondition(sg::kPairRelations);
      body(tri, g, levels);
    }
  }
}

TEST(GridSimplicialGradient, PathStepsMatchTheTriangulationsRelations) {
  forEachRandomGradient(
      9, false, [](const ImplicitTriangulation& tri, const sg::Output& g, int) {
        const int top = g.dimension;
        SimplexId wrong = 0, exits = 0, wrongUp = 0;
        for (SimplexId v = 0; v < g.simplexCounts[0]; ++v)
          wrong += sg::descendingSuccessor(tri, g, v) != oracleDescending(tri, g, v);
        for (SimplexId c = 0; c < g.simplexCounts[top]; ++c) {
          const SimplexId expected = oracleAscending(tri, g, c);
          exits += expected < 0;
          wrongUp += sg::ascendingSuccessor(tri, g, c) != expected;
        }
        EXPECT_EQ(wrong, 0);
        EXPECT_EQ(wrongUp, 0);
        EXPECT_GT(exits, 0); // the boundary case is exercised
      });
}

// The edges' pair stencils (GridEdgePairStencils.h, what the saddle boundary expansion
// reads) against getPairedCell: a paired-up edge's stencil names the triangle it is
// paired with, a critical edge is marked so, every other edge is not paired up.
TEST(GridSimplicialGradient, EdgePairStencilsMatchGetPairedCell) {
  forEachRandomGradient(
      17, true, [](const ImplicitTriangulation& tri, const sg::Output& g, int levels) {
        std::vector<std::uint8_t> stencils;
        sg::gridEdgePairStencils(sg::gridSimplicesOf(tri.dims()), g.gradient[1].data(),
                                 g.gradient[2].data(), stencils);
        ASSERT_EQ(SimplexId(stencils.size()), tri.getNumberOfEdges());
        SimplexId wrong = 0, pairedUp = 0, critical = 0;
        for (SimplexId e = 0; e < tri.getNumberOfEdges(); ++e) {
          const SimplexId up = sg::getPairedCell(tri, g, 1, e, false);
          EdgeTriangle t;
          if (up >= 0) {
            ++pairedUp;
            wrong += !(tri.getEdgeStencilTriangle(e, stencils[std::size_t(e)], t) &&
                       t.triangle == up);
          } else if (sg::isCritical(g, 1, e)) {
            ++critical;
            wrong += stencils[std::size_t(e)] != sg::kStencilCriticalEdge;
          } else {
            wrong += stencils[std::size_t(e)] != sg::kStencilNone;
          }
        }
        EXPECT_EQ(wrong, 0);
        EXPECT_GT(pairedUp, 0);
        if (levels > 2) {
          EXPECT_GT(critical, 0);
        }
      });
}

// A GPU request: on a grid without a usable device the CPU runs and says why (with a
// device, gpu_equality compares the two); a mesh has no GPU path and says so.
TEST(GridSimplicialGradient, GpuRequestFallsBackWithAWarning) {
  std::mt19937 rng(3);
  ImplicitTriangulation grid(9, 7, 5);
  const std::vector<float> values = randomLevels(rng, 9 * 7 * 5, 3);
  sg::Output cpu, requested;
  sg::execute(grid, viewOf(values), {Backend::Cpu}, Monitor{}, cpu);
  sg::execute(grid, viewOf(values), {Backend::Gpu}, Monitor{}, requested);
  EXPECT_EQ(cpu.report.backend, "cpu");
  EXPECT_TRUE(cpu.report.warnings.empty());
  if (!gpuAvailable()) {
    EXPECT_EQ(requested.report.backend, "cpu");
    EXPECT_TRUE(requested.report.hasWarning(WarningCode::GpuUnavailable));
    EXPECT_FALSE(requested.report.hasWarning(WarningCode::NoGpuPath));
  }
  EXPECT_EQ(requested.gradient, cpu.gradient);
  EXPECT_EQ(requested.criticalCells, cpu.criticalCells);
  EXPECT_EQ(requested.criticalVertices, cpu.criticalVertices);

  ExplicitTriangulation mesh(5, 3, {0, 1, 2, 3, 1, 2, 3, 4});
  const std::vector<float> five = {0, 1, 2, 3, 4};
  sg::Output meshOut;
  sg::execute(mesh, viewOf(five), {Backend::Gpu}, Monitor{}, meshOut);
  EXPECT_EQ(meshOut.report.backend, "cpu");
  EXPECT_TRUE(meshOut.report.hasWarning(WarningCode::NoGpuPath));
}

} // namespace
} // namespace topogpu::test
