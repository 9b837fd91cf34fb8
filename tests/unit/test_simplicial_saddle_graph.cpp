// The simplicial DAG the device counts saddle connections on
// (core/morse_smale_complex/SimplicialSaddleGraph.h), checked on the host:
//  - every edge's successors against the implicit triangulation's accessors
//    (getEdgeTriangle, getTriangleEdge) and the gradient's bytes, read without the
//    graph's grid arithmetic;
//  - the V-paths counted over that DAG (a memoized recursion from each 1-saddle up to
//    the 2-saddles, the device pipeline's definition of a count) against the CPU
//    complex's saddle connections (simplicial::execute, each 2-saddle's wall walked
//    down), pair for pair with the multiplicities;
// on random and tie-heavy 3D grids and 2D grids (where an edge has at most 2 triangles).
#include "UnitHelpers.h"

#include "core/discrete_gradient/SimplicialGradient.h"
#include "core/morse_smale_complex/SimplicialMorseSmaleComplex.h"
#include "core/morse_smale_complex/SimplicialSaddleGraph.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

namespace topogpu::test {
namespace {

namespace sg = discrete_gradient::simplicial;
namespace smsc = morse_smale_complex::simplicial;
using saddle_connections::graph::SimplicialGridGraph;

struct Case {
  SimplexId nx, ny, nz;
  int levels; // 0: continuous noise
};

std::vector<float> fieldOf(const Case& c, std::mt19937& rng) {
  const std::size_t n = std::size_t(c.nx * c.ny * c.nz);
  return c.levels > 0 ? randomLevels(rng, n, c.levels)
                      : randomUniform(rng, n, 0.0f, 1.0f);
}

SimplicialGridGraph graphOf(ImplicitTriangulation& tri, const sg::Output& g) {
  return {sg::gridSimplicesOf(tri.dims()), g.gradient[1].data(), g.gradient[2].data()};
}

// The successors of edge e from the triangulation's relations.
std::vector<SimplexId> expectedSuccessors(ImplicitTriangulation& tri, const sg::Output& g,
                                          SimplexId e) {
  const SimplexId edges = tri.getNumberOfEdges();
  std::vector<SimplexId> out;
  for (int i = 0; i < tri.getEdgeTriangleNumber(e); ++i) {
    const SimplexId t = tri.getEdgeTriangle(e, i);
    int face = -1;
    for (int j = 0; j < 3; ++j)
      if (tri.getTriangleEdge(t, j) == e)
        face = j;
    const std::uint8_t code = g.gradient[2][std::size_t(t)];
    if (code == sg::kCritical)
      out.push_back(edges + t);
    else if (code < 3 && code != face)
      out.push_back(tri.getTriangleEdge(t, code));
  }
  std::sort(out.begin(), out.end());
  return out;
}

const Case kCases[] = {{2, 2, 2, 0},  {3, 3, 3, 2},    {4, 3, 5, 3},   {5, 5, 5, 0},
                       {6, 5, 4, 3},  {7, 7, 7, 12},   {9, 8, 7, 0},   {12, 10, 9, 3},
                       {11, 9, 8, 2}, {16, 12, 10, 0}, {10, 12, 1, 3}, {13, 9, 1, 0}};

TEST(SimplicialSaddleGraph, SuccessorsMatchTheTriangulation) {
  std::mt19937 rng(23);
  for (const Case& c : kCases) {
    const std::vector<float> values = fieldOf(c, rng);
    ImplicitTriangulation tri(c.nx, c.ny, c.nz);
    sg::Output g;
    sg::execute(tri, viewOf(values), {Backend::Cpu}, Monitor{}, g);
    tri.precondition(EF | FE);
    const SimplicialGridGraph graph = graphOf(tri, g);
    ASSERT_EQ(graph.edges(), tri.getNumberOfEdges());
    SimplexId checked = 0, critical = 0;
    for (SimplexId e = 0; e < tri.getNumberOfEdges(); ++e) {
      SimplexId next[SimplicialGridGraph::kMaxOutDegree];
      const int count = graph.successors(e, next);
      ASSERT_LE(count, SimplicialGridGraph::kMaxOutDegree);
      std::vector<SimplexId> got(next, next + count);
      std::sort(got.begin(), got.end());
      ASSERT_EQ(got, expectedSuccessors(tri, g, e))
          << gridName(c.nx, c.ny, c.nz) << " edge " << e;
      const bool isCritical = g.gradient[1][std::size_t(e)] == sg::kCritical;
      EXPECT_EQ(graph.isCritical(e), isCritical);
      critical += isCritical;
      for (const SimplexId s : got)
        if (s >= graph.edges()) {
          EXPECT_TRUE(graph.isCritical(s));
          EXPECT_EQ(graph.cellId(s), s - graph.edges());
        }
      ++checked;
    }
    EXPECT_EQ(checked, tri.getNumberOfEdges());
    EXPECT_EQ(critical, SimplexId(g.criticalCells[1].size()));
  }
}

// V-paths from node up to each 2-saddle (triangle id -> count), memoized.
const std::map<SimplexId, std::uint64_t>&
countsFrom(const SimplicialGridGraph& graph, SimplexId node,
           std::map<SimplexId, std::map<SimplexId, std::uint64_t>>& memo) {
  const auto found = memo.find(node);
  if (found != memo.end())
    return found->second;
  std::map<SimplexId, std::uint64_t> row;
  SimplexId next[SimplicialGridGraph::kMaxOutDegree];
  const int count = graph.successors(node, next);
  for (int k = 0; k < count; ++k) {
    if (graph.isCritical(next[k])) {
      ++row[graph.cellId(next[k])];
      continue;
    }
    for (const auto& [s2, paths] : countsFrom(graph, next[k], memo))
      row[s2] += paths;
  }
  return memo[node] = row;
}

TEST(SimplicialSaddleGraph, PathCountsAreTheCpuConnections) {
  std::mt19937 rng(5);
  std::size_t arcs = 0, multiple = 0;
  for (const Case& c : kCases) {
    const std::vector<float> values = fieldOf(c, rng);
    ImplicitTriangulation tri(c.nx, c.ny, c.nz);
    smsc::Parameters parameters;
    parameters.backend = Backend::Cpu;
    smsc::Output out;
    smsc::execute(tri, viewOf(values), parameters, Monitor{}, out);
    const SimplicialGridGraph graph = graphOf(tri, out.gradient);
    std::map<SimplexId, std::map<SimplexId, std::uint64_t>> memo;
    // (saddle2, saddle1) -> count: the CPU's order
    std::vector<smsc::Connection> counted;
    if (out.gradient.dimension == 3)
      for (const SimplexId s1 : out.gradient.criticalCells[1])
        for (const auto& [s2, paths] : countsFrom(graph, s1, memo))
          counted.push_back({s1, s2, paths});
    std::sort(counted.begin(), counted.end(),
              [](const smsc::Connection& a, const smsc::Connection& b) {
                return std::make_pair(a.saddle2, a.saddle1) <
                       std::make_pair(b.saddle2, b.saddle1);
              });
    ASSERT_EQ(counted.size(), out.connections.size()) << gridName(c.nx, c.ny, c.nz);
    for (std::size_t i = 0; i < counted.size(); ++i) {
      EXPECT_EQ(counted[i].saddle1, out.connections[i].saddle1);
      EXPECT_EQ(counted[i].saddle2, out.connections[i].saddle2);
      EXPECT_EQ(counted[i].multiplicity, out.connections[i].multiplicity);
      multiple += counted[i].multiplicity > 1;
    }
    arcs += counted.size();
    if (out.gradient.dimension == 2) {
      EXPECT_TRUE(out.connections.empty());
    }
  }
  // The sample has arcs, some of them with several V-paths.
  EXPECT_GT(arcs, 100u);
  EXPECT_GT(multiple, 0u);
}

} // namespace
} // namespace topogpu::test
