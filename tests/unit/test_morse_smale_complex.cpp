// Stage 2 of the Morse-Smale complex against a brute force that shares nothing with
// core/morse_smale_complex: its own cell indexing (refined coordinate triples), the
// plain-sort rank order of BruteForce.h, explicit V-path walks over the gradient bytes of
// stage 1 (decoded here from
// their documented meaning: partner at refined offset +-1 along axis code/2), and an
// explicit boundary surface (facets as vertex sets, adjacency by shared vertices) for the
// documented boundary rule. Also invariants that can fail: every vertex and top cell
// labelled, each extremum's region connected and containing it, Euler on arcs, a ramp
// and single bumps with known answers, bad input.
#include "BruteForce.h"
#include "UnitHelpers.h"
#include "core/discrete_gradient/PointerJumping.h"
#include "core/morse_smale_complex/MorseSmaleComplex.h"
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
#include <queue>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace topogpu::test {
namespace {

namespace msc = morse_smale_complex;
using Coord = std::array<SimplexId, 3>;

// ---- the brute force ------------------------------------------------------------------

struct Brute {
  SimplexId n[3];
  int d;
  std::vector<SimplexId> rank;
  const std::vector<std::uint8_t>* gradient;

  SimplexId R(int a) const { return 2 * n[a] - 1; }
  SimplexId id(const Coord& c) const { return c[0] + R(0) * (c[1] + R(1) * c[2]); }
  bool inside(const Coord& c) const {
    for (int a = 0; a < 3; ++a)
      if (c[a] < 0 || c[a] >= R(a))
        return false;
    return true;
  }
  int dim(const Coord& c) const { return int((c[0] & 1) + (c[1] & 1) + (c[2] & 1)); }
  std::uint8_t byte(const Coord& c) const { return (*gradient)[std::size_t(id(c))]; }
  bool critical(const Coord& c) const { return byte(c) == 6; }
  Coord partner(const Coord& c) const {
    Coord p = c;
    p[byte(c) / 2] += byte(c) % 2 ? -1 : 1;
    return p;
  }
  std::vector<SimplexId> verticesOf(const Coord& c) const {
    std::vector<SimplexId> vs;
    for (int corner = 0; corner < 8; ++corner) {
      Coord v = c;
      bool ok = true;
      for (int a = 0; a < 3; ++a) {
        if (c[a] & 1)
          v[a] += (corner >> a) & 1 ? 1 : -1;
        else
          ok = ok && !((corner >> a) & 1);
      }
      if (ok)
        vs.push_back(v[0] / 2 + n[0] * (v[1] / 2 + n[1] * (v[2] / 2)));
    }
    return vs;
  }
  std::vector<SimplexId> key(const Coord& c) const {
    std::vector<SimplexId> k;
    for (SimplexId v : verticesOf(c))
      k.push_back(rank[v]);
    std::sort(k.rbegin(), k.rend());
    return k;
  }
  std::vector<Coord> cofaces(const Coord& c) const {
    std::vector<Coord> out;
    for (int a = 0; a < 3; ++a)
      for (int s = -1; s <= 1; s += 2) {
        Coord p = c;
        p[a] += s;
        if (!(c[a] & 1) && inside(p))
          out.push_back(p);
      }
    return out;
  }
  // Descending walk from a vertex cell to its minimum.
  Coord minimumOf(Coord v) const {
    for (SimplexId steps = 0; !critical(v); ++steps) {
      EXPECT_LT(steps, n[0] * n[1] * n[2]) << "descending walk does not end";
      const Coord e = partner(v);
      EXPECT_EQ(dim(e), 1);
      EXPECT_EQ(partner(e), v);
      Coord w = e;
      for (int a = 0; a < 3; ++a)
        w[a] += e[a] - v[a];
      v = w;
    }
    return v;
  }
  bool onBoundary(const Coord& f) const {
    if (dim(f) != d - 1)
      return false;
    for (int a = 0; a < d; ++a)
      if (!(f[a] & 1) && (f[a] == 0 || f[a] == R(a) - 1))
        return true;
    return false;
  }
  // The boundary rule, explicitly: all boundary facets, neighbours share 2^(d-2)
  // vertices, steepest ascent by key; a root whose top cell is critical is that cell.
  std::vector<Coord> boundaryFacets;
  std::map<SimplexId, std::size_t> boundaryIndex;
  void buildBoundary() {
    for (SimplexId z = 0; z < R(2); ++z)
      for (SimplexId y = 0; y < R(1); ++y)
        for (SimplexId x = 0; x < R(0); ++x)
          if (onBoundary({x, y, z})) {
            boundaryIndex[id({x, y, z})] = boundaryFacets.size();
            boundaryFacets.push_back({x, y, z});
          }
  }
  Coord boundaryEnd(Coord f) const {
    const std::size_t shared = d == 3 ? 2 : 1;
    for (;;) {
      const std::vector<SimplexId> vf = verticesOf(f);
      Coord best = f;
      for (const Coord& g : boundaryFacets) {
        if (g == f)
          continue;
        std::vector<SimplexId> vg = verticesOf(g);
        std::size_t common = 0;
        for (SimplexId v : vg)
          common += std::count(vf.begin(), vf.end(), v);
        if (common == shared && key(best) < key(g))
          best = g;
      }
      if (best == f)
        break;
      f = best;
    }
    const Coord top = cofaces(f).at(0);
    return critical(top) ? top : f;
  }
  // Ascending walk from a top cell; a path leaving the box goes on on the boundary.
  Coord maximumOf(Coord w) const {
    for (SimplexId steps = 0; !critical(w); ++steps) {
      EXPECT_LT(steps, n[0] * n[1] * n[2] * 8) << "ascending walk does not end";
      const Coord f = partner(w);
      EXPECT_EQ(dim(f), d - 1);
      std::vector<Coord> up = cofaces(f);
      up.erase(std::remove(up.begin(), up.end(), w), up.end());
      if (up.empty())
        return boundaryEnd(f);
      w = up.at(0);
    }
    return w;
  }
};

struct Expected {
  std::vector<msc::Arc> minArcs, maxArcs;
  std::vector<SimplexId> vertexMinimum, topMaximum, vertexMaximum; // refined ids
};

void addArcs(std::vector<msc::Arc>& arcs, SimplexId s, SimplexId a, SimplexId b) {
  if (a == b) {
    arcs.push_back({s, a, 2});
  } else {
    arcs.push_back({s, std::min(a, b), 1});
    arcs.push_back({s, std::max(a, b), 1});
  }
}

template <typename T>
Expected bruteForce(const msc::Output& out, const std::vector<T>& values, Brute& B) {
  for (int a = 0; a < 3; ++a)
    B.n[a] = out.gradient.grid.n[a];
  B.d = out.gradient.grid.dimension;
  B.gradient = &out.gradient.gradient;
  B.rank = ranksOf(values);
  B.buildBoundary();

  Expected E;
  for (SimplexId z = 0; z < B.n[2]; ++z)
    for (SimplexId y = 0; y < B.n[1]; ++y)
      for (SimplexId x = 0; x < B.n[0]; ++x)
        E.vertexMinimum.push_back(B.id(B.minimumOf({2 * x, 2 * y, 2 * z})));
  const SimplexId tz = B.d == 3 ? B.n[2] - 1 : 1;
  std::vector<Coord> tops;
  for (SimplexId z = 0; z < tz; ++z)
    for (SimplexId y = 0; y + 1 < B.n[1]; ++y)
      for (SimplexId x = 0; x + 1 < B.n[0]; ++x)
        tops.push_back({2 * x + 1, 2 * y + 1, B.d == 3 ? 2 * z + 1 : 0});
  for (const Coord& t : tops)
    E.topMaximum.push_back(B.id(B.maximumOf(t)));
  for (SimplexId z = 0; z < B.n[2]; ++z)
    for (SimplexId y = 0; y < B.n[1]; ++y)
      for (SimplexId x = 0; x < B.n[0]; ++x) {
        // the highest top cell of the vertex's star
        std::size_t best = tops.size();
        for (std::size_t t = 0; t < tops.size(); ++t) {
          const std::vector<SimplexId> vs = B.verticesOf(tops[t]);
          const SimplexId v = x + B.n[0] * (y + B.n[1] * z);
          if (std::find(vs.begin(), vs.end(), v) == vs.end())
            continue;
          if (best == tops.size() || B.key(tops[best]) < B.key(tops[t]))
            best = t;
        }
        E.vertexMaximum.push_back(E.topMaximum.at(best));
      }
  for (SimplexId z = 0; z < B.R(2); ++z)
    for (SimplexId y = 0; y < B.R(1); ++y)
      for (SimplexId x = 0; x < B.R(0); ++x) {
        const Coord c{x, y, z};
        if (!B.critical(c))
          continue;
        if (B.dim(c) == 1) {
          Coord ends[2] = {c, c};
          const int a = c[0] & 1 ? 0 : (c[1] & 1 ? 1 : 2);
          ends[0][a] -= 1;
          ends[1][a] += 1;
          addArcs(E.minArcs, B.id(c), B.id(B.minimumOf(ends[0])),
                  B.id(B.minimumOf(ends[1])));
        }
        if (B.dim(c) == B.d - 1) {
          std::vector<SimplexId> m;
          for (const Coord& w : B.cofaces(c))
            m.push_back(B.id(B.maximumOf(w)));
          if (m.size() == 1) // a boundary saddle: one V-path
            E.maxArcs.push_back({B.id(c), m[0], 1});
          else
            addArcs(E.maxArcs, B.id(c), m.at(0), m.at(1));
        }
      }
  return E;
}

std::vector<msc::Arc> sorted(std::vector<msc::Arc> arcs) {
  std::sort(arcs.begin(), arcs.end(), [](const msc::Arc& a, const msc::Arc& b) {
    return std::tie(a.saddle, a.extremum) < std::tie(b.saddle, b.extremum);
  });
  return arcs;
}

template <typename T>
msc::Output run(const Coord& dims, const std::vector<T>& values,
                Backend backend = Backend::Cpu) {
  ImplicitTriangulation tri(dims[0], dims[1], dims[2]);
  msc::Output out;
  msc::execute(tri, viewOf(values), msc::Parameters{backend}, Monitor{}, out);
  return out;
}

// Each extremum's region (vertices by grid edges, top cells by shared facets) is
// connected and contains the extremum.
void checkRegions(const msc::Output& out, const std::string& tag) {
  const cubical::Grid& g = out.gradient.grid;
  const SimplexId n[3] = {g.n[0], g.n[1], g.n[2]};
  auto connected =
      [&](const std::vector<msc::ManifoldLabel>& label, const SimplexId m[3],
          SimplexId seedOf(const SimplexId*, SimplexId, const cubical::Grid&),
          const std::vector<SimplexId>& extrema, const char* what) {
        const SimplexId count = m[0] * m[1] * m[2];
        std::vector<bool> seen(std::size_t(count), false);
        std::vector<SimplexId> regionSize(extrema.size(), 0);
        for (SimplexId i = 0; i < count; ++i)
          ++regionSize.at(std::size_t(label[i]));
        for (std::size_t e = 0; e < extrema.size(); ++e) {
          const SimplexId start = seedOf(m, extrema[e], g);
          if (start < 0)
            continue; // a boundary maximum: a facet, not one of these elements
          ASSERT_EQ(label[start], SimplexId(e)) << tag << ": " << what << " " << e;
          std::queue<SimplexId> q;
          q.push(start);
          seen[start] = true;
          SimplexId reached = 0;
          while (!q.empty()) {
            const SimplexId i = q.front();
            q.pop();
            ++reached;
            const SimplexId c[3] = {i % m[0], (i / m[0]) % m[1], i / (m[0] * m[1])};
            for (int a = 0; a < 3; ++a)
              for (int s = -1; s <= 1; s += 2) {
                SimplexId p[3] = {c[0], c[1], c[2]};
                p[a] += s;
                if (p[a] < 0 || p[a] >= m[a])
                  continue;
                const SimplexId j = p[0] + m[0] * (p[1] + m[1] * p[2]);
                if (!seen[j] && label[j] == label[i]) {
                  seen[j] = true;
                  q.push(j);
                }
              }
          }
          EXPECT_EQ(reached, regionSize[e])
              << tag << ": " << what << " " << e << "'s region is not connected";
        }
      };
  auto vertexSeed = [](const SimplexId* m, SimplexId cell, const cubical::Grid& gg) {
    const SimplexId rx = 2 * gg.n[0] - 1, ry = 2 * gg.n[1] - 1;
    const SimplexId x = cell % rx, y = (cell / rx) % ry, z = cell / (rx * ry);
    return x / 2 + m[0] * (y / 2 + m[1] * (z / 2));
  };
  connected(out.descendingManifold, n, vertexSeed, out.gradient.criticalCells[0],
            "minimum");
  const SimplexId m[3] = {n[0] - 1, n[1] - 1, g.dimension == 3 ? n[2] - 1 : 1};
  auto topSeed = [](const SimplexId* mm, SimplexId cell, const cubical::Grid& gg) {
    const SimplexId rx = 2 * gg.n[0] - 1, ry = 2 * gg.n[1] - 1;
    const SimplexId x = cell % rx, y = (cell / rx) % ry, z = cell / (rx * ry);
    const bool top = (x & 1) && (y & 1) && (gg.dimension == 2 || (z & 1));
    return top ? x / 2 + mm[0] * (y / 2 + mm[1] * (z / 2)) : SimplexId(-1);
  };
  connected(out.cellAscendingManifold, m, topSeed, out.maxima, "maximum");
}

template <typename T>
void checkAgainstBruteForce(const Coord& dims, const std::vector<T>& values,
                            const std::string& tag) {
  const msc::Output out = run(dims, values);
  EXPECT_EQ(out.unlabelledDescending, 0) << tag;
  EXPECT_EQ(out.unlabelledAscending, 0) << tag;
  EXPECT_EQ(out.unlabelledCells, 0) << tag;
  Brute B;
  const Expected E = bruteForce(out, values, B);
  ASSERT_EQ(out.descendingManifold.size(), E.vertexMinimum.size()) << tag;
  for (std::size_t v = 0; v < E.vertexMinimum.size(); ++v) {
    ASSERT_GE(out.descendingManifold[v], 0) << tag;
    ASSERT_EQ(out.gradient.criticalCells[0].at(out.descendingManifold[v]),
              E.vertexMinimum[v])
        << tag << ": vertex " << v;
    ASSERT_GE(out.ascendingManifold[v], 0) << tag;
    ASSERT_EQ(out.maxima.at(out.ascendingManifold[v]), E.vertexMaximum[v])
        << tag << ": vertex " << v << " (maximum)";
  }
  ASSERT_EQ(out.cellAscendingManifold.size(), E.topMaximum.size()) << tag;
  for (std::size_t t = 0; t < E.topMaximum.size(); ++t) {
    ASSERT_GE(out.cellAscendingManifold[t], 0) << tag;
    ASSERT_EQ(out.maxima.at(out.cellAscendingManifold[t]), E.topMaximum[t])
        << tag << ": top cell " << t;
  }
  EXPECT_EQ(sorted(out.saddle1Minimum), sorted(E.minArcs)) << tag;
  EXPECT_EQ(sorted(out.saddleMaximum), sorted(E.maxArcs)) << tag;
  // Every saddle has multiplicity 2 in all (two V-paths each).
  SimplexId sum = 0;
  for (const auto& a : out.saddle1Minimum)
    sum += a.multiplicity;
  EXPECT_EQ(sum, 2 * out.gradient.counts[1]) << tag;
  // The boundary maxima: exactly the maxima that are not critical top cells, all facets
  // on the boundary.
  const int d = out.gradient.grid.dimension;
  EXPECT_EQ(SimplexId(out.maxima.size()), out.gradient.counts[d] + out.boundaryMaxima)
      << tag;
  for (std::size_t k = std::size_t(out.gradient.counts[d]); k < out.maxima.size(); ++k) {
    const SimplexId rx = 2 * B.n[0] - 1, ry = 2 * B.n[1] - 1;
    const Coord c{out.maxima[k] % rx, (out.maxima[k] / rx) % ry,
                  out.maxima[k] / (rx * ry)};
    EXPECT_TRUE(B.onBoundary(c)) << tag << ": boundary maximum " << out.maxima[k];
  }
  // Arc geometry on demand: consecutive cells are face and coface, the walks end at the
  // labelled extremum (an exit ends at the boundary root, the maximum or its facet).
  auto adjacent = [&](SimplexId a, SimplexId b) {
    const SimplexId rx = 2 * B.n[0] - 1, ry = 2 * B.n[1] - 1;
    const SimplexId diff = std::abs(a - b);
    return diff == 1 || diff == rx || diff == rx * ry;
  };
  for (SimplexId v = 0; v < SimplexId(out.descendingManifold.size()); ++v) {
    const std::vector<SimplexId> path = msc::descendingPath(out.gradient, v);
    for (std::size_t i = 1; i < path.size(); ++i)
      ASSERT_TRUE(adjacent(path[i - 1], path[i])) << tag << ": vertex " << v;
    ASSERT_EQ(path.back(), E.vertexMinimum[std::size_t(v)]) << tag << ": vertex " << v;
  }
  for (SimplexId t = 0; t < SimplexId(out.cellAscendingManifold.size()); ++t) {
    const std::vector<SimplexId> path =
        msc::ascendingPath(out.gradient, B.rank.data(), t);
    const SimplexId rx = 2 * B.n[0] - 1, ry = 2 * B.n[1] - 1;
    auto coord = [&](SimplexId id) {
      return Coord{id % rx, (id / rx) % ry, id / (rx * ry)};
    };
    for (std::size_t i = 1; i < path.size(); ++i) // V-path steps, then surface steps
      ASSERT_TRUE(adjacent(path[i - 1], path[i]) ||
                  (B.onBoundary(coord(path[i - 1])) && B.onBoundary(coord(path[i]))))
          << tag << ": top cell " << t;
    const SimplexId label = out.maxima.at(out.cellAscendingManifold[t]);
    const SimplexId end = path.back();
    const Coord c = coord(end);
    const bool endsAtMaximum = end == label;
    const bool endsAtItsFacet = B.onBoundary(c) && B.id(B.cofaces(c).at(0)) == label;
    ASSERT_TRUE(endsAtMaximum || endsAtItsFacet) << tag << ": top cell " << t;
  }
  checkRegions(out, tag);
}

const std::vector<Coord> kShapes = {{2, 2, 2},   {4, 4, 4}, {5, 4, 3}, {6, 5, 4},
                                    {3, 7, 5},   {7, 6, 1}, {9, 8, 1}, {2, 9, 1},
                                    {10, 10, 1}, {2, 2, 5}};

TEST(MorseSmaleComplex, RandomFieldsMatchBruteForce) {
  std::mt19937 rng(7);
  for (const Coord& dims : kShapes)
    for (int trial = 0; trial < 6; ++trial) {
      const std::size_t n = std::size_t(dims[0] * dims[1] * dims[2]);
      checkAgainstBruteForce(dims, randomUniform(rng, n, 0.f, 1.f),
                             "random float " + std::to_string(trial));
      // massive ties: the vertex order decides
      checkAgainstBruteForce(dims, randomLevels<std::uint8_t>(rng, n, 4),
                             "ties uint8 " + std::to_string(trial));
    }
}

TEST(MorseSmaleComplex, RampHasOneMinimumOneMaximumNoArcs) {
  for (const Coord& dims : {Coord{6, 5, 4}, Coord{7, 5, 1}}) {
    std::vector<double> ramp;
    for (SimplexId z = 0; z < dims[2]; ++z)
      for (SimplexId y = 0; y < dims[1]; ++y)
        for (SimplexId x = 0; x < dims[0]; ++x)
          ramp.push_back(double(x + 2 * y + 3 * z));
    const msc::Output out = run(dims, ramp);
    const int d = out.gradient.grid.dimension;
    // On a box the lower-star filtration of a ramp is one minimum (Euler: 1): no
    // critical top cell, so every ascending path leaves the box and climbs the boundary
    // to one boundary maximum, a facet at the top corner.
    EXPECT_EQ(out.gradient.counts[0], 1);
    EXPECT_EQ(out.gradient.counts[d], 0);
    EXPECT_TRUE(out.saddle1Minimum.empty());
    EXPECT_TRUE(out.saddleMaximum.empty());
    EXPECT_EQ(out.boundaryMaxima, 1);
    ASSERT_EQ(out.maxima.size(), 1u);
    const SimplexId rx = 2 * dims[0] - 1, ry = 2 * dims[1] - 1;
    const SimplexId c[3] = {out.maxima[0] % rx, (out.maxima[0] / rx) % ry,
                            out.maxima[0] / (rx * ry)};
    for (int a = 0; a < d; ++a) // the facet touches the top corner
      EXPECT_GE(c[a] + 1, 2 * (dims[a] - 1)) << "axis " << a;
    for (SimplexId l : out.descendingManifold)
      ASSERT_EQ(l, 0);
    for (SimplexId l : out.cellAscendingManifold)
      ASSERT_EQ(l, 0);
    for (SimplexId l : out.ascendingManifold)
      ASSERT_EQ(l, 0);
    checkAgainstBruteForce(dims, ramp, "ramp");
  }
}

// A single Gaussian bump: one maximum owning every cell, every saddle-maximum arc ends
// there; the pit (its negative): one minimum owning every vertex.
TEST(MorseSmaleComplex, SingleBumpAndPit) {
  for (const Coord& dims : {Coord{9, 9, 9}, Coord{15, 13, 1}}) {
    std::vector<double> bump, pit;
    for (SimplexId z = 0; z < dims[2]; ++z)
      for (SimplexId y = 0; y < dims[1]; ++y)
        for (SimplexId x = 0; x < dims[0]; ++x) {
          const double dx = x - 0.45 * (dims[0] - 1), dy = y - 0.55 * (dims[1] - 1),
                       dz = dims[2] > 1 ? z - 0.5 * (dims[2] - 1) : 0.0;
          const double f = std::exp(-(dx * dx + dy * dy + dz * dz) / 10.0);
          bump.push_back(f);
          pit.push_back(-f);
        }
    const msc::Output up = run(dims, bump);
    const int d = up.gradient.grid.dimension;
    EXPECT_EQ(up.gradient.counts[d], 1);
    EXPECT_EQ(up.boundaryMaxima, 0);
    for (SimplexId l : up.cellAscendingManifold)
      ASSERT_EQ(l, 0);
    for (const auto& arc : up.saddleMaximum)
      EXPECT_EQ(arc.extremum, up.gradient.criticalCells[d][0]);
    const msc::Output down = run(dims, pit);
    EXPECT_EQ(down.gradient.counts[0], 1);
    for (SimplexId l : down.descendingManifold)
      ASSERT_EQ(l, 0);
    checkAgainstBruteForce(dims, bump, "bump");
    checkAgainstBruteForce(dims, pit, "pit");
  }
}

TEST(MorseSmaleComplex, BadInput) {
  msc::Output out;
  ImplicitTriangulation tri(4, 4, 4);
  std::vector<float> values(64, 1.0f);
  values[5] = std::numeric_limits<float>::quiet_NaN();
  expectError([&] { msc::execute(tri, viewOf(values), {}, Monitor{}, out); }, "vertex 5");
  ExplicitTriangulation mesh(3, 2, {0, 1, 2});
  expectError(
      [&] { msc::execute(mesh, viewOf(std::vector<float>(3, 0.f)), {}, Monitor{}, out); },
      "regular grid");
  // A constant field: one minimum owns everything, every vertex and cell labelled.
  const msc::Output flat = run({5, 4, 3}, std::vector<float>(60, 2.f));
  EXPECT_EQ(flat.gradient.counts[0], 1);
  EXPECT_EQ(flat.unlabelledDescending + flat.unlabelledAscending + flat.unlabelledCells,
            0);
}

TEST(MorseSmaleComplex, GpuRequestWithoutDeviceRunsOnCpu) {
  std::string why;
  if (gpuAvailable(&why))
    GTEST_SKIP() << "a GPU is present (tests/gpu compares the two paths)";
  std::vector<float> values(60);
  for (std::size_t v = 0; v < values.size(); ++v)
    values[v] = float((v * 37) % 11);
  const msc::Output gpu = run({5, 4, 3}, values, Backend::Gpu);
  const msc::Output cpu = run({5, 4, 3}, values, Backend::Cpu);
  EXPECT_EQ(gpu.report.backend, "cpu");
  EXPECT_FALSE(gpu.report.warnings.empty());
  EXPECT_EQ(gpu.descendingManifold, cpu.descendingManifold);
  EXPECT_EQ(gpu.cellAscendingManifold, cpu.cellAscendingManifold);
  EXPECT_EQ(gpu.saddleMaximum, cpu.saddleMaximum);
}

// The forests' root finding (every stage-2 root comes from it) against a serial walk:
// random forests with roots and negative terminals, a single long chain (the most
// rounds), the empty forest; a cycle is an error, an abort is honoured.
TEST(MorseSmaleComplex, PointerJumpingMatchesSerialWalks) {
  std::mt19937 rng(31);
  auto walk = [](const std::vector<SimplexId>& next, SimplexId i) {
    while (i >= 0 && next[i] != i)
      i = next[i];
    return i;
  };
  for (const SimplexId n : {0, 1, 2, 7, 1000, 100000}) {
    // Successors only to elements earlier in a random order: acyclic.
    std::vector<SimplexId> order(static_cast<std::size_t>(n)), next(order.size());
    std::iota(order.begin(), order.end(), SimplexId(0));
    std::shuffle(order.begin(), order.end(), rng);
    for (SimplexId k = 0; k < n; ++k) {
      const SimplexId i = order[k];
      const SimplexId kind = SimplexId(rng() % 8);
      next[i] = k == 0 || kind == 0 ? i
                : kind == 1         ? -1 - SimplexId(rng() % 5)
                                    : order[SimplexId(rng() % std::uint64_t(k))];
    }
    std::vector<SimplexId> expected(next.size());
    for (SimplexId i = 0; i < n; ++i)
      expected[i] = walk(next, i);
    discrete_gradient::jumpToRoots(next);
    EXPECT_EQ(next, expected) << n << " elements";
  }
  std::vector<SimplexId> chain(100000);
  for (std::size_t i = 0; i < chain.size(); ++i)
    chain[i] = SimplexId(i + 1 == chain.size() ? -7 : i + 1);
  discrete_gradient::jumpToRoots(chain);
  EXPECT_EQ(chain, std::vector<SimplexId>(chain.size(), -7));
  std::vector<SimplexId> cycle = {1, 2, 0, 3};
  expectError([&] { discrete_gradient::jumpToRoots(cycle); }, "cycle");
  Monitor abort;
  abort.abortRequested = [] { return true; };
  std::vector<SimplexId> path = {1, 2, 2};
  EXPECT_THROW(discrete_gradient::jumpToRoots(path, abort), Aborted);
}

TEST(MorseSmaleComplex, ProgressAndAbort) {
  std::vector<float> values(27000);
  for (std::size_t v = 0; v < values.size(); ++v)
    values[v] = float((v * 7919) % 1000);
  ImplicitTriangulation tri(30, 30, 30);
  msc::Output out;
  expectProgressAndAbort([&](const Monitor& monitor) {
    msc::execute(tri, viewOf(values), {Backend::Cpu}, monitor, out);
  });
}

} // namespace
} // namespace topogpu::test
