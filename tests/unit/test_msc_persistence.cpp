// Persistence pairs of the Morse-Smale complex (the Discrete Morse Sandwich on the
// cubical complex, CubicalPersistence.h) and the complex on analytic fields, against
// oracles that share nothing with the modules:
//  * the lower-star persistence of the grid itself, without any gradient: H0 by Kruskal's
//    union-find with the elder rule over the grid's edges (increasing value), H_{d-1} by
//    the dual union-find over the top cells and one node "outside" through the facets
//    (decreasing value; Alexander duality on the boundary matrix of the top cells), with
//    the plain-sort ranks of BruteForce.h and this file's own cell enumeration;
//  * sums of well-separated Gaussians: one maximum per centre at its nearest vertex and
//    the wells' regions (their negatives);
//  * products of sines: critical points per index derived from the formula by
//    stratified Morse theory on the box (interior critical points, and critical points
//    of f on faces, edges and corners where f increases in every inward direction);
//  * a ramp: no pair.
#include "BruteForce.h"
#include "UnitHelpers.h"
#include "core/persistence_diagram/CubicalPersistence.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace topogpu::test {
namespace {

namespace msc = morse_smale_complex;
namespace pd = persistence_diagram;
using Coord = std::array<SimplexId, 3>;
using Triple = std::array<SimplexId, 3>; // dimension, birth rank, death rank

template <typename T> msc::Output run(const Coord& dims, const std::vector<T>& values) {
  ImplicitTriangulation tri(dims[0], dims[1], dims[2]);
  msc::Output out;
  msc::Parameters parameters{Backend::Cpu};
  parameters.computeSaddleConnections = false;
  msc::execute(tri, viewOf(values), parameters, Monitor{}, out);
  return out;
}

// ---- the union-find oracle
// -------------------------------------------------------------

struct UnionFind {
  std::vector<SimplexId> parent, oldest; // oldest: the elder value of a root's component
  SimplexId find(SimplexId x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  }
};

// The H0 and H_{d-1} pairs of positive persistence, as (dimension, birth, death) ranks.
std::multiset<Triple> unionFindDiagram(const Coord& dims,
                                       const std::vector<SimplexId>& rank) {
  std::vector<SimplexId> n; // squeezed axes, as the triangulation's
  for (SimplexId k : dims)
    if (k > 1)
      n.push_back(k);
  const int d = int(n.size());
  n.resize(3, 1);
  const SimplexId stride[3] = {1, n[0], n[0] * n[1]};
  std::multiset<Triple> pairs;

  // Vertices (by anchor) of the cell spanning `axes` (bit mask) from anchor vertex c.
  auto cellValue = [&](const SimplexId c[3], int axes) {
    SimplexId value = -1;
    for (int corner = 0; corner < 8; ++corner) {
      if ((corner & ~axes) != 0)
        continue;
      SimplexId v = 0;
      for (int a = 0; a < 3; ++a)
        v += (c[a] + ((corner >> a) & 1)) * stride[a];
      value = std::max(value, rank[std::size_t(v)]);
    }
    return value;
  };

  // H0: edges by increasing value; a merge kills the younger component.
  struct Link {
    SimplexId value, u, w;
  };
  std::vector<Link> edges;
  for (SimplexId z = 0; z < n[2]; ++z)
    for (SimplexId y = 0; y < n[1]; ++y)
      for (SimplexId x = 0; x < n[0]; ++x) {
        const SimplexId c[3] = {x, y, z};
        const SimplexId v = x + n[0] * (y + n[1] * z);
        for (int a = 0; a < d; ++a)
          if (c[a] + 1 < n[a])
            edges.push_back({cellValue(c, 1 << a), v, v + stride[a]});
      }
  std::sort(edges.begin(), edges.end(),
            [](const Link& a, const Link& b) { return a.value < b.value; });
  UnionFind vertices{std::vector<SimplexId>(rank.size()), rank};
  std::iota(vertices.parent.begin(), vertices.parent.end(), SimplexId(0));
  for (const Link& e : edges) {
    SimplexId a = vertices.find(e.u), b = vertices.find(e.w);
    if (a == b)
      continue;
    if (vertices.oldest[a] < vertices.oldest[b])
      std::swap(a, b); // a: the younger
    if (vertices.oldest[a] != e.value)
      pairs.insert({0, vertices.oldest[a], e.value});
    vertices.parent[a] = b;
  }

  // H_{d-1}: facets by decreasing value join top cells (or a top cell and outside, the
  // oldest node); a merge kills the component whose highest top cell is lower.
  const SimplexId m[3] = {std::max<SimplexId>(n[0] - 1, 1),
                          std::max<SimplexId>(n[1] - 1, 1), d == 3 ? n[2] - 1 : 1};
  const SimplexId nTop = m[0] * m[1] * m[2], outside = nTop;
  const int topAxes = (1 << d) - 1;
  UnionFind top{std::vector<SimplexId>(std::size_t(nTop + 1)),
                std::vector<SimplexId>(std::size_t(nTop + 1))};
  std::iota(top.parent.begin(), top.parent.end(), SimplexId(0));
  auto topIndex = [&](const SimplexId c[3]) {
    return c[0] + m[0] * (c[1] + m[1] * c[2]);
  };
  for (SimplexId z = 0; z < m[2]; ++z)
    for (SimplexId y = 0; y < m[1]; ++y)
      for (SimplexId x = 0; x < m[0]; ++x) {
        const SimplexId c[3] = {x, y, z};
        top.oldest[std::size_t(topIndex(c))] = cellValue(c, topAxes);
      }
  top.oldest[std::size_t(outside)] = std::numeric_limits<SimplexId>::max();
  std::vector<Link> facets;
  for (int a = 0; a < d; ++a) {
    SimplexId extent[3] = {m[0], m[1], m[2]};
    extent[a] = n[a]; // facet planes x_a = 0 .. n_a - 1
    for (SimplexId z = 0; z < extent[2]; ++z)
      for (SimplexId y = 0; y < extent[1]; ++y)
        for (SimplexId x = 0; x < extent[0]; ++x) {
          SimplexId c[3] = {x, y, z};
          const SimplexId value = cellValue(c, topAxes & ~(1 << a));
          SimplexId side[2] = {outside, outside};
          if (c[a] > 0) {
            --c[a];
            side[0] = topIndex(c);
            ++c[a];
          }
          if (c[a] < n[a] - 1)
            side[1] = topIndex(c);
          facets.push_back({value, side[0], side[1]});
        }
  }
  std::sort(facets.begin(), facets.end(),
            [](const Link& a, const Link& b) { return a.value > b.value; });
  for (const Link& f : facets) {
    SimplexId a = top.find(f.u), b = top.find(f.w);
    if (a == b)
      continue;
    if (top.oldest[a] > top.oldest[b])
      std::swap(a, b); // a: the younger (lower)
    if (top.oldest[a] != f.value)
      pairs.insert({d - 1, f.value, top.oldest[a]});
    top.parent[a] = b;
  }
  return pairs;
}

// The pairs of the arc cancellation against the oracle, and invariants of a pairing:
// each critical cell in at most one pair, of the right dimensions; one essential
// minimum; no maximum left; in 2D every 1-saddle paired, in 3D as many 1-saddles as
// 2-saddles left (they pair with each other in H1, which has no essential class).
template <typename T>
void checkPersistence(const Coord& dims, const std::vector<T>& values,
                      const std::string& tag) {
  const msc::Output out = run(dims, values);
  pd::Persistence p;
  pd::computePersistence(out, viewOf(values), p);
  const cubical::Grid& g = out.gradient.grid;
  const int d = g.dimension;
  std::multiset<Triple> got;
  std::set<SimplexId> cells;
  SimplexId lowPairs = 0;
  for (const auto& pair : p.pairs) {
    got.insert({pair.dimension, pair.birthRank, pair.deathRank});
    EXPECT_TRUE(cells.insert(pair.birth).second) << tag << ": cell " << pair.birth;
    EXPECT_TRUE(cells.insert(pair.death).second) << tag << ": cell " << pair.death;
    const auto& births = out.gradient.criticalCells[std::size_t(pair.dimension)];
    const auto& deaths = out.gradient.criticalCells[std::size_t(pair.dimension) + 1];
    EXPECT_TRUE(std::binary_search(births.begin(), births.end(), pair.birth)) << tag;
    EXPECT_TRUE(std::binary_search(deaths.begin(), deaths.end(), pair.death)) << tag;
    EXPECT_GT(pair.rankPersistence(), 0) << tag;
    EXPECT_GE(pair.persistence(), 0) << tag;
    lowPairs += pair.dimension == 0 ? 1 : 0;
  }
  const std::multiset<Triple> expected = unionFindDiagram(dims, ranksOf(values));
  EXPECT_TRUE(got == expected) << tag << ": " << got.size() << " pairs, the oracle "
                               << expected.size();
  EXPECT_EQ(p.minima.size(), 1u) << tag;
  EXPECT_TRUE(p.maxima.empty()) << tag;
  EXPECT_EQ(lowPairs, out.gradient.counts[0] - 1) << tag;
  EXPECT_EQ(SimplexId(p.pairs.size()) - lowPairs, out.gradient.counts[std::size_t(d)])
      << tag;
  if (d == 2)
    EXPECT_TRUE(p.saddles1.empty()) << tag;
  else
    EXPECT_EQ(p.saddles1.size(), p.saddlesTop.size()) << tag;
}

TEST(MscPersistence, MatchesUnionFindOracleOnRandomFields) {
  std::mt19937 rng(2026);
  const std::vector<Coord> shapes = {{2, 2, 2},    {5, 4, 3}, {8, 7, 6},   {12, 12, 12},
                                     {16, 13, 11}, {9, 8, 1}, {21, 17, 1}, {2, 9, 1},
                                     {1, 7, 6},    {6, 1, 8}, {3, 3, 20}};
  for (const Coord& dims : shapes)
    for (int trial = 0; trial < 4; ++trial) {
      const std::size_t n = std::size_t(dims[0] * dims[1] * dims[2]);
      checkPersistence(dims, randomUniform(rng, n, 0.f, 1.f),
                       "float " + std::to_string(trial));
      // massive ties: the vertex order decides
      checkPersistence(dims, randomLevels<std::uint8_t>(rng, n, 2 + trial % 3),
                       "uint8 " + std::to_string(trial));
    }
}

TEST(MscPersistence, MatchesUnionFindOracleOnMediumFields) {
  std::mt19937 rng(40);
  const Coord dims{36, 34, 32};
  const std::size_t n = std::size_t(dims[0] * dims[1] * dims[2]);
  std::vector<double> noise(n);
  std::normal_distribution<double> normal;
  for (auto& x : noise)
    x = normal(rng);
  // A box blur: larger structures, longer arcs and paths than white noise.
  std::vector<double> smooth(n, 0.0);
  for (SimplexId z = 0; z < dims[2]; ++z)
    for (SimplexId y = 0; y < dims[1]; ++y)
      for (SimplexId x = 0; x < dims[0]; ++x)
        for (int t = 0; t < 27; ++t) {
          const SimplexId a = std::clamp<SimplexId>(x + t % 3 - 1, 0, dims[0] - 1),
                          b = std::clamp<SimplexId>(y + t / 3 % 3 - 1, 0, dims[1] - 1),
                          c = std::clamp<SimplexId>(z + t / 9 - 1, 0, dims[2] - 1);
          smooth[std::size_t(x + dims[0] * (y + dims[1] * z))] +=
              noise[std::size_t(a + dims[0] * (b + dims[1] * c))];
        }
  checkPersistence(dims, smooth, "blurred noise");
  std::vector<std::uint8_t> quantised(n);
  for (std::size_t v = 0; v < n; ++v)
    quantised[v] = std::uint8_t(std::clamp(std::lround(smooth[v] * 0.6 + 4), 0L, 8L));
  checkPersistence(dims, quantised, "blurred noise on 9 levels");
  checkPersistence(Coord{120, 100, 1},
                   randomLevels<std::uint16_t>(rng, std::size_t(120) * 100, 6),
                   "2D 6 levels");
}

// A linear ramp: one minimum, nothing else (the complex's counts are tested in
// test_morse_smale_complex): no pair, the essential minimum at the lowest vertex.
TEST(MscPersistence, RampHasNoPairs) {
  for (const Coord& dims : {Coord{9, 7, 5}, Coord{11, 6, 1}}) {
    std::vector<double> ramp;
    for (SimplexId z = 0; z < dims[2]; ++z)
      for (SimplexId y = 0; y < dims[1]; ++y)
        for (SimplexId x = 0; x < dims[0]; ++x)
          ramp.push_back(0.5 * double(x) + 0.3 * double(y) + 0.2 * double(z));
    const msc::Output out = run(dims, ramp);
    pd::Persistence p;
    pd::computePersistence(out, viewOf(ramp), p);
    EXPECT_TRUE(p.pairs.empty());
    EXPECT_EQ(p.minima, std::vector<SimplexId>{0});
    EXPECT_TRUE(p.maxima.empty() && p.saddles1.empty() && p.saddlesTop.empty());
  }
}

TEST(MscPersistence, BadInput) {
  const std::vector<float> values(60, 1.f);
  const msc::Output out = run(Coord{5, 4, 3}, values);
  pd::Persistence p;
  expectError(
      [&] { pd::computePersistence(out, viewOf(std::vector<float>(59, 1.f)), p); },
      "do not match");
  EXPECT_NO_THROW(pd::computePersistence(out, viewOf(values), p));
  EXPECT_TRUE(p.pairs.empty()); // a constant field: one minimum (the vertex order)
}

// ---- analytic fields
// --------------------------------------------------------------------

// The highest vertex (by value, then index) of a cell given by refined id.
template <typename T>
SimplexId highestVertex(const Coord& dims, SimplexId cell, const std::vector<T>& f) {
  const SimplexId rx = 2 * dims[0] - 1, ry = 2 * dims[1] - 1;
  const SimplexId c[3] = {cell % rx, (cell / rx) % ry, cell / (rx * ry)};
  SimplexId best = -1;
  for (int corner = 0; corner < 8; ++corner) {
    SimplexId v = 0, stride = 1;
    bool ok = true;
    for (int a = 0; a < 3; ++a) {
      const bool high = (corner >> a) & 1;
      ok = ok && (c[a] % 2 == 1 || !high);
      v += (c[a] / 2 + (c[a] % 2 == 1 && high ? 1 : 0)) * stride;
      stride *= dims[a];
    }
    if (ok && (best < 0 || f[std::size_t(v)] > f[std::size_t(best)] ||
               (f[std::size_t(v)] == f[std::size_t(best)] && v > best)))
      best = v;
  }
  return best;
}

// The refined id of vertex v.
SimplexId refinedVertex(const Coord& dims, SimplexId v) {
  const SimplexId rx = 2 * dims[0] - 1, ry = 2 * dims[1] - 1;
  const SimplexId x = v % dims[0], y = v / dims[0] % dims[1], z = v / (dims[0] * dims[1]);
  return 2 * x + rx * (2 * y + ry * 2 * z);
}

// k well-separated Gaussians of distinct heights (ghost modes need overlapping ones):
// exactly one maximum per centre, at the voxel whose highest vertex is the centre's
// nearest vertex; each dies in one (d-1)-saddle/maximum pair. Their negatives, k wells:
// one minimum per centre at its nearest vertex, the deepest well the essential class, and
// every vertex whose value is past half its well's depth (within the superlevel ball of
// that Gaussian alone, which a descending path cannot leave) in that well's region.
TEST(MscAnalytic, SumOfGaussians) {
  struct Bump {
    double c[3], height;
  };
  const double sigma = 2.5;
  const std::vector<std::pair<Coord, std::vector<Bump>>> cases = {
      {{40, 36, 32},
       {{{8.3, 9.2, 8.6}, 1.0},
        {{30.4, 10.1, 20.7}, 1.3},
        {{12.2, 27.6, 22.3}, 1.6},
        {{29.1, 27.3, 9.4}, 1.9}}},
      {{48, 40, 1},
       {{{10.3, 9.6, 0}, 1.2}, {{36.8, 12.2, 0}, 1.0}, {{22.4, 29.7, 0}, 1.7}}}};
  for (const auto& [dims, bumps] : cases) {
    const int d = dims[2] > 1 ? 3 : 2;
    std::vector<double> f;
    for (SimplexId z = 0; z < dims[2]; ++z)
      for (SimplexId y = 0; y < dims[1]; ++y)
        for (SimplexId x = 0; x < dims[0]; ++x) {
          double sum = 0;
          for (const Bump& b : bumps) {
            const double r2 = (x - b.c[0]) * (x - b.c[0]) + (y - b.c[1]) * (y - b.c[1]) +
                              (z - b.c[2]) * (z - b.c[2]);
            sum += b.height * std::exp(-r2 / (2 * sigma * sigma));
          }
          f.push_back(sum);
        }
    std::vector<SimplexId> nearest;
    for (const Bump& b : bumps)
      nearest.push_back(std::lround(b.c[0]) +
                        dims[0] * (std::lround(b.c[1]) + dims[1] * std::lround(b.c[2])));
    const std::string tag = std::to_string(d) + "D";

    const msc::Output up = run(dims, f);
    const auto& maxima = up.gradient.criticalCells[std::size_t(d)];
    ASSERT_EQ(maxima.size(), bumps.size()) << tag;
    std::set<SimplexId> tops;
    for (SimplexId m : maxima)
      tops.insert(highestVertex(dims, m, f));
    EXPECT_EQ(tops, std::set<SimplexId>(nearest.begin(), nearest.end())) << tag;
    pd::Persistence p;
    pd::computePersistence(up, viewOf(f), p);
    std::set<SimplexId> dying;
    for (const auto& pair : p.pairs)
      if (pair.dimension == d - 1)
        dying.insert(pair.death);
    EXPECT_EQ(dying, std::set<SimplexId>(maxima.begin(), maxima.end())) << tag;

    std::vector<double> wells(f.size());
    std::transform(f.begin(), f.end(), wells.begin(), [](double x) { return -x; });
    const msc::Output down = run(dims, wells);
    const auto& minima = down.gradient.criticalCells[0];
    std::set<SimplexId> minimumVertices;
    for (SimplexId m : minima)
      minimumVertices.insert(highestVertex(dims, m, f));
    EXPECT_EQ(minimumVertices, std::set<SimplexId>(nearest.begin(), nearest.end()))
        << tag;
    pd::Persistence q;
    pd::computePersistence(down, viewOf(wells), q);
    const std::size_t deepest =
        std::size_t(std::max_element(bumps.begin(), bumps.end(),
                                     [](const Bump& a, const Bump& b) {
                                       return a.height < b.height;
                                     }) -
                    bumps.begin());
    ASSERT_EQ(q.minima.size(), 1u) << tag;
    EXPECT_EQ(highestVertex(dims, q.minima[0], f), nearest[deepest]);
    std::set<SimplexId> born;
    for (const auto& pair : q.pairs)
      if (pair.dimension == 0)
        born.insert(highestVertex(dims, pair.birth, f));
    EXPECT_EQ(born.size(), bumps.size() - 1) << tag;
    EXPECT_EQ(born.count(nearest[deepest]), 0u) << tag;
    std::size_t checked = 0;
    for (std::size_t i = 0; i < bumps.size(); ++i) {
      const Bump& b = bumps[i];
      const SimplexId own = SimplexId(std::lower_bound(minima.begin(), minima.end(),
                                                       refinedVertex(dims, nearest[i])) -
                                      minima.begin());
      for (SimplexId v = 0; v < SimplexId(f.size()); ++v) {
        const SimplexId x = v % dims[0], y = v / dims[0] % dims[1],
                        z = v / (dims[0] * dims[1]);
        const double r2 = (x - b.c[0]) * (x - b.c[0]) + (y - b.c[1]) * (y - b.c[1]) +
                          (z - b.c[2]) * (z - b.c[2]);
        if (std::exp(-r2 / (2 * sigma * sigma)) > 0.5) { // this Gaussian's own share
          ++checked;
          ASSERT_EQ(down.descendingManifold[std::size_t(v)], own)
              << tag << ": vertex " << v;
        }
      }
    }
    EXPECT_GT(checked, bumps.size() * (d == 3 ? 50 : 10)) << tag;
  }
}

// f = prod_a sin(k_a x_a) sampled at x_a = lo_a + i h. Expected critical cells per index
// by stratified Morse theory on the box: on each stratum (interior, faces, edges,
// corners: each axis free or at one of its bounds) the critical points of f restricted
// to it; one of index i counts when f increases in every inward normal direction (else
// the sublevel set near it retracts onto the part already there). The boxes keep every
// such point nondegenerate (checked) and a few cells from the box's faces.
struct Sines {
  int d;
  double k[3], lo[3], h;
  Coord dims;

  double hi(int a) const { return lo[a] + double(dims[a] - 1) * h; }
  double g(int a, double t) const { return std::sin(k[a] * t); }
  double g1(int a, double t) const { return k[a] * std::cos(k[a] * t); }
  double g2(int a, double t) const { return -k[a] * k[a] * std::sin(k[a] * t); }
  // Product of g over the axes except i and j, times the factors given for i and j.
  double product(const double x[3], int i, double fi, int j = -1, double fj = 1) const {
    double p = 1;
    for (int a = 0; a < d; ++a)
      p *= a == i ? fi : (a == j ? fj : g(a, x[a]));
    return p;
  }

  // Negative eigenvalues of a symmetric n x n matrix (n <= 3), by Jacobi rotations.
  static int negativeEigenvalues(std::array<std::array<double, 3>, 3> A, int n) {
    for (int sweep = 0; sweep < 60; ++sweep)
      for (int p = 0; p < n; ++p)
        for (int q = p + 1; q < n; ++q) {
          if (std::abs(A[p][q]) < 1e-300)
            continue;
          const double theta = (A[q][q] - A[p][p]) / (2 * A[p][q]);
          const double t =
              (theta >= 0 ? 1 : -1) / (std::abs(theta) + std::hypot(theta, 1));
          const double c = 1 / std::hypot(t, 1), s = t * c;
          for (int r = 0; r < n; ++r) { // A <- A J
            const double ap = A[r][p], aq = A[r][q];
            A[r][p] = c * ap - s * aq;
            A[r][q] = s * ap + c * aq;
          }
          for (int r = 0; r < n; ++r) { // A <- J^T A
            const double ap = A[p][r], aq = A[q][r];
            A[p][r] = c * ap - s * aq;
            A[q][r] = s * ap + c * aq;
          }
        }
    int negative = 0;
    for (int a = 0; a < n; ++a) {
      EXPECT_GT(std::abs(A[a][a]), 1e-6) << "degenerate critical point";
      negative += A[a][a] < 0 ? 1 : 0;
    }
    return negative;
  }

  struct Prediction {
    std::array<SimplexId, 4> counts{};
    std::vector<std::array<double, 3>> interiorMinima, interiorMaxima;
  };

  Prediction expected() const {
    Prediction prediction;
    std::array<SimplexId, 4>& counts = prediction.counts;
    // Candidates on a free axis: the zeros of g' and of g (a product's critical point
    // may sit where two factors vanish: the 2D saddles).
    std::vector<double> candidates[3];
    for (int a = 0; a < d; ++a)
      for (long m = std::lround(std::floor(2 * k[a] * lo[a] / M_PI)) - 1;
           m <= std::lround(std::ceil(2 * k[a] * hi(a) / M_PI)) + 1; ++m) {
        const double t = double(m) * M_PI / (2 * k[a]);
        if (t > lo[a] && t < hi(a)) {
          candidates[a].push_back(t);
          EXPECT_GT(std::min(t - lo[a], hi(a) - t), 2.5 * h)
              << "axis " << a << " too tight";
        }
      }
    int states = 1;
    for (int a = 0; a < d; ++a)
      states *= 3;
    for (int s = 0; s < states; ++s) {
      int state[3] = {0, 0, 0}; // 0 free, 1 at lo, 2 at hi
      for (int a = 0, r = s; a < d; ++a, r /= 3)
        state[a] = r % 3;
      std::vector<std::array<double, 3>> points{{0, 0, 0}};
      for (int a = 0; a < d; ++a) {
        std::vector<std::array<double, 3>> next;
        const std::vector<double> options =
            state[a] == 0 ? candidates[a]
                          : std::vector<double>{state[a] == 1 ? lo[a] : hi(a)};
        for (const auto& p : points)
          for (double t : options) {
            auto q = p;
            q[std::size_t(a)] = t;
            next.push_back(q);
          }
        points = next;
      }
      for (const auto& x : points) {
        bool critical = true;
        std::vector<int> freeAxes;
        for (int a = 0; a < d; ++a)
          if (state[a] == 0) {
            freeAxes.push_back(a);
            critical = critical && std::abs(product(x.data(), a, g1(a, x[a]))) < 1e-9;
          }
        if (!critical)
          continue;
        bool inwardUp = true;
        for (int a = 0; a < d; ++a)
          if (state[a] != 0) {
            const double inward =
                (state[a] == 1 ? 1 : -1) * product(x.data(), a, g1(a, x[a]));
            EXPECT_GT(std::abs(inward), 1e-6) << "degenerate boundary point";
            inwardUp = inwardUp && inward > 0;
          }
        if (!inwardUp)
          continue;
        std::array<std::array<double, 3>, 3> H{};
        const int n = int(freeAxes.size());
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < n; ++j) {
            const int a = freeAxes[std::size_t(i)], b = freeAxes[std::size_t(j)];
            H[i][j] = a == b ? product(x.data(), a, g2(a, x[a]))
                             : product(x.data(), a, g1(a, x[a]), b, g1(b, x[b]));
          }
        const int index = negativeEigenvalues(H, n);
        ++counts[std::size_t(index)];
        if (n == d && index == 0)
          prediction.interiorMinima.push_back(x);
        if (n == d && index == d)
          prediction.interiorMaxima.push_back(x);
      }
    }
    return prediction;
  }

  SimplexId nearestVertex(const std::array<double, 3>& x) const {
    SimplexId v = 0, stride = 1;
    for (int a = 0; a < d; ++a) {
      v += std::lround((x[std::size_t(a)] - lo[a]) / h) * stride;
      stride *= dims[a];
    }
    return v;
  }

  std::vector<double> field() const {
    std::vector<double> f;
    for (SimplexId z = 0; z < dims[2]; ++z)
      for (SimplexId y = 0; y < dims[1]; ++y)
        for (SimplexId x = 0; x < dims[0]; ++x) {
          const double p[3] = {lo[0] + double(x) * h, lo[1] + double(y) * h,
                               lo[2] + double(z) * h};
          f.push_back(product(p, -1, 1));
        }
    return f;
  }
};

// In 2D both factors change sign: extrema where both cosines vanish, saddles where both
// sines do, plus boundary minima and saddles. In 3D two factors would vanish together on
// whole lines (degenerate critical lines), so x and y span less than a half period and
// only the z factor changes sign: extrema inside, saddles only from the faces.
TEST(MscAnalytic, ProductOfSines) {
  const std::vector<Sines> cases = {
      {2, {2.3, 1.9, 0}, {0.3, 0.2, 0}, 0.05, {97, 79, 1}},
      {2, {2.6, 3.1, 0}, {0.15, 0.35, 0}, 0.04, {140, 110, 1}},
      {3, {1.1, 1.25, 2.1}, {0.35, 0.3, 0.2}, 0.1, {25, 22, 40}},
      {3, {0.9, 1.0, 2.6}, {0.3, 0.25, 0.15}, 0.1, {31, 27, 45}}};
  for (const Sines& s : cases) {
    const std::string tag = gridName(s.dims[0], s.dims[1], s.dims[2]);
    const Sines::Prediction prediction = s.expected();
    const std::array<SimplexId, 4>& expected = prediction.counts;
    // Interior extrema in closed form: one per point where every cosine vanishes
    // (k x = pi/2 + m pi inside the box on every axis).
    SimplexId interior = 1;
    for (int a = 0; a < s.d; ++a)
      interior *= SimplexId(std::floor(s.k[a] * s.hi(a) / M_PI - 0.5) -
                            std::ceil(s.k[a] * s.lo[a] / M_PI - 0.5) + 1);
    EXPECT_EQ(
        SimplexId(prediction.interiorMinima.size() + prediction.interiorMaxima.size()),
        interior)
        << tag;
    const std::vector<double> f = s.field();
    const msc::Output out = run(s.dims, f);
    for (int i = 0; i <= 3; ++i)
      EXPECT_EQ(out.gradient.counts[std::size_t(i)], expected[std::size_t(i)])
          << tag << ": index " << i;
    // Interior extrema at their nearest vertex (a maximum: the voxel it tops).
    std::set<SimplexId> tops, bottoms;
    for (SimplexId m : out.gradient.criticalCells[std::size_t(s.d)])
      tops.insert(highestVertex(s.dims, m, f));
    for (SimplexId m : out.gradient.criticalCells[0])
      bottoms.insert(highestVertex(s.dims, m, f));
    for (const auto& x : prediction.interiorMaxima)
      EXPECT_EQ(tops.count(s.nearestVertex(x)), 1u) << tag;
    for (const auto& x : prediction.interiorMinima)
      EXPECT_EQ(bottoms.count(s.nearestVertex(x)), 1u) << tag;
    pd::Persistence p;
    pd::computePersistence(out, viewOf(f), p);
    SimplexId low = 0;
    for (const auto& pair : p.pairs)
      low += pair.dimension == 0 ? 1 : 0;
    EXPECT_EQ(low, expected[0] - 1) << tag;
    EXPECT_EQ(SimplexId(p.pairs.size()) - low, expected[std::size_t(s.d)]) << tag;
  }
}

} // namespace
} // namespace topogpu::test
