// Independent reference code for the unit tests: plain enumerations that share nothing
// with triangulation/ or core/, so a test compares two implementations, never the code
// under test with itself.
#pragma once

#include "base/Types.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace topogpu::test {

using Tuple = std::vector<SimplexId>; // sorted vertex ids of one simplex

// Cells (maximal simplices) of the Kuhn triangulation (around the (0,0,0)-(1,1,1)
// diagonal: not TTK's, see ttkGridCells) of an nx x ny x nz grid, a generic mesh for the
// explicit backend's tests, enumerated
// the textbook way: per cube (square) of the active axes, one simplex per permutation of
// those axes, walking base -> +e_a -> +e_a+e_b -> ... -> opposite corner. Axes of size 1
// are simply not stepped along, so 4x1x6 gives the 2D triangulation of the (x, z) plane.
inline std::vector<Tuple> kuhnCells(SimplexId nx, SimplexId ny, SimplexId nz) {
  const SimplexId n[3] = {nx, ny, nz};
  std::vector<int> axes;
  for (int a = 0; a < 3; ++a) {
    if (n[a] > 1)
      axes.push_back(a);
  }
  const SimplexId stride[3] = {1, nx, nx * ny};
  std::vector<Tuple> cells;
  SimplexId c[3];
  for (c[2] = 0; c[2] < std::max<SimplexId>(1, nz - 1); ++c[2])
    for (c[1] = 0; c[1] < std::max<SimplexId>(1, ny - 1); ++c[1])
      for (c[0] = 0; c[0] < std::max<SimplexId>(1, nx - 1); ++c[0]) {
        const SimplexId base = c[0] * stride[0] + c[1] * stride[1] + c[2] * stride[2];
        std::vector<int> perm = axes;
        do {
          Tuple cell{base};
          SimplexId at = base;
          for (int a : perm) {
            at += stride[a];
            cell.push_back(at);
          }
          std::sort(cell.begin(), cell.end());
          cells.push_back(cell);
        } while (std::next_permutation(perm.begin(), perm.end()));
      }
  return cells;
}

// Coordinates of an nx x ny x nz grid's vertices (x fastest), as the cells above and
// below number them: the points GALE's fromExplicit takes.
inline std::vector<double> gridPoints(SimplexId nx, SimplexId ny, SimplexId nz) {
  std::vector<double> points;
  for (SimplexId z = 0; z < nz; ++z)
    for (SimplexId y = 0; y < ny; ++y)
      for (SimplexId x = 0; x < nx; ++x)
        points.insert(points.end(), {double(x), double(y), double(z)});
  return points;
}

// Cells of TTK's triangulation of an nx x ny x nz grid, written from TTK's documented
// split and nothing else: with the corners of a voxel named A..H in x-fastest order
// (A=(0,0,0), B=(1,0,0), C=(0,1,0), D=(1,1,0), E=(0,0,1), F=(1,0,1), G=(0,1,1),
// H=(1,1,1)) its tets are ABCG, BCDG, ABEG, BEFG, BFGH, BDGH (around the B-G diagonal);
// a pixel a=(0,0), b=(1,0), c=(0,1), d=(1,1) of the two active axes splits into abc and
// bcd (along the b-c diagonal). Axes of size 1 are squeezed out: 4x1x6 is 2D in (x, z).
inline std::vector<Tuple> ttkGridCells(SimplexId nx, SimplexId ny, SimplexId nz) {
  const SimplexId n[3] = {nx, ny, nz};
  const SimplexId stride[3] = {1, nx, nx * ny};
  std::vector<int> axes;
  for (int a = 0; a < 3; ++a) {
    if (n[a] > 1)
      axes.push_back(a);
  }
  static const int tets[6][4] = {{0, 1, 2, 6}, {1, 2, 3, 6}, {0, 1, 4, 6},
                                 {1, 4, 5, 6}, {1, 5, 6, 7}, {1, 3, 6, 7}};
  static const int triangles[2][3] = {{0, 1, 2}, {1, 2, 3}};
  std::vector<Tuple> cells;
  SimplexId c[3];
  for (c[2] = 0; c[2] < std::max<SimplexId>(1, nz - 1); ++c[2])
    for (c[1] = 0; c[1] < std::max<SimplexId>(1, ny - 1); ++c[1])
      for (c[0] = 0; c[0] < std::max<SimplexId>(1, nx - 1); ++c[0]) {
        const SimplexId base = c[0] * stride[0] + c[1] * stride[1] + c[2] * stride[2];
        // corner k of the voxel (pixel): bit i of k steps along active axis i
        auto corner = [&](int k) {
          SimplexId id = base;
          for (std::size_t i = 0; i < axes.size(); ++i)
            id += ((k >> i) & 1) * stride[axes[i]];
          return id;
        };
        if (axes.size() == 3) {
          for (const auto& t : tets) {
            Tuple cell{corner(t[0]), corner(t[1]), corner(t[2]), corner(t[3])};
            std::sort(cell.begin(), cell.end());
            cells.push_back(cell);
          }
        } else {
          for (const auto& t : triangles) {
            Tuple cell{corner(t[0]), corner(t[1]), corner(t[2])};
            std::sort(cell.begin(), cell.end());
            cells.push_back(cell);
          }
        }
      }
  return cells;
}

inline std::vector<SimplexId> flatten(const std::vector<Tuple>& cells) {
  std::vector<SimplexId> flat;
  for (const Tuple& c : cells)
    flat.insert(flat.end(), c.begin(), c.end());
  return flat;
}

// Each vertex's rank when sorted by (value, id): the vertex order every module breaks
// ties with, by a plain sort.
template <typename T> std::vector<SimplexId> ranksOf(const std::vector<T>& values) {
  std::vector<SimplexId> byRank(values.size()), rank(values.size());
  std::iota(byRank.begin(), byRank.end(), SimplexId(0));
  std::sort(byRank.begin(), byRank.end(), [&](SimplexId a, SimplexId b) {
    return values[a] < values[b] || (values[a] == values[b] && a < b);
  });
  for (std::size_t i = 0; i < byRank.size(); ++i)
    rank[std::size_t(byRank[i])] = SimplexId(i);
  return rank;
}

// All faces of a list of cells, by dimension, as sorted vertex tuples.
struct BruteComplex {
  int dimension = 0;
  SimplexId numberOfVertices = 0;
  std::array<std::set<Tuple>, 4> simplices; // [0] vertices ... [3] tets

  BruteComplex(SimplexId nv, int dim, const std::vector<Tuple>& cells)
      : dimension(dim), numberOfVertices(nv) {
    for (SimplexId v = 0; v < nv; ++v)
      simplices[0].insert({v});
    for (Tuple cell : cells) {
      std::sort(cell.begin(), cell.end());
      const int k = int(cell.size());
      for (int mask = 1; mask < (1 << k); ++mask) {
        Tuple face;
        for (int i = 0; i < k; ++i) {
          if (mask >> i & 1)
            face.push_back(cell[i]);
        }
        simplices[face.size() - 1].insert(face);
      }
    }
  }

  static bool contains(const Tuple& big, const Tuple& small) {
    return std::includes(big.begin(), big.end(), small.begin(), small.end());
  }

  // Relation p -> q by scanning every q-simplex: faces for q < p, cofaces for q > p,
  // adjacency through a shared (p-1)-face (VV: through an edge) for p == q.
  std::map<Tuple, std::multiset<Tuple>> relation(int p, int q) const {
    std::map<Tuple, std::multiset<Tuple>> out;
    for (const Tuple& s : simplices[p]) {
      auto& row = out[s];
      for (const Tuple& t : simplices[q]) {
        if (q < p ? contains(s, t) : q > p ? contains(t, s) : false)
          row.insert(t);
        if (p == q && s != t) {
          Tuple shared;
          std::set_intersection(s.begin(), s.end(), t.begin(), t.end(),
                                std::back_inserter(shared));
          if (p == 0) {
            if (simplices[1].count({std::min(s[0], t[0]), std::max(s[0], t[0])}))
              row.insert(t);
          } else if (int(shared.size()) == p) {
            row.insert(t);
          }
        }
      }
    }
    return out;
  }

  // Boundary by counting cofacets: a facet is on the boundary when exactly one cell
  // holds it; lower simplices are on the boundary when a boundary facet holds them.
  std::set<Tuple> boundary(int p) const {
    std::set<Tuple> facets;
    for (const Tuple& f : simplices[dimension - 1]) {
      int cofacets = 0;
      for (const Tuple& c : simplices[dimension])
        cofacets += contains(c, f);
      if (cofacets == 1)
        facets.insert(f);
    }
    std::set<Tuple> out;
    if (p >= dimension)
      return out; // cells (2D triangles) are never on the boundary
    for (const Tuple& s : simplices[p]) {
      for (const Tuple& f : facets) {
        if (contains(f, s)) {
          out.insert(s);
          break;
        }
      }
    }
    return out;
  }

  SimplexId euler() const {
    SimplexId chi = 0;
    for (int d = 0; d < 4; ++d)
      chi += (d % 2 ? -1 : 1) * SimplexId(simplices[d].size());
    return chi;
  }
};

// ---- random meshes
// ------------------------------------------------------------------------

// A random sub-complex of `grid` on nv vertices: each cell dropped with probability
// 1/dropOneIn (holes, pinched vertices and edges), vertex ids permuted, and optionally
// the vertices within each cell shuffled; nothing grid-like is left to rely on.
template <typename Rng>
std::vector<Tuple> randomSubcomplex(const std::vector<Tuple>& grid, SimplexId nv,
                                    unsigned dropOneIn, bool shuffleCellVertices,
                                    Rng& rng) {
  std::vector<SimplexId> relabel(nv);
  std::iota(relabel.begin(), relabel.end(), SimplexId(0));
  std::shuffle(relabel.begin(), relabel.end(), rng);
  std::vector<Tuple> cells;
  for (const Tuple& c : grid) {
    if (rng() % dropOneIn == 0)
      continue;
    Tuple r;
    for (SimplexId v : c)
      r.push_back(relabel[v]);
    if (shuffleCellVertices)
      std::shuffle(r.begin(), r.end(), rng);
    cells.push_back(r);
  }
  return cells;
}

struct RandomMesh {
  SimplexId numberOfVertices = 0;
  int dimension = 0;
  std::vector<Tuple> cells;
};

// Mesh `index` of a series the explicit backend's tests share: odd indices give
// triangles, even ones tets; indices 0, 1 mod 4 give random cells over 8..14 vertices
// (non-manifold, pinched, with holes and isolated vertices), 2, 3 mod 4 random
// sub-complexes of a Kuhn grid (randomSubcomplex). It draws from rng only, so a test's
// series is fixed by its seed and its count.
template <typename Rng> RandomMesh randomMesh(int index, Rng& rng) {
  RandomMesh mesh;
  mesh.dimension = index % 2 ? 2 : 3;
  if (index % 4 < 2) {
    mesh.numberOfVertices = 8 + index % 7;
    std::set<Tuple> chosen;
    std::uniform_int_distribution<SimplexId> pick(0, mesh.numberOfVertices - 1);
    const int wanted = 4 + index % 20;
    for (int k = 0; k < 200 && int(chosen.size()) < wanted; ++k) {
      std::set<SimplexId> cell;
      while (int(cell.size()) < mesh.dimension + 1)
        cell.insert(pick(rng));
      chosen.insert(Tuple(cell.begin(), cell.end()));
    }
    mesh.cells.assign(chosen.begin(), chosen.end());
  } else {
    const bool tets = mesh.dimension == 3;
    mesh.numberOfVertices = tets ? 36 : 30;
    mesh.cells = randomSubcomplex(tets ? kuhnCells(4, 3, 3) : kuhnCells(6, 5, 1),
                                  mesh.numberOfVertices, 4, true, rng);
  }
  return mesh;
}

// ---- data files
// ---------------------------------------------------------------------------

// The shared data folder: $TOPOGPU_SHARED_DATA when set, else the configured path.
inline std::string sharedDataDir() {
  if (const char* env = std::getenv("TOPOGPU_SHARED_DATA"))
    return env;
#ifdef TOPOGPU_SHARED_DATA_DIR
  return TOPOGPU_SHARED_DATA_DIR;
#else
  return "";
#endif
}

// Reads a raw little-endian volume into T (this host is little-endian, as checked by the
// caller through the value ranges in SOURCES.md); empty when the file is missing or
// short.
template <typename T> std::vector<T> readRaw(const std::string& path, std::size_t count) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return {};
  std::vector<T> values(count);
  in.read(reinterpret_cast<char*>(values.data()), std::streamsize(count * sizeof(T)));
  if (std::size_t(in.gcount()) != count * sizeof(T))
    return {};
  return values;
}

} // namespace topogpu::test
