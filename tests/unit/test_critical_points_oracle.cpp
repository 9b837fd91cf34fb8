// Critical points against an independent brute-force classifier. The oracle rebuilds the
// link of every vertex from the cells of its star (TTK's tets of the surrounding voxels,
// from TTK's corner list, on grids; a vertex -> cells scan on meshes), splits it by the
// (value, index) order, counts components with its own union-find and applies TTK 1.2's
// rule restated below. It also yields chi of the lower link, so the
// Euler relation sum_v (1 - chi(lower link of v)) == chi(domain) checks the oracle
// itself.
#include "BruteForce.h"
#include "UnitHelpers.h"

#include "core/common/VertexOrder.h"
#include "core/critical_points/CriticalPoints.h"
#include "core/critical_points/CriticalPointsCpu.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <gtest/gtest.h>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <numeric>
#include <random>
#include <sstream>

namespace topogpu::test {
namespace {

// TTK 1.2's ScalarFieldCriticalPoints::getCriticalType, restated from its specification
// (not from CriticalType.h): (lower, upper) link components (0,1) minimum, (1,0)
// maximum, (1,1) regular but for the 3D boundary case, then 3D (2,1) 1-saddle, (1,2)
// 2-saddle, 2D (2,1) (1,2) (2,2) saddle; all else degenerate. lowerB/upperB: some
// lower/upper neighbour is a boundary vertex; onB: v is.
std::int8_t ruleType(int dimension, int lower, int upper, bool lowerB, bool upperB,
                     bool onB) {
  const std::int8_t minimum = 0, saddle1 = 1, saddle2 = 2, maximum = 3, degenerate = 4,
                    regular = 5;
  if (lower == 0 && upper == 1)
    return minimum;
  if (lower == 1 && upper == 0)
    return maximum;
  if (lower == 1 && upper == 1) {
    if (dimension == 3 && onB && upperB && !lowerB)
      return saddle1;
    if (dimension == 3 && onB && lowerB && !upperB)
      return saddle2;
    return regular;
  }
  if (dimension == 3)
    return lower == 2 && upper == 1   ? saddle1
           : lower == 1 && upper == 2 ? saddle2
                                      : degenerate;
  const bool saddle = (lower == 2 && upper == 1) || (lower == 1 && upper == 2) ||
                      (lower == 2 && upper == 2);
  return saddle ? saddle1 : degenerate;
}

struct OracleResult {
  std::vector<std::int8_t> types;
  std::vector<int> lower, upper; // component counts, for messages
  std::int64_t eulerSum = 0;     // sum over vertices of 1 - chi(lower link)
};

// A value field of any type, compared the same way for every vertex: u is below v when
// its value is smaller, or equal with a smaller index.
template <typename T> struct Field {
  const T* v;
  bool below(SimplexId a, SimplexId b) const {
    return v[a] < v[b] || (!(v[b] < v[a]) && a < b);
  }
};

// Union-find over a fixed number of local link slots.
template <int N> struct SmallUnionFind {
  int parent[N];
  void reset(int n) {
    for (int i = 0; i < n; ++i)
      parent[i] = i;
  }
  int root(int x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(int a, int b) { parent[root(a)] = root(b); }
};

// ---- grid oracle: streaming, no stored cells
// ----------------------------------------------

struct GridShape {
  SimplexId n[3];
  int axes[3] = {0, 0, 0};
  int dimension = 0;
  explicit GridShape(SimplexId nx, SimplexId ny, SimplexId nz) : n{nx, ny, nz} {
    for (int a = 0; a < 3; ++a)
      if (n[a] > 1)
        axes[dimension++] = a;
  }
  SimplexId count() const { return n[0] * n[1] * n[2]; }
  SimplexId index(const SimplexId c[3]) const {
    return c[0] + n[0] * (c[1] + n[1] * c[2]);
  }
  bool onBoundary(SimplexId v) const {
    const SimplexId c[3] = {v % n[0], v / n[0] % n[1], v / (n[0] * n[1])};
    for (int k = 0; k < dimension; ++k) {
      if (c[axes[k]] == 0 || c[axes[k]] == n[axes[k]] - 1)
        return true;
    }
    return false;
  }
};

// Link of v from TTK's cells of the (up to 2^d) voxels around it: corners named by bit
// masks over the active axes (bit i = one step along active axis i), voxel tets ABCG,
// BCDG, ABEG, BEFG, BFGH, BDGH (A=0 ... H=7 in x-fastest order), pixel triangles abc,
// bcd; when v is a corner of a cell, the other corners span a face of its link.
template <typename T>
void classifyGridVertex(const GridShape& g, const Field<T>& f, SimplexId v,
                        std::int8_t& type, int& lowerCount, int& upperCount, int& chi) {
  static const int tets[6][4] = {{0, 1, 2, 6}, {1, 2, 3, 6}, {0, 1, 4, 6},
                                 {1, 4, 5, 6}, {1, 5, 6, 7}, {1, 3, 6, 7}};
  static const int triangles[2][4] = {{0, 1, 2, 0}, {1, 2, 3, 0}};
  const int d = g.dimension;
  const SimplexId c[3] = {v % g.n[0], v / g.n[0] % g.n[1], v / (g.n[0] * g.n[1])};
  // local slot of a neighbour: its displacement in {-1,0,1}^3
  bool present[27] = {}, isLower[27] = {};
  std::uint32_t edgeSeen[27] = {}; // bit b of edgeSeen[a]: link edge (a, b) counted
  SmallUnionFind<27> uf;
  uf.reset(27);
  int lowerVertices = 0, lowerEdges = 0, lowerTriangles = 0;
  bool lowerB = false, upperB = false;
  for (int voxel = 0; voxel < (1 << d); ++voxel) {
    SimplexId base[3] = {c[0], c[1], c[2]};
    bool valid = true;
    for (int k = 0; k < d; ++k) {
      const int a = g.axes[k];
      base[a] -= (voxel >> k) & 1;
      valid = valid && base[a] >= 0 && base[a] + 1 < g.n[a];
    }
    if (!valid)
      continue;
    for (int t = 0; t < (d == 3 ? 6 : 2); ++t) {
      const int* cell = d == 3 ? tets[t] : triangles[t];
      SimplexId corner[4][3];
      int self = -1;
      for (int q = 0; q <= d; ++q) {
        for (int a = 0; a < 3; ++a)
          corner[q][a] = base[a];
        for (int k = 0; k < d; ++k)
          corner[q][g.axes[k]] += (cell[q] >> k) & 1;
        if (corner[q][0] == c[0] && corner[q][1] == c[1] && corner[q][2] == c[2])
          self = q;
      }
      if (self < 0)
        continue;
      int slot[3], ns = 0;
      for (int q = 0; q <= d; ++q) {
        if (q == self)
          continue;
        const int s = int(corner[q][0] - c[0] + 1) + 3 * int(corner[q][1] - c[1] + 1) +
                      9 * int(corner[q][2] - c[2] + 1);
        if (!present[s]) {
          present[s] = true;
          const SimplexId u = g.index(corner[q]);
          isLower[s] = f.below(u, v);
          lowerVertices += isLower[s];
          if (g.onBoundary(u))
            (isLower[s] ? lowerB : upperB) = true;
        }
        slot[ns++] = s;
      }
      for (int i = 0; i < ns; ++i) {
        for (int j = i + 1; j < ns; ++j) {
          const int a = std::min(slot[i], slot[j]), b = std::max(slot[i], slot[j]);
          if (edgeSeen[a] >> b & 1u)
            continue;
          edgeSeen[a] |= 1u << b;
          if (isLower[a] == isLower[b])
            uf.join(a, b);
          lowerEdges += isLower[a] && isLower[b];
        }
      }
      // each link triangle is the opposite face of exactly one tet: no duplicates
      if (ns == 3)
        lowerTriangles += isLower[slot[0]] && isLower[slot[1]] && isLower[slot[2]];
    }
  }
  lowerCount = upperCount = 0;
  for (int s = 0; s < 27; ++s) {
    if (present[s] && uf.root(s) == s)
      (isLower[s] ? lowerCount : upperCount)++;
  }
  chi = lowerVertices - lowerEdges + lowerTriangles;
  type = ruleType(d, lowerCount, upperCount, lowerB, upperB, g.onBoundary(v));
}

template <typename T> OracleResult gridOracle(const GridShape& g, const T* values) {
  OracleResult r;
  const SimplexId n = g.count();
  r.types.resize(n);
  r.lower.resize(n);
  r.upper.resize(n);
  const Field<T> f{values};
  r.eulerSum = tbb::parallel_reduce(
      tbb::blocked_range<SimplexId>(0, n), std::int64_t(0),
      [&](const tbb::blocked_range<SimplexId>& range, std::int64_t sum) {
        for (SimplexId v = range.begin(); v < range.end(); ++v) {
          int chi = 0;
          classifyGridVertex(g, f, v, r.types[v], r.lower[v], r.upper[v], chi);
          sum += 1 - chi;
        }
        return sum;
      },
      std::plus<std::int64_t>());
  return r;
}

// ---- mesh oracle: any list of cells
// ---------------------------------------------------------

// boundary: the boundary vertices (BruteComplex::boundary(0)).
template <typename T>
OracleResult meshOracle(SimplexId nv, int dimension, const std::vector<Tuple>& cells,
                        const std::set<Tuple>& boundary, const T* values) {
  OracleResult r;
  r.types.resize(nv);
  r.lower.resize(nv);
  r.upper.resize(nv);
  const Field<T> f{values};
  std::vector<std::vector<std::size_t>> star(nv);
  for (std::size_t i = 0; i < cells.size(); ++i)
    for (SimplexId u : cells[i])
      star[u].push_back(i);
  for (SimplexId v = 0; v < nv; ++v) {
    std::map<SimplexId, int> slot;
    std::set<std::pair<SimplexId, SimplexId>> edges;
    std::set<Tuple> triangles;
    for (std::size_t ci : star[v]) {
      Tuple face;
      for (SimplexId u : cells[ci])
        if (u != v)
          face.push_back(u);
      std::sort(face.begin(), face.end());
      for (SimplexId u : face)
        slot.emplace(u, int(slot.size()));
      for (std::size_t i = 0; i < face.size(); ++i)
        for (std::size_t j = i + 1; j < face.size(); ++j)
          edges.insert({face[i], face[j]});
      if (face.size() == 3)
        triangles.insert(face);
    }
    std::vector<int> parent(slot.size());
    std::iota(parent.begin(), parent.end(), 0);
    auto root = [&](int x) {
      while (parent[x] != x)
        x = parent[x];
      return x;
    };
    int chi = 0;
    for (const auto& [u, s] : slot)
      chi += f.below(u, v);
    for (const auto& [a, b] : edges) {
      const bool la = f.below(a, v), lb = f.below(b, v);
      if (la == lb)
        parent[root(slot[a])] = root(slot[b]);
      chi -= la && lb;
    }
    for (const Tuple& t : triangles)
      chi += f.below(t[0], v) && f.below(t[1], v) && f.below(t[2], v);
    int lower = 0, upper = 0;
    bool lowerB = false, upperB = false;
    for (const auto& [u, s] : slot) {
      if (root(s) == s)
        (f.below(u, v) ? lower : upper)++;
      if (boundary.count({u}))
        (f.below(u, v) ? lowerB : upperB) = true;
    }
    r.lower[v] = lower;
    r.upper[v] = upper;
    r.types[v] =
        ruleType(dimension, lower, upper, lowerB, upperB, boundary.count({v}) > 0);
    r.eulerSum += 1 - chi;
  }
  return r;
}

// ---- comparison
// -----------------------------------------------------------------------------

const char* typeName(int t) {
  static const char* names[] = {"minimum", "saddle1",    "saddle2",
                                "maximum", "degenerate", "regular"};
  return t >= 0 && t < 6 ? names[t] : "?";
}

// Everything the output claims, checked against the oracle: per-vertex types, the
// compacted list, the counts and the boundary flags.
void compareOutput(const critical_points::Output& out, const OracleResult& oracle,
                   const std::function<bool(SimplexId)>& onBoundary,
                   const std::string& what) {
  SCOPED_TRACE(what);
  const SimplexId n = SimplexId(oracle.types.size());
  ASSERT_EQ(SimplexId(out.vertexTypes.size()), n);
  int failures = 0;
  std::array<SimplexId, 6> counts{};
  std::vector<SimplexId> critical;
  for (SimplexId v = 0; v < n; ++v) {
    ++counts[oracle.types[v]];
    if (oracle.types[v] != 5)
      critical.push_back(v);
    if (out.vertexTypes[v] != oracle.types[v] && failures++ < 10)
      ADD_FAILURE() << "vertex " << v << ": " << typeName(out.vertexTypes[v])
                    << ", oracle says " << typeName(oracle.types[v]) << " (lower link "
                    << oracle.lower[v] << " components, upper " << oracle.upper[v] << ")";
  }
  EXPECT_EQ(failures, 0) << "vertices misclassified";
  for (int t = 0; t < 6; ++t)
    EXPECT_EQ(out.counts[t], counts[t]) << typeName(t) << " count";
  EXPECT_EQ(out.criticalVertices, critical);
  ASSERT_EQ(out.criticalOnBoundary.size(), out.criticalVertices.size());
  for (std::size_t i = 0; i < out.criticalVertices.size(); ++i)
    EXPECT_EQ(out.criticalOnBoundary[i] != 0, onBoundary(out.criticalVertices[i]))
        << "boundary flag of critical vertex " << out.criticalVertices[i];
}

// Minima and maxima by the trivial definition, from a neighbour list only. With a
// connected link (grids) the rule's extrema are exactly these; on meshes (pinched or
// empty links) an extremum by neighbours whose link is not one component is degenerate.
template <typename T>
void checkExtremaByNeighbors(
    const critical_points::Output& out, const T* values,
    const std::function<void(SimplexId, std::vector<SimplexId>&)>& neighbors,
    bool connectedLinks) {
  const SimplexId n = SimplexId(out.vertexTypes.size());
  const Field<T> f{values};
  std::vector<SimplexId> nb;
  SimplexId minima = 0, maxima = 0;
  int failures = 0;
  for (SimplexId v = 0; v < n; ++v) {
    neighbors(v, nb);
    bool allHigher = true, allLower = true;
    for (SimplexId u : nb) {
      (f.below(u, v) ? allHigher : allLower) = false;
    }
    // An isolated vertex is both by this definition and neither by the rule.
    if (nb.empty()) {
      if (out.vertexTypes[v] != 4 && failures++ < 5)
        ADD_FAILURE() << "isolated vertex " << v << " is not degenerate";
      continue;
    }
    const bool minimum = out.vertexTypes[v] == 0, maximum = out.vertexTypes[v] == 3;
    const bool degenerate = out.vertexTypes[v] == 4;
    minima += allHigher;
    maxima += allLower;
    if (minimum != allHigher && (connectedLinks || !(allHigher && degenerate)) &&
        failures++ < 5)
      ADD_FAILURE() << "vertex " << v << " minimum by neighbours: " << allHigher;
    if (maximum != allLower && (connectedLinks || !(allLower && degenerate)) &&
        failures++ < 5)
      ADD_FAILURE() << "vertex " << v << " maximum by neighbours: " << allLower;
  }
  if (connectedLinks) {
    EXPECT_EQ(out.count(CriticalType::Minimum), minima);
    EXPECT_EQ(out.count(CriticalType::Maximum), maxima);
  }
}

// Grid neighbours in TTK's triangulation: v +- (a non-empty set of unit steps along the
// active axes) where the first active axis steps the other way (the B-G diagonal).
std::function<void(SimplexId, std::vector<SimplexId>&)>
gridNeighbors(const GridShape& g) {
  return [g](SimplexId v, std::vector<SimplexId>& out) {
    out.clear();
    const SimplexId c[3] = {v % g.n[0], v / g.n[0] % g.n[1], v / (g.n[0] * g.n[1])};
    for (int mask = 1; mask < (1 << g.dimension); ++mask) {
      for (int sign : {-1, 1}) {
        SimplexId u[3] = {c[0], c[1], c[2]};
        bool inside = true;
        for (int k = 0; k < g.dimension; ++k) {
          const int a = g.axes[k];
          u[a] += SimplexId(k == 0 ? -sign : sign) * ((mask >> k) & 1);
          inside = inside && u[a] >= 0 && u[a] < g.n[a];
        }
        if (inside)
          out.push_back(g.index(u));
      }
    }
  };
}

// Runs the implicit backend and the grid oracle on one field and compares everything.
template <typename T>
void checkGrid(SimplexId nx, SimplexId ny, SimplexId nz, const std::vector<T>& values,
               const std::string& what, bool extrema = true) {
  SCOPED_TRACE(what);
  const GridShape g(nx, ny, nz);
  ImplicitTriangulation tri(nx, ny, nz);
  critical_points::Parameters params;
  params.backend = Backend::Cpu;
  critical_points::Output out;
  critical_points::execute(tri, viewOf(values), params, Monitor{}, out);
  const OracleResult oracle = gridOracle(g, values.data());
  // The box is contractible: if this fails, the oracle's links are wrong.
  EXPECT_EQ(oracle.eulerSum, 1) << "Euler relation of the oracle";
  compareOutput(
      out, oracle, [&](SimplexId v) { return g.onBoundary(v); }, what);
  if (extrema)
    checkExtremaByNeighbors(out, values.data(), gridNeighbors(g), true);
}

template <typename T>
void checkMesh(SimplexId nv, int dim, const std::vector<Tuple>& cells,
               const std::vector<T>& values, const std::string& what) {
  SCOPED_TRACE(what);
  const BruteComplex ref(nv, dim, cells);
  ExplicitTriangulation tri(nv, dim, flatten(cells));
  critical_points::Parameters params;
  params.backend = Backend::Cpu;
  critical_points::Output out;
  critical_points::execute(tri, {values.data(), scalarTypeOf<T>(), nv}, params, Monitor{},
                           out);
  const std::set<Tuple> boundary = ref.boundary(0);
  const OracleResult oracle = meshOracle(nv, dim, cells, boundary, values.data());
  EXPECT_EQ(oracle.eulerSum, ref.euler()) << "Euler relation of the oracle";
  compareOutput(
      out, oracle, [&](SimplexId v) { return boundary.count({v}) > 0; }, what);
  std::vector<std::vector<SimplexId>> adjacency(nv);
  for (const Tuple& e : ref.simplices[1]) {
    adjacency[e[0]].push_back(e[1]);
    adjacency[e[1]].push_back(e[0]);
  }
  checkExtremaByNeighbors(
      out, values.data(),
      [&](SimplexId v, std::vector<SimplexId>& nb) { nb = adjacency[v]; }, false);
}

// ---- real volumes
// -----------------------------------------------------------------------------

struct Volume {
  const char* file;
  SimplexId nx, ny, nz;
};

template <typename T> void checkVolume(const Volume& vol) {
  const std::string dir = sharedDataDir();
  const std::string path = dir + "/volumes/" + vol.file;
  const std::vector<T> values = readRaw<T>(path, std::size_t(vol.nx * vol.ny * vol.nz));
  if (values.empty())
    GTEST_SKIP() << "test data missing: " << path
                 << " (set TOPOGPU_SHARED_DATA to the shared data folder)";
  // The minima/maxima cross-check is the same for all volumes; the large one skips it to
  // keep the suite fast (the oracle already covers it).
  checkGrid(vol.nx, vol.ny, vol.nz, values, vol.file, vol.nx * vol.ny * vol.nz < 2000000);
}

TEST(CriticalPointsOracle, Fuel) {
  checkVolume<std::uint8_t>({"fuel_64x64x64_uint8.raw", 64, 64, 64});
}
TEST(CriticalPointsOracle, Neghip) {
  checkVolume<std::uint8_t>({"neghip_64x64x64_uint8.raw", 64, 64, 64});
}
TEST(CriticalPointsOracle, Silicium) {
  checkVolume<std::uint8_t>({"silicium_98x34x34_uint8.raw", 98, 34, 34});
}
TEST(CriticalPointsOracle, Engine) {
  checkVolume<std::uint8_t>({"engine_256x256x128_uint8.raw", 256, 256, 128});
}
TEST(CriticalPointsOracle, HydrogenOrbital) {
  checkVolume<float>({"hydrogen_orbital_64x64x64_float32.raw", 64, 64, 64});
}
TEST(CriticalPointsOracle, Headsq) {
  checkVolume<std::int16_t>({"headsq_64x64x93_int16le.raw", 64, 64, 93});
}

// ---- random grids
// -----------------------------------------------------------------------------

template <typename T>
std::vector<T> randomField(std::mt19937& rng, SimplexId n, int range) {
  std::vector<T> values(n);
  std::uniform_int_distribution<int> d(0, range - 1);
  for (T& x : values)
    x = T(d(rng)) / (std::is_floating_point_v<T> ? T(7) : T(1));
  return values;
}

TEST(CriticalPointsOracle, RandomGrids3D) {
  std::mt19937 rng(1);
  for (int seed = 0; seed < 60; ++seed) {
    std::uniform_int_distribution<int> size(2, 7);
    const SimplexId nx = size(rng), ny = size(rng), nz = size(rng);
    const int range = seed % 3 == 0 ? 2 : seed % 3 == 1 ? 4 : 100000;
    const std::string what = "3D seed " + std::to_string(seed) + " " +
                             gridName(nx, ny, nz) + " range " + std::to_string(range);
    if (seed % 2)
      checkGrid(nx, ny, nz, randomField<float>(rng, nx * ny * nz, range), what);
    else
      checkGrid(nx, ny, nz, randomField<std::int32_t>(rng, nx * ny * nz, range), what);
  }
}

TEST(CriticalPointsOracle, RandomGrids2D) {
  std::mt19937 rng(2);
  for (int seed = 0; seed < 80; ++seed) {
    std::uniform_int_distribution<int> size(2, 9);
    SimplexId n[3] = {size(rng), size(rng), size(rng)};
    n[seed % 3] = 1; // 2D in every orientation, so the squeeze is covered too
    const int range = seed % 3 == 0 ? 2 : seed % 3 == 1 ? 3 : 100000;
    const std::string what = "2D seed " + std::to_string(seed) + " " +
                             gridName(n[0], n[1], n[2]) + " range " +
                             std::to_string(range);
    checkGrid(n[0], n[1], n[2], randomField<double>(rng, n[0] * n[1] * n[2], range),
              what);
  }
}

// Grids with axes of 2 points: every vertex and its whole star lie on the boundary (so
// TTK's boundary case never fires: both link sides touch the boundary), only partial
// stars; few values make ties everywhere. RandomGrids3D covers the boundary case.
TEST(CriticalPointsOracle, ThinGrids) {
  std::mt19937 rng(6);
  const SimplexId shapes[][3] = {{2, 2, 2}, {2, 2, 7}, {2, 6, 2}, {5, 2, 2}, {2, 5, 6},
                                 {6, 2, 5}, {5, 6, 2}, {2, 9, 1}, {1, 2, 8}, {2, 2, 1}};
  for (int round = 0; round < 12; ++round) {
    for (const auto& n : shapes) {
      const int range = round % 3 == 0 ? 2 : round % 3 == 1 ? 3 : 100000;
      const std::string what =
          "thin " + gridName(n[0], n[1], n[2]) + " round " + std::to_string(round);
      checkGrid(n[0], n[1], n[2], randomField<float>(rng, n[0] * n[1] * n[2], range),
                what);
    }
  }
}

// The grid path runs the stencil classifier (shared with the GPU); the generic,
// triangulation-based classifier must give the same class to every vertex.
TEST(CriticalPointsOracle, GenericClassifierAgreesWithStencilOnGrids) {
  std::mt19937 rng(3);
  for (int seed = 0; seed < 40; ++seed) {
    std::uniform_int_distribution<int> size(2, 12);
    SimplexId n[3] = {size(rng), size(rng), size(rng)};
    if (seed % 4 == 0)
      n[seed % 3] = 1;
    ImplicitTriangulation tri(n[0], n[1], n[2]);
    // pieces of a distributed grid: some faces are cuts, not boundary
    if (seed % 3 == 1)
      tri.setBoundaryFaces(int(rng() % 64));
    tri.precondition(critical_points::kRequiredRelations);
    const auto values =
        randomField<double>(rng, tri.getNumberOfVertices(), seed % 2 ? 3 : 1000);
    std::vector<SimplexId> order(values.size());
    computeVertexOrderCpu(viewOf(values), order.data());
    std::vector<std::int8_t> stencil(values.size());
    critical_points::classifyVerticesCpu(tri, order.data(), stencil.data(), Monitor{});
    critical_points::LinkScratch scratch;
    for (SimplexId v = 0; v < tri.getNumberOfVertices(); ++v)
      ASSERT_EQ(
          std::int8_t(critical_points::classifyVertex(tri, v, order.data(), scratch)),
          stencil[v])
          << "vertex " << v << " of " << n[0] << "x" << n[1] << "x" << n[2] << " seed "
          << seed;
  }
}

// The two oracles agree with each other on grids, so the mesh tests below stand on the
// same ground as the grid tests.
TEST(CriticalPointsOracle, OraclesAgreeOnGrids) {
  std::mt19937 rng(3);
  for (int seed = 0; seed < 20; ++seed) {
    const SimplexId nx = 2 + seed % 4, ny = 2 + seed % 3, nz = seed % 2 ? 1 : 3;
    const auto values = randomField<std::int32_t>(rng, nx * ny * nz, 3 + seed);
    const GridShape g(nx, ny, nz);
    const OracleResult a = gridOracle(g, values.data());
    const std::vector<Tuple> cells = ttkGridCells(nx, ny, nz);
    const BruteComplex ref(nx * ny * nz, g.dimension, cells);
    const OracleResult b =
        meshOracle(nx * ny * nz, g.dimension, cells, ref.boundary(0), values.data());
    EXPECT_EQ(a.types, b.types) << "seed " << seed;
    EXPECT_EQ(a.eulerSum, b.eulerSum) << "seed " << seed;
  }
}

// ---- explicit meshes
// ------------------------------------------------------------------------

TEST(CriticalPointsOracle, ExplicitTetrahedralizedGrids) {
  std::mt19937 rng(4);
  for (int seed = 0; seed < 30; ++seed) {
    std::uniform_int_distribution<int> size(2, 6);
    SimplexId n[3] = {size(rng), size(rng), size(rng)};
    if (seed % 3 == 2)
      n[seed % 2 ? 2 : 0] = 1;
    const SimplexId nv = n[0] * n[1] * n[2];
    std::vector<Tuple> cells = ttkGridCells(n[0], n[1], n[2]);
    std::shuffle(cells.begin(), cells.end(), rng);
    const int dim = int(cells.front().size()) - 1;
    const auto values = randomField<float>(rng, nv, seed % 2 ? 3 : 1000);
    checkMesh(nv, dim, cells, values,
              "tetrahedralized grid seed " + std::to_string(seed));
    // and the implicit backend on the same field: both backends, one oracle
    checkGrid(n[0], n[1], n[2], values, "same grid, implicit");
  }
}

// Random cells over a few vertices (non-manifold, pinched, with holes and isolated
// vertices) and random sub-complexes of a grid with relabelled vertices.
TEST(CriticalPointsOracle, ExplicitRandomMeshes) {
  std::mt19937 rng(5);
  for (int seed = 0; seed < 60; ++seed) {
    const RandomMesh mesh = randomMesh(seed, rng);
    const auto values =
        randomField<double>(rng, mesh.numberOfVertices, seed % 3 ? 4 : 1000);
    checkMesh(mesh.numberOfVertices, mesh.dimension, mesh.cells, values,
              "random mesh seed " + std::to_string(seed));
  }
}

} // namespace
} // namespace topogpu::test
