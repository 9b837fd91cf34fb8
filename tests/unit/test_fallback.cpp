// runWithFallback with fake GPU callables (the behaviour every module relies on: a GPU
// failure becomes a warning and the CPU's result; an abort or bad input is not
// retried), and the progress and abort of the vertex order's stages.
#include "core/common/BackendSelection.h"
#include "core/common/Fallback.h"
#include "core/common/GpuDevice.h"
#include "core/common/VertexOrder.h"
#include "core/common/VertexOrderGpu.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace topogpu {
namespace {

TEST(Fallback, GpuFailureRunsCpuAndWarnsNamingStageAndError) {
  for (const bool oom : {true, false}) {
    RunReport report;
    int result = 0, cpuRuns = 0;
    runWithFallback(
        Backend::Gpu, "test stage", report,
        [&] {
          result = -1; // half-written state the CPU must overwrite
          throw GpuError("sort: cudaErrorMemoryAllocation", oom);
        },
        [&] {
          ++cpuRuns;
          result = 42;
        });
    EXPECT_EQ(result, 42);
    EXPECT_EQ(cpuRuns, 1);
    EXPECT_EQ(report.backend, "cpu");
    ASSERT_EQ(report.warnings.size(), 1u);
    EXPECT_EQ(report.warnings[0].code,
              oom ? WarningCode::GpuOutOfMemory : WarningCode::GpuFailed);
    const std::string& w = report.warnings[0].text;
    EXPECT_NE(w.find("test stage"), std::string::npos) << w;
    EXPECT_NE(w.find("sort: cudaErrorMemoryAllocation"), std::string::npos) << w;
    EXPECT_EQ(w.find("out of device memory") != std::string::npos, oom) << w;
    EXPECT_NE(w.find("CPU"), std::string::npos) << w;
  }
}

TEST(Fallback, GpuSuccessSkipsCpu) {
  RunReport report;
  int result = 0;
  runWithFallback(
      Backend::Gpu, "stage", report, [&] { result = 1; }, [&] { result = 2; });
  EXPECT_EQ(result, 1);
  EXPECT_EQ(report.backend, "gpu");
  EXPECT_TRUE(report.warnings.empty());
}

TEST(Fallback, CpuBackendNeverTouchesGpu) {
  RunReport report;
  bool gpuCalled = false, cpuCalled = false;
  runWithFallback(
      Backend::Cpu, "stage", report, [&] { gpuCalled = true; },
      [&] { cpuCalled = true; });
  EXPECT_FALSE(gpuCalled);
  EXPECT_TRUE(cpuCalled);
  EXPECT_EQ(report.backend, "cpu");
  EXPECT_TRUE(report.warnings.empty());
}

TEST(Fallback, AbortIsRethrownNotRetried) {
  RunReport report;
  bool cpuCalled = false;
  EXPECT_THROW(runWithFallback(
                   Backend::Gpu, "stage", report, [] { throw Aborted(); },
                   [&] { cpuCalled = true; }),
               Aborted);
  EXPECT_FALSE(cpuCalled);
  EXPECT_TRUE(report.warnings.empty());
}

TEST(Fallback, BadInputIsNotMistakenForGpuFailure) {
  RunReport report;
  bool cpuCalled = false;
  EXPECT_THROW(runWithFallback(
                   Backend::Gpu, "stage", report, [] { throw Error("bad dims"); },
                   [&] { cpuCalled = true; }),
               Error);
  EXPECT_FALSE(cpuCalled);
}

// Without a usable GPU (a CUDA-free build's stubs, or CUDA calls failing for want of a
// device or driver) the gpu:: entry points throw GpuError, never another exception, so
// the fallback catches them; with a GPU they give the CPU's order.
TEST(Fallback, GpuEntryPointsThrowGpuErrorWithoutDevice) {
  std::vector<float> v(1000);
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = float((i * 37) % 11);
  std::vector<SimplexId> expected(v.size()), order(v.size());
  computeVertexOrderCpu(viewOf(v), expected.data());
  std::string why;
  if (gpu::deviceAvailable(&why)) {
    gpu::computeVertexOrder(viewOf(v), order.data(), Monitor{});
    EXPECT_EQ(order, expected);
    return;
  }
  EXPECT_FALSE(why.empty());
  try {
    gpu::computeVertexOrder(viewOf(v), order.data(), Monitor{});
    ADD_FAILURE() << "no GPU (" << why << ") but the GPU vertex order did not throw";
  } catch (const GpuError& e) {
    EXPECT_NE(std::string(e.what()).find("vertex order"), std::string::npos) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected GpuError, got: " << e.what();
  }
  // Through the public entry: resolution picks the CPU and says why.
  RunReport report;
  computeVertexOrder(viewOf(v), order.data(), Backend::Gpu, report);
  EXPECT_EQ(report.backend, "cpu");
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_EQ(report.warnings[0].code, WarningCode::GpuUnavailable);
  EXPECT_NE(report.warnings[0].text.find(why), std::string::npos)
      << report.warnings[0].text;
  EXPECT_EQ(order, expected);
}

// The vertex order of a large array reports progress in several steps (not just at the
// end), monotone, ending at 1, for each CPU algorithm (counting, packed, comparison).
template <typename T> void checkProgress(const char* what) {
  SCOPED_TRACE(what);
  std::mt19937_64 rng(3);
  std::vector<T> v(std::size_t(1) << 21);
  for (T& x : v)
    x = T(rng() % 1000);
  std::vector<SimplexId> order(v.size());
  std::vector<double> seen;
  Monitor monitor;
  monitor.progress = [&seen](double f) { seen.push_back(f); };
  RunReport report;
  computeVertexOrder(viewOf(v), order.data(), Backend::Cpu, report, monitor);
  ASSERT_GE(seen.size(), 2u);
  EXPECT_DOUBLE_EQ(seen.back(), 1.0);
  EXPECT_LT(seen.front(), 1.0);
  for (std::size_t i = 1; i < seen.size(); ++i)
    EXPECT_GE(seen[i], seen[i - 1]);
  // abort honoured part-way: after the first check passes
  int checks = 0;
  monitor.abortRequested = [&checks] { return ++checks > 1; };
  EXPECT_THROW(computeVertexOrder(viewOf(v), order.data(), Backend::Cpu, report, monitor),
               Aborted);
}

TEST(VertexOrderProgress, EveryCpuAlgorithmReportsAndAborts) {
  checkProgress<std::uint16_t>("counting sort");
  checkProgress<float>("packed keys");
  checkProgress<double>("comparison sort");
}

} // namespace
} // namespace topogpu
