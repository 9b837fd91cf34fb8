// The discrete gradient against an independent oracle: the cubical complex built
// explicitly (cells as vertex sets from their anchor and axes, in VTK's axes, 1-thick
// axes simply never stepped along), ordered by the lower-star filtration (highest vertex
// rank, then dimension), and its Z/2 boundary matrix reduced by the standard column
// algorithm. Robins, Wood and Sheppard's theorem (2D and 3D): the critical cells of
// each dimension are the births plus deaths of the pairs with positive persistence
// (birth vertex != death vertex) plus the essential classes. Also: the gradient is a
// valid, acyclic discrete vector field (pairs of codimension 1 with the same highest
// vertex, every cell in exactly one pair or critical, no closed V-path), Euler's
// relation on a box, a ramp and a constant field with one minimum only, bad input.
#include "BruteForce.h"
#include "UnitHelpers.h"
#include "core/discrete_gradient/DiscreteGradient.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace topogpu::test {
namespace {

namespace dg = discrete_gradient;

// ---- the oracle (shares nothing with core/) -------------------------------------------

struct BruteCell {
  SimplexId anchor[3];
  int axes;                     // bit a: spans axis a
  int dim;                      // popcount(axes)
  std::vector<SimplexId> verts; // vertex ids
  SimplexId top;                // highest vertex rank
};

struct BruteCubicalComplex {
  SimplexId n[3];
  std::vector<BruteCell> cells;
  std::map<std::array<SimplexId, 4>, std::size_t> index; // (anchor, axes) -> cell
};

BruteCubicalComplex buildComplex(const std::array<SimplexId, 3>& dims,
                                 const std::vector<SimplexId>& rank) {
  BruteCubicalComplex K;
  for (int a = 0; a < 3; ++a)
    K.n[a] = dims[a];
  for (SimplexId z = 0; z < dims[2]; ++z)
    for (SimplexId y = 0; y < dims[1]; ++y)
      for (SimplexId x = 0; x < dims[0]; ++x)
        for (int axes = 0; axes < 8; ++axes) {
          const SimplexId p[3] = {x, y, z};
          bool ok = true;
          for (int a = 0; a < 3; ++a)
            ok = ok && (!((axes >> a) & 1) || p[a] + 1 < dims[a]);
          if (!ok)
            continue;
          BruteCell c{{x, y, z}, axes, __builtin_popcount(unsigned(axes)), {}, -1};
          for (int corner = 0; corner < 8; ++corner) {
            if ((corner & axes) != corner)
              continue;
            const SimplexId q[3] = {x + (corner & 1), y + ((corner >> 1) & 1),
                                    z + ((corner >> 2) & 1)};
            const SimplexId v = q[0] + dims[0] * (q[1] + dims[1] * q[2]);
            c.verts.push_back(v);
            c.top = std::max(c.top, rank[v]);
          }
          K.index[{x, y, z, SimplexId(axes)}] = K.cells.size();
          K.cells.push_back(c);
        }
  return K;
}

std::vector<std::size_t> facesOf(const BruteCubicalComplex& K, const BruteCell& c) {
  std::vector<std::size_t> faces;
  for (int a = 0; a < 3; ++a) {
    if (!((c.axes >> a) & 1))
      continue;
    for (int side = 0; side < 2; ++side) {
      std::array<SimplexId, 4> key{c.anchor[0], c.anchor[1], c.anchor[2],
                                   SimplexId(c.axes & ~(1 << a))};
      key[a] += side;
      faces.push_back(K.index.at(key));
    }
  }
  return faces;
}

// Births + deaths of positive-persistence pairs + essential classes, per dimension.
std::array<SimplexId, 4> persistenceChanges(const BruteCubicalComplex& K) {
  const std::size_t m = K.cells.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const BruteCell &p = K.cells[a], &q = K.cells[b];
    return p.top != q.top ? p.top < q.top : p.dim < q.dim;
  });
  std::vector<std::size_t> position(m);
  for (std::size_t i = 0; i < m; ++i)
    position[order[i]] = i;
  std::vector<std::vector<std::size_t>> columns(m); // sorted filtration positions
  for (std::size_t j = 0; j < m; ++j) {
    for (std::size_t f : facesOf(K, K.cells[order[j]]))
      columns[j].push_back(position[f]);
    std::sort(columns[j].begin(), columns[j].end());
  }
  std::vector<long> lowOwner(m, -1);
  std::vector<char> paired(m, 0);
  std::array<SimplexId, 4> changes{};
  for (std::size_t j = 0; j < m; ++j) {
    auto& col = columns[j];
    while (!col.empty() && lowOwner[col.back()] >= 0) {
      const auto& other = columns[std::size_t(lowOwner[col.back()])];
      std::vector<std::size_t> sum;
      std::set_symmetric_difference(col.begin(), col.end(), other.begin(), other.end(),
                                    std::back_inserter(sum));
      col.swap(sum);
    }
    if (col.empty())
      continue;
    const std::size_t i = col.back();
    lowOwner[i] = long(j);
    paired[i] = paired[j] = 1;
    const BruteCell &birth = K.cells[order[i]], &death = K.cells[order[j]];
    if (birth.top != death.top) {
      ++changes[birth.dim];
      ++changes[death.dim];
    }
  }
  for (std::size_t i = 0; i < m; ++i) {
    if (!paired[i])
      ++changes[K.cells[order[i]].dim];
  }
  return changes;
}

// ---- checks of the module's output ----------------------------------------------------

// The brute cell of a refined-grid id (refined coordinates in VTK's axes: a squeezed
// axis has refined size 1, which leaves x-fastest ids unchanged).
std::size_t bruteOfRefined(const BruteCubicalComplex& K, SimplexId id) {
  const SimplexId rx = 2 * K.n[0] - 1, ry = 2 * K.n[1] - 1;
  const SimplexId X = id % rx, Y = (id / rx) % ry, Z = id / (rx * ry);
  const SimplexId axes = (X & 1) | (Y & 1) << 1 | (Z & 1) << 2;
  return K.index.at({X / 2, Y / 2, Z / 2, axes});
}

void checkValidField(const std::array<SimplexId, 3>& dims, const BruteCubicalComplex& K,
                     const dg::Output& out, const std::string& tag) {
  const SimplexId rx = 2 * dims[0] - 1, ry = 2 * dims[1] - 1, rz = 2 * dims[2] - 1;
  ASSERT_EQ(SimplexId(out.gradient.size()), rx * ry * rz) << tag;
  ASSERT_EQ(out.gradient.size(), K.cells.size()) << tag;
  std::array<std::vector<SimplexId>, 4> critical;
  // V: each k-cell paired with a (k+1)-cell, by brute index
  std::vector<long> coface(K.cells.size(), -1);
  for (SimplexId id = 0; id < SimplexId(out.gradient.size()); ++id) {
    const std::uint8_t code = out.gradient[id];
    const BruteCell& c = K.cells[bruteOfRefined(K, id)];
    if (code == cubical::kCritical) {
      critical[c.dim].push_back(id);
      continue;
    }
    ASSERT_LT(code, 6) << tag << ": cell " << id << " has gradient byte " << int(code);
    // Codes name the axes of out.grid: VTK's axes with a 1-thick one squeezed out.
    int active[3] = {0, 1, 2}, count = 0;
    for (int a = 0; a < 3; ++a)
      if (dims[a] > 1)
        active[count++] = a;
    ASSERT_LT(code / 2, count) << tag;
    const int axis = active[code / 2];
    const SimplexId step = code % 2 ? -1 : 1;
    SimplexId r[3] = {id % rx, (id / rx) % ry, id / (rx * ry)};
    r[axis] += step;
    const SimplexId rs[3] = {rx, ry, rz};
    ASSERT_TRUE(r[axis] >= 0 && r[axis] < rs[axis]) << tag << ": cell " << id;
    const SimplexId partnerId = r[0] + rx * (r[1] + ry * r[2]);
    const std::uint8_t back = out.gradient[partnerId];
    ASSERT_EQ(back, std::uint8_t(code ^ 1))
        << tag << ": pair " << id << " - " << partnerId << " is not mutual";
    const BruteCell& p = K.cells[bruteOfRefined(K, partnerId)];
    ASSERT_EQ(std::abs(p.dim - c.dim), 1) << tag;
    ASSERT_EQ(p.top, c.top) << tag << ": pair " << id << " - " << partnerId
                            << " has two highest vertices";
    if (p.dim == c.dim + 1)
      coface[bruteOfRefined(K, id)] = long(bruteOfRefined(K, partnerId));
  }
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(critical[k], out.criticalCells[k]) << tag << ": dimension " << k;
    EXPECT_EQ(out.counts[k], SimplexId(critical[k].size())) << tag;
  }
  EXPECT_EQ(out.counts[0] - out.counts[1] + out.counts[2] - out.counts[3], 1)
      << tag << ": Euler characteristic of a box";
  // Acyclicity: on k-cells, sigma -> nu when nu != sigma is a face of V(sigma); Kahn.
  const std::size_t m = K.cells.size();
  std::vector<std::vector<std::size_t>> next(m);
  std::vector<int> indegree(m, 0);
  for (std::size_t s = 0; s < m; ++s) {
    if (coface[s] < 0)
      continue;
    for (std::size_t f : facesOf(K, K.cells[std::size_t(coface[s])])) {
      if (f != s) {
        next[s].push_back(f);
        ++indegree[f];
      }
    }
  }
  std::vector<std::size_t> ready;
  for (std::size_t s = 0; s < m; ++s)
    if (indegree[s] == 0)
      ready.push_back(s);
  std::size_t seen = 0;
  while (!ready.empty()) {
    const std::size_t s = ready.back();
    ready.pop_back();
    ++seen;
    for (std::size_t f : next[s])
      if (--indegree[f] == 0)
        ready.push_back(f);
  }
  EXPECT_EQ(seen, m) << tag << ": a V-path is closed";
}

template <typename T>
dg::Output run(const std::array<SimplexId, 3>& dims, const std::vector<T>& values) {
  ImplicitTriangulation tri(dims[0], dims[1], dims[2]);
  dg::Output out;
  dg::execute(tri, viewOf(values), dg::Parameters{Backend::Cpu}, Monitor{}, out);
  EXPECT_EQ(out.report.backend, "cpu");
  return out;
}

template <typename T>
void checkAgainstOracle(const std::array<SimplexId, 3>& dims,
                        const std::vector<T>& values, const std::string& tag) {
  const dg::Output out = run(dims, values);
  const std::vector<SimplexId> rank = ranksOf(values);
  const BruteCubicalComplex K = buildComplex(dims, rank);
  checkValidField(dims, K, out, tag);
  // The paper's order: a vertex that is not a minimum is paired with the edge to its
  // lowest neighbour (the edge of smallest key in its lower star).
  for (const BruteCell& c : K.cells) {
    if (c.dim != 1)
      continue;
    const SimplexId v = c.verts[rank[c.verts[0]] > rank[c.verts[1]] ? 0 : 1];
    const SimplexId u = c.verts[0] + c.verts[1] - v;
    SimplexId lowest = rank[u];
    for (const BruteCell& e : K.cells)
      if (e.dim == 1 && (e.verts[0] == v || e.verts[1] == v))
        lowest = std::min(lowest, rank[e.verts[0] + e.verts[1] - v]);
    const SimplexId rx = 2 * dims[0] - 1, ry = 2 * dims[1] - 1;
    const SimplexId vid = 2 * (v % dims[0]) + rx * (2 * ((v / dims[0]) % dims[1]) +
                                                    ry * 2 * (v / (dims[0] * dims[1])));
    const SimplexId eid = (2 * c.anchor[0] + (c.axes & 1)) +
                          rx * ((2 * c.anchor[1] + ((c.axes >> 1) & 1)) +
                                ry * (2 * c.anchor[2] + ((c.axes >> 2) & 1)));
    if (rank[u] >= rank[v])
      continue;
    // v paired with this edge exactly when u is v's lowest neighbour
    const bool expectPair = rank[u] == lowest;
    const SimplexId step = eid - vid; // +-1, +-rx or +-rx*ry: the edge's refined offset
    const bool isPair = out.gradient[vid] < 6 && [&] {
      // v's partner is at its refined step; compare ids
      const SimplexId rs[3] = {1, rx, rx * ry};
      int active[3] = {0, 1, 2}, count = 0;
      for (int a = 0; a < 3; ++a)
        if (dims[a] > 1)
          active[count++] = a;
      const std::uint8_t code = out.gradient[vid];
      return rs[active[code / 2]] * (code % 2 ? -1 : 1) == step;
    }();
    EXPECT_EQ(isPair, expectPair) << tag << ": vertex " << v << ", edge to " << u;
  }
  const std::array<SimplexId, 4> expected = persistenceChanges(K);
  for (int k = 0; k < 4; ++k)
    EXPECT_EQ(out.counts[k], expected[k]) << tag << ": critical cells of dimension " << k;
}

const std::vector<std::array<SimplexId, 3>> kShapes = {
    {2, 2, 2}, {4, 4, 4}, {5, 4, 3}, {6, 5, 4}, {3, 7, 5},  {7, 6, 1},
    {9, 8, 1}, {1, 6, 7}, {8, 1, 5}, {2, 9, 1}, {10, 10, 1}};

TEST(DiscreteGradient, RandomFieldsMatchPersistence) {
  std::mt19937 rng(11);
  for (const auto& dims : kShapes) {
    const SimplexId n = dims[0] * dims[1] * dims[2];
    for (int trial = 0; trial < 4; ++trial) {
      const std::string tag =
          gridName(dims[0], dims[1], dims[2]) + " #" + std::to_string(trial);
      checkAgainstOracle(dims, randomUniform(rng, std::size_t(n), -1.f, 1.f),
                         "float " + tag);
      std::vector<std::uint8_t> ties(n); // few values: ties broken by the vertex order
      for (auto& x : ties)
        x = std::uint8_t(rng() % 3);
      checkAgainstOracle(dims, ties, "uint8 ties " + tag);
      std::vector<std::int64_t> wide(n);
      for (auto& x : wide)
        x = std::int64_t(rng() % 7) - 3;
      checkAgainstOracle(dims, wide, "int64 ties " + tag);
    }
  }
}

TEST(DiscreteGradient, LargerRandomFieldsMatchPersistence) {
  std::mt19937 rng(5);
  for (const auto& dims : {std::array<SimplexId, 3>{9, 8, 7}, {25, 23, 1}}) {
    const SimplexId n = dims[0] * dims[1] * dims[2];
    std::vector<double> values(n);
    for (SimplexId v = 0; v < n; ++v) {
      const SimplexId x = v % dims[0], row = v / dims[0];
      values[v] = std::sin(0.9 * double(x)) * std::cos(0.7 * double(row)) +
                  0.3 * std::uniform_real_distribution<double>(0, 1)(rng);
    }
    checkAgainstOracle(dims, values, "sines " + std::to_string(n));
  }
}

TEST(DiscreteGradient, RampAndConstantHaveOneMinimum) {
  for (const auto& dims : kShapes) {
    const SimplexId n = dims[0] * dims[1] * dims[2];
    std::vector<double> ramp(n), constant(n, 2.5), descending(n);
    for (SimplexId v = 0; v < n; ++v) {
      const SimplexId x = v % dims[0], y = (v / dims[0]) % dims[1],
                      z = v / (dims[0] * dims[1]);
      ramp[v] = double(x) + 0.5 * double(y) + 0.25 * double(z);
      descending[v] = -ramp[v];
    }
    for (const auto* f : {&ramp, &constant, &descending}) {
      const dg::Output out = run(dims, *f);
      EXPECT_EQ(out.counts, (std::array<SimplexId, 4>{1, 0, 0, 0}))
          << dims[0] << "x" << dims[1] << "x" << dims[2];
    }
  }
}

TEST(DiscreteGradient, CellIdsWithinDimension) {
  // Every cell of a dimension gets a distinct id below that dimension's cell count.
  for (const auto& dims : kShapes) {
    ImplicitTriangulation tri(dims[0], dims[1], dims[2]);
    const cubical::Grid g = cubical::gridOf(tri.dims());
    const BruteCubicalComplex K =
        buildComplex(dims, std::vector<SimplexId>(dims[0] * dims[1] * dims[2], 0));
    std::array<std::vector<char>, 4> used;
    std::array<SimplexId, 4> total{};
    for (const auto& c : K.cells)
      ++total[c.dim];
    for (int k = 0; k < 4; ++k)
      used[k].assign(std::size_t(total[k]), 0);
    for (SimplexId id = 0; id < cubical::cellCount(g); ++id) {
      const int k = K.cells[bruteOfRefined(K, id)].dim;
      ASSERT_EQ(cubical::cellDimension(g, id), k);
      const SimplexId local = cubical::cellIdInDimension(g, id);
      ASSERT_TRUE(local >= 0 && local < total[k]) << id;
      EXPECT_FALSE(used[k][std::size_t(local)]) << "id " << local << " used twice";
      used[k][std::size_t(local)] = 1;
    }
  }
}

TEST(DiscreteGradient, BadInput) {
  ImplicitTriangulation tri(4, 4, 4);
  dg::Output out;
  std::vector<float> values(64, 1.0f);
  expectError(
      [&] { dg::execute(tri, viewOf(std::vector<float>(63, 1.0f)), {}, Monitor{}, out); },
      "63 values");
  values[17] = std::numeric_limits<float>::quiet_NaN();
  expectError([&] { dg::execute(tri, viewOf(values), {}, Monitor{}, out); },
              "NaN or infinite value at vertex 17");
  values[17] = std::numeric_limits<float>::infinity();
  expectError([&] { dg::execute(tri, viewOf(values), {}, Monitor{}, out); }, "vertex 17");
  ExplicitTriangulation mesh(3, 2, {0, 1, 2});
  expectError(
      [&] { dg::execute(mesh, viewOf(std::vector<float>(3, 0.f)), {}, Monitor{}, out); },
      "regular grid");
}

TEST(DiscreteGradient, GpuRequestWithoutDeviceRunsOnCpu) {
  std::string why;
  if (gpuAvailable(&why))
    GTEST_SKIP() << "a GPU is present (tests/gpu compares the two paths)";
  ImplicitTriangulation tri(5, 4, 3);
  std::vector<float> values(60);
  for (std::size_t v = 0; v < values.size(); ++v)
    values[v] = float((v * 37) % 11);
  dg::Output out, reference;
  dg::execute(tri, viewOf(values), {Backend::Gpu}, Monitor{}, out);
  dg::execute(tri, viewOf(values), {Backend::Cpu}, Monitor{}, reference);
  EXPECT_EQ(out.report.backend, "cpu");
  EXPECT_FALSE(out.report.warnings.empty());
  EXPECT_EQ(out.gradient, reference.gradient);
}

TEST(DiscreteGradient, ProgressAndAbort) {
  ImplicitTriangulation tri(40, 40, 40);
  std::vector<float> values(64000);
  for (std::size_t v = 0; v < values.size(); ++v)
    values[v] = float((v * 7919) % 1000);
  dg::Output out;
  expectProgressAndAbort([&](const Monitor& monitor) {
    dg::execute(tri, viewOf(values), {Backend::Cpu}, monitor, out);
  });
}

} // namespace
} // namespace topogpu::test
