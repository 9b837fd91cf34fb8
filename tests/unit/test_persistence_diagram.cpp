// The persistence diagram's core (core/persistence_diagram/): the Discrete Morse
// Sandwich's pairing on hand-made inputs whose pairs the elder rule gives by hand, its
// errors, one diagram on the implicit grid and on the same tets stored explicitly, a
// non-manifold mesh refused, abort. The diagrams themselves are checked against GUDHI and
// a brute-force reduction by tests/cli/test_persistence.py.
#include "BruteForce.h"
#include "UnitHelpers.h"
#include "core/morse_smale_complex/ElderRounds.h"
#include "core/persistence_diagram/DiscreteMorseSandwich.h"
#include "core/persistence_diagram/SimplicialPersistence.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace topogpu::test {
namespace {

namespace pd = persistence_diagram;

std::set<std::tuple<int, SimplexId, SimplexId>> pairsOf(const pd::SandwichResult& r) {
  std::set<std::tuple<int, SimplexId, SimplexId>> out;
  for (const auto& p : r.pairs)
    out.insert({p.type, p.birth, p.death});
  return out;
}

void expectError(const pd::SandwichInput& input, const std::string& needle) {
  pd::SandwichResult result;
  try {
    pd::pairCriticalCells(input, Monitor{}, result);
    ADD_FAILURE() << "no error, wanted '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(DiscreteMorseSandwich, ElderRuleByHand) {
  // 2D: minima 0 < 1 < 2; saddle 0 joins minima 1 and 2 (kills 2), saddle 1 joins 0 and
  // the component of 1 (kills 1); saddle 2 has both paths at minimum 0 (no pair). One
  // maximum: saddle 2 joins it and the outside (it dies there); saddles 0 and 1 are
  // taken.
  pd::SandwichInput in;
  in.dimension = 2;
  in.counts = {3, 3, 1, 0};
  in.saddle1Minima = {1, 2, 0, 2, 0, 0};
  in.saddleMaxima = {0, pd::kOutside, 0, pd::kOutside, 0, pd::kOutside};
  pd::SandwichResult r;
  pd::pairCriticalCells(in, Monitor{}, r);
  EXPECT_EQ(pairsOf(r), (std::set<std::tuple<int, SimplexId, SimplexId>>{
                            {0, 2, 0}, {0, 1, 1}, {1, 2, 0}}));
  EXPECT_EQ(r.paired[0], (std::vector<char>{0, 1, 1})); // minimum 0: essential
}

TEST(DiscreteMorseSandwich, SaddleSaddleReductionByHand) {
  // 3D: 1-saddles 0, 1, 2 (none paired with minima: every path ends at minimum 0);
  // 2-saddles 0, 1, 2 with boundaries {0, 1}, {1} and {2}; 2-saddle 2 is paired with the
  // maximum (cleared). Column 0 takes row 1; column 1 plus column 0 is {0}: row 0.
  pd::SandwichInput in;
  in.dimension = 3;
  in.counts = {1, 3, 3, 1};
  in.saddle1Minima = {0, 0, 0, 0, 0, 0};
  in.saddleMaxima = {pd::kOutside, pd::kOutside, pd::kOutside, pd::kOutside, 0,
                     pd::kOutside};
  in.boundary = {{0, 0}, {0, 1}, {1, 1}, {2, 2}};
  in.hasBoundary = true;
  pd::SandwichResult r;
  pd::pairCriticalCells(in, Monitor{}, r);
  EXPECT_EQ(pairsOf(r), (std::set<std::tuple<int, SimplexId, SimplexId>>{
                            {2, 2, 0}, {1, 1, 0}, {1, 0, 1}}));
  EXPECT_EQ(r.paired[1], (std::vector<char>{1, 1, 0})); // 1-saddle 2: essential
}

TEST(DiscreteMorseSandwich, BadInputIsNamed) {
  pd::SandwichInput in;
  in.dimension = 4;
  expectError(in, "2D or 3D");
  in.dimension = 2;
  in.counts = {2, 1, 1, 0};
  in.saddle1Minima = {0};
  in.saddleMaxima = {0, pd::kOutside};
  expectError(in, "path ends");
  in.saddle1Minima = {0, 5};
  expectError(in, "is not one of the 2 extrema");
  in.saddle1Minima = {0, 1};
  in.saddleMaxima = {0, -3};
  expectError(in, "is not one of the 1 extrema");
  in.dimension = 3;
  in.counts = {2, 1, 1, 1};
  in.saddleMaxima = {0, pd::kOutside};
  in.boundary = {{0, 4}};
  in.hasBoundary = true;
  expectError(in, "not between critical saddles");
}

// (type, birth vertex, death vertex, birth, death, finite) per row.
std::vector<std::tuple<int, SimplexId, SimplexId, double, double, bool>>
rowsOf(const pd::Diagram& d) {
  std::vector<std::tuple<int, SimplexId, SimplexId, double, double, bool>> rows;
  for (const auto& p : d.pairs)
    rows.emplace_back(p.type, p.birthVertex, p.deathVertex, p.birth, p.death, p.isFinite);
  return rows;
}

// n values drawn from the levels 0..top: a field with many ties.
std::vector<float> randomLevels(SimplexId n, int top, std::mt19937& rng) {
  std::vector<float> values(static_cast<std::size_t>(n));
  std::uniform_int_distribution<int> level(0, top);
  for (float& v : values)
    v = float(level(rng));
  return values;
}

// The elder rule by relabelling: every node carries its component's oldest node, and a
// merge relabels the younger component's nodes (no union-find, quadratic).
std::vector<SimplexId> elderByRelabelling(const morse_smale_complex::ElderGraph& g) {
  std::vector<SimplexId> label(std::size_t(g.nodes)), younger(std::size_t(g.edges), -1);
  for (SimplexId x = 0; x < g.nodes; ++x)
    label[std::size_t(x)] = x;
  for (SimplexId e = 0; e < g.edges; ++e) {
    if (g.skip != nullptr && g.skip[e])
      continue;
    const SimplexId a = label[std::size_t(g.ends[2 * e])],
                    b = label[std::size_t(g.ends[2 * e + 1])];
    if (a == b)
      continue;
    const SimplexId young = std::max(a, b), old = std::min(a, b);
    for (SimplexId& l : label)
      if (l == young)
        l = old;
    younger[std::size_t(e)] = young;
  }
  return younger;
}

// Every schedule (all serial, all rounds, a few rounds then the sweep, the default) on
// random graphs, on a chain whose rounds merge one edge each, and with skipped edges.
TEST(ElderRounds, EveryScheduleGivesTheSerialKills) {
  std::mt19937 rng(22);
  std::vector<morse_smale_complex::ElderSchedule> schedules = {
      {0, 0}, {1 << 20, 0}, {3, 0}, {2, 16}, morse_smale_complex::ElderSchedule{}};
  for (int trial = 0; trial < 12; ++trial) {
    const SimplexId nodes = trial < 10 ? 1 + SimplexId(rng() % 1500) : 600;
    const SimplexId edges = trial < 10 ? SimplexId(rng() % 6000) : nodes - 1;
    std::vector<SimplexId> ends(std::size_t(2 * edges));
    std::vector<char> skip(static_cast<std::size_t>(edges));
    for (SimplexId e = 0; e < edges; ++e) {
      if (trial < 10) { // random ends, some equal
        ends[std::size_t(2 * e)] = SimplexId(rng() % std::uint64_t(nodes));
        ends[std::size_t(2 * e + 1)] = rng() % 8 == 0
                                           ? ends[std::size_t(2 * e)]
                                           : SimplexId(rng() % std::uint64_t(nodes));
      } else { // a chain: edge e joins e and e + 1 (trial 11: the other way round)
        ends[std::size_t(2 * e)] = trial == 10 ? e : nodes - 1 - e;
        ends[std::size_t(2 * e + 1)] = trial == 10 ? e + 1 : nodes - 2 - e;
      }
      skip[std::size_t(e)] = trial % 3 == 1 && rng() % 5 == 0;
    }
    const morse_smale_complex::ElderGraph graph{nodes, edges, ends.data(),
                                                trial % 3 == 1 ? skip.data() : nullptr};
    const std::vector<SimplexId> expected = elderByRelabelling(graph);
    for (const morse_smale_complex::ElderSchedule& schedule : schedules) {
      std::vector<SimplexId> younger;
      morse_smale_complex::ElderStats stats;
      morse_smale_complex::elderPairs(graph, schedule, younger, stats);
      EXPECT_EQ(younger, expected) << "trial " << trial << ", " << schedule.maxRounds
                                   << " rounds, " << schedule.serialEdges << " serial";
      EXPECT_LE(stats.rounds, schedule.maxRounds);
      if (schedule.serialEdges == 0 && schedule.maxRounds == (1 << 20)) {
        EXPECT_EQ(stats.serialEdges, 0);
      }
    }
  }
}

TEST(ElderRounds, BadEndIsNamed) {
  const std::vector<SimplexId> ends = {0, 1, 2, 3};
  std::vector<SimplexId> younger;
  morse_smale_complex::ElderStats stats;
  try {
    morse_smale_complex::elderPairs(
        morse_smale_complex::ElderGraph{3, 2, ends.data(), nullptr}, {}, younger, stats);
    ADD_FAILURE() << "no error for extremum 3 of 3";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("extremum 3"), std::string::npos) << e.what();
  }
}

TEST(PersistenceDiagram, ImplicitGridEqualsItsTetsStoredExplicitly) {
  std::mt19937 rng(22);
  for (const auto& dims : {std::array<SimplexId, 3>{6, 5, 4}, {7, 6, 1}, {4, 4, 4}}) {
    const SimplexId n = dims[0] * dims[1] * dims[2];
    const std::vector<float> values = randomLevels(n, 6, rng);
    ImplicitTriangulation grid(dims[0], dims[1], dims[2]);
    const int dimension = dims[2] > 1 ? 3 : 2;
    ExplicitTriangulation mesh(n, dimension,
                               flatten(ttkGridCells(dims[0], dims[1], dims[2])));
    pd::Parameters parameters;
    parameters.backend = Backend::Cpu;
    pd::Diagram a, b;
    pd::execute(grid, viewOf(values), parameters, Monitor{}, a);
    pd::execute(mesh, viewOf(values), parameters, Monitor{}, b);
    EXPECT_EQ(rowsOf(a), rowsOf(b)) << dims[0] << "x" << dims[1] << "x" << dims[2];
    EXPECT_EQ(a.essentialPairs[0], 1);
    // the boundary expansion and the saddle connections give the same pairs
    parameters.saddleConnections = true;
    pd::Diagram c;
    pd::execute(grid, viewOf(values), parameters, Monitor{}, c);
    EXPECT_EQ(rowsOf(a), rowsOf(c));
  }
}

// The boundary expansion settles 2-saddles in parallel rounds
// (SaddleBoundaryExpansion.h): on fields with many 2-saddles whose boundaries meet (few
// levels: ties everywhere; a smooth field plus noise), its pairs must be those of the
// serial column reduction of the Morse boundary the saddle connections give
// (DiscreteMorseSandwich.cpp), whatever the schedule: one batch, many small batches,
// rounds cut short into the serial tail.
TEST(PersistenceDiagram, ParallelExpansionEqualsSerialReductionOnTies) {
  std::mt19937 rng(2022);
  for (const auto& [dims, levels] :
       {std::pair<std::array<SimplexId, 3>, int>{{24, 22, 20}, 2},
        {{24, 24, 24}, 4},
        {{30, 20, 16}, 64}}) {
    const SimplexId n = dims[0] * dims[1] * dims[2];
    std::vector<std::uint8_t> values(static_cast<std::size_t>(n));
    std::uniform_int_distribution<int> level(0, levels - 1);
    for (auto& v : values)
      v = std::uint8_t(level(rng));
    ImplicitTriangulation grid(dims[0], dims[1], dims[2]);
    const ScalarArrayView view = viewOf(values);
    pd::Parameters parameters;
    parameters.backend = Backend::Cpu;
    parameters.saddleConnections = true;
    pd::Diagram reduction;
    pd::execute(grid, view, parameters, Monitor{}, reduction);
    parameters.saddleConnections = false;
    for (const pd::ExpansionSchedule schedule :
         {pd::ExpansionSchedule{}, pd::ExpansionSchedule{97, 3, 2},
          pd::ExpansionSchedule{4096, 1, 1000000}, pd::ExpansionSchedule{1, 1, 1}}) {
      parameters.expansion = schedule;
      pd::Diagram expansion;
      pd::execute(grid, view, parameters, Monitor{}, expansion);
      EXPECT_GT(expansion.finitePairs[1], 1000) << "too few saddle-saddle pairs to race";
      EXPECT_EQ(rowsOf(expansion), rowsOf(reduction))
          << levels << " levels, batch " << schedule.batch << ", serial below "
          << schedule.serialBelow;
    }
  }
}

// The diagram computes only what its pairs read (the complex's diagramOnly: the saddles'
// path ends, no labels, no arcs, no boundary forest); the pairs read off the whole
// Morse-Smale complex's labels (the msc command's route) must be the same, on grids and
// meshes, 2D and 3D, with ties.
TEST(PersistenceDiagram, LeanComplexGivesTheWholeComplexDiagram) {
  namespace smsc = morse_smale_complex::simplicial;
  std::mt19937 rng(7);
  for (const auto& dims : {std::array<SimplexId, 3>{13, 11, 9}, {31, 27, 1}, {8, 8, 8}}) {
    const SimplexId n = dims[0] * dims[1] * dims[2];
    const std::vector<float> values = randomLevels(n, 3, rng);
    ImplicitTriangulation grid(dims[0], dims[1], dims[2]);
    ExplicitTriangulation mesh(n, dims[2] > 1 ? 3 : 2,
                               flatten(ttkGridCells(dims[0], dims[1], dims[2])));
    auto wholeComplexDiagram = [&](auto& tri) {
      smsc::Parameters msc;
      msc.backend = Backend::Cpu;
      msc.computeSaddleConnections = false;
      smsc::Output complex;
      smsc::execute(tri, viewOf(values), msc, Monitor{}, complex);
      EXPECT_FALSE(complex.saddle1Minimum.empty());
      pd::Diagram d;
      pd::diagramOfComplex(tri, complex, viewOf(values), Monitor{}, d);
      return rowsOf(d);
    };
    pd::Parameters parameters;
    parameters.backend = Backend::Cpu;
    pd::Diagram lean;
    smsc::Output leanComplex;
    pd::execute(grid, viewOf(values), parameters, Monitor{}, lean, &leanComplex);
    EXPECT_TRUE(leanComplex.saddle1Minimum.empty() &&
                leanComplex.ascendingManifold.empty());
    EXPECT_TRUE(
        leanComplex.saddleEndsComputed && leanComplex.descendingManifold.empty() &&
        leanComplex.cellAscendingManifold.empty() && leanComplex.boundaryFacets.empty());
    EXPECT_GT(lean.finitePairs[0], 10);
    EXPECT_EQ(rowsOf(lean), wholeComplexDiagram(grid)) << dims[0] << "x" << dims[1];
    pd::execute(mesh, viewOf(values), parameters, Monitor{}, lean);
    EXPECT_EQ(rowsOf(lean), wholeComplexDiagram(mesh)) << dims[0] << "x" << dims[1];
  }
}

// The device hands over the critical cells in filtration order (the complex's
// filtrationOrder): the pairs read in that order must be those of the host's own sort,
// with the order computed here by brute force (each cell's vertex ranks sorted
// decreasingly, compared lexicographically); an order that is not a permutation is an
// Error.
TEST(PersistenceDiagram, GivenFiltrationOrderGivesTheHostsDiagram) {
  namespace smsc = morse_smale_complex::simplicial;
  std::mt19937 rng(11);
  for (const auto& dims : {std::array<SimplexId, 3>{9, 8, 7}, {21, 17, 1}}) {
    const std::vector<float> values = randomLevels(dims[0] * dims[1] * dims[2], 4, rng);
    ImplicitTriangulation grid(dims[0], dims[1], dims[2]);
    smsc::Parameters msc;
    msc.backend = Backend::Cpu;
    msc.diagramOnly = true;
    msc.computeSaddleConnections = false;
    smsc::Output complex;
    smsc::execute(grid, viewOf(values), msc, Monitor{}, complex);
    pd::Diagram expected, given;
    pd::diagramOfComplex(grid, complex, viewOf(values), Monitor{}, expected);
    for (int k = 0; k <= complex.gradient.dimension; ++k) {
      const auto& ids = complex.gradient.criticalCells[std::size_t(k)];
      std::vector<std::pair<std::vector<SimplexId>, SimplexId>> keyed;
      for (std::size_t i = 0; i < ids.size(); ++i) {
        std::vector<SimplexId> key;
        for (int j = 0; j <= k; ++j)
          key.push_back(
              complex.rank[std::size_t(k == 0   ? ids[i]
                                       : k == 1 ? grid.getEdgeVertex(ids[i], j)
                                       : k == 2 ? grid.getTriangleVertex(ids[i], j)
                                                : grid.getCellVertex(ids[i], j))]);
        std::sort(key.rbegin(), key.rend());
        keyed.emplace_back(key, SimplexId(i));
      }
      std::sort(keyed.begin(), keyed.end());
      auto& order = complex.filtrationOrder[std::size_t(k)];
      order.clear();
      for (const auto& entry : keyed)
        order.push_back(entry.second);
    }
    pd::diagramOfComplex(grid, complex, viewOf(values), Monitor{}, given);
    EXPECT_GT(expected.pairs.size(), 20u);
    EXPECT_EQ(rowsOf(given), rowsOf(expected)) << dims[0] << "x" << dims[1];
    auto& order = complex.filtrationOrder[1];
    ASSERT_GT(order.size(), 1u);
    order[0] = order[1];
    EXPECT_THROW(pd::diagramOfComplex(grid, complex, viewOf(values), Monitor{}, given),
                 Error);
  }
}

TEST(PersistenceDiagram, NonManifoldMeshIsRefused) {
  // three triangles on the edge (0, 1)
  ExplicitTriangulation mesh(5, 2, {0, 1, 2, 0, 1, 3, 0, 1, 4});
  const std::vector<float> values{0, 1, 2, 3, 4};
  pd::Diagram d;
  try {
    pd::execute(mesh, viewOf(values), pd::Parameters{}, Monitor{}, d);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("manifold"), std::string::npos) << e.what();
  }
}

TEST(PersistenceDiagram, AbortAndBadValues) {
  ImplicitTriangulation grid(5, 5, 5);
  std::vector<float> values(125);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = float((i * 37) % 11);
  Monitor abort;
  abort.abortRequested = [] { return true; };
  pd::Diagram d;
  EXPECT_THROW(pd::execute(grid, viewOf(values), pd::Parameters{}, abort, d), Aborted);
  values[7] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW(pd::execute(grid, viewOf(values), pd::Parameters{}, Monitor{}, d), Error);
}

} // namespace
} // namespace topogpu::test
