// The GALE triangulation (triangulation/gale): every relation against the brute-force
// complex (small random meshes) and against the explicit backend (grids, the shared
// surfaces), critical points identical to the explicit backend's, the segmentation's
// invariants, concurrency (many consumers, tiny caches, batch size 1, 4-vertex
// segments), producer failures delivered to every consumer, and bad input.
#include "BruteForce.h"
#include "GaleChecks.h"
#include "TriangulationChecks.h"
#include "UnitHelpers.h"

#include "core/critical_points/CriticalPoints.h"
#include "core/discrete_gradient/SimplicialGradient.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/gale/CellSegments.h"
#include "triangulation/gale/GaleTriangulation.h"
#include "triangulation/io/MeshFiles.h"

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <mutex>
#include <numeric>
#include <random>
#include <set>
#include <thread>

namespace topogpu::test {
namespace {

#ifdef __SANITIZE_THREAD__
// Debian's libtbb is not instrumented, so ThreadSanitizer cannot see a parallel_for's
// join and reports every write made in one: TBB runs on one thread in that build, and
// TSan checks GALE's own threads (leaders, request queues, caches, thread-local
// handles, the consumers' std::threads).
const tbb::global_control oneTbbThread(tbb::global_control::max_allowed_parallelism, 1);
#endif

std::vector<double> randomPoints(SimplexId n, std::mt19937& rng) {
  std::uniform_real_distribution<double> coordinate(-1.0, 1.0);
  std::vector<double> points(std::size_t(n) * 3);
  for (double& x : points)
    x = coordinate(rng);
  return points;
}

std::vector<Tuple> shuffledCells(std::vector<Tuple> cells, std::mt19937& rng) {
  std::shuffle(cells.begin(), cells.end(), rng);
  for (Tuple& c : cells)
    std::shuffle(c.begin(), c.end(), rng);
  return cells;
}

gale::Parameters tiny(SimplexId capacity, int cache, int perRequest) {
  gale::Parameters p;
  p.segmentCapacity = capacity;
  p.cacheSegments = cache;
  p.segmentsPerRequest = perRequest;
  return p;
}

TEST(Gale, RandomMeshesMatchBruteForceAndExplicit) {
  std::mt19937 rng(2024);
  for (int index = 0; index < 48; ++index) {
    const RandomMesh mesh = randomMesh(index, rng);
    const BruteComplex ref(mesh.numberOfVertices, mesh.dimension, mesh.cells);
    const std::vector<double> points =
        index % 3 == 0 ? std::vector<double>() : randomPoints(mesh.numberOfVertices, rng);
    const gale::Parameters parameters =
        tiny(SimplexId(1 + index % 5), 1 + index % 3, 1 + index % 4);
    GaleTriangulation g(mesh.numberOfVertices, mesh.dimension, flatten(mesh.cells),
                        points, parameters);
    g.precondition(AllRelations);
    const std::string what = "random mesh " + std::to_string(index);
    compareWithBruteForce(g, ref, what);
    checkFind(g, ref);
    ExplicitTriangulation e(mesh.numberOfVertices, mesh.dimension, flatten(mesh.cells));
    e.precondition(AllRelations);
    compareWithExplicit(g, e, what);
  }
}

// Relations asked one at a time (and the vertex star under both names): each works
// alone, and a later precondition (edges added) must not leave stale cached segments.
TEST(Gale, PreconditionOneRelationAtATime) {
  std::mt19937 rng(5);
  for (int index = 2; index < 4; ++index) {
    const RandomMesh mesh = randomMesh(index, rng);
    const BruteComplex ref(mesh.numberOfVertices, mesh.dimension, mesh.cells);
    GaleTriangulation g(mesh.numberOfVertices, mesh.dimension, flatten(mesh.cells),
                        randomPoints(mesh.numberOfVertices, rng), tiny(3, 2, 2));
    g.precondition(BoundaryVertices);
    const auto boundary = ref.boundary(0);
    for (SimplexId v = 0; v < g.getNumberOfVertices(); ++v)
      EXPECT_EQ(g.isVertexOnBoundary(v), boundary.count({v}) > 0) << v;
    for (const Relations r :
         {VV, VE, VF, VT, EF, ET, FT, TT, Boundary, EV, FV, FE, TE, TF})
      g.precondition(r);
    compareWithBruteForce(g, ref, "one at a time " + std::to_string(index));
  }
}

TEST(Gale, TetrahedralizedGridsMatchExplicit) {
  std::mt19937 rng(3);
  struct Case {
    SimplexId nx, ny, nz;
    bool ttk;
  };
  for (const Case c : {Case{9, 8, 7, false}, Case{6, 7, 5, true}, Case{30, 20, 1, false},
                       Case{17, 1, 13, true}}) {
    const std::vector<Tuple> cells = shuffledCells(
        c.ttk ? ttkGridCells(c.nx, c.ny, c.nz) : kuhnCells(c.nx, c.ny, c.nz), rng);
    const int dim = int(cells.front().size()) - 1;
    const SimplexId nv = c.nx * c.ny * c.nz;
    ExplicitTriangulation e(nv, dim, flatten(cells));
    e.precondition(AllRelations);
    for (const SimplexId capacity : {SimplexId(7), SimplexId(100)}) {
      auto g = GaleTriangulation::fromExplicit(e, gridPoints(c.nx, c.ny, c.nz),
                                               tiny(capacity, 8, 4));
      g->precondition(AllRelations);
      compareWithExplicit(*g, e,
                          std::to_string(c.nx) + "x" + std::to_string(c.ny) + "x" +
                              std::to_string(c.nz) + " N=" + std::to_string(capacity));
    }
  }
}

std::string surfacePath(const std::string& name) {
  return sharedDataDir() + "/surfaces/" + name;
}

TEST(Gale, SharedSurfacesMatchExplicit) {
  int done = 0;
  for (const char* name : {"cgal_sphere.off", "cgal_larger_sphere.off", "cgal_knot1.off",
                           "ttk_inputData_terrain.off", "gudhi_human.off"}) {
    if (!std::ifstream(surfacePath(name))) {
      std::cout << "[ skipped ] " << surfacePath(name) << " missing\n";
      continue;
    }
    io::SurfaceMesh mesh = io::readOff(surfacePath(name));
    ExplicitTriangulation e(mesh.numberOfVertices(), 2, mesh.cells);
    e.precondition(AllRelations);
    auto g = GaleTriangulation::fromExplicit(e, mesh.points, tiny(50, 16, 4));
    g->precondition(AllRelations);
    compareWithExplicit(*g, e, name);
    ++done;
  }
  if (done == 0)
    GTEST_SKIP() << "no shared surface found under " << sharedDataDir();
}

template <typename Tri>
critical_points::Output criticalPointsOf(Tri& tri, const std::vector<float>& f) {
  critical_points::Output out;
  critical_points::execute(
      tri, ScalarArrayView{f.data(), ScalarType::Float32, SimplexId(f.size())},
      {Backend::Cpu}, Monitor{}, out);
  return out;
}

void expectSameCriticalPoints(const critical_points::Output& a,
                              const critical_points::Output& b, const std::string& what) {
  EXPECT_EQ(a.vertexTypes, b.vertexTypes) << what;
  EXPECT_EQ(a.criticalVertices, b.criticalVertices) << what;
  EXPECT_EQ(a.criticalOnBoundary, b.criticalOnBoundary) << what;
  EXPECT_EQ(a.counts, b.counts) << what;
  EXPECT_EQ(a.report.warnings, b.report.warnings) << what;
}

TEST(Gale, CriticalPointsIdenticalToExplicit) {
  std::mt19937 rng(9);
  // a tetrahedralized grid with a noisy field (many critical points, plateaus too)
  {
    const SimplexId nx = 14, ny = 12, nz = 10, nv = nx * ny * nz;
    ExplicitTriangulation e(nv, 3, flatten(shuffledCells(kuhnCells(nx, ny, nz), rng)));
    auto g = GaleTriangulation::fromExplicit(e, gridPoints(nx, ny, nz), tiny(20, 4, 2));
    std::uniform_int_distribution<int> value(0, 40);
    std::vector<float> f(nv);
    for (float& x : f)
      x = float(value(rng));
    const auto a = criticalPointsOf(e, f), b = criticalPointsOf(*g, f);
    EXPECT_GT(a.criticalVertices.size(), 10u);
    expectSameCriticalPoints(a, b, "grid");
  }
  // random non-manifold meshes (the warnings must match too)
  for (int index = 0; index < 16; ++index) {
    const RandomMesh mesh = randomMesh(index, rng);
    ExplicitTriangulation e(mesh.numberOfVertices, mesh.dimension, flatten(mesh.cells));
    auto g = GaleTriangulation::fromExplicit(e, randomPoints(mesh.numberOfVertices, rng),
                                             tiny(3, 2, 1));
    std::vector<float> f(mesh.numberOfVertices);
    for (float& x : f)
      x = float(rng() % 7);
    expectSameCriticalPoints(criticalPointsOf(e, f), criticalPointsOf(*g, f),
                             "random mesh " + std::to_string(index));
  }
  // a shared surface with its height as the field
  if (std::ifstream(surfacePath("cgal_knot1.off"))) {
    io::SurfaceMesh mesh = io::readOff(surfacePath("cgal_knot1.off"));
    ExplicitTriangulation e(mesh.numberOfVertices(), 2, mesh.cells);
    auto g = GaleTriangulation::fromExplicit(e, mesh.points);
    std::vector<float> f(mesh.numberOfVertices());
    for (SimplexId v = 0; v < mesh.numberOfVertices(); ++v)
      f[v] = float(mesh.points[3 * v + 2]);
    expectSameCriticalPoints(criticalPointsOf(e, f), criticalPointsOf(*g, f), "knot");
  }
}

// The octree leaves: a permutation into contiguous segments of at most N vertices (the
// points are distinct), and, leaves being disjoint boxes, no two segments' bounding
// boxes overlap with positive volume. Packed (the default), the same renumbering cut
// at a subset of the leaves' boundaries into segments of at most N that no two
// neighbours could share (the packing is greedy).
TEST(Gale, SegmentationIsAPermutationIntoSmallSegments) {
  std::mt19937 rng(1);
  const SimplexId n = 5000;
  std::vector<Tuple> cells;
  for (SimplexId v = 0; v + 3 < n; v += 2)
    cells.push_back({v, v + 1, v + 2, v + 3});
  for (const SimplexId capacity : {SimplexId(1), SimplexId(4), SimplexId(100)}) {
    const std::vector<double> points = randomPoints(n, rng);
    gale::Parameters leafParameters = tiny(capacity, 4, 4);
    leafParameters.packLeaves = false;
    GaleTriangulation g(n, 3, flatten(cells), points, leafParameters);
    GaleTriangulation packed(n, 3, flatten(cells), points, tiny(capacity, 4, 4));
    std::set<SimplexId> leafStarts;
    for (SimplexId s = 0; s <= g.getNumberOfSegments(); ++s)
      leafStarts.insert(g.segmentStart(s));
    for (SimplexId s = 0; s < packed.getNumberOfSegments(); ++s) {
      EXPECT_EQ(leafStarts.count(packed.segmentStart(s)), 1u);
      const SimplexId size = packed.segmentStart(s + 1) - packed.segmentStart(s);
      EXPECT_LE(size, capacity);
      if (s + 1 < packed.getNumberOfSegments()) {
        EXPECT_GT(packed.segmentStart(s + 2) - packed.segmentStart(s), capacity);
      }
    }
    for (SimplexId v = 0; v < n; ++v)
      EXPECT_EQ(packed.newId(v), g.newId(v));
    std::vector<char> seen(n, 0);
    for (SimplexId p = 0; p < n; ++p) {
      const SimplexId v = g.getVertexInProcessingOrder(p);
      ASSERT_TRUE(v >= 0 && v < n && !seen[v]);
      seen[v] = 1;
      EXPECT_EQ(g.newId(v), p);
    }
    EXPECT_EQ(g.segmentStart(0), 0);
    EXPECT_EQ(g.segmentStart(g.getNumberOfSegments()), n);
    for (SimplexId s = 0; s < g.getNumberOfSegments(); ++s) {
      const SimplexId size = g.segmentStart(s + 1) - g.segmentStart(s);
      EXPECT_GE(size, 1);
      EXPECT_LE(size, capacity);
    }
    EXPECT_GE(g.getNumberOfSegments(), (n + capacity - 1) / capacity);
    if (capacity == 1)
      continue;
    std::vector<std::array<double, 6>> boxes(g.getNumberOfSegments());
    for (SimplexId s = 0; s < g.getNumberOfSegments(); ++s) {
      auto& b = boxes[s];
      b = {1e9, 1e9, 1e9, -1e9, -1e9, -1e9};
      for (SimplexId p = g.segmentStart(s); p < g.segmentStart(s + 1); ++p)
        for (int a = 0; a < 3; ++a) {
          b[a] = std::min(b[a], points[3 * g.oldId(p) + a]);
          b[a + 3] = std::max(b[a + 3], points[3 * g.oldId(p) + a]);
        }
    }
    int overlaps = 0;
    for (std::size_t s = 0; s < boxes.size(); ++s)
      for (std::size_t t = s + 1; t < boxes.size(); ++t) {
        bool all = true;
        for (int a = 0; a < 3; ++a)
          all &= boxes[s][a] < boxes[t][a + 3] && boxes[t][a] < boxes[s][a + 3];
        overlaps += all;
      }
    EXPECT_EQ(overlaps, 0) << "N=" << capacity;
  }
}

// The wrapped CPU producer, computing on the leader only (as the GPU producer does for
// the relations it runs on the device): consumers queue and wait, leaders run ahead.
class LeaderOnlyProducer : public gale::SegmentProducer {
public:
  std::string name() const override { return "leader-only"; }
  void compute(const GaleTriangulation& mesh, gale::ServedRelation relation,
               const std::vector<SimplexId>& segments,
               std::vector<gale::SegmentPointer>& out) override {
    cpu_->compute(mesh, relation, segments, out);
  }

private:
  std::shared_ptr<gale::SegmentProducer> cpu_ = gale::makeCpuProducer();
};

// As the GPU producer splits the work: VV and the star on the leader only, the other
// relations (VE from VV's rows when cached, the boundary flags) by the consumers.
class MixedProducer : public gale::SegmentProducer {
public:
  std::string name() const override { return "mixed"; }
  void compute(const GaleTriangulation& mesh, gale::ServedRelation relation,
               const std::vector<SimplexId>& segments,
               std::vector<gale::SegmentPointer>& out) override {
    cpu_->compute(mesh, relation, segments, out);
  }
  // As the GPU producer's launches: the batch handed out in parts, one segment each.
  void computeStreaming(const GaleTriangulation& mesh, gale::ServedRelation relation,
                        const std::vector<SimplexId>& segments,
                        std::vector<gale::SegmentPointer>& out,
                        const Ready& ready) override {
    out.assign(segments.size(), nullptr);
    for (std::size_t k = 0; k < segments.size(); ++k) {
      out[k] = gale::computeSegmentCpu(mesh, relation, segments[k]);
      ready(k, k + 1);
    }
  }
  bool consumersMayCompute(gale::ServedRelation relation) const override {
    return relation != gale::kVertexNeighbors && relation != gale::kVertexStar;
  }
  void computeSiblings(const GaleTriangulation& mesh, gale::ServedRelation relation,
                       SimplexId segment) override {
    cpu_->computeSiblings(mesh, relation, segment);
  }

private:
  std::shared_ptr<gale::SegmentProducer> cpu_ = gale::makeCpuProducer();
};

// Many consumer threads reading VV, the star and the boundary flags in random order
// through a cache of one or two segments, batch size 1 and 4-vertex segments: every
// answer must equal the explicit backend's (evictions never free a segment being read).
TEST(Gale, StressManyConsumersTinyCache) {
  std::mt19937 rng(17);
  const SimplexId nx = 12, ny = 11, nz = 10, nv = nx * ny * nz;
  ExplicitTriangulation e(nv, 3, flatten(shuffledCells(kuhnCells(nx, ny, nz), rng)));
  e.precondition(VV | VertexStar | BoundaryVertices | EV | ET);
  for (const int cache : {1, 2, -1, -2}) { // negative: leader-only producer
    std::shared_ptr<gale::SegmentProducer> producer;
    if (cache < 0)
      producer = std::make_shared<LeaderOnlyProducer>();
    auto g = GaleTriangulation::fromExplicit(e, gridPoints(nx, ny, nz),
                                             tiny(4, std::abs(cache), 1), producer);
    g->precondition(VV | VertexStar | BoundaryVertices | EV | ET);
    std::atomic<int> mismatches{0};
    std::vector<std::thread> threads;
    threads.reserve(16);
    for (int t = 0; t < 16; ++t) {
      threads.emplace_back([&, t] {
        std::mt19937 local(unsigned(100 + t));
        std::uniform_int_distribution<SimplexId> pick(0, nv - 1);
        for (int k = 0; k < 800; ++k) {
          const SimplexId v = pick(local);
          mismatches += relationOf(*g, 0, 0, v) != relationOf(e, 0, 0, v);
          std::vector<SimplexId> a, b;
          for (int i = 0; i < g->getVertexStarNumber(v); ++i)
            a.push_back(g->getVertexStar(v, i));
          for (int i = 0; i < e.getVertexStarNumber(v); ++i)
            b.push_back(e.getVertexStar(v, i));
          mismatches += a != b;
          mismatches += g->isVertexOnBoundary(v) != e.isVertexOnBoundary(v);
          const SimplexId u = g->getVertexNeighbor(v, 0);
          const SimplexId edge = g->findEdge(u, v);
          std::multiset<SimplexId> ga, eb;
          for (int i = 0; i < g->getEdgeTetNumber(edge); ++i)
            ga.insert(g->getEdgeTet(edge, i));
          const SimplexId ee = e.findEdge(u, v);
          for (int i = 0; i < e.getEdgeTetNumber(ee); ++i)
            eb.insert(e.getEdgeTet(ee, i));
          mismatches += ga != eb;
        }
      });
    }
    for (auto& thread : threads)
      thread.join();
    EXPECT_EQ(mismatches.load(), 0) << "cache " << cache;
    const gale::Statistics stats = g->statistics();
    // the CPU producer's consumers compute what they miss; the leader-only one's queue
    if (cache > 0)
      EXPECT_EQ(stats.segmentsComputedByConsumers, stats.segmentsComputed);
    else
      EXPECT_GT(stats.requests, 0u);
    EXPECT_GE(stats.segmentsComputed, stats.batches);
  }
  // and the TBB consumers of the critical points through the same tiny configuration
  auto g = GaleTriangulation::fromExplicit(e, gridPoints(nx, ny, nz), tiny(4, 1, 1));
  std::vector<float> f(nv);
  for (float& x : f)
    x = float(rng() % 1000);
  expectSameCriticalPoints(criticalPointsOf(e, f), criticalPointsOf(*g, f), "stress");
}

// Wraps the CPU producer and throws on one segment: every consumer waiting on it (and
// every later request of that relation) gets the error, nobody hangs.
class FailingProducer : public gale::SegmentProducer {
public:
  explicit FailingProducer(SimplexId bad, bool help = false)
      : bad_(bad), help_(help), cpu_(gale::makeCpuProducer()) {}
  std::string name() const override { return "failing"; }
  bool consumersMayCompute(gale::ServedRelation) const override { return help_; }
  void compute(const GaleTriangulation& mesh, gale::ServedRelation relation,
               const std::vector<SimplexId>& segments,
               std::vector<gale::SegmentPointer>& out) override {
    for (const SimplexId s : segments)
      if (s == bad_)
        throw std::runtime_error("injected failure");
    cpu_->compute(mesh, relation, segments, out);
  }

private:
  SimplexId bad_;
  bool help_;
  std::shared_ptr<gale::SegmentProducer> cpu_;
};

TEST(Gale, ProducerFailureReachesEveryConsumer) {
  // through the leader (consumers wait) and through the consumers themselves (they
  // compute what they miss)
  for (const bool help : {false, true}) {
    SCOPED_TRACE(help ? "consumers compute" : "leader computes");
    std::mt19937 rng(4);
    const SimplexId nx = 10, ny = 10, nz = 10, nv = nx * ny * nz;
    ExplicitTriangulation e(nv, 3, flatten(kuhnCells(nx, ny, nz)));
    auto g = GaleTriangulation::fromExplicit(e, gridPoints(nx, ny, nz), tiny(10, 4, 1),
                                             std::make_shared<FailingProducer>(5, help));
    std::vector<float> f(nv);
    for (float& x : f)
      x = float(rng() % 100);
    expectError([&] { criticalPointsOf(*g, f); }, "injected failure");
    // many threads asking for the failed segment's vertices: all get the error
    const SimplexId inBad = g->getVertexInProcessingOrder(g->segmentStart(5));
    std::atomic<int> errors{0};
    std::vector<std::thread> threads;
    threads.reserve(8);
    for (int t = 0; t < 8; ++t)
      threads.emplace_back([&] {
        try {
          g->getVertexNeighborNumber(inBad);
        } catch (const Error& error) {
          errors += std::string(error.what()).find("GALE producer 'failing'") !=
                    std::string::npos;
        }
      });
    for (auto& thread : threads)
      thread.join();
    EXPECT_EQ(errors.load(), 8);
    g.reset(); // joins the leaders
  }
}

// The segment-order loop (parallelForVertexBlocks): every position once, blocks inside
// one segment and in the requested range (also cut mid-segment), and the pinned rows
// equal the explicit backend's.
TEST(Gale, SegmentOrderLoopVisitsEveryVertexOnceWithPinnedRows) {
  std::mt19937 rng(21);
  const SimplexId nx = 11, ny = 9, nz = 8, nv = nx * ny * nz;
  ExplicitTriangulation e(nv, 3, flatten(shuffledCells(kuhnCells(nx, ny, nz), rng)));
  e.precondition(VV | VertexStar | BoundaryVertices);
  for (const SimplexId capacity : {SimplexId(1), SimplexId(7), SimplexId(100)}) {
    auto g =
        GaleTriangulation::fromExplicit(e, gridPoints(nx, ny, nz), tiny(capacity, 3, 2));
    g->precondition(VV | VertexStar | BoundaryVertices);
    for (const auto& [first, last] :
         {std::pair<SimplexId, SimplexId>{0, nv}, {nv / 3 + 1, nv - 5}, {4, 5}}) {
      std::vector<std::atomic<int>> seen(nv);
      std::atomic<int> mismatches{0}, crossing{0};
      parallelForVertexBlocks(*g, first, last, [&](SimplexId a, SimplexId b) {
        crossing += a < first || b > last ||
                    g->segmentOfNewVertex(a) != g->segmentOfNewVertex(b - 1);
        for (SimplexId p = a; p < b; ++p) {
          const SimplexId v = vertexAtPosition(*g, p);
          ++seen[p];
          mismatches += relationOf(*g, 0, 0, v) != relationOf(e, 0, 0, v);
          mismatches += g->getVertexStarNumber(v) != e.getVertexStarNumber(v);
          mismatches += g->isVertexOnBoundary(v) != e.isVertexOnBoundary(v);
        }
      });
      int wrong = 0;
      for (SimplexId p = 0; p < nv; ++p)
        wrong += seen[p] != (p >= first && p < last ? 1 : 0);
      EXPECT_EQ(wrong, 0) << "N=" << capacity << " [" << first << ", " << last << ")";
      EXPECT_EQ(crossing.load(), 0) << "N=" << capacity;
      EXPECT_EQ(mismatches.load(), 0) << "N=" << capacity;
    }
  }
}

// CPU producers: consumers compute every segment they miss (nobody queues), and the
// critical points and the simplicial gradient equal the explicit backend's; with a
// leader-only producer the leaders run ahead of the loop (tiny caches, batches of 1-4)
// with the same results.
template <typename Tri>
std::vector<std::vector<Tuple>>
criticalTuples(const Tri& tri, const discrete_gradient::simplicial::Output& gradient) {
  std::vector<std::vector<Tuple>> out(4);
  for (int d = 0; d <= 3; ++d) {
    for (const SimplexId id : gradient.criticalCells[d])
      out[d].push_back(verticesOf(tri, d, id));
    std::sort(out[d].begin(), out[d].end());
  }
  return out;
}

TEST(Gale, ConsumersComputeOrLeadersRunAheadSameResults) {
  std::mt19937 rng(33);
  const SimplexId nx = 13, ny = 12, nz = 11, nv = nx * ny * nz;
  ExplicitTriangulation e(nv, 3, flatten(shuffledCells(kuhnCells(nx, ny, nz), rng)));
  std::vector<float> f(nv);
  for (float& x : f)
    x = float(rng() % 50);
  const auto reference = criticalPointsOf(e, f);
  namespace simplicial = discrete_gradient::simplicial;
  simplicial::Output expected;
  simplicial::execute(e, ScalarArrayView{f.data(), ScalarType::Float32, nv}, {},
                      Monitor{}, expected);
  EXPECT_GT(expected.counts[1], 0);
  struct Case {
    int kind; // 0: CPU producer, 1: leader only, 2: mixed (as the GPU producer)
    int cache, batch, lookahead;
    bool leaderOnly;
  };
  for (const Case c :
       {Case{0, 4096, 0, 0, false}, Case{0, 2, 1, 0, false}, Case{1, 64, 4, 16, true},
        Case{1, 3, 1, 1, true}, Case{1, 8, 2, 0, true}, Case{2, 64, 4, 16, false},
        Case{2, 3, 1, 1, false}}) {
    SCOPED_TRACE(std::string(c.kind == 0   ? "cpu"
                             : c.kind == 1 ? "leader-only"
                                           : "mixed") +
                 " cache " + std::to_string(c.cache) + " batch " +
                 std::to_string(c.batch) + " lookahead " + std::to_string(c.lookahead));
    gale::Parameters p = tiny(9, c.cache, c.batch);
    p.lookaheadSegments = c.lookahead;
    std::shared_ptr<gale::SegmentProducer> producer;
    if (c.kind == 1)
      producer = std::make_shared<LeaderOnlyProducer>();
    if (c.kind == 2)
      producer = std::make_shared<MixedProducer>();
    auto g = GaleTriangulation::fromExplicit(e, gridPoints(nx, ny, nz), p, producer);
    expectSameCriticalPoints(reference, criticalPointsOf(*g, f), "critical points");
    simplicial::Output got;
    simplicial::execute(*g, ScalarArrayView{f.data(), ScalarType::Float32, nv}, {},
                        Monitor{}, got);
    // edges and triangles are numbered by each backend: compared as vertex tuples
    EXPECT_EQ(criticalTuples(*g, got), criticalTuples(e, expected));
    const gale::Statistics stats = g->statistics();
    EXPECT_GT(stats.segmentsComputed, 0u);
    if (c.kind == 2) {
      EXPECT_GT(stats.requests + stats.segmentsAhead, 0u);
      EXPECT_GT(stats.segmentsComputedByConsumers, 0u);
    } else if (!c.leaderOnly) {
      EXPECT_EQ(stats.segmentsComputedByConsumers, stats.segmentsComputed);
      EXPECT_EQ(stats.requests, 0u);
    } else {
      EXPECT_EQ(stats.segmentsComputedByConsumers, 0u);
      EXPECT_GT(stats.requests + stats.segmentsAhead, 0u);
      if (c.cache >= 64) {
        EXPECT_GT(stats.segmentsAhead, 0u);
      }
    }
  }
}

TEST(Gale, BadInputAsTheExplicitBackend) {
  const std::vector<double> none;
  auto both = [&](SimplexId nv, int dim, std::vector<SimplexId> cells,
                  const std::string& part) {
    expectError([&] { ExplicitTriangulation(nv, dim, cells); }, part);
    expectError([&] { GaleTriangulation(nv, dim, cells, none); }, part);
  };
  both(4, 3, {}, "mesh has no cells");
  both(4, 3, {0, 1, 2}, "not a multiple of 4");          // a triangle among tets
  both(4, 3, {0, 1, 2, 2}, "degenerate");                // repeated vertex
  both(4, 3, {0, 1, 2, 7}, "outside [0, 4)");            // id out of range
  both(5, 3, {0, 1, 2, 3, 3, 2, 1, 0}, "same vertices"); // identical cells
  both(4, 4, {0, 1, 2, 3, 0}, "cell dimension 4");
  expectError(
      [&] {
        GaleTriangulation(4, 3, {0, 1, 2, 3}, {0, 0, 0});
      },
      "3 point coordinates for 4 vertices");
  expectError(
      [&] {
        GaleTriangulation(4, 3, {0, 1, 2, 3}, {0, 0, 0, 1, 0, 0, 0, NAN, 0, 0, 0, 1});
      },
      "vertex 2 has a non-finite coordinate");
  gale::Parameters zero;
  zero.segmentCapacity = 0;
  expectError(
      [&] {
        GaleTriangulation(4, 3, {0, 1, 2, 3}, none, zero);
      },
      "segment capacity");
  // zero-volume and inverted tets are combinatorially fine (orientation is never used)
  GaleTriangulation flat(5, 3, {0, 1, 2, 3, 1, 0, 2, 4},
                         {0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 0, 1, 0});
  flat.precondition(AllRelations);
  EXPECT_EQ(flat.getNumberOfTriangles(), 7);
  EXPECT_EQ(flat.getTetNeighborNumber(0), 1);
}

TEST(Gale, GpuProducerFallsBackWithAWarning) {
  gale::Parameters p;
  p.producer = gale::ProducerKind::Gpu;
  GaleTriangulation g(4, 3, {0, 1, 2, 3}, {}, p);
  ASSERT_EQ(g.warnings().size(), 1u);
  EXPECT_EQ(g.warnings()[0].code, WarningCode::GaleNoGpuProducer);
  EXPECT_NE(g.warnings()[0].text.find("CPU producers"), std::string::npos);
  g.precondition(VV);
  EXPECT_EQ(g.getVertexNeighborNumber(0), 3);
}

// A GPU producer's factory as the front ends pass cuda/gale's (gale::Parameters::
// gpuFactory): the construction runs its parts and serves the relations with the
// producer make() returned; without one, make()'s reason reaches the warning.
class RecordingFactory : public gale::GpuProducerFactory {
public:
  struct Cells : gale::DeviceCells {};
  struct Start : gale::DeviceStart {};
  explicit RecordingFactory(std::shared_ptr<gale::SegmentProducer> producer)
      : producer_(std::move(producer)) {}
  void startContext() const override { ++contexts; }
  std::shared_ptr<gale::DeviceCells> uploadCells(const std::int32_t*,
                                                 std::size_t count) const override {
    uploaded = count;
    return std::make_shared<Cells>();
  }
  std::shared_ptr<gale::DeviceStart>
  begin(const GaleTriangulation& mesh,
        std::shared_ptr<gale::DeviceCells> cells) const override {
    cellsCameBack = dynamic_cast<Cells*>(cells.get()) != nullptr;
    segments = mesh.getNumberOfSegments();
    return std::make_shared<Start>();
  }
  bool cellOffsets(const gale::DeviceStart*, std::vector<SimplexId>&,
                   std::vector<SimplexId>&) const override {
    return false; // the host builds its own cell lists
  }
  std::shared_ptr<gale::SegmentProducer> make(const GaleTriangulation&,
                                              std::shared_ptr<gale::DeviceStart> start,
                                              std::string& why) const override {
    startCameBack = dynamic_cast<Start*>(start.get()) != nullptr;
    if (!producer_)
      why = "the recording factory has none";
    return producer_;
  }
  mutable std::atomic<int> contexts{0};
  mutable std::atomic<std::size_t> uploaded{0};
  mutable std::atomic<SimplexId> segments{-1};
  mutable std::atomic<bool> cellsCameBack{false}, startCameBack{false};

private:
  std::shared_ptr<gale::SegmentProducer> producer_;
};

// Named as the GPU producer, planning with its own traits: the relation servers read
// the traits (a batch of 5 segments per request), never the name.
class TraitsProducer : public gale::SegmentProducer {
public:
  std::string name() const override { return "gpu"; }
  gale::ProducerTraits traits() const override {
    gale::ProducerTraits traits;
    traits.segmentsPerRequest = 5;
    return traits;
  }
  void compute(const GaleTriangulation& mesh, gale::ServedRelation relation,
               const std::vector<SimplexId>& segments,
               std::vector<gale::SegmentPointer>& out) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      largest_ = std::max(largest_, segments.size());
    }
    cpu_->compute(mesh, relation, segments, out);
  }
  std::size_t largestBatch() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return largest_;
  }

private:
  std::shared_ptr<gale::SegmentProducer> cpu_ = gale::makeCpuProducer();
  mutable std::mutex mutex_;
  std::size_t largest_ = 0;
};

TEST(Gale, GpuProducerComesFromTheGivenFactory) {
  std::mt19937 rng(5);
  const SimplexId nx = 9, ny = 8, nz = 7, nv = nx * ny * nz;
  const std::vector<SimplexId> cells = flatten(shuffledCells(kuhnCells(nx, ny, nz), rng));
  ExplicitTriangulation e(nv, 3, cells);
  e.precondition(VV);
  auto producer = std::make_shared<TraitsProducer>();
  auto factory = std::make_shared<RecordingFactory>(producer);
  gale::Parameters p = tiny(10, 0, 0);
  p.producer = gale::ProducerKind::Gpu;
  p.gpuFactory = factory;
  auto g = GaleTriangulation::fromCells32(
      nv, 3, std::vector<std::int32_t>(cells.begin(), cells.end()),
      gridPoints(nx, ny, nz), p);
  EXPECT_EQ(factory->contexts.load(), 1);
  EXPECT_EQ(factory->uploaded.load(), cells.size());
  EXPECT_TRUE(factory->cellsCameBack.load());
  EXPECT_EQ(factory->segments.load(), g->getNumberOfSegments());
  EXPECT_TRUE(factory->startCameBack.load());
  EXPECT_EQ(g->producerName(), "gpu");
  EXPECT_TRUE(g->warnings().empty());
  ASSERT_GT(g->getNumberOfSegments(), 5);
  g->precondition(VV);
  for (SimplexId v = 0; v < nv; ++v) {
    ASSERT_EQ(g->getVertexNeighborNumber(v), e.getVertexNeighborNumber(v)) << v;
    for (int i = 0; i < e.getVertexNeighborNumber(v); ++i)
      ASSERT_EQ(g->getVertexNeighbor(v, i), e.getVertexNeighbor(v, i)) << v;
  }
  EXPECT_EQ(producer->largestBatch(), 5u);

  auto none = std::make_shared<RecordingFactory>(nullptr);
  p.gpuFactory = none;
  auto fallback = GaleTriangulation::fromExplicit(e, gridPoints(nx, ny, nz), p);
  EXPECT_EQ(none->contexts.load(), 1);
  EXPECT_EQ(fallback->producerName(), "cpu");
  ASSERT_EQ(fallback->warnings().size(), 1u);
  EXPECT_EQ(fallback->warnings()[0].code, WarningCode::GaleNoGpuProducer);
  EXPECT_NE(fallback->warnings()[0].text.find("the recording factory has none"),
            std::string::npos);
}

// The I_T rule the host's lists and the GPU producer's kernel share: a cell is internal
// to its lowest vertex's segment and external to each other segment of its vertices,
// once (against sets of segments, on random cells and segmentations).
TEST(Gale, CellSegmentsPlaceACellByItsLowestVertex) {
  std::mt19937 rng(11);
  for (int round = 0; round < 2000; ++round) {
    const int arity = 3 + int(rng() % 2);
    const SimplexId n = 4 + SimplexId(rng() % 20);
    std::vector<SimplexId> segmentOf(std::size_t(n), 0);
    for (SimplexId v = 0; v < n; ++v)
      segmentOf[std::size_t(v)] = SimplexId(rng() % 5);
    std::vector<SimplexId> all(static_cast<std::size_t>(n));
    std::iota(all.begin(), all.end(), SimplexId(0));
    std::shuffle(all.begin(), all.end(), rng);
    const std::vector<SimplexId> cell(all.begin(), all.begin() + arity);
    SimplexId own = -1, others[3] = {-1, -1, -1};
    const int count = gale::cellSegments(
        cell.data(), arity, [&](SimplexId v) { return segmentOf[std::size_t(v)]; }, own,
        others);
    const SimplexId lowest = *std::min_element(cell.begin(), cell.end());
    ASSERT_EQ(own, segmentOf[std::size_t(lowest)]);
    std::set<SimplexId> expected;
    for (const SimplexId v : cell)
      expected.insert(segmentOf[std::size_t(v)]);
    expected.erase(own);
    ASSERT_EQ(count, int(expected.size()));
    ASSERT_EQ(std::set<SimplexId>(others, others + count), expected);
  }
}

TEST(Gale, MissingRelationIsCaughtInDebugBuilds) {
#ifdef NDEBUG
  GTEST_SKIP() << "precondition checks are compiled out of Release builds";
#else
  GaleTriangulation g(4, 3, {0, 1, 2, 3}, {});
  g.precondition(VV);
  expectError([&] { g.getVertexStarNumber(0); }, "VertexStar was not preconditioned");
  expectError([&] { g.findEdge(0, 1); }, "the edges were not built");
#endif
}

} // namespace
} // namespace topogpu::test
