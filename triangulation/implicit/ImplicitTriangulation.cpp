#include "ImplicitTriangulation.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <string>

namespace topogpu {

namespace {

int edgeMask(int, int type) {
  return type + 1;
}
int triangleSpanMask(int dimension, int type) {
  return grid::triangleType(dimension, type).s2;
}
int tetMask(int, int) {
  return 7;
}

void addMask(const SimplexId c[3], int mask, int sign, SimplexId out[3]) {
  for (int a = 0; a < 3; ++a)
    out[a] = c[a] + SimplexId(sign) * ((mask >> a) & 1);
}

int displacementMask(const SimplexId from[3], const SimplexId to[3]) {
  int mask = 0;
  for (int a = 0; a < 3; ++a) {
    const SimplexId d = to[a] - from[a];
    if (d < 0 || d > 1)
      return -1;
    mask |= int(d) << a;
  }
  return mask;
}

// The i-th candidate for which valid(k) holds, among count candidates; -1 when none.
template <typename Valid> int nthValid(int count, int i, Valid valid) {
  for (int k = 0; k < count; ++k) {
    if (valid(k) && i-- == 0)
      return k;
  }
  return -1;
}
template <typename Valid> int countValid(int count, Valid valid) {
  int n = 0;
  for (int k = 0; k < count; ++k)
    n += valid(k) ? 1 : 0;
  return n;
}

// Vertices of a simplex in chain order: each step of a chain adds at least one unit
// coordinate, so the coordinate sum orders them (ids do not: the first axis is mirrored).
template <std::size_t N>
void chainOrder(const grid::Dims& dims, const std::array<SimplexId, N>& v,
                SimplexId (&c)[N][3]) {
  std::array<std::size_t, N> rank{};
  SimplexId sums[N], raw[N][3];
  for (std::size_t k = 0; k < N; ++k) {
    grid::vertexCoords(dims, v[k], raw[k]);
    sums[k] = raw[k][0] + raw[k][1] + raw[k][2];
    rank[k] = k;
  }
  std::sort(rank.begin(), rank.end(),
            [&](std::size_t a, std::size_t b) { return sums[a] < sums[b]; });
  for (std::size_t k = 0; k < N; ++k)
    std::copy(raw[rank[k]], raw[rank[k]] + 3, c[k]);
}

} // namespace

ImplicitTriangulation::ImplicitTriangulation(SimplexId nx, SimplexId ny, SimplexId nz) {
  const SimplexId sizes[3] = {nx, ny, nz};
  int active = 0;
  for (int axis = 0; axis < 3; ++axis) {
    const SimplexId s = sizes[axis];
    if (s <= 0)
      throw Error("empty grid (" + std::to_string(nx) + "x" + std::to_string(ny) + "x" +
                  std::to_string(nz) + " points)");
    if (s > 1) {
      axisOf_[active] = axis;
      dims_.n[active++] = s;
    }
  }
  if (active < 2)
    throw Error("grid of " + std::to_string(nx) + "x" + std::to_string(ny) + "x" +
                std::to_string(nz) +
                " points has fewer than two axes with 2 or more points; a triangulation "
                "needs a 2D or 3D grid");
  dims_.dimension = active;
  edgeTypes_ = grid::edgeTypeCount(active);
  triangleTypes_ = grid::triangleTypeCount(active);
  tetTypes_ = grid::tetTypeCount(active);
  auto boxSize = [&](int mask) { return grid::boxCellCount(dims_, mask); };
  for (int t = 0; t < edgeTypes_; ++t)
    edgeOffset_[t + 1] = edgeOffset_[t] + boxSize(edgeMask(active, t));
  for (int t = 0; t < triangleTypes_; ++t)
    triangleOffset_[t + 1] = triangleOffset_[t] + boxSize(triangleSpanMask(active, t));
  for (int t = 0; t < tetTypes_; ++t)
    tetOffset_[t + 1] = tetOffset_[t] + boxSize(7);
  for (int k = 0; k < 2 * edgeTypes_; ++k)
    neighborOffset_[k] = grid::neighborOffset(dims_, k);
  const int cellSize = active + 1;
  for (int k = 0; k < grid::cellTypeCount(active) * cellSize; ++k) {
    const int type = k / cellSize, own = grid::cellChainMask(active, type, k % cellSize);
    for (int q = 0; q < cellSize; ++q)
      starVertexOffset_[k * cellSize + q] =
          grid::maskOffset(dims_, grid::cellChainMask(active, type, q)) -
          grid::maskOffset(dims_, own);
  }
  for (int t = 0; t < edgeTypes_; ++t) {
    grid::EdgeTriangleStencil s;
    for (int& k = edgeTriangleStencilCount_[t];
         k < grid::kMaxEdgeTriangleStencils &&
         grid::edgeTriangleStencil(active, edgeMask(active, t), k, s);
         ++k)
      edgeTriangleStencils_[t][k] = s;
  }
  for (int k = 0; k < 3 * triangleTypes_; ++k) {
    const grid::TriangleType type = grid::triangleType(active, k / 3);
    const int masks[3] = {0, type.s1, type.s2};
    for (int q = 0; q < 3; ++q)
      triangleStarVertexOffset_[std::size_t(k) * 3 + std::size_t(q)] =
          grid::maskOffset(dims_, masks[q]) - grid::maskOffset(dims_, masks[k % 3]);
  }
}

void ImplicitTriangulation::precondition(Relations relations) {
  relations = expandRelations(relations, dims_.dimension);
  // Relations computed through others grant those too (the accessors call them).
  const Relations uses[][2] = {{VE, VV},
                               {FE, FV},
                               {EF, EV | VF | FV},
                               {ET, EV | VT},
                               {FT, FV | VT},
                               {TT, TF | FT | FV | VT},
                               {BoundaryEdges, EV},
                               {BoundaryTriangles, FV}};
  prepared_ |= relations;
  for (const auto& use : uses)
    prepared_ |= (relations & use[0]) ? use[1] : 0;
  // The vertex table speeds up the star queries only; boundary flags need none.
  if (!(relations & (VV | VE | VF | VT)) || !onBoundary_.empty())
    return;
  onBoundary_.resize(getNumberOfVertices());
  tbb::parallel_for(tbb::blocked_range<SimplexId>(0, getNumberOfVertices()),
                    [&](const tbb::blocked_range<SimplexId>& range) {
                      for (SimplexId v = range.begin(); v < range.end(); ++v) {
                        SimplexId c[3];
                        grid::vertexCoords(dims_, v, c);
                        onBoundary_[v] = isInterior(c) ? 0 : 1;
                      }
                    });
}

ImplicitTriangulation::Anchor
ImplicitTriangulation::decode(SimplexId id, const SimplexId* offsets, int types,
                              int (*maskOf)(int, int)) const {
  Anchor anchor{0, {0, 0, 0}};
  while (anchor.type + 1 < types && id >= offsets[anchor.type + 1])
    ++anchor.type;
  SimplexId local = id - offsets[anchor.type];
  const int mask = maskOf(dims_.dimension, anchor.type);
  const SimplexId extent[2] = {dims_.n[0] - (mask & 1), dims_.n[1] - ((mask >> 1) & 1)};
  if (local < SimplexId(0xffffffffu) && extent[0] < SimplexId(0xffffffffu) &&
      extent[1] < SimplexId(0xffffffffu)) {
    // 32-bit division is several times cheaper than 64-bit (as in vertexCoords)
    const auto u = std::uint32_t(local), e0 = std::uint32_t(extent[0]),
               e1 = std::uint32_t(extent[1]);
    const std::uint32_t row = u / e0;
    anchor.base[0] = SimplexId(u - row * e0);
    anchor.base[1] = SimplexId(row % e1);
    anchor.base[2] = SimplexId(row / e1);
    return anchor;
  }
  anchor.base[0] = local % extent[0];
  local /= extent[0];
  anchor.base[1] = local % extent[1];
  anchor.base[2] = local / extent[1];
  return anchor;
}

SimplexId ImplicitTriangulation::encode(int type, const SimplexId base[3],
                                        const SimplexId* offsets, int mask) const {
  return offsets[type] + grid::boxIndex(dims_, base, mask);
}

bool ImplicitTriangulation::isInterior(const SimplexId c[3]) const {
  return grid::isInteriorCoords(dims_, c);
}

// ---- boundary relations ------------------------------------------------------------

SimplexId ImplicitTriangulation::getEdgeVertex(SimplexId e, int i) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, EV);
  TOPOGPU_REQUIRE_INDEX(e, getNumberOfEdges(), "edge");
  const Anchor a = decode(e, edgeOffset_.data(), edgeTypes_, edgeMask);
  SimplexId c[3];
  addMask(a.base, i == 0 ? 0 : a.type + 1, 1, c);
  return grid::vertexAt(dims_, c);
}

SimplexId ImplicitTriangulation::getTriangleVertex(SimplexId f, int i) const {
  if (dims_.dimension == 3) // in 2D the triangles are the cells
    TOPOGPU_REQUIRE_RELATION(prepared_, FV);
  TOPOGPU_REQUIRE_INDEX(f, getNumberOfTriangles(), "triangle");
  const Anchor a = decode(f, triangleOffset_.data(), triangleTypes_, triangleSpanMask);
  const grid::TriangleType type = grid::triangleType(dims_.dimension, a.type);
  SimplexId c[3];
  addMask(a.base, i == 0 ? 0 : i == 1 ? type.s1 : type.s2, 1, c);
  return grid::vertexAt(dims_, c);
}

SimplexId ImplicitTriangulation::getTetVertex(SimplexId t, int i) const {
  TOPOGPU_REQUIRE_INDEX(t, getNumberOfTets(), "tetrahedron");
  const Anchor a = decode(t, tetOffset_.data(), tetTypes_, tetMask);
  SimplexId c[3];
  addMask(a.base, grid::tetChainMask(a.type, i), 1, c);
  return grid::vertexAt(dims_, c);
}

// All vertices of a simplex from one decode (the relations below read them together).
void ImplicitTriangulation::edgeVertices(SimplexId e, SimplexId v[2]) const {
  const Anchor a = decode(e, edgeOffset_.data(), edgeTypes_, edgeMask);
  v[0] = grid::vertexAt(dims_, a.base);
  v[1] = v[0] + grid::maskOffset(dims_, a.type + 1);
}

void ImplicitTriangulation::triangleVertices(SimplexId f, SimplexId v[3]) const {
  const Anchor a = decode(f, triangleOffset_.data(), triangleTypes_, triangleSpanMask);
  const grid::TriangleType type = grid::triangleType(dims_.dimension, a.type);
  v[0] = grid::vertexAt(dims_, a.base);
  v[1] = v[0] + grid::maskOffset(dims_, type.s1);
  v[2] = v[0] + grid::maskOffset(dims_, type.s2);
}

void ImplicitTriangulation::tetVertices(SimplexId t, SimplexId v[4]) const {
  const Anchor a = decode(t, tetOffset_.data(), tetTypes_, tetMask);
  v[0] = grid::vertexAt(dims_, a.base);
  for (int k = 1; k < 4; ++k)
    v[k] = v[0] + grid::maskOffset(dims_, grid::tetChainMask(a.type, k));
}

void ImplicitTriangulation::getCellVertices(SimplexId first, SimplexId last,
                                            SimplexId* out) const {
  const bool tets = dims_.dimension == 3;
  if (first < 0 || last > getNumberOfCells() || first > last)
    throw Error("cell range [" + std::to_string(first) + ", " + std::to_string(last) +
                ") outside the grid's " + std::to_string(getNumberOfCells()) + " cells");
  const SimplexId* offsets = tets ? tetOffset_.data() : triangleOffset_.data();
  const int arity = getCellVertexNumber();
  for (SimplexId c = first; c < last;) {
    const Anchor a = tets ? decode(c, offsets, tetTypes_, tetMask)
                          : decode(c, offsets, triangleTypes_, triangleSpanMask);
    const int span =
        tets ? tetMask(3, a.type) : triangleSpanMask(dims_.dimension, a.type);
    const grid::TriangleType type =
        grid::triangleType(dims_.dimension, tets ? 0 : a.type);
    SimplexId step[4];
    for (int i = 0; i < arity; ++i)
      step[i] = grid::maskOffset(dims_, tets     ? grid::tetChainMask(a.type, i)
                                        : i == 0 ? 0
                                        : i == 1 ? type.s1
                                                 : type.s2);
    SimplexId extent[3], base[3];
    for (int axis = 0; axis < 3; ++axis) {
      extent[axis] = dims_.n[axis] - ((span >> axis) & 1);
      base[axis] = a.base[axis];
    }
    for (const SimplexId runEnd = std::min(last, offsets[a.type + 1]); c < runEnd; ++c) {
      const SimplexId v = grid::vertexAt(dims_, base);
      for (int i = 0; i < arity; ++i)
        *out++ = v + step[i];
      if (++base[0] == extent[0]) {
        base[0] = 0;
        if (++base[1] == extent[1]) {
          base[1] = 0;
          ++base[2];
        }
      }
    }
  }
}

SimplexId ImplicitTriangulation::getTriangleEdge(SimplexId f, int i) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, FE);
  TOPOGPU_REQUIRE_INDEX(f, getNumberOfTriangles(), "triangle");
  SimplexId v[3];
  triangleVertices(f, v);
  return i == 0   ? findEdge(v[0], v[1])
         : i == 1 ? findEdge(v[0], v[2])
                  : findEdge(v[1], v[2]);
}

SimplexId ImplicitTriangulation::getTetEdge(SimplexId t, int i) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, TE);
  static const int pairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  return findEdge(getTetVertex(t, pairs[i][0]), getTetVertex(t, pairs[i][1]));
}

SimplexId ImplicitTriangulation::getTetTriangle(SimplexId t, int i) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, TF);
  // triangle i is the face opposite vertex 3 - i, so faces come in lexicographic order
  TOPOGPU_REQUIRE_INDEX(t, getNumberOfTets(), "tetrahedron");
  SimplexId v[4];
  tetVertices(t, v);
  SimplexId face[3];
  int n = 0;
  for (int k = 0; k < 4; ++k) {
    if (k != 3 - i)
      face[n++] = v[k];
  }
  return findTriangle(face[0], face[1], face[2]);
}

// ---- lookups -----------------------------------------------------------------------

SimplexId ImplicitTriangulation::findEdge(SimplexId a, SimplexId b) const {
  SimplexId c[2][3];
  chainOrder(dims_, std::array<SimplexId, 2>{a, b}, c);
  const int mask = displacementMask(c[0], c[1]);
  if (mask <= 0)
    return -1;
  return encode(mask - 1, c[0], edgeOffset_.data(), mask);
}

SimplexId ImplicitTriangulation::findTriangle(SimplexId a, SimplexId b,
                                              SimplexId c) const {
  SimplexId cs[3][3];
  chainOrder(dims_, std::array<SimplexId, 3>{a, b, c}, cs);
  const int s1 = displacementMask(cs[0], cs[1]), s2 = displacementMask(cs[0], cs[2]);
  if (s1 <= 0 || s2 <= 0)
    return -1;
  for (int t = 0; t < triangleTypes_; ++t) {
    const grid::TriangleType type = grid::triangleType(dims_.dimension, t);
    if (type.s1 == s1 && type.s2 == s2)
      return encode(t, cs[0], triangleOffset_.data(), s2);
  }
  return -1;
}

SimplexId ImplicitTriangulation::findTet(SimplexId a, SimplexId b, SimplexId c,
                                         SimplexId d) const {
  if (dims_.dimension != 3)
    return -1;
  SimplexId cs[4][3];
  chainOrder(dims_, std::array<SimplexId, 4>{a, b, c, d}, cs);
  const int m1 = displacementMask(cs[0], cs[1]), m2 = displacementMask(cs[0], cs[2]),
            m3 = displacementMask(cs[0], cs[3]);
  if (m3 != 7)
    return -1;
  for (int t = 0; t < tetTypes_; ++t) {
    if (grid::tetChainMask(t, 1) == m1 && grid::tetChainMask(t, 2) == m2)
      return encode(t, cs[0], tetOffset_.data(), 7);
  }
  return -1;
}

// ---- coboundary relations ------------------------------------------------------------
// Candidates are enumerated in a fixed order and filtered by validity; interior vertices
// take the fast path where every candidate exists.

int ImplicitTriangulation::boundaryVertexNeighborNumber(SimplexId v) const {
  SimplexId c[3];
  grid::vertexCoords(dims_, v, c);
  return countValid(2 * edgeTypes_, [&](int k) {
    SimplexId n[3];
    addMask(c, grid::neighborMask(k), grid::neighborSign(k), n);
    return grid::anchorValid(dims_, n, 0);
  });
}

SimplexId ImplicitTriangulation::boundaryVertexNeighbor(SimplexId v, int i) const {
  SimplexId c[3];
  grid::vertexCoords(dims_, v, c);
  auto neighbor = [&](int k, SimplexId n[3]) {
    addMask(c, grid::neighborMask(k), grid::neighborSign(k), n);
  };
  const int k = nthValid(2 * edgeTypes_, i, [&](int kk) {
    SimplexId n[3];
    neighbor(kk, n);
    return grid::anchorValid(dims_, n, 0);
  });
  SimplexId n[3];
  neighbor(k, n);
  return grid::vertexAt(dims_, n);
}

SimplexId ImplicitTriangulation::getVertexEdge(SimplexId v, int i) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, VE);
  return findEdge(v, getVertexNeighbor(v, i));
}

int ImplicitTriangulation::getVertexTriangleNumber(SimplexId v) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, VF);
  TOPOGPU_REQUIRE_INDEX(v, getNumberOfVertices(), "vertex");
  if (isInteriorVertex(v))
    return 3 * triangleTypes_;
  SimplexId c[3];
  grid::vertexCoords(dims_, v, c);
  if (isInterior(c))
    return 3 * triangleTypes_;
  return countValid(3 * triangleTypes_, [&](int k) {
    const grid::TriangleType type = grid::triangleType(dims_.dimension, k / 3);
    const int p = k % 3;
    SimplexId base[3];
    addMask(c, p == 0 ? 0 : p == 1 ? type.s1 : type.s2, -1, base);
    return grid::anchorValid(dims_, base, type.s2);
  });
}

SimplexId ImplicitTriangulation::getVertexTriangle(SimplexId v, int i) const {
  TOPOGPU_REQUIRE_INDEX(i, getVertexTriangleNumber(v), "triangle index");
  SimplexId c[3];
  grid::vertexCoords(dims_, v, c);
  auto anchor = [&](int k, SimplexId base[3]) {
    const grid::TriangleType type = grid::triangleType(dims_.dimension, k / 3);
    const int p = k % 3;
    addMask(c, p == 0 ? 0 : p == 1 ? type.s1 : type.s2, -1, base);
    return type.s2;
  };
  const int k = isInterior(c) ? i : nthValid(3 * triangleTypes_, i, [&](int kk) {
    SimplexId base[3];
    const int span = anchor(kk, base);
    return grid::anchorValid(dims_, base, span);
  });
  SimplexId base[3];
  const int span = anchor(k, base);
  return encode(k / 3, base, triangleOffset_.data(), span);
}

int ImplicitTriangulation::getVertexTetNumber(SimplexId v) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, VT);
  TOPOGPU_REQUIRE_INDEX(v, getNumberOfVertices(), "vertex");
  if (dims_.dimension != 3)
    return 0;
  if (isInteriorVertex(v))
    return 4 * tetTypes_;
  SimplexId c[3];
  grid::vertexCoords(dims_, v, c);
  if (isInterior(c))
    return 4 * tetTypes_;
  return countValid(4 * tetTypes_, [&](int k) {
    SimplexId base[3];
    addMask(c, grid::tetChainMask(k / 4, k % 4), -1, base);
    return grid::anchorValid(dims_, base, 7);
  });
}

SimplexId ImplicitTriangulation::getVertexTet(SimplexId v, int i) const {
  TOPOGPU_REQUIRE_INDEX(i, getVertexTetNumber(v), "tetrahedron index");
  SimplexId c[3];
  grid::vertexCoords(dims_, v, c);
  auto anchor = [&](int k, SimplexId base[3]) {
    addMask(c, grid::tetChainMask(k / 4, k % 4), -1, base);
  };
  const int k = isInterior(c) ? i : nthValid(4 * tetTypes_, i, [&](int kk) {
    SimplexId base[3];
    anchor(kk, base);
    return grid::anchorValid(dims_, base, 7);
  });
  SimplexId base[3];
  anchor(k, base);
  return encode(k / 4, base, tetOffset_.data(), 7);
}

void ImplicitTriangulation::boundaryVertexStarVertices(SimplexId v, int i,
                                                       SimplexId* vertices) const {
  SimplexId c[3];
  grid::vertexCoords(dims_, v, c);
  const int d = dims_.dimension, cellSize = d + 1, span = grid::cellSpanMask(d);
  auto anchor = [&](int k, SimplexId base[3]) {
    addMask(c, grid::cellChainMask(d, k / cellSize, k % cellSize), -1, base);
  };
  const int candidates = grid::cellTypeCount(d) * cellSize;
  const int k = nthValid(candidates, i, [&](int kk) {
    SimplexId base[3];
    anchor(kk, base);
    return grid::anchorValid(dims_, base, span);
  });
  SimplexId base[3];
  anchor(k, base);
  const SimplexId first = grid::vertexAt(dims_, base);
  for (int q = 0; q < cellSize; ++q)
    vertices[q] =
        first + grid::maskOffset(dims_, grid::cellChainMask(d, k / cellSize, q));
}

// Cofaces of a simplex = the star of its first vertex filtered by containment. Around an
// interior vertex the candidates' vertices are fixed offsets from it, so containment is
// read from the offset tables (no id decoding), in the same candidate order.
int ImplicitTriangulation::interiorCofaces(const SimplexId* offsets, int arity,
                                           int candidates, SimplexId a,
                                           const SimplexId* others, int n, int i) const {
  int found[kMaxEdgeTriangles];
  const int count = interiorCofaceList(offsets, arity, candidates, a, others, n, found);
  return i < 0 ? count : i < count ? found[i] : -1;
}

int ImplicitTriangulation::interiorCofaceList(const SimplexId* offsets, int arity,
                                              int candidates, SimplexId a,
                                              const SimplexId* others, int n,
                                              int* found) const {
  int count = 0;
  for (int k = 0; k < candidates; ++k) {
    const SimplexId* o = offsets + std::ptrdiff_t(k) * arity;
    bool all = true;
    for (int j = 0; j < n && all; ++j) {
      const SimplexId d = others[j] - a;
      bool in = false;
      for (int q = 0; q < arity; ++q)
        in = in || o[q] == d;
      all = in;
    }
    if (all)
      found[count++] = k;
  }
  return count;
}

// The triangles of an edge (tets = false) or the tets of a triangle with vertices v.
int ImplicitTriangulation::cofaceList(SimplexId id, const SimplexId* v, bool tets,
                                      SimplexId* out) const {
  if (!isInteriorVertex(v[0]) || (tets && dims_.dimension != 3)) {
    const int n = tets ? getTriangleTetNumber(id) : getEdgeTriangleNumber(id);
    for (int i = 0; i < n; ++i)
      out[i] = tets ? getTriangleTet(id, i) : getEdgeTriangle(id, i);
    return n;
  }
  int found[kMaxEdgeTriangles];
  const int n = tets ? interiorCofaceList(starVertexOffset_.data(), 4, 4 * tetTypes_,
                                          v[0], v + 1, 2, found)
                     : interiorCofaceList(triangleStarVertexOffset_.data(), 3,
                                          3 * triangleTypes_, v[0], v + 1, 1, found);
  for (int i = 0; i < n; ++i)
    out[i] = tets ? getVertexTet(v[0], found[i]) : getVertexTriangle(v[0], found[i]);
  return n;
}

int ImplicitTriangulation::getEdgeTriangles(SimplexId e, SimplexId* out) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, EF);
  TOPOGPU_REQUIRE_INDEX(e, getNumberOfEdges(), "edge");
  SimplexId v[2];
  edgeVertices(e, v);
  return cofaceList(e, v, false, out);
}

int ImplicitTriangulation::getTriangleTets(SimplexId f, SimplexId* out) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, FT);
  TOPOGPU_REQUIRE_INDEX(f, getNumberOfTriangles(), "triangle");
  SimplexId v[3];
  triangleVertices(f, v);
  return cofaceList(f, v, true, out);
}

bool ImplicitTriangulation::stencilTriangle(const Anchor& edge, int k,
                                            EdgeTriangle& t) const {
  const grid::EdgeTriangleStencil& s = edgeTriangleStencils_[edge.type][k];
  const grid::TriangleType type = grid::triangleType(dims_.dimension, s.type);
  SimplexId q[3], q1[3];
  addMask(edge.base, s.shift, -1, q);
  if (!grid::anchorValid(dims_, q, type.s2))
    return false;
  addMask(q, type.s1, 1, q1);
  auto edgeAt = [&](const SimplexId c[3], int mask) {
    return encode(mask - 1, c, edgeOffset_.data(), mask);
  };
  t.triangle = encode(s.type, q, triangleOffset_.data(), type.s2);
  t.face = s.face;
  t.vertices[0] = grid::vertexAt(dims_, q);
  t.vertices[1] = t.vertices[0] + grid::maskOffset(dims_, type.s1);
  t.vertices[2] = t.vertices[0] + grid::maskOffset(dims_, type.s2);
  t.edges[0] = edgeAt(q, type.s1);
  t.edges[1] = edgeAt(q, type.s2);
  t.edges[2] = edgeAt(q1, type.s1 ^ type.s2);
  return true;
}

bool ImplicitTriangulation::getEdgeStencilTriangle(SimplexId e, int k,
                                                   EdgeTriangle& out) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, EF);
  TOPOGPU_REQUIRE_RELATION(prepared_, FE);
  TOPOGPU_REQUIRE_INDEX(e, getNumberOfEdges(), "edge");
  const Anchor a = decode(e, edgeOffset_.data(), edgeTypes_, edgeMask);
  return k >= 0 && k < edgeTriangleStencilCount_[a.type] && stencilTriangle(a, k, out);
}

int ImplicitTriangulation::getEdgeTriangleNumber(SimplexId e) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, EF);
  TOPOGPU_REQUIRE_INDEX(e, getNumberOfEdges(), "edge");
  SimplexId ab[2];
  edgeVertices(e, ab);
  const SimplexId a = ab[0], b = ab[1];
  if (isInteriorVertex(a))
    return interiorCofaces(triangleStarVertexOffset_.data(), 3, 3 * triangleTypes_, a, &b,
                           1, -1);
  return countValid(getVertexTriangleNumber(a), [&](int k) {
    const SimplexId f = getVertexTriangle(a, k);
    return getTriangleVertex(f, 1) == b || getTriangleVertex(f, 2) == b ||
           getTriangleVertex(f, 0) == b;
  });
}

SimplexId ImplicitTriangulation::getEdgeTriangle(SimplexId e, int i) const {
  TOPOGPU_REQUIRE_INDEX(i, getEdgeTriangleNumber(e), "triangle index");
  TOPOGPU_REQUIRE_INDEX(e, getNumberOfEdges(), "edge");
  SimplexId ab[2];
  edgeVertices(e, ab);
  const SimplexId a = ab[0], b = ab[1];
  const int k = isInteriorVertex(a)
                    ? interiorCofaces(triangleStarVertexOffset_.data(), 3,
                                      3 * triangleTypes_, a, &b, 1, i)
                    : nthValid(getVertexTriangleNumber(a), i, [&](int kk) {
                        const SimplexId f = getVertexTriangle(a, kk);
                        return getTriangleVertex(f, 1) == b ||
                               getTriangleVertex(f, 2) == b ||
                               getTriangleVertex(f, 0) == b;
                      });
  return k < 0 ? -1 : getVertexTriangle(a, k);
}

namespace {
template <typename Tri> bool tetContains(const Tri& tri, SimplexId t, SimplexId v) {
  for (int k = 0; k < 4; ++k) {
    if (tri.getTetVertex(t, k) == v)
      return true;
  }
  return false;
}
} // namespace

int ImplicitTriangulation::getEdgeTetNumber(SimplexId e) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, ET);
  TOPOGPU_REQUIRE_INDEX(e, getNumberOfEdges(), "edge");
  SimplexId ab[2];
  edgeVertices(e, ab);
  const SimplexId a = ab[0], b = ab[1];
  if (dims_.dimension == 3 && isInteriorVertex(a))
    return interiorCofaces(starVertexOffset_.data(), 4, 4 * tetTypes_, a, &b, 1, -1);
  return countValid(getVertexTetNumber(a),
                    [&](int k) { return tetContains(*this, getVertexTet(a, k), b); });
}

SimplexId ImplicitTriangulation::getEdgeTet(SimplexId e, int i) const {
  TOPOGPU_REQUIRE_INDEX(i, getEdgeTetNumber(e), "tetrahedron index");
  TOPOGPU_REQUIRE_INDEX(e, getNumberOfEdges(), "edge");
  SimplexId ab[2];
  edgeVertices(e, ab);
  const SimplexId a = ab[0], b = ab[1];
  const int k =
      dims_.dimension == 3 && isInteriorVertex(a)
          ? interiorCofaces(starVertexOffset_.data(), 4, 4 * tetTypes_, a, &b, 1, i)
          : nthValid(getVertexTetNumber(a), i,
                     [&](int kk) { return tetContains(*this, getVertexTet(a, kk), b); });
  return k < 0 ? -1 : getVertexTet(a, k);
}

int ImplicitTriangulation::getTriangleTetNumber(SimplexId f) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, FT);
  TOPOGPU_REQUIRE_INDEX(f, getNumberOfTriangles(), "triangle");
  SimplexId abc[3];
  triangleVertices(f, abc);
  const SimplexId a = abc[0], b = abc[1], c = abc[2];
  if (dims_.dimension == 3 && isInteriorVertex(a)) {
    const SimplexId others[2] = {b, c};
    return interiorCofaces(starVertexOffset_.data(), 4, 4 * tetTypes_, a, others, 2, -1);
  }
  return countValid(getVertexTetNumber(a), [&](int k) {
    const SimplexId t = getVertexTet(a, k);
    return tetContains(*this, t, b) && tetContains(*this, t, c);
  });
}

SimplexId ImplicitTriangulation::getTriangleTet(SimplexId f, int i) const {
  TOPOGPU_REQUIRE_INDEX(i, getTriangleTetNumber(f), "tetrahedron index");
  TOPOGPU_REQUIRE_INDEX(f, getNumberOfTriangles(), "triangle");
  SimplexId abc[3];
  triangleVertices(f, abc);
  const SimplexId a = abc[0], b = abc[1], c = abc[2];
  const SimplexId others[2] = {b, c};
  const int k =
      dims_.dimension == 3 && isInteriorVertex(a)
          ? interiorCofaces(starVertexOffset_.data(), 4, 4 * tetTypes_, a, others, 2, i)
          : nthValid(getVertexTetNumber(a), i, [&](int kk) {
              const SimplexId t = getVertexTet(a, kk);
              return tetContains(*this, t, b) && tetContains(*this, t, c);
            });
  return k < 0 ? -1 : getVertexTet(a, k);
}

int ImplicitTriangulation::getTetNeighborNumber(SimplexId t) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, TT);
  int n = 0;
  for (int i = 0; i < 4; ++i)
    n += getTriangleTetNumber(getTetTriangle(t, i)) - 1;
  return n;
}

SimplexId ImplicitTriangulation::getTetNeighbor(SimplexId t, int i) const {
  TOPOGPU_REQUIRE_INDEX(i, getTetNeighborNumber(t), "neighbour index");
  for (int face = 0; face < 4; ++face) {
    const SimplexId f = getTetTriangle(t, face);
    const int count = getTriangleTetNumber(f);
    for (int k = 0; k < count; ++k) {
      const SimplexId other = getTriangleTet(f, k);
      if (other != t && i-- == 0)
        return other;
    }
  }
  return -1;
}

// ---- boundary ------------------------------------------------------------------------

void ImplicitTriangulation::setBoundaryFaces(int faces) {
  int mask = 0;
  for (int a = 0; a < dims_.dimension; ++a) {
    int low = (faces >> (2 * axisOf_[a])) & 1, high = (faces >> (2 * axisOf_[a] + 1)) & 1;
    if (a == 0)
      std::swap(low, high); // stencil coordinates mirror the first axis
    mask |= low << (2 * a) | high << (2 * a + 1);
  }
  dims_.boundaryFaces = mask;
}

bool ImplicitTriangulation::isVertexOnBoundary(SimplexId v) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, BoundaryVertices);
  TOPOGPU_REQUIRE_INDEX(v, getNumberOfVertices(), "vertex");
  if (dims_.boundaryFaces == 0x3f)
    return !isInteriorVertex(v);
  SimplexId c[3];
  grid::vertexCoords(dims_, v, c);
  return grid::isBoundaryCoords(dims_, c);
}

bool ImplicitTriangulation::sharesBoundaryPlane(const SimplexId* vertices,
                                                int count) const {
  // A vertex off the box's faces (most of them) lies on no boundary plane.
  if (!onBoundary_.empty() && onBoundary_[vertices[0]] == 0)
    return false;
  SimplexId c[4][3];
  for (int k = 0; k < count; ++k)
    grid::vertexCoords(dims_, vertices[k], c[k]);
  for (int a = 0; a < dims_.dimension; ++a) {
    for (int high = 0; high < 2; ++high) {
      if (!((dims_.boundaryFaces >> (2 * a + high)) & 1))
        continue;
      const SimplexId side = high ? dims_.n[a] - 1 : 0;
      bool all = true;
      for (int k = 0; k < count && all; ++k)
        all = c[k][a] == side;
      if (all)
        return true;
    }
  }
  return false;
}

bool ImplicitTriangulation::isEdgeOnBoundary(SimplexId e) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, BoundaryEdges);
  TOPOGPU_REQUIRE_INDEX(e, getNumberOfEdges(), "edge");
  SimplexId v[2];
  edgeVertices(e, v);
  return sharesBoundaryPlane(v, 2);
}

bool ImplicitTriangulation::isTriangleOnBoundary(SimplexId f) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, BoundaryTriangles);
  TOPOGPU_REQUIRE_INDEX(f, getNumberOfTriangles(), "triangle");
  if (dims_.dimension != 3)
    return false; // in 2D triangles are the cells; the boundary is made of edges
  SimplexId v[3];
  triangleVertices(f, v);
  return sharesBoundaryPlane(v, 3);
}

} // namespace topogpu
