// The scalar field smoother against an independent brute force: neighbours enumerated
// from the cells themselves (TTK's tets corner list on grids, the mesh's cells
// otherwise), the averages summed in a different order (ascending ids), the rounding
// restated here. Plus invariants that a wrong smoother breaks (a constant field stays
// constant, the range never grows) and the bad-input, abort and backend contracts.
#include "BruteForce.h"
#include "UnitHelpers.h"

#include "core/scalar_field_smoother/ScalarFieldSmoother.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <set>

namespace topogpu::test {
namespace {

namespace sfs = scalar_field_smoother;

// Every pair of vertices of a cell is an edge: the VV relation, from the cells alone.
std::vector<std::set<SimplexId>> neighboursFromCells(SimplexId nv,
                                                     const std::vector<Tuple>& cells) {
  std::vector<std::set<SimplexId>> nbrs(nv);
  for (const Tuple& c : cells)
    for (SimplexId a : c)
      for (SimplexId b : c)
        if (a != b)
          nbrs[a].insert(b);
  return nbrs;
}

// The oracle: plain passes, neighbours in ascending id order; in double for
// floating-point fields, and for integer fields the exact average (a 128-bit sum) rounded
// to the nearest integer, halves away from zero, as floor((2|s| + c) / 2c) with the sign
// of s.
__extension__ typedef __int128 Wide;
template <typename T>
std::vector<T> bruteSmooth(const std::vector<std::set<SimplexId>>& nbrs, std::vector<T> x,
                           int iterations, const std::vector<std::uint8_t>& mask) {
  using Sum = std::conditional_t<std::is_floating_point_v<T>, double, Wide>;
  for (int it = 0; it < iterations; ++it) {
    std::vector<T> y(x.size());
    for (std::size_t v = 0; v < x.size(); ++v) {
      if (!mask.empty() && mask[v] == 0) {
        y[v] = x[v];
        continue;
      }
      Sum sum = x[v];
      for (SimplexId u : nbrs[v])
        sum += x[u];
      const auto c = Sum(nbrs[v].size() + 1);
      if constexpr (std::is_floating_point_v<T>) {
        y[v] = sum / c;
      } else {
        const Wide magnitude = (2 * (sum < 0 ? -sum : sum) + c) / (2 * c);
        y[v] = T(sum < 0 ? -magnitude : magnitude);
      }
    }
    x = y;
  }
  return x;
}

// The oracle of either kind: doubles for floating-point fields, the type for integers.
template <typename T>
auto oracle(const std::vector<std::set<SimplexId>>& nbrs, const std::vector<T>& values,
            int iterations, const std::vector<std::uint8_t>& mask) {
  if constexpr (std::is_floating_point_v<T>)
    return bruteSmooth(nbrs, std::vector<double>(values.begin(), values.end()),
                       iterations, mask);
  else
    return bruteSmooth(nbrs, values, iterations, mask);
}

template <typename T> std::vector<T> randomValues(std::mt19937& rng, SimplexId n) {
  std::vector<T> values(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<double> d(-1000, 1000);
    for (T& x : values)
      x = T(d(rng));
  } else {
    // the type's whole range
    using Draw = std::conditional_t<std::is_signed_v<T>, long long, unsigned long long>;
    std::uniform_int_distribution<Draw> d(std::numeric_limits<T>::lowest(),
                                          std::numeric_limits<T>::max());
    for (T& x : values)
      x = T(d(rng));
  }
  return values;
}

// Values of T within `spread` of its limits (both ends for signed types; the top for
// unsigned ones), where a double holds them only to 2^10 or 2^11 for 64 bits.
template <typename T>
std::vector<T> valuesNearLimits(std::mt19937& rng, SimplexId n, T spread) {
  std::vector<T> values(n);
  std::uniform_int_distribution<unsigned long long> offset(0, spread);
  for (T& x : values) {
    const bool low = std::is_signed_v<T> && rng() % 2 == 0;
    x = low ? T(std::numeric_limits<T>::lowest() + offset(rng))
            : T(std::numeric_limits<T>::max() - offset(rng));
  }
  return values;
}

// The smoother's output against the oracle: floats within rounding, integers exactly.
template <typename T, typename E>
void expectMatches(const std::vector<T>& got, const std::vector<E>& expected,
                   const std::string& what) {
  int reported = 0;
  for (std::size_t v = 0; v < got.size() && reported < 5; ++v) {
    bool ok;
    if constexpr (std::is_floating_point_v<T>) {
      const double e = expected[v];
      const double tolerance =
          (std::is_same_v<T, float> ? 1e-6 : 1e-12) * (1 + std::fabs(e));
      ok = std::fabs(double(got[v]) - e) <= tolerance;
    } else {
      ok = got[v] == expected[v];
    }
    if (!ok) {
      ++reported;
      ADD_FAILURE() << what << ": vertex " << v << " got " << +got[v]
                    << ", the brute force gives " << +expected[v];
    }
  }
}

template <typename T, typename Triangulation>
std::vector<T> smooth(Triangulation& tri, const std::vector<T>& values, int iterations,
                      const std::vector<std::uint8_t>& mask = {},
                      Backend backend = Backend::Cpu) {
  sfs::Parameters p;
  p.numberOfIterations = iterations;
  p.backend = backend;
  p.mask = mask.empty() ? nullptr : mask.data();
  std::vector<T> out(values.size());
  RunReport report;
  sfs::execute(tri, viewOf(values), p, Monitor{}, out.data(), report);
  EXPECT_EQ(report.backend, "cpu");
  return out;
}

template <typename T>
void checkGrid(std::mt19937& rng, SimplexId nx, SimplexId ny, SimplexId nz,
               int iterations, bool masked) {
  const SimplexId n = nx * ny * nz;
  const auto values = randomValues<T>(rng, n);
  std::vector<std::uint8_t> mask;
  if (masked) {
    mask.resize(n);
    for (auto& m : mask)
      m = std::uint8_t(rng() % 3 ? 1 : 0);
  }
  const auto nbrs = neighboursFromCells(n, ttkGridCells(nx, ny, nz));
  const auto expected = oracle(nbrs, values, iterations, mask);
  const std::string what = std::string(scalarTypeName(scalarTypeOf<T>())) + " " +
                           gridName(nx, ny, nz) + " iterations " +
                           std::to_string(iterations) + (masked ? " masked" : "");
  ImplicitTriangulation implicit(nx, ny, nz);
  expectMatches(smooth(implicit, values, iterations, mask), expected, what + " implicit");
  // The same grid stored as a mesh goes through the VV relation instead of the stencil.
  std::vector<Tuple> cells = ttkGridCells(nx, ny, nz);
  std::shuffle(cells.begin(), cells.end(), rng);
  ExplicitTriangulation mesh(n, int(cells.front().size()) - 1, flatten(cells));
  expectMatches(smooth(mesh, values, iterations, mask), expected, what + " explicit");
}

template <typename T> void checkGridsOfType(unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> size(2, 7);
  for (int k = 0; k < 12; ++k) {
    SimplexId dims[3] = {size(rng), size(rng), size(rng)};
    if (k % 3 == 2)
      dims[k % 2 ? 1 : 2] = 1; // 2D, in (x, z) or (x, y)
    const int iterations = k % 4 == 0 ? 1 : k % 4 == 1 ? 0 : k % 4 == 2 ? 2 : 5;
    checkGrid<T>(rng, dims[0], dims[1], dims[2], iterations, k % 5 == 4);
  }
}

TEST(ScalarFieldSmoother, RandomGridsEveryType) {
  checkGridsOfType<std::int8_t>(1);
  checkGridsOfType<std::uint8_t>(2);
  checkGridsOfType<std::int16_t>(3);
  checkGridsOfType<std::uint16_t>(4);
  checkGridsOfType<std::int32_t>(5);
  checkGridsOfType<std::uint32_t>(6);
  checkGridsOfType<std::int64_t>(7);
  checkGridsOfType<std::uint64_t>(8);
  checkGridsOfType<float>(9);
  checkGridsOfType<double>(10);
}

// Grids large enough for several TBB tasks and the interior fast path.
TEST(ScalarFieldSmoother, LargerGrids) {
  std::mt19937 rng(11);
  checkGrid<double>(rng, 40, 30, 20, 3, false);
  checkGrid<float>(rng, 200, 150, 1, 4, true);
}

// Random triangle and tet meshes: pinched, holed, non-manifold, isolated vertices.
TEST(ScalarFieldSmoother, RandomMeshes) {
  std::mt19937 rng(12);
  for (int seed = 0; seed < 40; ++seed) {
    const RandomMesh random = randomMesh(seed, rng);
    const SimplexId nv = random.numberOfVertices;
    ExplicitTriangulation mesh(nv, random.dimension, flatten(random.cells));
    const auto nbrs = neighboursFromCells(nv, random.cells);
    const int iterations = 1 + seed % 4;
    const auto values = randomValues<double>(rng, nv);
    expectMatches(smooth(mesh, values, iterations),
                  bruteSmooth(nbrs, values, iterations, {}),
                  "random mesh seed " + std::to_string(seed));
    const auto shorts = randomValues<std::int16_t>(rng, nv);
    expectMatches(smooth(mesh, shorts, 1), oracle(nbrs, shorts, 1, {}),
                  "random int16 mesh seed " + std::to_string(seed));
    const auto wide = valuesNearLimits<std::int64_t>(rng, nv, 3000);
    expectMatches(smooth(mesh, wide, iterations), oracle(nbrs, wide, iterations, {}),
                  "random int64 mesh near the limits, seed " + std::to_string(seed));
  }
}

template <typename T> void checkConstant(T c) {
  ImplicitTriangulation tri(6, 5, 4);
  const std::vector<T> values(tri.getNumberOfVertices(), c);
  EXPECT_EQ(smooth(tri, values, 7), values) << scalarTypeName(scalarTypeOf<T>());
}

TEST(ScalarFieldSmoother, ConstantFieldUnchanged) {
  checkConstant<std::int8_t>(-128);
  checkConstant<std::uint8_t>(255);
  checkConstant<std::int16_t>(-32768);
  checkConstant<std::uint16_t>(65535);
  checkConstant<std::int32_t>(std::numeric_limits<std::int32_t>::min());
  checkConstant<std::uint32_t>(std::numeric_limits<std::uint32_t>::max());
  checkConstant<std::int64_t>(-(std::int64_t(1) << 50));
  checkConstant<std::uint64_t>(std::uint64_t(1) << 52);
  checkConstant<float>(-3.25f);
  // Exact for doubles only where k * c is (a generic c may move by an ulp): a large power
  // of two, whose sums of up to 15 copies stay finite.
  checkConstant<double>(std::ldexp(1.0, 1000));
}

// The discrete maximum principle: an average never leaves its inputs' range, so the
// field's range only shrinks, pass after pass (exactly for integers; within rounding for
// doubles).
TEST(ScalarFieldSmoother, RangeNeverGrows) {
  std::mt19937 rng(13);
  ImplicitTriangulation tri(17, 13, 9);
  const auto doubles = randomValues<double>(rng, tri.getNumberOfVertices());
  const auto bytes = randomValues<std::uint8_t>(rng, tri.getNumberOfVertices());
  double lo = *std::min_element(doubles.begin(), doubles.end());
  double hi = *std::max_element(doubles.begin(), doubles.end());
  std::uint8_t blo = *std::min_element(bytes.begin(), bytes.end());
  std::uint8_t bhi = *std::max_element(bytes.begin(), bytes.end());
  for (int iterations = 1; iterations <= 20; iterations += 3) {
    const auto d = smooth(tri, doubles, iterations);
    const auto b = smooth(tri, bytes, iterations);
    const double dlo = *std::min_element(d.begin(), d.end());
    const double dhi = *std::max_element(d.begin(), d.end());
    EXPECT_GE(dlo, lo - 1e-12 * std::fabs(lo)) << iterations;
    EXPECT_LE(dhi, hi + 1e-12 * std::fabs(hi)) << iterations;
    EXPECT_GE(*std::min_element(b.begin(), b.end()), blo) << iterations;
    EXPECT_LE(*std::max_element(b.begin(), b.end()), bhi) << iterations;
    lo = dlo;
    hi = dhi;
    blo = *std::min_element(b.begin(), b.end());
    bhi = *std::max_element(b.begin(), b.end());
  }
  // and it does smooth: a random field's range shrinks strictly
  EXPECT_LT(hi - lo, 0.5 * (*std::max_element(doubles.begin(), doubles.end()) -
                            *std::min_element(doubles.begin(), doubles.end())));
}

// 64-bit integers near their limits, where a double holds them only to 2^10 (the average
// once moved values by up to 1380 and below the input's minimum): exact against the
// oracle on grids and meshes, several passes, and never outside the input's range.
template <typename T> void checkNearLimits(unsigned seed, T spread) {
  std::mt19937 rng(seed);
  for (const auto& dims : {std::array<SimplexId, 3>{9, 7, 5}, {13, 11, 1}, {2, 2, 2}}) {
    const SimplexId n = dims[0] * dims[1] * dims[2];
    const auto values = valuesNearLimits<T>(rng, n, spread);
    const auto nbrs = neighboursFromCells(n, ttkGridCells(dims[0], dims[1], dims[2]));
    ImplicitTriangulation grid(dims[0], dims[1], dims[2]);
    std::vector<Tuple> cells = ttkGridCells(dims[0], dims[1], dims[2]);
    ExplicitTriangulation mesh(n, int(cells.front().size()) - 1, flatten(cells));
    for (const int iterations : {1, 2, 7}) {
      const std::string what = std::string(scalarTypeName(scalarTypeOf<T>())) + " " +
                               gridName(dims[0], dims[1], dims[2]) + " iterations " +
                               std::to_string(iterations);
      const auto expected = oracle(nbrs, values, iterations, {});
      const auto onGrid = smooth(grid, values, iterations);
      expectMatches(onGrid, expected, what + " implicit");
      expectMatches(smooth(mesh, values, iterations), expected, what + " explicit");
      EXPECT_GE(*std::min_element(onGrid.begin(), onGrid.end()),
                *std::min_element(values.begin(), values.end()))
          << what;
      EXPECT_LE(*std::max_element(onGrid.begin(), onGrid.end()),
                *std::max_element(values.begin(), values.end()))
          << what;
    }
  }
}

TEST(ScalarFieldSmoother, IntegersNearTheirLimitsExact) {
  checkNearLimits<std::int64_t>(21, 3000);
  checkNearLimits<std::uint64_t>(22, 3000);
  checkNearLimits<std::int32_t>(23, 50);
  checkNearLimits<std::uint8_t>(24, 3);
  // the extremes side by side: sums of 15 values of magnitude 2^63
  checkNearLimits<std::int64_t>(25, 0);
}

TEST(ScalarFieldSmoother, BadInput) {
  ImplicitTriangulation tri(4, 4, 4);
  std::vector<double> values(64, 1.0), out(64);
  RunReport report;
  auto run = [&](const std::vector<double>& v, int iterations) {
    sfs::Parameters p;
    p.numberOfIterations = iterations;
    sfs::execute(tri, viewOf(v), p, Monitor{}, out.data(), report);
  };
  expectError([&] { run(std::vector<double>(63, 1.0), 1); }, "63 values");
  expectError([&] { run(values, -1); }, "between 0 and");
  expectError([&] { run(values, sfs::kMaxIterations + 1); }, "between 0 and");
  auto nan = values;
  nan[17] = std::nan("");
  expectError([&] { run(nan, 1); }, "NaN or infinite value at vertex 17");
  auto inf = values;
  inf[3] = -HUGE_VAL;
  expectError([&] { run(inf, 1); }, "at vertex 3");
  auto huge = values;
  huge[5] = 1.5e308;
  expectError([&] { run(huge, 1); }, "would overflow");
}

TEST(ScalarFieldSmoother, ProgressPerPassAndAbortBetweenPasses) {
  ImplicitTriangulation tri(8, 8, 8);
  std::vector<float> values(512, 2.0f), out(512);
  std::vector<double> seen;
  Monitor monitor;
  monitor.progress = [&](double f) { seen.push_back(f); };
  sfs::Parameters p;
  p.numberOfIterations = 4;
  RunReport report;
  sfs::execute(tri, viewOf(values), p, monitor, out.data(), report);
  ASSERT_GE(seen.size(), 4u);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_DOUBLE_EQ(seen.back(), 1.0);
  // an abort requested after the second pass stops before the third
  int passes = 0;
  monitor.progress = [&](double) { ++passes; };
  monitor.abortRequested = [&] { return passes >= 2; };
  p.numberOfIterations = 100;
  EXPECT_THROW(sfs::execute(tri, viewOf(values), p, monitor, out.data(), report),
               Aborted);
  EXPECT_EQ(passes, 2);
}

// GPU requested without a usable device (or on a mesh): the CPU runs, with a warning.
TEST(ScalarFieldSmoother, GpuRequestFallsBackWithWarning) {
  std::mt19937 rng(14);
  ImplicitTriangulation tri(5, 6, 7);
  const auto values = randomValues<double>(rng, tri.getNumberOfVertices());
  sfs::Parameters p;
  p.numberOfIterations = 2;
  std::vector<double> cpu(values.size()), other(values.size());
  RunReport report;
  sfs::execute(tri, viewOf(values), p, Monitor{}, cpu.data(), report);
  p.backend = Backend::Gpu;
  sfs::execute(tri, viewOf(values), p, Monitor{}, other.data(), report);
  if (report.backend == "cpu") {
    EXPECT_TRUE(report.hasWarning(WarningCode::GpuUnavailable) ||
                report.hasWarning(WarningCode::GpuMemoryInsufficient));
  }
  EXPECT_EQ(cpu, other); // bit for bit, whichever ran
  std::vector<Tuple> cells = ttkGridCells(5, 6, 7);
  ExplicitTriangulation mesh(tri.getNumberOfVertices(), 3, flatten(cells));
  sfs::execute(mesh, viewOf(values), p, Monitor{}, other.data(), report);
  EXPECT_EQ(report.backend, "cpu");
  ASSERT_FALSE(report.warnings.empty());
  EXPECT_TRUE(report.hasWarning(WarningCode::NoGpuPath));
  EXPECT_NE(report.warnings.back().text.find("regular grids only"), std::string::npos);
}

} // namespace
} // namespace topogpu::test
