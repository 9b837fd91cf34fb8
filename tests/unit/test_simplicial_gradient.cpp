// The simplicial discrete gradient (core/discrete_gradient/SimplicialGradient.h) against
// independent oracles:
//  - TTK 1.2's MorseSmaleComplex critical cells on every raw volume
//    (../shared/data/ttk-reference/volumes.json, msc_critical_points), exact counts;
//  - a serial brute force of the same lower-star rule on explicit simplex lists
//    (std::set queues, simplices as vertex tuples: nothing shared with the code under
//    test), pair by pair, on grids and random meshes, through both backends;
//  - the homology changes of the lower-star filtration (a Z/2 boundary-matrix reduction
//    written here), which Robins et al. prove the critical cells are;
//  - the Euler characteristic of the complex from its simplex counts;
//  - 1-separatrices and the descending segmentation: TTK's msc_separatrices1 counts on
//    every volume, and walks over the brute-force pairs on small grids;
//  - the Morse-Smale complex (core/morse_smale_complex/SimplicialMorseSmaleComplex.h):
//    labels, arcs and saddle-connection multiplicities against walks and a path
//    enumeration over the brute-force pairs, the segmentation's invariants (every vertex
//    labelled, each minimum in its own region, regions connected, one region per
//    extremum) and identical results through the implicit, explicit and GALE backends.
#include "BruteForce.h"
#include "RawVolumes.h"
#include "TriangulationChecks.h"
#include "UnitHelpers.h"

#include "core/discrete_gradient/SimplicialGradient.h"
#include "core/discrete_gradient/SimplicialSeparatrices.h"
#include "core/morse_smale_complex/SimplicialMorseSmaleComplex.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/gale/GaleTriangulation.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>

namespace topogpu::test {
namespace {

namespace sg = discrete_gradient::simplicial;

// ---- brute-force gradient ------------------------------------------------------------

struct BruteGradient {
  std::map<Tuple, Tuple> up; // face -> coface
  std::set<Tuple> critical;
  std::array<SimplexId, 4> counts{};
};

// ProcessLowerStars on a simplex list, serially, with the ordering TTK uses: the key of
// a simplex of v's lower star is the ranks of its other vertices in decreasing order,
// padded with -1, compared lexicographically.
BruteGradient bruteGradient(const BruteComplex& cx, const std::vector<SimplexId>& rank) {
  BruteGradient g;
  const SimplexId nv = cx.numberOfVertices;
  std::vector<std::vector<Tuple>> star(nv);
  for (int d = 0; d <= cx.dimension; ++d)
    for (const Tuple& s : cx.simplices[d]) {
      SimplexId top = s[0];
      for (SimplexId u : s)
        if (rank[u] > rank[top])
          top = u;
      star[top].push_back(s);
    }
  for (SimplexId v = 0; v < nv; ++v) {
    auto key = [&](const Tuple& s) {
      std::vector<SimplexId> k;
      for (SimplexId u : s)
        if (u != v)
          k.push_back(rank[u]);
      std::sort(k.rbegin(), k.rend());
      k.resize(3, -1);
      return k;
    };
    const auto& ls = star[v];
    std::set<Tuple> paired;
    auto isFace = [](const Tuple& f, const Tuple& c) {
      return f.size() + 1 == c.size() && BruteComplex::contains(c, f);
    };
    auto unpairedFaces = [&](const Tuple& c, Tuple& last) {
      int n = 0;
      for (const Tuple& f : ls)
        if (isFace(f, c) && f.size() > 1 && !paired.count(f)) {
          ++n;
          last = f;
        }
      return n;
    };
    using Entry = std::pair<std::vector<SimplexId>, Tuple>;
    std::set<Entry> pqOne, pqZero;
    auto pushCofaces = [&](const Tuple& s) {
      for (const Tuple& c : ls) {
        Tuple last;
        if (isFace(s, c) && unpairedFaces(c, last) == 1)
          pqOne.insert({key(c), c});
      }
    };
    std::vector<Tuple> edges;
    for (const Tuple& s : ls)
      if (s.size() == 2)
        edges.push_back(s);
    if (edges.empty()) {
      g.critical.insert({v});
      continue;
    }
    const Tuple delta = *std::min_element(
        edges.begin(), edges.end(), [&](auto& a, auto& b) { return key(a) < key(b); });
    g.up[{v}] = delta;
    paired.insert({v});
    paired.insert(delta);
    for (const Tuple& e : edges)
      if (e != delta)
        pqZero.insert({key(e), e});
    pushCofaces(delta);
    while (!pqOne.empty() || !pqZero.empty()) {
      while (!pqOne.empty()) {
        const Tuple alpha = pqOne.begin()->second;
        pqOne.erase(pqOne.begin());
        Tuple face;
        if (unpairedFaces(alpha, face) == 0) {
          pqZero.insert({key(alpha), alpha});
        } else {
          g.up[face] = alpha;
          paired.insert(face);
          paired.insert(alpha);
          pushCofaces(alpha);
          pushCofaces(face);
        }
      }
      while (!pqZero.empty() && paired.count(pqZero.begin()->second))
        pqZero.erase(pqZero.begin());
      if (!pqZero.empty()) {
        const Tuple gamma = pqZero.begin()->second;
        pqZero.erase(pqZero.begin());
        g.critical.insert(gamma);
        paired.insert(gamma);
        pushCofaces(gamma);
      }
    }
  }
  for (const Tuple& c : g.critical)
    ++g.counts[c.size() - 1];
  return g;
}

// ---- homology changes of the lower-star filtration (Z/2 column reduction) -------------

std::array<SimplexId, 4> homologyChanges(const BruteComplex& cx,
                                         const std::vector<SimplexId>& rank) {
  struct S {
    SimplexId top;
    int dim;
    Tuple t;
  };
  std::vector<S> order;
  for (int d = 0; d <= cx.dimension; ++d)
    for (const Tuple& s : cx.simplices[d]) {
      SimplexId top = -1;
      for (SimplexId u : s)
        top = std::max(top, rank[u]);
      order.push_back({top, d, s});
    }
  // The lower-star filtration: by highest vertex, faces before cofaces.
  std::sort(order.begin(), order.end(), [](const S& a, const S& b) {
    return std::tie(a.top, a.dim, a.t) < std::tie(b.top, b.dim, b.t);
  });
  std::map<Tuple, int> index;
  for (std::size_t i = 0; i < order.size(); ++i)
    index[order[i].t] = int(i);
  std::vector<std::vector<int>> columns(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Tuple& s = order[i].t;
    if (s.size() > 1)
      for (std::size_t k = 0; k < s.size(); ++k) {
        Tuple f = s;
        f.erase(f.begin() + long(k));
        columns[i].push_back(index.at(f));
      }
    std::sort(columns[i].begin(), columns[i].end());
  }
  std::map<int, int> pivotOf; // low -> column
  std::vector<bool> killed(order.size(), false), creates(order.size(), false);
  std::array<SimplexId, 4> counts{};
  for (std::size_t i = 0; i < order.size(); ++i) {
    std::vector<int>& col = columns[i];
    while (!col.empty() && pivotOf.count(col.back())) {
      const std::vector<int>& other = columns[pivotOf[col.back()]];
      std::vector<int> sum;
      std::set_symmetric_difference(col.begin(), col.end(), other.begin(), other.end(),
                                    std::back_inserter(sum));
      col.swap(sum);
    }
    if (col.empty()) {
      creates[i] = true;
    } else {
      pivotOf[col.back()] = int(i);
      killed[col.back()] = true;
      if (order[col.back()].top != order[i].top) { // positive persistence
        ++counts[order[col.back()].dim];
        ++counts[order[i].dim];
      }
    }
  }
  for (std::size_t i = 0; i < order.size(); ++i)
    if (creates[i] && !killed[i])
      ++counts[order[i].dim]; // essential
  return counts;
}

// ---- the code under test, seen as vertex tuples ---------------------------------------

// The gradient as (face -> coface) and critical tuples, read through getPairedCell both
// ways (which must agree with each other).
template <typename Triangulation>
BruteGradient asTuples(Triangulation& tri, const sg::Output& out) {
  tri.precondition(sg::kPairRelations);
  BruteGradient g;
  for (int d = 0; d <= out.dimension; ++d) {
    for (SimplexId id = 0; id < out.simplexCounts[d]; ++id) {
      if (sg::isCritical(out, d, id)) {
        g.critical.insert(verticesOf(tri, d, id));
        EXPECT_EQ(sg::getPairedCell(tri, out, d, id, false), -1);
        EXPECT_EQ(sg::getPairedCell(tri, out, d, id, true), -1);
        continue;
      }
      const SimplexId up = sg::getPairedCell(tri, out, d, id, false);
      const SimplexId down = sg::getPairedCell(tri, out, d, id, true);
      EXPECT_TRUE((up >= 0) != (down >= 0)) << "dim " << d << " id " << id;
      if (up >= 0) {
        EXPECT_EQ(sg::getPairedCell(tri, out, d + 1, up, true), id);
        g.up[verticesOf(tri, d, id)] = verticesOf(tri, d + 1, up);
      } else if (down >= 0) {
        EXPECT_EQ(sg::getPairedCell(tri, out, d - 1, down, false), id);
      }
    }
  }
  for (int d = 0; d < 4; ++d)
    g.counts[d] = out.counts[d];
  return g;
}

template <typename Triangulation, typename T>
sg::Output run(Triangulation& tri, const std::vector<T>& values) {
  sg::Output out;
  sg::execute(tri, viewOf(values), sg::Parameters{}, Monitor{}, out);
  return out;
}

void expectSameGradient(const BruteGradient& expected, const BruteGradient& got) {
  EXPECT_EQ(got.counts, expected.counts);
  EXPECT_EQ(got.critical, expected.critical);
  EXPECT_EQ(got.up.size(), expected.up.size());
  for (const auto& [face, coface] : expected.up) {
    const auto it = got.up.find(face);
    if (it == got.up.end()) {
      ADD_FAILURE() << "face of " << face.size() << " vertices not paired up";
      continue;
    }
    EXPECT_EQ(it->second, coface);
  }
}

// ---- tests ---------------------------------------------------------------------------

// Small grids (2D and 3D, few value levels so ties matter): the implicit backend, the
// explicit copy of its tets and the brute force give the same pairs; the critical
// counts are the homology changes and satisfy Euler's relation.
TEST(SimplicialGradient, GridsMatchBruteForceAndHomology) {
  std::mt19937 rng(11);
  const SimplexId dims[][3] = {{5, 4, 1}, {4, 1, 5}, {6, 6, 1}, {3, 3, 3},
                               {4, 3, 5}, {5, 4, 4}, {2, 2, 2}, {2, 3, 1}};
  for (const auto& n : dims) {
    for (int levels : {3, 1000}) {
      SCOPED_TRACE(gridName(n[0], n[1], n[2]) + " levels " + std::to_string(levels));
      const SimplexId nv = n[0] * n[1] * n[2];
      const std::vector<float> values = randomLevels(rng, std::size_t(nv), levels);
      const std::vector<SimplexId> rank = ranksOf(values);
      const std::vector<Tuple> cells = ttkGridCells(n[0], n[1], n[2]);
      const int dim = int(cells.front().size()) - 1;
      const BruteComplex cx(nv, dim, cells);
      const BruteGradient expected = bruteGradient(cx, rank);

      ImplicitTriangulation grid(n[0], n[1], n[2]);
      const sg::Output implicitOut = run(grid, values);
      expectSameGradient(expected, asTuples(grid, implicitOut));

      ExplicitTriangulation mesh = explicitCopyOf(grid);
      const sg::Output explicitOut = run(mesh, values);
      expectSameGradient(expected, asTuples(mesh, explicitOut));
      EXPECT_EQ(explicitOut.counts, implicitOut.counts);

      EXPECT_EQ(homologyChanges(cx, rank), implicitOut.counts);
      const auto& c = implicitOut.counts;
      EXPECT_EQ(c[0] - c[1] + c[2] - c[3], cx.euler());
      EXPECT_EQ(cx.euler(), 1); // a box
      for (int d = 0; d <= dim; ++d)
        EXPECT_EQ(implicitOut.simplexCounts[d], SimplexId(cx.simplices[d].size()));
    }
  }
}

// Random meshes (non-manifold, pinched, holes, isolated vertices; cells with shuffled
// vertex order): the brute force, Euler's relation; the homology changes on the
// sub-complexes of a grid, whose vertex links are planar.
TEST(SimplicialGradient, RandomMeshesMatchBruteForce) {
  std::mt19937 rng(5);
  for (int index = 0; index < 40; ++index) {
    SCOPED_TRACE("mesh " + std::to_string(index));
    const RandomMesh m = randomMesh(index, rng);
    if (m.cells.empty())
      continue;
    const std::vector<float> values =
        randomLevels(rng, std::size_t(m.numberOfVertices), 4);
    const std::vector<SimplexId> rank = ranksOf(values);
    const BruteComplex cx(m.numberOfVertices, m.dimension, m.cells);
    ExplicitTriangulation mesh(m.numberOfVertices, m.dimension, flatten(m.cells));
    const sg::Output out = run(mesh, values);
    expectSameGradient(bruteGradient(cx, rank), asTuples(mesh, out));
    const auto& c = out.counts;
    EXPECT_EQ(c[0] - c[1] + c[2] - c[3], cx.euler());
    if (index % 4 >= 2) {
      EXPECT_EQ(homologyChanges(cx, rank), out.counts);
    }
  }
}

// Vertices of high degree: a bipyramid over a fan of 150 triangles, so the apexes have
// 151 neighbours and the hub 152 (the lower star's bit sets hold 64: beyond, its
// sorted lists and heaps), under random orders; the brute force and Euler's relation.
TEST(SimplicialGradient, HighDegreeVerticesMatchBruteForce) {
  constexpr SimplexId kRing = 150;
  const SimplexId hub = kRing, top = kRing + 1, bottom = kRing + 2;
  std::vector<Tuple> cells;
  for (SimplexId i = 0; i < kRing; ++i) {
    const SimplexId j = (i + 1) % kRing;
    cells.push_back({top, hub, i, j});
    cells.push_back({bottom, hub, j, i});
  }
  const BruteComplex cx(kRing + 3, 3, cells);
  ExplicitTriangulation mesh(kRing + 3, 3, flatten(cells));
  std::mt19937 rng(11);
  for (int trial = 0; trial < 6; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    std::vector<float> values = randomLevels(rng, std::size_t(kRing + 3), 1000);
    if (trial % 2 == 0) { // the apexes and the hub on top: their whole stars are lower
      values[std::size_t(top)] = 2000;
      values[std::size_t(bottom)] = 2001;
      values[std::size_t(hub)] = 2002;
    }
    const sg::Output out = run(mesh, values);
    expectSameGradient(bruteGradient(cx, ranksOf(values)), asTuples(mesh, out));
    const auto& c = out.counts;
    EXPECT_EQ(c[0] - c[1] + c[2] - c[3], cx.euler());
  }
}

// V-paths: descending paths from every vertex go down the vertex order and end at a
// minimum; ascending paths from every cell go up and end at a maximum or the boundary.
TEST(SimplicialGradient, VPaths) {
  std::mt19937 rng(3);
  for (int d3 = 0; d3 < 2; ++d3) {
    const SimplexId n[3] = {6, 5, d3 ? SimplexId(4) : SimplexId(1)};
    const std::vector<float> values =
        randomLevels(rng, std::size_t(n[0] * n[1] * n[2]), 50);
    const std::vector<SimplexId> rank = ranksOf(values);
    ImplicitTriangulation grid(n[0], n[1], n[2]);
    const sg::Output out = run(grid, values);
    grid.precondition(sg::kPairRelations);
    std::vector<sg::Cell> path;
    for (SimplexId v = 0; v < grid.getNumberOfVertices(); ++v) {
      path.clear();
      sg::getDescendingPath(grid, out, v, path);
      ASSERT_FALSE(path.empty());
      EXPECT_EQ(path.back().dimension, 0);
      EXPECT_TRUE(sg::isCritical(out, 0, path.back().id));
      for (std::size_t i = 2; i < path.size(); i += 2)
        EXPECT_LT(rank[path[i].id], rank[path[i - 2].id]);
    }
    const int top = out.dimension;
    for (SimplexId c = 0; c < out.simplexCounts[top]; ++c) {
      path.clear();
      sg::getAscendingPath(grid, out, c, path);
      ASSERT_FALSE(path.empty());
      const sg::Cell last = path.back();
      if (last.dimension == top) {
        EXPECT_TRUE(sg::isCritical(out, top, last.id));
      } else {
        EXPECT_EQ(last.dimension, top - 1);
        EXPECT_EQ(top == 3 ? grid.getTriangleTetNumber(last.id)
                           : grid.getEdgeTriangleNumber(last.id),
                  1);
      }
    }
  }
}

// Separatrices and both segmentations against walks over the brute force's pairs.
TEST(SimplicialGradient, SeparatricesMatchBruteForceWalks) {
  std::mt19937 rng(17);
  const SimplexId dims[][3] = {{6, 5, 1}, {5, 4, 4}, {4, 6, 5}};
  for (const auto& n : dims) {
    SCOPED_TRACE(gridName(n[0], n[1], n[2]));
    const SimplexId nv = n[0] * n[1] * n[2];
    const std::vector<float> values = randomLevels(rng, std::size_t(nv), 6);
    const std::vector<Tuple> cells = ttkGridCells(n[0], n[1], n[2]);
    const int dim = int(cells.front().size()) - 1;
    const BruteComplex cx(nv, dim, cells);
    const BruteGradient brute = bruteGradient(cx, ranksOf(values));
    std::map<Tuple, Tuple> downOf; // coface -> face
    for (const auto& [face, coface] : brute.up)
      downOf[coface] = face;
    auto minimumOf = [&](SimplexId v) {
      while (!brute.critical.count({v})) {
        const Tuple& e = brute.up.at({v});
        v = e[0] == v ? e[1] : e[0];
      }
      return v;
    };
    // the maximum an ascending walk from cell c reaches, or an empty tuple (boundary)
    auto maximumOf = [&](Tuple c) {
      for (;;) {
        if (brute.critical.count(c))
          return c;
        const Tuple facet = downOf.at(c);
        Tuple other;
        for (const Tuple& d : cx.simplices[dim])
          if (d != c && BruteComplex::contains(d, facet))
            other = d;
        if (other.empty())
          return Tuple{};
        c = other;
      }
    };
    std::multiset<std::pair<Tuple, Tuple>> expectedDown, expectedUp, gotDown, gotUp;
    for (const Tuple& s : brute.critical) {
      if (s.size() == 2)
        for (SimplexId v : s)
          expectedDown.insert({s, {minimumOf(v)}});
      if (int(s.size()) == dim)
        for (const Tuple& c : cx.simplices[dim])
          if (BruteComplex::contains(c, s)) {
            const Tuple top = maximumOf(c);
            if (!top.empty())
              expectedUp.insert({s, top});
          }
    }
    ImplicitTriangulation grid(n[0], n[1], n[2]);
    const sg::Output out = run(grid, values);
    sg::Separatrices sep;
    sg::computeSeparatrices1(grid, out, sep);
    for (const auto& d : sep.descending)
      gotDown.insert({verticesOf(grid, 1, d.saddle), {d.extremum}});
    for (const auto& a : sep.ascending)
      gotUp.insert(
          {verticesOf(grid, dim - 1, a.saddle), verticesOf(grid, dim, a.extremum)});
    EXPECT_EQ(gotDown, expectedDown);
    EXPECT_EQ(gotUp, expectedUp);
    std::vector<SimplexId> label;
    sg::computeDescendingManifold(grid, out, label);
    ASSERT_EQ(SimplexId(label.size()), nv);
    for (SimplexId v = 0; v < nv; ++v) {
      ASSERT_GE(label[v], 0);
      EXPECT_EQ(out.criticalCells[0][label[v]], minimumOf(v)) << "vertex " << v;
    }
    // ascending: every cell's label is the maximum its walk reaches (-1: the boundary),
    // every vertex takes its first star cell's
    std::vector<SimplexId> cellLabel, vertexLabel;
    sg::computeAscendingManifold(grid, out, cellLabel, vertexLabel);
    ASSERT_EQ(SimplexId(cellLabel.size()), out.simplexCounts[dim]);
    for (SimplexId c = 0; c < out.simplexCounts[dim]; ++c) {
      const Tuple top = maximumOf(verticesOf(grid, dim, c));
      EXPECT_EQ(cellLabel[c] < 0
                    ? Tuple{}
                    : verticesOf(grid, dim, out.criticalCells[dim][cellLabel[c]]),
                top)
          << "cell " << c;
    }
    for (SimplexId v = 0; v < nv; ++v)
      EXPECT_EQ(vertexLabel[v], cellLabel[grid.getVertexStar(v, 0)]);
  }
}

TEST(SimplicialGradient, BadInputProgressAndAbort) {
  ImplicitTriangulation grid(4, 4, 4);
  std::vector<float> values(64, 1.0f);
  sg::Output out;
  expectError(
      [&] {
        const std::vector<float> shorter(10, 0.0f);
        sg::execute(grid, viewOf(shorter), {}, Monitor{}, out);
      },
      "");
  values[17] = std::nanf("");
  expectError([&] { sg::execute(grid, viewOf(values), {}, Monitor{}, out); }, "17");
  values[17] = 0.0f;
  expectProgressAndAbort(
      [&](const Monitor& m) { sg::execute(grid, viewOf(values), {}, m, out); });
}

// ---- the Morse-Smale complex ---------------------------------------------------------

namespace smsc = morse_smale_complex::simplicial;
using morse_smale_complex::ManifoldLabel;

// A maximum as (dimension, vertices): a critical top cell or a boundary facet.
using Extremum = std::pair<int, Tuple>;

// The complex seen as vertex tuples, for comparisons across backends and with the oracle.
struct MscTuples {
  std::vector<Tuple> minimumOf;    // per vertex
  std::vector<Extremum> maximumOf; // per vertex (dimension -1: none)
  std::map<Tuple, Extremum> cellMaximum;
  std::map<Tuple, std::multiset<Extremum>> saddleMaxima;
  std::map<std::pair<Tuple, Tuple>, std::uint64_t> connections;
  bool operator==(const MscTuples& o) const {
    return minimumOf == o.minimumOf && maximumOf == o.maximumOf &&
           cellMaximum == o.cellMaximum && saddleMaxima == o.saddleMaxima &&
           connections == o.connections;
  }
};

template <typename Triangulation>
MscTuples mscTuples(Triangulation& tri, const smsc::Output& out) {
  const int top = out.gradient.dimension;
  MscTuples t;
  auto maximum = [&](ManifoldLabel l) {
    if (l < 0)
      return Extremum{-1, {}};
    const smsc::Extremum& e = out.maxima[std::size_t(l)];
    return Extremum{e.dimension, verticesOf(tri, e.dimension, e.id)};
  };
  for (SimplexId v = 0; v < out.gradient.simplexCounts[0]; ++v) {
    const ManifoldLabel a = out.descendingManifold[v];
    t.minimumOf.push_back(a < 0 ? Tuple{} : Tuple{out.gradient.criticalCells[0][a]});
    t.maximumOf.push_back(maximum(out.ascendingManifold[v]));
  }
  for (SimplexId c = 0; c < out.gradient.simplexCounts[top]; ++c)
    t.cellMaximum[verticesOf(tri, top, c)] = maximum(out.cellAscendingManifold[c]);
  for (const smsc::Arc& arc : out.saddleMaximum)
    for (int k = 0; k < arc.multiplicity; ++k)
      t.saddleMaxima[verticesOf(tri, top - 1, arc.saddle)].insert(maximum(arc.extremum));
  for (const smsc::Connection& c : out.connections)
    t.connections[{verticesOf(tri, 1, c.saddle1), verticesOf(tri, 2, c.saddle2)}] =
        c.multiplicity;
  return t;
}

// The oracle: walks over the brute force's pairs (sets of tuples), the boundary rule
// written again on tuples, and every V-path down each 2-saddle's wall enumerated.
MscTuples bruteMsc(const BruteComplex& cx, const BruteGradient& g,
                   const std::vector<SimplexId>& rank) {
  const int top = cx.dimension;
  std::map<Tuple, Tuple> downOf;
  for (const auto& [face, coface] : g.up)
    downOf[coface] = face;
  std::map<Tuple, std::vector<Tuple>> cofaces; // facet -> top cells
  for (const Tuple& c : cx.simplices[top])
    for (const Tuple& f : cx.simplices[top - 1])
      if (BruteComplex::contains(c, f))
        cofaces[f].push_back(c);
  auto key = [&](const Tuple& s) {
    std::vector<SimplexId> k;
    for (SimplexId u : s)
      k.push_back(rank[u]);
    std::sort(k.rbegin(), k.rend());
    return k;
  };
  auto boundaryRoot = [&](Tuple f) {
    for (;;) {
      Tuple best = f;
      for (const auto& [h, cells] : cofaces) {
        Tuple common;
        std::set_intersection(f.begin(), f.end(), h.begin(), h.end(),
                              std::back_inserter(common));
        if (cells.size() == 1 && h != f && !common.empty() && key(best) < key(h))
          best = h;
      }
      if (best == f)
        return f;
      f = best;
    }
  };
  auto maximumOf = [&](Tuple c) -> Extremum {
    for (;;) {
      if (g.critical.count(c))
        return {top, c};
      const Tuple f = downOf.at(c);
      Tuple other;
      for (const Tuple& d : cofaces[f])
        if (d != c && other.empty())
          other = d;
      if (other.empty()) {
        const Tuple root = boundaryRoot(f);
        const Tuple cell = cofaces[root][0];
        return g.critical.count(cell) ? Extremum{top, cell} : Extremum{top - 1, root};
      }
      c = other;
    }
  };
  MscTuples t;
  for (SimplexId v = 0; v < cx.numberOfVertices; ++v) {
    SimplexId u = v;
    while (!g.critical.count({u})) {
      const Tuple& e = g.up.at({u});
      u = e[0] == u ? e[1] : e[0];
    }
    t.minimumOf.push_back({u});
    Tuple highest;
    for (const Tuple& c : cx.simplices[top])
      if (BruteComplex::contains(c, {v}) && (highest.empty() || key(highest) < key(c)))
        highest = c;
    t.maximumOf.push_back(highest.empty() ? Extremum{-1, {}} : maximumOf(highest));
  }
  for (const Tuple& c : cx.simplices[top])
    t.cellMaximum[c] = maximumOf(c);
  for (const Tuple& s : g.critical)
    if (int(s.size()) == top)
      for (const Tuple& c : cofaces[s])
        t.saddleMaxima[s].insert(t.cellMaximum[c]);
  if (top == 3) {
    std::function<void(const Tuple&, const Tuple&, const Tuple&)> walk =
        [&](const Tuple& s2, const Tuple& tri, const Tuple& own) {
          for (std::size_t drop = 0; drop < 3; ++drop) {
            Tuple e = tri;
            e.erase(e.begin() + long(drop));
            if (e == own)
              continue;
            if (g.critical.count(e)) {
              ++t.connections[{e, s2}];
              continue;
            }
            const auto up = g.up.find(e);
            if (up != g.up.end() && up->second.size() == 3 && up->second != tri)
              walk(s2, up->second, e);
          }
        };
    for (const Tuple& s : g.critical)
      if (s.size() == 3)
        walk(s, s, {});
  }
  return t;
}

// Invariants of the segmentation that need no oracle: every vertex in a cell labelled,
// each minimum (critical maximum) in its own region, one region per extremum, minimum
// regions connected through edges and critical maxima's cell regions through facets.
template <typename Triangulation>
void checkSegmentation(Triangulation& tri, const smsc::Output& out) {
  const sg::Output& g = out.gradient;
  const int top = g.dimension;
  tri.precondition(VE | EV | FT | EF | TF | FE | VertexStar);
  const SimplexId nv = g.simplexCounts[0], nc = g.simplexCounts[top];
  std::set<ManifoldLabel> ascending, descending;
  for (SimplexId v = 0; v < nv; ++v) {
    ASSERT_GE(out.descendingManifold[v], 0) << "vertex " << v;
    ascending.insert(out.descendingManifold[v]);
    if (tri.getVertexStarNumber(v) > 0) {
      ASSERT_GE(out.ascendingManifold[v], 0) << "vertex " << v;
      bool inStar = false; // the label of one of its cells
      for (int i = 0; i < tri.getVertexStarNumber(v); ++i)
        inStar |= out.cellAscendingManifold[tri.getVertexStar(v, i)] ==
                  out.ascendingManifold[v];
      EXPECT_TRUE(inStar) << "vertex " << v;
    }
  }
  for (SimplexId c = 0; c < nc; ++c) {
    ASSERT_GE(out.cellAscendingManifold[c], 0) << "cell " << c;
    descending.insert(out.cellAscendingManifold[c]);
  }
  EXPECT_EQ(ascending.size(), g.criticalCells[0].size());
  EXPECT_EQ(descending.size(), out.maxima.size());
  EXPECT_EQ(out.unlabelledDescending + out.unlabelledCells, 0);
  // connectivity: a flood from each extremum within its label covers the region
  std::vector<char> seen(std::size_t(nv), 0);
  for (std::size_t i = 0; i < g.criticalCells[0].size(); ++i) {
    const SimplexId m = g.criticalCells[0][i];
    EXPECT_EQ(out.descendingManifold[m], ManifoldLabel(i));
    std::vector<SimplexId> queue{m};
    seen[m] = 1;
    for (std::size_t h = 0; h < queue.size(); ++h)
      for (int k = 0; k < tri.getVertexEdgeNumber(queue[h]); ++k) {
        const SimplexId e = tri.getVertexEdge(queue[h], k);
        for (int j = 0; j < 2; ++j) {
          const SimplexId u = tri.getEdgeVertex(e, j);
          if (!seen[u] && out.descendingManifold[u] == ManifoldLabel(i)) {
            seen[u] = 1;
            queue.push_back(u);
          }
        }
      }
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), nv) << "a minimum's region is split";
  std::vector<char> cellSeen(std::size_t(nc), 0);
  SimplexId reached = 0, inCriticalRegions = 0;
  for (std::size_t i = 0; i < g.criticalCells[top].size(); ++i) {
    const SimplexId m = g.criticalCells[top][i];
    EXPECT_EQ(out.cellAscendingManifold[m], ManifoldLabel(i));
    std::vector<SimplexId> queue{m};
    cellSeen[m] = 1;
    for (std::size_t h = 0; h < queue.size(); ++h)
      for (int f = 0; f <= top; ++f) {
        const SimplexId facet =
            top == 3 ? tri.getTetTriangle(queue[h], f) : tri.getTriangleEdge(queue[h], f);
        for (int k = 0; k < sg::getFacetStarNumber(tri, top, facet); ++k) {
          const SimplexId d = sg::getFacetStar(tri, top, facet, k);
          if (!cellSeen[d] && out.cellAscendingManifold[d] == ManifoldLabel(i)) {
            cellSeen[d] = 1;
            queue.push_back(d);
          }
        }
      }
    reached += SimplexId(queue.size());
  }
  for (SimplexId c = 0; c < nc; ++c)
    inCriticalRegions +=
        out.cellAscendingManifold[c] < ManifoldLabel(g.criticalCells[top].size());
  EXPECT_EQ(reached, inCriticalRegions) << "a maximum's region is split";
  // arcs: two per 1-saddle, one per coface of a (d-1)-saddle
  SimplexId down = 0, up = 0, cofaceTotal = 0;
  for (const smsc::Arc& a : out.saddle1Minimum)
    down += a.multiplicity;
  for (const smsc::Arc& a : out.saddleMaximum)
    up += a.multiplicity;
  for (const SimplexId s : g.criticalCells[top - 1])
    cofaceTotal += sg::getFacetStarNumber(tri, top, s);
  EXPECT_EQ(down, 2 * g.counts[1]);
  EXPECT_EQ(up, cofaceTotal);
}

// The rule through the boundary unless told (the tests above check its invariants).
template <typename Triangulation, typename T>
smsc::Output
runMsc(Triangulation& tri, const std::vector<T>& values,
       smsc::AscendingSegmentation rule = smsc::AscendingSegmentation::ThroughBoundary) {
  smsc::Output out;
  smsc::Parameters parameters;
  parameters.ascendingSegmentation = rule;
  parameters.keepConnectionPaths = true;
  smsc::execute(tri, viewOf(values), parameters, Monitor{}, out);
  return out;
}

// Each kept connection path is a V-path from its 2-saddle down to its 1-saddle.
template <typename Triangulation>
void checkConnectionPaths(Triangulation& tri, const smsc::Output& out) {
  ASSERT_EQ(out.connectionPaths.size(), out.connections.size());
  for (std::size_t i = 0; i < out.connections.size(); ++i) {
    const auto& p = out.connectionPaths[i];
    ASSERT_GE(p.size(), 2u);
    EXPECT_TRUE(p.front() == (sg::Cell{2, out.connections[i].saddle2}));
    EXPECT_TRUE(p.back() == (sg::Cell{1, out.connections[i].saddle1}));
    for (std::size_t k = 1; k + 1 < p.size(); k += 2) {
      EXPECT_EQ(sg::getPairedCell(tri, out.gradient, 1, p[k].id, false), p[k + 1].id);
      const Tuple face = verticesOf(tri, 1, p[k].id);
      EXPECT_TRUE(BruteComplex::contains(verticesOf(tri, 2, p[k - 1].id), face));
    }
  }
}

// Small grids and random sub-complexes of a Kuhn grid (holes, pinches, permuted ids):
// the oracle's labels, arcs and connection multiplicities; the same complex through the
// implicit, explicit and GALE backends; Euler's relation.
TEST(SimplicialMorseSmaleComplex, MatchesBruteForceOnEveryBackend) {
  std::mt19937 rng(23);
  struct Case {
    SimplexId nv;
    int dimension;
    std::vector<Tuple> cells;
    std::array<SimplexId, 3> grid; // {0,0,0}: not a TTK grid
  };
  std::vector<Case> cases;
  const SimplexId dims[][3] = {{6, 5, 1}, {5, 4, 4}, {4, 6, 5}, {7, 3, 1}};
  for (const auto& n : dims) {
    const std::vector<Tuple> cells = ttkGridCells(n[0], n[1], n[2]);
    cases.push_back(
        {n[0] * n[1] * n[2], int(cells.front().size()) - 1, cells, {n[0], n[1], n[2]}});
  }
  for (int index = 2; cases.size() < 12; ++index) {
    const RandomMesh m = randomMesh(index, rng);
    if (index % 4 >= 2 && !m.cells.empty())
      cases.push_back({m.numberOfVertices, m.dimension, m.cells, {0, 0, 0}});
  }
  for (const Case& c : cases) {
    for (int levels : {4, 1000}) {
      SCOPED_TRACE(std::to_string(c.nv) + " vertices, dimension " +
                   std::to_string(c.dimension) + ", levels " + std::to_string(levels));
      const std::vector<float> values = randomLevels(rng, std::size_t(c.nv), levels);
      const std::vector<SimplexId> rank = ranksOf(values);
      const BruteComplex cx(c.nv, c.dimension, c.cells);
      const BruteGradient brute = bruteGradient(cx, rank);
      const MscTuples expected = bruteMsc(cx, brute, rank);

      ExplicitTriangulation mesh(c.nv, c.dimension, flatten(c.cells));
      const smsc::Output out = runMsc(mesh, values);
      checkSegmentation(mesh, out);
      checkConnectionPaths(mesh, out);
      const MscTuples got = mscTuples(mesh, out);
      EXPECT_EQ(got.minimumOf, expected.minimumOf);
      EXPECT_EQ(got.maximumOf, expected.maximumOf);
      EXPECT_EQ(got.cellMaximum, expected.cellMaximum);
      EXPECT_EQ(got.saddleMaxima, expected.saddleMaxima);
      EXPECT_EQ(got.connections, expected.connections);
      const auto& n = out.gradient.counts;
      EXPECT_EQ(n[0] - n[1] + n[2] - n[3], cx.euler());

      const std::vector<double> points =
          randomUniform(rng, std::size_t(3 * c.nv), 0.0, 1.0);
      gale::Parameters galeParameters;
      galeParameters.segmentCapacity = 4; // many segments on a small mesh
      if (levels == 4) {                  // and a stress: a tiny cache, no precomputation
        galeParameters.cacheSegments = 2;
        galeParameters.segmentsPerRequest = 1;
      }
      auto galeMesh = GaleTriangulation::fromExplicit(mesh, points, galeParameters);
      const smsc::Output galeOut = runMsc(*galeMesh, values);
      expectSameGradient(brute, asTuples(*galeMesh, galeOut.gradient));
      EXPECT_TRUE(mscTuples(*galeMesh, galeOut) == got) << "GALE differs from explicit";
      if (c.grid[0] > 0) {
        ImplicitTriangulation grid(c.grid[0], c.grid[1], c.grid[2]);
        const smsc::Output gridOut = runMsc(grid, values);
        checkSegmentation(grid, gridOut);
        EXPECT_TRUE(mscTuples(grid, gridOut) == got) << "implicit differs from explicit";
      }
    }
  }
}

// TTK 1.2's AscendingManifold on a mesh (MorseSmaleComplex::setAscendingSegmentation),
// written again on tuples: a cell follows its V-path up to a critical cell, none when the
// path leaves through a boundary facet; a vertex takes the label of its star's first cell
// in TTK's explicit triangulation, the lowest cell id (cells: the mesh's, by id).
std::vector<Extremum> bruteTtkVertexMaxima(const BruteComplex& cx, const BruteGradient& g,
                                           const std::vector<Tuple>& cells) {
  const int top = cx.dimension;
  std::map<Tuple, Tuple> downOf;
  for (const auto& [face, coface] : g.up)
    downOf[coface] = face;
  std::map<Tuple, std::vector<Tuple>> cofaces;
  for (Tuple c : cells) {
    std::sort(c.begin(), c.end());
    for (std::size_t drop = 0; drop < c.size(); ++drop) {
      Tuple f = c;
      f.erase(f.begin() + long(drop));
      cofaces[f].push_back(c);
    }
  }
  auto maximumOf = [&](Tuple c) -> Extremum {
    while (!g.critical.count(c)) {
      const auto& around = cofaces[downOf.at(c)];
      if (around.size() < 2)
        return {-1, {}};
      c = around[0] == c ? around[1] : around[0];
    }
    return {top, c};
  };
  std::vector<Extremum> out(std::size_t(cx.numberOfVertices), Extremum{-1, {}});
  std::vector<char> done(std::size_t(cx.numberOfVertices), 0);
  for (Tuple c : cells) {
    std::sort(c.begin(), c.end());
    for (const SimplexId v : c)
      if (!done[std::size_t(v)]) {
        done[std::size_t(v)] = 1;
        out[std::size_t(v)] = maximumOf(c);
      }
  }
  return out;
}

// TTK's rule on meshes (explicit and GALE, random sub-complexes of Kuhn grids and TTK's
// own grid cells) against the brute force above; the complex itself (critical cells,
// maxima, arcs, connections) is the one of the rule through the boundary.
TEST(SimplicialMorseSmaleComplex, TtkAscendingRuleOnMeshesMatchesBruteForce) {
  std::mt19937 rng(29);
  std::vector<std::pair<SimplexId, std::vector<Tuple>>> cases;
  for (const auto& n : {std::array<SimplexId, 3>{6, 5, 1}, {5, 4, 4}, {3, 4, 5}})
    cases.emplace_back(n[0] * n[1] * n[2], ttkGridCells(n[0], n[1], n[2]));
  for (int index = 2; cases.size() < 9; ++index) {
    const RandomMesh m = randomMesh(index, rng);
    if (!m.cells.empty())
      cases.emplace_back(m.numberOfVertices, m.cells);
  }
  SimplexId labelled = 0, unlabelledTotal = 0; // both kinds occur (not vacuous)
  for (const auto& [nv, cells] : cases) {
    for (int levels : {3, 1000}) {
      const int dimension = int(cells.front().size()) - 1;
      SCOPED_TRACE(std::to_string(nv) + " vertices, levels " + std::to_string(levels));
      const std::vector<float> values = randomLevels(rng, std::size_t(nv), levels);
      const BruteComplex cx(nv, dimension, cells);
      const BruteGradient brute = bruteGradient(cx, ranksOf(values));
      const std::vector<Extremum> expected = bruteTtkVertexMaxima(cx, brute, cells);
      ExplicitTriangulation mesh(nv, dimension, flatten(cells));
      const smsc::Output ttk = runMsc(mesh, values, smsc::AscendingSegmentation::Ttk);
      const smsc::Output wide = runMsc(mesh, values);
      const MscTuples got = mscTuples(mesh, ttk), reference = mscTuples(mesh, wide);
      EXPECT_EQ(got.maximumOf, expected);
      EXPECT_EQ(got.minimumOf, reference.minimumOf);
      EXPECT_EQ(got.saddleMaxima, reference.saddleMaxima);
      EXPECT_EQ(got.connections, reference.connections);
      EXPECT_EQ(ttk.boundaryMaxima, wide.boundaryMaxima);
      SimplexId unlabelled = 0;
      for (const Extremum& e : expected)
        unlabelled += e.first < 0;
      EXPECT_EQ(ttk.unlabelledAscending, unlabelled);
      unlabelledTotal += unlabelled;
      labelled += nv - unlabelled;
      const std::vector<double> points =
          randomUniform(rng, std::size_t(3 * nv), 0.0, 1.0);
      gale::Parameters galeParameters;
      galeParameters.segmentCapacity = 4;
      auto galeMesh = GaleTriangulation::fromExplicit(mesh, points, galeParameters);
      const smsc::Output galeOut =
          runMsc(*galeMesh, values, smsc::AscendingSegmentation::Ttk);
      EXPECT_EQ(mscTuples(*galeMesh, galeOut).maximumOf, expected) << "GALE";
    }
  }
  EXPECT_GT(unlabelledTotal, 0);
  EXPECT_GT(labelled, 0);
}

// A linear ramp on a box: one minimum, no critical top cell (Euler: 1 = 1), so every
// cell leaves through the boundary and ends at one boundary maximum, the top corner's.
TEST(SimplicialMorseSmaleComplex, RampEndsAtOneBoundaryMaximum) {
  for (SimplexId nz : {1, 4}) {
    ImplicitTriangulation grid(5, 4, nz);
    std::vector<float> values;
    for (SimplexId z = 0; z < nz; ++z)
      for (SimplexId y = 0; y < 4; ++y)
        for (SimplexId x = 0; x < 5; ++x)
          values.push_back(float(x + 10 * y + 100 * z));
    const smsc::Output out = runMsc(grid, values);
    checkSegmentation(grid, out);
    EXPECT_EQ(out.gradient.counts, (std::array<SimplexId, 4>{1, 0, 0, 0}));
    ASSERT_EQ(out.maxima.size(), 1u);
    EXPECT_EQ(out.boundaryMaxima, 1);
    const Tuple corner = verticesOf(grid, out.maxima[0].dimension, out.maxima[0].id);
    EXPECT_TRUE(std::find(corner.begin(), corner.end(), grid.getNumberOfVertices() - 1) !=
                corner.end());
  }
}

TEST(SimplicialMorseSmaleComplex, BadInputProgressAndAbort) {
  ImplicitTriangulation grid(4, 4, 4);
  std::vector<float> values(64, 1.0f);
  smsc::Output out;
  values[5] = std::nanf("");
  expectError([&] { smsc::execute(grid, viewOf(values), {}, Monitor{}, out); }, "5");
  values[5] = 0.0f;
  expectProgressAndAbort(
      [&](const Monitor& m) { smsc::execute(grid, viewOf(values), {}, m, out); });
}

// ---- parity with TTK -----------------------------------------------------------------

// Critical cells n0..n3, then the ascending and descending 1-separatrices and the saddle
// connectors.
using VolumeCounts = std::array<SimplexId, 7>;

template <typename Triangulation>
VolumeCounts countsOf(Triangulation& tri, const sg::Output& out, bool separatrices) {
  sg::Separatrices sep;
  if (separatrices) {
    sg::computeSeparatrices1(tri, out, sep);
    sg::computeSaddleConnectors(tri, out, sep);
  }
  return {out.counts[0],
          out.counts[1],
          out.counts[2],
          out.counts[3],
          SimplexId(sep.ascending.size()),
          SimplexId(sep.descending.size()),
          SimplexId(sep.saddleConnectors.size())};
}

template <typename T>
VolumeCounts countsOf(const RawVolume& vol, const std::string& path, bool asMesh,
                      bool separatrices) {
  const std::size_t count = std::size_t(vol.n[0] * vol.n[1] * vol.n[2]);
  const std::vector<T> values = readRaw<T>(path, count);
  if (values.empty()) {
    ADD_FAILURE() << "cannot read " << count << " values from " << path;
    return {};
  }
  ImplicitTriangulation grid(vol.n[0], vol.n[1], vol.n[2]);
  if (asMesh) {
    ExplicitTriangulation mesh = explicitCopyOf(grid);
    return countsOf(mesh, run(mesh, values), separatrices);
  }
  return countsOf(grid, run(grid, values), separatrices);
}

VolumeCounts countsOf(const RawVolume& vol, const std::string& path, bool asMesh,
                      bool separatrices) {
  if (vol.type == "uint8")
    return countsOf<std::uint8_t>(vol, path, asMesh, separatrices);
  if (vol.type == "int16le" || vol.type == "int16")
    return countsOf<std::int16_t>(vol, path, asMesh, separatrices);
  if (vol.type == "float32")
    return countsOf<float>(vol, path, asMesh, separatrices);
  if (vol.type == "float64")
    return countsOf<double>(vol, path, asMesh, separatrices);
  ADD_FAILURE() << "unknown value type '" << vol.type << "' in " << vol.file;
  return {};
}

// Volumes with minVertices to maxVertices vertices, each through the implicit backend
// and, up to maxMesh, the explicit copy of its tets; the separatrices and saddle
// connectors too up to maxSeparatrices (implicit) and maxMeshSeparatrices (explicit).
struct VolumeLimits {
  SimplexId minVertices, maxVertices, maxMesh, maxSeparatrices, maxMeshSeparatrices;
};

void checkVolumes(const VolumeLimits& limits, int atLeast) {
  const TtkReference reference = ttkReference(sharedDataDir());
  if (reference.missing())
    GTEST_SKIP() << reference.skipMessage();
  const auto& [data, json, volumes] = reference;
  static const char* const keys[7] = {"minimum",          "saddle1",   "saddle2",
                                      "maximum",          "ascending", "descending",
                                      "saddle_connectors"};
  int checked = 0;
  for (const RawVolume& vol : volumes) {
    const SimplexId nv = vol.n[0] * vol.n[1] * vol.n[2];
    if (nv < limits.minVertices || nv > limits.maxVertices)
      continue;
    std::map<std::string, SimplexId> expected =
        referenceCounts(json, vol.file, "msc_critical_points");
    ASSERT_EQ(expected.size(), 4u) << "no msc_critical_points entry for " << vol.file;
    expected.merge(referenceCounts(json, vol.file, "msc_separatrices1"));
    ASSERT_EQ(expected.size(), 7u) << "no msc_separatrices1 entry for " << vol.file;
    for (bool asMesh : {false, true}) {
      if (asMesh && nv > limits.maxMesh)
        continue;
      SCOPED_TRACE(vol.file + (asMesh ? " (explicit)" : " (implicit)"));
      const bool separatrices =
          nv <= (asMesh ? limits.maxMeshSeparatrices : limits.maxSeparatrices);
      const VolumeCounts got =
          countsOf(vol, data + "/volumes/" + vol.file, asMesh, separatrices);
      for (int k = 0; k < (separatrices ? 7 : 4); ++k)
        EXPECT_EQ(got[k], expected.at(keys[k])) << keys[k];
    }
    ++checked;
  }
  EXPECT_GE(checked, atLeast) << "too few volumes found";
}

constexpr SimplexId kLargeVolume = 4000000;

// Critical cells on every volume up to 4M vertices (explicit: up to 300k), separatrices
// and saddle connectors up to 130k (explicit: 40k), to keep CI short.
TEST(SimplicialGradientTtkParity, Volumes) {
  checkVolumes({0, kLargeVolume, 300000, 130000, 40000}, 10);
}

// The slow label (tests/unit/CMakeLists.txt): the critical cells of engine, aneurism,
// lidc2 (8-17M vertices), and the separatrices and saddle connectors of the volumes from
// 130k to 4M vertices (explicit: up to 300k).
TEST(SimplicialGradientTtkParitySlow, LargeVolumes) {
  if (std::getenv("TOPOGPU_SLOW_TESTS") == nullptr)
    GTEST_SKIP() << "set TOPOGPU_SLOW_TESTS=1 (ctest -L slow runs it so)";
  checkVolumes({kLargeVolume + 1, SimplexId(1) << 40, 0, 0, 0}, 2);
}

TEST(SimplicialGradientTtkParitySlow, Separatrices) {
  if (std::getenv("TOPOGPU_SLOW_TESTS") == nullptr)
    GTEST_SKIP() << "set TOPOGPU_SLOW_TESTS=1 (ctest -L slow runs it so)";
  checkVolumes({130001, kLargeVolume, 300000, kLargeVolume, 300000}, 8);
}

} // namespace
} // namespace topogpu::test
