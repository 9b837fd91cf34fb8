// ProcessLowerStars of Robins, Wood and Sheppard (2011) for one vertex of a simplicial
// complex, with TTK's rules (SimplicialGradient.h says which): the lower star of v in
// local terms, its two priority queues, and the pairing that writes the gradient byte of
// each of its simplices. One lower star writes only its own simplices, so the vertices
// run in parallel.
#pragma once

#include "base/Types.h"
#include "core/common/TriangulationTraits.h"
#include "core/discrete_gradient/SimplicialGradientCodes.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace topogpu::discrete_gradient::simplicial {

namespace detail {

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
      const SimplexId* r = &ls.starRanks[3 * std::size_t(i)];
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
      const SimplexId* r = &ls.starRanks[4 * std::size_t(i)];
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
  ls.cellAt.resize(std::size_t(k) + std::size_t(nt) + std::size_t(nq));
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
      slot = c.slot[omitted]; // NOLINT(bugprone-signed-char-misuse): a number, 0..3
    } else {
      const StarTet& c = tets[coface];
      const int omitted = c.faces[0] == face ? 0 : c.faces[1] == face ? 1 : 2;
      slot = c.slot[omitted]; // NOLINT(bugprone-signed-char-misuse): a number, 0..3
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

} // namespace detail

} // namespace topogpu::discrete_gradient::simplicial
