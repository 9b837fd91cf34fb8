// The topological simplification's core on a hand-made field whose answer is worked out
// by hand (a shallow pit beside a deep one: the shallow one's pair has persistence 4),
// its constraint mode, bad input, progress and abort, and the GPU request on a machine
// without one. tests/cli/test_simplify.py checks the guarantees against GUDHI.
#include "UnitHelpers.h"

#include "core/topological_simplification/TopologicalSimplification.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace topogpu::test {
namespace {

namespace ts = topological_simplification;

// 5x3, x fastest: the pit of value 1 (vertex 6) meets the pit of value 0 (vertex 8) at
// vertex 7 (value 5); every other vertex is 9 and on the boundary.
const std::vector<float> kPits = {9, 9, 9, 9, 9, 9, 1, 5, 0, 9, 9, 9, 9, 9, 9};

ts::Output simplify(const std::vector<float>& values, const ts::Parameters& p,
                    const Monitor& monitor = Monitor{}) {
  ImplicitTriangulation tri(5, 3, 1);
  ts::Output out;
  ts::execute(tri, viewOf(values), p, monitor, out);
  return out;
}

std::vector<float> valuesOf(const ts::Output& out) {
  std::vector<float> v(out.values.size() / sizeof(float));
  std::memcpy(v.data(), out.values.data(), out.values.size());
  return v;
}

TEST(TopologicalSimplification, ShallowPitIsRaisedToItsSaddle) {
  ts::Parameters p;
  p.persistenceThreshold = 4.5;
  const ts::Output out = simplify(kPits, p);
  std::vector<float> expected = kPits;
  expected[6] = 5; // the saddle's value
  EXPECT_EQ(valuesOf(out), expected);
  // Input order: 8, 6, 7, then the 9s by id. Vertex 0 (corner (0,0), neighbours 1 and
  // 5 only) is a minimum of persistence 0 (ties broken by id): flattened behind vertex 1
  // at the same value. Vertex 6 now comes right after vertex 7.
  std::vector<SimplexId> order(15);
  SimplexId next = 5;
  for (SimplexId v = 0; v < 15; ++v)
    order[std::size_t(v)] = v == 8   ? 0
                            : v == 7 ? 1
                            : v == 6 ? 2
                            : v == 1 ? 3
                            : v == 0 ? 4
                                     : next++;
  EXPECT_EQ(out.order, order);
  EXPECT_EQ(out.keptMinima, std::vector<SimplexId>{8});
  EXPECT_TRUE(out.keptMaxima.empty());
  EXPECT_EQ(out.changedVertices, 1);
  EXPECT_EQ(out.iterations, 1);
  // Removed: the pit's pair, and pairs of persistence 0 among the 9s (nothing to change).
  std::vector<ts::pd::DiagramPair> positive;
  for (const auto& pair : out.removedPairs)
    if (pair.persistence() > 0)
      positive.push_back(pair);
  ASSERT_EQ(positive.size(), 1u);
  EXPECT_EQ(positive[0].birthVertex, 6);
  EXPECT_EQ(positive[0].deathVertex, 7);
}

TEST(TopologicalSimplification, BelowThePersistenceNothingChanges) {
  ts::Parameters p;
  p.persistenceThreshold = 4.0 / 9.0 - 0.01; // relative: times the range 9
  p.thresholdIsRelative = true;
  const ts::Output out = simplify(kPits, p);
  EXPECT_EQ(valuesOf(out), kPits);
  EXPECT_EQ(out.changedVertices, 0);
  EXPECT_NEAR(out.threshold, 4.0 - 0.09, 1e-12);
}

TEST(TopologicalSimplification, ConstraintsKeepTheListedExtrema) {
  ts::Parameters p;
  p.useConstraints = true;
  p.constraints = {{8, ts::pd::kLocalMinimum}, {7, ts::pd::kSaddle1}};
  ts::Output out = simplify(kPits, p);
  std::vector<float> expected = kPits;
  expected[6] = 5;
  EXPECT_EQ(valuesOf(out), expected);
  EXPECT_FALSE(out.report.hasWarning(WarningCode::ConstraintIgnored));
  p.constraints = {{6, -1}, {7, -1}}; // 7 is no extremum: ignored, 6 kept
  out = simplify(kPits, p);
  EXPECT_EQ(valuesOf(out), kPits);
  EXPECT_TRUE(out.report.hasWarning(WarningCode::ConstraintIgnored));
}

TEST(TopologicalSimplification, BadInput) {
  ts::Parameters p;
  p.persistenceThreshold = 1;
  std::vector<float> nan = kPits;
  nan[3] = std::numeric_limits<float>::quiet_NaN();
  expectError([&] { simplify(nan, p); }, "vertex 3");
  p.persistenceThreshold = -1;
  expectError([&] { simplify(kPits, p); }, "threshold");
  p.persistenceThreshold = std::nan("");
  expectError([&] { simplify(kPits, p); }, "threshold");
  p.persistenceThreshold = 1;
  p.maximumIterations = 0;
  expectError([&] { simplify(kPits, p); }, "iterations");
  p.maximumIterations = 4;
  p.useConstraints = true;
  p.constraints = {{15, -1}};
  expectError([&] { simplify(kPits, p); }, "constraint vertex 15");
}

TEST(TopologicalSimplification, ProgressAndAbort) {
  ts::Parameters p;
  p.persistenceThreshold = 4.5;
  expectProgressAndAbort([&](const Monitor& m) { simplify(kPits, p, m); });
}

TEST(TopologicalSimplification, GpuRequestWithoutDeviceRunsOnTheCpu) {
  if (gpuAvailable())
    GTEST_SKIP() << "a device is present";
  ts::Parameters p;
  p.persistenceThreshold = 4.5;
  p.backend = Backend::Gpu;
  const ts::Output out = simplify(kPits, p);
  EXPECT_EQ(out.report.backend, "cpu");
  EXPECT_EQ(valuesOf(out)[6], 5.0f);
}

} // namespace
} // namespace topogpu::test
