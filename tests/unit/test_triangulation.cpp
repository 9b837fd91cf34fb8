// Both triangulation backends against a brute-force enumeration of the same complex:
// every relation, the boundary flags and the counts, compared as sets of vertex tuples
// (simplex ids differ between backends; vertex ids do not).
#include "BruteForce.h"
#include "TriangulationChecks.h"

#include "core/discrete_gradient/GridSimplices.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>

namespace topogpu::test {
namespace {

struct GridCase {
  SimplexId nx, ny, nz;
};
// Readable parameter in test logs instead of a byte dump.
void PrintTo(const GridCase& g, std::ostream* os) {
  *os << g.nx << "x" << g.ny << "x" << g.nz;
}

class GridTriangulation : public ::testing::TestWithParam<GridCase> {};

TEST_P(GridTriangulation, BothBackendsMatchBruteForce) {
  const GridCase g = GetParam();
  // TTK's split, from its corner list (not from the stencil under test).
  const std::vector<Tuple> cells = ttkGridCells(g.nx, g.ny, g.nz);
  const int dim = int(cells.front().size()) - 1;
  const SimplexId nv = g.nx * g.ny * g.nz;
  const BruteComplex ref(nv, dim, cells);
  std::ostringstream name;
  name << g.nx << "x" << g.ny << "x" << g.nz;

  // Relations must be right both on the fly and from whatever precondition() caches.
  // Debug builds refuse accessors whose relation was not asked for (tested below).
#ifdef NDEBUG
  ImplicitTriangulation onTheFly(g.nx, g.ny, g.nz);
  compareWithBruteForce(onTheFly, ref, "implicit without precondition " + name.str());
#endif
  ImplicitTriangulation implicit(g.nx, g.ny, g.nz);
  implicit.precondition(AllRelations);
  compareWithBruteForce(implicit, ref, "implicit " + name.str());
  checkFind(implicit, ref);
  // findTet (implicit only): every tet from any vertex order.
  if (dim == 3) {
    for (SimplexId t = 0; t < implicit.getNumberOfTets(); ++t) {
      Tuple v = verticesOf(implicit, 3, t);
      do {
        EXPECT_EQ(implicit.findTet(v[0], v[1], v[2], v[3]), t) << str(v);
      } while (std::next_permutation(v.begin(), v.end()));
    }
  }

  // The explicit backend gets the independently enumerated cells, shuffled, so the two
  // backends agree only if both triangulate the grid the same (TTK's) way.
  std::vector<Tuple> shuffled = cells;
  std::mt19937 rng(11);
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  for (Tuple& c : shuffled)
    std::shuffle(c.begin(), c.end(), rng);
  for (const IdWidth width : {IdWidth::Auto, IdWidth::Force64}) {
    const bool wide = width == IdWidth::Force64;
    ExplicitTriangulation explicitTri(nv, dim, flatten(shuffled), width);
    EXPECT_EQ(explicitTri.cellsAre32Bit(), !wide);
    explicitTri.precondition(AllRelations);
    compareWithBruteForce(explicitTri, ref,
                          (wide ? "explicit 64-bit " : "explicit ") + name.str());
    checkFind(explicitTri, ref);
    // the grid's own cells stored as a mesh (the CLI's --triangulation explicit)
    ExplicitTriangulation copy = explicitCopyOf(implicit, width);
    EXPECT_EQ(copy.cellsAre32Bit(), !wide);
    copy.precondition(AllRelations);
    compareWithBruteForce(copy, ref, (wide ? "copy 64-bit " : "copy ") + name.str());
  }
}

// A grid's cells under a vertex mask (the CLI's --drop-zero): the cells of TTK's split
// whose vertices are all kept, renumbered compactly in ascending id order, compared as
// sorted tuples with the brute-force split; getCellVertices over any range equals
// getCellVertex.
TEST_P(GridTriangulation, MaskedCellsMatchBruteForce) {
  const GridCase g = GetParam();
  const std::vector<Tuple> cells = ttkGridCells(g.nx, g.ny, g.nz);
  const SimplexId nv = g.nx * g.ny * g.nz;
  const ImplicitTriangulation grid(g.nx, g.ny, g.nz);
  const int arity = grid.getCellVertexNumber();
  std::mt19937 rng(7);
  for (const double density : {0.0, 0.3, 0.8, 1.0}) {
    std::vector<std::uint8_t> keep(std::size_t(nv), 0);
    for (auto& k : keep)
      k = std::uniform_real_distribution<double>(0, 1)(rng) < density;
    std::vector<SimplexId> newId(std::size_t(nv), -1), kept;
    for (SimplexId v = 0; v < nv; ++v)
      if (keep[v] != 0) {
        newId[v] = SimplexId(kept.size());
        kept.push_back(v);
      }
    std::vector<Tuple> expected;
    for (const Tuple& c : cells) {
      Tuple renumbered;
      for (const SimplexId v : c)
        if (keep[v] != 0)
          renumbered.push_back(newId[v]);
      if (renumbered.size() == c.size()) {
        std::sort(renumbered.begin(), renumbered.end());
        expected.push_back(renumbered);
      }
    }
    const MaskedGridCells masked = maskedCellsOf(grid, keep);
    EXPECT_EQ(masked.keptVertices, kept);
    ASSERT_EQ(masked.numberOfCells, SimplexId(expected.size()));
    ASSERT_EQ(masked.cells32.size(), expected.size() * std::size_t(arity));
    EXPECT_TRUE(masked.cells.empty());
    std::vector<Tuple> got;
    for (std::size_t c = 0; c < expected.size(); ++c) {
      Tuple t(masked.cells32.begin() + c * arity,
              masked.cells32.begin() + (c + 1) * arity);
      std::sort(t.begin(), t.end());
      got.push_back(t);
    }
    std::sort(got.begin(), got.end());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(got, expected) << "density " << density;
  }
  const SimplexId total = grid.getNumberOfCells();
  for (int trial = 0; trial < 20; ++trial) {
    SimplexId first = std::uniform_int_distribution<SimplexId>(0, total)(rng);
    SimplexId last = std::uniform_int_distribution<SimplexId>(0, total)(rng);
    if (first > last)
      std::swap(first, last);
    std::vector<SimplexId> vertices(std::size_t(last - first) * arity);
    grid.getCellVertices(first, last, vertices.data());
    for (SimplexId c = first; c < last; ++c)
      for (int k = 0; k < arity; ++k)
        ASSERT_EQ(vertices[std::size_t(c - first) * arity + k], grid.getCellVertex(c, k))
            << "cell " << c << " vertex " << k;
  }
  EXPECT_THROW(grid.getCellVertices(0, total + 1, nullptr), Error);
  EXPECT_THROW(maskedCellsOf(grid, std::vector<std::uint8_t>(std::size_t(nv) + 1, 1)),
               Error);
}

// The stencil answer for an edge's triangles (one decode, index arithmetic) against the
// relations checked above: the same triangles, the edge's face index in each, and each
// triangle's vertices and edges in getTriangleVertex's and getTriangleEdge's order; the
// stencil index of a triangle's face (grid::edgeTriangleStencilIndex) finds that
// triangle again.
TEST_P(GridTriangulation, EdgeStencilTrianglesMatchRelations) {
  const GridCase g = GetParam();
  ImplicitTriangulation grid(g.nx, g.ny, g.nz);
  grid.precondition(AllRelations);
  for (SimplexId e = 0; e < grid.getNumberOfEdges(); ++e) {
    std::vector<EdgeTriangle> list;
    for (int k = -1; k <= grid::kMaxEdgeTriangleStencils; ++k) {
      EdgeTriangle t;
      if (grid.getEdgeStencilTriangle(e, k, t))
        list.push_back(t);
    }
    std::vector<SimplexId> stencil, relation;
    for (int i = 0; i < grid.getEdgeTriangleNumber(e); ++i)
      relation.push_back(grid.getEdgeTriangle(e, i));
    for (const EdgeTriangle& t : list) {
      stencil.push_back(t.triangle);
      EXPECT_EQ(grid.getTriangleEdge(t.triangle, t.face), e) << "edge " << e;
      for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(t.vertices[k], grid.getTriangleVertex(t.triangle, k));
        EXPECT_EQ(t.edges[k], grid.getTriangleEdge(t.triangle, k));
      }
    }
    std::sort(stencil.begin(), stencil.end());
    std::sort(relation.begin(), relation.end());
    EXPECT_EQ(stencil, relation) << "edge " << e;
  }
  // Every face of every triangle, by the stencil index of the triangle's type and face.
  const discrete_gradient::simplicial::GridSimplices simplices =
      discrete_gradient::simplicial::gridSimplicesOf(grid.dims());
  for (SimplexId f = 0; f < grid.getNumberOfTriangles(); ++f) {
    SimplexId base[3];
    int chain[4];
    discrete_gradient::simplicial::gridSimplexChain(simplices, 2, f, base, chain);
    int type = 0;
    while (grid::triangleType(grid.getDimension(), type).s1 != chain[1] ||
           grid::triangleType(grid.getDimension(), type).s2 != chain[2])
      ++type;
    for (int face = 0; face < 3; ++face) {
      EdgeTriangle t;
      ASSERT_TRUE(grid.getEdgeStencilTriangle(
          grid.getTriangleEdge(f, face),
          grid::edgeTriangleStencilIndex(grid.getDimension(), type, face), t));
      EXPECT_EQ(t.triangle, f);
      EXPECT_EQ(t.face, face);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Grids, GridTriangulation,
                         ::testing::Values(GridCase{2, 2, 2}, GridCase{3, 4, 5},
                                           GridCase{4, 3, 2}, GridCase{2, 2, 1},
                                           GridCase{5, 4, 1}, GridCase{4, 1, 6},
                                           GridCase{1, 5, 3}, GridCase{2, 3, 2},
                                           GridCase{1, 2, 2}),
                         [](const auto& info) {
                           const GridCase g = info.param;
                           return std::to_string(g.nx) + "x" + std::to_string(g.ny) +
                                  "x" + std::to_string(g.nz);
                         });

// A hand-made tet mesh: an octahedron split into 4 tets around its axis 0-5, plus one
// tet glued on a face and a tet touching the rest at a single vertex (non-manifold).
TEST(ExplicitTriangulation, HandMadeTetMesh) {
  const std::vector<Tuple> cells = {{0, 5, 1, 2}, {0, 5, 2, 3}, {0, 5, 3, 4},
                                    {0, 5, 4, 1}, {0, 1, 2, 6}, {6, 7, 8, 9}};
  const BruteComplex ref(10, 3, cells);
  ExplicitTriangulation tri(10, 3, flatten(cells));
  tri.precondition(AllRelations);
  compareWithBruteForce(tri, ref, "hand-made tets");
  checkFind(tri, ref);
  EXPECT_EQ(tri.getNumberOfNonManifoldFacets(), 0);
}

// A triangle mesh with boundary: a hexagon fan around vertex 0 with one wedge missing,
// plus a strip attached along an edge and an isolated-by-edge triangle.
TEST(ExplicitTriangulation, TriangleMeshWithBoundary) {
  const std::vector<Tuple> cells = {{0, 1, 2}, {0, 2, 3}, {0, 3, 4}, {0, 4, 5},
                                    {0, 5, 6}, {1, 2, 7}, {2, 7, 8}, {9, 10, 11}};
  const BruteComplex ref(12, 2, cells);
  ExplicitTriangulation tri(12, 2, flatten(cells));
  tri.precondition(AllRelations);
  compareWithBruteForce(tri, ref, "triangle mesh");
  checkFind(tri, ref);
}

// Random sub-complexes of a tetrahedralized grid (holes, pinched vertices and edges) with
// permuted vertex ids: nothing grid-like left for the explicit backend to rely on.
TEST(ExplicitTriangulation, RandomSubcomplexes) {
  for (int seed = 0; seed < 12; ++seed) {
    std::mt19937 rng(seed);
    const bool is3D = seed % 2 == 0;
    const std::vector<Tuple> grid = is3D ? kuhnCells(3, 3, 3) : kuhnCells(4, 5, 1);
    const SimplexId nv = is3D ? 27 : 20;
    const std::vector<Tuple> cells = randomSubcomplex(grid, nv, 3, false, rng);
    const BruteComplex ref(nv, is3D ? 3 : 2, cells);
    ExplicitTriangulation tri(nv, is3D ? 3 : 2, flatten(cells));
    tri.precondition(AllRelations);
    compareWithBruteForce(tri, ref, "random subcomplex seed " + std::to_string(seed));
    checkFind(tri, ref);
  }
}

// Relations requested one at a time must come out right without the others prepared
// (precondition builds what each depends on).
TEST(ExplicitTriangulation, PreconditionOneRelationAtATime) {
  const std::vector<Tuple> cells = kuhnCells(3, 3, 2);
  const BruteComplex ref(18, 3, cells);
  const Relation all[] = {VV, VE, VF, VT, EV, EF, ET, FV, FE, FT, TV, TE, TF, TT};
  const int from[] = {0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3};
  const int to[] = {0, 1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2, 3};
  for (int r = 0; r < 14; ++r) {
    ExplicitTriangulation tri(18, 3, flatten(cells));
    tri.precondition(all[r]);
    // Simplex ids are only meaningful once the simplices of both ends exist.
    tri.precondition(r < 4 || from[r] == 1 || to[r] == 1 ? Relations(EV) : Relations(0));
    tri.precondition(from[r] == 2 || to[r] == 2 ? Relations(FV) : Relations(0));
    const auto expected = ref.relation(from[r], to[r]);
    for (SimplexId id = 0; id < countOf(tri, from[r]); ++id) {
      std::multiset<Tuple> got;
      for (SimplexId target : relationOf(tri, from[r], to[r], id))
        got.insert(verticesOf(tri, to[r], target));
      EXPECT_EQ(got, expected.at(verticesOf(tri, from[r], id)))
          << kDimName[from[r]] << kDimName[to[r]] << " alone, id " << id;
    }
  }
}

// Each boundary flag requested alone (the critical points ask only for the vertices' one)
// matches brute force, in 2D and 3D, on a mesh with holes.
TEST(ExplicitTriangulation, PreconditionBoundaryFlagsAlone) {
  for (const bool is3D : {true, false}) {
    std::mt19937 rng(is3D ? 5 : 6);
    const SimplexId nv = is3D ? 27 : 20;
    const std::vector<Tuple> cells = randomSubcomplex(
        is3D ? kuhnCells(3, 3, 3) : kuhnCells(4, 5, 1), nv, 3, false, rng);
    const int dim = is3D ? 3 : 2;
    const BruteComplex ref(nv, dim, cells);
    const Relation flags[] = {BoundaryVertices, BoundaryEdges, BoundaryTriangles};
    for (int d = 0; d < dim; ++d) {
      ExplicitTriangulation tri(nv, dim, flatten(cells));
      tri.precondition(flags[d]);
      tri.precondition(d == 1 ? Relations(EV) : d == 2 ? Relations(FV) : Relations(0));
      std::set<Tuple> got;
      for (SimplexId id = 0; id < countOf(tri, d); ++id) {
        if (onBoundary(tri, d, id))
          got.insert(verticesOf(tri, d, id));
      }
      EXPECT_EQ(got, ref.boundary(d)) << kDimName[d] << " boundary alone, dim " << dim;
    }
  }
}

// Both id widths and both ways of holding the cells (owned, a view of the caller's 32-
// or 64-bit buffer) give the same complex; the view reads the caller's cells in place,
// in their given vertex order, and keeps the buffer alive through its owner.
TEST(ExplicitTriangulation, IdWidthsAndViews) {
  for (int seed = 0; seed < 6; ++seed) {
    std::mt19937 rng(100 + seed);
    const bool is3D = seed % 2 == 0;
    const int dim = is3D ? 3 : 2;
    const SimplexId nv = is3D ? 27 : 20;
    std::vector<Tuple> cells = randomSubcomplex(
        is3D ? kuhnCells(3, 3, 3) : kuhnCells(4, 5, 1), nv, 3, false, rng);
    for (Tuple& c : cells)
      std::shuffle(c.begin(), c.end(), rng);
    const BruteComplex ref(nv, dim, cells);
    const std::vector<SimplexId> flat = flatten(cells);
    const SimplexId count = SimplexId(cells.size());
    for (const IdWidth width : {IdWidth::Auto, IdWidth::Force64}) {
      auto narrow = std::make_shared<std::vector<std::int32_t>>(flat.begin(), flat.end());
      auto wide = std::make_shared<std::vector<std::int64_t>>(flat.begin(), flat.end());
      std::vector<ExplicitTriangulation> variants;
      variants.push_back(
          ExplicitTriangulation::view(nv, dim, narrow->data(), count, narrow, width));
      variants.push_back(
          ExplicitTriangulation::view(nv, dim, wide->data(), count, wide, width));
      variants.push_back(ExplicitTriangulation::fromCells32(
          nv, dim, std::vector<std::int32_t>(flat.begin(), flat.end()), width));
      narrow.reset(); // the triangulations' owners keep the buffers alive
      wide.reset();
      for (std::size_t k = 0; k < variants.size(); ++k) {
        ExplicitTriangulation& tri = variants[k];
        const std::string what = "seed " + std::to_string(seed) + " variant " +
                                 std::to_string(k) +
                                 (width == IdWidth::Force64 ? " 64-bit" : "");
        // cells as given: same ids in the same (orientation-carrying) order
        for (SimplexId c = 0; c < count; ++c)
          for (int i = 0; i <= dim; ++i)
            ASSERT_EQ(tri.getCellVertex(c, i), flat[c * (dim + 1) + i]) << what;
        tri.precondition(AllRelations);
        compareWithBruteForce(tri, ref, what);
        checkFind(tri, ref);
      }
      // each view reads the caller's buffer in its own width
      EXPECT_TRUE(variants[0].cellsAre32Bit());
      EXPECT_FALSE(variants[1].cellsAre32Bit());
      // forcing 64-bit ids doubles the relations' storage
      if (width == IdWidth::Force64) {
        ExplicitTriangulation lean(nv, dim, flat);
        lean.precondition(AllRelations);
        EXPECT_GT(variants[2].memoryBytes(), lean.memoryBytes() * 3 / 2);
      }
    }
  }
}

// What the critical points ask for (VV, the vertex star, the boundary vertices) comes out
// right on its own, and builds no edge or triangle list.
TEST(ExplicitTriangulation, CriticalPointRelationsAlone) {
  for (const bool is3D : {true, false}) {
    std::mt19937 rng(is3D ? 21 : 22);
    const SimplexId nv = is3D ? 27 : 20;
    const int dim = is3D ? 3 : 2;
    const std::vector<Tuple> cells = randomSubcomplex(
        is3D ? kuhnCells(3, 3, 3) : kuhnCells(4, 5, 1), nv, 3, false, rng);
    const BruteComplex ref(nv, dim, cells);
    ExplicitTriangulation tri(nv, dim, flatten(cells));
    tri.precondition(VV | VertexStar | BoundaryVertices);
    const auto vv = ref.relation(0, 0);
    std::set<Tuple> boundary;
    for (SimplexId v = 0; v < nv; ++v) {
      std::multiset<Tuple> got;
      for (int i = 0; i < tri.getVertexNeighborNumber(v); ++i)
        got.insert({tri.getVertexNeighbor(v, i)});
      EXPECT_EQ(got, vv.at({v})) << "VV of " << v;
      std::multiset<Tuple> star, expected;
      for (int i = 0; i < tri.getVertexStarNumber(v); ++i) {
        SimplexId vertices[4];
        tri.getVertexStarVertices(v, i, vertices);
        Tuple t(vertices, vertices + dim + 1);
        std::sort(t.begin(), t.end());
        star.insert(t);
      }
      for (const Tuple& c : ref.simplices[dim])
        if (std::binary_search(c.begin(), c.end(), v))
          expected.insert(c);
      EXPECT_EQ(star, expected) << "star of " << v;
      if (tri.isVertexOnBoundary(v))
        boundary.insert({v});
    }
    EXPECT_EQ(boundary, ref.boundary(0));
    // offsets + ids of VV and the star, and one flag byte per vertex: nothing else
    std::size_t starEntries = 0, neighborEntries = 0;
    for (SimplexId v = 0; v < nv; ++v) {
      starEntries += tri.getVertexStarNumber(v);
      neighborEntries += tri.getVertexNeighborNumber(v);
    }
    EXPECT_EQ(tri.memoryBytes(),
              4 * (2 * (nv + 1) + starEntries + neighborEntries) + std::size_t(nv));
  }
}

// A book of three triangles on one edge, and three tets on one triangle: the shared facet
// is non-manifold, counted without a facet list.
TEST(ExplicitTriangulation, CountsNonManifoldFacets) {
  ExplicitTriangulation book(5, 2, {0, 1, 2, 1, 0, 3, 4, 0, 1});
  book.precondition(BoundaryVertices);
  EXPECT_EQ(book.getNumberOfNonManifoldFacets(), 1);
  ExplicitTriangulation tets(6, 3, {0, 1, 2, 3, 2, 1, 0, 4, 5, 0, 2, 1});
  tets.precondition(BoundaryVertices);
  EXPECT_EQ(tets.getNumberOfNonManifoldFacets(), 1);
  for (SimplexId v = 0; v < 6; ++v)
    EXPECT_TRUE(tets.isVertexOnBoundary(v));
}

// Debug builds (and the sanitizer build) check every accessor's precondition, on both
// backends: a forgotten relation or an id out of range fails loudly, naming it, instead
// of reading out of bounds (meshes) or passing unnoticed (grids).
TEST(Preconditions, MissingRelationIsCaughtInDebugBuilds) {
#ifdef NDEBUG
  GTEST_SKIP() << "precondition checks are compiled out of Release builds";
#else
  auto expectMisuse = [](auto&& call, const std::string& words) {
    try {
      call();
      ADD_FAILURE() << "no error; expected one naming " << words;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  ExplicitTriangulation mesh(5, 3, {0, 1, 2, 3, 1, 2, 3, 4});
  ImplicitTriangulation grid(3, 3, 3);
  expectMisuse([&] { mesh.getVertexNeighborNumber(0); }, "relation VV");
  expectMisuse([&] { grid.getVertexNeighborNumber(0); }, "relation VV");
  expectMisuse([&] { mesh.getVertexStarNumber(0); }, "relation VertexStar");
  expectMisuse([&] { grid.getVertexStarNumber(0); }, "relation VertexStar");
  expectMisuse([&] { mesh.isVertexOnBoundary(0); }, "relation BoundaryVertices");
  expectMisuse([&] { grid.isVertexOnBoundary(0); }, "relation BoundaryVertices");
  expectMisuse([&] { mesh.getEdgeTriangleNumber(0); }, "relation EF");
  expectMisuse([&] { grid.getEdgeTriangleNumber(0); }, "relation EF");
  expectMisuse([&] { grid.getTetNeighborNumber(0); }, "relation TT");
  // asking for one relation does not grant an unrelated one
  mesh.precondition(VV);
  grid.precondition(VV);
  EXPECT_EQ(mesh.getVertexNeighborNumber(0), 3);
  EXPECT_EQ(grid.getVertexNeighborNumber(0), grid.getVertexNeighborNumber(0));
  expectMisuse([&] { mesh.getVertexTetNumber(0); }, "relation VT");
  expectMisuse([&] { grid.getVertexTetNumber(0); }, "relation VT");
  // VertexStar and VT name the same relation in 3D
  mesh.precondition(VertexStar);
  grid.precondition(VertexStar);
  EXPECT_EQ(mesh.getVertexTetNumber(4), 1);
  EXPECT_EQ(grid.getVertexTetNumber(0), grid.getVertexStarNumber(0));
  // ids out of range
  expectMisuse([&] { mesh.getVertexNeighbor(0, 3); }, "out of range");
  expectMisuse([&] { mesh.getVertexNeighbor(5, 0); }, "vertex 5 out of range");
  expectMisuse([&] { grid.getVertexNeighbor(27, 0); }, "vertex 27 out of range");
  expectMisuse([&] { mesh.getCellVertex(2, 0); }, "cell 2 out of range");
#endif
}

// ---- error cases
// ----------------------------------------------------------------------------

TEST(ImplicitTriangulation, RejectsDegenerateGrids) {
  EXPECT_THROW(ImplicitTriangulation(10, 1, 1), Error);
  EXPECT_THROW(ImplicitTriangulation(1, 1, 10), Error);
  EXPECT_THROW(ImplicitTriangulation(1, 1, 1), Error);
  EXPECT_THROW(ImplicitTriangulation(0, 4, 4), Error);
  EXPECT_THROW(ImplicitTriangulation(4, 4, 0), Error);
  EXPECT_THROW(ImplicitTriangulation(4, -1, 4), Error);
  EXPECT_NO_THROW(ImplicitTriangulation(2, 2, 1));
}

// Faces declared boundary one at a time, in VTK's axes (bit 2a low, 2a+1 high face of
// axis a): a vertex is on the boundary exactly when its (x, y, z) lies on a declared
// face.
TEST(ImplicitTriangulation, BoundaryFacesFollowVtkAxes) {
  const SimplexId shapes[][3] = {{4, 5, 6}, {4, 1, 6}, {1, 3, 5}};
  for (const auto& n : shapes) {
    for (int faces : {0, 1, 2, 4, 8, 16, 32, 0x15, 0x3f}) {
      ImplicitTriangulation grid(n[0], n[1], n[2]);
      grid.setBoundaryFaces(faces);
      grid.precondition(BoundaryVertices);
      for (SimplexId v = 0; v < n[0] * n[1] * n[2]; ++v) {
        const SimplexId c[3] = {v % n[0], v / n[0] % n[1], v / (n[0] * n[1])};
        bool expected = false;
        for (int a = 0; a < 3; ++a) {
          if (n[a] == 1)
            continue; // squeezed axis: not a face
          expected = expected || (c[a] == 0 && (faces >> (2 * a) & 1)) ||
                     (c[a] == n[a] - 1 && (faces >> (2 * a + 1) & 1));
        }
        ASSERT_EQ(grid.isVertexOnBoundary(v), expected)
            << n[0] << "x" << n[1] << "x" << n[2] << " faces " << faces << " vertex "
            << v;
      }
    }
  }
}

TEST(ExplicitTriangulation, RejectsBadConnectivity) {
  // vertex id out of range, both ends
  EXPECT_THROW(ExplicitTriangulation(4, 3, {0, 1, 2, 4}), Error);
  EXPECT_THROW(ExplicitTriangulation(4, 3, {0, 1, 2, -1}), Error);
  EXPECT_THROW(ExplicitTriangulation(3, 2, {0, 1, 3}), Error);
  // repeated vertex in a cell
  EXPECT_THROW(ExplicitTriangulation(4, 3, {0, 1, 1, 2}), Error);
  EXPECT_THROW(ExplicitTriangulation(3, 2, {2, 0, 2}), Error);
  // duplicate cells, also when listed in another vertex order
  EXPECT_THROW(ExplicitTriangulation(5, 3, {0, 1, 2, 3, 1, 2, 3, 4, 3, 2, 1, 0}), Error);
  EXPECT_THROW(ExplicitTriangulation(4, 2, {0, 1, 2, 2, 1, 0}), Error);
  // no cells, truncated connectivity, unsupported dimension
  EXPECT_THROW(ExplicitTriangulation(4, 3, {}), Error);
  EXPECT_THROW(ExplicitTriangulation(0, 2, {}), Error);
  EXPECT_THROW(ExplicitTriangulation(4, 3, {0, 1, 2}), Error);
  EXPECT_THROW(ExplicitTriangulation(4, 1, {0, 1}), Error);
  EXPECT_NO_THROW(ExplicitTriangulation(4, 3, {3, 2, 1, 0}));
}

} // namespace
} // namespace topogpu::test
