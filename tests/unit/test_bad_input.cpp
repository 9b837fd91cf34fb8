// Core-level handling of bad input, ties, abort, progress and the GPU fallback.
#include "core/common/BackendSelection.h"
#include "core/critical_points/CriticalPoints.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace topogpu {
namespace {

using critical_points::Output;
using critical_points::Parameters;

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
      SCOPED_TRACE(std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" +
                   std::to_string(n[2]) + " " + scalarTypeName(type));
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
    all += w + "\n";
  EXPECT_NE(all.find("non-manifold: 1 edges"), std::string::npos) << all;
  EXPECT_NE(all.find("1 vertices belong to no cell"), std::string::npos) << all;
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
  ASSERT_FALSE(out.report.warnings.empty());
  critical_points::execute(grid, {v.data(), ScalarType::Float32, 125}, cpu(), Monitor{},
                           reference);
  EXPECT_EQ(out.vertexTypes, reference.vertexTypes);

  // Meshes always run on the CPU: a Gpu request warns as well.
  ExplicitTriangulation mesh(5, 3, {0, 1, 2, 3, 1, 2, 3, 4});
  Output meshOut;
  critical_points::execute(mesh, {v.data(), ScalarType::Float32, 5}, gpu, Monitor{},
                           meshOut);
  EXPECT_EQ(meshOut.report.backend, "cpu");
  EXPECT_FALSE(meshOut.report.warnings.empty());
}

} // namespace
} // namespace topogpu
