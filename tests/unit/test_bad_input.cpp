// Core-level handling of bad input, ties, abort, progress and the GPU fallback.
#include "UnitHelpers.h"
#include "core/common/BackendSelection.h"
#include "core/critical_points/CriticalPoints.h"
#include "core/morse_smale_complex/MorseSmaleComplex.h"
#include "core/morse_smale_complex/SaddleConnections.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace topogpu {
namespace {

using critical_points::Output;
using critical_points::Parameters;
using test::gridName;

Parameters cpu() {
  Parameters p;
  p.backend = Backend::Cpu;
  return p;
}

// Runs execute and returns the Error message, or "" when nothing was thrown.
template <typename Tri>
std::string errorOf(Tri& tri, const ScalarArrayView& values, const Parameters& params) {
  Output out;
  try {
    critical_points::execute(tri, values, params, Monitor{}, out);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A message quoting bytes of a file keeps all of them, the unprintable ones escaped:
// what() is a C string, so a raw NUL would end the message there.
TEST(BadInput, ErrorMessagesShowOddBytesEscaped) {
  const std::string quoted = std::string("token 'a") + '\0' +
                             "b\x07"
                             "c\xff' is bad";
  const Error error(quoted);
  EXPECT_EQ(std::string(error.what()), "token 'a\\x00b\\x07c\\xff' is bad");
  // line breaks, tabs and valid UTF-8 (an accented file name) stay as they are
  const std::string kept = "line 1\n\tcaf\xc3\xa9.off";
  EXPECT_EQ(std::string(Error(kept).what()), kept);
  // a truncated UTF-8 sequence is escaped byte by byte
  EXPECT_EQ(std::string(Error(std::string("x\xc3")).what()), "x\\xc3");
}

TEST(BadInput, NonFiniteValuesAreRejected) {
  ImplicitTriangulation grid(4, 3, 2);
  ExplicitTriangulation mesh(4, 3, {0, 1, 2, 3});
  for (double bad :
       {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity()}) {
    for (SimplexId at : {SimplexId(0), SimplexId(7), SimplexId(23)}) {
      std::vector<double> d(24, 1.0);
      d[at] = bad;
      const std::string msg = errorOf(grid, {d.data(), ScalarType::Float64, 24}, cpu());
      EXPECT_NE(msg.find("NaN"), std::string::npos)
          << "value " << bad << ": '" << msg << "'";
      std::vector<float> f(24, 1.0f);
      f[at] = float(bad);
      const std::string fmsg = errorOf(grid, {f.data(), ScalarType::Float32, 24}, cpu());
      EXPECT_NE(fmsg.find("NaN"), std::string::npos)
          << "float " << bad << ": '" << fmsg << "'";
    }
    std::vector<double> m = {0.0, 1.0, bad, 2.0};
    const std::string msg = errorOf(mesh, {m.data(), ScalarType::Float64, 4}, cpu());
    EXPECT_NE(msg.find("NaN"), std::string::npos)
        << "mesh, value " << bad << ": '" << msg << "'";
  }
  // The Auto backend validates too (before any device work).
  std::vector<double> d(24, 0.0);
  d[5] = std::nan("");
  Parameters autoBackend;
  EXPECT_NE(errorOf(grid, {d.data(), ScalarType::Float64, 24}, autoBackend).find("NaN"),
            std::string::npos);
}

TEST(BadInput, SizeMismatchIsRejected) {
  ImplicitTriangulation grid(4, 3, 2);
  ExplicitTriangulation mesh(5, 3, {0, 1, 2, 3, 1, 2, 3, 4});
  std::vector<float> v(25, 0.0f);
  EXPECT_FALSE(errorOf(grid, {v.data(), ScalarType::Float32, 23}, cpu()).empty());
  EXPECT_FALSE(errorOf(grid, {v.data(), ScalarType::Float32, 25}, cpu()).empty());
  EXPECT_FALSE(errorOf(grid, {v.data(), ScalarType::Float32, 0}, cpu()).empty());
  EXPECT_FALSE(errorOf(mesh, {v.data(), ScalarType::Float32, 4}, cpu()).empty());
  EXPECT_FALSE(errorOf(mesh, {v.data(), ScalarType::Float32, 6}, cpu()).empty());
  EXPECT_TRUE(errorOf(mesh, {v.data(), ScalarType::Float32, 5}, cpu()).empty());
}

// All values equal: the index breaks every tie, so the field is the linear function
// x + nx*y + nx*ny*z, whose only critical points on a convex box are one minimum at
// vertex 0 and one maximum at the last vertex; everything else is regular.
TEST(BadInput, ConstantFieldHasOneMinimumAndOneMaximum) {
  const SimplexId dims[][3] = {{5, 4, 3}, {7, 6, 1}, {1, 4, 9}, {2, 2, 2}};
  for (const auto& n : dims) {
    ImplicitTriangulation grid(n[0], n[1], n[2]);
    const SimplexId count = n[0] * n[1] * n[2];
    for (ScalarType type : {ScalarType::UInt8, ScalarType::Float64}) {
      std::vector<double> d(count, 42.0);
      std::vector<std::uint8_t> u(count, 42);
      const ScalarArrayView view = type == ScalarType::UInt8
                                       ? ScalarArrayView{u.data(), type, count}
                                       : ScalarArrayView{d.data(), type, count};
      Output out;
      critical_points::execute(grid, view, cpu(), Monitor{}, out);
      SCOPED_TRACE(gridName(n[0], n[1], n[2]) + " " + scalarTypeName(type));
      EXPECT_EQ(out.count(CriticalType::Minimum), 1);
      EXPECT_EQ(out.count(CriticalType::Maximum), 1);
      EXPECT_EQ(out.count(CriticalType::Regular), count - 2);
      EXPECT_EQ(out.vertexTypes.front(), std::int8_t(CriticalType::Minimum));
      EXPECT_EQ(out.vertexTypes.back(), std::int8_t(CriticalType::Maximum));
      EXPECT_EQ(out.criticalVertices, (std::vector<SimplexId>{0, count - 1}));
    }
  }
}

TEST(BadInput, AbortThrowsAborted) {
  ImplicitTriangulation grid(40, 40, 40);
  std::vector<float> v(64000, 1.0f);
  Monitor monitor;
  monitor.abortRequested = [] { return true; };
  Output out;
  EXPECT_THROW(critical_points::execute(grid, {v.data(), ScalarType::Float32, 64000},
                                        cpu(), monitor, out),
               Aborted);
  ExplicitTriangulation mesh(4, 3, {0, 1, 2, 3});
  EXPECT_THROW(critical_points::execute(mesh, {v.data(), ScalarType::Float32, 4}, cpu(),
                                        monitor, out),
               Aborted);
  // An abort that arrives part-way (after some progress) is honoured too.
  int calls = 0;
  monitor.abortRequested = [&calls] { return ++calls > 3; };
  EXPECT_THROW(critical_points::execute(grid, {v.data(), ScalarType::Float32, 64000},
                                        cpu(), monitor, out),
               Aborted);
}

TEST(BadInput, ProgressIsReportedAndReachesOne) {
  for (SimplexId n : {SimplexId(3), SimplexId(70)}) {
    ImplicitTriangulation grid(n, n, n);
    std::vector<float> v(n * n * n);
    for (std::size_t i = 0; i < v.size(); ++i)
      v[i] = float((i * 7919) % 101);
    std::vector<double> seen;
    Monitor monitor;
    monitor.progress = [&seen](double f) { seen.push_back(f); };
    Output out;
    critical_points::execute(grid, {v.data(), ScalarType::Float32, n * n * n}, cpu(),
                             monitor, out);
    ASSERT_FALSE(seen.empty()) << "no progress reported for " << n << "^3";
    EXPECT_DOUBLE_EQ(seen.back(), 1.0);
    for (std::size_t i = 0; i < seen.size(); ++i) {
      EXPECT_GE(seen[i], 0.0);
      EXPECT_LE(seen[i], 1.0);
      if (i > 0) {
        EXPECT_GE(seen[i], seen[i - 1]) << "progress went backwards";
      }
    }
  }
}

// The build or the machine has no GPU (the unit tests run without one): Gpu falls back
// to the CPU and says so. Skipped where a GPU is really there.
// A "book" of three triangles on one edge, plus a vertex in no triangle: both are
// classified, and both are named in the warnings rather than passed over in silence.
TEST(BadInput, NonManifoldAndIsolatedVerticesAreReported) {
  ExplicitTriangulation book(6, 2, {0, 1, 2, 0, 1, 3, 0, 1, 4});
  const std::vector<double> values{0, 1, 2, 3, 4, 5};
  Output out;
  critical_points::execute(book, {values.data(), ScalarType::Float64, 6}, Parameters{},
                           Monitor{}, out);
  std::string all;
  for (const auto& w : out.report.warnings)
    all += w.text + "\n";
  EXPECT_NE(all.find("non-manifold: 1 edges"), std::string::npos) << all;
  EXPECT_NE(all.find("1 vertices belong to no cell"), std::string::npos) << all;
  EXPECT_TRUE(out.report.hasWarning(WarningCode::NonManifoldMesh)) << all;
  EXPECT_TRUE(out.report.hasWarning(WarningCode::IsolatedVertices)) << all;
  EXPECT_EQ(out.report.warnings.size(), 2u) << all;
  // no lower and no upper link component: TTK's rule calls it degenerate
  EXPECT_EQ(out.vertexTypes[5], std::int8_t(CriticalType::Degenerate));
}

TEST(BadInput, GpuRequestFallsBackToCpuWithoutGpu) {
  if (gpuAvailable())
    GTEST_SKIP() << "a GPU is present: the fallback cannot be observed here";
  ImplicitTriangulation grid(5, 5, 5);
  std::vector<float> v(125);
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = float((i * 37) % 11);
  Parameters gpu;
  gpu.backend = Backend::Gpu;
  Output out, reference;
  critical_points::execute(grid, {v.data(), ScalarType::Float32, 125}, gpu, Monitor{},
                           out);
  EXPECT_EQ(out.report.backend, "cpu");
  ASSERT_EQ(out.report.warnings.size(), 1u);
  EXPECT_EQ(out.report.warnings[0].code, WarningCode::GpuUnavailable);
  critical_points::execute(grid, {v.data(), ScalarType::Float32, 125}, cpu(), Monitor{},
                           reference);
  EXPECT_EQ(out.vertexTypes, reference.vertexTypes);

  // Meshes always run on the CPU: a Gpu request warns as well.
  ExplicitTriangulation mesh(5, 3, {0, 1, 2, 3, 1, 2, 3, 4});
  Output meshOut;
  critical_points::execute(mesh, {v.data(), ScalarType::Float32, 5}, gpu, Monitor{},
                           meshOut);
  EXPECT_EQ(meshOut.report.backend, "cpu");
  EXPECT_TRUE(meshOut.report.hasWarning(WarningCode::NoGpuPath));
}

// The Morse-Smale complex (discrete gradient, arcs, labels, saddle connections) of bad
// or unusual input. Oracles: the lower-star filtration depends on the vertex order only,
// so any strictly increasing map of the values (to any scalar type) gives the identical
// complex; a constant field is, by the index tie-break, the linear function x + nx*y +
// nx*ny*z, whose only critical cell on a box is the minimum at vertex 0 (and whose
// ascending paths all leave the box and meet at one boundary maximum).
namespace msc = morse_smale_complex;

msc::Output mscOf(const SimplexId (&n)[3], const ScalarArrayView& values,
                  Backend backend = Backend::Cpu) {
  ImplicitTriangulation grid(n[0], n[1], n[2]);
  msc::Parameters parameters;
  parameters.backend = backend;
  parameters.computeSaddleConnections = true;
  msc::Output out;
  msc::execute(grid, values, parameters, Monitor{}, out);
  return out;
}

void expectSameComplex(const msc::Output& got, const msc::Output& want,
                       const std::string& what) {
  SCOPED_TRACE(what);
  for (int d = 0; d < 4; ++d)
    EXPECT_EQ(got.gradient.criticalCells[d], want.gradient.criticalCells[d])
        << "dim " << d;
  EXPECT_EQ(got.maxima, want.maxima);
  EXPECT_EQ(got.descendingManifold, want.descendingManifold);
  EXPECT_EQ(got.ascendingManifold, want.ascendingManifold);
  EXPECT_EQ(got.cellAscendingManifold, want.cellAscendingManifold);
  EXPECT_EQ(got.saddle1Minimum, want.saddle1Minimum);
  EXPECT_EQ(got.saddleMaximum, want.saddleMaximum);
  EXPECT_EQ(got.saddleConnections.arcs, want.saddleConnections.arcs);
}

bool isEmpty(const msc::Output& out) {
  return out.maxima.empty() && out.descendingManifold.empty() &&
         out.ascendingManifold.empty() && out.cellAscendingManifold.empty() &&
         out.saddle1Minimum.empty() && out.saddleMaximum.empty() &&
         out.saddleConnections.arcs.empty();
}

// v(rank) for every scalar type: strictly increasing in the rank, and for the 64-bit
// integers at magnitudes where consecutive values are not distinct as doubles (2^62,
// 2^63): a comparison through double would see a constant field there.
template <typename T> T typedValue(std::int64_t r);
template <> std::int8_t typedValue(std::int64_t r) {
  return std::int8_t(r - 100);
}
template <> std::uint8_t typedValue(std::int64_t r) {
  return std::uint8_t(r + 7);
}
template <> std::int16_t typedValue(std::int64_t r) {
  return std::int16_t(r * 300 - 20000);
}
template <> std::uint16_t typedValue(std::int64_t r) {
  return std::uint16_t(r * 1000 + 1);
}
template <> std::int32_t typedValue(std::int64_t r) {
  return std::int32_t(r * 10000000 - (std::int64_t(1) << 30));
}
template <> std::uint32_t typedValue(std::int64_t r) {
  return std::uint32_t(3000000000u + std::uint32_t(r) * 1000000u);
}
template <> std::int64_t typedValue(std::int64_t r) {
  return std::numeric_limits<std::int64_t>::min() / 2 + r;
}
template <> std::uint64_t typedValue(std::int64_t r) {
  return (std::uint64_t(1) << 63) + std::uint64_t(r);
}
template <> float typedValue(std::int64_t r) {
  return float(r) * 0.5f - 3.0f;
}
template <> double typedValue(std::int64_t r) {
  return 1e10 + double(r) * 1e-3;
}

template <typename T>
void expectOrderInvariance(const SimplexId (&n)[3],
                           const std::vector<std::int64_t>& ranks, ScalarType type,
                           const msc::Output& reference, const std::string& what) {
  std::vector<T> values(ranks.size());
  for (std::size_t i = 0; i < ranks.size(); ++i)
    values[i] = typedValue<T>(ranks[i]);
  const msc::Output out =
      mscOf(n, {values.data(), type, SimplexId(values.size())}, Backend::Cpu);
  expectSameComplex(out, reference, what + " as " + scalarTypeName(type));
}

TEST(BadInput, MorseSmaleComplexOfEveryScalarTypeDependsOnTheOrderOnly) {
  const SimplexId shapes[][3] = {{5, 4, 3}, {6, 5, 1}, {1, 4, 6}};
  std::mt19937_64 rng(61);
  for (const auto& n : shapes) {
    const std::size_t count = std::size_t(n[0] * n[1] * n[2]);
    for (const int levels : {4, int(count)}) { // massive ties, then distinct values
      std::vector<std::int64_t> ranks(count);
      for (std::size_t i = 0; i < count; ++i)
        ranks[i] = std::int64_t(i % std::size_t(levels));
      std::shuffle(ranks.begin(), ranks.end(), rng);
      std::vector<std::int32_t> plain(ranks.begin(), ranks.end());
      const msc::Output reference =
          mscOf(n, {plain.data(), ScalarType::Int32, SimplexId(count)});
      ASSERT_GE(reference.gradient.counts[0], 1);
      const std::string what =
          gridName(n[0], n[1], n[2]) + ", " + std::to_string(levels) + " levels";
      expectOrderInvariance<std::int8_t>(n, ranks, ScalarType::Int8, reference, what);
      expectOrderInvariance<std::uint8_t>(n, ranks, ScalarType::UInt8, reference, what);
      expectOrderInvariance<std::int16_t>(n, ranks, ScalarType::Int16, reference, what);
      expectOrderInvariance<std::uint16_t>(n, ranks, ScalarType::UInt16, reference, what);
      expectOrderInvariance<std::int32_t>(n, ranks, ScalarType::Int32, reference, what);
      expectOrderInvariance<std::uint32_t>(n, ranks, ScalarType::UInt32, reference, what);
      expectOrderInvariance<std::int64_t>(n, ranks, ScalarType::Int64, reference, what);
      expectOrderInvariance<std::uint64_t>(n, ranks, ScalarType::UInt64, reference, what);
      expectOrderInvariance<float>(n, ranks, ScalarType::Float32, reference, what);
      expectOrderInvariance<double>(n, ranks, ScalarType::Float64, reference, what);
    }
  }
}

TEST(BadInput, MorseSmaleComplexOfAConstantFieldIsTheRamps) {
  const SimplexId shapes[][3] = {{5, 4, 3}, {7, 6, 1}, {1, 4, 9}, {2, 2, 2}};
  for (const auto& n : shapes) {
    const SimplexId count = n[0] * n[1] * n[2];
    std::vector<std::uint64_t> high(std::size_t(count),
                                    std::numeric_limits<std::uint64_t>::max());
    std::vector<std::int64_t> low(std::size_t(count),
                                  std::numeric_limits<std::int64_t>::min());
    std::vector<double> zero(std::size_t(count), -0.0);
    for (const ScalarArrayView& view :
         {ScalarArrayView{high.data(), ScalarType::UInt64, count},
          ScalarArrayView{low.data(), ScalarType::Int64, count},
          ScalarArrayView{zero.data(), ScalarType::Float64, count}}) {
      SCOPED_TRACE(gridName(n[0], n[1], n[2]) + " " + scalarTypeName(view.type));
      const msc::Output out = mscOf(n, view);
      EXPECT_EQ(out.gradient.counts, (std::array<SimplexId, 4>{1, 0, 0, 0}));
      EXPECT_EQ(out.gradient.criticalCells[0], std::vector<SimplexId>{0});
      EXPECT_EQ(out.boundaryMaxima, 1);
      EXPECT_TRUE(out.saddle1Minimum.empty() && out.saddleMaximum.empty());
      EXPECT_TRUE(out.saddleConnections.arcs.empty());
      EXPECT_EQ(out.descendingManifold,
                std::vector<msc::ManifoldLabel>(std::size_t(count), 0));
      EXPECT_EQ(out.unlabelledDescending + out.unlabelledAscending + out.unlabelledCells,
                0);
    }
  }
}

TEST(BadInput, MorseSmaleComplexRejectsBadFieldsAndShapes) {
  using test::expectError;
  const SimplexId box[3] = {4, 3, 2};
  for (double bad :
       {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity()}) {
    for (SimplexId at : {SimplexId(0), SimplexId(13), SimplexId(23)}) {
      std::vector<double> d(24, 1.0);
      d[std::size_t(at)] = bad;
      std::vector<float> f(d.begin(), d.end());
      for (Backend backend : {Backend::Cpu, Backend::Auto, Backend::Gpu}) {
        expectError(
            [&] {
              mscOf(box, {d.data(), ScalarType::Float64, 24}, backend);
            },
            "at vertex " + std::to_string(at));
        expectError(
            [&] {
              mscOf(box, {f.data(), ScalarType::Float32, 24}, backend);
            },
            "at vertex " + std::to_string(at));
      }
    }
  }
  std::vector<float> v(40, 0.0f);
  // Size mismatch and empty arrays.
  expectError([&] { mscOf(box, {v.data(), ScalarType::Float32, 23}); }, "24");
  expectError([&] { mscOf(box, {v.data(), ScalarType::Float32, 25}); }, "24");
  expectError([&] { mscOf(box, {v.data(), ScalarType::Float32, 0}); }, "24");
  // One axis of more than one vertex (n x 1 x 1, any axis) and a single vertex: the
  // complex needs a 2D or 3D grid; n x m x 1 is 2D and works.
  for (const auto& n :
       {std::array<SimplexId, 3>{9, 1, 1}, {1, 9, 1}, {1, 1, 9}, {1, 1, 1}}) {
    const SimplexId dims[3] = {n[0], n[1], n[2]};
    expectError(
        [&] {
          mscOf(dims, {v.data(), ScalarType::Float32, n[0] * n[1] * n[2]});
        },
        "2D or 3D");
  }
  const SimplexId flat[3] = {5, 8, 1};
  EXPECT_EQ(mscOf(flat, {v.data(), ScalarType::Float32, 40}).gradient.grid.dimension, 2);
  // A mesh: no cubical complex.
  ExplicitTriangulation mesh(4, 3, {0, 1, 2, 3});
  msc::Output out;
  expectError(
      [&] {
        msc::execute(mesh, {v.data(), ScalarType::Float32, 4}, {}, Monitor{}, out);
      },
      "regular grid");
  EXPECT_TRUE(isEmpty(out));
}

// After an error the output holds nothing of a previous run.
TEST(BadInput, MorseSmaleComplexOutputIsEmptyAfterAnError) {
  ImplicitTriangulation grid(4, 3, 2);
  std::vector<float> good(24);
  for (std::size_t i = 0; i < good.size(); ++i)
    good[i] = float((i * 7) % 5);
  std::vector<float> bad = good;
  bad[9] = std::numeric_limits<float>::quiet_NaN();
  msc::Output out;
  msc::execute(grid, {good.data(), ScalarType::Float32, 24}, {Backend::Cpu}, Monitor{},
               out);
  ASSERT_FALSE(isEmpty(out));
  EXPECT_THROW(msc::execute(grid, {bad.data(), ScalarType::Float32, 24}, {Backend::Cpu},
                            Monitor{}, out),
               Error);
  EXPECT_TRUE(isEmpty(out));
  EXPECT_TRUE(out.gradient.criticalCells[0].empty());
}

// The GPU memory fallback's decision, on a machine without a device: chooseBackend with
// a fake device and budget, and the budget cap the GPU tests use to force it
// (tests/gpu/gpu_equality.cpp runs the real fallback on the device).
TEST(BadInput, BackendDecisionFollowsTheDeviceMemoryBudget) {
  const std::size_t mib = std::size_t(1) << 20;
  for (Backend requested : {Backend::Auto, Backend::Gpu}) {
    RunReport fits, tooBig, absent;
    EXPECT_EQ(chooseBackend(requested, true, "", 10 * mib, 10 * mib, fits), Backend::Gpu);
    EXPECT_TRUE(fits.warnings.empty());
    EXPECT_EQ(fits.backend, "gpu");
    EXPECT_EQ(chooseBackend(requested, true, "", 10 * mib + 1, 10 * mib, tooBig),
              Backend::Cpu);
    EXPECT_EQ(tooBig.backend, "cpu");
    ASSERT_EQ(tooBig.warnings.size(), 1u);
    EXPECT_EQ(tooBig.warnings[0].code, WarningCode::GpuMemoryInsufficient);
    EXPECT_NE(tooBig.warnings[0].text.find("needs about 10.0 MiB of GPU memory but only "
                                           "10.0 MiB are free; running on the CPU"),
              std::string::npos)
        << tooBig.warnings[0].text;
    EXPECT_EQ(chooseBackend(requested, false, "no device here", 1, 10 * mib, absent),
              Backend::Cpu);
    // Auto without a device is no surprise; an explicit GPU request says why not.
    EXPECT_EQ(absent.warnings.size(), requested == Backend::Gpu ? 1u : 0u);
    EXPECT_EQ(absent.hasWarning(WarningCode::GpuUnavailable), requested == Backend::Gpu);
  }
  RunReport cpu;
  EXPECT_EQ(chooseBackend(Backend::Cpu, true, "", 1, 10 * mib, cpu), Backend::Cpu);
  EXPECT_TRUE(cpu.warnings.empty());

  // A cap (the front ends set one from TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES) bounds the
  // device's free memory, and the fallback's warning names who set it.
  const std::size_t free = std::size_t(8) << 30;
  setDeviceMemoryBudgetCap(std::nullopt);
  EXPECT_EQ(deviceMemoryBudget(free), free);
  setDeviceMemoryBudgetCap(DeviceMemoryBudgetCap{4096, "the test's cap"});
  EXPECT_EQ(deviceMemoryBudget(free), 4096u);
  EXPECT_EQ(deviceMemoryBudget(1000), 1000u);
  RunReport forced;
  chooseBackend(Backend::Auto, true, "", 5000, deviceMemoryBudget(free), forced);
  setDeviceMemoryBudgetCap(std::nullopt);
  ASSERT_EQ(forced.warnings.size(), 1u);
  EXPECT_EQ(forced.warnings[0].code, WarningCode::GpuMemoryInsufficient);
  EXPECT_NE(forced.warnings[0].text.find("(within the test's cap)"), std::string::npos)
      << forced.warnings[0].text;
  EXPECT_EQ(deviceMemoryBudget(free), free);
}

// The Morse-Smale complex's stages ask for device memory that grows with the grid, so a
// budget below it sends every stage to the CPU with a warning.
TEST(BadInput, MorseSmaleComplexStagesFallBackBelowTheirDeviceBytes) {
  const SimplexId n[3] = {24, 20, 16};
  const SimplexId count = n[0] * n[1] * n[2];
  std::vector<float> values(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = float((i * 7919) % 97);
  const msc::Output out = mscOf(n, {values.data(), ScalarType::Float32, count});
  const ScalarArrayView view{values.data(), ScalarType::Float32, count};
  const std::size_t stages[] = {
      discrete_gradient::detail::deviceBytes(out.gradient.grid, view),
      msc::detail::deviceBytes(out.gradient.grid, view, msc::Parameters{}),
      saddle_connections::deviceBytes(out.gradient)};
  for (const std::size_t bytes : stages) {
    // at least the field itself (4 bytes per vertex) must be planned for
    EXPECT_GE(bytes, std::size_t(count) * sizeof(float));
    RunReport report;
    EXPECT_EQ(chooseBackend(Backend::Auto, true, "", bytes, bytes - 1, report),
              Backend::Cpu);
    EXPECT_EQ(report.warnings.size(), 1u);
    EXPECT_TRUE(report.hasWarning(WarningCode::GpuMemoryInsufficient));
    RunReport enough;
    EXPECT_EQ(chooseBackend(Backend::Auto, true, "", bytes, bytes, enough), Backend::Gpu);
  }
  // A larger grid needs more.
  const ImplicitTriangulation larger(48, 40, 32);
  const std::vector<float> largerValues(std::size_t(48 * 40 * 32));
  const ScalarArrayView largerView{largerValues.data(), ScalarType::Float32,
                                   SimplexId(largerValues.size())};
  EXPECT_GT(msc::detail::deviceBytes(cubical::gridOf(larger.dims()), largerView,
                                     msc::Parameters{}),
            msc::detail::deviceBytes(out.gradient.grid, view, msc::Parameters{}));
}

} // namespace
} // namespace topogpu
