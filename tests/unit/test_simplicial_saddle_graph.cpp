// The simplicial DAG the device counts saddle connections on
// (core/morse_smale_complex/SimplicialSaddleGraph.h), checked on the host:
//  - every edge's successors against the implicit triangulation's accessors
//    (getEdgeTriangle, getTriangleEdge) and the gradient's bytes, read without the
//    graph's grid arithmetic;
//  - the V-paths counted over that DAG (a memoized recursion from each 1-saddle up to
//    the 2-saddles, the device pipeline's definition of a count) against the CPU
//    complex's saddle connections (simplicial::execute, each 2-saddle's wall walked
//    down), pair for pair with the multiplicities;
// on random and tie-heavy 3D grids and 2D grids (where an edge has at most 2 triangles);
//  - a GPU request gives the CPU's connections (here: without a device, with a warning);
//  - the CPU wall walk's overflow rule, which the device's must equal: on hand-built
//    chains of k diamonds (2^k V-paths), a count past 2^64 - 1 is an Error only where it
//    reaches a 1-saddle (the device counts only from the 1-saddles).
#include "UnitHelpers.h"

#include "core/common/BackendSelection.h"
#include "core/discrete_gradient/SimplicialGradient.h"
#include "core/morse_smale_complex/SimplicialMorseSmaleComplex.h"
#include "core/morse_smale_complex/SimplicialSaddleGraph.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <limits>
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

// A GPU request with the connections on the device (no paths asked): without a usable
// device the CPU runs, says why, and gives the same connections (with a device,
// gpu_equality compares the two); with or without, the result is the CPU's.
TEST(SimplicialSaddleGraph, GpuRequestGivesTheCpuConnections) {
  std::mt19937 rng(11);
  ImplicitTriangulation tri(11, 9, 8);
  const std::vector<float> values = randomLevels(rng, 11 * 9 * 8, 3);
  smsc::Parameters parameters;
  parameters.backend = Backend::Cpu;
  smsc::Output cpu, requested;
  smsc::execute(tri, viewOf(values), parameters, Monitor{}, cpu);
  parameters.backend = Backend::Gpu;
  smsc::execute(tri, viewOf(values), parameters, Monitor{}, requested);
  ASSERT_FALSE(cpu.connections.empty());
  if (!gpuAvailable()) {
    EXPECT_EQ(requested.report.backend, "cpu");
    EXPECT_TRUE(requested.report.hasWarning(WarningCode::GpuUnavailable));
  }
  EXPECT_TRUE(requested.connectionsComputed);
  ASSERT_EQ(requested.connections.size(), cpu.connections.size());
  for (std::size_t i = 0; i < cpu.connections.size(); ++i) {
    EXPECT_EQ(requested.connections[i].saddle1, cpu.connections[i].saddle1);
    EXPECT_EQ(requested.connections[i].saddle2, cpu.connections[i].saddle2);
    EXPECT_EQ(requested.connections[i].multiplicity, cpu.connections[i].multiplicity);
  }
  EXPECT_EQ(requested.connectionMultiplicitySum, cpu.connectionMultiplicitySum);
}

// A chain of k diamonds below the 2-saddle (q, a, b) of a triangle complex: each
// diamond's top triangle T = (q, a, b), paired with (a, b), leads through (q, a) and
// (q, b) to the triangles (p, q, a) and (p, q, b) (paired with those edges), which meet
// at the edge (p, q) of three triangles, paired with the next top (p, q, c): 2^k
// V-paths reach the last top, whose two free edges get the byte `ends` (kCritical:
// 1-saddles; 0: paired with a vertex, a dead end). The 2-saddle's edge (a, b) is a
// 1-saddle one V-path reaches; the edges (p, a) and (p, b) are dead ends.
struct DiamondChain {
  ExplicitTriangulation tri;
  sg::Output g;
  SimplexId saddle2 = -1, top1 = -1, bottom[2] = {-1, -1};
};

DiamondChain diamondChain(int k, std::uint8_t ends) {
  std::vector<std::array<SimplexId, 3>> cells;
  SimplexId q = 0, a = 1, b = 2, next = 3;
  cells.push_back({q, a, b});
  for (int i = 0; i < k; ++i) {
    const SimplexId p = next++, c = next++;
    cells.push_back({p, q, a});
    cells.push_back({p, q, b});
    cells.push_back({p, q, c});
    a = p;
    b = q;
    q = c;
  }
  std::vector<SimplexId> flat;
  for (const auto& cell : cells)
    flat.insert(flat.end(), cell.begin(), cell.end());
  DiamondChain chain{ExplicitTriangulation(next, 2, flat), {}, -1, -1, {-1, -1}};
  ExplicitTriangulation& tri = chain.tri;
  tri.precondition(EV | EF | FE | FV);
  std::map<std::array<SimplexId, 2>, SimplexId> edgeOf;
  for (SimplexId e = 0; e < tri.getNumberOfEdges(); ++e) {
    std::array<SimplexId, 2> v{tri.getEdgeVertex(e, 0), tri.getEdgeVertex(e, 1)};
    std::sort(v.begin(), v.end());
    edgeOf[v] = e;
  }
  std::map<std::array<SimplexId, 3>, SimplexId> triangleOf;
  for (SimplexId t = 0; t < tri.getNumberOfTriangles(); ++t) {
    std::array<SimplexId, 3> v{tri.getTriangleVertex(t, 0), tri.getTriangleVertex(t, 1),
                               tri.getTriangleVertex(t, 2)};
    std::sort(v.begin(), v.end());
    triangleOf[v] = t;
  }
  auto edge = [&](SimplexId u, SimplexId v) {
    return edgeOf.at({std::min(u, v), std::max(u, v)});
  };
  auto triangle = [&](std::array<SimplexId, 3> v) {
    std::sort(v.begin(), v.end());
    return triangleOf.at(v);
  };
  sg::Output& g = chain.g;
  g.dimension = 2;
  g.gradient[0].assign(std::size_t(next), sg::kCritical);
  g.gradient[1].assign(std::size_t(tri.getNumberOfEdges()), 0);
  g.gradient[2].assign(std::size_t(tri.getNumberOfTriangles()), sg::kCritical);
  // A paired triangle's byte: the index of its own edge among its faces.
  auto pair = [&](SimplexId e, SimplexId t) {
    g.gradient[1][std::size_t(e)] = sg::kPairedUp;
    for (int j = 0; j < 3; ++j)
      if (tri.getTriangleEdge(t, j) == e)
        g.gradient[2][std::size_t(t)] = std::uint8_t(j);
  };
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i == 0)
      continue; // the 2-saddle
    const auto& c = cells[i];
    // (p, q, a) and (p, q, b) pair with (q, a) and (q, b); (p, q, c) with (p, q)
    pair((i - 1) % 3 == 2 ? edge(c[0], c[1]) : edge(c[1], c[2]), triangle(c));
  }
  chain.saddle2 = triangle(cells[0]);
  chain.top1 = edge(cells[0][1], cells[0][2]);
  g.gradient[1][std::size_t(chain.top1)] = sg::kCritical;
  chain.bottom[0] = edge(q, a);
  chain.bottom[1] = edge(q, b);
  for (const SimplexId e : chain.bottom)
    g.gradient[1][std::size_t(e)] = ends;
  return chain;
}

struct Walked {
  std::vector<smsc::Connection> found;
  bool overflow = false;
  std::map<SimplexId, std::uint64_t> multiplicities() const {
    std::map<SimplexId, std::uint64_t> m;
    for (const smsc::Connection& c : found)
      m[c.saddle1] = c.multiplicity;
    return m;
  }
};

Walked walk(const DiamondChain& chain) {
  Walked w;
  smsc::detail::WallScratch scratch;
  std::vector<std::vector<sg::Cell>> paths;
  smsc::detail::wallConnections(chain.tri, chain.g, chain.saddle2, false, false, scratch,
                                w.found, paths, w.overflow);
  return w;
}

TEST(SimplicialSaddleGraph, CountOverflowIsAnErrorOnlyWhereItReachesA1Saddle) {
  // Small chains: 2^k V-paths to each bottom 1-saddle, one to the top's.
  for (int k = 1; k <= 8; ++k) {
    const DiamondChain chain = diamondChain(k, sg::kCritical);
    const Walked w = walk(chain);
    EXPECT_FALSE(w.overflow);
    const std::map<SimplexId, std::uint64_t> expected{
        {chain.top1, 1}, {chain.bottom[0], 1ull << k}, {chain.bottom[1], 1ull << k}};
    EXPECT_EQ(w.multiplicities(), expected) << k << " diamonds";
  }
  // 2^63 is exact; 2^64 reaching a 1-saddle is an overflow.
  const DiamondChain chain63 = diamondChain(63, sg::kCritical);
  const Walked w63 = walk(chain63);
  EXPECT_FALSE(w63.overflow);
  EXPECT_EQ(w63.multiplicities().at(chain63.bottom[0]), std::uint64_t(1) << 63);
  EXPECT_TRUE(walk(diamondChain(64, sg::kCritical)).overflow);
  // 2^64 V-paths into a dead end: no 1-saddle sees them, so no overflow, and the one
  // connection the wall has is exact.
  const Walked deadEnd = walk(diamondChain(64, 0));
  EXPECT_FALSE(deadEnd.overflow);
  ASSERT_EQ(deadEnd.found.size(), 1u);
  EXPECT_EQ(deadEnd.found[0].multiplicity, 1u);
}

} // namespace
} // namespace topogpu::test
