// The front ends' vertex-order cache (frontend/VertexOrderCache.h): the order it hands
// out is the brute-force (value, index) order, a field is sorted once however many
// modules ask, values changed in place are sorted again, and the modules given the
// cache's order (Parameters::vertexOrder) output exactly what they output sorting
// themselves: critical points, the cubical and simplicial gradients and both Morse-Smale
// complexes, on random grids and random meshes.
#include "BruteForce.h"

#include "core/critical_points/CriticalPoints.h"
#include "core/discrete_gradient/DiscreteGradient.h"
#include "core/discrete_gradient/SimplicialGradient.h"
#include "core/morse_smale_complex/MorseSmaleComplex.h"
#include "core/morse_smale_complex/SimplicialMorseSmaleComplex.h"
#include "frontend/VertexOrderCache.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace topogpu;
using namespace topogpu::test;

namespace {

namespace sg = discrete_gradient::simplicial;
namespace smsc = morse_smale_complex::simplicial;

// rank[v] of v among the values sorted by (value, index), by a stable sort.
template <typename T> std::vector<SimplexId> bruteOrder(const std::vector<T>& values) {
  std::vector<SimplexId> byValue(values.size()), rank(values.size());
  std::iota(byValue.begin(), byValue.end(), SimplexId(0));
  std::stable_sort(byValue.begin(), byValue.end(),
                   [&](SimplexId a, SimplexId b) { return values[a] < values[b]; });
  for (std::size_t r = 0; r < byValue.size(); ++r)
    rank[std::size_t(byValue[r])] = SimplexId(r);
  return rank;
}

template <typename T> ScalarArrayView viewOf(const std::vector<T>& values) {
  return {values.data(), scalarTypeOf<T>(), SimplexId(values.size())};
}

// Values with ties (a few levels), so the index breaks them.
std::vector<float> tiedValues(std::mt19937& rng, std::size_t n) {
  std::uniform_int_distribution<int> level(0, 9);
  std::vector<float> values(n);
  for (float& v : values)
    v = float(level(rng)) * 0.5f;
  return values;
}

bool hasStage(const RunReport& report, const std::string& stage) {
  return std::any_of(report.timings.begin(), report.timings.end(),
                     [&](const auto& t) { return t.first == stage; });
}

TEST(VertexOrderCache, GivesTheBruteForceOrderOncePerField) {
  std::mt19937 rng(7);
  const std::vector<float> a = tiedValues(rng, 5000);
  const std::vector<std::int16_t> b = {3, -1, 3, 7, -1, 0, 3};
  frontend::VertexOrderCache cache;
  bool reused = true;
  EXPECT_EQ(*cache.orderOf(viewOf(a), Monitor{}, reused), bruteOrder(a));
  EXPECT_FALSE(reused);
  EXPECT_EQ(*cache.orderOf(viewOf(a), Monitor{}, reused), bruteOrder(a));
  EXPECT_TRUE(reused);
  EXPECT_EQ(*cache.orderOf(viewOf(b), Monitor{}, reused), bruteOrder(b));
  EXPECT_FALSE(reused);
  EXPECT_EQ(cache.computed(), 2u);
}

TEST(VertexOrderCache, SortsValuesChangedInPlaceAgain) {
  std::mt19937 rng(11);
  std::vector<float> values = tiedValues(rng, 3000);
  frontend::VertexOrderCache cache;
  bool reused = false;
  cache.orderOf(viewOf(values), Monitor{}, reused);
  std::reverse(values.begin(), values.end()); // same address, type and size
  EXPECT_EQ(*cache.orderOf(viewOf(values), Monitor{}, reused), bruteOrder(values));
  EXPECT_FALSE(reused);
  EXPECT_EQ(cache.computed(), 2u);
}

TEST(VertexOrderCache, KeepsTheLastFields) {
  std::mt19937 rng(5);
  const std::vector<float> a = tiedValues(rng, 100), b = tiedValues(rng, 100),
                           c = tiedValues(rng, 100);
  frontend::VertexOrderCache cache(2);
  bool reused = false;
  for (const auto* field : {&a, &b, &c, &a})
    cache.orderOf(viewOf(*field), Monitor{}, reused);
  EXPECT_FALSE(reused); // a was the least recently used when c came
  EXPECT_EQ(cache.computed(), 4u);
  cache.orderOf(viewOf(c), Monitor{}, reused);
  EXPECT_TRUE(reused);
}

TEST(VertexOrderCache, GridModulesShareOneSortAndOutputTheSame) {
  std::mt19937 rng(3);
  for (const auto& dims : {std::array<SimplexId, 3>{9, 7, 5}, {12, 10, 1}}) {
    ImplicitTriangulation grid(dims[0], dims[1], dims[2]);
    const std::vector<float> values =
        tiedValues(rng, std::size_t(grid.getNumberOfVertices()));
    const ScalarArrayView view = viewOf(values);
    frontend::VertexOrderCache cache;

    critical_points::Parameters cpAlone{Backend::Cpu}, cpShared{Backend::Cpu};
    cpShared.vertexOrder = cache.source();
    critical_points::Output cp1, cp2;
    critical_points::execute(grid, view, cpAlone, Monitor{}, cp1);
    critical_points::execute(grid, view, cpShared, Monitor{}, cp2);
    EXPECT_EQ(cp1.vertexTypes, cp2.vertexTypes);
    EXPECT_EQ(cp1.criticalVertices, cp2.criticalVertices);

    discrete_gradient::Parameters dgAlone{Backend::Cpu}, dgShared{Backend::Cpu};
    dgShared.vertexOrder = cache.source();
    discrete_gradient::Output dg1, dg2;
    discrete_gradient::execute(grid, view, dgAlone, Monitor{}, dg1);
    discrete_gradient::execute(grid, view, dgShared, Monitor{}, dg2);
    EXPECT_EQ(dg1.gradient, dg2.gradient);
    EXPECT_EQ(dg1.criticalCells, dg2.criticalCells);
    EXPECT_TRUE(hasStage(dg2.report, "vertex order (cached)"));

    morse_smale_complex::Parameters mscAlone, mscShared;
    mscAlone.backend = mscShared.backend = Backend::Cpu;
    mscShared.vertexOrder = cache.source();
    morse_smale_complex::Output msc1, msc2;
    morse_smale_complex::execute(grid, view, mscAlone, Monitor{}, msc1);
    morse_smale_complex::execute(grid, view, mscShared, Monitor{}, msc2);
    EXPECT_EQ(msc1.gradient.gradient, msc2.gradient.gradient);
    EXPECT_EQ(msc1.descendingManifold, msc2.descendingManifold);
    EXPECT_EQ(msc1.ascendingManifold, msc2.ascendingManifold);
    EXPECT_EQ(msc1.cellAscendingManifold, msc2.cellAscendingManifold);
    EXPECT_EQ(msc1.maxima, msc2.maxima);
    EXPECT_EQ(msc1.boundaryMaxima, msc2.boundaryMaxima);
    EXPECT_EQ(cache.computed(), 1u) << "one sort for the three modules";
  }
}

TEST(VertexOrderCache, MeshModulesShareOneSortAndOutputTheSame) {
  std::mt19937 rng(17);
  for (int index = 0; index < 12; ++index) {
    const RandomMesh random = randomMesh(index, rng);
    ExplicitTriangulation mesh(random.numberOfVertices, random.dimension,
                               flatten(random.cells));
    const std::vector<float> values =
        tiedValues(rng, std::size_t(random.numberOfVertices));
    const ScalarArrayView view = viewOf(values);
    frontend::VertexOrderCache cache;
    const std::string label = "mesh " + std::to_string(index);

    critical_points::Parameters cpShared{Backend::Cpu};
    cpShared.vertexOrder = cache.source();
    critical_points::Output cp1, cp2;
    critical_points::execute(mesh, view, critical_points::Parameters{Backend::Cpu},
                             Monitor{}, cp1);
    critical_points::execute(mesh, view, cpShared, Monitor{}, cp2);
    EXPECT_EQ(cp1.vertexTypes, cp2.vertexTypes) << label;

    sg::Parameters sgShared;
    sgShared.vertexOrder = cache.source();
    sg::Output sg1, sg2;
    sg::execute(mesh, view, sg::Parameters{}, Monitor{}, sg1);
    sg::execute(mesh, view, sgShared, Monitor{}, sg2);
    EXPECT_EQ(sg1.gradient, sg2.gradient) << label;
    EXPECT_EQ(sg1.criticalCells, sg2.criticalCells) << label;
    EXPECT_TRUE(hasStage(sg2.report, "vertex order (cached)")) << label;

    smsc::Parameters mscShared;
    mscShared.vertexOrder = cache.source();
    smsc::Output msc1, msc2;
    bool ran = true;
    try {
      smsc::execute(mesh, view, smsc::Parameters{}, Monitor{}, msc1);
    } catch (const Error&) {
      ran = false; // a mesh the complex refuses: refused the same way below
    }
    if (ran) {
      smsc::execute(mesh, view, mscShared, Monitor{}, msc2);
      EXPECT_EQ(msc1.rank, msc2.rank) << label;
      EXPECT_EQ(msc1.descendingManifold, msc2.descendingManifold) << label;
      EXPECT_EQ(msc1.ascendingManifold, msc2.ascendingManifold) << label;
      EXPECT_EQ(msc1.saddle1Minimum.size(), msc2.saddle1Minimum.size()) << label;
      EXPECT_EQ(msc1.saddleMaximum.size(), msc2.saddleMaximum.size()) << label;
      EXPECT_EQ(msc1.connectionMultiplicitySum, msc2.connectionMultiplicitySum) << label;
    } else {
      EXPECT_THROW(smsc::execute(mesh, view, mscShared, Monitor{}, msc2), Error) << label;
    }
    EXPECT_EQ(cache.computed(), 1u) << label << ": one sort for every module";
  }
}

} // namespace
