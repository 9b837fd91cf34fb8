// The geodesic distance's end-to-end costs (core/eikonal/Preparation.h, SolverChoice.h):
// the mesh setup kept between runs on one mesh and reused only while the cells, points,
// speed and setup parameters are unchanged (results against fresh runs, FMM being
// deterministic, so bit for bit), and auto's cost model (its choices without a device).
#include "core/common/DeviceWarmUp.h"
#include "core/eikonal/Eikonal.h"
#include "core/eikonal/Preparation.h"
#include "core/eikonal/Problem.h"
#include "core/eikonal/SolverChoice.h"
#include "tests/unit/EikonalMeshes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace topogpu;
using namespace topogpu::eikonal;

namespace {

bool hasStage(const RunReport& report, const std::string& stage) {
  for (const auto& [name, seconds] : report.timings) {
    if (name == stage)
      return true;
  }
  return false;
}

// FMM from seeds on s (its own triangulation each time unless tri is given).
Result run(const Surface& s, const std::vector<SimplexId>& seeds, Preparation* kept,
           RunReport& report, Parameters p = {}, ExplicitTriangulation* tri = nullptr) {
  ExplicitTriangulation own(s.vertices(), 2, s.cells);
  p.seeds = seeds;
  p.solver = Solver::Fmm;
  Result r;
  execute(tri ? *tri : own, s.points.data(), p, Monitor{}, r, report, kept);
  return r;
}

} // namespace

// The device's start on a thread of its own (here without a device: the thread finds
// none at once). First in the file: the start is once per process.
TEST(DeviceWarmUp, StartsOnceAndSaysHowLongItWaited) {
  EXPECT_EQ(deviceReadyIn(), kDeviceStartSeconds) << "none begun: a whole start ahead";
  EXPECT_EQ(waitForDevice(), 0.0) << "nothing to wait for";
  warmUpDevice();
  warmUpDevice(); // once
  const double waited = waitForDevice();
  EXPECT_GE(waited, 0.0);
  EXPECT_LT(waited, 60.0);
  EXPECT_EQ(deviceReadyIn(), 0.0);
  EXPECT_LT(waitForDevice(), 0.05);
}

TEST(EikonalReuse, ChangedSeedsReuseTheMeshSetup) {
  const Surface s = square(40, 1.0, 0.3, 3);
  Preparation kept;
  RunReport report;
  run(s, {5}, &kept, report);
  EXPECT_TRUE(hasStage(report, "mesh setup")) << "first run built it";
  EXPECT_TRUE(kept.hasMesh);
  // Another triangulation object of the same cells (the filter may rebuild it).
  ExplicitTriangulation again(s.vertices(), 2, s.cells);
  const Result reused = run(s, {700, 3}, &kept, report, {}, &again);
  EXPECT_TRUE(hasStage(report, "mesh setup (cached)"));
  RunReport freshReport;
  const Result fresh = run(s, {700, 3}, nullptr, freshReport);
  EXPECT_EQ(reused.distance, fresh.distance);
  EXPECT_EQ(reused.seedIdentifier, fresh.seedIdentifier);
  EXPECT_EQ(reused.localSolves, fresh.localSolves);
  EXPECT_GT(kept.bytes(), std::size_t(0));
}

TEST(EikonalReuse, AnyChangeOfWhatTheSetupReadsRebuildsIt) {
  const Surface base = square(30, 1.0, 0.3, 4);
  std::vector<double> speed(std::size_t(base.vertices()), 1.0);
  speed[100] = 3.0;
  // Each variant changes one input of the mesh setup; reusing the kept setup there
  // would give other distances than a fresh run.
  struct Variant {
    const char* what;
    Surface surface;
    Parameters parameters;
  };
  std::vector<Variant> variants;
  Variant moved{"a moved point", base, {}};
  moved.surface.points[3 * 200 + 1] += 0.01;
  variants.push_back(moved);
  Variant flipped{"other cells", base, {}};
  // The first grid cell (vertices a b / c d) cut by its other diagonal.
  const SimplexId a = 0, b = 1, c = 30, d = 31;
  const bool byAD = base.cells[2] == d;
  const std::vector<SimplexId> other = byAD ? std::vector<SimplexId>{a, b, c, b, d, c}
                                            : std::vector<SimplexId>{a, b, d, a, d, c};
  std::copy(other.begin(), other.end(), flipped.surface.cells.begin());
  variants.push_back(flipped);
  Variant faster{"a constant speed", base, {}};
  faster.parameters.speed = 2.0;
  variants.push_back(faster);
  Variant vertexSpeed{"a speed array", base, {}};
  vertexSpeed.parameters.speedKind = SpeedKind::PerVertex;
  vertexSpeed.parameters.speedValues = speed.data();
  variants.push_back(vertexSpeed);
  Variant steps{"the unfolding steps", base, {}};
  steps.parameters.maxUnfoldingSteps = 1;
  variants.push_back(steps);
  Variant plain{"no unfolding", base, {}};
  plain.parameters.unfoldObtuseAngles = false;
  variants.push_back(plain);
  for (const Variant& v : variants) {
    Preparation kept;
    RunReport report;
    run(base, {0}, &kept, report);
    const std::uint64_t before = kept.meshKey;
    const Result changed = run(v.surface, {0}, &kept, report, v.parameters);
    EXPECT_TRUE(hasStage(report, "mesh setup")) << v.what << ": the kept setup was used";
    EXPECT_NE(kept.meshKey, before) << v.what;
    RunReport freshReport;
    const Result fresh = run(v.surface, {0}, nullptr, freshReport, v.parameters);
    EXPECT_EQ(changed.distance, fresh.distance) << v.what;
  }
  // The speed array's values too (same pointer, new contents).
  Preparation kept;
  RunReport report;
  Parameters p;
  p.speedKind = SpeedKind::PerVertex;
  p.speedValues = speed.data();
  run(base, {0}, &kept, report, p);
  speed[200] = 0.25;
  const Result changed = run(base, {0}, &kept, report, p);
  EXPECT_TRUE(hasStage(report, "mesh setup"));
  RunReport freshReport;
  EXPECT_EQ(changed.distance, run(base, {0}, nullptr, freshReport, p).distance);
}

TEST(EikonalReuse, FingerprintsSeparateThePatchSettings) {
  Parameters p;
  const std::uint64_t key = patchFingerprint(42, p);
  Parameters q = p;
  q.patchSize = 32;
  EXPECT_NE(patchFingerprint(42, q), key);
  q = p;
  q.useMetis = true;
  EXPECT_NE(patchFingerprint(42, q), key);
  EXPECT_NE(patchFingerprint(43, p), key);
  q = p;
  q.seeds = {1, 2, 3};
  q.solver = Solver::Fmm;
  q.stopDistance = 1.0;
  EXPECT_EQ(patchFingerprint(42, q), key) << "seeds, solver, stop distance are free";
}

TEST(EikonalReuse, BadInputLeavesNothingKept) {
  const Surface s = square(10);
  Preparation kept;
  RunReport report;
  Parameters p;
  p.speed = -1;
  EXPECT_THROW(run(s, {0}, &kept, report, p), Error);
  EXPECT_FALSE(kept.hasMesh);
  run(s, {0}, &kept, report);
  EXPECT_TRUE(kept.hasMesh && hasStage(report, "mesh setup"));
}

// The exact start's memory kept between runs (ExactWorkspace: per-vertex arrays reset
// only where a run touched them, the bends found so far) gives what a fresh one gives,
// run after run: balls of other seeds and radii, one cut short by the window bound, on
// a bumpy jittered square whose saddles and boundary make pseudo-sources.
TEST(EikonalReuse, KeptExactStartMemoryEqualsAFreshOne) {
  Surface s = square(40, 1.0, 0.3, 7);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> height(-0.02, 0.02);
  for (SimplexId v = 0; v < s.vertices(); ++v)
    s.points[3 * v + 2] = height(rng);
  ExplicitTriangulation tri(s.vertices(), 2, s.cells);
  tri.precondition(kRequiredRelations);
  detail::Mesh mesh;
  detail::buildMesh(tri, s.points.data(), Parameters{}, mesh);
  struct Case {
    std::vector<SimplexId> seeds;
    double radius; // input units
    std::size_t maxWindows;
  };
  const std::vector<Case> cases = {
      {{5}, 0.2, 1 << 20}, {{800, 3}, 0.5, 1 << 20},    {{5}, 0.2, 1 << 20},
      {{820}, 0.9, 300},   {{1599}, HUGE_VAL, 1 << 20}, {{700, 701, 702}, 0.05, 1 << 20}};
  // Saddles: interior vertices whose angles sum to more than 2 pi (paths bend there).
  std::vector<double> angleSum(std::size_t(s.vertices()), 0.0);
  for (SimplexId t = 0; t < s.triangles(); ++t)
    for (int k = 0; k < 3; ++k) {
      const double* o = &s.points[3 * s.cells[3 * t + k]];
      const double* a = &s.points[3 * s.cells[3 * t + (k + 1) % 3]];
      const double* b = &s.points[3 * s.cells[3 * t + (k + 2) % 3]];
      double u[3], w[3];
      for (int c = 0; c < 3; ++c) {
        u[c] = a[c] - o[c];
        w[c] = b[c] - o[c];
      }
      angleSum[std::size_t(s.cells[3 * t + k])] +=
          std::acos((u[0] * w[0] + u[1] * w[1] + u[2] * w[2]) /
                    (std::hypot(u[0], u[1], u[2]) * std::hypot(w[0], w[1], w[2])));
    }
  SimplexId saddles = 0;
  for (SimplexId v = 0; v < s.vertices(); ++v)
    saddles += !tri.isVertexOnBoundary(v) && angleSum[std::size_t(v)] > 2 * M_PI + 1e-6;
  EXPECT_GT(saddles, 100);
  detail::ExactWorkspace kept;
  for (const Case& c : cases) {
    const double radius = std::ldexp(c.radius, -mesh.lengthExponent);
    detail::ExactBall reused, fresh;
    detail::exactDistancesNearSeeds(mesh, c.seeds, radius, c.maxWindows, kept, reused);
    detail::ExactWorkspace own;
    detail::exactDistancesNearSeeds(mesh, c.seeds, radius, c.maxWindows, own, fresh);
    EXPECT_FALSE(fresh.vertices.empty());
    EXPECT_TRUE(std::is_sorted(fresh.vertices.begin(), fresh.vertices.end()));
    EXPECT_EQ(reused.vertices, fresh.vertices) << "seed " << c.seeds[0];
    EXPECT_EQ(reused.distance, fresh.distance) << "seed " << c.seeds[0];
    EXPECT_EQ(reused.label, fresh.label) << "seed " << c.seeds[0];
    EXPECT_EQ(reused.radius, fresh.radius) << "seed " << c.seeds[0];
    EXPECT_EQ(reused.windows, fresh.windows) << "seed " << c.seeds[0];
    if (c.maxWindows == 300) {
      EXPECT_LT(fresh.radius, radius) << "the window bound cut it short";
    }
  }
  EXPECT_GT(kept.bytes(), std::size_t(0));
}

// The start as a list (what the device uploads), against the flat square's oracle: on a
// convex flat domain the geodesic distance is the Euclidean one, so the list holds
// exactly the vertices within the radius of a seed, each at its Euclidean distance to
// the nearest seed (in the mesh's units) with that seed's id, the seeds at 0 with their
// own ids, each vertex once, in increasing order; expandStart spreads it per vertex.
TEST(EikonalReuse, StartListHoldsTheSeedsAndTheExactBall) {
  const Surface s = square(30, 1.0, 0.2, 4);
  ExplicitTriangulation tri(s.vertices(), 2, s.cells);
  tri.precondition(kRequiredRelations);
  Parameters p;
  p.seeds = {450, 3, 450, 899};
  p.exactStartRadius = 0.1;
  detail::Mesh mesh;
  detail::buildMesh(tri, s.points.data(), p, mesh);
  detail::ExactWorkspace kept;
  for (int pass = 0; pass < 2; ++pass) {
    detail::FixedStart start;
    detail::fixedStart(mesh, p, &kept, start);
    const FixedVertices& f = start.fixed;
    ASSERT_EQ(f.value.size(), f.vertex.size());
    ASSERT_EQ(f.label.size(), f.vertex.size());
    EXPECT_TRUE(std::adjacent_find(f.vertex.begin(), f.vertex.end(),
                                   std::greater_equal<SimplexId>()) == f.vertex.end())
        << "increasing and distinct";
    EXPECT_EQ(std::ldexp(start.exactRadius, mesh.lengthExponent), 0.1);
    std::vector<SimplexId> expected;
    for (SimplexId v = 0; v < s.vertices(); ++v) {
      double nearest = HUGE_VAL;
      SimplexId seed = -1;
      for (SimplexId q : {SimplexId(3), SimplexId(450), SimplexId(899)}) {
        const double d = std::hypot(s.points[3 * v] - s.points[3 * q],
                                    s.points[3 * v + 1] - s.points[3 * q + 1]);
        if (d < nearest) {
          nearest = d;
          seed = q;
        }
      }
      if (nearest > 0.1)
        continue;
      expected.push_back(v);
      const auto at = std::lower_bound(f.vertex.begin(), f.vertex.end(), v);
      ASSERT_TRUE(at != f.vertex.end() && *at == v) << "vertex " << v << " missing";
      const std::size_t i = std::size_t(at - f.vertex.begin());
      EXPECT_NEAR(f.value[i], detail::inMeshUnits(mesh, nearest),
                  1e-12 * detail::inMeshUnits(mesh, 1.0))
          << "vertex " << v;
      EXPECT_EQ(f.label[i], seed) << "vertex " << v;
      if (v == seed) {
        EXPECT_EQ(f.value[i], 0.0);
      }
    }
    EXPECT_EQ(f.vertex, expected);
    detail::Start full;
    detail::expandStart(start, mesh.vertices, full);
    EXPECT_EQ(full.exactVertices, SimplexId(expected.size()));
    for (SimplexId v = 0; v < s.vertices(); ++v) {
      const bool listed = std::binary_search(f.vertex.begin(), f.vertex.end(), v);
      EXPECT_EQ(full.fixed[v], listed ? 1 : 0);
      if (!listed) {
        EXPECT_TRUE(full.value[v] == HUGE_VAL && full.label[v] == -1);
      }
    }
  }
  // No exact start: the seeds alone, once each, in order.
  p.exactStartRadius = 0;
  detail::FixedStart seedsOnly;
  detail::fixedStart(mesh, p, &kept, seedsOnly);
  EXPECT_EQ(seedsOnly.fixed.vertex, (std::vector<SimplexId>{3, 450, 899}));
  EXPECT_EQ(seedsOnly.fixed.value, (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(seedsOnly.fixed.label, (std::vector<SimplexId>{3, 450, 899}));
  EXPECT_EQ(seedsOnly.exactRadius, 0.0);
}

// What the device solver keeps (Preparation::device; here a counting stand-in, as no
// device runs in this test) lives as long as the mesh it belongs to: kept across changes
// of seeds, released when the mesh changes or the Preparation goes.
struct CountingResident : gpu::PatchFimResident {
  static int alive;
  CountingResident() { ++alive; }
  ~CountingResident() override { --alive; }
};
int CountingResident::alive = 0;

TEST(EikonalReuse, KeptDeviceStateLivesWithItsMesh) {
  const Surface s = square(30, 1.0, 0.3, 5);
  {
    Preparation kept;
    RunReport report;
    run(s, {5}, &kept, report);
    kept.device = std::make_unique<CountingResident>();
    run(s, {200, 7}, &kept, report);
    EXPECT_TRUE(hasStage(report, "mesh setup (cached)"));
    EXPECT_EQ(CountingResident::alive, 1) << "a change of seeds keeps it";
    Surface moved = s;
    moved.points[std::size_t(3 * 100)] += 0.01;
    run(moved, {5}, &kept, report);
    EXPECT_TRUE(hasStage(report, "mesh setup"));
    EXPECT_EQ(CountingResident::alive, 0) << "a new mesh releases it";
    kept.device = std::make_unique<CountingResident>();
    EXPECT_EQ(CountingResident::alive, 1);
  }
  EXPECT_EQ(CountingResident::alive, 0) << "the Preparation's end releases it";
}

// Runs on a kept Preparation (its exact start memory reused) equal fresh runs bit for
// bit (FMM and meshFIM are deterministic), seed change after seed change, with every
// stage of the run timed (the report's stages are the run's whole time but a little).
TEST(EikonalReuse, SeedChangesOnAKeptPreparationEqualFreshRuns) {
  Surface s = square(50, 1.0, 0.3, 9);
  for (SimplexId v = 0; v < s.vertices(); ++v)
    s.points[3 * v + 2] = 0.05 * std::sin(7.0 * s.points[3 * v]) * s.points[3 * v + 1];
  for (Solver solver : {Solver::Fmm, Solver::Fim}) {
    Preparation kept;
    ExplicitTriangulation tri(s.vertices(), 2, s.cells);
    for (const std::vector<SimplexId>& seeds :
         {std::vector<SimplexId>{1275}, {3, 2400}, {1275}, {49}, {600, 601, 1800}}) {
      Parameters p;
      p.solver = solver;
      RunReport report, freshReport;
      const Result reused = run(s, seeds, &kept, report, p, &tri);
      const Result fresh = run(s, seeds, nullptr, freshReport, p);
      EXPECT_EQ(reused.distance, fresh.distance) << solverName(solver);
      EXPECT_EQ(reused.seedIdentifier, fresh.seedIdentifier) << solverName(solver);
      EXPECT_EQ(reused.exactVertices, fresh.exactVertices);
      EXPECT_EQ(reused.exactRadius, fresh.exactRadius);
      EXPECT_GT(reused.exactVertices, SimplexId(seeds.size()));
      EXPECT_TRUE(hasStage(report, "exact start") && hasStage(report, "input units"));
    }
  }
}

// auto's model: patchFIM where its partition (unless kept), device start (unless warm)
// and transfers cost less than meshFIM-MT's solve.
TEST(EikonalAutoCosts, SmallMeshesStayOnTheCpu) {
  // Tiny meshes: a kernel launch and a few rounds cost more than the whole CPU solve,
  // even with everything ready and warm.
  for (SimplexId n : {SimplexId(100), SimplexId(500)}) {
    for (int threads : {1, 2, 16}) {
      AutoInputs in;
      in.vertices = n;
      in.cpuThreads = threads;
      in.patchesReady = true;
      EXPECT_FALSE(autoPrefersGpu(in)) << n << " vertices, " << threads << " threads";
    }
  }
  // One-off runs on the GPU hosts' 16 cores (the CLI's): the shared surfaces' sizes
  // (26k-100k vertices) solve faster on the CPU than their partition costs
  // (docs/benchmarks.md: armadillo fim-mt 0.015 s in all, gpu 0.020 s).
  for (SimplexId n : {SimplexId(10000), SimplexId(26000), SimplexId(100000)}) {
    AutoInputs in;
    in.vertices = n;
    in.cpuThreads = 16;
    EXPECT_FALSE(autoPrefersGpu(in)) << n << " vertices";
    // Kept patches and a warm device make it worth it from a few ten thousand on
    // (armadillo's solve alone: gpu 0.0020 s, fim-mt 0.0077 s).
    in.patchesReady = true;
    EXPECT_EQ(autoPrefersGpu(in), n >= 26000) << n << " vertices, patches kept";
  }
}

TEST(EikonalAutoCosts, KeptPatchesAndAWarmDeviceWinOnLargeMeshes) {
  AutoInputs in;
  in.vertices = 1000000;
  in.cpuThreads = 16;
  in.patchesReady = true;
  EXPECT_TRUE(autoPrefersGpu(in));
  const AutoCosts costs = estimateAutoCosts(in);
  EXPECT_GT(costs.cpu, 5 * costs.gpu) << "a seed change on 1M vertices";
  // The device still starting: its remaining time counts.
  in.deviceReadyIn = 0.3;
  EXPECT_FALSE(autoPrefersGpu(in));
  EXPECT_NEAR(estimateAutoCosts(in).gpu - costs.gpu, 0.3, 1e-12);
}

TEST(EikonalAutoCosts, ThePartitionCountsUnlessShared) {
  AutoInputs in;
  in.vertices = 1000000;
  in.cpuThreads = 16;
  const AutoCosts cold = estimateAutoCosts(in);
  in.patchesReady = true;
  const AutoCosts ready = estimateAutoCosts(in);
  EXPECT_EQ(cold.cpu, ready.cpu);
  EXPECT_GT(cold.gpu, ready.gpu + 0.05) << "the partition of 1M vertices is not free";
  // A one-off run (the CLI's) on 16 cores: meshFIM-MT's solve is cheaper than building
  // the patches; a filter's rerun shares them with the reruns to come.
  in.patchesReady = false;
  EXPECT_FALSE(autoPrefersGpu(in));
  in.reruns = kExpectedReruns;
  EXPECT_TRUE(autoPrefersGpu(in));
  // Fewer cores: meshFIM-MT slows down faster than the partition.
  in.reruns = 0;
  in.cpuThreads = 2;
  EXPECT_TRUE(autoPrefersGpu(in));
  // Costs grow with the mesh; nothing is negative.
  AutoInputs small = in, large = in;
  small.vertices = 1000;
  large.vertices = 10000000;
  EXPECT_LT(estimateAutoCosts(small).gpu, estimateAutoCosts(in).gpu);
  EXPECT_LT(estimateAutoCosts(in).gpu, estimateAutoCosts(large).gpu);
  EXPECT_LT(estimateAutoCosts(small).cpu, estimateAutoCosts(large).cpu);
  AutoInputs none;
  EXPECT_GE(estimateAutoCosts(none).cpu, 0.0);
  EXPECT_GE(estimateAutoCosts(none).gpu, 0.0);
}

// Without a device, auto and gpu still run meshFIM-MT (the model never forces a GPU),
// with the kept setup reused.
TEST(EikonalAutoCosts, WithoutADeviceAutoRunsFimMt) {
  const Surface s = square(60, 1.0, 0.2, 6);
  Preparation kept;
  for (Solver solver : {Solver::Auto, Solver::Gpu, Solver::Auto}) {
    ExplicitTriangulation tri(s.vertices(), 2, s.cells);
    Parameters p;
    p.seeds = {0};
    p.solver = solver;
    Result r;
    RunReport report;
    execute(tri, s.points.data(), p, Monitor{}, r, report, &kept);
    EXPECT_EQ(r.solver, Solver::FimMt);
    EXPECT_EQ(report.backend, "cpu");
    EXPECT_EQ(r.unreached, 0);
  }
}
