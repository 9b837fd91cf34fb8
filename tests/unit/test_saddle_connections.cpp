// The 1-saddle to 2-saddle arcs against an independent oracle: every V-path enumerated by
// plain recursion downward from each critical quad over the gradient bytes (its own
// refined-coordinate decoding and its own reading of the one-byte codes; nothing from
// core/morse_smale_complex), paths counted per (1-saddle, 2-saddle) pair with a memo per
// quad. On many small random 3D grids with ties: the same pairs and the same
// multiplicities as the sparse-product path. Also: a hand-built gradient whose single
// arc has multiplicity 2, 2D grids (no stage), the checked 64-bit arithmetic of the
// sparse products, and one V-path per arc really being a V-path.
#include "core/discrete_gradient/DiscreteGradient.h"
#include "core/morse_smale_complex/SaddleConnections.h"
#include "tests/unit/SaddleConnectionsChain.h"
#include "tests/unit/UnitHelpers.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace topogpu::test {
namespace {

namespace dg = discrete_gradient;
namespace sc = saddle_connections;

// ---- the oracle
// ------------------------------------------------------------------------

// The refined grid as the byte format defines it: (2nx-1) x (2ny-1) x (2nz-1) cells,
// x fastest; a cell spans the axes where its coordinate is odd; a byte b < 6 pairs the
// cell with its neighbour at offset (b % 2 ? -1 : +1) along axis b / 2; 6 is critical.
struct Oracle {
  std::array<long long, 3> size{};
  const std::vector<std::uint8_t>* bytes = nullptr;
  std::map<long long, std::map<long long, unsigned long long>>
      memo; // quad -> saddle1 -> n

  long long id(const std::array<long long, 3>& p) const {
    return p[0] + size[0] * (p[1] + size[1] * p[2]);
  }
  std::array<long long, 3> at(long long cell) const {
    return {cell % size[0], cell / size[0] % size[1], cell / (size[0] * size[1])};
  }
  int dim(long long cell) const {
    const auto p = at(cell);
    return int(p[0] % 2 + p[1] % 2 + p[2] % 2);
  }
  long long partner(long long cell) const {
    const std::uint8_t b = (*bytes)[std::size_t(cell)];
    auto p = at(cell);
    p[b / 2] += (b % 2) ? -1 : 1;
    return id(p);
  }
  // All V-paths from quad q down to critical edges, per critical edge.
  const std::map<long long, unsigned long long>& paths(long long q) {
    const auto found = memo.find(q);
    if (found != memo.end())
      return found->second;
    std::map<long long, unsigned long long> result;
    const auto p = at(q);
    for (int axis = 0; axis < 3; ++axis) {
      if (p[axis] % 2 == 0)
        continue; // facets of q: step off one of its spanned axes
      for (int s = -1; s <= 1; s += 2) {
        auto e = p;
        e[axis] += s;
        const long long edge = id(e);
        const std::uint8_t b = (*bytes)[std::size_t(edge)];
        if (b == 6) {
          result[edge] += 1;
          continue;
        }
        const long long next = partner(edge);
        if (next == q || dim(next) != 2)
          continue; // q's own pair, or the edge is paired with a vertex
        for (const auto& [saddle, n] : paths(next))
          result[saddle] += n;
      }
    }
    return memo[q] = result;
  }
  // (saddle1, saddle2) -> multiplicity for every critical quad.
  std::map<std::pair<long long, long long>, unsigned long long> arcs() {
    std::map<std::pair<long long, long long>, unsigned long long> all;
    for (long long cell = 0; cell < size[0] * size[1] * size[2]; ++cell) {
      if ((*bytes)[std::size_t(cell)] != 6 || dim(cell) != 2)
        continue;
      for (const auto& [saddle, n] : paths(cell))
        all[{saddle, cell}] = n;
    }
    return all;
  }
};

std::map<std::pair<long long, long long>, unsigned long long>
oracleArcs(const dg::Output& gradient) {
  Oracle o;
  for (int a = 0; a < 3; ++a)
    o.size[std::size_t(a)] = 2 * gradient.grid.n[a] - 1;
  o.bytes = &gradient.gradient;
  return o.arcs();
}

std::map<std::pair<long long, long long>, unsigned long long>
asMap(const sc::SaddleConnections& result) {
  std::map<std::pair<long long, long long>, unsigned long long> m;
  for (const auto& arc : result.arcs)
    m[{arc.saddle1, arc.saddle2}] = arc.multiplicity;
  return m;
}

// ---- tests
// -------------------------------------------------------------------------------

TEST(SaddleConnections, MatchesBruteForceOnRandomGridsWithTies) {
  std::mt19937 rng(20261121);
  unsigned long long totalArcs = 0, totalMultiple = 0;
  for (int trial = 0; trial < 120; ++trial) {
    std::uniform_int_distribution<int> side(2, 7);
    const SimplexId nx = side(rng), ny = side(rng), nz = side(rng);
    const int levels = trial % 3 == 0 ? 3 : (trial % 3 == 1 ? 12 : 1000);
    const dg::Output gradient =
        gradientOf(nx, ny, nz, randomLevels(rng, std::size_t(nx * ny * nz), levels));
    sc::SaddleConnections result;
    RunReport report;
    sc::compute(gradient, Backend::Cpu, Monitor{}, result, report);
    const auto expected = oracleArcs(gradient);
    const std::string tag = gridName(nx, ny, nz) + " levels " + std::to_string(levels);
    if (gradient.grid.dimension < 3) {
      EXPECT_TRUE(result.arcs.empty()) << tag;
      continue;
    }
    ASSERT_EQ(asMap(result), expected) << tag;
    unsigned long long sum = 0;
    for (const auto& [pair, n] : expected) {
      sum += n;
      totalMultiple += n > 1;
    }
    EXPECT_EQ(result.multiplicitySum, sum) << tag;
    totalArcs += expected.size();
    // sorted by (saddle1, saddle2), each a critical edge and a critical quad
    for (std::size_t k = 1; k < result.arcs.size(); ++k)
      EXPECT_LT(std::make_pair(result.arcs[k - 1].saddle1, result.arcs[k - 1].saddle2),
                std::make_pair(result.arcs[k].saddle1, result.arcs[k].saddle2));
  }
  // the sample must exercise the stage: many arcs, some with multiplicity > 1
  EXPECT_GT(totalArcs, 500u);
  EXPECT_GT(totalMultiple, 0u);
}

TEST(SaddleConnections, LargerRandomGridsMatchBruteForce) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 6; ++trial) {
    const SimplexId nx = 14 + trial, ny = 12, nz = 10 + trial % 3;
    const dg::Output gradient = gradientOf(
        nx, ny, nz, randomLevels(rng, std::size_t(nx * ny * nz), trial % 2 ? 5 : 100001));
    sc::SaddleConnections result;
    RunReport report;
    sc::compute(gradient, Backend::Auto, Monitor{}, result, report);
    EXPECT_EQ(asMap(result), oracleArcs(gradient)) << "trial " << trial;
    EXPECT_GT(result.junctionNodes, 0) << "trial " << trial;
  }
}

// A 2x2x2 grid whose bytes are set by hand: the critical quad Q = (1,1,0) has the
// critical edge S = (2,1,0) as a facet (one V-path), and a second V-path
// Q -> (1,0,0) -> quad (1,0,1) -> (2,0,1) -> quad (2,1,1) -> S. Every other edge is
// paired with a vertex and every other quad with a voxel, so no other V-path exists.
TEST(SaddleConnections, HandBuiltMultiplicityTwo) {
  dg::Output g;
  g.grid.n[0] = g.grid.n[1] = g.grid.n[2] = 2;
  g.grid.dimension = 3;
  const auto cell = [](int x, int y, int z) {
    return SimplexId(x) + 3 * (SimplexId(y) + 3 * SimplexId(z));
  };
  g.gradient.assign(27, 0);
  for (int z = 0; z < 3; ++z)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 3; ++x) {
        const int c[3] = {x, y, z};
        const int odd = x % 2 + y % 2 + z % 2;
        int along = 0; // edges: along their own axis (vertex); quads: the other (voxel)
        for (int a = 0; a < 3; ++a)
          if ((c[a] % 2 == 1) == (odd == 1))
            along = a;
        g.gradient[std::size_t(cell(x, y, z))] =
            std::uint8_t(2 * along + (c[along] > 0 ? 1 : 0));
      }
  const SimplexId Q = cell(1, 1, 0), S = cell(2, 1, 0);
  g.gradient[std::size_t(Q)] = cubical::kCritical;
  g.gradient[std::size_t(S)] = cubical::kCritical;
  g.gradient[std::size_t(cell(1, 0, 0))] = cubical::pairCode(2, +1); // -> quad (1,0,1)
  g.gradient[std::size_t(cell(1, 0, 1))] = cubical::pairCode(2, -1);
  g.gradient[std::size_t(cell(2, 0, 1))] = cubical::pairCode(1, +1); // -> quad (2,1,1)
  g.gradient[std::size_t(cell(2, 1, 1))] = cubical::pairCode(1, -1);
  g.criticalCells[1] = {S};
  g.criticalCells[2] = {Q};
  sc::SaddleConnections result;
  RunReport report;
  sc::compute(g, Backend::Cpu, Monitor{}, result, report);
  ASSERT_EQ(result.arcs.size(), 1u);
  EXPECT_EQ(result.arcs[0], (sc::Arc{S, Q, 2}));
  EXPECT_EQ(result.multiplicitySum, 2u);
  EXPECT_EQ(oracleArcs(g), asMap(result));
  const std::vector<SimplexId> expectedPath = {
      Q, cell(1, 0, 0), cell(1, 0, 1), cell(2, 0, 1), cell(2, 1, 1), S};
  const auto path = sc::tracePath(g, result.arcs[0]);
  EXPECT_TRUE((path == expectedPath || path == std::vector<SimplexId>{Q, S}));
}

TEST(SaddleConnections, DiamondChainsDoubleTheMultiplicity) {
  for (int k = 1; k <= 16; ++k) {
    const dg::Output g = diamondChain(k);
    sc::SaddleConnections result;
    RunReport report;
    sc::compute(g, Backend::Cpu, Monitor{}, result, report);
    ASSERT_EQ(result.arcs.size(), 1u) << k;
    EXPECT_EQ(result.arcs[0].multiplicity, 1ull << k) << k;
    EXPECT_EQ(asMap(result), oracleArcs(g)) << k;
  }
}

TEST(SaddleConnections, MultiplicityOverflowIsAnError) {
  {
    const dg::Output g = diamondChain(63); // 2^63 V-paths: representable
    sc::SaddleConnections result;
    RunReport report;
    sc::compute(g, Backend::Cpu, Monitor{}, result, report);
    ASSERT_EQ(result.arcs.size(), 1u);
    EXPECT_EQ(result.arcs[0].multiplicity, 1ull << 63);
  }
  const dg::Output g = diamondChain(64); // 2^64 V-paths: one more than fits
  sc::SaddleConnections result;
  RunReport report;
  try {
    sc::compute(g, Backend::Auto, Monitor{}, result, report);
    ADD_FAILURE() << "2^64 V-paths gave " << result.arcs.size() << " arcs, no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("multiplicity overflow"), std::string::npos)
        << e.what();
  }
}

TEST(SaddleConnections, TracedPathsAreVPaths) {
  std::mt19937 rng(99);
  const dg::Output g = gradientOf(9, 8, 7, randomLevels(rng, std::size_t(9) * 8 * 7, 6));
  sc::SaddleConnections result;
  RunReport report;
  sc::compute(g, Backend::Cpu, Monitor{}, result, report);
  ASSERT_FALSE(result.arcs.empty());
  const auto coords = [&](SimplexId c) {
    const SimplexId nx = 2 * g.grid.n[0] - 1, ny = 2 * g.grid.n[1] - 1;
    return std::array<SimplexId, 3>{c % nx, c / nx % ny, c / (nx * ny)};
  };
  const auto adjacent = [&](SimplexId a, SimplexId b) {
    const auto p = coords(a), q = coords(b);
    SimplexId d = 0;
    for (int k = 0; k < 3; ++k)
      d += std::abs(p[std::size_t(k)] - q[std::size_t(k)]);
    return d == 1;
  };
  for (const auto& arc : result.arcs) {
    const auto path = sc::tracePath(g, arc);
    ASSERT_GE(path.size(), 2u);
    EXPECT_EQ(path.front(), arc.saddle2);
    EXPECT_EQ(path.back(), arc.saddle1);
    ASSERT_EQ(path.size() % 2, 0u);
    for (std::size_t k = 0; k + 1 < path.size(); ++k)
      EXPECT_TRUE(adjacent(path[k], path[k + 1]));
    // interior (edge, quad) steps are gradient pairs: the quad is the edge's partner
    for (std::size_t k = 1; k + 2 < path.size(); k += 2) {
      const std::uint8_t b = g.gradient[std::size_t(path[k])];
      ASSERT_LT(b, cubical::kCritical);
      auto p = coords(path[k]);
      p[b / 2] += (b % 2) ? -1 : 1;
      EXPECT_EQ(coords(path[k + 1]), p);
    }
  }
}

TEST(SaddleConnections, TwoDimensionalGridsHaveNoStage) {
  std::vector<float> v(std::size_t(7) * 6);
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = float((i * 7919) % 13);
  const dg::Output g = gradientOf(7, 6, 1, v);
  ASSERT_GT(g.counts[1], 0);
  sc::SaddleConnections result;
  RunReport report;
  sc::compute(g, Backend::Cpu, Monitor{}, result, report);
  EXPECT_TRUE(result.arcs.empty());
  EXPECT_EQ(result.multiplicitySum, 0u);
}

TEST(SaddleConnections, CheckedArithmeticReportsOverflow) {
  const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ(sc::detail::checkedMultiplyAdd(5, 1ull << 31, 1ull << 32), (1ull << 63) + 5);
  EXPECT_THROW(sc::detail::checkedMultiplyAdd(0, 1ull << 32, 1ull << 32), Error);
  EXPECT_THROW(sc::detail::checkedAdd(max, 1), Error);
  EXPECT_EQ(sc::detail::checkedAdd(max - 1, 1), max);
}

TEST(SaddleConnections, SparseProductOverflowIsAnError) {
  std::vector<SimplexId> r{0, 0}, c{0, 1};
  std::vector<std::uint64_t> v{1ull << 40, 1ull << 40};
  const auto a = sc::detail::assemble(1, 2, r, c, v);
  std::vector<SimplexId> r2{0, 1}, c2{0, 0};
  std::vector<std::uint64_t> v2{1ull << 23, 1ull << 23};
  const auto b = sc::detail::assemble(2, 1, r2, c2, v2);
  try {
    const auto ab = sc::detail::multiply(a, b); // 2^63 + 2^63 = 2^64
    ADD_FAILURE() << ab.nnz() << "no overflow reported";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("overflow"), std::string::npos) << e.what();
  }
  std::vector<std::uint64_t> v3{1ull << 22, 1ull << 22};
  const auto fine = sc::detail::multiply(a, sc::detail::assemble(2, 1, r2, c2, v3));
  ASSERT_EQ(fine.nnz(), 1);
  EXPECT_EQ(fine.values[0], 1ull << 63);
  EXPECT_THROW(sc::detail::add(fine, fine), Error); // 2^63 + 2^63 in A* += A
}

// Bad input: a "gradient" with a closed V-path (the four side quads of the second cube
// of a one-diamond chain paired around it) is reported, not looped on.
TEST(SaddleConnections, ClosedVPathIsAnError) {
  dg::Output g = diamondChain(1);
  const auto cell = [](SimplexId x, SimplexId y, SimplexId z) {
    return x + 5 * (y + 3 * z);
  };
  const auto pair = [&](SimplexId edge, SimplexId quad, int axis, int sign) {
    g.gradient[std::size_t(edge)] = cubical::pairCode(axis, sign);
    g.gradient[std::size_t(quad)] = cubical::pairCode(axis, -sign);
  };
  pair(cell(2, 2, 1), cell(3, 2, 1), 0, +1);
  pair(cell(4, 2, 1), cell(4, 1, 1), 1, -1);
  pair(cell(4, 0, 1), cell(3, 0, 1), 0, -1);
  sc::SaddleConnections result;
  RunReport report;
  try {
    sc::compute(g, Backend::Cpu, Monitor{}, result, report);
    ADD_FAILURE() << "a cyclic gradient gave " << result.arcs.size() << " arcs";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("closed V-path"), std::string::npos) << e.what();
  }
}

// A GPU request without a usable GPU (the CUDA-free stub, or a GPU failure) reruns on
// the CPU with a warning and the same result.
TEST(SaddleConnections, GpuRequestFallsBackToTheSameResult) {
  const dg::Output g = diamondChain(5);
  sc::SaddleConnections cpu, requested;
  RunReport cpuReport, report;
  sc::compute(g, Backend::Cpu, Monitor{}, cpu, cpuReport);
  sc::compute(g, Backend::Gpu, Monitor{}, requested, report);
  EXPECT_EQ(cpu.arcs, requested.arcs);
  EXPECT_EQ(cpu.multiplicitySum, requested.multiplicitySum);
  EXPECT_EQ(report.warnings.size(), report.backend == "cpu" ? 1u : 0u);
}

TEST(SaddleConnections, AbortIsHonoured) {
  const dg::Output g = diamondChain(8);
  Monitor monitor;
  monitor.abortRequested = [] { return true; };
  sc::SaddleConnections result;
  RunReport report;
  EXPECT_THROW(sc::compute(g, Backend::Cpu, monitor, result, report), Aborted);
}

} // namespace
} // namespace topogpu::test
