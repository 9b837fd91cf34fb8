// The discrete gradient of a piecewise-linear scalar field on a simplicial complex
// (triangle and tetrahedral meshes, and the implicit grid's Freudenthal triangulation):
// ProcessLowerStars of Robins, Wood and Sheppard (2011), with the rules TTK's
// DiscreteGradient applies, so that the critical cells are TTK's:
//
//  - the lower star of v holds the simplices whose highest vertex in the shared vertex
//    order is v; each is keyed by the ranks of its other vertices in decreasing order,
//    missing entries being -1, and keys compare lexicographically (so a face is below its
//    cofaces, and every simplex of a lower star has its own key);
//  - v is paired with its lowest lower edge (a minimum when it has none); the other
//    edges wait in the queue of critical candidates;
//  - a coface whose faces in the lower star are all paired but one joins the queue of
//    pairable cells when one of its faces is paired or made critical; the lowest
//    pairable cell is paired with that face (or, when it has none left, becomes a
//    candidate), and only when no cell is pairable does the lowest unpaired candidate
//    become critical.
//
// One lower star writes only its own simplices, so vertices run in parallel (TBB).
// Storage: one byte per simplex (gradient[dimension][id], 1 byte x (V + E + F + T)):
// 0..3 = paired with its face of that index (the backend's face order: getEdgeVertex,
// getTriangleEdge, getTetTriangle: face i omits local vertex dimension - i), kPairedUp =
// paired with the coface whose byte names it, kCritical. getPairedCell and the V-path
// helpers answer through the triangulation's faces and cofaces (kPairRelations).
#pragma once

#include "core/common/ScalarArray.h"
#include "core/common/Timer.h"
#include "core/common/TriangulationTraits.h"
#include "core/common/Types.h"
#include "core/common/VertexOrder.h"
#include "triangulation/Relations.h"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace topogpu::discrete_gradient::simplicial {

// The gradient byte of a simplex (face indices 0..3 are the other values).
constexpr std::uint8_t kPairedUp = 4;
constexpr std::uint8_t kCritical = 5;
constexpr std::uint8_t kUnassigned = 0xff; // never left by a complete run

// What the gradient reads: lower edges through VV, VE (edge i of v joins v to neighbour
// i) and EV; lower tets through the vertex star; lower triangles (3D) as faces of the
// star's tets, found by findTriangle, with FV for their vertex order (2D: the star).
// BoundaryVertices: the mesh backend counts its non-manifold facets there (a warning).
constexpr Relations kRequiredRelations =
    VV | VE | EV | FV | VertexStar | BoundaryVertices;
// What getPairedCell and the V-path helpers read besides: the faces (EV FE TF) and the
// cofaces (VE EF FT) of a paired simplex.
constexpr Relations kPairRelations = VE | EV | EF | FE | FT | TF;

struct Parameters {
  Backend backend = Backend::Auto; // the simplicial gradient runs on the CPU
  // The vertex order: the front end's (sorted once per field), else its own.
  VertexOrderSource vertexOrder{};
};

struct Output {
  int dimension = 0;
  std::array<SimplexId, 4> simplexCounts{}; // vertices, edges, triangles, tets
  // One byte per simplex of each dimension (see the header comment).
  std::array<std::vector<std::uint8_t>, 4> gradient;
  // Critical simplices of each dimension, ascending ids (TTK's CellDimension + CellId),
  // and, parallel to them, each one's highest vertex in the vertex order (whose value
  // TTK reports as the critical point's).
  std::array<std::vector<SimplexId>, 4> criticalCells;
  std::array<std::vector<SimplexId>, 4> criticalVertices;
  std::array<SimplexId, 4> counts{}; // n0 n1 n2 n3 (n3 = 0 in 2D)
  RunReport report;

  void clear() { *this = Output(); }
  std::size_t memoryBytes() const {
    std::size_t bytes = 0;
    for (const auto& g : gradient)
      bytes += g.size();
    return bytes;
  }
};

// Throws Error for bad input (size mismatch, NaN/Inf values), Aborted on abort.
// Progress runs 0..1 once over the stages (precondition, vertex order, gradient,
// critical cells). keepOrder, when given, receives the vertex order (later stages of a
// Morse-Smale complex need it).
template <typename Triangulation>
void execute(Triangulation& triangulation, const ScalarArrayView& values,
             const Parameters& parameters, const Monitor& monitor, Output& output,
             std::vector<SimplexId>* keepOrder = nullptr);

// The simplex paired with (dimension, id): its coface (reverse = false) or its face
// (reverse = true), or -1 when it has none in that direction (TTK's getPairedCell).
// Needs kPairRelations.
template <typename Triangulation>
SimplexId getPairedCell(const Triangulation& tri, const Output& gradient, int dimension,
                        SimplexId id, bool reverse);

inline bool isCritical(const Output& gradient, int dimension, SimplexId id) {
  return gradient.gradient[dimension][id] == kCritical;
}

// A cell of a V-path.
struct Cell {
  int dimension;
  SimplexId id;
  bool operator==(const Cell& o) const { return dimension == o.dimension && id == o.id; }
};

// The descending V-path from vertex v: v, its paired edge, that edge's other vertex, ...
// down to a critical vertex (a minimum), which ends the path (TTK's getDescendingPath).
template <typename Triangulation>
void getDescendingPath(const Triangulation& tri, const Output& gradient, SimplexId v,
                       std::vector<Cell>& path);

// The ascending V-path from cell c (a tet in 3D, a triangle in 2D): c, its paired facet,
// that facet's other cell, ... up to a critical cell (a maximum), or to a facet on the
// boundary, which ends it (TTK's getAscendingPath).
template <typename Triangulation>
void getAscendingPath(const Triangulation& tri, const Output& gradient, SimplexId c,
                      std::vector<Cell>& path);

// The top cells (dimension top) of facet f: its star, as TTK's getTriangleStar (3D) or
// getEdgeStar (2D); two inside, one on the boundary. Needs kPairRelations.
template <typename Triangulation>
int getFacetStarNumber(const Triangulation& tri, int top, SimplexId f) {
  return top == 3 ? tri.getTriangleTetNumber(f) : tri.getEdgeTriangleNumber(f);
}
template <typename Triangulation>
SimplexId getFacetStar(const Triangulation& tri, int top, SimplexId f, int i) {
  return top == 3 ? tri.getTriangleTet(f, i) : tri.getEdgeTriangle(f, i);
}

// One step of a V-path, for finding every element's end at once (PointerJumping.h),
// the twins of the grid's vertexSuccessor and topCellSuccessor (GradientForest.h):
//  - descendingSuccessor: the next vertex of v's descending path (the other vertex of
//    its paired edge), v itself at a minimum;
//  - ascendingSuccessor: the next top cell of c's ascending path (the other cell of its
//    paired facet), c itself at a maximum, or -1 - facet when the path leaves through
//    that boundary facet.
template <typename Triangulation>
SimplexId descendingSuccessor(const Triangulation& tri, const Output& gradient,
                              SimplexId v);
template <typename Triangulation>
SimplexId ascendingSuccessor(const Triangulation& tri, const Output& gradient,
                             SimplexId c);

// ---- implementation ------------------------------------------------------------------

namespace detail {

constexpr double kPreconditionEnd = 0.1, kOrderEnd = 0.3, kGradientEnd = 0.9;

// The lower star in local terms. Its lower neighbours, sorted by rank, get local
// indices 0..k-1, so comparing local indices compares ranks: edge a joins v to
// neighbour a, triangle (a, b) with a > b, tet (a, b, c) with a > b > c, and TTK's keys
// (the other vertices' ranks, decreasing, compared lexicographically) compare as these
// tuples do. Every cell then gets its position in that order once, and the two queues
// are heaps of positions.
struct LowerNeighbor {
  SimplexId rank, vertex, edge;
};
struct StarTriangle {
  std::uint64_t key; // a << 32 | b
  SimplexId id;
  // Backend positions (getTriangleVertex order) of neighbours a and b; in 3D read only
  // when the triangle is paired with an edge (-1 until then).
  std::array<std::int8_t, 2> slot;
};
struct StarTet {
  std::uint64_t key; // (index of triangle (a, b)) << 32 | c: the (a, b, c) order
  SimplexId id;
  std::array<int, 3> faces;        // triangles (b, c), (a, c), (a, b): face d omits d
  std::array<std::int8_t, 3> slot; // backend positions of neighbours a, b, c
};

inline std::uint64_t pairKey(std::uint64_t a, std::uint64_t b) {
  return a << 32 | b;
}
inline int highOf(std::uint64_t key) {
  return int(key >> 32);
}
inline int lowOf(std::uint64_t key) {
  return int(key & 0xffffffffu);
}

// A min-priority queue of positions in the key order: a bit set when the lower star
// has at most 64 cells (the usual case), a heap otherwise. A position pushed twice is
// queued once in the bit set and twice in the heap; ProcessLowerStars gives the same
// pairs either way (a repeated cell comes out paired and is dropped).
class PositionQueue {
public:
  void reset(int cells) {
    small_ = cells <= 64;
    bits_ = 0;
    heap_.clear();
  }
  bool empty() const { return small_ ? bits_ == 0 : heap_.empty(); }
  void push(int position) {
    if (small_) {
      bits_ |= std::uint64_t(1) << position;
    } else {
      heap_.push_back(position);
      std::push_heap(heap_.begin(), heap_.end(), std::greater<int>());
    }
  }
  int top() const { return small_ ? __builtin_ctzll(bits_) : heap_.front(); }
  int pop() {
    const int position = top();
    if (small_) {
      bits_ &= bits_ - 1;
    } else {
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<int>());
      heap_.pop_back();
    }
    return position;
  }

private:
  bool small_ = true;
  std::uint64_t bits_ = 0;
  std::vector<int> heap_;
};

// The lower triangles (a, b), a > b, met in the star's tets: each once, in key order,
// with its index in that order. Up to 64 lower neighbours, a bit row per a (no sort;
// an index is a population count); beyond, a sorted list.
class LowerTriangles {
public:
  void reset(int neighbors) {
    small_ = neighbors <= 64;
    if (small_)
      rows_.assign(std::size_t(neighbors), 0);
    else
      keys_.clear();
  }
  void add(int a, int b) {
    if (small_)
      rows_[a] |= std::uint64_t(1) << b;
    else
      keys_.push_back(pairKey(a, b));
  }
  // Passes the distinct triangles' keys to emit, ascending.
  template <typename Emit> void finish(Emit&& emit) {
    if (small_) {
      base_.resize(rows_.size());
      int count = 0;
      for (std::size_t a = 0; a < rows_.size(); ++a) {
        base_[a] = count;
        for (std::uint64_t bits = rows_[a]; bits != 0; bits &= bits - 1, ++count)
          emit(pairKey(a, __builtin_ctzll(bits)));
      }
    } else {
      std::sort(keys_.begin(), keys_.end());
      keys_.erase(std::unique(keys_.begin(), keys_.end()), keys_.end());
      for (const std::uint64_t key : keys_)
        emit(key);
    }
  }
  // The index of triangle (a, b), which was added, once finished.
  int index(int a, int b) const {
    if (small_)
      return base_[a] + __builtin_popcountll(rows_[a] & ((std::uint64_t(1) << b) - 1));
    return int(std::lower_bound(keys_.begin(), keys_.end(), pairKey(a, b)) -
               keys_.begin());
  }

private:
  bool small_ = true;
  std::vector<std::uint64_t> rows_, keys_;
  std::vector<int> base_;
};

// Per-thread scratch, reused across the vertices one thread handles.
struct LowerStar {
  std::vector<LowerNeighbor> edges;
  std::vector<SimplexId> ranks;     // the edges' ranks, for localIndex
  std::vector<SimplexId> starRanks; // ranks of the star cells' vertices, backend order
  std::vector<StarTriangle> triangles;
  std::vector<StarTet> tets;
  LowerTriangles found; // 3D: the lower triangles met in the star's tets
  // 3D: the lower tets before sorting: a, b, c, their slots (4 bits each), star index
  std::vector<std::array<int, 5>> tetScratch;
  // paired[d][i], position[d][i] of cell i of dimension d (1..3)
  std::array<std::vector<std::uint8_t>, 4> paired;
  std::array<std::vector<int>, 4> position;
  std::vector<std::pair<int, int>> cellAt; // position -> (dimension, index)
  // cofaces[d] of cell i of dimension d (1, 2): compressed rows
  std::array<std::vector<int>, 3> cofaceOffsets, cofaces;
  std::vector<int> fill;
  PositionQueue pairable, candidates;
};

// Local index of the lower neighbour of rank r: how many lower neighbours rank below
// it (ranks ascending). Counted without branches for the usual handful, else searched.
inline int localIndex(const std::vector<SimplexId>& ranks, SimplexId r) {
  const int k = int(ranks.size());
  int local = 0;
  if (k <= 32) {
    for (int i = 0; i < k; ++i)
      local += ranks[i] < r;
  } else {
    local = int(std::lower_bound(ranks.begin(), ranks.end(), r) - ranks.begin());
  }
  if (local == k || ranks[local] != r)
    throw Error("internal error: a vertex of the star of a vertex is not its neighbour");
  return local;
}

// Compressed rows of the cofaces: faceCount faces, each coface's faces given by
// facesOf(j, emit).
template <typename FacesOf>
void buildCofaces(int faceCount, int cofaceCount, std::vector<int>& offsets,
                  std::vector<int>& rows, std::vector<int>& fill, FacesOf&& facesOf) {
  offsets.assign(std::size_t(faceCount) + 1, 0);
  for (int j = 0; j < cofaceCount; ++j)
    facesOf(j, [&](int f) { ++offsets[std::size_t(f) + 1]; });
  for (int i = 0; i < faceCount; ++i)
    offsets[i + 1] += offsets[i];
  rows.resize(std::size_t(offsets.back()));
  fill.assign(offsets.begin(), offsets.end() - 1);
  for (int j = 0; j < cofaceCount; ++j)
    facesOf(j, [&](int f) { rows[std::size_t(fill[f]++)] = j; });
}

// The ranks of the vertices of v's star cells (v's own is rank[v]), in the backend's
// vertex order; returns the star's size. Gathered before any test on them: the loads
// are independent, so the processor overlaps their cache misses.
template <typename Triangulation>
int gatherStarRanks(const Triangulation& tri, SimplexId v, const SimplexId* rank,
                    LowerStar& ls) {
  const int m = tri.getVertexStarNumber(v), arity = tri.getDimension() + 1;
  ls.starRanks.resize(std::size_t(m) * arity);
  SimplexId* out = ls.starRanks.data();
  for (int i = 0; i < m; ++i)
    tri.getVertexStarVertices(v, i, out + std::size_t(i) * arity);
  for (std::size_t j = 0; j < ls.starRanks.size(); ++j)
    out[j] = rank[out[j]];
  return m;
}

// Lower star of v: its lower edges, triangles and tets in local terms, their positions
// in the key order and their cofaces. Returns false when v has no lower edge.
template <typename Triangulation>
bool buildLowerStar(const Triangulation& tri, SimplexId v, const SimplexId* rank,
                    LowerStar& ls) {
  const SimplexId rv = rank[v];
  auto& edges = ls.edges;
  auto& triangles = ls.triangles;
  auto& tets = ls.tets;
  edges.clear();
  triangles.clear();
  tets.clear();
  // Edge i of v joins v to neighbour i (the concept's VE order): the cheap neighbour
  // decides, and only lower edges are looked up.
  const int nEdges = tri.getVertexEdgeNumber(v);
  for (int i = 0; i < nEdges; ++i) {
    const SimplexId u = tri.getVertexNeighbor(v, i);
    if (rank[u] < rv)
      edges.push_back({rank[u], u, tri.getVertexEdge(v, i)});
  }
  if (edges.empty())
    return false;
  std::sort(
      edges.begin(), edges.end(),
      [](const LowerNeighbor& a, const LowerNeighbor& b) { return a.rank < b.rank; });
  const int k = int(edges.size());
  ls.ranks.resize(std::size_t(k));
  for (int a = 0; a < k; ++a)
    ls.ranks[a] = edges[a].rank;
  if (k >= 2 && tri.getDimension() == 2) {
    const int m = gatherStarRanks(tri, v, rank, ls);
    for (int i = 0; i < m; ++i) {
      const SimplexId* r = &ls.starRanks[std::size_t(3 * i)];
      int local[2], slot[2], n = 0;
      for (int j = 0; j < 3 && n >= 0; ++j)
        if (r[j] != rv) {
          if (r[j] > rv)
            n = -1;
          else {
            local[n] = localIndex(ls.ranks, r[j]);
            slot[n++] = j;
          }
        }
      if (n != 2)
        continue;
      const int hi = local[0] > local[1] ? 0 : 1;
      triangles.push_back({pairKey(local[hi], local[1 - hi]),
                           tri.getVertexStar(v, i),
                           {std::int8_t(slot[hi]), std::int8_t(slot[1 - hi])}});
    }
    std::sort(triangles.begin(), triangles.end(),
              [](const StarTriangle& a, const StarTriangle& b) { return a.key < b.key; });
  } else if (k >= 2) {
    // Lower tets and triangles from the star's tets (in 3D every triangle is a face of
    // a tet): each lower triangle is looked up once (findTriangle), and its vertex order
    // is read only if it gets paired with an edge.
    auto& found = ls.found;
    auto& lowerTets = ls.tetScratch;
    found.reset(k);
    lowerTets.clear();
    const int m = gatherStarRanks(tri, v, rank, ls);
    for (int i = 0; i < m; ++i) {
      const SimplexId* r = &ls.starRanks[std::size_t(4 * i)];
      int local[3], slot[3], n = 0;
      for (int j = 0; j < 4; ++j)
        if (r[j] < rv) {
          local[n] = localIndex(ls.ranks, r[j]);
          slot[n++] = j;
        }
      if (n < 2)
        continue;
      // descending local indices (a small sorting network)
      auto order = [&](int x, int y) {
        if (local[x] < local[y]) {
          std::swap(local[x], local[y]);
          std::swap(slot[x], slot[y]);
        }
      };
      if (n == 2) {
        order(0, 1);
        found.add(local[0], local[1]);
        continue;
      }
      order(0, 1);
      order(1, 2);
      order(0, 1);
      found.add(local[0], local[1]);
      found.add(local[0], local[2]);
      found.add(local[1], local[2]);
      lowerTets.push_back(
          {local[0], local[1], local[2], slot[0] | slot[1] << 4 | slot[2] << 8, i});
    }
    found.finish([&](std::uint64_t key) {
      triangles.push_back(
          {key,
           tri.findTriangle(v, edges[highOf(key)].vertex, edges[lowOf(key)].vertex),
           {-1, -1}});
    });
    for (const auto& t : lowerTets) {
      StarTet q;
      const int ab = found.index(t[0], t[1]);
      q.key = pairKey(ab, t[2]);
      q.id = tri.getVertexStar(v, t[4]);
      q.faces = {found.index(t[1], t[2]), found.index(t[0], t[2]), ab};
      q.slot = {std::int8_t(t[3] & 15), std::int8_t(t[3] >> 4 & 15),
                std::int8_t(t[3] >> 8 & 15)};
      tets.push_back(q);
    }
    std::sort(tets.begin(), tets.end(),
              [](const StarTet& a, const StarTet& b) { return a.key < b.key; });
  }
  const int nt = int(triangles.size()), nq = int(tets.size());
  // Positions in the key order: edge a, then its triangles (a, b) by b, each followed
  // by its tets (a, b, c) by c (a missing entry, -1, sorts first).
  for (int d = 1; d <= 3; ++d) {
    const int count = d == 1 ? k : d == 2 ? nt : nq;
    ls.paired[d].assign(std::size_t(count), 0);
    ls.position[d].resize(std::size_t(count));
  }
  ls.cellAt.resize(std::size_t(k + nt + nq));
  int at = 0;
  for (int a = 0, t = 0, q = 0; a < k; ++a) {
    ls.position[1][a] = at;
    ls.cellAt[at++] = {1, a};
    for (; t < nt && highOf(triangles[t].key) == a; ++t) {
      ls.position[2][t] = at;
      ls.cellAt[at++] = {2, t};
      for (; q < nq && highOf(tets[q].key) == t; ++q) {
        ls.position[3][q] = at;
        ls.cellAt[at++] = {3, q};
      }
    }
  }
  buildCofaces(k, nt, ls.cofaceOffsets[1], ls.cofaces[1], ls.fill,
               [&](int j, auto&& emit) {
                 emit(highOf(triangles[j].key));
                 emit(lowOf(triangles[j].key));
               });
  buildCofaces(nt, nq, ls.cofaceOffsets[2], ls.cofaces[2], ls.fill,
               [&](int j, auto&& emit) {
                 for (const int f : tets[j].faces)
                   emit(f);
               });
  return true;
}

// ProcessLowerStars for vertex v: writes the byte of every simplex of its lower star.
template <typename Triangulation>
void processLowerStar(const Triangulation& tri, SimplexId v, const SimplexId* rank,
                      LowerStar& ls, std::array<std::uint8_t*, 4> gradient) {
  if (!buildLowerStar(tri, v, rank, ls)) {
    gradient[0][v] = kCritical; // a minimum
    return;
  }
  const auto& edges = ls.edges;
  auto& triangles = ls.triangles;
  const auto& tets = ls.tets;
  auto& paired = ls.paired;
  auto& pairable = ls.pairable;
  auto& candidates = ls.candidates;
  pairable.reset(int(ls.cellAt.size()));
  candidates.reset(int(ls.cellAt.size()));
  auto push = [&](PositionQueue& q, int dim, int index) {
    q.push(ls.position[dim][index]);
  };
  auto idOf = [&](int dim, int index) {
    return dim == 1 ? edges[index].edge : dim == 2 ? triangles[index].id : tets[index].id;
  };
  // Unpaired faces of cell (dim, i) in the lower star: how many, and the last one.
  auto unpairedFaces = [&](int dim, int i, int& face) {
    int n = 0;
    auto check = [&](int f) {
      if (!paired[dim - 1][f]) {
        ++n;
        face = f;
      }
    };
    if (dim == 2) {
      check(lowOf(triangles[i].key));
      check(highOf(triangles[i].key));
    } else {
      for (const int f : tets[i].faces)
        check(f);
    }
    return n;
  };
  // Cofaces of (dim, i) left with exactly one unpaired face become pairable.
  auto pushCofaces = [&](int dim, int i) {
    if (dim < 1 || dim > 2)
      return;
    const auto& offsets = ls.cofaceOffsets[dim];
    for (int r = offsets[i]; r < offsets[i + 1]; ++r) {
      const int j = ls.cofaces[dim][r];
      int face = -1;
      if (unpairedFaces(dim + 1, j, face) == 1)
        push(pairable, dim + 1, j);
    }
  };
  // Face `face` (dimension dim) paired with coface `coface`: the coface's byte is the
  // backend index of that face, which omits local vertex (dim + 1) - slot of the
  // coface's vertex not in the face.
  auto pair = [&](int dim, int face, int coface) {
    gradient[dim][idOf(dim, face)] = kPairedUp;
    int slot = 0;
    if (dim == 1) {
      StarTriangle& c = triangles[coface];
      const int omitted = highOf(c.key) == face ? 1 : 0; // the other neighbour
      if (c.slot[omitted] < 0) {
        const SimplexId w = edges[omitted == 0 ? highOf(c.key) : lowOf(c.key)].vertex;
        if constexpr (SimplexVerticesAscending<Triangulation>::value) {
          const SimplexId u = edges[omitted == 0 ? lowOf(c.key) : highOf(c.key)].vertex;
          c.slot[omitted] = std::int8_t(int(v < w) + int(u < w));
        } else {
          for (int j = 0; j < 3; ++j)
            if (tri.getTriangleVertex(c.id, j) == w)
              c.slot[omitted] = std::int8_t(j);
        }
      }
      slot = c.slot[omitted];
    } else {
      const StarTet& c = tets[coface];
      const int omitted = c.faces[0] == face ? 0 : c.faces[1] == face ? 1 : 2;
      slot = c.slot[omitted];
    }
    gradient[dim + 1][idOf(dim + 1, coface)] = std::uint8_t(dim + 1 - slot);
    paired[dim][face] = paired[dim + 1][coface] = 1;
  };

  // v is paired with its lowest lower edge, delta (edges are sorted by rank).
  paired[1][0] = 1;
  gradient[0][v] = kPairedUp;
  const SimplexId delta = edges[0].edge;
  if constexpr (SimplexVerticesAscending<Triangulation>::value)
    gradient[1][delta] = v < edges[0].vertex ? 0 : 1;
  else
    gradient[1][delta] = tri.getEdgeVertex(delta, 0) == v ? 0 : 1;
  for (int i = 1; i < int(edges.size()); ++i)
    candidates.push(ls.position[1][i]);
  pushCofaces(1, 0);
  while (!pairable.empty() || !candidates.empty()) {
    while (!pairable.empty()) {
      const auto [dim, index] = ls.cellAt[pairable.pop()];
      int face = -1;
      if (unpairedFaces(dim, index, face) == 0) {
        push(candidates, dim, index);
      } else {
        pair(dim - 1, face, index);
        pushCofaces(dim, index);
        pushCofaces(dim - 1, face);
      }
    }
    while (!candidates.empty()) {
      const auto [dim, index] = ls.cellAt[candidates.top()];
      if (!paired[dim][index])
        break;
      candidates.pop();
    }
    if (!candidates.empty()) {
      const auto [dim, index] = ls.cellAt[candidates.pop()];
      paired[dim][index] = 1;
      gradient[dim][idOf(dim, index)] = kCritical;
      pushCofaces(dim, index);
    }
  }
}

// Highest vertex (in the order) of simplex (dim, id).
template <typename Triangulation>
SimplexId highestVertex(const Triangulation& tri, int dim, SimplexId id,
                        const SimplexId* rank) {
  if (dim == 0)
    return id;
  SimplexId best = -1;
  for (int k = 0; k <= dim; ++k) {
    const SimplexId u = dim == 1   ? tri.getEdgeVertex(id, k)
                        : dim == 2 ? tri.getTriangleVertex(id, k)
                                   : tri.getCellVertex(id, k);
    if (best < 0 || rank[u] > rank[best])
      best = u;
  }
  return best;
}

// Ascending ids of the simplices with byte `code`, per block in parallel; unassigned
// receives the number of kUnassigned bytes.
std::vector<SimplexId> selectCells(const std::vector<std::uint8_t>& bytes,
                                   std::uint8_t code, SimplexId& unassigned);

} // namespace detail

template <typename Triangulation>
void execute(Triangulation& tri, const ScalarArrayView& values,
             const Parameters& parameters, const Monitor& monitor, Output& output,
             std::vector<SimplexId>* keepOrder) {
  output.clear();
  validateVertexField(tri.getNumberOfVertices(), values);
  if (parameters.backend == Backend::Gpu)
    output.report.warnings.push_back(
        {WarningCode::NoGpuPath,
         "the simplicial discrete gradient runs on the CPU; the GPU was not used"});
  output.report.backend = "cpu";
  Timer timer;
  tri.precondition(kRequiredRelations);
  output.report.timings.emplace_back("precondition", timer.seconds());
  monitor.report(detail::kPreconditionEnd);
  monitor.checkAbort();

  const int dim = tri.getDimension();
  output.dimension = dim;
  output.simplexCounts = {tri.getNumberOfVertices(), tri.getNumberOfEdges(),
                          tri.getNumberOfTriangles(),
                          dim == 3 ? tri.getNumberOfCells() : SimplexId(0)};
  VertexOrderView order = vertexOrderOf(
      parameters.vertexOrder, values,
      monitor.stage(detail::kPreconditionEnd, detail::kOrderEnd), output.report);
  monitor.checkAbort();

  timer.reset();
  std::array<std::uint8_t*, 4> bytes{};
  for (int k = 0; k <= dim; ++k) {
    output.gradient[k].assign(std::size_t(output.simplexCounts[k]), kUnassigned);
    bytes[k] = output.gradient[k].data();
  }
  const SimplexId n = tri.getNumberOfVertices();
  tbb::enumerable_thread_specific<detail::LowerStar> scratch;
  const SimplexId chunks = std::max<SimplexId>(1, std::min<SimplexId>(16, n / 65536));
  for (SimplexId k = 0; k < chunks; ++k) {
    // One lower star writes only its own simplices: any visiting order gives the same
    // gradient, so the backend's (GALE: segment by segment) is used.
    parallelForVertexBlocks(tri, n * k / chunks, n * (k + 1) / chunks,
                            [&](SimplexId first, SimplexId last) {
                              detail::LowerStar& ls = scratch.local();
                              for (SimplexId p = first; p < last; ++p)
                                detail::processLowerStar(tri, vertexAtPosition(tri, p),
                                                         order.data(), ls, bytes);
                            });
    monitor.checkAbort();
    monitor.report(detail::kOrderEnd +
                   (detail::kGradientEnd - detail::kOrderEnd) * double(k + 1) / chunks);
  }
  output.report.timings.emplace_back("gradient (cpu)", timer.seconds());

  timer.reset();
  for (int k = 0; k <= dim; ++k) {
    // Every simplex lies in the lower star of its highest vertex: an unassigned byte
    // means the triangulation's relations disagree with each other.
    SimplexId lost = 0;
    output.criticalCells[k] = detail::selectCells(output.gradient[k], kCritical, lost);
    if (lost > 0)
      throw Error("internal error: the discrete gradient left " + std::to_string(lost) +
                  " simplices of dimension " + std::to_string(k) + " unclassified");
    output.counts[k] = SimplexId(output.criticalCells[k].size());
    auto& top = output.criticalVertices[k];
    const auto& ids = output.criticalCells[k];
    top.resize(ids.size());
    tbb::parallel_for(std::size_t(0), ids.size(), [&](std::size_t i) {
      top[i] = detail::highestVertex(tri, k, ids[i], order.data());
    });
  }
  output.report.timings.emplace_back("critical cells (cpu)", timer.seconds());
  if constexpr (CountsNonManifoldFacets<Triangulation>::value) {
    if (tri.getNumberOfNonManifoldFacets() > 0)
      output.report.warnings.push_back(
          {WarningCode::NonManifoldMesh,
           "the mesh is non-manifold: " +
               std::to_string(tri.getNumberOfNonManifoldFacets()) +
               (dim == 3 ? " triangles are" : " edges are") +
               " shared by more than two cells; the gradient is still a valid discrete "
               "gradient of the complex"});
  }
  if (keepOrder != nullptr)
    order.moveTo(*keepOrder);
  monitor.report(1.0);
}

// ---- queries
// ---------------------------------------------------------------------------

template <typename Triangulation>
SimplexId getPairedCell(const Triangulation& tri, const Output& g, int dim, SimplexId id,
                        bool reverse) {
  if (dim < 0 || dim > g.dimension)
    return -1;
  const std::uint8_t code = g.gradient[dim][id];
  if (reverse) {
    if (dim == 0 || code > 3)
      return -1;
    if (dim == 1)
      return tri.getEdgeVertex(id, code);
    if (dim == 2)
      return tri.getTriangleEdge(id, code);
    return tri.getTetTriangle(id, code);
  }
  if (code != kPairedUp || dim == g.dimension)
    return -1;
  // The coface whose byte names this simplex as its face.
  if (dim == 0) {
    const int n = tri.getVertexEdgeNumber(id);
    for (int i = 0; i < n; ++i) {
      const SimplexId e = tri.getVertexEdge(id, i);
      const std::uint8_t c = g.gradient[1][e];
      if (c <= 1 && tri.getEdgeVertex(e, c) == id)
        return e;
    }
  } else if (dim == 1) {
    const int n = tri.getEdgeTriangleNumber(id);
    for (int i = 0; i < n; ++i) {
      const SimplexId f = tri.getEdgeTriangle(id, i);
      const std::uint8_t c = g.gradient[2][f];
      if (c <= 2 && tri.getTriangleEdge(f, c) == id)
        return f;
    }
  } else {
    const int n = tri.getTriangleTetNumber(id);
    for (int i = 0; i < n; ++i) {
      const SimplexId t = tri.getTriangleTet(id, i);
      const std::uint8_t c = g.gradient[3][t];
      if (c <= 3 && tri.getTetTriangle(t, c) == id)
        return t;
    }
  }
  return -1;
}

template <typename Triangulation>
void getDescendingPath(const Triangulation& tri, const Output& g, SimplexId v,
                       std::vector<Cell>& path) {
  // V-paths are acyclic: at most one step per edge, a bound that also stops a corrupt
  // gradient from looping.
  for (SimplexId steps = 0; steps <= g.simplexCounts[1]; ++steps) {
    path.push_back(Cell{0, v});
    const SimplexId e = getPairedCell(tri, g, 0, v, false);
    if (e < 0)
      return;
    path.push_back(Cell{1, e});
    const SimplexId a = tri.getEdgeVertex(e, 0);
    v = a == v ? tri.getEdgeVertex(e, 1) : a;
  }
  throw Error("internal error: a descending V-path does not end");
}

template <typename Triangulation>
void getAscendingPath(const Triangulation& tri, const Output& g, SimplexId c,
                      std::vector<Cell>& path) {
  const int top = g.dimension;
  for (SimplexId steps = 0; steps <= g.simplexCounts[top]; ++steps) {
    path.push_back(Cell{top, c});
    const SimplexId facet = getPairedCell(tri, g, top, c, true);
    if (facet < 0)
      return;
    path.push_back(Cell{top - 1, facet});
    const int n = getFacetStarNumber(tri, top, facet);
    SimplexId next = -1;
    for (int i = 0; i < n && next < 0; ++i) {
      const SimplexId other = getFacetStar(tri, top, facet, i);
      if (other != c)
        next = other;
    }
    if (next < 0)
      return; // the facet is on the boundary
    c = next;
  }
  throw Error("internal error: an ascending V-path does not end");
}

template <typename Triangulation>
SimplexId descendingSuccessor(const Triangulation& tri, const Output& g, SimplexId v) {
  const SimplexId e = getPairedCell(tri, g, 0, v, false);
  if (e < 0)
    return v;
  const SimplexId a = tri.getEdgeVertex(e, 0);
  return a == v ? tri.getEdgeVertex(e, 1) : a;
}

template <typename Triangulation>
SimplexId ascendingSuccessor(const Triangulation& tri, const Output& g, SimplexId c) {
  const int top = g.dimension;
  const SimplexId facet = getPairedCell(tri, g, top, c, true);
  if (facet < 0)
    return c;
  const int n = getFacetStarNumber(tri, top, facet);
  for (int i = 0; i < n; ++i) {
    const SimplexId other = getFacetStar(tri, top, facet, i);
    if (other != c)
      return other;
  }
  return -1 - facet;
}

} // namespace topogpu::discrete_gradient::simplicial

namespace topogpu {
class ImplicitTriangulation;
class ExplicitTriangulation;
class GaleTriangulation;
namespace discrete_gradient::simplicial {
// Instantiated once, in SimplicialGradient.cpp.
extern template void execute(ImplicitTriangulation&, const ScalarArrayView&,
                             const Parameters&, const Monitor&, Output&,
                             std::vector<SimplexId>*);
extern template void execute(ExplicitTriangulation&, const ScalarArrayView&,
                             const Parameters&, const Monitor&, Output&,
                             std::vector<SimplexId>*);
extern template void execute(GaleTriangulation&, const ScalarArrayView&,
                             const Parameters&, const Monitor&, Output&,
                             std::vector<SimplexId>*);
} // namespace discrete_gradient::simplicial
} // namespace topogpu
